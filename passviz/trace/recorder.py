"""The recorder: turns a pipeline run into a trace, step by step.

A ``Tracer`` is an explicit object: passes receive it through ``TracedPass.run``
and drive their rewrites through what it hands out (a rewriter, a pattern
walker), so every mutation reaches its listener.  At each step boundary the
tracer reconciles the live IR against its ``Shadow``; that is what also
catches edits made directly, without the rewriter.
"""

from __future__ import annotations

import traceback
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass, PassPipeline
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from passviz.trace.initial import initial_state
from passviz.trace.irtext import print_module
from passviz.trace.model import Delta, Flag, Step, StepKind, Trace, TraceMeta
from passviz.trace.shadow import PendingReplacement, Removal, Shadow
from passviz.trace.sources import read_sources
from passviz.trace.store import TraceWriter
from passviz.trace.verify import IncrementalVerifier

VerifyEach = Literal["off", "pass", "rewrite"]
"""When the verifier runs: never, after every pass, or after every rewrite."""

PostWalk = Callable[[Region, PatternRewriterListener], bool]


UNANNOUNCED = "edits not announced to the rewriter"
"""Name of the checkpoint holding edits a traced pass made behind the rewriter's back."""


@dataclass(frozen=True)
class RecordOptions:
    """How a run is recorded."""

    verify_each: VerifyEach = "pass"
    """When the verifier runs: never, after every pass, or after every rewrite."""
    check: bool = False
    """Check mode: also print the live IR after every step (``Tracer.snapshots``)."""
    max_iterations: int = 10
    """Greedy rewrite iterations before a pass counts as not converging."""
    max_rewrites: int | None = None
    """Rewrites per pass before it counts as not converging (default: 50 per op)."""
    exact: bool = False
    """Compare the whole module at every step, so that even edits a pattern
    hides from the rewriter land in the step that made them (slower)."""
    embed_sources: bool = True
    """Embed the source files the IR's locations name (a Triton kernel's Python), for the viewer."""


class PipelineStopped(Exception):
    """Raised inside a run to stop the pipeline after a flagged step."""


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

    @abstractmethod
    def walker(
        self,
        pattern: RewritePattern,
        *,
        post_walk_func: PostWalk | None = None,
        walk_regions_first: bool = False,
        apply_recursively: bool = True,
        walk_reverse: bool = False,
    ) -> PatternRewriteWalker:
        """A greedy pattern walker whose rewrites each become a step."""

    @abstractmethod
    def apply_pattern(self, pattern: RewritePattern, op: Operation, rewriter: PatternRewriter) -> None:
        """Try one pattern on ``op``, remembering its name if it fires."""

    @abstractmethod
    def not_converged(self, limit: str) -> None:
        """A rewrite driver gave up after ``limit`` while patterns still fired."""

    @abstractmethod
    def step(
        self,
        name: str,
        root: Operation | None = None,
        *,
        full: bool = False,
        chain: Sequence[Operation] | None = None,
    ) -> StepScope:
        """A context manager that makes what happens inside it one rewrite step.

        ``full`` compares the whole module at the end of the step, for edits
        the rewriter does not announce (erasing a block, say).  ``chain`` is
        the pointer chain the step folds, base first; its ops' ids are taken
        when the step opens, so ops the step erases keep theirs."""


class StepScope:
    """Context manager for a hand-written rewrite step (see ``StepRecorder.step``)."""

    def __init__(
        self,
        recorder: Tracer | None,
        name: str,
        root: Operation | None,
        *,
        full: bool = False,
        chain: Sequence[Operation] | None = None,
    ) -> None:
        self._recorder = recorder
        self._name = name
        self._root = root
        self._full = full
        self._chain = chain
        self._cancelled = False

    def cancel(self) -> None:
        """Make the step end without a trace entry: it turned out to change nothing."""
        self._cancelled = True

    def __enter__(self) -> StepScope:
        if self._recorder is not None:
            self._recorder.begin_rewrite(self._root, chain=self._chain)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        if self._recorder is None:
            return
        if exc is not None and isinstance(exc, Exception) and not isinstance(exc, PipelineStopped):
            self._recorder.fail(exc, self._root, self._name)
            return
        if exc is None and not self._cancelled:
            self._recorder.fired(self._name)
            self._recorder.end_rewrite(full=self._full)


