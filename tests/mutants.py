"""Type-confused trace records, made from a real trace by a seeded generator.

Each field of each kind of record (header, step, end, run), the fields of
the deltas included, is replaced by each JSON type (``VALUES``) and by ids
of its kind that are unknown or belong elsewhere, or deleted; each object
gets a field it may not have, and each id-keyed map a key that is no id.
A field is taken once per shape of path (``ops_created/*/results/*/type``):
at an occurrence the seed picks, in the record that holds it.

    python -m tests.mutants TRACE [SEED]    # how many mutants, by change
"""

from __future__ import annotations

import copy
import json
import random
import re
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias, cast

FieldPath: TypeAlias = tuple[str | int, ...]
"""Where a field is in a record: keys and list indices."""

_SCALARS: dict[str, object] = {
    "null": None,
    "bool": True,
    "int": 7,
    "negative": -1,
    "float": 1.5,
    "integral float": 2.0,
    "string": "x",
    "empty string": "",
    "list": [],
    "object": {},
}
VALUES: dict[str, object] = _SCALARS | {
    f"list of {name}": [value] for name, value in _SCALARS.items() if name != "list"
}
"""A value of each JSON type, and a list of each."""

MAPS = frozenset(
    ("texts", "block_args", "block_names", "region_blocks", "attrs", "props", "sources", "syntax", "aliases")
)
"""The fields whose objects are maps (any key, or id keys), not records with named fields."""

_ID = re.compile(r"([obrv])[0-9]+")


