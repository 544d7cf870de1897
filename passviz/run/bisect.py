"""Which step changed the kernel's results: run the IR before the first step and after chosen steps.

The initial IR (before step 0) is the reference.  ``bisect`` runs the last
step first: if its outputs match, no step changed them (unless a change was
undone later; ``every=True`` runs every step to catch that).  Otherwise it
halves the range between the last step known to match and the first known to
differ, assuming that once a step breaks the kernel every later one stays
broken, until the two are neighbours: the later one is the first differing
step, and both of its sides have been run.

Outputs match when every buffer the kernel wrote holds the same elements
within a tolerance for its element type (``TOLERANCES``: a few units in the
last place of f16, bf16, f32 or f64; integers exactly; NaN matches NaN).  A run that
fails (an out-of-bounds access, a failed assert) differs from one that does
not; an op the interpreter lacks, or arguments that do not fit the kernel, stop
the search with that error, as they say nothing about the step.  IR caught
between the two steps of one inlining (a call left to a function whose body is
already moved) cannot run: the search steps around such steps, and the first
differing step is the first runnable one that differs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from passviz.interpret.values import (
    Array,
    DeclarationCallError,
    LaunchError,
    NoKernelError,
    RunError,
    RunLimits,
    UnsupportedOpError,
    describe_op,
)
from passviz.pipelines import InputError, parse_ir
from passviz.recording.replay import Replayer
from passviz.run.launch import Argument, launch
from passviz.trace.model import Step, Trace

TOLERANCES: dict[str, tuple[float, float]] = {
    "float16": (2e-3, 1e-5),
    "float32": (1e-5, 1e-7),
    "float64": (1e-12, 1e-15),
    "bf16": (1.6e-2, 1e-5),
}
"""(relative, absolute) tolerance by a buffer's numpy element type, or ``bf16`` for a float32
buffer the kernel stores bf16 into; other types compare exactly."""

INITIAL = -1
"""The step index that stands for the initial IR, before step 0."""


@dataclass(frozen=True)
class Difference:
    """One output element that differs from the reference."""

    buffer: str
    """The argument the buffer was passed as."""
    index: int
    """The element's position in the flat buffer."""
    expected: object
    """The reference's value."""
    got: object
    """The value at the step."""


@dataclass(frozen=True)
class Outcome:
    """What running the IR at one step gave."""

    step: int
    """The step (``INITIAL`` for the initial IR)."""
    outputs: dict[str, Array] = field(default_factory=lambda: dict[str, Array]())
    """The buffers the kernel wrote, when it ran to the end."""
    elements: dict[str, str] = field(default_factory=lambda: dict[str, str]())
    """The element type the kernel wrote each output as."""
    error: str | None = None
    """Why it did not, located."""
    failure: str | None = None
    """Why it did not, without the location: op numbers shift from step to step, so runs that
    fail compare by this."""
    runnable: bool = True
    """False for IR caught between the steps of one rewrite (a call left to a function whose body
    was just inlined): neither right nor wrong, the search steps around it."""


@dataclass(frozen=True)
class Comparison:
    """How one outcome differs from the reference."""

    differences: list[Difference]
    """The first differing elements (at most ``limit`` of them)."""
    count: int
    """How many elements differ in all; a changed error or a changed set of outputs counts as one."""
    max_error: float
    """The largest absolute difference between finite elements."""
    reason: str | None = None
    """What differs other than elements: an error, a missing output."""

    @property
    def same(self) -> bool:
        """Whether nothing differs."""
        return self.count == 0


@dataclass
class BisectResult:
    """The first step whose outputs differ from the reference's, and the runs that found it."""

    first: int | None
    """That step's index; None when the last step's outputs match."""
    step: Step | None
    """That step."""
    comparison: Comparison | None
    """How its outputs differ."""
    runs: dict[int, Outcome]
    """Every outcome computed, by step (``INITIAL`` included)."""
    reference: int = INITIAL
    """The step every other is compared with: the initial IR, or the first runnable step after it
    (a trace whose frontend builds the module, as Toy's MLIRGen does)."""


