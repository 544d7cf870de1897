"""``passviz trace``: run a pipeline on an MLIR file and record its trace."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from xdsl.passes import ModulePass

from passviz.compilers.triton.version import (
    TritonVersion,
    parse_triton_version,
    triton_version,
    use_triton_version,
)
from passviz.ir.terminal import one_line
from passviz.pipelines import load_pass_module, record_file
from passviz.recording.recorder import RecordOptions, VerifyEach

if TYPE_CHECKING:
    from passviz.cli.common import Subparsers


def add_parsers(sub: Subparsers) -> None:
    """The ``trace`` command."""
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


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"trace": _cmd_trace}
