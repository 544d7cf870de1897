"""The ``passviz`` command line."""

from __future__ import annotations

import argparse
import difflib
import gc
import os
import sys
import tempfile
import webbrowser
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, cast

from xdsl.ir import Block
from xdsl.passes import ModulePass

from passviz.compilers.registry import available_passes, pass_summary, pipeline_summary, traced_passes
from passviz.compilers.triton.version import (
    TritonVersion,
    parse_triton_version,
    triton_version,
    use_triton_version,
)
from passviz.ir.deep import call_deep
from passviz.ir.printer import op_text
from passviz.ir.terminal import error_line, one_line, printable
from passviz.pipelines import (
    NAMED_PIPELINES,
    InputError,
    PipelineError,
    load_pass_module,
    load_trace,
    record_file,
)
from passviz.recording.recorder import RecordOptions, VerifyEach
from passviz.recording.replay import Replayer, ReplayError
from passviz.trace.model import RunRecord, Step, Trace
from passviz.trace.query import op_names, step_label
from passviz.trace.sources import describe_sources
from passviz.trace.store import TraceFormatError
from passviz.trace.summary import step_counts
from passviz.widget.standalone import standalone_html

if TYPE_CHECKING:
    from passviz.interpret.values import RunLimits
    from passviz.run.bisect import Outcome
    from passviz.run.launch import Argument


class CliError(Exception):
    """An error reported as one line, without a traceback."""


