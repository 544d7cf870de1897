"""The Toy tutorial's canonicalization patterns (chapter 3), for ``canonicalize``.

``SimplifyRedundantTranspose`` is the tutorial's C++ pattern; the other three
are its DRR patterns (``ToyCombine.td``), named as the tutorial names them and
tried in the order MLIR's pattern applicator tries them: by benefit (a DRR
pattern's is the number of ops it matches), then as registered.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from passviz.dialects.toy import ConstantOp, ReshapeOp, TransposeOp

MAX_SPLAT_ELEMENTS = 1 << 20
"""The largest splat ``FoldConstantReshapeOptPattern`` spells out: MLIR keeps a
splat as one value, xDSL's attribute holds every element."""


class SimplifyRedundantTranspose(RewritePattern):
    """``transpose(transpose(x))`` is ``x``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter, /) -> None:
        inner = op.input.owner
        if not isinstance(inner, TransposeOp):
            return
        rewriter.replace(op, [], [inner.input])


class ReshapeReshapeOptPattern(RewritePattern):
    """``Reshape(Reshape(x)) = Reshape(x)``: one reshape to the outer one's type."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter, /) -> None:
        inner = op.input.owner
        if not isinstance(inner, ReshapeOp):
            return
        output_type = op.output.type
        assert isinstance(output_type, TensorType)
        made = ReshapeOp(inner.input, output_type)
        made.location = op.location  # MLIR fuses the matched ops' locations; the root's is the one to see
        rewriter.replace(op, made)


class RedundantReshapeOptPattern(RewritePattern):
    """``Reshape(x) = x`` where the types are identical."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter, /) -> None:
        if op.input.type != op.output.type:
            return
        rewriter.replace(op, [], [op.input])


class FoldConstantReshapeOptPattern(RewritePattern):
    """``Reshape(Constant(x)) = Constant(x')``: the constant's data in the reshape's type."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter, /) -> None:
        constant = op.input.owner
        if not isinstance(constant, ConstantOp):
            return
        new_type = op.output.type
        assert isinstance(new_type, TensorType)
        values = constant.float_values()
        count = new_type.element_count()
        if len(values) == 1:  # a splat reshapes to any shape, as a splat attribute does in MLIR
            if count > MAX_SPLAT_ELEMENTS:
                return
            values = values * count
        elif len(values) != count:
            return
        made = ConstantOp.from_values(values, new_type.get_shape())
        made.location = op.location
        rewriter.replace(op, made)


TRANSPOSE_PATTERNS: tuple[RewritePattern, ...] = (SimplifyRedundantTranspose(),)
"""``TransposeOp::getCanonicalizationPatterns``."""

RESHAPE_PATTERNS: tuple[RewritePattern, ...] = (
    ReshapeReshapeOptPattern(),  # benefit 2
    FoldConstantReshapeOptPattern(),  # benefit 2
    RedundantReshapeOptPattern(),  # benefit 1
)
"""``ReshapeOp::getCanonicalizationPatterns``, in the applicator's order."""
