"""Triton's own parser and verifier, in a process of its own, for the differential tests.

``python -m tests.triton_parse_worker FOLDER START`` reads ``FOLDER/<i>.mlir`` for ``i`` from
``START`` on, while the files are there, and gives each to ``ir.parse_mlir_module`` (MLIR's
``parseSourceFile``, which verifies what it parsed) in one context with Triton's dialects.  For
each file it writes one JSON line ``[i, accepted, diagnostic]`` and flushes it, the diagnostic
being what MLIR wrote to file descriptor 2 (``loc("FILE":LINE:COL): error: ...``).

A process of its own because Triton's MLIR aborts on some invalid inputs (an assertion in a
verifier) instead of failing: the caller starts a new worker after the input it died on.  Triton
is imported alone here (not passviz, nor pytest) so that a worker starts in about a second.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path


def main(folder: Path, start: int) -> None:
    from triton._C.libtriton import ir  # pyright: ignore[reportMissingImports]

    context = ir.context()
    ir.load_dialects(context)
    out = sys.stdout
    index = start
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errors:
        while (path := folder / f"{index}.mlir").exists():
            errors.seek(0)
            errors.truncate()
            saved = os.dup(2)
            os.dup2(errors.fileno(), 2)
            try:
                ir.parse_mlir_module(str(path), context)
                accepted = True
            except Exception:
                accepted = False
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            errors.seek(0)
            out.write(json.dumps([index, accepted, errors.read()]) + "\n")
            out.flush()
            index += 1


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]))
