"""The trace model: metadata, steps and the per-step IR delta.

A delta is plain JSON-shaped data (``TypedDict``s), so that what is recorded in
memory is exactly what is written to disk and read back.  Ids are stable:
``o<n>`` for operations, ``b<n>`` for blocks, ``r<n>`` for regions and
``v<n>`` for SSA values.  An id is given when an entity is first seen and kept
while it lives; it is never reused.

The model is pure data: it needs no xDSL.  What needs xDSL (replaying the trace onto live
IR for ``Trace.ir_at`` and its kin) is given to a trace by the layer that knows the dialects
(``Trace.replayer``, with ``context_factory`` and ``syntax_scope``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, NotRequired, Protocol, TypedDict

from passviz.trace.query import LineageEvent, StepFilter, lineage
from passviz.trace.summary import step_html, trace_mimebundle

if TYPE_CHECKING:
    from xdsl.context import Context

StepKind = Literal["pass-begin", "pass-end", "rewrite", "checkpoint", "failure"]
"""What a step stands for."""

STEP_KINDS: tuple[StepKind, ...] = (
    "pass-begin",
    "pass-end",
    "rewrite",
    "checkpoint",
    "failure",
)

FlagKind = Literal["exception", "verify", "nonconvergence"]
"""Why a step is flagged."""


class ValueInfo(TypedDict):
    """An SSA value: an op result or a block argument."""

    id: str
    type: str
    name: NotRequired[str]


class _OpFields(TypedDict):
    """The fields an op's record holds only where the op has them (``OpInfo``) or a step changed
    them (``OpChange``)."""

    successors: NotRequired[list[str]]
    attrs: NotRequired[dict[str, str]]
    props: NotRequired[dict[str, str]]
    regions: NotRequired[list[str]]
    loc: NotRequired[str]


class OpInfo(_OpFields):
    """Everything needed to re-create an operation that a step created."""

    id: str
    name: str
    operands: list[str]
    results: list[ValueInfo]


class OpChange(_OpFields):
    """The fields of an existing operation that a step changed (new values)."""

    id: str
    operands: NotRequired[list[str]]
    results: NotRequired[list[ValueInfo]]


class Placement(TypedDict):
    """Where an op now sits: in ``block`` right after ``after`` (None: first)."""

    id: str
    block: str
    after: str | None


class BlockInfo(TypedDict):
    """A block that a step created."""

    id: str
    args: list[ValueInfo]
    name: NotRequired[str]


class BlockSplit(TypedDict):
    """A new block that took ops from an existing block."""

    block: str
    source: str


class BlockMerge(TypedDict):
    """An erased block whose ops went into another block."""

    block: str
    into: str


class Replacement(TypedDict):
    """An op replaced through the rewriter: its results' old→new values."""

    op: str
    values: list[list[str | None]]
    by: list[str]


class Delta(TypedDict, total=False):
    """Everything one step changed.  Absent keys mean "nothing of that kind"."""

    ops_created: list[OpInfo]
    ops_erased: list[str]
    ops_modified: list[OpChange]
    ops_moved: list[str]
    placed: list[Placement]
    blocks_created: list[BlockInfo]
    blocks_erased: list[str]
    blocks_moved: list[str]
    blocks_split: list[BlockSplit]
    blocks_merged: list[BlockMerge]
    block_args: dict[str, list[ValueInfo]]
    block_names: dict[str, str | None]
    args_added: list[str]
    args_removed: list[str]
    region_blocks: dict[str, list[str]]
    replaced: list[Replacement]
    texts: dict[str, str]


class InitialState(TypedDict):
    """The initial module as a delta that creates it from nothing.

    ``delta`` creates every block (``blocks_created``) and every op, the
    module included (``ops_created``), fills every region (``region_blocks``),
    places every op but the module (``placed``) and gives every op its text
    (``texts``).  Applied to an empty IR, it yields the IR before the first
    step with the ids the recorder gave, without parsing MLIR.
    """

    root: str
    """The id of the top-level op (the module), the one op ``delta`` does not place."""
    delta: Delta


class Flag(TypedDict):
    """Why a step is marked: an exception, a verifier error, a rewrite loop."""

    kind: FlagKind
    message: str
    detail: NotRequired[str]
    cycle: NotRequired[list[str]]


Verdict = Literal["same", "differs", "error"]
"""A run against its reference: the same within tolerance, different, or not comparable."""

