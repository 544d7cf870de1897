"""The ``diverge`` command: two traces of the same input, and the first pass after which they differ.

``--html`` and ``--view`` put both traces in the viewer side by side, one page, stepping together.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from passviz.cli.common import load
from passviz.ir.terminal import one_line, printable
from passviz.trace.alignment import summary
from passviz.trace.diverge import diverge
from passviz.widget.sidebyside import side_by_side_html

if TYPE_CHECKING:
    from passviz.cli.common import Subparsers


def add_parsers(sub: Subparsers) -> None:
    """The ``diverge`` command."""
    command = sub.add_parser(
        "diverge",
        help="align two traces of the same input pass by pass (passviz's port against the real "
        "compiler, two versions, a pass before and after a change) and name the first pass after "
        "which their IR differs; exit status 1 when they do",
    )
    command.add_argument("a", metavar="A", help="a trace")
    command.add_argument("b", metavar="B", help="another trace of the same input")
    command.add_argument("--lines", type=int, default=60, help="diff lines to print at most (default 60)")
    command.add_argument(
        "--html",
        metavar="OUT.html",
        help="also write both traces in the viewer side by side, stepping together, as one offline page",
    )
    command.add_argument(
        "--view",
        action="store_true",
        help="open that page in a browser (written to --html's path, else to a new temp file)",
    )


def _page_path(args: argparse.Namespace) -> Path:
    """Where the side-by-side page goes: ``--html``'s path, else a new temp file."""
    if args.html is not None:
        return Path(args.html)
    stems = [Path(name).name.split(".")[0] or "trace" for name in (args.a, args.b)]
    handle, name = tempfile.mkstemp(prefix=f"passviz-{stems[0]}-vs-{stems[1]}-", suffix=".html")
    os.close(handle)
    return Path(name)


def _cmd_diverge(args: argparse.Namespace) -> int:
    a, b = load(args.a), load(args.b)
    result = diverge(a, b)
    for line in summary(a, b, result):
        print(one_line(line))
    for line in result.diff[: args.lines]:
        print(printable(line))
    if len(result.diff) > args.lines:
        print(f"... {len(result.diff) - args.lines} more diff lines (--lines)")
    if args.html is not None or args.view:
        output = _page_path(args)
        output.write_text(side_by_side_html(a, b, result), encoding="utf-8")
        print(printable(f"side by side: {output}"))
        if args.view and not webbrowser.open(output.resolve().as_uri()):
            print("passviz: warning: no browser could be opened; open the page above", file=sys.stderr)
    return 0 if result.first is None and not result.initial_differs else 1


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"diverge": _cmd_diverge}
