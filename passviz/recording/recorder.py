"""The recorder: turns a pipeline run into a trace, step by step.

Its parts, by job: ``interface`` (what a pass may ask of it), ``limits`` (time, iterations,
rewrites), ``failures`` (the flags of failed steps), ``shadow`` (what changed at each step
boundary), ``observation`` (xDSL's own rewrite machinery, for passes that do not drive the
tracer) and, here, the ``Tracer``, which opens, closes and writes the steps.

A ``Tracer`` is an explicit object: passes receive it through ``TracedPass.run``
and drive their rewrites through what it hands out (a rewriter, a pattern
walker), so every mutation reaches its listener.  At each step boundary the
tracer reconciles the live IR against its ``Shadow``; that is what also
catches edits made directly, without the rewriter.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import ClassVar, Literal

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass, PassPipeline
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriterListener,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint

from passviz.ir.printer import print_module
from passviz.ir.rewrite_hooks import observing
from passviz.ir.verify import IncrementalVerifier
from passviz.recording.failures import corruption_flag, exception_flag, root_cause, verify_flag
from passviz.recording.initial import initial_state
from passviz.recording.interface import (
    PASSING_THROUGH,
    DispatchRegions,
    PassTimeout,
    PipelineStopped,
    PostWalk,
    StepRecorder,
    StepScope,
    StepSink,
    TracedPass,
    pattern_name,
)
from passviz.recording.limits import DEFAULT_MAX_ITERATIONS, nonconvergence_message, pass_time_limit, seconds
from passviz.recording.observation import RewriteObservation, StepPattern
from passviz.recording.replay import Replayer
from passviz.recording.shadow import PendingReplacement, ReconcileError, Removal, Shadow
from passviz.trace.model import Delta, Flag, InitialState, Step, StepKind, Trace, TraceMeta
from passviz.trace.sources import SourcePolicy, read_sources
from passviz.trace.store import TraceWriter

VerifyEach = Literal["off", "pass", "rewrite"]
"""When the verifier runs: never, after every pass, or after every rewrite."""


UNANNOUNCED = "edits not announced to the rewriter"
"""Name of the checkpoint holding edits a traced pass made behind the rewriter's back."""


@dataclass(frozen=True)
class RecordOptions:
    """How a run is recorded."""

    verify_each: VerifyEach = "pass"
    """When the verifier runs: never, after every pass, or after every rewrite."""
    check: bool = False
    """Check mode: also print the live IR after every step (``Tracer.snapshots``)."""
    max_iterations: int | None = None
    """Greedy rewrite iterations before a pass counts as not converging, for
    every driver: xDSL's walker and passviz's greedy driver (default: each
    driver's own, 10 for both)."""
    max_rewrites: int | None = None
    """Rewrites per pass before it counts as not converging (default: 50 per op)."""
    timeout: float | None = None
    """Seconds a pass may run before it is stopped and flagged (default: no limit)."""
    exact: bool = False
    """Compare the whole module at every step, so that even edits a pattern
    hides from the rewriter land in the step that made them (slower)."""
    embed_sources: bool = True
    """Embed the source files the IR's locations name (a Triton kernel's Python), for the viewer:
    only source files under the input's folder, the current directory or ``source_dirs``
    (``passviz.trace.sources`` says which)."""
    source_dirs: tuple[str, ...] = ()
    """More folders whose source files the trace may embed (``--sources DIR``)."""