VERDICTS: tuple[Verdict, ...] = ("same", "differs", "error")
"""Every ``Verdict``, for checking a run record's."""


class RunDifference(TypedDict):
    """One output element a run got differently from the reference."""

    buffer: str
    index: int
    expected: float | int | bool | str
    """The reference's value; ``nan``, ``inf`` and ``-inf`` are strings (JSON has no such numbers)."""
    got: float | int | bool | str


class RunRecord(TypedDict):
    """One execution of the kernel at a step, compared with the initial IR's run on the same inputs.

    Run records follow the end record of a trace file (``passviz run --record``,
    ``passviz bisect --record`` append them), so a file cut anywhere still
    opens with its completed steps.  A GPU run fills ``device``, ``time_ms`` and ``gbps``.
    """

    record: Literal["run"]
    step: int
    """The step whose IR ran; -1 is the initial IR."""
    backend: Literal["cpu", "gpu"]
    inputs: str
    """A digest of the arguments and the grid."""
    verdict: Verdict
    origin: NotRequired[Literal["run", "bisect"]]
    first: NotRequired[bool]
    """True on the first differing step a bisect found."""
    reference: NotRequired[Literal["initial", "cpu"]]
    """What the verdict compares with: the initial IR's run (absent means this), or the CPU
    interpreter's run of the same step (a GPU run)."""
    spec: NotRequired[str]
    """The inputs as ``--arg`` specs, grid and seed."""
    outputs: NotRequired[str]
    """A digest of the buffers written; absent when the run failed."""
    max_error: NotRequired[float]
    count: NotRequired[int]
    differences: NotRequired[list[RunDifference]]
    device: NotRequired[str]
    time_ms: NotRequired[float]
    gbps: NotRequired[float]
    message: NotRequired[str]


class DispatchVocabulary(TypedDict):
    """The ops that play each part of a dispatch graph (what IREE's ``--iree-flow-dump-dispatch-graph``
    draws), as the family that defines one names them (``passviz.compilers.family.DispatchHints``)."""

    dispatch_ops: list[str]
    """The ops that are one dispatch each (a region, its workgroups, an outlined call)."""
    function_ops: list[str]
    """The functions at the top of the module whose bodies the graph draws."""
    return_ops: list[str]
    """Their returns."""
    plumbing_ops: list[str]
    """Ops in a dispatch that move its tensors in and out rather than compute: no member of it."""
    container_ops: list[str]
    """Ops besides functions whose bodies a dispatch's or executable's members are looked for in."""
    executable_op: str
    """The op an outlined dispatch calls."""
    call_op: str
    """The outlined dispatch, calling an executable."""
    entry_points: str
    """The call's attribute naming what it calls (``@executable::@entry``)."""


class ImportInfo(TypedDict):
    """Where an imported trace's IR came from: a compiler's IR-printing output."""

    dump: str
    """The dump file (or ``--mlir-print-ir-tree-dir`` folder) the trace was read from."""
    printing: str
    """What the dump printed around each pass: ``before``, ``after`` or ``after+before``."""
    notes: NotRequired[list[str]]
    """What the dump lacks or what was left out (the IR after the last pass of a
    ``MLIR_ENABLE_DUMP`` dump, which prints the module before each pass)."""
    outputs: NotRequired[list[StageOutput]]
    """What the compile made after its MLIR passes, stage by stage (``passviz triton``: LLVM IR,
    PTX, SASS), in the order it made them; with ``--llvm-passes``, LLVM's IR after each of its own
    passes too (``llvm: PASS``), between them."""
    kernel: NotRequired[CompiledKernel]
    """The GPU binary the compile built and how Triton launches it (``passviz triton``), so that
    ``passviz run --gpu`` runs exactly that."""


class StageOutput(TypedDict):
    """A compile stage's output that is text but no MLIR (LLVM IR, PTX, SASS)."""

    stage: str
    """The stage as the compiler names it (``llir``, ``ptx``, ``sass``)."""
    text: str
    """Its output, as the compiler wrote it."""


