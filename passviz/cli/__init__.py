"""The ``passviz`` command line: one module per command group (``record``: trace; ``importing``:
import, triton; ``inspect``: steps, show, validate, dump, export, view, passes; ``compare``:
diverge; ``run``: run, bisect; ``toy``)."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Callable, Sequence

from passviz.cli import compare, importing, inspect, record, run, toy
from passviz.cli.common import CliError, OneLineParser
from passviz.ir.deep import call_deep
from passviz.ir.terminal import error_line
from passviz.pipelines import InputError, PipelineError
from passviz.recording.replay import ReplayError
from passviz.trace.store import TraceFormatError

GROUPS = (record, importing, inspect, compare, run, toy)
"""The command groups, in the order ``passviz -h`` lists their commands."""

_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    name: command for group in GROUPS for name, command in group.COMMANDS.items()
}


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="passviz", description="Record and step through every IR mutation of a pass pipeline."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for group in GROUPS:
        group.add_parsers(sub)
    return parser


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


__all__ = ["CliError", "main"]
