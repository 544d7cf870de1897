"""The interpreter that knows every op passviz runs: the kernel interpreter with each family's
table of op implementations (``passviz.compilers.registry.interpreter_functions``)."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import InterpreterFunctions

from passviz.compilers.registry import interpreter_functions
from passviz.interpret.core import KernelInterpreter


def new_interpreter(module: ModuleOp, extra: tuple[InterpreterFunctions, ...] = ()) -> KernelInterpreter:
    """An interpreter for ``module`` that knows every op passviz implements."""
    interpreter = KernelInterpreter(module)
    for functions in (*interpreter_functions(), *extra):
        interpreter.register_implementations(functions)
    return interpreter
