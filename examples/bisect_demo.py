"""A user's pass with two rewrites, plain xDSL patterns: one right, one that breaks the kernel.

``TimesTwoToAdd`` rewrites ``x * 2.0`` to ``x + x`` for floats: the same
result, exactly.  ``OrderSubfOperands`` puts the operand defined first on the
left of ``arith.subf``, as one does for commutative ops, forgetting that
``a - b`` is not ``b - a``: the IR still verifies, and the kernel now computes
``y - 2x``.  ``passviz bisect`` runs the IR at the steps of the trace and names
the step of ``OrderSubfOperands`` (``examples/bisect_demo.mlir`` says how).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)


def _is_two(value: SSAValue) -> bool:
    """Whether ``value`` is the float constant 2.0 (a scalar or a splat tensor)."""
    owner = value.owner
    if not isinstance(owner, arith.ConstantOp):
        return False
    attr = owner.value
    if isinstance(attr, FloatAttr):
        return attr.value.data == 2.0
    if isinstance(attr, DenseIntOrFPElementsAttr):
        values = attr.get_values()
        return bool(values) and all(v == 2.0 for v in values)
    return False


class TimesTwoToAdd(RewritePattern):
    """x * 2.0 -> x + x (right)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.MulfOp) and _is_two(op.rhs):
            rewriter.replace(op, arith.AddfOp(op.lhs, op.lhs))


def _position(value: SSAValue) -> int:
    """Where ``value`` is defined in its block (block arguments first)."""
    owner = value.owner
    if isinstance(owner, Operation) and owner.parent_block() is not None:
        block = owner.parent_block()
        assert block is not None
        return len(block.args) + block.get_operation_index(owner)
    return getattr(value, "index", 0)


class OrderSubfOperands(RewritePattern):
    """a - b -> b - a when b is defined first (wrong: subtraction does not commute)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.SubfOp) and _position(op.rhs) < _position(op.lhs):
            rewriter.replace(op, arith.SubfOp(op.rhs, op.lhs))


@dataclass(frozen=True)
class DemoRewrites(ModulePass):
    """x * 2 -> x + x, and an operand order for arith.subf that breaks the kernel."""

    name = "demo-rewrites"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([TimesTwoToAdd(), OrderSubfOperands()])
        ).rewrite_module(op)
