"""Passes and patterns that misbehave on purpose, for recorder tests."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, cf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i32
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from passviz.recording.interface import NamedPattern, StepRecorder, TracedPass


class TagBehindTheRewritersBack(RewritePattern):
    """Tags an addi, and, without telling anyone, rewires the op after it."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.AddiOp) or "tagged" in op.attributes:
            return
        op.attributes["tagged"] = StringAttr("yes")
        rewriter.notify_op_modified(op)
        nxt = op.next_op
        if nxt is not None and nxt.operands:
            nxt.operands = [op.lhs, *nxt.operands[1:]]  # not announced


class Explodes(RewritePattern):
    """Raises on the first muli it sees, after half-rewriting it."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.MuliOp):
            op.attributes["half"] = StringAttr("done")
            raise RuntimeError("boom: cannot handle this muli")


class MakeInvalid(RewritePattern):
    """Replaces an i32 constant by an i64 one: uses no longer type-check."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.ConstantOp) and op.result.type == i32:
            value = op.value
            assert isinstance(value, IntegerAttr)
            rewriter.replace(op, arith.ConstantOp.from_int_and_width(value.value.data, 64))


class AddiToSubi(RewritePattern):
    """addi(a, b) -> subi(a, b)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.AddiOp):
            rewriter.replace(op, arith.SubiOp(op.lhs, op.rhs))


class SubiToAddi(RewritePattern):
    """subi(a, b) -> addi(a, b): with AddiToSubi, a rewrite loop."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.SubiOp):
            rewriter.replace(op, arith.AddiOp(op.lhs, op.rhs))


@dataclass(frozen=True)
class PatternsPass(TracedPass):
    """Runs the given patterns greedily, traced."""

    name = "test-patterns"
    patterns: tuple[RewritePattern, ...] = ()

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        applier = GreedyRewritePatternApplier(
            [NamedPattern(p, recorder) for p in self.patterns], dce_enabled=False
        )
        recorder.walker(applier).rewrite_module(op)


@dataclass(frozen=True)
class DirectEditsPass(ModulePass):
    """An untraced pass: swaps the first two ops and drops the last unused one directly."""

    name = "test-direct-edits"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        func = op.body.block.first_op
        assert func is not None
        block = func.regions[0].block
        first = block.first_op
        assert first is not None and first.next_op is not None
        second = first.next_op
        second.detach()
        block.insert_op_before(second, first)
        for candidate in reversed(list(block.ops)):
            if candidate.results and not any(r.uses for r in candidate.results):
                block.erase_op(candidate)
                break


@dataclass(frozen=True)
class ExplodingPass(PatternsPass):
    """A pass whose pattern raises: for the CLI's failure path."""

    name = "test-explode"
    patterns: tuple[RewritePattern, ...] = (Explodes(),)


@dataclass(frozen=True)
class InvalidatingPass(PatternsPass):
    """A pass that leaves IR the verifier rejects."""

    name = "test-invalidate"
    patterns: tuple[RewritePattern, ...] = (MakeInvalid(),)


@dataclass(frozen=True)
class SplitBlockPass(TracedPass):
    """Splits the first function's entry block before its second op, then branches across."""

    name = "test-split-block"

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        func = op.body.block.first_op
        assert func is not None
        block = func.regions[0].block
        second = block.first_op.next_op if block.first_op is not None else None
        assert second is not None
        tail = block.split_before(second)
        recorder.checkpoint("split")
        rewriter = recorder.rewriter(InsertPoint.at_end(block))
        rewriter.insert(cf.BranchOp(tail))
        recorder.checkpoint("branch")


class EraseThenExplode(RewritePattern):
    """Erases the dead xori it matched, then raises."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.XOrIOp):
            op.detach()
            op.erase()
            raise RuntimeError("erased, then failed")


class FoldAddiChain(RewritePattern):
    """addi(addi(x, c1), c2) -> addi(x, c1 + c2): folds an offset chain, as pointer-chain folding does."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.AddiOp) or not isinstance(op.lhs.owner, arith.AddiOp):
            return
        inner = op.lhs.owner
        outer_c, inner_c = op.rhs.owner, inner.rhs.owner
        if not isinstance(outer_c, arith.ConstantOp) or not isinstance(inner_c, arith.ConstantOp):
            return
        total = inner_c.value.value.data + outer_c.value.value.data  # pyright: ignore
        constant = arith.ConstantOp.from_int_and_width(total, 32)
        rewriter.insert(constant, InsertPoint.before(op))
        rewriter.replace(op, arith.AddiOp(inner.lhs, constant.result))


@dataclass(frozen=True)
class FoldAddiChainPass(PatternsPass):
    """Folds chains of constant additions, one link per rewrite."""

    name = "test-fold-addi-chain"
    patterns: tuple[RewritePattern, ...] = (FoldAddiChain(),)
