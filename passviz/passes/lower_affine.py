"""``lower-affine``: xDSL's lowering of ``affine`` to ``scf``, ``arith`` and ``memref``, as MLIR's conversion.

xDSL's pass erases the ops it finds dead on the way (its pattern applier's
dead-code elimination); MLIR's ``lower-affine`` is a dialect conversion and
leaves them (an unused ``arith.constant 0 : index`` of Toy's lowering stays
for ``canonicalize`` to drop).  This is xDSL's pass with that turned off.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker, RewritePattern
from xdsl.transforms.lower_affine import (
    LowerAffineApply,
    LowerAffineFor,
    LowerAffineLoad,
    LowerAffineStore,
    LowerAffineYield,
)


@dataclass(frozen=True)
class LowerAffine(ModulePass):
    """Lower affine loops, loads, stores and applies to scf.for, memref and arith, erasing nothing else."""

    name = "lower-affine"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns: list[RewritePattern] = [
            LowerAffineStore(),
            LowerAffineLoad(),
            LowerAffineFor(),
            LowerAffineYield(),
            LowerAffineApply(),
        ]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns, dce_enabled=False)).rewrite_module(op)
