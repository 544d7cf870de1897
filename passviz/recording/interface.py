"""What a pass may ask of the recorder: the small interface passes import.

A traced pass receives a ``StepRecorder`` in ``TracedPass.run`` and drives its rewrites through
what it hands out (a rewriter, a pattern walker, a hand-written step); ``NullRecorder`` runs the
same pass recording nothing.  The recorder itself is ``passviz.recording.recorder.Tracer``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import ClassVar, Protocol

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, Region
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint


class StepSink(Protocol):
    """What a hand-written step reports to (``Tracer`` implements it)."""

    def enter_step(self, scope: StepScope) -> None:
        """Open the rewrite step ``scope`` makes."""
        ...

    def exit_step(self, scope: StepScope, exc: BaseException | None) -> None:
        """Close it: a step, a failure step where it raised ``exc``, nothing where it was cancelled."""
        ...


PostWalk = Callable[[Region, PatternRewriterListener], bool]

DispatchRegions = Callable[[], Sequence[Sequence[Operation]]]
"""Gives the dispatch regions when a step ends: each one's region op first, then its member ops."""


class PipelineStopped(BaseException):
    """Raised inside a run to stop the pipeline after a flagged step.

    A ``BaseException``, so that neither xDSL's walker (which turns a pattern's
    exceptions into diagnostics, walking up from an op that may now sit in its
    own region) nor a user's ``except Exception`` holds it up."""


class PassTimeout(BaseException):
    """Raised inside a pass that ran past ``RecordOptions.timeout``.

    A ``BaseException``, so that xDSL's walker, which turns a pattern's
    exceptions into diagnostics, lets it through."""


PASSING_THROUGH = (PipelineStopped, PassTimeout, KeyboardInterrupt, GeneratorExit)
"""What a step lets through to the run: recorded there (or already recorded)."""


def safe_str(exc: BaseException) -> str:
    """``str(exc)``, even for an exception whose ``__str__`` raises."""
    try:
        return str(exc)
    except BaseException:  # noqa: BLE001 - any failure to print is reported, not raised
        return f"<{type(exc).__name__} whose message cannot be printed>"


def pattern_name(pattern: RewritePattern) -> str:
    """The name a trace shows for a pattern: its class name."""
    return type(pattern).__name__


class StepRecorder(ABC):
    """What a traced pass may ask of the recorder.  ``NullRecorder`` records nothing."""

    @abstractmethod
    def rewriter(self, insert_point: InsertPoint) -> PatternRewriter:
        """A rewriter whose every mutation the recorder observes."""

    @abstractmethod
    def checkpoint(self, name: str) -> None:
        """Close a named sub-step of a pass: everything since the last boundary."""

    def walker(
        self,
        pattern: RewritePattern,
        *,
        post_walk_func: PostWalk | None = None,
        walk_regions_first: bool = False,
        apply_recursively: bool = True,
        walk_reverse: bool = False,
    ) -> PatternRewriteWalker:
        """A greedy pattern walker whose rewrites each become a step.

        xDSL's walker, its pattern, post-walk hook and listener as the recorder observes them
        (``observed_pattern``, ``traced_post_walk``, ``walk_listener``)."""
        return PatternRewriteWalker(
            self.observed_pattern(pattern),
            post_walk_func=self.traced_post_walk(post_walk_func),
            walk_regions_first=walk_regions_first,
            apply_recursively=apply_recursively,
            walk_reverse=walk_reverse,
            listener=self.walk_listener(),
        )

    def observed_pattern(self, pattern: RewritePattern) -> RewritePattern:
        """``pattern`` as a walker the recorder hands out applies it: as it is, unobserved."""
        return pattern

    def traced_post_walk(self, func: PostWalk | None) -> PostWalk | None:
        """A walker's post-walk hook as the recorder runs it: as it is, untraced."""
        return func

    def walk_listener(self) -> PatternRewriterListener:
        """The listener of a walker the recorder hands out: none of its own."""
        return PatternRewriterListener()

    @abstractmethod
    def apply_pattern(self, pattern: RewritePattern, op: Operation, rewriter: PatternRewriter) -> None:
        """Try one pattern on ``op``, remembering its name if it fires."""

    @abstractmethod
    def not_converged(self, limit: str) -> None:
        """A rewrite driver gave up after ``limit`` while patterns still fired."""

    def iteration_limit(self, default: int) -> int:
        """How many iterations a greedy driver whose own limit is ``default`` may make."""
        return default

    def step(
        self,
        name: str,
        root: Operation | None = None,
        *,
        full: bool = False,
        chain: Sequence[Operation] | None = None,
        dispatch: DispatchRegions | None = None,
    ) -> StepScope:
        """A context manager that makes what happens inside it one rewrite step.

        ``full`` compares the whole module at the end of the step, for edits
        the rewriter does not announce (erasing a block, say).  ``chain`` is
        the pointer chain the step folds, base first; its ops' ids are taken
        when the step opens, so ops the step erases keep theirs.  ``dispatch``
        gives the dispatch regions (region op first, then its members) when
        the step ends; the trace keeps their ids."""
        return StepScope(self.step_sink(), name, root, full=full, chain=chain, dispatch=dispatch)

    def step_sink(self) -> StepSink | None:
        """What a hand-written step reports to: None, recording nothing."""
        return None


class StepScope:
    """Context manager for a hand-written rewrite step (see ``StepRecorder.step``)."""

    def __init__(
        self,
        recorder: StepSink | None,
        name: str,
        root: Operation | None,
        *,
        full: bool = False,
        chain: Sequence[Operation] | None = None,
        dispatch: DispatchRegions | None = None,
    ) -> None:
        self._recorder = recorder
        self.name = name
        self.root = root
        self.full = full
        self.chain = chain
        self.dispatch = dispatch
        self.cancelled = False

    def cancel(self) -> None:
        """Make the step end without a trace entry: it turned out to change nothing."""
        self.cancelled = True

    def __enter__(self) -> StepScope:
        if self._recorder is not None:
            self._recorder.enter_step(self)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if self._recorder is not None:
            self._recorder.exit_step(self, exc)


class NullRecorder(StepRecorder):
    """Runs traced passes without recording anything."""

    def rewriter(self, insert_point: InsertPoint) -> PatternRewriter:
        return PatternRewriter(insert_point)

    def checkpoint(self, name: str) -> None:
        return None

    def apply_pattern(self, pattern: RewritePattern, op: Operation, rewriter: PatternRewriter) -> None:
        pattern.match_and_rewrite(op, rewriter)

    def not_converged(self, limit: str) -> None:
        return None


class TracedPass(ModulePass, ABC):
    """A pass that reports its rewrites and sub-steps to a recorder."""

    announces_every_edit: ClassVar[bool] = False
    """True if every edit of the pass goes through the recorder (a rewriter it
    handed out, a step or a checkpoint).  Such a pass's end skips comparing
    the whole module; the pipeline's end always compares it."""

    @abstractmethod
    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        """Apply the pass, driving every mutation through ``recorder``."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.run(ctx, op, NullRecorder())


class NamedPattern(RewritePattern):
    """A pattern whose firing is reported to the recorder under its own name."""

    def __init__(self, inner: RewritePattern, recorder: StepRecorder) -> None:
        self.inner = inner
        self.recorder = recorder

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.recorder.apply_pattern(self.inner, op, rewriter)
