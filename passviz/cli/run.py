"""``passviz run`` and ``passviz bisect``: the IR at a step, run on the CPU (and the GPU).

``passviz.run`` is imported where it is used: it loads xDSL's interpreters and numpy, more than
half a second that every other command would pay."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from passviz.cli.common import CliError, load, run_line
from passviz.cli.run_inputs import run_inputs
from passviz.cli.run_kept import run_imported
from passviz.ir.terminal import one_line
from passviz.trace.model import RunRecord, Trace

if TYPE_CHECKING:
    from passviz.cli.common import Subparsers
    from passviz.interpret.values import RunLimits
    from passviz.run.bisect import Outcome
    from passviz.run.launch import Argument


def add_parsers(sub: Subparsers) -> None:
    """``run`` and ``bisect``: the IR at a step, run on the CPU."""
    run = sub.add_parser(
        "run", help="run the kernel at a step on the CPU and summarize the buffers it writes"
    )
    bisect = sub.add_parser(
        "bisect", help="find the first step whose kernel outputs differ from the initial IR's"
    )
    for command in (run, bisect):
        command.add_argument("trace")
        command.add_argument("--grid", help="programs along each axis: 4, or 4,2 (default 1)")
        command.add_argument(
            "--arg",
            action="append",
            default=[],
            metavar="SPEC",
            help="the next kernel argument, in the kernel's order: name=shape:dtype[:random|zeros|arange] "
            "or name=file.npy for a pointer (e.g. x=1024:f32), name=number for a scalar "
            "(default: made from the kernel's signature, and printed)",
        )
        command.add_argument("--seed", type=int, help="the seed of the random buffers (default 0)")
        command.add_argument(
            "--inputs",
            metavar="FILE.json",
            help='arguments, grid and seed from a file: {"args": ["x=1024:f32", "n=1024"], "grid": [4], '
            '"seed": 0}; --arg, --grid and --seed override it',
        )
    run.add_argument(
        "--step", default="-1", help="step index (negative counts from the end), or 'initial' (default -1)"
    )
    run.add_argument(
        "--save",
        metavar="OUT.npz",
        help="also save the written buffers (the GPU's with --gpu), by argument name",
    )
    run.add_argument(
        "--gpu",
        action="store_true",
        help="also compile the TTIR at the step with Triton's back end and run the cubin on the GPU "
        "(pycuda, in a child process): compared with the CPU interpreter, timed",
    )
    run.add_argument("--num-warps", type=int, default=4, help="warps per program on the GPU (default 4)")
    for command in (run, bisect):
        # The defaults are passviz.interpret.values' (spelled out: importing passviz.run here would load
        # numpy and the interpreters for every command; tests/test_run.py checks they agree).
        command.add_argument(
            "--timeout",
            type=float,
            default=None,
            metavar="SECONDS",
            help="seconds each run on the CPU (and the GPU launch, with --gpu) may take before it "
            "is stopped and flagged (default 60)",
        )
        command.add_argument(
            "--max-ops",
            type=int,
            default=None,
            metavar="N",
            help="ops each run on the CPU may interpret before it is stopped (default 50,000,000)",
        )
    for command, tolerance_help in (
        (run, "with --gpu: relative and absolute tolerance of float outputs (default: bisect's, by type)"),
        (bisect, "relative and absolute tolerance of float outputs (default: by type, a few ulps)"),
    ):
        command.add_argument(
            "--tolerance", nargs=2, type=float, metavar=("RTOL", "ATOL"), help=tolerance_help
        )
        command.add_argument(
            "--record",
            action="store_true",
            help="append the runs to the trace as run records (run compares the step with the initial IR)",
        )
    bisect.add_argument(
        "--every",
        action="store_true",
        help="run every step, not a binary search (finds a change undone later)",
    )


def _run_inputs(args: argparse.Namespace, trace: Trace) -> tuple[list[Argument], tuple[int, ...]]:
    def from_signature() -> list[str]:
        # passviz.run is imported where it is used: it loads xDSL's interpreters and
        # numpy, more than half a second that every other command would pay.
        from passviz.run.inputs import trace_specs

        return [str(spec) for spec in trace_specs(trace, args.trace)]

    return run_inputs(args, from_signature)


def _cmd_run(args: argparse.Namespace) -> int:
    from passviz.interpret.values import RunError
    from passviz.run.bisect import INITIAL, run_step
    from passviz.run.report import save_outputs, step_name, summarize

    trace = load(args.trace)
    if "imported" in trace.meta:
        # An imported trace's IR is the dump's text, read without dialects: run launches a kept cubin.
        return run_imported(args, trace)
    # The step is checked before the inputs, which may print what they derived.
    if args.step == "initial":
        step = INITIAL
    else:
        try:
            step = trace.normalize_step(int(args.step)) if trace.steps else INITIAL
        except ValueError:
            raise CliError(f"--step {args.step}: expected a step index or 'initial'") from None
        except IndexError as exc:
            raise CliError(f"--step {args.step}: {exc}") from None
    limits = _limits(args)
    arguments, grid = _run_inputs(args, trace)
    if args.gpu:
        return _run_gpu(args, trace, step, arguments, grid, limits)
    try:
        outcome = run_step(trace, step, arguments, grid, limits=limits)
    except RunError as exc:
        raise CliError(f"{step_name(step)}: {exc}") from None
    if outcome.error is not None:
        raise CliError(f"{step_name(step)}: {outcome.error}")
    written = len(outcome.outputs)
    print(
        f"{step_name(step)}, grid {'x'.join(map(str, grid))}: {written} buffer{'s' * (written != 1)} written"
    )
    for name, data in outcome.outputs.items():
        print(one_line(summarize(name, data)))
    if args.save is not None:
        save_outputs(args.save, outcome.outputs)
        print(f"saved to {args.save}")
    if args.record:
        _record_run(args, trace, outcome, arguments, grid, limits)
    return 0


def _limits(args: argparse.Namespace) -> RunLimits:
    """``--timeout`` and ``--max-ops`` as the CPU interpreter's limits."""
    from passviz.interpret.values import DEFAULT_MAX_OPS, DEFAULT_TIMEOUT, RunLimits

    timeout = DEFAULT_TIMEOUT if args.timeout is None else args.timeout
    max_ops = DEFAULT_MAX_OPS if args.max_ops is None else args.max_ops
    if timeout <= 0 or max_ops <= 0:
        raise CliError("--timeout and --max-ops take a positive number")
    return RunLimits(timeout=timeout, max_ops=max_ops)


