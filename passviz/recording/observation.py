"""Observation of xDSL's own rewrite machinery, for passes that do not drive the tracer.

A plain xDSL pass runs with xDSL's walkers, appliers and rewriters hooked
(``passviz.ir.rewrite_hooks``); ``RewriteObservation`` is the observer the hooks
report to.  It wraps a walker's pattern so that each application is a step
(``StepPattern``), has an applier's patterns name the step they fire in, hands
the tracer's listener to the rewriters a pass builds itself, and turns edits
made outside any walker into steps of their own.  The ``Tracer`` it serves
opens, closes and writes the steps.
"""

from __future__ import annotations

from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any

from xdsl.ir import Operation, Region
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint

from passviz.ir.rewrite_hooks import calling_pattern
from passviz.recording.interface import PASSING_THROUGH, NamedPattern, PipelineStopped, pattern_name, safe_str

if TYPE_CHECKING:
    from passviz.recording.recorder import Tracer


class StepPattern(RewritePattern):
    """The outermost pattern of a traced walk: one application, one step."""

    def __init__(self, inner: RewritePattern, tracer: Tracer) -> None:
        self.inner = inner
        self.tracer = tracer

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.tracer.begin_rewrite(op)
        stale = self.tracer.shadow.changed_behind(op)  # by an earlier step, behind the rewriter's back
        self.tracer.applying += 1
        try:
            self.inner.match_and_rewrite(op, rewriter)
        except PASSING_THROUGH:
            raise
        except BaseException as exc:  # SystemExit too: a flagged step, not a silent exit
            trying = self.tracer.trying
            self.tracer.fail(exc, op, pattern_name(trying) if trying is not None else None)
            raise PipelineStopped(safe_str(exc)) from exc
        finally:
            self.tracer.applying -= 1
        if rewriter.has_done_action:
            self.tracer.end_rewrite()
        elif not stale and self.tracer.shadow.changed_behind(op):  # edited without the rewriter
            trying = self.tracer.trying
            self.tracer.fired(pattern_name(trying if trying is not None else self.inner))
            self.tracer.end_rewrite(if_changed=True)


class RewriteObservation:
    """The observer of xDSL's rewrite machinery for one ``Tracer``.

    It is the ``passviz.ir.rewrite_hooks.RewriteObserver`` that ``observing`` is given
    while a plain pass runs."""

    def __init__(self, tracer: Tracer) -> None:
        self.tracer = tracer
        self.walks = 0
        """How many hooked xDSL walkers are running now."""
        self.unannounced = False
        """The open step made edits no listener heard of: compare the whole module at its end."""
        self.direct: tuple[str, FrameType | None] | None = None
        """The open step of edits made outside any walker: its name and the frame making them."""
        self._making_rewriter = False
        self._wrapped: dict[
            int, tuple[GreedyRewritePatternApplier, list[RewritePattern], list[RewritePattern]]
        ] = {}
        """Per applier: its patterns, and each wrapped to report its name."""

    def new_rewriter(self, insert_point: InsertPoint) -> PatternRewriter:
        """A rewriter of the tracer's own: ``rewriter_created`` leaves it alone."""
        self._making_rewriter = True
        try:
            rewriter = PatternRewriter(insert_point)
        finally:
            self._making_rewriter = False
        return rewriter

    def rewrite_region(self, walker: PatternRewriteWalker, region: Region, run: Callable[[], bool]) -> bool:
        """An xDSL walker of a plain pass: each pattern application it makes is a step."""
        if isinstance(walker.pattern, StepPattern):
            return run()
        if self.walks or self.tracer.applying:  # a walker inside a pattern: its edits are the pattern's
            self.unannounced = True
            return run()
        self.close_direct_step()
        saved = (walker.pattern, walker.listener, walker.post_walk_func)
        pattern = walker.pattern
        named = isinstance(pattern, GreedyRewritePatternApplier | NamedPattern)
        listener = PatternRewriterListener()
        listener.extend_from_listener(walker.listener)
        listener.extend_from_listener(self.tracer.listener)
        walker.pattern = StepPattern(pattern if named else NamedPattern(pattern, self.tracer), self.tracer)
        walker.listener = listener
        walker.post_walk_func = self.tracer.traced_post_walk(walker.post_walk_func)
        self.walks += 1
        try:
            return run()
        finally:
            self.walks -= 1
            walker.pattern, walker.listener, walker.post_walk_func = saved

    def apply_patterns(
        self, applier: GreedyRewritePatternApplier, op: Operation, run: Callable[[], None]
    ) -> None:
        """An applier inside a hooked walker: the pattern that fires names the step."""
        if not self.walks:
            run()
            return
        original = applier.rewrite_patterns
        cached = self._wrapped.get(id(applier))
        if cached is None or cached[0] is not applier or cached[1] is not original:
            wrapped: list[RewritePattern] = [
                p if isinstance(p, NamedPattern) else NamedPattern(p, self.tracer) for p in original
            ]
            cached = self._wrapped[id(applier)] = (applier, original, wrapped)
        applier.rewrite_patterns = cached[2]
        try:
            run()
        finally:
            applier.rewrite_patterns = original

    def rewriter_created(self, rewriter: PatternRewriter, internal: bool) -> None:
        """A rewriter a plain pass built itself: its edits are announced, and open steps."""
        if internal or self._making_rewriter:
            return
        if self.walks or self.tracer.applying:
            rewriter.extend_from_listener(self.tracer.listener)
            return

        def notice() -> list[Callable[[Any], None]]:
            # A list of its own for each kind of event: the tracer's handlers join each list
            # below, and one shared list would hand every event to every handler (a modified
            # op recorded as removed, with a text printed before its new operands had ids).
            return [lambda _: self.direct_edit("PatternRewriter")]

        listener = PatternRewriterListener(
            operation_insertion_handler=notice(),
            operation_removal_handler=notice(),
            operation_modification_handler=notice(),
            operation_replacement_handler=[lambda op, _: self.direct_edit("PatternRewriter")],
            block_creation_handler=notice(),
        )
        listener.extend_from_listener(self.tracer.listener)
        rewriter.extend_from_listener(listener)

    def direct_edit(self, method: str, internal: bool = False) -> None:
        """An edit outside any walker: it joins the step of the pattern making it.

        Each ``Rewriter`` call a pass makes itself, outside any pattern, is a step."""
        if self.walks or self.tracer.applying:
            if method != "PatternRewriter" and not internal:
                self.unannounced = True  # Rewriter's static methods tell no listener
            return
        found = calling_pattern()
        frame = found[2] if found is not None else None
        joins = frame is not None or internal or method == "PatternRewriter"
        if self.direct is not None and self.direct[1] is frame and joins:
            return
        self.close_direct_step()
        self.tracer.begin_rewrite(found[1] if found is not None else None)
        if found is not None:
            name = pattern_name(found[0])
        else:
            name = "direct edits" if internal or method == "PatternRewriter" else f"Rewriter.{method}"
        self.direct = (name, frame)

    def close_direct_step(self) -> None:
        """End the step of edits made outside any walker, if one is open."""
        if self.direct is None:
            return
        name, _ = self.direct
        self.direct = None
        self.tracer.fired(name)
        self.tracer.end_rewrite(full=True)
