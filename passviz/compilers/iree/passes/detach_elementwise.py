"""``iree-global-opt-detach-elementwise-from-named-ops``: IREE 3.13's
``DetachElementwiseFromNamedOpsPass`` (``GlobalOptimization/DetachElementwiseFromNamedOps.cpp``).

A contraction or convolution that accumulates into the result of another
linalg op (a bias broadcast, say) or into a non-splat constant is split: it
accumulates into a zero-filled tensor instead, and a ``linalg.generic`` adds
the old accumulator afterwards.  The named op then starts from a fill, which
dispatch-region formation fuses, and the elementwise add can fuse with its
consumers.  Splat constants used as a linalg op's init become
``tensor.empty`` + ``linalg.fill``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import BroadcastOp, ReduceOp, YieldOp
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from passviz.compilers.iree.passes.pattern_pass import IreePatternPass
from passviz.compilers.iree.structured import is_convolution
from passviz.compilers.mlir.canonicalization.builders import dim_ops
from passviz.compilers.mlir.dialects.linalg import BatchMatmulOp, BatchMatvecOp, FillOp, GenericOp, MatmulOp
from passviz.ir.hints import isa
from passviz.rewrite.patterns import RootedPattern

_NAMED_CONTRACTIONS = (MatmulOp, BatchMatmulOp, BatchMatvecOp)
"""The named ops passviz knows that implement MLIR's contraction interface."""


def is_linalg_op(op: Operation | None) -> bool:
    """Whether ``op`` implements MLIR's ``LinalgOp`` interface."""
    return isinstance(op, LinalgStructuredOperation | BroadcastOp | ReduceOp)


def _through_casts(value: SSAValue) -> SSAValue:
    """``value`` before the element-type casts ``isContractionBody`` looks through."""
    while isinstance(value.owner, arith.ExtFOp | arith.ExtSIOp | arith.ExtUIOp | arith.SIToFPOp):
        value = value.owner.operands[0]
    return value


def _is_contraction_body(generic: GenericOp) -> bool:
    """MLIR's ``isContractionBody`` with add and mul: ``yield add(mul(a, b), out)`` in either order."""
    block = generic.body.block
    terminator = block.last_op
    if not isinstance(terminator, YieldOp) or len(terminator.operands) != 1:
        return False
    add = terminator.operands[0].owner
    if not isinstance(add, arith.AddfOp | arith.AddiOp):
        return False
    out = block.args[2]
    lhs, rhs = add.operands
    mul_value = rhs if lhs == out else lhs if rhs == out else None
    mul = mul_value.owner if mul_value is not None else None
    if not isinstance(mul, arith.MulfOp | arith.MuliOp):
        return False
    factors = {_through_casts(v) for v in mul.operands}
    return factors == {block.args[0], block.args[1]}


def is_contraction(op: Operation) -> bool:
    """MLIR's ``isaContractionOpInterface``: a named contraction, or a generic with two
    inputs, one output, a reduction, projected-permutation maps and a multiply-add body."""
    if isinstance(op, _NAMED_CONTRACTIONS):
        return True
    if not isinstance(op, GenericOp) or len(op.inputs) != 2 or len(op.outputs) != 1:
        return False
    if not any(it.data == IteratorType.REDUCTION for it in op.iterator_types.data):
        return False
    if not all(m.data.is_projected_permutation() for m in op.indexing_maps.data):
        return False
    return _is_contraction_body(op)


def _pure_tensors(op: LinalgStructuredOperation) -> bool:
    """``hasPureTensorSemantics``: every shaped operand is a tensor."""
    return all(isa(v.type, TensorType[Attribute]) for v in op.outputs)


def _scalar_type(type_: Attribute) -> IntegerType | AnyFloat | None:
    """``type_`` if it is an integer or float type (``isIntOrFloat``)."""
    if isa(type_, IntegerType):
        return type_
    return type_ if isinstance(type_, AnyFloat) else None


Scalar = IntegerAttr[IntegerType] | FloatAttr[AnyFloat]
"""An integer or float element value."""


def _zero(element: IntegerType | AnyFloat) -> Scalar:
    if isinstance(element, IntegerType):
        return IntegerAttr(0, element)
    return FloatAttr(0.0, element)


def _splat_element(attr: Attribute, element: IntegerType | AnyFloat) -> Scalar | None:
    """The element of a splat ``DenseElementsAttr``, typed ``element``; None if not a splat."""
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return None
    values = attr.get_values()
    if not values or any(v != values[0] for v in values[1:]):
        return None
    first = values[0]
    if isinstance(element, IntegerType):
        return IntegerAttr(int(first), element)
    return FloatAttr(float(first), element)


