"""The ``import`` command: a compiler's IR dump (any MLIR IR printing) as a trace."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from passviz.cli.common import CliError
from passviz.importer import TextReplayer, import_path, import_text
from passviz.importer.reader import ReadError
from passviz.ir.terminal import one_line, printable
from passviz.trace.store import write_trace

if TYPE_CHECKING:
    from passviz.cli.common import Subparsers


def add_parsers(sub: Subparsers) -> None:
    """The ``import`` command."""
    command = sub.add_parser(
        "import",
        help="make a trace of a compiler's IR dump (--mlir-print-ir-after-all, MLIR_ENABLE_DUMP, ...)",
    )
    command.add_argument(
        "dump",
        help="the dump: a file of MLIR IR printing (any dialect), an --mlir-print-ir-tree-dir "
        "folder, or - for standard input",
    )
    command.add_argument(
        "-o",
        "--output",
        help="the trace file to write (default: DUMP's name with .passviz.json.gz, in the current directory)",
    )
    command.add_argument(
        "--input",
        metavar="IN.mlir",
        help="the IR before the first pass, for a dump printed after each pass (which lacks it)",
    )


def _cmd_import(args: argparse.Namespace) -> int:
    input_ir = Path(args.input).read_text(encoding="utf-8") if args.input else None
    try:
        if args.dump == "-":
            report = import_text(sys.stdin.read(), name="<stdin>", input_ir=input_ir)
        else:
            report = import_path(args.dump, input_ir=input_ir)
    except ReadError as exc:
        raise CliError(f"{args.dump}: {exc}") from None
    trace = report.trace
    trace.replayer = TextReplayer
    stem = "stdin" if args.dump == "-" else Path(args.dump).name.split(".")[0] or "dump"
    output = Path(args.output) if args.output else Path(f"{stem}.passviz.json.gz")
    write_trace(trace, output)
    matched = sum(s.matched for s in report.stats)
    print(
        one_line(
            f"imported {len(trace.steps)} steps from {args.dump} to {printable(str(output))} "
            f"({matched} ops matched from snapshot to snapshot, "
            f"{sum(s.created for s in report.stats)} created, {sum(s.erased for s in report.stats)} erased)"
        )
    )
    for note in trace.meta.get("imported", {}).get("notes", []):
        print(one_line(f"note: {note}"))
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"import": _cmd_import}
