"""A user's own xDSL pass, as written without passviz: plain patterns on xDSL's walker.

``SwapAddiOperands`` wants constants on the right of ``arith.addi`` (as MLIR's
canonical form has them), but it forgot to check whether they already are, so
it swaps the operands back and forth forever.  ``README.md`` ("Debugging your
own pattern") traces it:

    passviz trace examples/my_pattern.mlir -p my-pass \\
        --passes-from examples/my_pattern.py --max-rewrites 20 -o t.json

The fix is the commented-out check in ``match_and_rewrite``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)


class MuliByOne(RewritePattern):
    """x * 1 -> x."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.MuliOp):
            return
        one = op.rhs.owner
        if isinstance(one, arith.ConstantOp) and getattr(one.value, "value", None) is not None:
            if one.value.value.data == 1:  # pyright: ignore[reportAttributeAccessIssue]
                rewriter.replace(op, [], [op.lhs])


class SwapAddiOperands(RewritePattern):
    """addi(c, x) -> addi(x, c) for a constant c: constants go on the right."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.AddiOp):
            return
        if not isinstance(op.lhs.owner, arith.ConstantOp) and not isinstance(op.rhs.owner, arith.ConstantOp):
            return
        # The fix: stop once the constant is on the right.
        # if isinstance(op.rhs.owner, arith.ConstantOp):
        #     return
        rewriter.replace(op, arith.AddiOp(op.rhs, op.lhs))


@dataclass(frozen=True)
class MyPass(ModulePass):
    """Constants to the right of additions, multiplications by one dropped."""

    name = "my-pass"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = GreedyRewritePatternApplier([MuliByOne(), SwapAddiOperands()])
        PatternRewriteWalker(patterns).rewrite_module(op)