class StepTexts:
    """The IR text after any step, replaying the trace forward from the last step asked for when it can."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        """The trace replayed."""
        self.replayer: Replayer | None = None
        """The replayer at the last step asked for."""

    def text(self, step: int) -> str:
        """The IR after ``step`` (``INITIAL``: before the first step)."""
        if self.replayer is None or self.replayer.position > step:
            self.replayer = Replayer(self.trace)
        self.replayer.advance_to(step)
        return self.replayer.text()

    def module(self, step: int) -> ModuleOp:
        """The IR after ``step`` parsed; ``RunError`` naming the step when it does not parse."""
        initial = step == INITIAL
        text = self.text(step)
        try:
            with self.trace.syntax():
                return parse_ir(text, "initial IR" if initial else f"step {step}")
        except InputError as exc:
            what = "the initial IR" if initial else f"the IR after step {step}"
            raise RunError(f"{what} does not parse: {exc}") from None

    def op_id(self, step: int, module: ModuleOp, op: Operation) -> str | None:
        """The trace's id of ``op``, an op of ``module`` (``self.module(step)``): the id the viewer
        shows for it. None when the replayed IR and ``module`` do not walk alike."""
        self.text(step)
        assert self.replayer is not None
        ids = {id(live): op_id for op_id, live in self.replayer.ops.items()}
        walked = list(self.replayer.module.walk())
        parsed = list(module.walk())
        if len(walked) != len(parsed) or any(a.name != b.name for a, b in zip(walked, parsed, strict=True)):
            return None
        return next(
            (ids.get(id(live)) for live, other in zip(walked, parsed, strict=True) if other is op), None
        )


def run_step(
    trace: Trace,
    step: int,
    arguments: Sequence[Argument],
    grid: Sequence[int],
    texts: StepTexts | None = None,
    limits: RunLimits | None = None,
) -> Outcome:
    """Run the IR after ``step`` (``INITIAL``: before the first step) on fresh copies of ``arguments``,
    within ``limits``."""
    texts = texts or StepTexts(trace)
    module = texts.module(step)
    fresh = [(name, value.copy() if isinstance(value, np.ndarray) else value) for name, value in arguments]
    try:
        result = launch(module, fresh, grid, limits=limits)
        return Outcome(step, result.outputs, result.elements)
    except NoKernelError as exc:
        return Outcome(step, error=str(exc), runnable=False)
    except UnsupportedOpError as exc:
        if exc.op is not None and exc.op.name.startswith("llvm."):
            # Partly lowered to LLVM (chapter 6 of the Toy tutorial): past the interpreter's reach.
            return Outcome(step, error=str(exc), runnable=False)
        raise
    except LaunchError:
        raise
    except DeclarationCallError as exc:
        return Outcome(step, error=str(exc), runnable=False)
    except RunError as exc:
        if exc.op is None:
            return Outcome(step, error=str(exc), failure=f": {exc.message}")
        # Located by the op's trace id, the one the viewer shows, not by a walk index of its own.
        error = f"{describe_op(exc.op, texts.op_id(step, module, exc.op))}: {exc.message}"
        return Outcome(step, error=error, failure=f"{exc.op.name}: {exc.message}")


def compare(
    reference: Outcome, outcome: Outcome, limit: int = 10, tolerance: tuple[float, float] | None = None
) -> Comparison:
    """The elements of ``outcome``'s outputs that differ from ``reference``'s beyond the tolerance:
    ``tolerance`` (relative, absolute) for floats when given, else ``TOLERANCES``'s for their type."""
    if reference.failure != outcome.failure:
        return Comparison([], 1, float("inf"), f"the run failed: {outcome.error or reference.error}")
    if set(reference.outputs) != set(outcome.outputs):
        names = ", ".join(sorted(set(reference.outputs) ^ set(outcome.outputs)))
        return Comparison([], 1, float("inf"), f"the kernel writes a different set of buffers ({names})")
    differences: list[Difference] = []
    count = 0
    max_error = 0.0
    for name, expected in reference.outputs.items():
        got = outcome.outputs[name]
        if got.shape != expected.shape:  # a Toy print of another shape
            return Comparison([], 1, float("inf"), f"{name} has {got.size} elements, not {expected.size}")
        bad = _mismatches(expected, got, tolerance, reference.elements.get(name))
        count += int(bad.sum())
        if np.issubdtype(expected.dtype, np.number) and bad.any():
            finite = bad & np.isfinite(expected.astype(np.float64)) & np.isfinite(got.astype(np.float64))
            if finite.any():
                delta = np.abs(expected[finite].astype(np.float64) - got[finite].astype(np.float64))
                max_error = max(max_error, float(delta.max()))
        for index in np.flatnonzero(bad)[: limit - len(differences)]:
            differences.append(Difference(name, int(index), expected[index].item(), got[index].item()))
    return Comparison(differences, count, max_error)


