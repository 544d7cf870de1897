"""Registering passviz's rich display with an IPython kernel.

Done by ``import passviz`` inside a kernel, or by ``%load_ext passviz``.
The registration is deferred by type name, so nothing heavy is imported
until a trace is actually displayed.
"""

from __future__ import annotations

import sys
from typing import Any


def register(shell: Any) -> None:
    """Show traces as a Stepper in this kernel."""
    formatter = shell.display_formatter.mimebundle_formatter
    formatter.for_type_by_name("passviz.trace.model", "Trace", _trace_bundle)


def _trace_bundle(trace: Any) -> dict[str, Any]:
    try:
        from passviz.widget.display import trace_bundle
    except ImportError:  # no ipywidgets: the static summary
        return trace._repr_mimebundle_()
    return trace_bundle(trace)


def register_if_in_kernel() -> None:
    """Register if this process is an IPython kernel (not a terminal IPython, not a script)."""
    if "IPython" not in sys.modules:
        return
    from IPython.core.getipython import get_ipython

    shell = get_ipython()
    if shell is not None and getattr(shell, "kernel", None) is not None:
        register(shell)
