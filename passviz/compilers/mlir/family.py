"""Upstream MLIR: the dialects and passes every family builds on (arith, scf, linalg, ...;
canonicalize, cse, inline, sccp, licm, affine)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.interpreter import InterpreterFunctions

from passviz.compilers.family import Family, extended, lazy

_D = "passviz.compilers.mlir.dialects"
_P = "passviz.compilers.mlir.passes"
_I = "passviz.compilers.mlir.inliner"


def _interpreter() -> Sequence[InterpreterFunctions]:
    from xdsl.interpreters.affine import AffineFunctions
    from xdsl.interpreters.cf import CfFunctions
    from xdsl.interpreters.scf import ScfFunctions

    from passviz.compilers.mlir.interpret import (
        ArithFunctions,
        ControlFunctions,
        LinalgNamedFunctions,
        MathFunctions,
    )

    # ControlFunctions after ScfFunctions: its scf.for (typed induction variables) replaces xDSL's.
    return (
        ScfFunctions(),
        CfFunctions(),
        ControlFunctions(),
        ArithFunctions(),
        MathFunctions(),
        AffineFunctions(),
        LinalgNamedFunctions(),
    )


FAMILY = Family(
    name="mlir",
    dialects={
        "scf": extended(lazy(f"{_D}.scf", "SCF"), lazy(_I, "ScfInliner")),
        "arith": extended(lazy(f"{_D}.arith", "Arith"), lazy(_I, "OpsInliner")),
        "gpu": extended(lazy(f"{_D}.gpu", "GPU"), lazy(_I, "OpsInliner")),
        "llvm": lazy(f"{_D}.llvm", "LLVM"),
        "linalg": lazy(f"{_D}.linalg", "Linalg"),
        "tensor": extended(lazy(f"{_D}.tensor", "Tensor"), lazy(_I, "OpsInliner")),
        "affine": lazy(f"{_D}.affine", "Affine"),
        # xDSL's, with the inliner interfaces MLIR gives them
        "func": extended(lazy("xdsl.dialects.func", "Func"), lazy(_I, "FuncInliner")),
        "cf": extended(lazy("xdsl.dialects.cf", "Cf"), lazy(_I, "OpsInliner")),
        "math": extended(lazy("xdsl.dialects.math", "Math"), lazy(_I, "OpsInliner")),
        "ub": extended(lazy("xdsl.dialects.ub", "UB"), lazy(_I, "OpsInliner")),
    },
    passes={
        "canonicalize": lazy(f"{_P}.canonicalize", "Canonicalize"),
        "cse": lazy(f"{_P}.cse", "CommonSubexpressionElimination"),
        "dce": lazy(f"{_P}.dce", "DeadCodeElimination"),
        "loop-invariant-code-motion": lazy(f"{_P}.licm", "LoopInvariantCodeMotion"),
        "symbol-dce": lazy(f"{_P}.symbol_dce", "SymbolDCE"),
        "sccp": lazy(f"{_P}.sccp", "SCCP"),
        "inline": lazy(f"{_P}.inline", "Inline"),
        "affine-loop-fusion": lazy(f"{_P}.affine_loop_fusion", "AffineLoopFusion"),
        "affine-scalrep": lazy(f"{_P}.affine_scalrep", "AffineScalarReplacement"),
        "lower-affine": lazy(f"{_P}.lower_affine", "LowerAffine"),
    },
    interpreter=_interpreter,
)