class _OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (with where to find the usage), like every other error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see {self.prog} -h)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(
        prog="passviz", description="Record and step through every IR mutation of a pass pipeline."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    trace = sub.add_parser("trace", help="run a pipeline on an MLIR file and record its trace")
    trace.add_argument("input", help="the input .mlir file")
    trace.add_argument(
        "-p", "--pipeline", required=True, help="passes, e.g. 'wrap-func-body-with-single-block,canonicalize'"
    )
    trace.add_argument(
        "-o",
        "--output",
        help="the trace file to write: gzip-compressed if its name ends in .gz, plain NDJSON "
        "otherwise (default: INPUT's name with .passviz.json.gz, in the current directory)",
    )
    trace.add_argument(
        "--verify-each",
        choices=["off", "pass", "rewrite"],
        default="pass",
        help="run the verifier after every pass (default) or every rewrite",
    )
    trace.add_argument(
        "--max-iterations",
        type=int,
        default=None,
        help="greedy rewrite iterations before a pass counts as not converging, for passviz's "
        "driver and xDSL's walker alike (default: 10)",
    )
    trace.add_argument(
        "--max-rewrites", type=int, default=None, help="rewrites per pass before it counts as not converging"
    )
    trace.add_argument(
        "--timeout", type=float, default=None, metavar="SECONDS", help="stop and flag a pass running longer"
    )
    trace.add_argument(
        "--exact-steps",
        action="store_true",
        help="compare the whole module at every step, so that edits a pattern "
        "hides from the rewriter show in the step that made them (slower)",
    )
    trace.add_argument(
        "--triton-version",
        type=_triton_version,
        default=None,
        metavar="MAJOR.MINOR",
        help="behave as this Triton release (3.6 or 3.9): make-ttir's pass list, the tt dialect's "
        "syntax and the TTIR patterns (default: the installed Triton's, or 3.6 without one)",
    )
    _add_source_options(trace)
    trace.add_argument(
        "--passes-from",
        action="append",
        default=[],
        metavar="FILE_OR_MODULE",
        help="load extra passes (your own patterns) from a .py file or module",
    )

    steps = sub.add_parser("steps", help="list the steps of a trace")
    steps.add_argument("trace")

    show = sub.add_parser("show", help="print the IR after a step")
    show.add_argument("trace")
    show.add_argument("--step", type=int, default=-1, help="step index; negative counts from the end")
    show.add_argument("--diff", action="store_true", help="print a unified diff against the step before")

    validate = sub.add_parser("validate", help="check a trace file against the schema")
    validate.add_argument("trace")
    validate.add_argument(
        "--allow-partial",
        action="store_true",
        help="accept a trace whose run did not finish (no end record), such as one cut off",
    )

    dump = sub.add_parser("dump", help="print the IR after every pass, MLIR style")
    dump.add_argument("trace")

    export = sub.add_parser("export", help="write the trace in the passviz viewer as one offline HTML page")
    export.add_argument("trace")
    export.add_argument("--html", required=True, metavar="OUT.html", help="the page to write")

    view = sub.add_parser("view", help="open the trace in the passviz viewer, in a browser")
    view.add_argument("trace")
    view.add_argument(
        "-o", "--output", metavar="OUT.html", help="the page to write (default: a new temp file)"
    )
    view.add_argument("--no-browser", action="store_true", help="write the page and print its path only")

    sub.add_parser("passes", help="list the passes a pipeline may use")
    _add_run_parsers(sub)
    _add_toy_parser(sub)
    return parser


def _add_source_options(command: argparse.ArgumentParser) -> None:
    """``--sources DIR`` and ``--no-sources``: which source files the trace carries for the viewer."""
    command.add_argument(
        "--sources",
        action="append",
        default=[],
        metavar="DIR",
        help="also embed source files (.py, .mlir, .toy, ...) that the IR's locations name under DIR; "
        "by default only those under the input's folder and the current directory are embedded",
    )
    command.add_argument("--no-sources", action="store_true", help="embed no source file in the trace")


def _add_run_parsers(sub: argparse._SubParsersAction[_OneLineParser]) -> None:  # pyright: ignore[reportPrivateUsage]
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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``passviz`` script."""
    args = _parser().parse_args(argv)
    # One command, then exit: what the imports made lives until then, so the
    # cyclic collector need not scan it again at every full collection.
    gc.freeze()
    try:
        # Deeply nested IR recurses deep in xDSL's parser, verifier and printer.
        return call_deep(lambda: _COMMANDS[args.command](args))
    except BrokenPipeError:  # `passviz steps t.json | head`
        sys.stderr.close()
        return 0
    except (CliError, InputError, PipelineError, TraceFormatError, ReplayError, OSError) as exc:
        print(f"passviz: error: {error_line(_message(exc))}", file=sys.stderr)
        return 1
    except MemoryError:
        # Past the limits a file may reach, a valid trace can still need more memory than there is.
        print("passviz: error: out of memory: the input is too large for this machine", file=sys.stderr)
        return 1


def _message(exc: Exception) -> str:
    """``exc`` as the error line says it: a file's error as ``path: what went wrong``, like the others."""
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc)


