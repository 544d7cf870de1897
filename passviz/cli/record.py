"""``passviz trace``: run a pipeline on an MLIR file and record its trace."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from xdsl.passes import ModulePass

from passviz.cli.common import CliError
from passviz.compilers.triton.version import (
    TritonVersion,
    parse_triton_version,
    triton_version,
    use_triton_version,
)
from passviz.importer.compiler_run import CompilerRun, resolve_tool, trace_compiler
from passviz.ir.terminal import one_line
from passviz.pipelines import load_pass_module, record_file
from passviz.recording.recorder import RecordOptions, VerifyEach
from passviz.trace.model import Trace
from passviz.trace.sources import SourcePolicy, read_sources
from passviz.trace.store import write_trace

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
    _add_compiler_options(trace)
    trace.add_argument(
        "--passes-from",
        action="append",
        default=[],
        metavar="FILE_OR_MODULE",
        help="load extra passes (your own patterns) from a .py file or module",
    )


def _add_compiler_options(command: argparse.ArgumentParser) -> None:
    """``--compiler``, ``--compiler-arg`` and ``--rewrites``: a real compiler runs the pipeline."""
    command.add_argument(
        "--compiler",
        metavar="TOOL",
        help="run the pipeline with this MLIR opt tool (iree-opt, mlir-opt, ...: a name on PATH or a path) "
        "instead of passviz's own passes, one step per pass as the tool printed it (-p: passviz's "
        "'canonicalize,cse' or MLIR's 'builtin.module(...)')",
    )
    command.add_argument(
        "--compiler-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="give ARG to the compiler on every run (repeat): --compiler-arg=--allow-unregistered-dialect",
    )
    command.add_argument(
        "--rewrites",
        nargs="?",
        const="*",
        default=None,
        metavar="PASS[,PASS]",
        help="with --compiler: record these passes (by default every pass whose patterns MLIR's debug "
        "counter sees: canonicalize and the greedy ones) pattern application by pattern application",
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
    if args.compiler is not None or args.rewrites is not None:
        return _trace_compiler(args)
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
    return _report(run.trace, args.output)


def _report(trace: Trace, output: str, *, diagnostic: bool = False) -> int:
    """Say where the trace went, or which step failed (exit code 1), with the first line of the
    compiler's ``diagnostic`` where the flag's detail is one (a passviz pass's detail is a traceback)."""
    flagged = trace.failed_steps
    if flagged:
        step = flagged[0]
        assert step.flag is not None
        where = f"step {step.index} ({step.pass_name or 'pipeline'})"
        print(
            f"passviz: error: {where}: {one_line(step.flag['message'])} (trace written to {output})",
            file=sys.stderr,
        )
        for line in step.flag.get("detail", "").splitlines()[:1] if diagnostic else ():
            print(f"passviz: {one_line(line)}", file=sys.stderr)
        return 1
    print(f"recorded {len(trace.steps)} steps to {output}")
    return 0


_OWN_PASS_OPTIONS: dict[str, tuple[str, object]] = {
    "verify_each": ("--verify-each", "pass"),
    "max_iterations": ("--max-iterations", None),
    "max_rewrites": ("--max-rewrites", None),
    "exact_steps": ("--exact-steps", False),
    "triton_version": ("--triton-version", None),
    "passes_from": ("--passes-from", []),
}
"""The options that shape passviz's own passes (a real compiler's run takes none), with their defaults."""


def _trace_compiler(args: argparse.Namespace) -> int:
    """``trace --compiler``: the real compiler runs the pipeline; its IR printing is the trace."""
    if args.compiler is None:
        raise CliError("--rewrites needs --compiler (passviz's own passes record every rewrite already)")
    for key, (flag, default) in _OWN_PASS_OPTIONS.items():
        if getattr(args, key) != default:
            raise CliError(f"{flag} shapes passviz's own passes; it does not apply with --compiler")
    rewrites: bool | frozenset[str] = False
    if args.rewrites == "*":
        rewrites = True
    elif args.rewrites is not None:
        rewrites = frozenset(p.strip() for p in args.rewrites.split(",") if p.strip())
    if args.output is None:
        args.output = Path(args.input).name.rsplit(".", 1)[0] + ".passviz.json.gz"
    if Path(args.output).exists() and Path(args.output).resolve() == Path(args.input).resolve():
        raise CliError(f"{args.output}: the trace would overwrite the input; write it elsewhere (-o)")
    if not Path(args.input).is_file():
        raise CliError(f"{args.input}: no such file")
    run = CompilerRun(resolve_tool(args.compiler), tuple(args.compiler_arg), args.timeout)
    trace = trace_compiler(run, args.input, args.pipeline, rewrites=rewrites).trace
    if not args.no_sources and trace.initial is not None:
        trace.sources = read_sources(trace.initial, SourcePolicy.for_input(args.input, tuple(args.sources)))
    write_trace(trace, args.output)
    rewritten = sum(step.kind == "rewrite" for step in trace.steps)
    if rewritten:
        print(f"{rewritten} of the steps are pattern applications ({args.compiler}'s debug counter)")
    for note in trace.meta.get("imported", {}).get("notes", [])[1:]:
        print(one_line(f"note: {note}"))
    return _report(trace, args.output, diagnostic=True)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"trace": _cmd_trace}