class NullRecorder(StepRecorder):
    """Runs traced passes without recording anything."""

    def rewriter(self, insert_point: InsertPoint) -> PatternRewriter:
        return PatternRewriter(insert_point)

    def checkpoint(self, name: str) -> None:
        return None

    def walker(
        self,
        pattern: RewritePattern,
        *,
        post_walk_func: PostWalk | None = None,
        walk_regions_first: bool = False,
        apply_recursively: bool = True,
        walk_reverse: bool = False,
    ) -> PatternRewriteWalker:
        return PatternRewriteWalker(
            pattern,
            post_walk_func=post_walk_func,
            walk_regions_first=walk_regions_first,
            apply_recursively=apply_recursively,
            walk_reverse=walk_reverse,
        )

    def apply_pattern(self, pattern: RewritePattern, op: Operation, rewriter: PatternRewriter) -> None:
        pattern.match_and_rewrite(op, rewriter)

    def not_converged(self, limit: str) -> None:
        return None

    def step(
        self,
        name: str,
        root: Operation | None = None,
        *,
        full: bool = False,
        chain: Sequence[Operation] | None = None,
    ) -> StepScope:
        return StepScope(None, name, root)


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


@dataclass(frozen=True)
class _RecordedPass(ModulePass):
    """Wraps a pass of the pipeline so that it runs under the tracer."""

    name: ClassVar[str] = "passviz-recorded"
    inner: ModulePass
    tracer: Tracer

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if isinstance(self.inner, TracedPass):
            self.inner.run(ctx, op, self.tracer)
            return
        self.inner.apply(ctx, op)


class NamedPattern(RewritePattern):
    """A pattern whose firing is reported to the recorder under its own name."""

    def __init__(self, inner: RewritePattern, recorder: StepRecorder) -> None:
        self.inner = inner
        self.recorder = recorder

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.recorder.apply_pattern(self.inner, op, rewriter)


class _StepPattern(RewritePattern):
    """The outermost pattern of a traced walk: one application, one step."""

    def __init__(self, inner: RewritePattern, tracer: Tracer) -> None:
        self.inner = inner
        self.tracer = tracer

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.tracer.begin_rewrite(op)
        try:
            self.inner.match_and_rewrite(op, rewriter)
        except PipelineStopped:
            raise
        except Exception as exc:
            trying = self.tracer.trying
            self.tracer.fail(exc, op, pattern_name(trying) if trying is not None else None)
            raise PipelineStopped(str(exc)) from exc
        if rewriter.has_done_action:
            self.tracer.end_rewrite()


