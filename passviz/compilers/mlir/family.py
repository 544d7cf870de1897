"""Upstream MLIR: the dialects and passes every family builds on (arith, scf, linalg, ...;
canonicalize, cse, inline, sccp, licm, affine)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.interpreter import InterpreterFunctions

from passviz.compilers.family import Family, lazy

_D = "passviz.compilers.mlir.dialects"
_P = "passviz.compilers.mlir.passes"


def _interpreter() -> Sequence[InterpreterFunctions]:
    from xdsl.interpreters.affine import AffineFunctions
    from xdsl.interpreters.cf import CfFunctions
    from xdsl.interpreters.scf import ScfFunctions

    from passviz.compilers.mlir.interpret import ArithFunctions, MathFunctions

    return (ScfFunctions(), CfFunctions(), ArithFunctions(), MathFunctions(), AffineFunctions())


FAMILY = Family(
    name="mlir",
    dialects={
        "scf": lazy(f"{_D}.scf", "SCF"),
        "arith": lazy(f"{_D}.arith", "Arith"),
        "gpu": lazy(f"{_D}.gpu", "GPU"),
        "llvm": lazy(f"{_D}.llvm", "LLVM"),
        "linalg": lazy(f"{_D}.linalg", "Linalg"),
        "tensor": lazy(f"{_D}.tensor", "Tensor"),
        "affine": lazy(f"{_D}.affine", "Affine"),
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
