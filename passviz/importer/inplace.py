"""A snapshot that prints as the one before but for a few one-line ops near each other, naming
the same values (a pass that rewrote an op or two, or moved a location), or for the line that
starts an op with regions (a module's attributes): read as the one before with those ops
replaced in place, without reading the rest again."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from passviz.importer.reader import (
    LineCache,
    Op,
    Snapshot,
    expand_aliases,
    goes_on,
    read_header_as,
    read_line_as,
)

_LINES = 16
"""The most lines, from the first that changed to the last, read in place."""
_STEP = 1 << 15
"""How much of two texts ``_common_head`` and ``_common_tail`` compare at once, at first."""


@dataclass
class InPlace:
    """The snapshot read in place: each op that changed with the op that replaces it (in the
    text's order), and the snapshot as it will be once they are in place."""

    pairs: list[tuple[Op, Op]]
    snapshot: Snapshot


def read_in_place(previous: Snapshot, text: str, lines: LineCache) -> InPlace | None:
    """``text`` (a snapshot printed after ``previous``, read before) as ``previous`` with a few
    one-line ops replaced; None where it is not that."""
    if not previous.body or "{-#" in text:
        return None
    body, aliases = expand_aliases(text)
    body = body if body.endswith("\n") else body + "\n"
    changed = changed_lines(previous.body, body)
    if not changed:
        return None
    pairs: list[tuple[Op, Op]] = []
    for at, new_at, was, line in changed:
        old = previous.starts.get(at)
        indent = len(was) - len(was.lstrip(" "))
        if (
            old is None
            or line[:indent] != " " * indent
            or line[indent : indent + 1] in ("", " ", "\t", "}", "^")
        ):
            return None
        if old.regions:
            new = read_header_as(line[indent:], old)
        elif goes_on(body, new_at + len(line) + 1, indent):
            return None
        else:
            new = read_line_as(line[indent:], old, lines)
        if new is None:
            return None
        pairs.append((old, new))
    if len(pairs) > 1 and any(old.regions for old, _ in pairs):
        return None  # (a line that starts an op with regions is read in place alone)
    # The ops of the new text, by where their lines start there.
    moved = [at for at, _, _, _ in changed]
    shifts = [0]
    for _, _, was, line in changed:
        shifts.append(shifts[-1] + len(line) - len(was))
    starts = {at + shifts[bisect_left(moved, at)]: op for at, op in previous.starts.items()}
    for (_, new_at, _, _), (_, new) in zip(changed, pairs, strict=True):
        starts[new_at] = new
    top = next((new for old, new in pairs if old is previous.top), previous.top)
    return InPlace(pairs, Snapshot(top, aliases, body, starts))


def changed_lines(old: str, new: str) -> list[tuple[int, int, str, str]] | None:
    """The lines where ``new`` differs from ``old`` (each ending with a line break): where each
    starts in ``old`` and in ``new``, and the line in each; None where the two do not have the
    same lines but for a few, near each other (at most ``_LINES`` from the first to the last)."""
    if old == new:
        return []
    common = min(len(old), len(new))
    head = _common_head(old, new, common)
    tail = _common_tail(old, new, common - head)
    start = old.rfind("\n", 0, head) + 1
    stop_old = old.find("\n", max(len(old) - tail - 1, start))
    stop_new = new.find("\n", max(len(new) - tail - 1, start))
    if stop_old < 0 or stop_new < 0 or old[stop_old:] != new[stop_new:]:
        return None
    were, are = old[start:stop_old].split("\n"), new[start:stop_new].split("\n")
    if len(were) != len(are) or len(were) > _LINES:
        return None
    changed: list[tuple[int, int, str, str]] = []
    at_old = at_new = start
    for was, line in zip(were, are, strict=True):
        if was != line:
            changed.append((at_old, at_new, was, line))
        at_old += len(was) + 1
        at_new += len(line) + 1
    return changed


def _common_head(a: str, b: str, most: int) -> int:
    """How many characters ``a`` and ``b`` begin with alike (at most ``most``): compared a stretch
    at a time, then halving the stretch that differs."""
    same = 0
    while same + _STEP <= most and a[same : same + _STEP] == b[same : same + _STEP]:
        same += _STEP
    high = min(same + _STEP, most)
    while same < high:
        middle = (same + high + 1) // 2
        if a[same:middle] == b[same:middle]:
            same = middle
        else:
            high = middle - 1
    return same


def _common_tail(a: str, b: str, most: int) -> int:
    """How many characters ``a`` and ``b`` end with alike (at most ``most``), as ``_common_head``."""
    ends = len(a), len(b)
    same = 0
    while (
        same + _STEP <= most
        and a[ends[0] - same - _STEP : ends[0] - same] == b[ends[1] - same - _STEP : ends[1] - same]
    ):
        same += _STEP
    high = min(same + _STEP, most)
    while same < high:
        middle = (same + high + 1) // 2
        if a[ends[0] - middle : ends[0] - same] == b[ends[1] - middle : ends[1] - same]:
            same = middle
        else:
            high = middle - 1
    return same


__all__ = ["InPlace", "changed_lines", "read_in_place"]
