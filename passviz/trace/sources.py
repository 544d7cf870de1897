"""The source files an IR's locations name, read at record time for the viewer's source pane.

Triton's frontend locates every op in the kernel's Python source
(``loc("kernel.py":12:8)``); a trace carries the text of such files, so that a
viewer shows the line an op came from wherever the trace is opened.

The input is untrusted: a downloaded reproducer can name any path in its
locations (``loc("/proc/self/environ":1:1)``), and whatever a trace carries
travels on to whoever receives it or the page ``export --html`` makes.  So a
file is embedded only when all of these hold (``SourcePolicy.admits``):

- its name ends in a source suffix (``SOURCE_SUFFIXES``), and so does the
  file it resolves to;
- resolved (symbolic links followed, relative names from the current
  directory), it lies under one of the policy's folders: the input's folder,
  the current directory, or a folder the user names (``--sources DIR``);
- nothing between that folder and the file is hidden (``.ssh``, ``.config``,
  a virtualenv's ``.venv``), and it is not under ``/proc``, ``/sys`` or ``/dev``;
- it is a regular file of at most ``MAX_FILE`` bytes, UTF-8 text, and all the
  embedded files together stay within ``MAX_FILES`` and ``MAX_TOTAL``.

A file that fails any of these is left out, silently: a location naming a
file is no request to read it.  On reading a trace, sources are untrusted text
like everything else in it.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from passviz.trace.model import InitialState

MAX_FILE = 256 * 1024
"""The largest source file embedded, in bytes."""
MAX_TOTAL = 1024 * 1024
"""The most source text a trace embeds, in bytes."""
MAX_FILES = 64
"""The most source files a trace embeds."""

SOURCE_SUFFIXES = frozenset(
    (".py", ".pyi", ".mlir", ".toy", ".ll", ".ptx", ".td", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".cu",
     ".cuh", ".cl", ".f90", ".jl")
)  # fmt: skip
"""The kinds of file whose text a trace may carry: program sources, not data or configuration."""

SYSTEM_FOLDERS = (Path("/proc"), Path("/sys"), Path("/dev"))
"""Folders whose files are the machine's state, never a program's source."""

FILE_LOCATION = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
"""A file location inside a location's text (also inside fused and call-site locations)."""


def located_files(locations: Iterable[str]) -> list[str]:
    """The file names the location texts mention, in order of first mention."""
    seen: dict[str, None] = {}
    for text in locations:
        for match in FILE_LOCATION.finditer(text):
            seen.setdefault(match.group(1))
    return list(seen)


@dataclass(frozen=True)
class SourcePolicy:
    """Which files a recording may embed: those under ``folders`` (see the module's docstring)."""

    folders: tuple[Path, ...]
    """Resolved folders under which embedded files lie."""

    @staticmethod
    def for_input(input_name: str | None, extra: Sequence[str | Path] = ()) -> SourcePolicy:
        """The folders a recording of ``input_name`` (a file, or a name like ``<input>``) may embed from:
        the input's folder if it is a file, the current directory, and ``extra``."""
        folders: list[Path] = [Path.cwd()]
        if input_name is not None and os.path.isfile(input_name):
            folders.append(Path(input_name).parent)
        folders.extend(Path(folder) for folder in extra)
        resolved: dict[Path, None] = {}
        for folder in folders:
            try:
                path = folder.resolve(strict=True)
            except (OSError, RuntimeError):  # missing, or a link loop
                continue
            if path.is_dir() and not _in_system_folder(path):
                resolved.setdefault(path)
        return SourcePolicy(tuple(resolved))

    def admits(self, name: str) -> Path | None:
        """The resolved file behind location file ``name`` if it may be embedded, else None."""
        if Path(name).suffix.lower() not in SOURCE_SUFFIXES:
            return None
        try:
            path = Path(name).resolve(strict=True)
        except (OSError, RuntimeError, ValueError):  # missing, a link loop, a NUL in the name
            return None
        if path.suffix.lower() not in SOURCE_SUFFIXES or _in_system_folder(path):
            return None
        return path if any(_plainly_under(path, folder) for folder in self.folders) else None


def _in_system_folder(path: Path) -> bool:
    return any(path == folder or path.is_relative_to(folder) for folder in SYSTEM_FOLDERS)


def _plainly_under(path: Path, folder: Path) -> bool:
    """Whether ``path`` lies under ``folder`` with no hidden folder or file on the way."""
    if not path.is_relative_to(folder):
        return False
    return not any(part.startswith(".") for part in path.relative_to(folder).parts)


def read_source(path: Path) -> str | None:
    """The UTF-8 text of the regular file ``path``, if it is at most ``MAX_FILE`` bytes."""
    try:
        # O_NONBLOCK: a FIFO put in the file's place after the check must not block the open.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as stream:
        info = os.fstat(stream.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE:
            return None
        data = stream.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def read_sources(initial: InitialState, policy: SourcePolicy) -> dict[str, str]:
    """The text of each file the initial IR's op locations name that ``policy`` admits,
    keyed by the name the locations use."""
    locations = (info["loc"] for info in initial["delta"].get("ops_created", ()) if "loc" in info)
    sources: dict[str, str] = {}
    total = 0
    for name in located_files(locations):
        if len(sources) >= MAX_FILES:
            break
        path = policy.admits(name)
        text = read_source(path) if path is not None else None
        if text is None:
            continue
        size = len(text.encode("utf-8"))
        if total + size > MAX_TOTAL:
            break
        sources[name] = text
        total += size
    return sources


def describe_sources(sources: dict[str, str]) -> list[str]:
    """Lines saying which source files a trace carries, for ``steps`` and ``validate``."""
    if not sources:
        return ["embedded sources: none"]
    lines = [f"embedded sources ({len(sources)}):"]
    lines += [
        f"  {name} ({len(text.encode('utf-8', 'surrogatepass')):,} bytes)" for name, text in sources.items()
    ]
    return lines
