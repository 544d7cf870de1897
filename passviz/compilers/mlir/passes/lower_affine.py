"""``lower-affine``: xDSL's lowering of ``affine`` to ``scf``, ``arith`` and ``memref``, as MLIR's conversion.

xDSL's pass erases the ops it finds dead on the way (its pattern applier's
dead-code elimination); MLIR's ``lower-affine`` is a dialect conversion and
leaves them (an unused ``arith.constant 0 : index`` of Toy's lowering stays
for ``canonicalize`` to drop).  This is xDSL's pass with that turned off, and
with loads and stores that read their maps' symbols (xDSL's read every operand
as a dimension, and ``canonicalize`` promotes a function argument to a symbol).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, memref
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.lower_affine import LowerAffineApply, LowerAffineFor, LowerAffineYield, affine_expr_ops


def _affine_indices(
    map_: AffineMapAttr | None, operands: Sequence[SSAValue]
) -> tuple[list[Operation], list[SSAValue]]:
    """The ops computing ``map_`` of ``operands`` (its dims, then its symbols), and the indices."""
    if map_ is None:
        return [], list(operands)
    dims, symbols = operands[: map_.data.num_dims], operands[map_.data.num_dims :]
    ops: list[Operation] = []
    indices: list[SSAValue] = []
    for expr in map_.data.results:
        new_ops, value = affine_expr_ops(expr, dims, symbols)
        ops += new_ops
        indices.append(value)
    return ops, indices


class LowerAffineLoad(RewritePattern):
    """``affine.load`` → ``memref.load`` at the indices its map computes."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, affine.LoadOp):
            return
        ops, indices = _affine_indices(op.map, op.indices)
        rewriter.replace(op, [*ops, load := memref.LoadOp.get(op.memref, indices)], [load.res])


class LowerAffineStore(RewritePattern):
    """``affine.store`` → ``memref.store`` at the indices its map computes."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, affine.StoreOp):
            return
        ops, indices = _affine_indices(op.map, op.indices)
        rewriter.replace(op, [*ops, memref.StoreOp.get(op.value, op.memref, indices)], [])


def affine_patterns() -> list[RewritePattern]:
    """The patterns that lower ``affine.for``, ``load``, ``store``, ``yield`` and ``apply``."""
    return [LowerAffineStore(), LowerAffineLoad(), LowerAffineFor(), LowerAffineYield(), LowerAffineApply()]


@dataclass(frozen=True)
class LowerAffine(ModulePass):
    """Lower affine loops, loads, stores and applies to scf.for, memref and arith, erasing nothing else."""

    name = "lower-affine"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier(affine_patterns(), dce_enabled=False)
        ).rewrite_module(op)
