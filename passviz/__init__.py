"""passviz: record and step through every IR mutation of a pass pipeline."""

__version__ = "0.1.0"


def _jupyter_labextension_paths() -> list[dict[str, str]]:  # pyright: ignore[reportUnusedFunction]
    """Where JupyterLab finds the prebuilt extension (``jupyter labextension develop``)."""
    return [{"src": "labextension", "dest": "passviz"}]


def load_ipython_extension(shell: object) -> None:
    """``%load_ext passviz``: show traces as a Stepper in this kernel."""
    from passviz._ipython import register

    register(shell)


def _register_display() -> None:
    from passviz._ipython import register_if_in_kernel

    register_if_in_kernel()


_register_display()
