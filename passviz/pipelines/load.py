"""Loading a trace file, made readable with the families' dialects in the syntax it was recorded in."""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path

from passviz.compilers.registry import (
    make_context,
    syntax_problems,
    use_recorded_syntax,
)
from passviz.importer.text import TextReplayer
from passviz.recording.initial import ensure_initial
from passviz.recording.replay import Replayer, ReplayError
from passviz.trace.model import Trace
from passviz.trace.store import read_trace


def load_trace(path: str | Path, *, validate: bool = False) -> Trace:
    """Read a trace file (``validate``: every record against the schema), ready for replay."""
    return readable(read_trace(path, validate=validate))


def readable(trace: Trace) -> Trace:
    """``trace``, replayed with passviz's dialects in the syntax it was recorded in
    (``meta.syntax``), whatever Triton is installed here, and with its initial state: a
    version 1 file's is computed by replay once, here, if its initial IR replays (if not,
    replaying it again says why, when asked)."""
    if "imported" in trace.meta:
        # An imported dump's texts are its compiler's, of dialects passviz may not know: it
        # replays as data (``passviz.importer``), never through xDSL.
        trace.replayer = TextReplayer
        return trace
    syntax = trace.meta.get("syntax")
    trace.context_factory = make_context
    trace.syntax_scope = lambda: use_recorded_syntax(syntax)
    trace.replayer = Replayer
    trace.warnings.extend(syntax_problems(syntax))
    with suppress(ReplayError):
        ensure_initial(trace)
    return trace
