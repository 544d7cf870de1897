"""What the ``TraceWidget``'s run panel runs in the kernel: one step on the CPU or on the GPU, or
a bisect, on inputs written as the command line writes them (``--arg x=1024:f32 --grid 4 --seed 0``).

Each returns a ``PanelResult``: the run records to add to the trace, the lines
``passviz run|bisect`` would print, and the step bisect found.  Errors (inputs
that do not parse, an op the interpreter lacks, pycuda or a GPU missing) are
``PanelError``s of one line.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field

from passviz.interpret.values import RunError
from passviz.ir.terminal import one_line
from passviz.pipelines import InputError
from passviz.run.bisect import INITIAL, bisect, compare, run_step
from passviz.run.gpu import gpu_missing, run_step_on_gpu
from passviz.run.gpu_compile import GpuError
from passviz.run.inputs import ArgSpec, InputSpecError, make_arguments, parse_arg, parse_grid, trace_specs
from passviz.run.launch import Argument
from passviz.run.record import bisect_records, gpu_run_record, inputs_digest, run_record
from passviz.run.report import describe_bisect, step_name, summarize
from passviz.trace.model import RunRecord, Trace

Progress = Callable[[str], None]
"""Told what the run is doing, one short line at a time."""


class PanelError(Exception):
    """Why the panel's run did not happen, in one line."""


@dataclass
class PanelResult:
    """What a panel run found."""

    records: list[RunRecord]
    """The run records to add to the trace."""
    lines: list[str] = field(default_factory=lambda: list[str]())
    """What ``passviz run`` or ``passviz bisect`` would print."""
    found: int | None = None
    """The first differing step a bisect found."""


@dataclass(frozen=True)
class PanelInputs:
    """The arguments, grid and seed the panel's text names."""

    specs: list[ArgSpec]
    grid: tuple[int, ...]
    seed: int

    def arguments(self) -> list[Argument]:
        """The kernel arguments (random buffers drawn from the seed)."""
        return make_arguments(self.specs, self.seed)

    def text(self) -> str:
        """The inputs as the panel and ``RunRecord.spec`` write them, one option a line."""
        lines = [*(f"--arg {spec}" for spec in self.specs), f"--grid {','.join(map(str, self.grid))}"]
        return "\n".join([*lines, f"--seed {self.seed}"])


def default_inputs(trace: Trace) -> PanelInputs:
    """Inputs from the kernel's signature (``trace_specs``), grid 1, seed 0."""
    try:
        specs = trace_specs(trace, "the initial IR")
    except (InputError, InputSpecError, RunError) as exc:
        raise PanelError(one_line(str(exc))) from None
    return PanelInputs(specs, (1,), 0)


def parse_inputs(text: str) -> PanelInputs:
    """Read ``--arg SPEC`` (or a bare ``name=...``), ``--grid G`` and ``--seed S``, in any layout."""
    try:
        tokens = shlex.split(text)
    except ValueError as exc:
        raise PanelError(f"inputs: {exc}") from None
    specs: list[ArgSpec] = []
    grid, seed = "1", 0
    position = 0
    try:
        while position < len(tokens):
            token = tokens[position]
            option, equals, value = token.partition("=")
            if option in ("--arg", "--grid", "--seed") and not equals:
                if position + 1 >= len(tokens):
                    raise PanelError(f"inputs: {option} needs a value")
                value = tokens[position + 1]
                position += 1
            elif not token.startswith("--"):
                option, value = "--arg", token
            position += 1
            if option == "--arg":
                specs.append(parse_arg(value))
            elif option == "--grid":
                grid = value
            elif option == "--seed":
                try:
                    seed = int(value)
                except ValueError:
                    raise PanelError(f"inputs: --seed {value!r} is not an integer") from None
            else:
                raise PanelError(f"inputs: unknown option {option!r} (--arg, --grid and --seed are known)")
        return PanelInputs(specs, parse_grid(grid), seed)
    except InputSpecError as exc:
        raise PanelError(f"inputs: {one_line(str(exc))}") from None


def _inputs(trace: Trace, text: str) -> PanelInputs:
    inputs = parse_inputs(text)
    return inputs if inputs.specs else PanelInputs(default_inputs(trace).specs, inputs.grid, inputs.seed)


def run_at(trace: Trace, step: int, text: str, progress: Progress | None = None) -> PanelResult:
    """Run the IR after ``step`` (``INITIAL``: the initial IR) and the initial IR on the same inputs,
    and judge the step against it."""
    tell = progress or _quiet
    inputs = _inputs(trace, text)
    arguments = inputs.arguments()
    try:
        tell("running the initial IR")
        reference = run_step(trace, INITIAL, arguments, inputs.grid)
        outcome = reference
        if step != INITIAL:
            tell(f"running step {step}")
            outcome = run_step(trace, step, arguments, inputs.grid)
    except RunError as exc:
        raise PanelError(one_line(f"{step_name(step)}: {exc}")) from None
    comparison = None if step == INITIAL else compare(reference, outcome)
    record = run_record(outcome, comparison, inputs_digest(arguments, inputs.grid), spec=_spec(inputs))
    lines = [f"{step_name(step)}, grid {'x'.join(map(str, inputs.grid))}: {record['verdict']}"]
    if outcome.error is not None:
        lines.append(outcome.error)
    lines += [summarize(name, data) for name, data in outcome.outputs.items()]
    return PanelResult([record], [one_line(line) for line in lines])


def run_gpu_at(trace: Trace, step: int, text: str, progress: Progress | None = None) -> PanelResult:
    """Compile the TTIR after ``step`` (``INITIAL``: the initial IR) with Triton's back end, run it on
    the GPU and on the CPU interpreter on the same inputs, and judge the GPU against the CPU."""
    tell = progress or _quiet
    if (missing := gpu_missing()) is not None:
        raise PanelError(one_line(missing))
    inputs = _inputs(trace, text)
    arguments = inputs.arguments()
    tell(f"compiling {step_name(step)} for the GPU, running it there and on the CPU")
    try:
        found = run_step_on_gpu(trace, step, arguments, inputs.grid)
    except (GpuError, RunError) as exc:
        raise PanelError(one_line(f"{step_name(step)} on the GPU: {exc}")) from None
    digest = inputs_digest(arguments, inputs.grid)
    record = gpu_run_record(step, found.gpu, found.comparison, digest, spec=_spec(inputs))
    grid = "x".join(map(str, inputs.grid))
    lines = [f"{step_name(step)} on the GPU, grid {grid}: {record['verdict']}", *found.lines]
    return PanelResult([record], [one_line(line) for line in lines])


def bisect_at(trace: Trace, text: str, progress: Progress | None = None) -> PanelResult:
    """Bisect the trace on the inputs ``text`` names."""
    tell = progress or _quiet
    inputs = _inputs(trace, text)
    arguments = inputs.arguments()
    count = [0]

    def on_run(step: int) -> None:
        count[0] += 1
        tell(f"bisect: run {count[0]}, {step_name(step)}")

    try:
        result = bisect(trace, arguments, inputs.grid, on_run=on_run)
    except RunError as exc:
        raise PanelError(one_line(str(exc))) from None
    records = bisect_records(result, inputs_digest(arguments, inputs.grid), spec=_spec(inputs))
    lines = [one_line(line) for line in describe_bisect(trace, result)]
    return PanelResult(records, lines, result.first)


def _quiet(_: str) -> None:
    """Progress told to no one."""


def _spec(inputs: PanelInputs) -> str:
    return inputs.text().replace("\n", " ")