@dataclass(frozen=True)
class Mutant:
    """One change to one record of a trace: ``line`` is the record's index in the file."""

    line: int
    path: FieldPath
    change: str
    value: object = None

    def __str__(self) -> str:
        where = "/".join(map(str, self.path)) or "(record)"
        return f"record {self.line}: {where}: {self.change}"

    def apply(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``records`` with this change made (a new list; only the changed record is copied)."""
        changed = list(records)
        changed[self.line] = self.record(records)
        return changed

    def record(self, records: list[dict[str, Any]]) -> dict[str, Any]:
        """The changed record: a copy of ``records[line]`` with this change made."""
        changed = copy.deepcopy(records[self.line])
        if not self.path:  # the record itself
            changed["surprise"] = 1
            return changed
        parent: Any = changed
        for step in self.path[:-1]:
            parent = parent[step]
        last = self.path[-1]
        if self.change == "deleted":
            del parent[last]
        elif self.change.startswith("key "):
            parent[self.value] = parent.pop(last)
        elif self.change == "extra field":
            parent[last]["surprise"] = 1
        else:
            parent[last] = copy.deepcopy(self.value)
        return changed


def shape(path: FieldPath) -> tuple[str, ...]:
    """A path with its list indices and map keys as ``*``: the field it stands for, wherever it is."""
    out: list[str] = []
    for index, step in enumerate(path):
        in_map = index > 0 and path[index - 1] in MAPS
        out.append("*" if isinstance(step, int) or in_map else step)
    return tuple(out)


def _fields(value: object, path: FieldPath = ()) -> Iterator[tuple[FieldPath, object]]:
    """Every field and list item under ``value``, with its path, parents first."""
    if isinstance(value, dict):
        for key, item in cast(dict[str, object], value).items():
            yield (*path, key), item
            yield from _fields(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(cast(list[object], value)):
            yield (*path, index), item
            yield from _fields(item, (*path, index))


def _kind(record: dict[str, Any]) -> str:
    return str(record.get("record", "step"))


def _ids(records: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Every id the records hold, by its letter."""
    found: dict[str, set[str]] = {}
    for record in records:
        for _, item in _fields(record):
            if isinstance(item, str) and (match := _ID.fullmatch(item)):
                found.setdefault(match.group(1), set()).add(item)
    return {letter: sorted(ids) for letter, ids in found.items()}


def mutants(records: list[dict[str, Any]], seed: int = 0) -> list[Mutant]:
    """The mutants of ``records`` (a trace file's, in order) for ``seed``."""
    rng = random.Random(seed)
    ids = _ids(records)
    places: dict[tuple[str, tuple[str, ...]], list[tuple[int, FieldPath, object]]] = {}
    for line, record in enumerate(records):
        for path, item in _fields(record):
            places.setdefault((_kind(record), shape(path)), []).append((line, path, item))
    out: list[Mutant] = []
    for kind in sorted({_kind(record) for record in records}):
        line = rng.choice([line for line, record in enumerate(records) if _kind(record) == kind])
        out.append(Mutant(line, (), "extra field"))
    for key in sorted(places):
        line, path, item = rng.choice(places[key])
        out.extend(_changes(line, path, item, ids, rng))
    return out


def _changes(
    line: int, path: FieldPath, item: object, ids: dict[str, list[str]], rng: random.Random
) -> Iterator[Mutant]:
    last = path[-1]
    parent_is_map = len(path) > 1 and path[-2] in MAPS
    for name, value in VALUES.items():
        yield Mutant(line, path, name, value)
    if isinstance(item, str) and (match := _ID.fullmatch(item)):
        letter = match.group(1)
        yield Mutant(line, path, "unknown id", f"{letter}999999")
        yield Mutant(line, path, "another id", rng.choice(ids[letter]))
        yield Mutant(line, path, "another kind of id", "o0" if letter != "o" else "v0")
    if isinstance(last, str):
        yield Mutant(line, path, "deleted")
    if parent_is_map:
        yield Mutant(line, path, "key x", "x")
        if _ID.fullmatch(str(last)):
            yield Mutant(line, path, "key unknown id", f"{str(last)[0]}999999")
    if isinstance(item, dict) and last not in MAPS:
        yield Mutant(line, path, "extra field")


def enriched(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``records`` (a trace's, with a rewrite that creates a block) with every optional field a
    recorder may leave out given a valid value somewhere: a flag, a chain, dispatch regions, block
    names, arguments added, sources, and a run record with every field."""
    out = copy.deepcopy(records)
    steps = [record for record in out if "index" in record]
    rewrite = next(step for step in steps if step["kind"] == "rewrite" and "root" in step)
    rewrite["flag"] = {"kind": "verify", "message": "m", "detail": "d", "cycle": ["a", "b"]}
    rewrite["chain"] = [rewrite["root"], rewrite["root"]]
    rewrite["dispatch"] = [[rewrite["root"]]]
    creates = next(step for step in steps if step.get("delta", {}).get("blocks_created"))
    block = creates["delta"]["blocks_created"][0]
    creates["delta"]["block_names"] = {block["id"]: "named"}
    creates["delta"]["args_added"] = [arg["id"] for arg in block["args"]]
    out[0]["sources"] = {"f.py": "x = 1\n"}
    out.append(
        {
            "record": "run",
            "step": 0,
            "backend": "cpu",
            "origin": "bisect",
            "first": True,
            "reference": "initial",
            "inputs": "abc",
            "spec": "--grid 1 --seed 0",
            "outputs": "def",
            "verdict": "differs",
            "max_error": 0.5,
            "count": 1,
            "differences": [{"buffer": "out", "index": 0, "expected": 1.0, "got": "nan"}],
            "device": "cpu",
            "time_ms": 1.5,
            "gbps": 2.0,
            "message": "m",
        }
    )
    return out


def read_records(path: Path) -> list[dict[str, Any]]:
    """The records of an NDJSON trace file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_records(path: Path, records: list[dict[str, Any]]) -> None:
    """Write ``records`` as an NDJSON trace file (``\\ud800`` and the like kept as escapes)."""
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")


if __name__ == "__main__":
    found = mutants(read_records(Path(sys.argv[1])), int(sys.argv[2]) if len(sys.argv) > 2 else 0)
    print(len(found), "mutants")
    for change, count in Counter(m.change for m in found).most_common():
        print(f"{count:6}  {change}")
