"""MLIR's ``cf`` canonicalization patterns.

They follow ``mlir/lib/Dialect/ControlFlow/IR/ControlFlowOps.cpp`` as of the LLVM
that Triton 3.6 builds against.  ``cf.br``'s ``canonicalize`` method tries
``simplifyBrToBlockWithSinglePred`` then ``simplifyPassThroughBr``: here they are
two patterns in that order, named after those functions.  ``cf.assert`` reuses
xDSL's ``AssertTrue``, which is MLIR's ``AssertOp::canonicalize``.  ``cf.switch``
keeps xDSL's table.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, cf
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.transforms.canonicalization_patterns.cf import AssertTrue

from passviz.compilers.mlir.canonicalization.builders import i1_constant, select
from passviz.compilers.mlir.canonicalization.conditions import ConstantCondition
from passviz.compilers.mlir.version import llvm_snapshot


def _single_predecessor(block: Block) -> Block | None:
    """``Block::getSinglePredecessor``: the only predecessor edge's block."""
    predecessors = block.predecessors()
    return predecessors[0] if len(predecessors) == 1 else None


def _unique_predecessor(block: Block) -> Block | None:
    """``Block::getUniquePredecessor``: the block every predecessor edge comes from."""
    predecessors = set(block.predecessors())
    return predecessors.pop() if len(predecessors) == 1 else None


def collapse_branch(successor: Block, operands: Sequence[SSAValue]) -> tuple[Block, list[SSAValue]] | None:
    """``collapseBranch``: where ``successor`` leads if it only branches on.

    None unless ``successor`` holds nothing but a ``cf.br`` that uses its
    arguments only as branch operands, and the chain of plain branches from its
    destination does not loop.
    """
    branch = successor.first_op
    if not isinstance(branch, cf.BranchOp) or branch is not successor.last_op:
        return None
    if any(use.operation is not branch for arg in successor.args for use in arg.uses):
        return None
    dest = branch.successor
    if dest is successor:
        return None
    if llvm_snapshot() >= (3, 9) and dest.has_one_use():
        # Triton 3.9's LLVM leaves a destination reached from here alone to be merged into its block.
        return None
    visited = {successor, dest}
    following = dest.last_op
    while isinstance(following, cf.BranchOp):
        if following.successor in visited:
            return None
        visited.add(following.successor)
        following = following.successor.last_op
    values = [
        operands[value.index] if isinstance(value, BlockArgument) and value.block is successor else value
        for value in branch.arguments
    ]
    return dest, values


class SimplifyBrToBlockWithSinglePred(RewritePattern):
    """Merge the destination of a ``cf.br`` into its block when it has no other predecessor."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.BranchOp, rewriter: PatternRewriter) -> None:
        succ = op.successor
        parent = op.parent_block()
        if parent is None or succ is parent or len(succ.predecessors()) != 1:
            return
        operands = list(op.arguments)
        rewriter.inline_block(succ, InsertPoint.at_end(parent), operands)
        rewriter.erase(op)


class SimplifyPassThroughBr(RewritePattern):
    """``br ^bb1; ^bb1: br ^bbN(...)`` -> ``br ^bbN(...)``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.BranchOp, rewriter: PatternRewriter) -> None:
        if op.successor is op.parent_block():
            return
        collapsed = collapse_branch(op.successor, op.arguments)
        if collapsed is None:
            return
        dest, operands = collapsed
        rewriter.replace(op, cf.BranchOp(dest, *operands))


def _take_branch(rewriter: PatternRewriter, op: cf.ConditionalBranchOp, condition: bool) -> None:
    """Replace ``op`` by a ``cf.br`` to the successor it takes when its condition is ``condition``."""
    if condition:
        rewriter.replace(op, cf.BranchOp(op.then_block, *op.then_arguments))
    else:
        rewriter.replace(op, cf.BranchOp(op.else_block, *op.else_arguments))


