"""MLIR's ``linalg`` canonicalization patterns passviz has (``mlir/lib/Dialect/Linalg/IR/LinalgOps.cpp``).

``linalg.transpose``: its folder, ``FoldTransposeWithTranspose`` and ``SwapTransposeWithBroadcast``;
``linalg.broadcast``: ``FoldBroadcasts``; ``linalg.generic``: ``EraseIdentityLinalgOp``; and
``FoldFillWithTensorReshape``, which ``linalg.fill`` registers on ``tensor.collapse_shape`` and
``tensor.expand_shape`` (``canonicalization.tensor`` lists it with the reshapes' own).  A folder
is a pattern tried first here, as MLIR's greedy driver folds an op before it tries patterns.
Each pattern builds what MLIR's does, in its order, so that names print as ``iree-opt`` prints them.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, TensorType, i64
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from passviz.compilers.mlir.canonicalization.builders import dim_ops
from passviz.compilers.mlir.dialects.linalg import BroadcastOp, FillOp, GenericOp, TransposeOp
from passviz.ir.hints import isa


def _dims(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def drop_dims(permutation: Sequence[int], dropped: Sequence[int]) -> list[int]:
    """MLIR's ``dropDims`` (``IndexingUtils``): ``permutation`` without the entries in
    ``dropped``, each entry left lowered by the dropped ones below it."""
    return [p - sum(1 for d in dropped if d < p) for p in permutation if p not in dropped]


def invert_permutation(permutation: Sequence[int]) -> list[int]:
    """MLIR's ``invertPermutationVector``."""
    inverse = [0] * len(permutation)
    for position, value in enumerate(permutation):
        inverse[value] = position
    return inverse


class FoldTranspose(RewritePattern):
    """``TransposeOp::fold``: a transpose of a tensor by the identity (or of rank 0) is its input."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, TransposeOp) or not isa(op.inputs[0].type, TensorType[Attribute]):
            return
        permutation = list(op.permutation.get_values())
        if permutation != list(range(len(permutation))) or len(op.res) != 1:
            return
        rewriter.replace(op, [], [op.inputs[0]])


class FoldTransposeWithTranspose(RewritePattern):
    """MLIR's ``FoldTransposeWithTranspose``: a transpose of a transpose is one transpose of the
    first's input into the second's init, by the composed permutation (which the folder then
    erases where it is the identity)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, TransposeOp) or not isinstance(op.inputs[0].owner, TransposeOp):
            return
        inner = op.inputs[0].owner
        if not op.res:
            # On buffers the new op would have no result to replace this one's with.
            return
        defined = inner.permutation.get_values()
        folded = [defined[p] for p in op.permutation.get_values()]
        rewriter.replace(op, TransposeOp(inner.inputs[0], op.outputs[0], _dims(folded), op.res[0].type))