def _triton_version(text: str) -> TritonVersion:
    """``--triton-version``'s value as the modelled release passviz behaves as."""
    try:
        return parse_triton_version(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _cmd_trace(args: argparse.Namespace) -> int:
    with use_triton_version(args.triton_version or triton_version()):
        return _trace(args)


def _trace(args: argparse.Namespace) -> int:
    extra: dict[str, type[ModulePass]] = {}
    for source in args.passes_from:
        extra.update(load_pass_module(source))
    options = RecordOptions(
        verify_each=cast(VerifyEach, args.verify_each),
        max_iterations=args.max_iterations,
        max_rewrites=args.max_rewrites,
        timeout=args.timeout,
        exact=args.exact_steps,
        embed_sources=not args.no_sources,
        source_dirs=tuple(args.sources),
    )
    if args.output is None:
        args.output = Path(args.input).name.rsplit(".", 1)[0] + ".passviz.json.gz"
    try:
        run = record_file(args.input, args.pipeline, output=args.output, options=options, extra_passes=extra)
    except KeyboardInterrupt:
        partial = (
            f"the partial trace is in {args.output}" if Path(args.output).exists() else "no trace written"
        )
        print(f"passviz: interrupted; {partial}", file=sys.stderr)
        return 130
    trace = run.trace
    flagged = trace.failed_steps
    if flagged:
        step = flagged[0]
        assert step.flag is not None
        where = f"step {step.index} ({step.pass_name or 'pipeline'})"
        print(
            f"passviz: error: {where}: {one_line(step.flag['message'])} (trace written to {args.output})",
            file=sys.stderr,
        )
        return 1
    print(f"recorded {len(trace.steps)} steps to {args.output}")
    return 0


def _step_line(step: Step, names: dict[str, str], pass_width: int = 34) -> str:
    label = step_label(step, names) if step.name else ""
    counts = step_counts(step)
    flag = f"  !! {step.flag['kind']}: {step.flag['message']}" if step.flag else ""
    pass_name = one_line(step.pass_name or "-")  # escaped before padding, so columns hold
    return f"{step.index:>5}  {step.kind:<10}  {pass_name:<{pass_width}}  {label:<40}  {counts}{flag}"


def _pass_width(trace: Trace) -> int:
    """The pass column's width: the longest pass name (IREE's run past 60 characters), at least 34."""
    return max([34, *(len(one_line(step.pass_name)) for step in trace.steps if step.pass_name)])


def _load(path: str) -> Trace:
    trace = load_trace(path)
    for warning in trace.warnings:
        print(f"passviz: warning: {one_line(warning)}", file=sys.stderr)
    return trace


def _cmd_steps(args: argparse.Namespace) -> int:
    trace = _load(args.trace)
    width = _pass_width(trace)
    columns = f"{'step':>5}  {'kind':<10}  {'pass':<{width}}  {'pattern / checkpoint':<40}"
    print(f"{columns}  +added -erased ~modified")
    names = op_names(trace.initial["delta"] if trace.initial else None, trace.steps)
    # The latest run of each step; a run's verdict ends its step's line.
    verdicts = {run["step"]: run for run in trace.runs}
    for step in trace.steps:
        run = verdicts.get(step.index)
        mark = f"  run: {run['verdict']}{' (first differing)' if run.get('first') else ''}" if run else ""
        print(one_line(_step_line(step, names, width) + mark))
    # The files a page made of this trace would carry; no line for none, to keep the table parseable.
    for line in describe_sources(trace.sources) if trace.sources else ():
        print(one_line(line))
    if trace.runs:
        print(f"runs ({len(trace.runs)}):")
        for run in trace.runs:
            print(one_line(f"  {_run_line(run)}"))
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    trace = _load(args.trace)
    if not trace.steps:
        print(printable(trace.ir_at(-1)), end="")
        return 0
    try:
        index = trace.normalize_step(args.step)
    except IndexError as exc:
        raise CliError(str(exc)) from None
    if not args.diff:
        print(printable(trace.ir_at(index)), end="")
        return 0
    before, after = trace.ir_around(index)
    if before == after:
        print(f"step {index} changed nothing: the IR after it is the IR before it")
        return 0
    diff = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"step {index - 1}" if index else "initial",
        tofile=f"step {index}",
    )
    sys.stdout.writelines(map(printable, diff))
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    trace = load_trace(args.trace, validate=True)
    if trace.status == "incomplete" and not args.allow_partial:
        raise CliError(
            f"{args.trace}: incomplete trace: the run did not finish (no end record) after "
            f"{len(trace.steps)} steps; --allow-partial accepts it"
        )
    _check_replay(args.trace, trace)
    for warning in trace.warnings:
        print(f"passviz: warning: {one_line(warning)}", file=sys.stderr)
    print(one_line(f"{args.trace}: valid passviz trace, {len(trace.steps)} steps, status {trace.status}"))
    for line in describe_sources(trace.sources):
        print(one_line(line))
    return 0


def _check_replay(path: str, trace: Trace) -> None:
    """Replay every step and check that each op text the trace records is what the replayed op prints.

    The viewer shows the recorded texts and ``show`` prints the replayed IR, so
    a trace where they differ would show two IRs for one step."""
    replayer = Replayer(trace)
    with replayer.syntax():
        _check_replayed_texts(path, trace, replayer)