class CompiledKernel(TypedDict):
    """A compile's GPU binary and its launch metadata, as Triton gives them (``compiled.asm["cubin"]``,
    ``compiled.metadata``)."""

    name: str
    """The kernel's symbol in the binary."""
    target: str
    """The GPU it was built for (``cuda:90``)."""
    binary: str
    """The binary (a cubin), base64."""
    signature: dict[str, str]
    """Each argument the launch passes, in order, and its Triton type (``*fp32``, ``i32``): the
    constexprs are compiled in."""
    num_warps: int
    num_ctas: int
    shared: int
    """Dynamic shared memory per program, in bytes."""
    global_scratch_size: int
    global_scratch_align: int
    profile_scratch_size: int
    profile_scratch_align: int
    cooperative: bool
    """Whether the launch must be cooperative."""
    pdl: bool
    """Whether the launch uses programmatic dependent launch."""
    triton_version: str


class TraceMeta(TypedDict):
    """Where a trace came from."""

    input: str
    pipeline: str
    passviz_version: str
    xdsl_version: str
    verify_each: str
    syntax: NotRequired[dict[str, str]]
    """The syntax versions the IR texts are written in (``{"triton": "3.9"}``): a trace reads
    the same whatever is installed where it is read."""
    aliases: NotRequired[dict[str, str]]
    """The attributes printed by alias: how each one's text begins, and its alias
    (``passviz.compilers.registry.ALIASED_ATTRIBUTES``), so that the viewer aliases what the CLI does."""
    dispatch: NotRequired[DispatchVocabulary]
    """The ops a dispatch graph is drawn from (``passviz.compilers.registry.recorded_dispatch``); a
    trace without it has no dispatch graph."""
    imported: NotRequired[ImportInfo]
    """Set when the trace was imported from a compiler's IR dump (``passviz import``), not recorded:
    its op texts are the dump's, read without dialects, so it replays as data (no xDSL)."""


@dataclass
class Step:
    """One recorded step of a pipeline run."""

    index: int
    """Position of the step in the trace, from 0."""
    kind: StepKind
    """What the step stands for."""
    pass_name: str | None = None
    """The pass the step belongs to."""
    pass_index: int | None = None
    """Position of that pass in the pipeline, from 0."""
    name: str | None = None
    """Pattern name for rewrites, sub-step name for checkpoints."""
    root: str | None = None
    """The op a rewrite matched, or the op a failure happened on."""
    delta: Delta = field(default_factory=lambda: Delta())
    """What the step changed."""
    flag: Flag | None = None
    """Set when the step failed or left invalid IR."""
    chain: list[str] | None = None
    """The pointer offset chain the step folded: op ids from the base pointer to the access."""
    dispatch: list[list[str]] | None = None
    """The dispatch regions after the step: each region op's id, then its member ops' ids."""

    def count(self, key: Literal["ops_created", "ops_erased", "ops_modified", "ops_moved"]) -> int:
        """How many entries the delta has under ``key``."""
        return len(self.delta.get(key, ()))

    @property
    def changed(self) -> bool:
        """True if the step changed the IR at all."""
        return any(self.delta.get(k) for k in _CHANGE_KEYS)

    def _repr_html_(self) -> str:
        return step_html(self)


_CHANGE_KEYS = (
    "ops_created",
    "ops_erased",
    "ops_modified",
    "placed",
    "blocks_created",
    "blocks_erased",
    "block_args",
    "block_names",
    "region_blocks",
)

TraceStatus = Literal["ok", "failed", "incomplete"]


class ReplayError(ValueError):
    """A trace that cannot be replayed: a delta that does not apply to the IR it claims to
    follow, an initial IR that cannot be built, or no replayer to do it."""


class Replaying(Protocol):
    """What replays a trace onto live IR (``passviz.recording.replay.Replayer``): it starts at
    the initial IR and only moves forward."""

    def advance_to(self, index: int) -> None:
        """Apply steps until ``index`` is the last applied one (-1: none)."""
        ...

    def text(self) -> str:
        """The IR at the current position, as passviz prints it."""
        ...


