"""The source files an IR's locations name, read at record time for the viewer's source pane.

Triton's frontend locates every op in the kernel's Python source
(``loc("kernel.py":12:8)``); a trace carries the text of each such file it
could read, so that a viewer shows the line an op came from wherever the
trace is opened.  Files are read as UTF-8, each up to ``MAX_FILE`` bytes and
all together up to ``MAX_TOTAL``; a file that is missing, unreadable, not
text or too large is left out.  On reading a trace, sources are untrusted
text like everything else in it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from passviz.trace.model import InitialState

MAX_FILE = 256 * 1024
"""The largest source file embedded, in bytes."""
MAX_TOTAL = 1024 * 1024
"""The most source text a trace embeds, in bytes."""

FILE_LOCATION = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
"""A file location inside a location's text (also inside fused and call-site locations)."""


def located_files(locations: Iterable[str]) -> list[str]:
    """The file names the location texts mention, in order of first mention."""
    seen: dict[str, None] = {}
    for text in locations:
        for match in FILE_LOCATION.finditer(text):
            seen.setdefault(match.group(1))
    return list(seen)


def read_sources(initial: InitialState) -> dict[str, str]:
    """The text of each readable file the initial IR's op locations name."""
    locations = (info["loc"] for info in initial["delta"].get("ops_created", ()) if "loc" in info)
    sources: dict[str, str] = {}
    total = 0
    for name in located_files(locations):
        path = Path(name)
        try:
            if not path.is_file() or path.stat().st_size > MAX_FILE:
                continue
            text = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        size = len(text.encode("utf-8"))
        if total + size > MAX_TOTAL:
            break
        sources[name] = text
        total += size
    return sources
