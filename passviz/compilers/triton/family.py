"""Triton: the ``tt`` and ``ttg`` dialects, the passes of ``make_ttir``, and the version (3.6 or
3.9) whose syntax and passes passviz reproduces, recorded in each trace."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.interpreter import InterpreterFunctions

from passviz.compilers.family import Family, NamedPipeline, Syntax, extended, lazy
from passviz.compilers.triton.version import (
    MAKE_TTIR,
    SYNTAX_KEY,
    recorded_syntax_version,
    syntax_problem,
    triton_version,
    use_recorded_syntax,
)

_D = "passviz.compilers.triton.dialects"
_P = "passviz.compilers.triton.passes"
_T = "passviz.compilers.triton"


def _interpreter() -> Sequence[InterpreterFunctions]:
    from passviz.compilers.triton.interpret import TritonFunctions

    return (TritonFunctions(),)


def _describe(origin: str) -> str:
    major, minor = triton_version()
    return origin.format(major=major, minor=minor)


FAMILY = Family(
    name="triton",
    dialects={
        # The tt ops' canonicalization patterns import the ops: the family attaches them.
        "tt": extended(
            lazy(f"{_D}.tt", "TT"),
            lazy(f"{_T}.canonicalization", "TritonCanonicalization"),
            lazy(f"{_T}.inliner", "TritonInliner"),
        ),
        "ttg": lazy(f"{_D}.ttg", "TTG"),
    },
    passes={
        "triton-rewrite-tensor-pointer": lazy(f"{_P}.rewrite_tensor_pointer", "RewriteTensorPointer"),
        "triton-combine": lazy(f"{_P}.combine", "TritonCombine"),
        "triton-reorder-broadcast": lazy(f"{_P}.reorder_broadcast", "TritonReorderBroadcast"),
        "triton-loop-unroll": lazy(f"{_P}.loop_unroll", "TritonLoopUnroll"),
        "triton-licm": lazy(f"{_P}.licm", "TritonLoopInvariantCodeMotion"),
    },
    pipelines={
        "make-ttir": NamedPipeline(
            "Triton {major}.{minor}'s make_ttir for CUDA", lambda: MAKE_TTIR[triton_version()]
        ),
    },
    interpreter=_interpreter,
    aliases={"#ttg.blocked<": "blocked"},
    syntax=Syntax(SYNTAX_KEY, recorded_syntax_version, use_recorded_syntax, syntax_problem),
    describe=_describe,
)