class SwapTransposeWithBroadcast(RewritePattern):
    """MLIR's ``SwapTransposeWithBroadcast``: ``transpose(broadcast(x))`` becomes
    ``broadcast(transpose(x))`` where the broadcast has no other use, so that the transpose moves
    fewer elements.  It builds, before the transpose, a ``tensor.dim`` (after its index constant)
    per dynamic dimension of ``x``, a ``tensor.empty`` for the transposed ``x``, the transpose,
    then the broadcast into the old transpose's init."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, TransposeOp) or not op.res:
            return
        source = op.inputs[0]
        broadcast = source.owner
        if not isinstance(broadcast, BroadcastOp) or not source.has_one_use():
            return
        input_type = broadcast.input.type
        if not isa(input_type, TensorType[Attribute]):
            return
        dimensions = broadcast.dimensions.get_values()
        permutation = op.permutation.get_values()
        result_permutation = drop_dims(permutation, dimensions)
        inverse = invert_permutation(permutation)
        result_dimensions = [inverse[d] for d in dimensions]

        created, sizes = dim_ops(broadcast.input)
        dynamic = iter(sizes)
        shape = input_type.get_shape()
        mixed: list[SSAValue | int] = [next(dynamic) if s == DYNAMIC_INDEX else s for s in shape]
        transposed_shape = [mixed[p] for p in result_permutation]
        empty = tensor.EmptyOp(
            [s for s in transposed_shape if isinstance(s, SSAValue)],
            TensorType(
                input_type.get_element_type(),
                [DYNAMIC_INDEX if isinstance(s, SSAValue) else s for s in transposed_shape],
            ),
        )
        transpose = TransposeOp(broadcast.input, empty.tensor, _dims(result_permutation), empty.tensor.type)
        rewriter.insert([*created, empty, transpose], InsertPoint.before(op))
        new = BroadcastOp(transpose.res[0], op.outputs[0], _dims(result_dimensions), op.res[0].type)
        rewriter.replace(op, new)


class FoldBroadcasts(RewritePattern):
    """MLIR's ``FoldBroadcasts``: a broadcast of a broadcast is one broadcast of the first's input
    into the second's init, adding both ops' dimensions (the first's as the second's result
    numbers them), sorted."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, BroadcastOp) or not isinstance(op.input.owner, BroadcastOp):
            return
        inner = op.input.owner
        init_type = op.init.type
        if not isa(init_type, TensorType[Attribute]) or not op.result:
            return
        dimensions = list(op.dimensions.get_values())
        kept = [d for d in range(len(init_type.get_shape())) if d not in dimensions]
        folded = sorted([*dimensions, *(kept[d] for d in inner.dimensions.get_values())])
        rewriter.replace(op, BroadcastOp(inner.input, op.init, _dims(folded), op.result[0].type))


class EraseIdentityGeneric(RewritePattern):
    """MLIR's ``EraseIdentityLinalgOp<GenericOp>``: a generic on tensors whose indexing maps are
    all equal and whose body only yields its block arguments is replaced by the operands those
    arguments stand for.  Where an operand's type differs from the result's, MLIR casts it
    (``tensor.cast``); passviz leaves such a generic alone."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, GenericOp) or not all(isa(v.type, TensorType[Attribute]) for v in op.operands):
            return
        maps = op.indexing_maps.data
        if any(m != maps[0] for m in maps):
            return
        body = op.body.block
        yield_ = body.last_op
        if yield_ is None or yield_ is not body.first_op:
            return
        replacements: list[SSAValue] = []
        for value, result in zip(yield_.operands, op.results, strict=True):
            if not isinstance(value, BlockArgument) or value.owner is not body:
                return
            operand = op.operands[value.index]
            if operand.type != result.type:
                return
            replacements.append(operand)
        rewriter.replace(op, [], replacements)


class FoldFillWithTensorReshape(RewritePattern):
    """MLIR's ``FoldFillWithTensorReshape`` (``linalg.fill``'s, rooted at a reshape): a reshape
    of a fill becomes a fill of the reshaped init, so the fill lands on the shape its user reads."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tensor.CollapseShapeOp | tensor.ExpandShapeOp):
            return
        fill = op.operands[0].owner
        if not isinstance(fill, FillOp) or not fill.outputs or not fill.res:
            return
        reshape = op.clone()
        reshape.operands = [fill.outputs[0], *op.operands[1:]]
        rewriter.insert(reshape, InsertPoint.before(op))
        rewriter.replace(op, FillOp([fill.inputs[0]], [reshape.results[0]], [op.results[0].type]))


PATTERNS: dict[str, tuple[RewritePattern, ...]] = {
    TransposeOp.name: (FoldTranspose(), FoldTransposeWithTranspose(), SwapTransposeWithBroadcast()),
    BroadcastOp.name: (FoldBroadcasts(),),
    GenericOp.name: (EraseIdentityGeneric(),),
}
"""Each linalg op's patterns, in the order MLIR tries them (its folder first)."""

RESHAPE_PATTERNS: tuple[RewritePattern, ...] = (FoldFillWithTensorReshape(),)
"""What ``linalg.fill`` registers on ``tensor.collapse_shape`` and ``tensor.expand_shape``:
MLIR gathers op patterns by op name, so these come before the reshapes' own."""