def _check_replayed_texts(path: str, trace: Trace, replayer: Replayer) -> None:
    """``_check_replay``'s work, inside the trace's syntax."""
    block_ids: dict[Block, str] = {}
    deltas = [("the initial IR", trace.initial["delta"] if trace.initial else None)]
    deltas += [(f"step {step.index}", step.delta) for step in trace.steps]
    for index, (where, delta) in enumerate(deltas):
        if index:
            replayer.advance_to(index - 1)
        if delta is None:
            continue
        if len(block_ids) != len(replayer.blocks):
            block_ids = {block: block_id for block_id, block in replayer.blocks.items()}
        erased = set(delta.get("ops_erased", ()))
        for op_id, recorded in delta.get("texts", {}).items():
            op = replayer.ops.get(op_id)
            if op_id in erased or op is None:
                continue
            try:
                replayed = op_text(op, replayer.value_ids, block_ids).strip()
            except Exception as exc:
                raise CliError(f"{path}: {where}: op {op_id} does not print after replay: {exc}") from None
            if replayed != recorded:
                raise CliError(
                    f"{path}: {where}: replay and the recorded text disagree on op {op_id}: "
                    f"the trace records {_clip(recorded)}, replay gives {_clip(replayed)}"
                )


def _clip(text: str, limit: int = 120) -> str:
    """``text`` quoted on one line, cut at ``limit`` characters."""
    line = one_line(text)
    return repr(line if len(line) <= limit else line[:limit] + "...")


def _cmd_dump(args: argparse.Namespace) -> int:
    trace = _load(args.trace)
    replayer = Replayer(trace)
    for step in trace.steps:
        if step.kind != "pass-end":
            continue
        replayer.advance_to(step.index)
        print(one_line(f"// -----// IR Dump After {step.name} ({step.pass_name}) //----- //"))
        print(printable(replayer.text()))
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    page = standalone_html(_load(args.trace))
    output = Path(args.html)
    output.write_text(page, encoding="utf-8")
    print(printable(str(output)))
    return 0


def _cmd_view(args: argparse.Namespace) -> int:
    page = standalone_html(_load(args.trace))
    if args.output is not None:
        output = Path(args.output)
    else:
        stem = Path(args.trace).name.split(".")[0] or "trace"
        handle, name = tempfile.mkstemp(prefix=f"passviz-{stem}-", suffix=".html")
        os.close(handle)
        output = Path(name)
    output.write_text(page, encoding="utf-8")
    print(printable(str(output)))
    if not args.no_browser and not webbrowser.open(output.resolve().as_uri()):
        print("passviz: warning: no browser could be opened; open the page above", file=sys.stderr)
    return 0


def _cmd_passes(args: argparse.Namespace) -> int:
    traced = traced_passes()
    print("pipelines (named as one pass):")
    for name in sorted(NAMED_PIPELINES):
        print(f"  {name:<36} {pipeline_summary(name)}")
    print("passviz's passes (each rewrite, fold and erasure a step, named as MLIR names it):")
    for name in sorted(traced):
        print(f"  {name:<36} {pass_summary(traced[name]())}")
    print(
        "other xDSL passes (each rewrite through xDSL's rewriters a step; edits made otherwise "
        "land in the pass's last step, or in their own with --exact-steps):"
    )
    others = available_passes()
    for name in sorted(set(others) - set(traced)):
        print(f"  {name:<36} {pass_summary(others[name]())}".rstrip())
    return 0


