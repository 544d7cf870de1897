"""Importing a compiler's IR dumps as traces: MLIR's IR printing of any dialect, read structurally
(``reader``), its ops matched from snapshot to snapshot (``identity``), as the trace's deltas
(``delta``), replayed and printed as data (``text``).  Needs no xDSL: it sits right after ``trace``."""

from __future__ import annotations

from pathlib import Path

from passviz.importer.dump import ImportReport, import_path, import_text
from passviz.importer.text import TextReplayer, ir_text
from passviz.trace.model import Trace


def import_dump(path_or_text: str | Path, *, input_ir: str | None = None) -> Trace:
    """The trace of an MLIR IR dump: a file, an ``--mlir-print-ir-tree-dir`` folder, or the dump's
    text itself; ``input_ir``, the IR before the first pass of a dump printed after each pass."""
    if isinstance(path_or_text, Path) or ("\n" not in path_or_text and Path(path_or_text).exists()):
        trace = import_path(path_or_text, input_ir=input_ir).trace
    else:
        trace = import_text(path_or_text, input_ir=input_ir).trace
    trace.replayer = TextReplayer
    return trace


__all__ = ["ImportReport", "TextReplayer", "import_dump", "import_path", "import_text", "ir_text"]