def _record_run(
    args: argparse.Namespace,
    trace: Trace,
    outcome: Outcome,
    arguments: list[Argument],
    grid: tuple[int, ...],
    limits: RunLimits,
) -> None:
    """``run --record``: compare the step's outcome with the initial IR's and append the run record."""
    from passviz.run.bisect import INITIAL, compare, run_step
    from passviz.run.record import inputs_digest, run_record

    comparison = None
    if outcome.step != INITIAL:
        comparison = compare(run_step(trace, INITIAL, arguments, grid, limits=limits), outcome)
    _append_run(
        args.trace, run_record(outcome, comparison, inputs_digest(arguments, grid), spec=args.spec_text)
    )


def _append_run(path: str, record: RunRecord) -> None:
    """``--record``: append one run record to the trace at ``path`` and say so."""
    from passviz.trace.store import append_runs

    append_runs(path, [record])
    print(one_line(f"recorded: {run_line(record)}"))


def _run_gpu(
    args: argparse.Namespace,
    trace: Trace,
    step: int,
    arguments: list[Argument],
    grid: tuple[int, ...],
    limits: RunLimits,
) -> int:
    """``passviz run --gpu``: the TTIR at ``step`` compiled by Triton, run on the GPU and on the CPU."""
    from passviz.interpret.values import DEFAULT_TIMEOUT
    from passviz.run.gpu import run_step_on_gpu
    from passviz.run.gpu_compile import GpuError
    from passviz.run.report import save_outputs

    try:
        found = run_step_on_gpu(
            trace,
            step,
            arguments,
            grid,
            num_warps=args.num_warps,
            timeout=limits.timeout or DEFAULT_TIMEOUT,
            tolerance=args.tolerance,
        )
    except GpuError as exc:
        raise CliError(f"--gpu: {exc}") from None
    for line in found.lines:
        print(one_line(line))
    if args.save is not None and found.gpu.error is None:
        save_outputs(args.save, {name: found.gpu.buffers[name] for name in sorted(found.gpu.changed)})
        print(f"saved the buffers the GPU wrote to {args.save}")
    if args.record:
        from passviz.run.record import gpu_run_record, inputs_digest

        digest = inputs_digest(arguments, grid)
        _append_run(
            args.trace, gpu_run_record(step, found.gpu, found.comparison, digest, spec=args.spec_text)
        )
    return 0 if found.same else 1


def _cmd_bisect(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from passviz.interpret.values import RunError
    from passviz.run.bisect import bisect
    from passviz.run.report import describe_bisect

    trace = load(args.trace)
    if "imported" in trace.meta:
        raise CliError(
            f"{args.trace}: an imported trace (a compiler's IR dump, read without dialects) has no IR the "
            "CPU interpreter can run at each step, so there is nothing to bisect; passviz diverge compares "
            "it with a recorded trace of the same input"
        )
    limits = _limits(args)
    arguments, grid = _run_inputs(args, trace)
    # Each run interprets a whole kernel: on a long trace the wait is long enough to show.
    # tqdm draws on a terminal only (disable=None), and leaves no line behind.
    total = len(trace.steps) + 1 if args.every else None
    with tqdm(total=total, desc="bisect", unit="run", disable=None, leave=False, file=sys.stderr) as bar:

        def on_run(step: int) -> None:
            bar.set_postfix_str("initial IR" if step < 0 else f"step {step}", refresh=False)
            bar.update()

        try:
            tolerance = tuple(args.tolerance) if args.tolerance else None
            result = bisect(
                trace,
                arguments,
                grid,
                every=args.every,
                tolerance=tolerance,
                on_run=on_run,
                limits=limits,
            )
        except RunError as exc:
            raise CliError(str(exc)) from None
    for line in describe_bisect(trace, result):
        print(one_line(line))
    if args.record:
        from passviz.run.record import bisect_records, inputs_digest
        from passviz.trace.store import append_runs

        records = bisect_records(
            result, inputs_digest(arguments, grid), spec=args.spec_text, tolerance=tolerance
        )
        append_runs(args.trace, records)
        print(f"recorded {len(records)} run record{'s' * (len(records) != 1)} in {args.trace}")
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"run": _cmd_run, "bisect": _cmd_bisect}