class DetachElementwisePattern(RootedPattern):
    """IREE's ``DetachElementwisePattern``: a contraction or convolution accumulating into a
    linalg op's result (not a fill) or a non-splat constant starts from zero; a generic adds
    the accumulator back after it."""

    def applies_to(self, op: Operation) -> bool:
        return is_linalg_op(op)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, LinalgStructuredOperation):
            return
        # every named convolution and pooling declares ConvolutionOpInterface, not xDSL's few classes
        if not is_contraction(op) and not is_convolution(op):
            return
        if not _pure_tensors(op) or len(op.outputs) != 1:
            return
        output = op.outputs[0]
        producer = output.owner
        non_splat_constant = False
        if isinstance(producer, arith.ConstantOp):
            value = producer.value
            element = (
                _scalar_type(value.get_element_type())
                if isinstance(value, DenseIntOrFPElementsAttr)
                else None
            )
            non_splat_constant = element is not None and _splat_element(value, element) is None
        linalg_producer = isinstance(producer, Operation) and is_linalg_op(producer)
        if not non_splat_constant and not (linalg_producer and not isinstance(producer, FillOp)):
            return
        output_type = output.type
        if not isa(output_type, TensorType[Attribute]):
            return
        element = _scalar_type(output_type.element_type)
        if element is None:
            return
        maps = op.get_indexing_maps().data
        if not maps[len(op.inputs)].data.is_projected_permutation():
            return
        rank = len(output_type.get_shape())
        created, dims = dim_ops(output)
        empty = tensor.EmptyOp(dims, output_type)
        zero = arith.ConstantOp(_zero(element))
        fill = FillOp([zero.result], [empty.tensor], [output_type])
        rewriter.insert([*created, empty, zero, fill], InsertPoint.before(op))
        op.operands[len(op.inputs)] = fill.res[0]
        rewriter.notify_op_modified(op)
        identity = AffineMapAttr(AffineMap.identity(rank))
        integer = isinstance(element, IntegerType)

        @Builder.implicit_region([element, element, element])
        def body(args: tuple[BlockArgument, ...]) -> None:
            add = arith.AddiOp(args[0], args[1]) if integer else arith.AddfOp(args[0], args[1])
            YieldOp(add)

        result = op.res[0]
        generic = GenericOp(
            [result, output],
            [fill.res[0]],
            body,
            [identity] * 3,
            [IteratorTypeAttr.parallel()] * rank,
            [output_type],
        )
        rewriter.insert(generic, InsertPoint.after(op))
        rewriter.replace_uses_with_if(result, generic.res[0], lambda use: use.operation is not generic)


class DetachSplatConstantOutsOperands(RootedPattern):
    """IREE's ``DetachSplatConstantOutsOperands<linalg::LinalgOp>``: a splat constant init
    becomes ``tensor.empty`` + ``linalg.fill`` of its element."""

    def applies_to(self, op: Operation) -> bool:
        return is_linalg_op(op)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        outputs = _dps_inits(op)
        first = len(op.operands) - len(outputs)
        for offset, init in enumerate(outputs):
            constant = init.owner
            if not isinstance(constant, arith.ConstantOp):
                continue
            type_ = constant.result.type
            if not isa(type_, TensorType[Attribute]):
                continue
            element = _scalar_type(type_.element_type)
            value = _splat_element(constant.value, element) if element is not None else None
            if value is None:
                continue
            empty = tensor.EmptyOp([], type_)
            scalar = arith.ConstantOp(value)
            fill = FillOp([scalar.result], [empty.tensor], [type_])
            rewriter.insert([empty, scalar, fill], InsertPoint.before(op))
            op.operands[first + offset] = fill.res[0]
            rewriter.notify_op_modified(op)


def _dps_inits(op: Operation) -> Sequence[SSAValue]:
    """The op's ``outs`` operands (its destination-passing inits)."""
    if isinstance(op, LinalgStructuredOperation):
        return op.outputs
    if isinstance(op, BroadcastOp | ReduceOp):
        return [op.init]
    return ()


@dataclass(frozen=True)
class DetachElementwiseFromNamedOps(
    IreePatternPass, patterns=lambda: [DetachElementwisePattern(), DetachSplatConstantOutsOperands()]
):
    """Detach the accumulator of contractions and convolutions into a trailing elementwise add."""

    name = "iree-global-opt-detach-elementwise-from-named-ops"


__all__ = ["DetachElementwiseFromNamedOps", "DetachElementwisePattern", "DetachSplatConstantOutsOperands"]
