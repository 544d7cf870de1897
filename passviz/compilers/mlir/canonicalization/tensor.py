"""MLIR's ``tensor`` canonicalization patterns passviz has (``mlir/lib/Dialect/Tensor/IR/TensorOps.cpp``
and ``mlir/include/mlir/Dialect/Utils/ReshapeOpsUtils.h``).

``tensor.collapse_shape`` and ``tensor.expand_shape``: their folder (``foldReshapeOp``), then
``linalg.fill``'s ``FoldFillWithTensorReshape``, then ``ComposeReassociativeReshapeOps``;
``tensor.pad``: ``FoldConsecutiveConstantPadding``.  A folder is a pattern tried first here, as
MLIR's greedy driver folds an op before it tries patterns.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, IntegerAttr, TensorType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from passviz.compilers.mlir.canonicalization.linalg import RESHAPE_PATTERNS
from passviz.compilers.mlir.dialects.tensor import CollapseShapeOp, ExpandShapeOp
from passviz.ir.hints import isa
from passviz.rewrite.patterns import RootedPattern

Reassociation = list[list[int]]
"""A reshape's groups of dimensions, ``[[0, 1], [2]]``."""


def _dynamic_count(type_: Attribute) -> int:
    if not isa(type_, TensorType[Attribute]):
        return 0
    return sum(1 for d in type_.get_shape() if d == DYNAMIC_INDEX)


def reassociation(op: tensor.CollapseShapeOp | tensor.ExpandShapeOp) -> Reassociation:
    """The op's groups as plain integers."""
    return [[d.value.data for d in group.data] for group in op.reassociation.data]


def reassociation_attr(groups: Reassociation) -> ArrayAttr[ArrayAttr[IntegerAttr]]:
    return ArrayAttr(ArrayAttr(IntegerAttr(d, i64) for d in group) for group in groups)


def compose_reassociation(producer: Reassociation, consumer: Reassociation) -> Reassociation | None:
    """MLIR's ``composeReassociationIndices``: the groups of two collapses (or two expansions)
    as one; None where their counts agree (no reshape) or the groups do not chain."""
    if len(producer) == len(consumer):
        return None
    if len(producer) < len(consumer):
        producer, consumer = consumer, producer
    if not consumer:
        return []
    if len(producer) != sum(len(group) for group in consumer):
        return None
    return [[d for index in group for d in producer[index]] for group in consumer]


class FoldInverseReshape(RootedPattern):
    """MLIR's reshape folder (``foldReshapeOp``): an expansion of a collapse, or a collapse of an
    expansion, whose result has the first reshape's source type is that source (at most one
    dynamic dimension)."""

    def applies_to(self, op: Operation) -> bool:
        return isinstance(op, tensor.ExpandShapeOp | tensor.CollapseShapeOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        inverse = {tensor.ExpandShapeOp: tensor.CollapseShapeOp, tensor.CollapseShapeOp: tensor.ExpandShapeOp}
        kind = next((k for k in inverse if isinstance(op, k)), None)
        if kind is None:
            return
        producer = op.operands[0].owner
        if not isinstance(producer, inverse[kind]):
            return
        source = producer.operands[0]
        if source.type != op.results[0].type or _dynamic_count(source.type) >= 2:
            return
        rewriter.replace(op, [], [source])


class ComposeReassociativeReshapeOps(RewritePattern):
    """MLIR's ``ComposeReassociativeReshapeOps``: a collapse of a collapse is one collapse of the
    first's source, and an expansion of an expansion one expansion (to the second's output shape),
    their groups composed."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tensor.CollapseShapeOp | tensor.ExpandShapeOp):
            return
        producer = op.src.owner
        if type(producer) is not type(op):
            return
        assert isinstance(producer, tensor.CollapseShapeOp | tensor.ExpandShapeOp)
        groups = compose_reassociation(reassociation(producer), reassociation(op))
        if groups is None:
            return
        result = op.result.type
        assert isa(result, TensorType[Attribute])
        if isinstance(op, tensor.ExpandShapeOp):
            new = ExpandShapeOp(
                producer.src,
                list(op.dynamic_output_shape),
                reassociation_attr(groups),
                op.static_output_shape,
                result,
            )
            rewriter.replace(op, new)
            return
        new = CollapseShapeOp.build(
            operands=[producer.src],
            result_types=[result],
            properties={"reassociation": reassociation_attr(groups)},
        )
        rewriter.replace(op, new)


def _padding_value(pad: tensor.PadOp) -> SSAValue | None:
    """``PadOp::getConstantPaddingValue``: the value a pad yields, if it is defined outside
    its body (one value for every padded element)."""
    yield_ = pad.region.block.last_op
    if yield_ is None or len(yield_.operands) != 1:
        return None
    value = yield_.operands[0]
    holder = value.owner if isinstance(value.owner, Operation) else value.owner.parent_op()
    while holder is not None:
        if holder is pad:
            return None
        holder = holder.parent_op()
    return value


def _sums(first: Sequence[int], second: Sequence[int]) -> list[int]:
    return [a + b for a, b in zip(first, second, strict=True)]


class FoldConsecutiveConstantPadding(RewritePattern):
    """MLIR's ``FoldConsecutiveConstantPadding``: a pad of a pad by the same value is one pad by
    the summed amounts (static amounts only here; MLIR adds dynamic ones with ``affine.apply``)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tensor.PadOp) or not isinstance(op.source.owner, tensor.PadOp):
            return
        inner = op.source.owner
        value = _padding_value(op)
        if value is None or value != _padding_value(inner) or op.nofold or inner.nofold:
            return
        if op.low or op.high or inner.low or inner.high:
            return
        low = _sums(inner.static_low.get_values(), op.static_low.get_values())
        high = _sums(inner.static_high.get_values(), op.static_high.get_values())
        result = op.result.type
        assert isa(result, TensorType[Attribute])
        region = op.region.clone()
        rewriter.replace(op, tensor.PadOp(inner.source, [], [], region, low, high, result))


_RESHAPE: tuple[RewritePattern, ...] = (
    FoldInverseReshape(),
    *RESHAPE_PATTERNS,
    ComposeReassociativeReshapeOps(),
)

PATTERNS: dict[str, tuple[RewritePattern, ...]] = {
    CollapseShapeOp.name: _RESHAPE,
    ExpandShapeOp.name: _RESHAPE,
    tensor.PadOp.name: (FoldConsecutiveConstantPadding(),),
}
"""Each tensor op's patterns, in the order MLIR tries them (its folder first, then the patterns
linalg's ops register on it, as MLIR gathers them by op name)."""
