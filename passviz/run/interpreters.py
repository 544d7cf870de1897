"""The interpreter that knows every op passviz runs: ``core``'s kernel interpreter with each
family's table of op implementations.

Kept apart from ``core`` so that the tables, which build on ``core``'s helpers, are imported by
this module alone: ``core`` knows no family.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import InterpreterFunctions
from xdsl.interpreters.affine import AffineFunctions
from xdsl.interpreters.cf import CfFunctions
from xdsl.interpreters.scf import ScfFunctions

from passviz.compilers.iree.interpret import LinalgFunctions
from passviz.compilers.mlir.interpret import ArithFunctions, MathFunctions
from passviz.compilers.toy.interpret_ops import BufferFunctions, ToyFunctions
from passviz.compilers.triton.interpret import TritonFunctions
from passviz.compilers.triton_shared.interpret import StructuredFunctions
from passviz.interpret.core import CoreFunctions, KernelInterpreter


def new_interpreter(module: ModuleOp, extra: tuple[InterpreterFunctions, ...] = ()) -> KernelInterpreter:
    """An interpreter for ``module`` that knows every op passviz implements."""
    interpreter = KernelInterpreter(module)
    for functions in (
        ScfFunctions(),
        CfFunctions(),
        CoreFunctions(),
        ArithFunctions(),
        MathFunctions(),
        TritonFunctions(),
        StructuredFunctions(),
        AffineFunctions(),
        ToyFunctions(),
        BufferFunctions(),
        LinalgFunctions(),
        *extra,
    ):
        interpreter.register_implementations(functions)
    return interpreter
