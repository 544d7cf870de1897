"""``toy-lower-to-affine``: the Toy tutorial's partial lowering to affine loops (chapter 5), one step per op.

As the tutorial's ``LowerToAffineLoops``, after inlining and shape inference:
``toy.func @main`` becomes ``func.func`` (``FuncOpLowering``), each
``toy.constant`` a ``memref.alloc`` filled by one ``affine.store`` per element
(``ConstantOpLowering``), ``toy.add``, ``toy.mul`` and ``toy.transpose`` a
nest of ``affine.for`` loops storing into a new buffer (``AddOpLowering``,
``MulOpLowering``, ``TransposeOpLowering``), ``toy.return`` ``func.return``
(``ReturnOpLowering``); ``toy.print`` stays, on the buffer
(``PrintOpLowering``).  Every buffer is allocated at the start of the function
and freed before its terminator.

The ops are converted in the order MLIR's partial conversion visits them (the
function, then its body in order).  Between two steps, a value already lowered
to a buffer reaches the toy ops not lowered yet through an
``unrealized_conversion_cast`` (as MLIR's conversion materializes it); the
step that lowers its last user erases it.  A toy op with no lowering left in
the function fails the pass with MLIR's message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import affine as xaffine
from xdsl.dialects import arith, func, memref
from xdsl.dialects.affine import YieldOp
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    TensorType,
    UnrealizedConversionCastOp,
    f64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import BlockInsertPoint, InsertPoint

from passviz.compilers.mlir.dialects import affine
from passviz.compilers.toy import dialect as toy
from passviz.ir.locations import located
from passviz.recording.interface import StepRecorder, TracedPass


class LoweringError(ValueError):
    """An op the lowering cannot convert (a function other than ``main``, a reshape, a call)."""


def memref_type(type_: object) -> MemRefType:
    """The tutorial's ``convertTensorToMemRef``: the buffer type of a ranked f64 tensor."""
    assert isinstance(type_, TensorType)
    return MemRefType(f64, type_.get_shape())


def buffer_of(value: SSAValue) -> SSAValue:
    """The buffer a lowered tensor value stands for (the conversion's remapped operand)."""
    owner = value.owner
    if isinstance(owner, UnrealizedConversionCastOp) and isinstance(owner.inputs[0].type, MemRefType):
        return owner.inputs[0]
    return value


def _drop_dead_casts(rewriter: PatternRewriter, values: Sequence[SSAValue]) -> None:
    """Erase the casts among ``values``'s owners that nothing uses any more."""
    for value in dict.fromkeys(values):
        owner = value.owner
        if isinstance(owner, UnrealizedConversionCastOp) and not owner.results[0].uses:
            rewriter.erase(owner)


def _alloc_and_dealloc(rewriter: PatternRewriter, op: Operation, type_: MemRefType) -> SSAValue:
    """The tutorial's ``insertAllocAndDealloc``: allocate at the block's start, free before its end."""
    block = op.parent_block()
    assert block is not None and block.first_op is not None and block.last_op is not None
    alloc = memref.AllocOp.get(f64, shape=type_.get_shape())
    rewriter.insert(alloc, InsertPoint.at_start(block))
    rewriter.insert(memref.DeallocOp.get(alloc), InsertPoint.before(block.last_op))
    return alloc.memref


def _replace_with_buffer(rewriter: PatternRewriter, op: Operation, buffer: SSAValue) -> None:
    """Replace ``op``'s tensor with ``buffer``; toy ops not lowered yet see it through a cast."""
    result = op.results[0]
    operands = list(op.operands)
    if result.uses:
        cast = UnrealizedConversionCastOp.get([buffer], [result.type])
        rewriter.replace(op, cast)
    else:
        rewriter.erase(op)
    _drop_dead_casts(rewriter, operands)


IterationFn = Callable[[PatternRewriter, Sequence[SSAValue], Sequence[SSAValue]], SSAValue]
"""The tutorial's ``LoopIterationFn``: given the buffers and the loop indices, the value to store."""


def _lower_to_loops(rewriter: PatternRewriter, op: Operation, body: IterationFn) -> None:
    """The tutorial's ``lowerOpToLoops``: a loop per dimension, storing ``body``'s value at each index."""
    type_ = memref_type(op.results[0].type)
    buffer = _alloc_and_dealloc(rewriter, op, type_)
    buffers = [buffer_of(operand) for operand in op.operands]
    indices: list[SSAValue] = []
    point = InsertPoint.before(op)
    for size in type_.get_shape():
        block = Block([YieldOp.get()], arg_types=[IndexType()])
        loop = xaffine.ForOp.from_region([], [], [], [], 0, size, Region(block))
        rewriter.insert(loop, point)
        indices.append(block.args[0])
        point = InsertPoint.before(block.first_op)  # pyright: ignore[reportArgumentType]
    rewriter.insertion_point = point
    value = body(rewriter, buffers, indices)
    rewriter.insert(affine.StoreOp(value, buffer, indices), point)
    _replace_with_buffer(rewriter, op, buffer)