class Tracer(StepRecorder):
    """Records one pipeline run on one module."""

    def __init__(
        self,
        module: ModuleOp,
        meta: TraceMeta,
        *,
        writer: TraceWriter | None = None,
        options: RecordOptions | None = None,
        initial_ir: str | None = None,
        verifier: IncrementalVerifier | None = None,
    ) -> None:
        """``initial_ir`` is the text ``module`` was parsed from, if there is one:
        the trace keeps it in memory (``Trace.initial_ir``); files store the
        initial IR once, as the structured ``initial`` delta.
        ``verifier`` is one that has verified ``module`` already, if any."""
        options = options or RecordOptions()
        self.module = module
        self.options = options
        self.shadow = Shadow(module)
        self.verifier = verifier or IncrementalVerifier(module)
        """Verifies the module after a pass, re-checking only what changed."""
        initial = initial_state(self.shadow)
        self.trace = Trace(
            meta=meta,
            initial_ir=initial_ir,
            initial=initial,
            sources=read_sources(initial) if options.embed_sources else {},
        )
        self.writer = writer
        self.snapshots: list[str] = [print_module(module)] if options.check else []
        """In check mode, the live IR printed before the first step and after each."""
        self.stopped = False
        self.trying: RewritePattern | None = None
        """The pattern being tried right now."""
        self._fired: str | None = None
        self._root: Operation | None = None
        self._chain: list[str] | None = None
        self._inserted: list[Operation] = []
        self._modified: list[Operation] = []
        self._removed: list[Removal] = []
        self._replaced: list[PendingReplacement] = []
        self._blocks: list[Block] = []
        self._pass: ModulePass | None = None
        self._pass_index = -1
        self._pass_rewrites = 0
        self._rewrite_limit = 0
        self._recent: deque[str] = deque(maxlen=96)
        self.listener = PatternRewriterListener(
            operation_insertion_handler=[self._inserted.append],
            operation_removal_handler=[self._on_removal],
            operation_modification_handler=[self._modified.append],
            operation_replacement_handler=[self._on_replacement],
            block_creation_handler=[self._blocks.append],
        )
        if writer is not None:
            writer.write_header(self.trace)

    # -- listener -------------------------------------------------------------

    def _on_removal(self, op: Operation) -> None:
        if op in self.shadow.op_ids:
            self._removed.append(Removal(op, self.shadow.text_of(op)))

    def _on_replacement(self, op: Operation, new_results: Sequence[SSAValue | None]) -> None:
        self._replaced.append(PendingReplacement(op, tuple(op.results), tuple(new_results)))

    def _has_pending(self) -> bool:
        return bool(self._inserted or self._modified or self._removed or self._replaced or self._blocks)

    def _take_scoped_delta(self, extra: Sequence[Operation] = ()) -> Delta:
        if self.options.exact:
            return self._take_full_delta()
        delta = self.shadow.reconcile(
            full=False,
            ops=[*extra, *self._inserted, *self._modified],
            blocks=self._blocks,
            removed=self._removed,
            replacements=self._replaced,
        )
        self._clear_pending()
        return delta

    def _take_full_delta(self) -> Delta:
        delta = self.shadow.reconcile(full=True, removed=self._removed, replacements=self._replaced)
        self._clear_pending()
        return delta

    def _clear_pending(self) -> None:
        self._inserted.clear()
        self._modified.clear()
        self._removed.clear()
        self._replaced.clear()
        self._blocks.clear()

    # -- steps ----------------------------------------------------------------

    def _emit(
        self,
        kind: StepKind,
        delta: Delta | None = None,
        *,
        name: str | None = None,
        root: str | None = None,
        flag: Flag | None = None,
        chain: list[str] | None = None,
    ) -> Step:
        step = Step(
            index=len(self.trace.steps),
            kind=kind,
            pass_name=self._pass.name if self._pass is not None else None,
            pass_index=self._pass_index if self._pass is not None else None,
            name=name,
            root=root,
            delta=delta if delta is not None else Delta(),
            flag=flag,
            chain=chain,
        )
        self.trace.steps.append(step)
        if self.writer is not None:
            self.writer.write_step(step)
        if self.options.check:
            self.snapshots.append(print_module(self.module))
        return step

    def _verify_flag(self) -> Flag | None:
        try:
            self.verifier.verify()
        except VerifyException as exc:
            return Flag(kind="verify", message=f"verifier: {_first_line(str(exc))}", detail=str(exc))
        return None

    def _stop_on(self, step: Step) -> None:
        if step.flag is not None:
            self.stopped = True
            raise PipelineStopped(step.flag["message"])

    def pass_begin(self, pass_: ModulePass) -> None:
        """Open a pass: steps from here on belong to it."""
        self._pass = pass_
        self._pass_index += 1
        self._pass_rewrites = 0
        self._recent.clear()
        self._rewrite_limit = self.options.max_rewrites or max(1000, 50 * len(self.shadow.ops))
        self._emit("pass-begin", self._take_scoped_delta(), name=type(pass_).__name__)

    def pass_end(self, pass_: ModulePass) -> None:
        """Close a pass: direct edits not yet attributed land here.

        A traced pass announces its edits step by step; whatever the final
        comparison still finds was hidden from the rewriter, and gets a
        checkpoint of its own so that it stands out.
        """
        trusted = isinstance(pass_, TracedPass) and pass_.announces_every_edit
        delta = self._take_scoped_delta() if trusted else self._take_full_delta()
        if delta and isinstance(pass_, TracedPass):
            self._emit("checkpoint", delta, name=UNANNOUNCED)
            delta = Delta()
        flag = self._verify_flag() if self.options.verify_each != "off" else None
        step = self._emit("pass-end", delta, name=type(pass_).__name__, flag=flag)
        self._stop_on(step)

    def begin_rewrite(self, root: Operation | None, *, chain: Sequence[Operation] | None = None) -> None:
        """Open a rewrite step on ``root`` (None for rewrites with no single root).

        ``chain`` (the pointer chain a step folds) is resolved to op ids now,
        while all of its ops still live.
        """
        if self._has_pending():
            self._emit("checkpoint", self._take_scoped_delta(), name="direct edits")
        self._root = root  # its id is looked up only if the rewrite happens
        self._chain = (
            None if chain is None else [i for op in chain if (i := self.shadow.id_of(op)) is not None]
        )
        self._fired = None
        self.trying = None

    def fired(self, name: str) -> None:
        """Name the rewrite in progress."""
        if self._fired is None:
            self._fired = name

    def end_rewrite(self, *, full: bool = False) -> None:
        """Close the rewrite step opened by ``begin_rewrite``.

        ``full`` compares the whole module, for rewrites that touch a whole
        region without announcing each change (xDSL's ``region_dce``).
        """
        root = self._root
        root_id = self.shadow.id_of(root) if root is not None else None
        if full:
            delta = self._take_full_delta()
        else:
            delta = self._take_scoped_delta([root] if root is not None else [])
        name = self._fired or _implicit_name(delta, root_id)
        flag = self._verify_flag() if self.options.verify_each == "rewrite" else None
        self._pass_rewrites += 1
        self._recent.append(name)
        chain, self._chain = self._chain, None
        step = self._emit("rewrite", delta, name=name, root=root_id, flag=flag, chain=chain)
        self._stop_on(step)
        if self._pass_rewrites > self._rewrite_limit:
            self._nonconvergence(f"{self._rewrite_limit} rewrites")

    def fail(self, exc: Exception, root: Operation | None, name: str | None) -> None:
        """Record a failure step: the exception, the op it happened on, what changed."""
        root = root if root is not None else self._root
        root_id = self.shadow.id_of(root) if root is not None else None
        # The root's text now: comparing may find it erased, and then it has none.
        root_text = self.shadow.text_of(root) if root is not None and root_id is not None else None
        try:
            delta = self._take_full_delta()
        except Exception:  # the IR is too broken to compare: record the failure alone
            self._clear_pending()
            delta = Delta()
        if root_id is not None and root_text is not None:
            delta.setdefault("texts", {}).setdefault(root_id, root_text)
        message = f"{type(exc).__name__}: {_first_line(str(exc))}"
        if name:
            message = f"pattern {name} raised {message}"
        flag = Flag(
            kind="exception",
            message=message,
            detail="".join(traceback.format_exception(exc)),
        )
        self.stopped = True
        self._emit("failure", delta, name=name, root=root_id, flag=flag)

    def _nonconvergence(self, limit: str) -> None:
        cycle = _find_cycle(list(self._recent))
        shown = " → ".join([*cycle, cycle[0]]) if cycle else "unknown"
        flag = Flag(
            kind="nonconvergence",
            message=f"greedy rewrite did not converge within {limit}; patterns kept firing: {shown}",
            cycle=cycle,
        )
        self.stopped = True
        self._emit("failure", self._take_full_delta(), name="nonconvergence", flag=flag)
        raise PipelineStopped(flag["message"])

    # -- StepRecorder ----------------------------------------------------------

    def rewriter(self, insert_point: InsertPoint) -> PatternRewriter:
        rewriter = PatternRewriter(insert_point)
        rewriter.extend_from_listener(self.listener)
        return rewriter

    def checkpoint(self, name: str) -> None:
        self._emit("checkpoint", self._take_full_delta(), name=name)

    def walker(
        self,
        pattern: RewritePattern,
        *,
        post_walk_func: PostWalk | None = None,
        walk_regions_first: bool = False,
        apply_recursively: bool = True,
        walk_reverse: bool = False,
    ) -> PatternRewriteWalker:
        return PatternRewriteWalker(
            _StepPattern(pattern, self),
            post_walk_func=self._traced_post_walk(post_walk_func),
            walk_regions_first=walk_regions_first,
            apply_recursively=apply_recursively,
            walk_reverse=walk_reverse,
            listener=self.listener,
        )

    def _traced_post_walk(self, func: PostWalk | None) -> PostWalk:
        """Wrap a walker's post-walk hook: trace it, and bound the iterations."""
        iterations = 0
        rewrites_before = self._pass_rewrites

        def post_walk(region: Region, listener: PatternRewriterListener) -> bool:
            nonlocal iterations, rewrites_before
            iterations += 1
            changed = False
            if func is not None:
                self.begin_rewrite(None)
                changed = func(region, listener)
                if changed or self._has_pending():
                    self.fired(getattr(func, "__name__", "post-walk").replace("_", "-"))
                    self.end_rewrite(full=True)
            rewrote = self._pass_rewrites > rewrites_before
            rewrites_before = self._pass_rewrites
            limit = self.options.max_iterations
            if iterations >= limit and rewrote:
                self._nonconvergence(f"{limit} iterations")
            return changed

        return post_walk

    def apply_pattern(self, pattern: RewritePattern, op: Operation, rewriter: PatternRewriter) -> None:
        # Called for every pattern tried on every op: names are made only when needed.
        self.trying = pattern
        before = rewriter.has_done_action
        pattern.match_and_rewrite(op, rewriter)
        if rewriter.has_done_action and not before and self._fired is None:
            self._fired = pattern_name(pattern)

    def not_converged(self, limit: str) -> None:
        self._nonconvergence(limit)

    def step(
        self,
        name: str,
        root: Operation | None = None,
        *,
        full: bool = False,
        chain: Sequence[Operation] | None = None,
    ) -> StepScope:
        return StepScope(self, name, root, full=full, chain=chain)

    # -- running ------------------------------------------------------------------

    def run(self, ctx: Context, passes: Sequence[ModulePass]) -> Trace:
        """Run ``passes`` on the module, recording everything; return the trace."""
        if self.trace.context_factory is None:
            self.trace.context_factory = ctx.clone  # a copy knows the same dialects
        recorded = tuple(_RecordedPass(p, self) for p in passes)
        pipeline = PassPipeline(recorded, callback=self._between_passes)
        try:
            pipeline.apply(ctx, self.module)
        except Exception as exc:
            if not self.stopped:
                self.fail(_root_cause(exc), None, None)
        self.finish()
        return self.trace

    def _between_passes(self, done: ModulePass | None, _: ModuleOp, upcoming: ModulePass | None) -> None:
        if isinstance(done, _RecordedPass):
            self.pass_end(done.inner)
        if isinstance(upcoming, _RecordedPass):
            self.pass_begin(upcoming.inner)

    def finish(self) -> None:
        """Compare the whole module once more, mark the trace as ended, close the record."""
        if not self.stopped:
            delta = self._take_full_delta()
            if delta:
                self._emit("checkpoint", delta, name=UNANNOUNCED)
        self.trace.status = "failed" if self.stopped else "ok"
        if self.writer is not None:
            self.writer.write_end(self.trace)


def _implicit_name(delta: Delta, root_id: str | None) -> str:
    """Name a rewrite that no named pattern claimed: a fold or a dead-op erasure."""
    if root_id is not None and root_id in delta.get("ops_erased", ()):
        return "fold" if delta.get("replaced") else "erase-dead-op"
    if delta.get("ops_modified") and not delta.get("ops_created"):
        return "fold-in-place"
    return "rewrite"


def _find_cycle(names: list[str]) -> list[str]:
    """The shortest period that the tail of ``names`` repeats (three times or more)."""
    for period in range(1, 17):
        if len(names) < 3 * period:
            break
        tail = names[-3 * period :]
        if all(tail[i] == tail[i % period] for i in range(len(tail))):
            return tail[:period]
    return names[-4:]


def _first_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0].strip() if lines else text


def _root_cause(exc: Exception) -> Exception:
    """xDSL wraps pattern errors in diagnostics; show the error the pass raised."""
    cause = exc.__cause__
    return cause if isinstance(cause, Exception) else exc