class SimplifyConstCondBranchPred(ConstantCondition):
    """``cond_br true, ^a, ^b`` -> ``br ^a``; ``cond_br false, ^a, ^b`` -> ``br ^b``."""

    kind = cf.ConditionalBranchOp

    def take(self, op: Operation, condition: bool, rewriter: PatternRewriter) -> None:
        assert isinstance(op, cf.ConditionalBranchOp)
        _take_branch(rewriter, op, condition)


class SimplifyPassThroughCondBranch(RewritePattern):
    """Skip successors of a ``cf.cond_br`` that only branch on."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.ConditionalBranchOp, rewriter: PatternRewriter) -> None:
        then_collapsed = collapse_branch(op.then_block, op.then_arguments)
        else_collapsed = collapse_branch(op.else_block, op.else_arguments)
        if then_collapsed is None and else_collapsed is None:
            return
        then_block, then_args = then_collapsed or (op.then_block, list(op.then_arguments))
        else_block, else_args = else_collapsed or (op.else_block, list(op.else_arguments))
        rewriter.replace(op, cf.ConditionalBranchOp(op.cond, then_block, then_args, else_block, else_args))


class SimplifyCondBranchIdenticalSuccessors(RewritePattern):
    """``cond_br %c, ^a(x), ^a(y)`` -> ``br ^a(select(%c, x, y))``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.ConditionalBranchOp, rewriter: PatternRewriter) -> None:
        dest = op.then_block
        if dest is not op.else_block:
            return
        then_args, else_args = list(op.then_arguments), list(op.else_arguments)
        if then_args == else_args:
            rewriter.replace(op, cf.BranchOp(dest, *then_args))
            return
        if _unique_predecessor(dest) is not op.parent_block():
            return
        merged: list[SSAValue] = []
        for then_value, else_value in zip(then_args, else_args, strict=True):
            if then_value == else_value:
                merged.append(then_value)
                continue
            new_select = select(op.cond, then_value, else_value)
            rewriter.insert(new_select, InsertPoint.before(op))
            merged.append(new_select.result)
        rewriter.replace(op, cf.BranchOp(dest, *merged))


class SimplifyCondBranchFromCondBranchOnSameCondition(RewritePattern):
    """A ``cf.cond_br`` reached only from one on the same condition knows its outcome."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.ConditionalBranchOp, rewriter: PatternRewriter) -> None:
        current = op.parent_block()
        if current is None or (predecessor := _single_predecessor(current)) is None:
            return
        pred_branch = predecessor.last_op
        if not isinstance(pred_branch, cf.ConditionalBranchOp) or pred_branch.cond != op.cond:
            return
        _take_branch(rewriter, op, current is pred_branch.then_block)


class CondBranchTruthPropagation(RewritePattern):
    """In a successor reached only from this branch, the condition is known."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.ConditionalBranchOp, rewriter: PatternRewriter) -> None:
        for dest, value in ((op.then_block, True), (op.else_block, False)):
            if _single_predecessor(dest) is None:
                continue
            constant: arith.ConstantOp | None = None
            for use in list(op.cond.uses):
                if use.operation.parent_block() is not dest:
                    continue
                if constant is None:
                    constant = i1_constant(value)
                    rewriter.insert(constant, InsertPoint.before(op))
                use.operation.operands[use.index] = constant.result
                rewriter.notify_op_modified(use.operation)


PATTERNS: dict[str, tuple[RewritePattern, ...]] = {
    cf.AssertOp.name: (AssertTrue(),),
    cf.BranchOp.name: (SimplifyBrToBlockWithSinglePred(), SimplifyPassThroughBr()),
    cf.ConditionalBranchOp.name: (
        SimplifyConstCondBranchPred(),
        SimplifyPassThroughCondBranch(),
        SimplifyCondBranchIdenticalSuccessors(),
        SimplifyCondBranchFromCondBranchOnSameCondition(),
        CondBranchTruthPropagation(),
    ),
}
"""MLIR's canonicalization patterns of each cf op, in the order MLIR tries them."""

OP_NAMES: frozenset[str] = frozenset(PATTERNS)
"""The cf ops whose tables these are (none of them has a folder)."""