def _run_inputs(args: argparse.Namespace, trace: Trace) -> tuple[list[Argument], tuple[int, ...]]:
    # passviz.run is imported where it is used: it loads xDSL's interpreters and
    # numpy, more than half a second that every other command would pay.
    from passviz.interpret.values import RunError
    from passviz.run.inputs import (
        InputsFile,
        InputSpecError,
        make_arguments,
        parse_arg,
        parse_grid,
        read_inputs_file,
        trace_specs,
    )

    try:
        saved = read_inputs_file(args.inputs) if args.inputs else InputsFile([], None, None)
        specs = [parse_arg(text) for text in args.arg or saved.args]
        if not specs:
            specs = trace_specs(trace, args.trace)
            spelled = " ".join(f"--arg {spec}" for spec in specs) or "none"
            print(one_line(f"inputs from the kernel's signature: {spelled}"))
        seed = args.seed if args.seed is not None else saved.seed or 0
        grid = parse_grid(args.grid or saved.grid or "1")
        # What --record writes as the run records' spec, to run the same inputs again.
        args.spec_text = " ".join(
            [*(f"--arg {spec}" for spec in specs), f"--grid {','.join(map(str, grid))}", f"--seed {seed}"]
        )
        return make_arguments(specs, seed), grid
    except (InputSpecError, RunError) as exc:
        raise CliError(str(exc)) from None


def _cmd_run(args: argparse.Namespace) -> int:
    from passviz.interpret.values import RunError
    from passviz.run.bisect import INITIAL, run_step
    from passviz.run.report import save_outputs, step_name, summarize

    trace = _load(args.trace)
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
    print(one_line(f"recorded: {_run_line(record)}"))


def _run_line(run: RunRecord) -> str:
    """One line about a run record: step, back end, verdict, error, elements, inputs."""
    where = "initial" if run["step"] < 0 else f"step {run['step']}"
    parts = [f"{where}: {run['verdict']}", run["backend"]]
    if "max_error" in run:
        parts.append(f"max error {run['max_error']:.6g}")
    if "count" in run:
        parts.append(f"{run['count']} element{'s' * (run['count'] != 1)} differ")
    if "time_ms" in run:
        parts.append(f"{run['time_ms']:.4g} ms")
    if "gbps" in run:
        parts.append(f"{run['gbps']:.4g} GB/s")
    parts.append(f"inputs {run['inputs']}")
    if run.get("first"):
        parts.append("the first differing step bisect found")
    if "message" in run:
        parts.append(run["message"])
    return ", ".join(parts)


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

    trace = _load(args.trace)
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


def _add_toy_parser(sub: argparse._SubParsersAction[_OneLineParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """``toy``: the MLIR Toy tutorial's ``toyc``, recording MLIRGen as a trace."""
    toy = sub.add_parser("toy", help="compile a Toy file as the MLIR tutorial's toyc does")
    toy.add_argument("input", help="a .toy file (or a .mlir file of toy IR)")
    # passviz.cli.toyc's EMITS and CHAPTERS, spelled out so that startup imports no Toy code
    toy.add_argument(
        "-emit",
        choices=("ast", "mlir", "mlir-affine", "mlir-llvm", "llvm", "jit"),
        default="mlir",
        help="what to print: the AST, MLIR (toy, affine, llvm dialect), LLVM IR, or the program's output when"
        " JIT-run (default mlir)",
    )
    toy.add_argument(
        "--chapter", type=int, choices=(2, 3, 4, 5, 6), default=6, help="behave as toyc-chN (default 6)"
    )
    toy.add_argument(
        "-opt",
        action="store_true",
        help="run toyc's optimizations (chapter 4 on: inliner, shape inference; 5 on: loop fusion;"
        " 6: LLVM's -O3)",
    )
    toy.add_argument("-o", "--output", help="also write the trace (MLIRGen onward) here")


def _cmd_toy(args: argparse.Namespace) -> int:
    from passviz.cli.toyc import run_toy

    result = run_toy(args.input, args.emit, chapter=args.chapter, opt=args.opt, output=args.output)
    sys.stdout.write(result.text)
    return 0


_COMMANDS = {
    "trace": _cmd_trace,
    "steps": _cmd_steps,
    "show": _cmd_show,
    "validate": _cmd_validate,
    "dump": _cmd_dump,
    "export": _cmd_export,
    "view": _cmd_view,
    "passes": _cmd_passes,
    "run": _cmd_run,
    "bisect": _cmd_bisect,
    "toy": _cmd_toy,
}
