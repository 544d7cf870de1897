"""Plain xDSL passes, written as a user writes them (no passviz import): for the recorder's hooks.

Loaded by the tests with ``passviz trace --passes-from tests/user_passes.py``
and imported directly; each pass misbehaves in one way the recorder must notice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint, Rewriter

INPUT = """\
func.func @f(%a: i32, %b: i32) -> i32 {
  %0 = arith.muli %a, %b : i32
  %1 = arith.addi %0, %a : i32
  %2 = arith.muli %1, %b : i32
  func.return %2 : i32
}
"""
"""Two ``arith.muli`` around an ``arith.addi`` that uses the first: the IR the tests run these passes on."""


class MuliToAddi(RewritePattern):
    """muli(a, b) -> addi(a, a): a rewrite that converges."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.MuliOp):
            rewriter.replace_op(op, arith.AddiOp(op.lhs, op.lhs))


class AddiToSubi(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.AddiOp):
            rewriter.replace_op(op, arith.SubiOp(op.lhs, op.rhs))


class SubiToAddi(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.SubiOp):
            rewriter.replace_op(op, arith.AddiOp(op.lhs, op.rhs))


@dataclass(frozen=True)
class Converges(ModulePass):
    """One walker, one pattern that fires once per muli."""

    name = "user-converges"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(MuliToAddi()).rewrite_module(op)


@dataclass(frozen=True)
class Loops(ModulePass):
    """Two patterns undoing each other under xDSL's applier."""

    name = "user-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier([AddiToSubi(), SubiToAddi()])).rewrite_module(op)


@dataclass(frozen=True)
class OwnLoop(ModulePass):
    """A pass driving its patterns itself, with its own rewriters and ``Rewriter``'s static methods."""

    name = "user-own-loop"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for candidate in list(op.walk()):
            if isinstance(candidate, arith.MuliOp):
                MuliToAddi().match_and_rewrite(candidate, PatternRewriter(candidate))
        for candidate in list(op.walk()):
            if isinstance(candidate, arith.XOrIOp) and not candidate.result.uses:
                Rewriter.erase_op(candidate)


class CountWalks(RewritePattern):
    """Counts on each function how often it was visited, in place, and says it changed something."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, func.FuncOp):
            walks = op.attributes.get("walks")
            count = walks.value.data if isinstance(walks, IntegerAttr) else 0
            op.attributes["walks"] = IntegerAttr(count + 1, 32)
            rewriter.has_done_action = True  # so the walker walks the module again, forever


@dataclass(frozen=True)
class WalksForever(ModulePass):
    """A walker whose pattern fires once per walk: only an iteration limit stops it."""

    name = "user-walks-forever"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(CountWalks()).rewrite_module(op)


class Sleepy(RewritePattern):
    """Takes its time on every op."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        time.sleep(0.2)
        if isinstance(op, arith.MuliOp):
            rewriter.replace_op(op, arith.AddiOp(op.lhs, op.lhs))


@dataclass(frozen=True)
class Slow(ModulePass):
    """A walker that needs about a second per pass on a small function."""

    name = "user-slow"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(Sleepy()).rewrite_module(op)


class Spin(RewritePattern):
    """Never returns, never rewrites."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        while True:
            time.sleep(0.01)


@dataclass(frozen=True)
class Spins(ModulePass):
    name = "user-spins"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(Spin()).rewrite_module(op)


class DetachUsed(RewritePattern):
    """Detaches a muli whose result is still used."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.MuliOp) and op.result.uses:
            op.detach()


class EraseUsed(RewritePattern):
    """Erases a used muli through the rewriter: xDSL raises, with the op already detached."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.MuliOp) and op.result.uses:
            rewriter.erase_op(op)


class EraseUsedUnsafely(RewritePattern):
    """Erases a used muli without the safety check: its users now use an erased value."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.MuliOp) and op.result.uses:
            rewriter.erase_op(op, safe_erase=False)


class IntoOwnRegion(RewritePattern):
    """Puts an scf.execute_region inside its own body, behind xDSL's checks."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, scf.ExecuteRegionOp) and op.parent is not None:
            op.detach()
            op.parent = op.regions[0].block


class UseBeforeDefinition(RewritePattern):
    """Moves the last muli of a block to the block's start, before its operands' definitions."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        block = op.parent
        if not isinstance(op, arith.MuliOp) or block is None or block.first_op is op:
            return
        if not any(isinstance(o.owner, Operation) for o in op.operands):
            return
        op.detach()
        rewriter.insert_op(op, InsertPoint.at_start(block))


class Exits(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.MuliOp):
            raise SystemExit(3)


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no message")


class RaisesUnprintable(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.MuliOp):
            raise Unprintable()


def _walker_pass(name: str, pattern: type[RewritePattern]) -> type[ModulePass]:
    @dataclass(frozen=True)
    class WalkerPass(ModulePass):
        def apply(self, ctx: Context, op: ModuleOp) -> None:
            PatternRewriteWalker(pattern()).rewrite_module(op)

    WalkerPass.name = name  # pyright: ignore[reportAttributeAccessIssue]
    WalkerPass.__name__ = WalkerPass.__qualname__ = pattern.__name__ + "Pass"
    return WalkerPass


DetachUsedPass = _walker_pass("user-detach-used", DetachUsed)
EraseUsedPass = _walker_pass("user-erase-used", EraseUsed)
EraseUsedUnsafelyPass = _walker_pass("user-erase-used-unsafely", EraseUsedUnsafely)
IntoOwnRegionPass = _walker_pass("user-into-own-region", IntoOwnRegion)
UseBeforeDefinitionPass = _walker_pass("user-use-before-definition", UseBeforeDefinition)
ExitsPass = _walker_pass("user-exits", Exits)
RaisesUnprintablePass = _walker_pass("user-raises-unprintable", RaisesUnprintable)


@dataclass(frozen=True)
class DetachUsedDirectly(ModulePass):
    """No pattern at all: the pass itself detaches a used op."""

    name = "user-detach-used-directly"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for candidate in list(op.walk()):
            if isinstance(candidate, arith.MuliOp) and candidate.result.uses:
                candidate.detach()
                return
