"""Running ``toy`` IR on numpy: what a Toy program prints, at any step of its trace.

``print`` writes as the tutorial's lowering to ``printf`` does (chapter 6):
``%f `` per element, a newline after each row and after each slice of a
higher dimension.  Shapes are checked as the program runs: a ranked result
type that disagrees with the value computed, or operands of different
shapes, stop the run with the op's name, so a wrong rewrite shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue

from passviz.compilers.toy import dialect as toy

Array = NDArray[np.float64]

MAX_CALL_DEPTH = 200
"""Deeper call chains (a recursive Toy program never ends) stop the run."""


class ToyRunError(ValueError):
    """The program cannot run: a shape mismatch, an unknown op or callee, endless recursion."""


def run_main(module: ModuleOp) -> str:
    """What ``main`` of ``module`` prints."""
    interpreter = _Interpreter(
        {op.sym_name.data: op for op in module.body.block.ops if isinstance(op, toy.FuncOp)}
    )
    interpreter.call("main", [])
    return "".join(interpreter.printed)


def run_lowered(module: ModuleOp) -> str:
    """What ``main`` prints, by passviz's interpreter: toy ops, and the affine, memref and arith
    ops of their lowering, at any step of ``toy-lower-to-affine`` and after."""
    from passviz.compilers.mlir.family import FAMILY as MLIR
    from passviz.compilers.toy.family import FAMILY as TOY
    from passviz.interpret.core import KernelInterpreter

    interpreter = KernelInterpreter(module)
    for functions in (*MLIR.interpreter(), *TOY.interpreter()):
        interpreter.register_implementations(functions)
    interpreter.call(interpreter.function("main", module), ())
    return "".join(format_print(np.asarray(value, dtype=np.float64)) for value in interpreter.printed)


def format_print(value: Array) -> str:
    """``toy.print`` of ``value`` as the lowered program's ``printf`` calls write it."""
    if value.ndim == 0:
        return f"{float(value):f} "
    if value.ndim == 1:
        return "".join(f"{float(element):f} " for element in value)
    return "".join(format_print(row) + "\n" for row in value)


@dataclass
class _Interpreter:
    functions: dict[str, toy.FuncOp]
    """The module's functions by name."""
    printed: list[str] = field(default_factory=list[str])
    """What the program printed, in order."""
    depth: int = 0
    """How many calls deep the run is."""

    def call(self, name: str, args: Sequence[Array]) -> Array | None:
        function = self.functions.get(name)
        if function is None:
            raise ToyRunError(f"no function named '{name}'")
        block = function.body.block
        if len(block.args) != len(args):
            raise ToyRunError(f"'{name}' takes {len(block.args)} arguments, {len(args)} given")
        if self.depth >= MAX_CALL_DEPTH:
            raise ToyRunError(f"calls nested over {MAX_CALL_DEPTH} deep (in '{name}')")
        self.depth += 1
        try:
            values: dict[SSAValue, Array] = dict(zip(block.args, args, strict=True))
            for op in block.ops:
                if isinstance(op, toy.ReturnOp):
                    return None if op.input is None else values[op.input]
                self.step(op, values)
        finally:
            self.depth -= 1
        raise ToyRunError(f"'{name}' ends without toy.return")

    def step(self, op: Operation, values: dict[SSAValue, Array]) -> None:
        def arg(index: int) -> Array:
            return values[op.operands[index]]

        result: Array | None
        match op:
            case toy.ConstantOp():
                shape = op.value.get_shape() or ()
                result = np.array(op.float_values(), dtype=np.float64).reshape(shape)
            case toy.AddOp() | toy.MulOp():
                lhs, rhs = arg(0), arg(1)
                if lhs.shape != rhs.shape:
                    raise ToyRunError(f"'{op.name}': operands of shapes {lhs.shape} and {rhs.shape}")
                result = lhs + rhs if isinstance(op, toy.AddOp) else lhs * rhs
            case toy.TransposeOp():
                result = np.transpose(arg(0))
            case toy.ReshapeOp():
                result = _reshape(op, arg(0))
            case toy.CastOp():
                result = arg(0)
            case toy.PrintOp():
                self.printed.append(format_print(arg(0)))
                return
            case toy.GenericCallOp():
                result = self.call(op.callee.string_value(), [arg(i) for i in range(len(op.operands))])
                if result is None:
                    raise ToyRunError(f"'{op.callee.string_value()}' returns no value")
            case _:
                raise ToyRunError(f"cannot run '{op.name}'")
        _check_type(op, result)
        values[op.results[0]] = result


def _reshape(op: toy.ReshapeOp, value: Array) -> Array:
    output_type = op.output.type
    assert isinstance(output_type, TensorType)
    shape = tuple(output_type.get_shape())
    if value.size == 1:  # a scalar fills the shape (``var a<2, 2> = 5.5``)
        return np.full(shape, value.reshape(()), dtype=np.float64)
    if value.size != int(np.prod(shape)):
        raise ToyRunError(f"'{op.name}': {value.size} elements cannot take the shape {shape}")
    return value.reshape(shape)


def _check_type(op: Operation, value: Array) -> None:
    """A ranked result type must be the value's shape."""
    result_type = op.results[0].type
    if isinstance(result_type, TensorType) and tuple(result_type.get_shape()) != value.shape:
        raise ToyRunError(f"'{op.name}': result type {result_type} but the value has shape {value.shape}")
