"""Real Triton (3.6 or 3.9, whichever is installed) as the oracle for passviz's TTIR passes.

Both sides are printed through Triton's own parser and printer
(``ir.parse_mlir_module`` then ``module.str_nodebug()``), so the comparison
sees what MLIR sees: value names, attribute spelling and custom-vs-generic
syntax do not matter, op order and contents do.

``triton`` is the optional extra ``[triton]``; CI installs it, so there the
oracle tests fail instead of skipping when it is missing (see ``need``).
"""

from __future__ import annotations

import functools
import importlib.util
import tempfile
from pathlib import Path
from typing import Any

import pytest

from passviz.pipelines import record, triton_frontend_ir
from passviz.trace.irtext import print_module
from passviz.trace.recorder import RecordOptions

TRITON_VERSIONS = ("3.6.0", "3.9.0")
"""The Triton releases the oracle tests run against (one per virtualenv)."""

TRITON_VERSION = TRITON_VERSIONS[0]
"""The release the ``[triton]`` extra installs."""

TRITON_PASSES: dict[str, tuple[str, str]] = {
    "inline": ("common", "add_inliner"),
    "canonicalize": ("common", "add_canonicalizer"),
    "cse": ("common", "add_cse"),
    "loop-invariant-code-motion": ("common", "add_licm"),
    "symbol-dce": ("common", "add_symbol_dce"),
    "sccp": ("common", "add_sccp"),
    "triton-rewrite-tensor-pointer": ("ttir", "add_rewrite_tensor_pointer"),
    "triton-combine": ("ttir", "add_combine"),
    "triton-reorder-broadcast": ("ttir", "add_reorder_broadcast"),
    "triton-loop-unroll": ("ttir", "add_loop_unroll"),
    "triton-licm": ("ttir", "add_triton_licm"),
}
"""passviz's pass names and the ``triton._C.libtriton.passes`` functions that add Triton's."""


class TritonError(RuntimeError):
    """Triton could not parse or transform a module."""


def triton_missing() -> str | None:
    """Why the Triton oracle cannot run here, or None."""
    if importlib.util.find_spec("triton") is None:
        return f"triton is not installed (pip install -e '.[triton]' installs triton=={TRITON_VERSION})"
    import triton

    if triton.__version__ not in TRITON_VERSIONS:
        return (
            f"triton {triton.__version__} is installed; the oracle is triton {' or '.join(TRITON_VERSIONS)}"
        )
    return None


def installed_triton() -> str:
    """The installed Triton's version (call where ``triton_missing()`` is None)."""
    import triton

    return str(triton.__version__)


def _parse(text: str) -> tuple[Any, Any]:
    from triton._C.libtriton import ir  # pyright: ignore[reportMissingImports]

    context = ir.context()
    ir.load_dialects(context)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as handle:
        handle.write(text)
    path = Path(handle.name)
    try:
        module = ir.parse_mlir_module(str(path), context)
    except Exception as exc:  # MLIR reports the diagnostic on stderr; keep the text with the error
        raise TritonError(f"Triton cannot parse:\n{text}\n({exc})") from exc
    finally:
        path.unlink()
    module.context = context
    return module, context


def triton_normalize(text: str) -> str:
    """``text`` parsed and printed by Triton (no locations)."""
    module, _ = _parse(text)
    return module.str_nodebug()


def triton_run(text: str, pipeline: str) -> str:
    """Real Triton's output of ``pipeline`` (comma-separated passviz pass names) on ``text``."""
    from triton._C.libtriton import ir, passes  # pyright: ignore[reportMissingImports]

    module, context = _parse(text)
    manager = ir.pass_manager(context)
    for name in pipeline.split(","):
        group, adder = TRITON_PASSES[name.strip()]
        add = getattr(getattr(passes, group), adder, None)
        if add is None:  # Triton 3.9 dropped rewrite_tensor_pointer with block pointers
            pytest.skip(f"Triton {installed_triton()} has no {name.strip()} pass")
        add(manager)
    try:
        manager.run(module, "passviz-oracle")
    except Exception as exc:
        raise TritonError(f"Triton failed running {pipeline}: {exc}") from exc
    return module.str_nodebug()


def passviz_run(text: str, pipeline: str) -> str:
    """passviz's output of ``pipeline`` on ``text``, printed through Triton."""
    run = record(text, pipeline, options=RecordOptions(verify_each="pass"))
    assert run.trace.status == "ok", [s.flag for s in run.trace.steps if s.flag]
    return triton_normalize(print_module(run.module))


def compare(text: str, pipeline: str) -> tuple[str, str]:
    """(passviz's output, Triton's output) of ``pipeline`` on ``text``, both printed by Triton."""
    return passviz_run(text, pipeline), triton_run(text, pipeline)


# --------------------------------------------------------------------------- #
# The tutorial kernels of tests/triton_kernels.py (imported lazily: it needs triton)
# --------------------------------------------------------------------------- #

KERNEL_NAMES = ("vector_add", "fused_softmax", "matmul", "layer_norm")
"""The tutorial kernels of ``tests/triton_kernels.py``."""

CONSTRUCT_KERNEL_NAMES = ("dropout", "spin_lock", "assume", "debug_barrier", "early_return")
"""The small kernels of ``tests/triton_kernels.py``, one per construct that once broke ``make-ttir``."""


@functools.cache
def compiled_ttir(name: str) -> str:
    """``asm["ttir"]`` of a kernel of ``tests/triton_kernels.py`` (compiled once)."""
    from tests.triton_kernels import ttir

    return ttir(name)


@functools.cache
def frontend_ir(name: str, locations: bool = True) -> str:
    """What Triton's frontend makes of a kernel of ``tests/triton_kernels.py``: ``make-ttir``'s input."""
    from tests.triton_kernels import KERNELS

    kernel = KERNELS[name]
    return triton_frontend_ir(kernel.fn, kernel.signature, kernel.constexprs, locations=locations)
