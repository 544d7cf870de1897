"""The ``diverge`` command: two traces of the same input, and the first pass after which they differ."""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from passviz.cli.common import load
from passviz.ir.terminal import one_line, printable
from passviz.trace.diverge import Pass, diverge
from passviz.trace.model import Trace
from passviz.trace.query import op_names, step_label

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


def _alone(passes: list[Pass]) -> str:
    counts = Counter(p.key for p in passes)
    return ", ".join(f"{key} x{n}" if n > 1 else key for key, n in counts.items())


def _describe(trace: Trace) -> str:
    source = "imported" if "imported" in trace.meta else "recorded"
    return f"{trace.meta.get('input', '?')} ({source}, {len(trace.steps)} steps)"


def _cmd_diverge(args: argparse.Namespace) -> int:
    a, b = load(args.a), load(args.b)
    result = diverge(a, b)
    print(one_line(f"A: {_describe(a)}"))
    print(one_line(f"B: {_describe(b)}"))
    print(f"aligned {len(result.aligned)} passes both ran")
    for side, alone in (("A", result.only_a), ("B", result.only_b)):
        if alone:
            print(
                one_line(
                    f"{side} alone ran: {_alone(alone)} (between aligned passes: counted with the one before)"
                )
            )
    if result.initial_differs:
        print("the initial IRs differ: the traces are not of the same input")
    elif result.first is None:
        print(f"no divergence: the IR agrees after each of the {len(result.aligned)} passes")
        return 0
    else:
        pass_a, pass_b = result.aligned[result.first]
        print(
            one_line(
                f"first divergence: after pass {result.first + 1} of {len(result.aligned)}, "
                f"A step {pass_a.step} ({pass_a.label}), B step {pass_b.step} ({pass_b.label})"
            )
        )
        if result.steps is not None:
            step_a, step_b = result.steps
            label_a = step_label(
                a.steps[step_a], op_names(a.initial["delta"] if a.initial else None, a.steps)
            )
            label_b = step_label(
                b.steps[step_b], op_names(b.initial["delta"] if b.initial else None, b.steps)
            )
            print(one_line(f"  within it, first at A step {step_a} ({label_a}), B step {step_b} ({label_b})"))
    for line in result.diff[: args.lines]:
        print(printable(line))
    if len(result.diff) > args.lines:
        print(f"... {len(result.diff) - args.lines} more diff lines (--lines)")
    return 1


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"diverge": _cmd_diverge}