def _binary(lowered: type[arith.AddfOp] | type[arith.MulfOp]) -> IterationFn:
    def body(rewriter: PatternRewriter, buffers: Sequence[SSAValue], indices: Sequence[SSAValue]) -> SSAValue:
        lhs = rewriter.insert(affine.LoadOp(buffers[0], indices))
        rhs = rewriter.insert(affine.LoadOp(buffers[1], indices))
        return rewriter.insert(lowered(lhs, rhs)).result

    return body


def _transpose(
    rewriter: PatternRewriter, buffers: Sequence[SSAValue], indices: Sequence[SSAValue]
) -> SSAValue:
    return rewriter.insert(affine.LoadOp(buffers[0], list(reversed(indices)))).result


def lower_constant(rewriter: PatternRewriter, op: toy.ConstantOp) -> None:
    """``ConstantOpLowering``: a buffer, index constants up to the largest dimension, a store per element."""
    type_ = memref_type(op.results[0].type)
    buffer = _alloc_and_dealloc(rewriter, op, type_)
    shape = type_.get_shape()
    rewriter.insertion_point = InsertPoint.before(op)
    count = max(shape) if shape else 1
    constant_indices = [
        rewriter.insert(arith.ConstantOp(IntegerAttr(i, IndexType()))).result for i in range(count)
    ]
    values = iter(op.float_values())

    def store_elements(indices: list[SSAValue]) -> None:
        if len(indices) == len(shape):
            element = rewriter.insert(arith.ConstantOp(FloatAttr(next(values), f64))).result
            rewriter.insert(affine.StoreOp(element, buffer, indices))
            return
        for i in range(shape[len(indices)]):
            store_elements([*indices, constant_indices[i]])

    store_elements([])
    _replace_with_buffer(rewriter, op, buffer)


def lower_function(rewriter: PatternRewriter, op: toy.FuncOp) -> None:
    """``FuncOpLowering``: ``main`` as a ``func.func`` with the same body."""
    function = func.FuncOp(op.sym_name.data, op.function_type, Region())
    rewriter.insert(function, InsertPoint.before(op))
    rewriter.inline_region(op.body, BlockInsertPoint.at_start(function.body))
    rewriter.erase(op)


def lower_print(rewriter: PatternRewriter, op: toy.PrintOp) -> None:
    """``PrintOpLowering``: ``toy.print`` stays, printing the buffer."""
    old = op.input
    rewriter.replace_uses_with_if(old, buffer_of(old), lambda use: use.operation is op)
    _drop_dead_casts(rewriter, [old])


def lower_return(rewriter: PatternRewriter, op: toy.ReturnOp) -> None:
    """``ReturnOpLowering``: ``toy.return`` becomes ``func.return``."""
    rewriter.replace(op, func.ReturnOp())


@dataclass(frozen=True)
class ToyLowerToAffine(TracedPass):
    """Lower toy's computations to affine loops on memrefs, keeping ``toy.print``, op by op."""

    name: ClassVar[str] = "toy-lower-to-affine"  # pyright: ignore[reportIncompatibleVariableOverride]

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        for function in [child for child in op.body.block.ops if isinstance(child, toy.FuncOp)]:
            _lower_function(function, recorder)


def _step_name(op: Operation) -> str | None:
    """The tutorial's pattern for ``op``, or None where it has none."""
    match op:
        case toy.ConstantOp():
            return "ConstantOpLowering"
        case toy.AddOp():
            return "AddOpLowering"
        case toy.MulOp():
            return "MulOpLowering"
        case toy.TransposeOp():
            return "TransposeOpLowering"
        case toy.PrintOp():
            return "PrintOpLowering" if isinstance(op.input.type, TensorType) else None
        case toy.ReturnOp():
            return "ReturnOpLowering" if op.input is None else None
        case _:
            return None


def _illegal(op: Operation) -> LoweringError:
    return LoweringError(
        located(op, f"failed to legalize operation '{op.name}' that was explicitly marked illegal")
    )


def _lower_function(function: toy.FuncOp, recorder: StepRecorder) -> None:
    if function.sym_name.data != "main":
        raise _illegal(function)
    if function.function_type.inputs.data or function.function_type.outputs.data:
        raise LoweringError(located(function, "expected 'main' to have 0 inputs and 0 results"))
    # MLIR's conversion collects the ops first, the function before its body
    body = list(function.body.block.ops)
    with recorder.step("FuncOpLowering", root=function):
        lower_function(recorder.rewriter(InsertPoint.before(function)), function)
    for op in body:
        name = _step_name(op)
        if name is None:
            if op.dialect_name() == "toy" and not isinstance(op, toy.PrintOp):
                raise _illegal(op)
            continue
        with recorder.step(name, root=op):
            rewriter = recorder.rewriter(InsertPoint.before(op))
            match op:
                case toy.ConstantOp():
                    lower_constant(rewriter, op)
                case toy.AddOp():
                    _lower_to_loops(rewriter, op, _binary(arith.AddfOp))
                case toy.MulOp():
                    _lower_to_loops(rewriter, op, _binary(arith.MulfOp))
                case toy.TransposeOp():
                    _lower_to_loops(rewriter, op, _transpose)
                case toy.PrintOp():
                    lower_print(rewriter, op)
                case toy.ReturnOp():
                    lower_return(rewriter, op)
                case _:
                    raise _illegal(op)