@dataclass(frozen=True)
class _RecordedPass(ModulePass):
    """Wraps a pass of the pipeline so that it runs under the tracer.

    A ``TracedPass`` drives its rewrites through the tracer; any other pass
    runs with xDSL's rewrite machinery hooked (``passviz.ir.rewrite_hooks``),
    so that its pattern applications are steps too."""

    name: ClassVar[str] = "passviz-recorded"
    inner: ModulePass
    tracer: Tracer

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with self.tracer.time_limit():
            if isinstance(self.inner, TracedPass):
                self.inner.run(ctx, op, self.tracer)
                return
            with observing(self.tracer):
                try:
                    self.inner.apply(ctx, op)
                finally:
                    self.tracer.observation.close_direct_step()


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
            sources=_embedded_sources(initial, meta["input"], options),
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
        self._dispatch: DispatchRegions | None = None
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
        self.applying = 0
        """How many pattern applications or hand-written steps are running now."""
        self.observation = RewriteObservation(self)
        """What xDSL's hooked rewrite machinery reports to while a plain pass runs."""
        # The tracer is the observer a plain pass runs under (``passviz.ir.rewrite_hooks``;
        # passviz's greedy driver finds its recorder so): ``observation`` does the observing.
        self.rewrite_region = self.observation.rewrite_region
        self.apply_patterns = self.observation.apply_patterns
        self.rewriter_created = self.observation.rewriter_created
        self.direct_edit = self.observation.direct_edit
        self._deadline: float | None = None
        self._pass_started = 0.0
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
        dispatch: list[list[str]] | None = None,
    ) -> Step:
        if self.shadow.problems:
            flag = corruption_flag(self.shadow.problems, name, flag)
            self.shadow.problems.clear()
            self.stopped = True
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
            dispatch=dispatch,
        )
        self.trace.steps.append(step)
        if self.writer is not None:
            self.writer.write_step(step)
        if self.options.check:
            self.snapshots.append(print_module(self.module))
        return step

    def _verify_flag(self) -> Flag | None:
        return verify_flag(self.verifier)

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
        self._pass_started = time.monotonic()
        timeout = self.options.timeout
        self._deadline = self._pass_started + timeout if timeout is not None else None
        step = self._emit("pass-begin", self._take_scoped_delta(), name=type(pass_).__name__)
        self._stop_on(step)

    def pass_end(self, pass_: ModulePass) -> None:
        """Close a pass: direct edits not yet attributed land here.

        A traced pass announces its edits step by step; whatever the final
        comparison still finds was hidden from the rewriter, and gets a
        checkpoint of its own so that it stands out.
        """
        self._deadline = None
        trusted = isinstance(pass_, TracedPass) and pass_.announces_every_edit
        delta = self._take_scoped_delta() if trusted else self._take_full_delta()
        if delta and isinstance(pass_, TracedPass):
            self._stop_on(self._emit("checkpoint", delta, name=UNANNOUNCED))
            delta = Delta()
        flag = None if self.shadow.problems or self.options.verify_each == "off" else self._verify_flag()
        step = self._emit("pass-end", delta, name=type(pass_).__name__, flag=flag)
        self._stop_on(step)

    def begin_rewrite(
        self,
        root: Operation | None,
        *,
        chain: Sequence[Operation] | None = None,
        dispatch: DispatchRegions | None = None,
    ) -> None:
        """Open a rewrite step on ``root`` (None for rewrites with no single root).

        ``chain`` (the pointer chain a step folds) is resolved to op ids now,
        while all of its ops still live.
        """
        self._check_time()
        if self._has_pending():
            self._stop_on(self._emit("checkpoint", self._take_scoped_delta(), name="direct edits"))
        self._root = root  # its id is looked up only if the rewrite happens
        self._chain = None if chain is None else self._ids(chain)
        self._dispatch = dispatch
        self._fired = None
        self.trying = None

    def fired(self, name: str) -> None:
        """Name the rewrite in progress."""
        if self._fired is None:
            self._fired = name

    def end_rewrite(self, *, full: bool = False, if_changed: bool = False) -> None:
        """Close the rewrite step opened by ``begin_rewrite``.

        ``full`` compares the whole module, for rewrites that touch a whole
        region without announcing each change (xDSL's ``region_dce``).
        ``if_changed`` records nothing if the IR turns out unchanged.
        """
        root = self._root
        root_id = self.shadow.id_of(root) if root is not None else None
        if full or self.observation.unannounced:
            delta = self._take_full_delta()
        else:
            delta = self._take_scoped_delta([root] if root is not None else [])
        self.observation.unannounced = False
        if if_changed and not delta and not self.shadow.problems:
            return
        name = self._fired or _implicit_name(delta, root_id)
        verify = self.options.verify_each == "rewrite" and not self.shadow.problems
        flag = self._verify_flag() if verify else None
        self._pass_rewrites += 1
        self._recent.append(name)
        chain, self._chain = self._chain, None
        regions, self._dispatch = self._dispatch, None
        dispatch = None if regions is None else self._dispatch_ids(regions())
        step = self._emit(
            "rewrite", delta, name=name, root=root_id, flag=flag, chain=chain, dispatch=dispatch
        )
        self._stop_on(step)
        if self._pass_rewrites > self._rewrite_limit:
            self._nonconvergence(f"{self._rewrite_limit} rewrites")
        self._check_time()

    def _dispatch_ids(self, regions: Sequence[Sequence[Operation]]) -> list[list[str]]:
        """Each dispatch region's op ids (the region op, then its members); regions with none are left out."""
        return [ids for ops in regions if (ids := self._ids(ops))]

    def _ids(self, ops: Sequence[Operation]) -> list[str]:
        """The ids of ``ops`` in order; ops without one are left out."""
        return [i for op in ops if (i := self.shadow.id_of(op)) is not None]

    def _check_time(self) -> None:
        if self._deadline is not None and time.monotonic() > self._deadline:
            self._deadline = None
            self._nonconvergence(f"the {seconds(self.options.timeout)} timeout", rewrites=False)

    def time_limit(self) -> AbstractContextManager[None]:
        """Bound the pass run inside by ``RecordOptions.timeout`` (``limits.pass_time_limit``)."""
        return pass_time_limit(self.options.timeout)

    def fail(self, exc: BaseException, root: Operation | None, name: str | None) -> None:
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
        flag = exception_flag(exc, name)
        self.stopped = True
        self.observation.direct = None
        self._emit("failure", delta, name=name, root=root_id, flag=flag)

    def _nonconvergence(self, limit: str, *, rewrites: bool = True) -> None:
        """Stop the pass: it hit ``limit``; the step names the patterns that kept firing."""
        running = pattern_name(self.trying) if self.trying is not None else None
        message, cycle = nonconvergence_message(
            limit, list(self._recent), rewrites=rewrites, running=running, done=self._pass_rewrites
        )
        flag = Flag(kind="nonconvergence", message=message, cycle=cycle)
        self.stopped = True
        self.observation.direct = None
        try:
            delta = self._take_full_delta()
        except ReconcileError:
            self._clear_pending()
            delta = Delta()
        self._emit("failure", delta, name="nonconvergence", flag=flag)
        raise PipelineStopped(flag["message"])

    # -- StepRecorder ----------------------------------------------------------

    def rewriter(self, insert_point: InsertPoint) -> PatternRewriter:
        rewriter = self.observation.new_rewriter(insert_point)
        rewriter.extend_from_listener(self.listener)
        return rewriter

    def checkpoint(self, name: str) -> None:
        self._stop_on(self._emit("checkpoint", self._take_full_delta(), name=name))

    def iteration_limit(self, default: int) -> int:
        return self.options.max_iterations or default

    def observed_pattern(self, pattern: RewritePattern) -> RewritePattern:
        return StepPattern(pattern, self)

    def walk_listener(self) -> PatternRewriterListener:
        return self.listener

    def traced_post_walk(self, func: PostWalk | None) -> PostWalk:
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
            limit = self.iteration_limit(DEFAULT_MAX_ITERATIONS)
            if iterations >= limit and rewrote:
                self._nonconvergence(f"{limit} iterations")
            return changed

        return post_walk

    def apply_pattern(self, pattern: RewritePattern, op: Operation, rewriter: PatternRewriter) -> None:
        # Called for every pattern tried on every op: names are made only when needed.
        self.trying = pattern
        if self._deadline is not None:
            self._check_time()
        before = rewriter.has_done_action
        pattern.match_and_rewrite(op, rewriter)
        if rewriter.has_done_action and not before and self._fired is None:
            self._fired = pattern_name(pattern)

    def not_converged(self, limit: str) -> None:
        self._nonconvergence(limit)

    def step_sink(self) -> StepSink:
        return self

    def enter_step(self, scope: StepScope) -> None:
        self.begin_rewrite(scope.root, chain=scope.chain, dispatch=scope.dispatch)
        self.applying += 1

    def exit_step(self, scope: StepScope, exc: BaseException | None) -> None:
        self.applying -= 1
        if exc is not None and not isinstance(exc, PASSING_THROUGH):
            self.fail(exc, scope.root, scope.name)
            return
        if exc is None and not scope.cancelled:
            self.fired(scope.name)
            self.end_rewrite(full=scope.full)

    # -- running ------------------------------------------------------------------

    def run(self, ctx: Context, passes: Sequence[ModulePass]) -> Trace:
        """Run ``passes`` on the module, recording everything; return the trace.

        A ``KeyboardInterrupt`` is recorded as a flagged step, the trace is
        closed, and the interrupt raised again; any other exception, or a
        ``SystemExit`` from a pass, is a flagged step and ends the run."""
        if self.trace.context_factory is None:
            self.trace.context_factory = ctx.clone  # a copy knows the same dialects
        if self.trace.replayer is None:
            self.trace.replayer = Replayer
        recorded = tuple(_RecordedPass(p, self) for p in passes)
        pipeline = PassPipeline(recorded, callback=self._between_passes)
        interrupted: KeyboardInterrupt | None = None
        try:
            pipeline.apply(ctx, self.module)
        except PassTimeout:
            if not self.stopped:
                try:
                    self._nonconvergence(f"the {seconds(self.options.timeout)} timeout", rewrites=False)
                except PipelineStopped:
                    pass
        except KeyboardInterrupt as exc:
            interrupted = exc
            if not self.stopped:
                self.fail(exc, None, pattern_name(self.trying) if self.trying is not None else None)
        except BaseException as exc:  # SystemExit from a pass, too: recorded, not a silent exit
            if not self.stopped:
                self.fail(root_cause(exc), None, None)
        self.finish()
        if interrupted is not None:
            raise interrupted
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


def _embedded_sources(initial: InitialState, input_name: str, options: RecordOptions) -> dict[str, str]:
    """The source files the trace carries: those the policy for ``input_name`` admits, if any."""
    if not options.embed_sources:
        return {}
    return read_sources(initial, SourcePolicy.for_input(input_name, options.source_dirs))


def _implicit_name(delta: Delta, root_id: str | None) -> str:
    """Name a rewrite that no named pattern claimed: a fold or a dead-op erasure."""
    if root_id is not None and root_id in delta.get("ops_erased", ()):
        return "fold" if delta.get("replaced") else "erase-dead-op"
    if delta.get("ops_modified") and not delta.get("ops_created"):
        return "fold-in-place"
    return "rewrite"
