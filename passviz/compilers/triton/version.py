"""Which Triton passviz's tt dialect and TTIR passes behave as: 3.6 or 3.9.

By default that is the installed Triton (``pip install triton``), so that
``make-ttir`` on a kernel's frontend IR gives what that Triton's
``make_ttir`` gives.  Without Triton, or for a version between the two,
passviz behaves as the newest modelled version not newer than it (3.6 when
none is installed).  ``use_triton_version`` picks another for a block of code.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from contextlib import nullcontext

from passviz.compilers.mlir.version import (
    MODELLED,
    Snapshot,
    installed_snapshot,
    llvm_snapshot,
    parse_snapshot,
    use_snapshot,
)

TritonVersion = Snapshot
"""A Triton version as (major, minor): passviz's tt dialect and passes behave as the release whose
LLVM snapshot passviz's MLIR behaves as (``passviz.compilers.mlir.version``)."""

triton_version = llvm_snapshot
"""The Triton version passviz behaves as here."""

use_triton_version = use_snapshot
"""Behave as Triton ``chosen`` (``"3.9"`` or ``(3, 9)``) inside the ``with`` block."""

parse_triton_version = parse_snapshot
"""``"3.9.0"`` or ``"3.9"`` as the modelled version passviz behaves as; ValueError if unreadable."""

installed_triton_version = installed_snapshot
"""The modelled version of the installed Triton; 3.6 without one."""

__all__ = [
    "installed_triton_version",
    "MODELLED",
    "TritonVersion",
    "parse_triton_version",
    "triton_version",
    "use_triton_version",
]

SYNTAX_KEY = "triton"
"""The key of the Triton version in a trace's ``meta.syntax``."""


def recorded_syntax() -> dict[str, str]:
    """What a trace records of the syntax its IR texts are written in (its ``meta.syntax``)."""
    major, minor = triton_version()
    return {SYNTAX_KEY: f"{major}.{minor}"}


def use_recorded_syntax(recorded: str | None) -> contextlib.AbstractContextManager[object]:
    """Read and print IR as a trace whose ``meta.syntax.triton`` is ``recorded`` was written; a
    trace that records none (written before passviz recorded it), or no version, reads as the
    installed Triton."""
    version = recorded_triton_version({SYNTAX_KEY: recorded} if recorded is not None else None)
    return nullcontext() if version is None else use_triton_version(version)


def recorded_syntax_version() -> str:
    """The Triton version the tt dialect reads and prints as here, as ``meta.syntax`` records it."""
    return recorded_syntax()[SYNTAX_KEY]


def syntax_problem(recorded: str) -> str | None:
    """Why a recorded ``meta.syntax.triton`` is unusable (it then reads as the installed Triton)."""
    try:
        parse_triton_version(recorded)
    except ValueError:
        installed = ".".join(map(str, triton_version()))
        return f"the trace's meta.syntax.triton {recorded!r} is no Triton version; " + (
            f"it is read as Triton {installed}"
        )
    return None


def recorded_triton_version(syntax: Mapping[str, str] | None) -> TritonVersion | None:
    """The Triton version a trace's ``meta.syntax`` records; None when it records none, or (the
    trace is untrusted) something that is no version: the installed Triton then reads it."""
    text = (syntax or {}).get(SYNTAX_KEY)
    if text is None:
        return None
    try:
        return parse_triton_version(text)
    except ValueError:
        return None


MAKE_TTIR: Mapping[TritonVersion, str] = {
    (3, 6): (
        "inline,triton-rewrite-tensor-pointer,canonicalize,triton-combine,"
        "triton-reorder-broadcast,cse,symbol-dce,triton-loop-unroll"
    ),
    (3, 9): "inline,canonicalize,triton-combine,triton-reorder-broadcast,cse,symbol-dce,triton-loop-unroll",
}
"""``make_ttir`` of each modelled Triton for CUDA targets of compute capability
9.0 and up (below that, Triton also rewrites tensor descriptors to pointers,
which passviz lacks).  Triton 3.9 has no block pointers, so no
``rewrite_tensor_pointer``."""
