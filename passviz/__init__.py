"""passviz: record and step through every IR mutation of a pass pipeline."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from passviz.trace.model import Trace

from passviz.version import __version__

__all__ = ["__version__", "capture_triton", "import_dump", "load_ipython_extension", "record"]


def _jupyter_labextension_paths() -> list[dict[str, str]]:  # pyright: ignore[reportUnusedFunction]
    """Where JupyterLab finds the prebuilt extension (``jupyter labextension develop``)."""
    return [{"src": "labextension", "dest": "passviz"}]


def record(module_or_text: str | ModuleOp, passes: str | Sequence[ModulePass], **options: Any) -> Trace:
    """Run ``passes`` on a module (copied) or MLIR text and return the recorded trace.

    ``passes`` is a pipeline spec (``"canonicalize,cse"``) or pass instances:
    any xDSL ``ModulePass``, one defined in a notebook cell too, is recorded
    rewrite by rewrite, each step named after the pattern that made it.
    ``options`` are ``RecordOptions`` fields (``max_rewrites=20``,
    ``timeout=5.0``) or ``output=`` a file to write the trace to.

    It runs as ``passviz trace`` does, on a stack and recursion limit deep
    IR needs (``passviz.ir.deep.call_deep``), not Python's default limit of
    1,000 frames, which stops xDSL at about 160 nested regions.

    >>> trace = passviz.record(text, [MyPass()], max_rewrites=20)
    """
    from passviz.ir.deep import call_deep
    from passviz.pipelines import record as record_pipeline
    from passviz.recording.recorder import RecordOptions

    output = options.pop("output", None)
    recording = RecordOptions(**options)
    return call_deep(lambda: record_pipeline(module_or_text, passes, output=output, options=recording).trace)


def import_dump(path_or_text: str | Path, *, input_ir: str | None = None) -> Trace:
    """The trace of a compiler's MLIR IR dump (``--mlir-print-ir-after-all``, Triton's
    ``MLIR_ENABLE_DUMP``, ...): a file, an ``--mlir-print-ir-tree-dir`` folder, or the dump's text;
    ``input_ir``, the IR before the first pass of a dump printed after each pass.  Any dialect:
    ops are read structurally and matched from pass to pass (``passviz import``)."""
    from passviz.importer import import_dump as import_any

    return import_any(path_or_text, input_ir=input_ir)


def capture_triton(
    kernel: object,
    signature: dict[str, str],
    constexprs: dict[str, object] | None = None,
    *,
    target: str = "cuda:90",
    llvm_passes: bool = False,
    rewrites: Sequence[str] = (),
    **options: object,
) -> Trace:
    """The trace of the installed Triton compiling ``kernel`` (a ``@triton.jit`` function, one
    defined in a notebook cell too) for ``target``, on a machine without a GPU: every MLIR pass of
    its ``ttir``, ``ttgir`` and ``llir`` stages a step (grouped by stage), then its LLVM IR, PTX and
    SASS as text and its cubin (``passviz triton``).  ``signature`` gives each argument's Triton
    type, ``constexprs`` the constants' values, ``options`` Triton's (``num_warps=4``);
    ``llvm_passes`` keeps LLVM's IR after each of its passes, ``rewrites`` names passes recorded
    pattern by pattern from Triton's log (``["tritongpu-remove-layout-conversions"]``).

    >>> signature = {"x": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    >>> trace = passviz.capture_triton(add_kernel, signature, {"BLOCK": 1024})
    """
    from passviz.compilers.triton.capture import capture_triton as capture

    return capture(
        kernel, signature, constexprs, target=target, llvm_passes=llvm_passes, rewrites=rewrites, **options
    )


def load_ipython_extension(shell: object) -> None:
    """``%load_ext passviz``: show traces as a Stepper in this kernel."""
    from passviz._ipython import register

    register(shell)


def _register_display() -> None:
    from passviz._ipython import register_if_in_kernel

    register_if_in_kernel()


_register_display()
