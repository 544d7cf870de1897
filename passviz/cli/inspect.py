"""The commands that read a trace: ``steps``, ``show``, ``validate``, ``dump``, ``export``,
``view``; and ``passes``, which lists what a pipeline may name."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import tempfile
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from xdsl.ir import Block

from passviz.cli.common import CliError, load, run_line
from passviz.compilers.registry import (
    NAMED_PIPELINES,
    available_passes,
    pass_summary,
    pipeline_summary,
    traced_passes,
)
from passviz.ir.printer import op_text
from passviz.ir.terminal import one_line, printable
from passviz.pipelines import load_trace
from passviz.recording.replay import Replayer
from passviz.trace.model import Step, Trace
from passviz.trace.query import op_names, step_label
from passviz.trace.sources import describe_sources
from passviz.trace.summary import step_counts
from passviz.widget.sidebyside import side_by_side_html
from passviz.widget.standalone import standalone_html

if TYPE_CHECKING:
    from passviz.cli.common import Subparsers


def add_parsers(sub: Subparsers) -> None:
    """The commands that read a trace, and ``passes``."""
    steps = sub.add_parser("steps", help="list the steps of a trace")
    steps.add_argument("trace")

    show = sub.add_parser("show", help="print the IR after a step")
    show.add_argument("trace")
    show.add_argument("--step", type=int, default=-1, help="step index; negative counts from the end")
    show.add_argument("--diff", action="store_true", help="print a unified diff against the step before")
    show.add_argument(
        "--stage",
        metavar="NAME",
        help="print a compile stage's text output instead (passviz triton: llir, ptx, sass); "
        "with --diff, against the stage before",
    )

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

    view = sub.add_parser(
        "view",
        help="open the trace in the passviz viewer, in a browser; two traces of one input side by "
        "side, stepping together",
    )
    view.add_argument("trace", nargs="+", metavar="TRACE", help="one trace, or two to compare")
    view.add_argument(
        "-o", "--output", metavar="OUT.html", help="the page to write (default: a new temp file)"
    )
    view.add_argument("--no-browser", action="store_true", help="write the page and print its path only")

    sub.add_parser("passes", help="list the passes a pipeline may use")


def _step_line(step: Step, names: dict[str, str], pass_width: int = 34) -> str:
    label = step_label(step, names) if step.name else ""
    counts = step_counts(step)
    flag = f"  !! {step.flag['kind']}: {step.flag['message']}" if step.flag else ""
    pass_name = one_line(step.pass_name or "-")  # escaped before padding, so columns hold
    return f"{step.index:>5}  {step.kind:<10}  {pass_name:<{pass_width}}  {label:<40}  {counts}{flag}"


def _pass_width(trace: Trace) -> int:
    """The pass column's width: the longest pass name (IREE's run past 60 characters), at least 34."""
    return max([34, *(len(one_line(step.pass_name)) for step in trace.steps if step.pass_name)])


def _cmd_steps(args: argparse.Namespace) -> int:
    trace = load(args.trace)
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
            print(one_line(f"  {run_line(run)}"))
    return 0


def _show_stage(trace: Trace, stage: str, diff: bool) -> int:
    """``show --stage``: a compile stage's text output, or its diff against the one before."""
    outputs = trace.meta.get("imported", {}).get("outputs", [])
    names = [output["stage"] for output in outputs]
    if stage not in names:
        known = ", ".join(names) or "none: it was not captured with passviz triton"
        raise CliError(f"--stage {stage}: the trace has no such stage output (it has {known})")
    index = names.index(stage)
    text = outputs[index]["text"]
    if not diff or index == 0:
        print(printable(text), end="" if text.endswith("\n") else "\n")
        return 0
    before = outputs[index - 1]
    lines = difflib.unified_diff(
        before["text"].splitlines(keepends=True), text.splitlines(keepends=True), before["stage"], stage
    )
    sys.stdout.writelines(map(printable, lines))
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    trace = load(args.trace)
    if args.stage is not None:
        return _show_stage(trace, args.stage, args.diff)
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
    a trace where they differ would show two IRs for one step.  An imported trace replays as
    data, its texts being what it shows: every step's delta must apply."""
    if "imported" in trace.meta:
        trace.replay().advance_to(len(trace.steps) - 1)
        return
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
    trace = load(args.trace)
    replayer = trace.replay() if "imported" in trace.meta else Replayer(trace)
    for step in trace.steps:
        if step.kind != "pass-end":
            continue
        replayer.advance_to(step.index)
        print(one_line(f"// -----// IR Dump After {step.name} ({step.pass_name}) //----- //"))
        print(printable(replayer.text()))
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    page = standalone_html(load(args.trace))
    output = Path(args.html)
    output.write_text(page, encoding="utf-8")
    print(printable(str(output)))
    return 0


def _cmd_view(args: argparse.Namespace) -> int:
    traces: list[str] = args.trace
    if len(traces) > 2:
        raise CliError("view takes one trace, or two to show side by side")
    if len(traces) == 2:
        page = side_by_side_html(load(traces[0]), load(traces[1]))
    else:
        page = standalone_html(load(traces[0]))
    if args.output is not None:
        output = Path(args.output)
    else:
        stem = Path(traces[0]).name.split(".")[0] or "trace"
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


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "steps": _cmd_steps,
    "show": _cmd_show,
    "validate": _cmd_validate,
    "dump": _cmd_dump,
    "export": _cmd_export,
    "view": _cmd_view,
    "passes": _cmd_passes,
}
