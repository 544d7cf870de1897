"""The rewrite hooks observe each recording in its own thread, and leave xDSL unpatched afterwards.

Two recordings of plain xDSL passes run at once in two threads: the first
finishes while the second is still rewriting, and the second's later rewrites
are still its own steps.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

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
from xdsl.rewriter import Rewriter

from passviz.ir.rewrite_hooks import REWRITER_EDITS, hooks_installed, observing
from passviz.pipelines import record
from passviz.trace.model import Trace
from tests.user_passes import INPUT

ORIGINALS = {
    (PatternRewriteWalker, "rewrite_region"): PatternRewriteWalker.__dict__["rewrite_region"],
    (GreedyRewritePatternApplier, "match_and_rewrite"): GreedyRewritePatternApplier.__dict__[
        "match_and_rewrite"
    ],
    (PatternRewriter, "__init__"): PatternRewriter.__dict__["__init__"],
    **{(Rewriter, name): Rewriter.__dict__[name] for name in REWRITER_EDITS},
}
"""xDSL's own methods, as imported (before any recording)."""


def _xdsl_is_unpatched() -> bool:
    return not hooks_installed() and all(
        owner.__dict__[name] is fn for (owner, name), fn in ORIGINALS.items()
    )


@dataclass(eq=False)
class _Meeting:
    """Where the two recordings wait for each other."""

    both_rewriting: threading.Barrier = field(default_factory=lambda: threading.Barrier(2, timeout=30))
    first_done: threading.Event = field(default_factory=threading.Event)


@dataclass(eq=False)
class _MuliToAddiTogether(RewritePattern):
    """muli(a, b) -> addi(a, a); before its first rewrite it waits for the other thread to rewrite
    too, and the second thread's pattern then waits for the first recording to end."""

    meeting: _Meeting
    second: bool
    met: bool = False

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.MuliOp):
            return
        if not self.met:
            self.met = True
            self.meeting.both_rewriting.wait()
            if self.second:
                assert self.meeting.first_done.wait(30)
        rewriter.replace(op, arith.AddiOp(op.lhs, op.lhs))


@dataclass(frozen=True)
class _Together(ModulePass):
    name = "user-together"
    pattern: _MuliToAddiTogether

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(self.pattern).rewrite_module(op)


def _rewrites(trace: Trace) -> list[str | None]:
    return [step.name for step in trace.steps if step.kind == "rewrite"]


def test_two_recordings_in_two_threads_each_see_their_own_rewrites() -> None:
    meeting = _Meeting()
    traces: dict[bool, Trace] = {}
    failures: list[BaseException] = []

    def run(second: bool) -> None:
        try:
            traces[second] = record(INPUT, [_Together(_MuliToAddiTogether(meeting, second))]).trace
        except BaseException as exc:  # reported below, in the test's thread
            failures.append(exc)
        finally:
            if not second:
                meeting.first_done.set()

    threads = [threading.Thread(target=run, args=(second,)) for second in (False, True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures, failures
    # Each recording: the two muli rewrites, each its own step, the second thread's after the first ended.
    assert _rewrites(traces[False]) == ["_MuliToAddiTogether", "_MuliToAddiTogether"]
    assert _rewrites(traces[True]) == ["_MuliToAddiTogether", "_MuliToAddiTogether"]
    assert all(step.flag is None for trace in traces.values() for step in trace.steps)
    assert _xdsl_is_unpatched()


def test_nested_contexts_patch_once_and_unpatch_after_the_last() -> None:
    class Quiet:
        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"no rewrite ran, yet the observer was asked for {name}")

    assert _xdsl_is_unpatched()
    with observing(Quiet()):  # pyright: ignore[reportArgumentType]
        assert hooks_installed()
        hooked = PatternRewriteWalker.__dict__["rewrite_region"]
        with observing(Quiet()):  # pyright: ignore[reportArgumentType]
            assert PatternRewriteWalker.__dict__["rewrite_region"] is hooked
        assert hooks_installed() and PatternRewriteWalker.__dict__["rewrite_region"] is hooked
    assert _xdsl_is_unpatched()
