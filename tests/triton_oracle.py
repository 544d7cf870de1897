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
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest

from passviz.compilers.triton.frontend import triton_frontend_ir
from passviz.ir.printer import print_module
from passviz.pipelines import record
from passviz.recording.recorder import RecordOptions

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


HERE = "\0"
"""Marks the diagnostic's location in the input line a ``CANNOT_READ`` context pattern sees."""

CANNOT_READ: dict[str, tuple[tuple[re.Pattern[str], str, re.Pattern[str] | None], ...]] = {
    "3.6": (
        (
            re.compile(r"dialect 'tt' provides no attribute parsing hook"),
            "#tt.cache_policy came with Triton 3.9",
            re.compile(f"{HERE}#tt\\.cache_policy|#tt\\.{HERE}cache_policy"),  # MLIR points at either
        ),
        (
            re.compile(r"^expected non-function type$"),
            "Triton 3.6 spells tensor descriptors !tt.tensordesc<tensor<...>>",
            re.compile(r"!tt\.tensordesc<" + HERE),
        ),
        (
            re.compile(r"^custom op 'ttg\.barrier' is unknown$"),
            "ttg.barrier came with Triton 3.9 (3.6's tl.debug_barrier is gpu.barrier)",
            None,
        ),
    ),
    "3.9": (
        (
            re.compile(r"op '(tt\.make_tensor_ptr|tt\.advance)'"),
            "block pointers (tt.make_tensor_ptr, tt.advance) are gone in Triton 3.9",
            None,
        ),
        (
            re.compile(r"pointer types must point to integer or floating-point types"),
            "block pointers (!tt.ptr<tensor<...>>) are gone in Triton 3.9",
            None,
        ),
        (
            re.compile(r"^expected string$"),
            'Triton 3.9 names pointer address spaces (!tt.ptr<f32, "constant">); 3.6 numbered them',
            re.compile(r"!tt\.ptr<[^<>]*,\s*" + HERE + r"\s*\d"),
        ),
        (
            re.compile(r"tensor descriptors must not wrap tensor types"),
            "Triton 3.9 spells tensor descriptors !tt.tensordesc<64x64xf32>, not <tensor<...>>",
            None,
        ),
        (
            re.compile(r"^expected ':'$"),
            "Triton 3.9 gives cache hints as {cachePolicy = #tt.cache_policy<...>}, not cacheModifier = ...",
            re.compile(HERE + r"\s*(cacheModifier|evictionPolicy) ="),
        ),
    ),
}
"""Per Triton release (major.minor), its parser's diagnostics that mean the input
is written for another release (an op or a spelling removed or not there yet),
with why: such an input cannot be compared there.  A context pattern, when
given, must match the input's line with ``HERE`` at the diagnostic's location
(for a wrong token, MLIR points at the end of the token before it, so the
patterns allow blanks after ``HERE``)."""

_LOCATION = re.compile(r'loc\("[^"]*":(\d+):(\d+)\): (?:error: )?')
"""The location (line, column) MLIR puts before a parser diagnostic, and its severity."""


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


def dump_environment(folder: Path) -> dict[str, str]:
    """This process's environment for a child compile that writes Triton's ``MLIR_ENABLE_DUMP``
    to ``folder/dump.txt`` and compiles afresh (its own cache in ``folder``: a cache hit would
    compile, and dump, nothing)."""
    return {
        **os.environ,
        "MLIR_ENABLE_DUMP": "1",
        "MLIR_DUMP_PATH": str(folder / "dump.txt"),
        "TRITON_ALWAYS_COMPILE": "1",
        "TRITON_CACHE_DIR": str(folder / "cache"),
    }


def installed_triton() -> str:
    """The installed Triton's version (call where ``triton_missing()`` is None)."""
    import triton

    return str(triton.__version__)


def skip_if_unreadable(text: str, diagnostic: str) -> None:
    """Skip the test when Triton's ``diagnostic`` on ``text`` says the input is
    written for another Triton release (``CANNOT_READ``)."""
    release = ".".join(installed_triton().split(".")[:2])
    located = _LOCATION.search(diagnostic)
    message = diagnostic[located.end() :].strip().splitlines()[0] if located else diagnostic.strip()
    context = ""
    if located:
        line, column = int(located[1]), int(located[2])
        lines = text.splitlines()
        if 0 < line <= len(lines):
            context = lines[line - 1][: column - 1] + HERE + lines[line - 1][column - 1 :]
    for pattern, why, at in CANNOT_READ.get(release, ()):
        if pattern.search(message) and (at is None or at.search(context)):
            pytest.skip(f"Triton {installed_triton()} cannot read this input: {why} ({message})")


def _parse(text: str) -> tuple[Any, Any]:
    from triton._C.libtriton import ir  # pyright: ignore[reportMissingImports]

    context = ir.context()
    ir.load_dialects(context)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as handle:
        handle.write(text)
    path = Path(handle.name)
    # MLIR writes the parser's diagnostic to file descriptor 2, not into the exception.
    with tempfile.TemporaryFile("w+") as errors:
        saved = os.dup(2)
        os.dup2(errors.fileno(), 2)
        try:
            module = ir.parse_mlir_module(str(path), context)
            failure = None
        except Exception as exc:
            failure = exc
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            path.unlink()
        errors.seek(0)
        diagnostic = errors.read()
    if failure is not None:
        skip_if_unreadable(text, diagnostic)
        raise TritonError(f"Triton cannot parse:\n{text}\n({failure}\n{diagnostic.strip()})") from failure
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
    """(passviz's output, Triton's output) of ``pipeline`` on ``text``, both printed by Triton.

    Triton goes first: an input it cannot read is skipped there with the reason."""
    triton = triton_run(text, pipeline)
    return passviz_run(text, pipeline), triton


# --------------------------------------------------------------------------- #
# The tutorial kernels of tests/triton_kernels.py (imported lazily: it needs triton)
# --------------------------------------------------------------------------- #

KERNEL_NAMES = ("vector_add", "fused_softmax", "matmul", "layer_norm")
"""The tutorial kernels of ``tests/triton_kernels.py``."""

CONSTRUCT_KERNEL_NAMES = ("dropout", "spin_lock", "assume", "debug_barrier", "early_return", "const_pointer")
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