@dataclass
class Trace:
    """A recorded pipeline run: the initial IR and every step after it."""

    meta: TraceMeta
    """Input, pipeline and versions."""
    initial_ir: str | None = None
    """The IR before the first step as MLIR text, where there is one: the text a
    recorded module was parsed from, or what a version 1 trace file stored.
    Version 2 files do not store it (``initial`` says the same)."""
    initial: InitialState | None = None
    """The IR before the first step as a delta: what viewers and replay start from.

    Version 1 files may lack it; ``passviz.load_trace`` computes it by replay
    (``passviz.recording.initial.ensure_initial``)."""
    sources: dict[str, str] = field(default_factory=lambda: dict[str, str]())
    """The source files the IR's locations name, by file name, as read at record time."""
    steps: list[Step] = field(default_factory=lambda: list[Step]())
    """The recorded steps, in order."""
    runs: list[RunRecord] = field(default_factory=lambda: list[RunRecord]())
    """Kernel runs recorded after the steps (``passviz run|bisect --record``, the run panel), in order."""
    status: TraceStatus = "incomplete"
    """``ok`` or ``failed`` once the run ended; ``incomplete`` if it was cut off."""
    warnings: list[str] = field(default_factory=lambda: list[str]())
    """Problems met while reading the trace (truncation, for instance)."""
    context_factory: Callable[[], Context] | None = field(default=None, repr=False)
    """Makes the xDSL context that parses the IR; needed for replay."""
    syntax_scope: Callable[[], AbstractContextManager[object]] | None = field(default=None, repr=False)
    """Enters the syntax the IR texts are written in (``meta["syntax"]``) while replay parses and
    prints them; set with ``context_factory`` by the layer that knows the dialects."""
    replayer: Callable[[Trace], Replaying] | None = field(default=None, repr=False, compare=False)
    """Makes what replays the trace onto live IR, for ``ir_at``, ``ir_around`` and ``ir_before``;
    set with ``context_factory`` by the layer that replays (``passviz.load_trace``,
    ``passviz.record``).  Without it those raise ``ReplayError``."""
    source: str | None = field(default=None, repr=False, compare=False)
    """The file the trace was read from, for errors about its contents to name."""
    record_lines: list[int] = field(default_factory=lambda: list[int](), repr=False, compare=False)
    """The line of the file each record was read from: the header's, then each step's."""

    def __len__(self) -> int:
        return len(self.steps)

    def syntax(self) -> AbstractContextManager[object]:
        """The syntax the trace's IR texts are written in, entered: parse and print them inside it
        (nothing to enter for a trace that no dialect-aware layer made readable)."""
        return self.syntax_scope() if self.syntax_scope is not None else nullcontext()

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def where(self, step: int | None = None) -> str:
        """``PATH:LINE: ``, the record of ``step`` (None: the header) in the file the trace
        was read from, as an error about it begins; "" for a trace not read from a file."""
        index = 0 if step is None else step + 1
        if self.source is None or index >= len(self.record_lines):
            return ""
        return f"{self.source}:{self.record_lines[index]}: "

    def normalize_step(self, step: int) -> int:
        """Turn a possibly negative step number into an index, or raise IndexError."""
        count = len(self.steps)
        index = step + count if step < 0 else step
        if not 0 <= index < count:
            raise IndexError(f"step {step} is out of range: the trace has {count} steps")
        return index

    def replay(self) -> Replaying:
        """A new replayer of this trace, at its initial IR."""
        if self.replayer is None:
            raise ReplayError(
                "this trace cannot be replayed here: open it with passviz.load_trace() "
                "(or record it with passviz.record()) so that its dialects are known"
            )
        return self.replayer(self)

    def ir_at(self, step: int) -> str:
        """The exact IR text after ``step`` (negative counts from the end)."""
        index = self.normalize_step(step) if self.steps else -1
        replayer = self.replay()
        replayer.advance_to(index)
        return replayer.text()

    def ir_around(self, step: int) -> tuple[str, str]:
        """The IR just before and just after ``step``, replaying the trace once."""
        index = self.normalize_step(step)
        replayer = self.replay()
        replayer.advance_to(index - 1)
        before = replayer.text()
        replayer.advance_to(index)
        return before, replayer.text()

    def ir_before(self, step: int) -> str:
        """The IR just before ``step``: the initial IR, as passviz prints it, for step 0."""
        index = self.normalize_step(step)
        replayer = self.replay()
        replayer.advance_to(index - 1)
        return replayer.text()

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, Any]:
        """The trace's MIME type, a static HTML summary and plain text.

        In a kernel, importing passviz registers a richer display (the
        Stepper widget); this is what shows everywhere else.
        """
        return trace_mimebundle(self)

    def lineage(self, op_id: str) -> list[LineageEvent]:
        """The steps that created, changed, replaced or erased ``op_id``, following replace links."""
        return lineage(self.steps, op_id)

    def filter_steps(self, step_filter: StepFilter) -> list[Step]:
        """The steps ``step_filter`` keeps, in order."""
        return step_filter.apply(self.steps)

    @property
    def failed_steps(self) -> list[Step]:
        """The steps that carry a flag."""
        return [s for s in self.steps if s.flag is not None]