def _mismatches(expected: Array, got: Array, given: tuple[float, float] | None, element: str | None) -> Array:
    tolerance = TOLERANCES.get("bf16" if element == "bf16" else expected.dtype.name)
    if tolerance is not None and given is not None:
        tolerance = given
    if tolerance is None:
        return expected != got
    rtol, atol = tolerance
    close = np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    return ~close


def bisect(
    trace: Trace,
    arguments: Sequence[Argument],
    grid: Sequence[int],
    every: bool = False,
    tolerance: tuple[float, float] | None = None,
    on_run: Callable[[int], None] | None = None,
    limits: RunLimits | None = None,
) -> BisectResult:
    """The first step of ``trace`` whose outputs on ``arguments`` differ from the initial IR's
    (beyond ``tolerance``, relative and absolute, for floats; see ``compare``).  ``on_run`` is
    told each step about to run (``INITIAL`` first), to show progress."""
    runs: dict[int, Outcome] = {}
    texts = StepTexts(trace)

    def outcome(step: int) -> Outcome:
        if step not in runs:
            if on_run is not None:
                on_run(step)
            runs[step] = run_step(trace, step, arguments, grid, texts, limits)
        return runs[step]

    # The reference is the first IR that runs: the initial IR, or, where a frontend builds the
    # module inside the trace (Toy's MLIRGen), the first step after it that holds a kernel.
    start = next((step for step in (INITIAL, *range(len(trace.steps))) if outcome(step).runnable), INITIAL)
    reference = outcome(start)
    if not reference.runnable:
        raise NoKernelError(f"no step of the trace runs: {reference.error}")

    def differs(step: int) -> bool:
        return not compare(reference, outcome(step), tolerance=tolerance).same

    def runnable_between(low: int, high: int) -> int | None:
        """A runnable step strictly between ``low`` and ``high``, the nearest to their middle."""
        middle = max((low + high) // 2, low + 1)
        order = [*range(middle, high), *range(middle - 1, low, -1)]
        return next((step for step in order if outcome(step).runnable), None)

    last = next((step for step in range(len(trace.steps) - 1, -1, -1) if outcome(step).runnable), None)
    if every:
        candidates = (step for step in range(len(trace.steps)) if outcome(step).runnable and differs(step))
        first = next(candidates, None)
    elif last is None or not differs(last):
        first = None
    else:
        good, bad = start, last
        while (middle := runnable_between(good, bad)) is not None:
            if differs(middle):
                bad = middle
            else:
                good = middle
        first = bad
    if first is None:
        return BisectResult(None, None, None, runs, start)
    comparison = compare(reference, outcome(first), tolerance=tolerance)
    return BisectResult(first, trace.steps[first], comparison, runs, start)
