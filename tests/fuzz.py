"""A seeded fuzz campaign against the passviz command line.

Inputs are mutations of the peer test files (``../shared/peer``) and of
traces recorded from them, plus hand-made hostile inputs (deep nesting, huge
literals, invalid UTF-8, alias bombs, crafted trace records), plus four
generated classes (``CLASSES``): trace records with a field of the wrong JSON
type, huge or deep expressions (affine maps and sets, strided layouts, integer
widths, ``dense`` hex), aliases that fan out (locations defined after their
use), and gzip traces of a high compression ratio.  Each case runs
one command in a worker process with a memory limit; a case that outlives its
time limit kills the worker, which starts again at the next case.

Every case ends in one of these outcomes:

- ``ok``: exit status 0, output free of control characters;
- ``error``: a non-zero status with one line ``passviz: error: ...``;
- ``traceback``: an exception escaped the command (or it printed a traceback);
- ``unclean``: a non-zero status with some other message, or raw control
  characters on the terminal;
- ``memory``: ``MemoryError`` under the worker's memory limit;
- ``hang``: the command ran past the time limit.

Only ``ok`` and ``error`` are acceptable.  Run a campaign by hand with
``python -m tests.fuzz --cases 2400 --seed 1``; the summary counts outcomes by
case name (the class), and ``--json`` keeps each case's name, variant and
command.  ``PASSVIZ_PEER`` names the peer folder for a copy of the checkout
elsewhere.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gzip
import io
import json
import os
import queue
import random
import re
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, cast


def _peer_folder() -> Path:
    """``$PASSVIZ_PEER``, else ``../shared/peer`` beside the checkout, else ``/tmp/shared/peer``.

    A copy of the checkout elsewhere (an older commit's, to compare with) names
    the peer files by the variable."""
    if named := os.environ.get("PASSVIZ_PEER"):
        return Path(named)
    beside = Path(__file__).resolve().parents[2] / "shared" / "peer"
    return beside if beside.is_dir() else Path("/tmp/shared/peer")


PEER = _peer_folder()
"""The peer ``.mlir`` files, split into chunks for mutation."""

ACCEPTABLE = {"ok", "error"}
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b]")
"""Characters that must never reach a terminal raw (tab and newline are fine)."""


@dataclass
class Case:
    """One input and the command run on it."""

    name: str
    """What made the input, for the report."""
    kind: str
    """``mlir`` or ``trace``: which file the command reads."""
    data: str
    """The input file's bytes, as latin-1 text so that any byte survives JSON."""
    argv: list[str]
    """The command, with ``{input}`` and ``{out}`` for the file paths."""
    variant: str = ""
    """Which input of its class, in a few words (``step.kind=list-of-str``), for the report."""


@dataclass
class Outcome:
    """What one case did."""

    index: int
    name: str
    outcome: str
    seconds: float
    detail: str = ""
    variant: str = ""
    argv: list[str] = field(default_factory=list[str])


# -- inputs -------------------------------------------------------------------------


def peer_chunks() -> list[str]:
    """The peer ``.mlir`` files, split at ``// -----`` as their tools split them."""
    chunks: list[str] = []
    for path in sorted(PEER.rglob("*.mlir")):
        text = path.read_text("utf-8")
        chunks.extend(c for c in re.split(r"^// -----\s*$", text, flags=re.MULTILINE) if c.strip())
    return chunks


TOKENS = [
    "{", "}", "(", ")", "<", ">", "[", "]", '"', "%", "^bb0", "@", "#", "!", ":", "=", "->", ",",
    "dense<", "0x", "9" * 5000, "-" + "9" * 400, "1e99999", "tensor<300000000xi8>", "tensor<?x?x",
    "\x00", "\x1b]0;pwned\x07", "\u202e", "\\", '"' + "a" * 40, "%_0", "%0#1", "^bb99", "loc(",
    "i1234567", "f8E4M3", "memref<", "affine_map<(d0) -> (d0)>", "#map = ", "!tt.ptr<", "}}}}", "((((",
]  # fmt: skip
"""Fragments that parsers trip on, inserted at random places."""


def mutate_text(text: str, rng: random.Random) -> str:
    """``text`` with one to three random edits."""
    for _ in range(rng.randint(1, 3)):
        if not text:
            text = rng.choice(TOKENS)
        at = rng.randrange(len(text) + 1)
        span = rng.randint(1, 40)
        choice = rng.randrange(6)
        if choice == 0:
            text = text[:at] + text[at + span :]
        elif choice == 1:
            text = text[:at] + text[at : at + span] * rng.randint(2, 4) + text[at:]
        elif choice == 2:
            text = text[:at] + rng.choice(TOKENS) + text[at:]
        elif choice == 3:
            lines = text.splitlines(keepends=True)
            if len(lines) > 2:
                i, j = rng.sample(range(len(lines)), 2)
                lines[i], lines[j] = lines[j], lines[i]
            text = "".join(lines)
        elif choice == 4:
            digits = re.compile(r"\d+")
            found = list(digits.finditer(text))
            if found:
                m = rng.choice(found)
                text = text[: m.start()] + rng.choice(["0", "-1", "4294967296", "9" * 30]) + text[m.end() :]
        else:
            text = text[:at]  # truncated
    return text


def nested_regions(depth: int) -> str:
    """A valid module with ``depth`` nested ``scf.execute_region``s."""
    open_ = "".join(f"  %r{i} = scf.execute_region -> i32 {{\n" for i in range(depth))
    close = "".join(f"  scf.yield %r{i} : i32\n  }}\n" for i in reversed(range(1, depth)))
    return (
        "func.func @deep() -> i32 {\n"
        f"{open_}  %c = arith.constant 1 : i32\n  scf.yield %c : i32\n  }}\n{close}"
        "  func.return %r0 : i32\n}\n"
    )


def alias_bomb(depth: int) -> str:
    """Type aliases that each double the one before."""
    lines = ["!t0 = tuple<i32, i32>"]
    lines += [f"!t{i} = tuple<!t{i - 1}, !t{i - 1}>" for i in range(1, depth)]
    return "\n".join(lines) + f"\nfunc.func private @f(!t{depth - 1})\n"


HOSTILE_MLIR: dict[str, Callable[[], str]] = {
    "nesting-200": lambda: nested_regions(200),
    "nesting-1000": lambda: nested_regions(1000),
    "nesting-5000": lambda: nested_regions(5000),
    "brackets-100000": lambda: "func.func @f() -> " + "tuple<" * 100_000 + "i32" + ">" * 100_000,
    "long-string": lambda: 'func.func @f() attributes {s = "' + "a" * 32 + "\n}",
    "long-string-escapes": lambda: '"' + "\\" * 5000 + "a" * 40,
    "huge-int": lambda: "%0 = arith.constant " + "9" * 5000 + " : i32",
    "huge-dense": lambda: (
        "func.func @f() -> tensor<300000000xi8> {\n"
        "  %0 = arith.constant dense<0> : tensor<300000000xi8>\n  func.return %0 : tensor<300000000xi8>\n}\n"
    ),
    "huge-dense-2d": lambda: "%0 = arith.constant dense<1.0> : tensor<100000x100000xf32>",
    "alias-bomb-20": lambda: alias_bomb(20),
    "alias-bomb-40": lambda: alias_bomb(40),
    "invalid-utf8": lambda: "func.func @f() {\n  func.return\n}\n\xff\xfe\xc0\x80",
    "undefined-value": lambda: "func.func @f() -> i32 {\n  func.return %nope : i32\n}\n",
    "control-chars": lambda: (
        'func.func @f() attributes {s = "\x1b]52;c;cHduZWQ=\x07\x1b[2J"} {\n  func.return\n}\n'
    ),
    "not-verifying": lambda: "func.func @f() -> i32 {\n  func.return\n}\n",
}
"""Hand-made inputs from the issue's reproducers, as bytes in latin-1 text (so that
``invalid-utf8`` holds bytes that are not UTF-8)."""


def _utf8(text: str) -> str:
    """``text``'s UTF-8 bytes as latin-1 text, as ``Case.data`` holds file contents."""
    return text.encode("utf-8").decode("latin-1")


def recorded_traces(chunks: list[str], count: int) -> list[str]:
    """Trace files recorded from the first ``count`` peer chunks that passviz traces."""
    from passviz.cli import main

    traces: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        for i, chunk in enumerate(chunks):
            if len(traces) >= count:
                break
            source, out = Path(folder, f"{i}.mlir"), Path(folder, f"{i}.json")
            source.write_text(chunk, "utf-8")
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                try:
                    if main(["trace", str(source), "-p", "canonicalize,cse", "-o", str(out)]) != 0:
                        continue
                except BaseException:  # noqa: BLE001 - a chunk passviz cannot trace is no seed
                    continue
            traces.append(out.read_bytes().decode("latin-1"))
    return traces


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in cast(dict[str, Any], value).items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(cast(list[Any], value)):
            yield from _paths(item, (*path, i))


RAW = "\x00RAW\x00"
"""Marks a value to be spliced into the JSON text as it is (numbers JSON cannot write)."""

REPLACEMENTS: list[Any] = [
    None, True, -1, 2**64, 2**1000, 1e308, "", "o3\n", "x" * 100_000, "\x1b]0;pwned\x07\x1b[2J",
    "</script><script>window.__pwned=1</script>", [], {}, [[[[]]]], {"kind": "nope"},
    RAW + "9" * 5000, RAW + "NaN", RAW + "-Infinity", RAW + "1e99999",
]  # fmt: skip


def mutate_trace(text: str, rng: random.Random) -> str:
    """A recorded trace with one hostile edit: a field replaced, a record dropped or the file cut."""
    lines = text.splitlines()
    choice = rng.randrange(5)
    if choice == 0:
        return text[: rng.randrange(len(text))]
    if choice == 1 and len(lines) > 2:
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines) + "\n"
    if choice == 2:
        depth = rng.choice([1000, 10_000, 100_000])
        line = rng.randrange(len(lines))
        lines[line] = "[" * depth + "]" * depth
        return "\n".join(lines) + "\n"
    try:
        line = rng.randrange(len(lines))
        record: Any = json.loads(lines[line])
    except ValueError:
        return mutate_text(text, rng)
    paths: list[tuple[Any, ...]] = list(_paths(record))[1:] or [()]
    path = rng.choice(paths)
    value = rng.choice(REPLACEMENTS)
    if not path:
        record = value
    else:
        holder: Any = record
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = value
    dumped = json.dumps(record, ensure_ascii=False, default=str)
    dumped = re.sub(r'"\\u0000RAW\\u0000([^"]*)"', r"\1", dumped)
    lines[line] = dumped
    return "\n".join(lines) + "\n"


def gzip_bomb(megabytes: int) -> str:
    """A small gzip file that expands to ``megabytes`` of spaces (a valid JSON prefix)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9) as out:
        block = b" " * (1 << 20)
        for _ in range(megabytes):
            out.write(block)
    return buffer.getvalue().decode("latin-1")


# -- type-confused trace records ----------------------------------------------------

DELTA_LISTS = [
    "ops_created", "ops_erased", "ops_modified", "ops_moved", "placed", "blocks_created", "blocks_erased",
    "blocks_moved", "blocks_split", "blocks_merged", "args_added", "args_removed", "replaced",
]  # fmt: skip
"""The delta fields that hold lists (of ids, or of objects: see ``REQUIRED``)."""

DELTA_MAPS = ["block_args", "block_names", "region_blocks", "texts"]
"""The delta fields that hold objects keyed by id."""

REQUIRED: dict[str, tuple[str, ...]] = {
    "ops_created": ("id", "name", "operands", "results"),
    "ops_modified": ("id",),
    "placed": ("id", "block", "after"),
    "blocks_created": ("id", "args"),
    "blocks_split": ("block", "source"),
    "blocks_merged": ("block", "into"),
    "replaced": ("op", "values", "by"),
}
"""The required keys of the objects in each list of objects, from ``trace.schema.json``."""

STEP_FIELDS = ["kind", "index", "name", "pass", "pass_index", "root", "delta", "flag", "chain", "dispatch"]
META_FIELDS = ["input", "pipeline", "passviz_version", "xdsl_version", "verify_each", "syntax", "aliases"]
HEADER_FIELDS = ["record", "format", "version", "meta", "initial", "sources"]
END_FIELDS = ["record", "status", "steps"]

OTHER_TYPES: list[Any] = [
    None, True, False, 0, -1, 7, 2.5, 1e300, "", "o1", "rewrite", "\ud800", [], [None], ["o1"], [[]], {},
    {"id": "o1"}, {"kind": "rewrite"},
]  # fmt: skip
"""Values of every JSON type, to put where a field holds another type."""

WRONG_ITEMS: list[Any] = [None, True, 0, 3.5, "o1", "", [], ["o1"], {}, {"id": 1}]
"""Items for a list whose items are of another type (ids, or objects)."""

SURROGATES = ["\ud800", "\udfff", "\udc00\ud800", "\ud83d", "a\ud800b", "\ud800" * 64]
"""Lone (unpaired) UTF-16 surrogates: JSON may escape them, UTF-8 cannot hold them."""


def _type_name(value: Any) -> str:
    """A short name of ``value``'s JSON type for the variant (``list-of-int``, ``null``)."""
    if value is None:
        return "null"
    if isinstance(value, list):
        items = cast(list[Any], value)
        return f"list-of-{_type_name(items[0])}" if items else "list"
    names: dict[type, str] = {bool: "bool", int: "int", float: "float", str: "str", dict: "object"}
    kind: type = type(cast(object, value))
    return names.get(kind, kind.__name__)


def _other_type(current: Any, rng: random.Random) -> Any:
    """A value from ``OTHER_TYPES`` of another JSON type than ``current``."""
    choices = [v for v in OTHER_TYPES if _type_name(v) != _type_name(current) or current is None]
    return rng.choice(choices)


def _ids(initial: dict[str, Any], prefix: str) -> list[str]:
    """Ids of the initial IR's ops (``o``), blocks (``b``) or values (``v``), in the order found."""
    found = re.findall(rf'"({prefix}[0-9]+)"', json.dumps(initial))
    return list(dict.fromkeys(found)) or [f"{prefix}0"]


def _sample_item(field_name: str, initial: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A well-formed object for the list ``field_name``, naming ids of the initial IR."""
    ops, blocks, values = _ids(initial, "o"), _ids(initial, "b"), _ids(initial, "v")
    created = initial.get("delta", {}).get(field_name)
    if isinstance(created, list) and created and isinstance(created[0], dict):
        return json.loads(json.dumps(rng.choice(cast(list[Any], created))))
    samples: dict[str, dict[str, Any]] = {
        "ops_created": {
            "id": "o9000", "name": "arith.constant", "operands": [],
            "results": [{"id": "v9000", "type": "i32"}], "props": {"value": "1 : i32"},
        },
        "ops_modified": {"id": rng.choice(ops), "operands": [rng.choice(values)]},
        "placed": {"id": rng.choice(ops), "block": rng.choice(blocks), "after": None},
        "blocks_created": {"id": "b9000", "args": [{"id": "v9001", "type": "i32"}]},
        "blocks_split": {"block": "b9000", "source": rng.choice(blocks)},
        "blocks_merged": {"block": rng.choice(blocks), "into": rng.choice(blocks)},
        "replaced": {"op": rng.choice(ops), "values": [[rng.choice(values), None]], "by": []},
    }  # fmt: skip
    return samples[field_name]


NESTED_WRONG: dict[str, list[Any]] = {
    "values": [[["v1"]], [[1, 2]], ["v1", "v2"], [[None]], [["v1", "v2", "v3"]], "v1"],
    "results": [[{"id": 5, "type": None}], [{"id": "v1"}], ["v1"], {"id": "v1", "type": "i32"}],
    "args": [[{"type": "i32"}], [{"id": "v1", "type": 32}], ["v1"], {}],
    "operands": ["v1", [1], [None], [{"id": "v1"}]],
    "by": ["o1", [1], [["o1"]], None],
    "after": [1, ["o1"], {}, True],
}
"""Wrong values for the fields of delta objects that hold more than one string."""


def _confused_list(
    field_name: str, current: Any, initial: dict[str, Any], rng: random.Random
) -> tuple[Any, str]:
    """A bad value for the delta list ``field_name``, and a few words saying how it is bad."""
    objects = field_name in REQUIRED
    choice = rng.randrange(4 if objects else 2)
    if choice == 0:  # not a list at all
        value = rng.choice([v for v in OTHER_TYPES if not isinstance(v, list)])
        return value, _type_name(value)
    if choice == 1:  # a list of the wrong items: of anything but ids, or anything but objects
        item = rng.choice([v for v in WRONG_ITEMS if not isinstance(v, dict if objects else str)])
        if isinstance(current, list) and current and rng.random() < 0.5:
            return [*cast(list[Any], current), item], f"list-with-{_type_name(item)}"
        return [item], f"list-of-{_type_name(item)}"
    item = _sample_item(field_name, initial, rng)
    key = rng.choice([k for k in item if k in REQUIRED[field_name]] or list(item))
    if choice == 2:  # an object missing a required key
        del item[key]
        return [item], f"item-without-{key}"
    item[key] = rng.choice(NESTED_WRONG.get(key, [None, 1, [], {}, True, ["x"]]))
    if rng.random() < 0.3 and field_name in ("ops_created", "ops_modified"):
        # an attribute whose printed text is not a string
        cast(dict[str, Any], item.setdefault("attrs", {}))["a"] = rng.choice([1, None, ["x"], {"b": "c"}])
    return [item], f"item-{key}={_type_name(item[key])}"


def _confused_map(field_name: str, initial: dict[str, Any], rng: random.Random) -> tuple[Any, str]:
    """A bad value for the delta object ``field_name`` (``texts``, ``block_args``, ...)."""
    ops, blocks = _ids(initial, "o"), _ids(initial, "b")
    key = rng.choice(ops if field_name == "texts" else blocks)
    value = rng.choice([
        {key: rng.choice([None, 5, True, ["x"], {}, [{"id": 1}], [None], "\ud800"])},
        {"1": "x"}, {"": []}, {key: rng.choice(SURROGATES)}, ["x"], "x", 0, None, [[key, "x"]],
    ])  # fmt: skip
    return value, _type_name(value)


def _rewrite_step(records: list[dict[str, Any]], initial: dict[str, Any], rng: random.Random) -> int:
    """The index in ``records`` of a rewrite step, inserted after the first pass-begin if there is none.

    Recorded traces of small inputs seldom rewrite; a bad delta is only read
    (applied, compared, shown) in a step of a kind that has one."""
    found = [i for i, r in enumerate(records) if r.get("kind") == "rewrite"]
    if found:
        return rng.choice(found)
    at = next((i + 1 for i, r in enumerate(records) if r.get("kind") == "pass-begin"), 1)
    index = records[at - 1].get("index", -1) + 1 if at > 1 else 0
    root = rng.choice(_ids(initial, "o"))
    records.insert(at, {"index": index, "kind": "rewrite", "name": "fuzz", "root": root, "delta": {}})
    for record in records[at + 1 :]:  # keep the numbering whole: only the confused field is wrong
        if isinstance(record.get("index"), int) and "kind" in record:
            record["index"] += 1
        if record.get("record") == "end" and isinstance(record.get("steps"), int):
            record["steps"] += 1
    return at


def _surrogate_site(records: list[dict[str, Any]], initial: dict[str, Any], rng: random.Random) -> str:
    """Put a lone surrogate into a name or a text somewhere in ``records``; say where."""
    lone = rng.choice(SURROGATES)
    delta: dict[str, Any] = initial.get("delta", {})
    ops = [cast(dict[str, Any], o) for o in delta.get("ops_created", []) if isinstance(o, dict)]
    choice = rng.randrange(7)
    if choice == 0 and ops:
        op = rng.choice(ops)
        op["name"] = rng.choice([lone, "arith." + lone, op.get("name", "") + lone])
        return "initial.ops_created.name"
    if choice == 1 and delta.get("texts"):
        texts: dict[str, Any] = delta["texts"]
        key = rng.choice(list(texts))
        text = str(texts[key])
        at = rng.randrange(len(text) + 1)
        texts[key] = text[:at] + lone + text[at:]
        return "initial.texts"
    if choice == 2 and ops:
        op = rng.choice(ops)
        cast(dict[str, str], op.setdefault("attrs", {}))[rng.choice(["note", lone])] = f'"{lone}"'
        return "initial.ops_created.attrs"
    if choice == 3:
        records[0].setdefault("meta", {})[rng.choice(["input", "pipeline"])] = lone
        return "meta"
    if choice == 4:
        at = _rewrite_step(records, initial, rng)
        op = rng.choice(_ids(initial, "o"))
        records[at]["delta"].setdefault("texts", {})[op] = f"%0 = arith.constant {lone} : i32"
        return "step.texts"
    if choice == 5 and ops and any(o.get("results") for o in ops):
        op = rng.choice([o for o in ops if o.get("results")])
        op["results"][0][rng.choice(["type", "name"])] = lone
        return "initial.results"
    steps = [r for r in records if "kind" in r]
    step = rng.choice(steps or [records[0]])
    step[rng.choice(["name", "pass"])] = lone
    return "step.name"


def type_confused_trace(text: str, rng: random.Random) -> tuple[str, str]:
    """A recorded trace with one field of one record holding a value of another JSON type.

    Returns the trace and the variant (``step.kind=list-of-str``).  Records are
    written with ``ensure_ascii``, so a lone surrogate is the JSON escape
    ``\\ud800``, as a hand-made or foreign writer may put it."""
    records: list[dict[str, Any]] = [json.loads(line) for line in text.splitlines() if line.strip()]
    header = records[0]
    initial: dict[str, Any] = header.get("initial") or {}
    site = rng.choices(["meta", "header", "initial", "kind", "step", "delta", "end", "surrogate"],
                       weights=[2, 1, 3, 1, 2, 4, 1, 2])[0]  # fmt: skip
    if site == "meta":
        meta = header["meta"]
        key = rng.choice(META_FIELDS)
        meta[key] = value = _other_type(meta.get(key), rng)
        variant = f"meta.{key}={_type_name(value)}"
    elif site == "header":
        key = rng.choice(HEADER_FIELDS)
        header[key] = value = _other_type(header.get(key), rng)
        variant = f"header.{key}={_type_name(value)}"
    elif site == "initial":
        delta = cast(dict[str, Any], initial.setdefault("delta", {}))
        key = rng.choice(["root", "delta", "delta", *DELTA_LISTS, *DELTA_MAPS])
        if key in ("root", "delta"):
            initial[key] = value = _other_type(initial.get(key), rng)
            variant = f"initial.{key}={_type_name(value)}"
        elif key in DELTA_MAPS:
            delta[key], how = _confused_map(key, initial, rng)
            variant = f"initial.{key}={how}"
        else:
            value, how = _confused_list(key, delta.get(key), initial, rng)
            current = delta.get(key)
            if isinstance(current, list) and current and isinstance(value, list) and rng.random() < 0.7:
                # one bad entry among the good ones, as a damaged record would have it (the bad
                # item is the last one: a "list-with" value holds the good ones first)
                entries = cast(list[Any], current)
                entries[rng.randrange(len(entries))] = cast(list[Any], value)[-1]
                variant = f"initial.{key}[i]:{how}"
            else:
                delta[key] = value
                variant = f"initial.{key}={how}"
    elif site in ("kind", "step"):
        steps = [i for i, r in enumerate(records) if "kind" in r] or [_rewrite_step(records, initial, rng)]
        step = records[rng.choice(steps)]
        key = "kind" if site == "kind" else rng.choice(STEP_FIELDS)
        if key == "kind" and rng.random() < 0.6:  # a list kind: unhashable where kinds are looked up
            value = rng.choice([[step["kind"]], ["rewrite", "pass-end"], [], [["rewrite"]]])
        else:
            value = _other_type(step.get(key), rng)
        step[key] = value
        variant = f"step.{key}={_type_name(value)}"
    elif site == "delta":
        step = records[_rewrite_step(records, initial, rng)]
        key = rng.choice([*DELTA_LISTS, *DELTA_MAPS])
        if key in DELTA_MAPS:
            value, how = _confused_map(key, initial, rng)
        else:
            value, how = _confused_list(key, step["delta"].get(key), initial, rng)
        if isinstance(step.get("delta"), dict):
            step["delta"][key] = value
        variant = f"step.delta.{key}={how}"
    elif site == "end" and records[-1].get("record") == "end":
        key = rng.choice(END_FIELDS)
        records[-1][key] = value = _other_type(records[-1].get(key), rng)
        variant = f"end.{key}={_type_name(value)}"
    else:
        variant = "surrogate:" + _surrogate_site(records, initial, rng)
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records), variant


# -- expression depth ---------------------------------------------------------------


def _log_uniform(rng: random.Random, low: int, high: int) -> int:
    """An integer from ``low`` to ``high``, as often in each power of ten (most cases stay small)."""
    return int(round(low * (high / low) ** rng.random()))


def _affine_term(rng: random.Random, dims: int, symbols: int) -> str:
    """One term of an affine expression over ``d0..`` and ``s0..``."""
    d = f"d{rng.randrange(dims)}"
    s = f"s{rng.randrange(symbols)}" if symbols else d
    k = rng.choice([1, 2, 3, 7, 64, 1 << 31, 10**18])
    return rng.choice([d, s, f"{d} * {k}", f"{k} * {s}", f"{d} floordiv {k}", f"{d} mod {k}",
                       f"{d} ceildiv {k}", str(k), f"-{d}", f"({d} + {k})"])  # fmt: skip


def affine_expression(rng: random.Random, dims: int, symbols: int) -> tuple[str, str]:
    """A long or deep affine expression over ``dims`` dims and ``symbols`` symbols, and its shape in words."""
    shape = rng.choice(["sum", "sum", "product", "parens", "right-nested", "left-nested", "negations"])
    if shape == "sum":
        n = _log_uniform(rng, 100, 30_000)
        ops = [rng.choice([" + ", " - "]) for _ in range(n - 1)]
        terms = [_affine_term(rng, dims, symbols) for _ in range(n)]
        return "".join(t + o for t, o in zip(terms, [*ops, ""], strict=True)), f"sum-{n}"
    if shape == "product":  # constant factors only, so it stays affine; the coefficient grows huge
        n = _log_uniform(rng, 100, 20_000)
        factor = rng.choice(["2", "7", "-3", "4294967297"])
        return "d0" + f" * {factor}" * n, f"product-{n}"
    depth = _log_uniform(rng, 100, 20_000)
    if shape == "parens":
        return "(" * depth + "d0" + ")" * depth, f"parens-{depth}"
    if shape == "right-nested":
        return "d0 + (" * depth + "d0" + ")" * depth, f"right-nested-{depth}"
    if shape == "left-nested":
        op = rng.choice([" floordiv 2", " mod 3", " + 1", " * 2", " ceildiv 5"])
        return "(" * depth + "d0" + f"{op})" * depth, f"left-nested-{depth}"
    return "-(" * depth + "d0" + ")" * depth, f"negations-{depth}"


def _func(body: str, args: str = "%a: index, %b: index, %c: index", results: str = "") -> str:
    """A function with ``body`` (indented lines) that returns nothing."""
    return f"func.func @f({args}){results} {{\n{body}  func.return\n}}\n"


def expression_depth(rng: random.Random) -> tuple[str, str]:
    """An ``.mlir`` input with a huge or deep expression, integer type or hex literal; and its variant."""
    use = rng.choices(["apply", "apply-inline", "attribute", "layout", "integer-set", "integer-set-many",
                       "strided", "rank", "int-width", "dense-hex"],
                      weights=[2, 1, 1, 1, 1, 1, 1, 1, 2, 2])[0]  # fmt: skip
    if use in ("apply", "apply-inline", "attribute", "layout"):
        dims, symbols = (2, 0) if use == "layout" else (2, 1)
        expr, shape = affine_expression(rng, dims, symbols)
        if use == "layout":
            memref = f"memref<4x4xf32, affine_map<(d0, d1) -> (d1, {expr})>>"
            return _func("", args=f"%m: {memref}"), f"layout:{shape}"
        map_ = f"affine_map<(d0, d1)[s0] -> ({expr})>"
        if use == "attribute":
            return (
                f"func.func @f() attributes {{m = {map_}, n = [{map_}]}} {{\n  func.return\n}}\n",
                f"attribute:{shape}",
            )
        if use == "apply":
            body = "  %0 = affine.apply #map(%a, %b)[%c]\n  %1 = affine.apply #map(%0, %0)[%0]\n"
            return f"#map = {map_}\n" + _func(body), f"apply:{shape}"
        return _func(f"  %0 = affine.apply {map_}(%a, %b)[%c]\n"), f"apply-inline:{shape}"
    if use in ("integer-set", "integer-set-many"):
        if use == "integer-set":
            expr, shape = affine_expression(rng, 1, 1)
            set_ = f"affine_set<(d0)[s0] : ({expr} >= 0, d0 - 1 == 0)>"
        else:  # many constraints rather than one long one
            n = _log_uniform(rng, 100, 20_000)
            constraints = ", ".join(f"d0 - {i} {rng.choice(['>=', '=='])} 0" for i in range(n))
            set_, shape = f"affine_set<(d0)[s0] : ({constraints})>", f"constraints-{n}"
        if rng.random() < 0.5:
            body = "  affine.if #set(%a)[%c] {\n  }\n"
            return f"#set = {set_}\n" + _func(body), f"affine-if:{shape}"
        return f"func.func @f() attributes {{s = {set_}}} {{\n  func.return\n}}\n", f"integer-set:{shape}"
    if use == "strided":
        rank = _log_uniform(rng, 10, 5_000)
        strides = ", ".join(rng.choice(["1", "?", "4", str(2**63), "9" * 40]) for _ in range(rank))
        offset = rng.choice(["0", "?", str(2**64), "-1"])
        memref = f"memref<{'2x' * rank}f32, strided<[{strides}], offset: {offset}>>"
        return _func("", args=f"%m: {memref}"), f"strided-rank-{rank}"
    if use == "rank":
        rank = _log_uniform(rng, 100, 50_000)
        tensor = f"{rng.choice(['tensor', 'memref', 'vector'])}<{'1x' * rank}f32>"
        return f"func.func private @f({tensor}) -> {tensor}\n", f"rank-{rank}"
    if use == "int-width":
        width = rng.choice(["i2000000000", "i16777216", "i16777215", "si99999999", "ui4294967296",
                            "i18446744073709551617", "si16777215", "i0", "ui65536"])  # fmt: skip
        form = rng.randrange(4)
        if form == 0:
            return (
                f"func.func private @f({width}, tensor<2x{width}>) -> {width}\n",
                f"int-width:signature:{width}",
            )
        value = rng.choice(["1", "-1", "0", "9" * 100, "0x" + "F" * 64])
        if form == 1:
            body = f"  %0 = arith.constant {value} : {width}\n  %1 = arith.addi %0, %0 : {width}\n"
            return _func(body, args=""), f"int-width:constant:{width}"
        if form == 2:
            body = f"  %0 = arith.constant dense<{value}> : tensor<4x{width}>\n"
            return _func(body, args=""), f"int-width:dense:{width}"
        return (
            f"func.func @f() attributes {{x = {value} : {width}}} {{\n  func.return\n}}\n",
            f"int-width:attribute:{width}",
        )
    element, size = rng.choice([("i32", 4), ("f32", 4), ("f16", 2), ("i8", 1), ("i1", 1), ("i64", 8),
                                ("complex<f32>", 8), ("f64", 8), ("i16777215", 2097152)])  # fmt: skip
    shape_ = rng.choice(["0", "0x4", "4x0", "3", "1", "2x2", "300000000", "7"])
    count = 1
    for dim in shape_.split("x"):
        count *= int(dim)
    hex_bytes = rng.choice([0, 1, size, size * min(count, 1000) + 1, size * min(count, 1000) - 1,
                            size * 3, 1 << 20])  # fmt: skip
    hex_bytes = min(hex_bytes, 1 << 20)  # an input of 2 MiB at most
    unit = "".join(rng.choice("0123456789ABCDEFabcdef") for _ in range(64))
    digits = (unit * (2 * hex_bytes // 64 + 1))[: 2 * hex_bytes]  # two digits a byte
    literal = rng.choice([f'"0x{digits}"', f'"0x{digits}"', f'"0x{digits[:-1] or "A"}"', f'"{digits}"',
                          '"0xZZ"', '"0x"'])  # fmt: skip
    type_ = f"tensor<{shape_}x{element}>"
    if rng.random() < 0.5:
        body = f"  %0 = arith.constant dense<{literal}> : {type_}\n"
        return _func(body, args=""), f"dense-hex:{type_}:{len(literal) - 2}-chars"
    return f"func.func @f() attributes {{d = dense<{literal}> : {type_}}} {{\n  func.return\n}}\n", (
        f"dense-hex-attribute:{type_}:{len(literal) - 2}-chars"
    )


# -- late alias fan-out -------------------------------------------------------------


def _location_level(style: str, i: int, rng: random.Random) -> str:
    """The location alias ``#l{i}``, naming ``#l{i+1}`` twice or more (or once, for a bare name)."""
    nxt = f"#l{i + 1}"
    if style == "mixed":
        style = rng.choice(["fused", "callsite", "named", "named-fused", "named-only"])
    if style == "fused":
        width = rng.choice([2, 2, 2, 3])
        meta = rng.choice(['<"fuzz">', "<#l_meta>"]) if rng.random() < 0.1 else ""  # MLIR's metadata
        return f"loc(fused{meta}[{', '.join([nxt] * width)}])"
    if style == "callsite":
        return f"loc(callsite({nxt} at {nxt}))"
    if style == "named":
        return f'loc("n{i}"(callsite({nxt} at {nxt})))'
    if style == "named-fused":
        return f'loc("n{i}"(fused[{nxt}, "x"({nxt})]))'
    return f'loc("n{i}"({nxt}))'  # no fan-out here: one child


def late_alias_fanout(rng: random.Random) -> tuple[str, str]:
    """Aliases that each name the next twice or more, ``depth`` levels; and the variant.

    Location aliases come after the module that uses them (MLIR resolves
    those at the end of the file); attribute and type aliases come before."""
    depth = rng.randint(10, 60)
    style = rng.choice(["fused", "callsite", "named", "mixed", "mixed", "attr-array", "attr-dict", "type-function",
                        "type-struct", "loc-early"])  # fmt: skip
    if style.startswith(("attr", "type")):
        if style == "attr-array":
            lines = ["#a0 = [1, 2]"] + [f"#a{i} = [#a{i - 1}, #a{i - 1}]" for i in range(1, depth)]
        elif style == "attr-dict":
            lines = ['#a0 = {x = "leaf"}'] + [
                f"#a{i} = {{p = #a{i - 1}, q = #a{i - 1}}}" for i in range(1, depth)
            ]
        elif style == "type-function":
            lines = ["!a0 = i32"] + [f"!a{i} = (!a{i - 1}, !a{i - 1}) -> !a{i - 1}" for i in range(1, depth)]
        else:
            lines = ["!a0 = i32"] + [f"!a{i} = !llvm.struct<(!a{i - 1}, !a{i - 1})>" for i in range(1, depth)]
        top = f"{'#' if style.startswith('attr') else '!'}a{depth - 1}"
        if style.startswith("attr"):
            lines.append(f"func.func @f() attributes {{x = {top}}} {{\n  func.return\n}}")
        else:
            lines.append(f"func.func private @f({top}) -> {top}")
        return "\n".join(lines) + "\n", f"{style}-{depth}"
    roots = [f"#l{rng.randrange(min(3, depth))}" for _ in range(4)]
    module = (
        f"func.func @f(%a: i32 loc({roots[0]})) -> i32 {{\n"
        f"  %0 = arith.addi %a, %a : i32 loc({roots[1]})\n"
        f"  func.return %0 : i32 loc({roots[2]})\n"
        f"}} loc({roots[3]})\n"
    )
    level = style if style != "loc-early" else rng.choice(["fused", "callsite", "mixed"])
    aliases = [f"#l{i} = {_location_level(level, i, rng)}" for i in range(depth)]
    leaf = rng.choices(['loc("f.py":1:2)', "loc(unknown)", 'loc("leaf")', 'loc("f.py":1:2 to 3:4)'],
                       weights=[4, 2, 2, 1])[0]  # fmt: skip
    aliases.append(f"#l{depth} = {leaf}")
    if any("#l_meta" in a for a in aliases):
        aliases.append('#l_meta = "meta"')
    if rng.random() < 0.5:  # leaf first: each alias names only ones already defined
        aliases.reverse()
    if style == "loc-early":
        return "\n".join(aliases) + "\n" + module, f"loc-early-{level}-{depth}"
    return module + "\n".join(aliases) + "\n", f"late-{style}-{depth}"


# -- decompression ratio ------------------------------------------------------------

MIB = 1 << 20


@functools.cache
def _deflated(chunk: bytes) -> bytes:
    """``chunk`` as raw deflate blocks that refer to nothing before them and end on a byte
    boundary without a final block, so that copies of them concatenate into one stream."""
    squeeze = zlib.compressobj(9, zlib.DEFLATED, -15)
    return squeeze.compress(chunk) + squeeze.flush(zlib.Z_SYNC_FLUSH)


def gzip_member(parts: Sequence[tuple[bytes, int]]) -> bytes:
    """One gzip member holding each ``(chunk, times)``'s chunk ``times`` times over.

    Compressing a chunk once and repeating its blocks keeps a 256 MiB member
    (about 256 KiB of gzip) from costing a second of deflate in each case."""
    body: list[bytes] = []
    crc, size = 0, 0
    for chunk, times in parts:
        body.append(_deflated(chunk) * times)
        for _ in range(times):
            crc = zlib.crc32(chunk, crc)
        size += len(chunk) * times
    end = zlib.compressobj(9, zlib.DEFLATED, -15).flush()  # an empty final block
    head = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # no name, no time: reproducible
    return head + b"".join(body) + end + struct.pack("<II", crc, size & 0xFFFFFFFF)


BOMB_MIB = [1, 16, 64, 128, 200, 255, 256, 257, 300, 400, 600]
"""Decompressed sizes in MiB, on both sides of the reader's 256 MiB limit."""


def decompression_ratio(trace: str, rng: random.Random) -> tuple[str, str]:
    """A small gzip trace file that inflates a thousandfold, built on the recorded ``trace``; and the variant."""
    lines = [line.encode("latin-1") + b"\n" for line in trace.splitlines() if line.strip()]
    header, rest = lines[0], b"".join(lines[1:])
    mib = rng.choice(BOMB_MIB)
    shape = rng.choice(["newlines", "spaces", "header-newlines", "header-newlines-steps", "header-spaces",
                        "members", "members-bomb", "members-per-record", "string", "string-escapes",
                        "tiny-records", "spaces-before-record"])  # fmt: skip
    newlines, spaces = b"\n" * MIB, b" " * MIB
    if shape == "newlines":
        data = gzip_member([(newlines, mib)])
    elif shape == "spaces":
        data = gzip_member([(spaces, mib)])
    elif shape == "header-newlines":
        data = gzip_member([(header, 1), (newlines, mib)])
    elif shape == "header-newlines-steps":
        data = gzip_member([(header, 1), (newlines, mib), (rest, 1)])
    elif shape == "header-spaces":  # the spaces end the header's line: one line of hundreds of MiB
        data = gzip_member([(header[:-1], 1), (spaces, mib), (b"\n" + rest, 1)])
    elif shape == "spaces-before-record":
        data = gzip_member([(spaces, mib), (header, 1), (rest, 1)])
    elif shape == "members":  # many members, each under the limit, together over it
        count = rng.randint(2, 8)
        each = max(1, mib // count)
        data = gzip_member([(header, 1)]) + gzip_member([(newlines, each)]) * count + gzip_member([(rest, 1)])
        shape = f"members-{count}x{each}"
    elif shape == "members-bomb":
        data = gzip_member([(header, 1), (rest, 1)]) + gzip_member([(rng.choice([newlines, spaces]), mib)])
    elif shape == "members-per-record":  # a valid trace, a member a record, as appending writers make
        data = b"".join(gzip_member([(line, 1)]) for line in lines)
        if rng.random() < 0.5:
            data += gzip_member([(newlines, mib)])
            shape += "-bomb"
    elif shape in ("string", "string-escapes"):
        unit = rng.choice([b"a", b" "] if shape == "string" else [b"\\n", b"\\u0000", b"\\\\"])
        fill = unit * (MIB // len(unit))
        record = json.loads(header)
        where = rng.choice(["input", "pipeline", "text"])
        if where == "text" and isinstance(record.get("initial", {}).get("delta", {}).get("texts"), dict):
            texts = record["initial"]["delta"]["texts"]
            texts[next(iter(texts))] = "\x00BOMB\x00"
        else:
            record["meta"][where if where != "text" else "input"] = "\x00BOMB\x00"
        before, after = json.dumps(record, separators=(",", ":")).encode().split(b"\\u0000BOMB\\u0000")
        data = gzip_member([(before, 1), (fill, mib), (after + b"\n", 1), (rest, 1)])
        shape = f"{shape}-{where}"
    else:
        item = rng.choice([b"{}\n", b"[]\n", b"0\n", b"null\n", b'""\n'])
        data = gzip_member([(header, 1), (item * (MIB // len(item)), mib)])
        shape = f"tiny-records-{item.strip().decode()}"
    if rng.random() < 0.15:  # bytes after the last member: damage, or a member cut short
        data += rng.choice([b"\x00" * 16, b"\x1f\x8b\x08", gzip_member([(newlines, 8)])[:100]])
        shape += "+trailing"
    return data.decode("latin-1"), f"{shape}:{mib}MiB:{len(data) >> 10}KiB"


MLIR_COMMANDS = [
    ["trace", "{input}", "-p", "canonicalize,cse", "-o", "{out}"],
    ["trace", "{input}", "-p", "cse", "-o", "{out}"],
]
TRACE_COMMANDS = [
    ["steps", "{input}"],
    ["show", "{input}", "--step", "-1"],
    ["show", "{input}", "--step", "1", "--diff"],
    ["validate", "{input}"],
    ["dump", "{input}"],
    ["export", "{input}", "--html", "{out}"],
]


CLASSES = ["type-confused-trace", "expression-depth", "late-alias-fanout", "decompression-ratio"]
"""The generated input classes beyond mutations of peer files and traces (each a case name)."""

SCHEDULE = [
    "mlir-mutation", "type-confused-trace", "trace-mutation", "expression-depth",
    "mlir-mutation", "late-alias-fanout", "trace-mutation", "decompression-ratio",
]  # fmt: skip
"""The generated cases take turns in this order, so that any campaign of a few dozen cases or
more has a share of each class (an eighth each; mutations a quarter each)."""


def generated_case(name: str, rng: random.Random, chunks: list[str], traces: list[str]) -> Case:
    """A case of the class ``name`` (one of ``SCHEDULE``), drawn from ``rng``."""
    if name == "trace-mutation":
        return Case(name, "trace", mutate_trace(rng.choice(traces), rng), rng.choice(TRACE_COMMANDS))
    if name == "type-confused-trace":
        data, variant = type_confused_trace(rng.choice(traces), rng)
        return Case(name, "trace", _utf8(data), rng.choice(TRACE_COMMANDS), variant)
    if name == "decompression-ratio":
        data, variant = decompression_ratio(rng.choice(traces), rng)
        return Case(name, "trace", data, rng.choice(TRACE_COMMANDS), variant)
    if name == "expression-depth":
        text, variant = expression_depth(rng)
        return Case(name, "mlir", _utf8(text), rng.choice(MLIR_COMMANDS), variant)
    if name == "late-alias-fanout":
        text, variant = late_alias_fanout(rng)
        return Case(name, "mlir", _utf8(text), rng.choice(MLIR_COMMANDS), variant)
    return Case("mlir-mutation", "mlir", _utf8(mutate_text(rng.choice(chunks), rng)), MLIR_COMMANDS[0])


def campaign(cases: int, seed: int) -> list[Case]:
    """``cases`` cases from ``seed``: the hand-made ones first, then the generated classes in turn."""
    rng = random.Random(seed)
    chunks = peer_chunks()
    traces = recorded_traces(chunks, 8)
    made: list[Case] = []
    for name, build in HOSTILE_MLIR.items():
        made.append(Case(name, "mlir", build(), rng.choice(MLIR_COMMANDS)))
    if traces:
        made.append(Case("gzip-bomb-trace", "trace", gzip_bomb(512), ["steps", "{input}"]))
        made.append(Case("deep-json-trace", "trace", "[" * 10_000 + "]" * 10_000, ["show", "{input}"]))
    if not traces:  # the trace classes start from a recorded trace
        schedule = [n for n in SCHEDULE if n in ("mlir-mutation", "expression-depth", "late-alias-fanout")]
    else:
        schedule = SCHEDULE
    turn = 0
    while len(made) < cases:
        made.append(generated_case(schedule[turn % len(schedule)], rng, chunks, traces))
        turn += 1
    return made[:cases]


# -- running ------------------------------------------------------------------------


def _classify(status: int | None, raised: BaseException | None, out: str, err: str) -> tuple[str, str]:
    if isinstance(raised, MemoryError):
        return "memory", "MemoryError"
    if raised is not None:
        return "traceback", f"{type(raised).__name__}: {str(raised)[:200]}"
    if "Traceback (most recent call last)" in out + err:
        return "traceback", err[-300:]
    if CONTROL.search(out) or CONTROL.search(err):
        return "unclean", "control characters on the terminal"
    if status == 0:
        return "ok", ""
    lines = [line for line in err.strip().splitlines() if not line.startswith("passviz: warning: ")]
    if len(lines) == 1 and lines[0].startswith("passviz: error: "):
        return "error", lines[0][:200]
    return "unclean", err.strip()[:300]


RECYCLE_MARGIN = 256 << 20
"""A worker whose heap has grown this much past its size after warming up ends after the case,
and a fresh one runs the next.  Freed heap is seldom given back to the system: under the
worker's limit, a case after one that inflated a big trace would fail (``MemoryError``) for
what another case did, where the command alone succeeds."""

DEEP_STACK = 1 << 30
"""The stack ``passviz.ir.deep.call_deep`` reserves for the thread of each command.  The C
library keeps a finished thread's stack for the next thread, and where the next starts before
the last has quite ended there are two: 2 GiB of the worker's 3 GiB, and a case that a fresh
process runs fails with ``can't start new thread``."""


def _settle() -> None:
    """Let the C library free the stacks of threads that have ended: it trims its cache of
    stacks when a thread ends, so end a small one once the others are gone."""
    time.sleep(0.01)
    idle = threading.Thread(target=lambda: None)
    idle.start()
    idle.join()
    time.sleep(0.01)


def _address_space() -> tuple[int, int]:
    """This process's mapped bytes (what ``RLIMIT_AS`` limits) less ``DEEP_STACK``-sized
    mappings, and how many of those there are; ``(0, 0)`` without ``/proc``."""
    size, stacks = 0, 0
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return 0, 0
    for line in maps.splitlines():
        low, _, high = line.partition(" ")[0].partition("-")
        length = int(high, 16) - int(low, 16)
        if length == DEEP_STACK:
            stacks += 1
        else:
            size += length
    return size, stacks


def _warm_up(main: Callable[[list[str]], int], folder: str) -> None:
    """Run each kind of command once on a small input, so that the modules, caches and thread
    arenas every command needs are in place before the worker measures its size."""
    source, trace = Path(folder, "warm.mlir"), Path(folder, "warm.passviz.json")
    source.write_text("func.func @f() -> i32 {\n  %0 = arith.constant 1 : i32\n  func.return %0 : i32\n}\n")
    commands = [["trace", str(source), "-p", "canonicalize,cse", "-o", str(trace)], ["validate", str(trace)]]
    commands += [["dump", str(trace)], ["export", str(trace), "--html", str(Path(folder, "warm.html"))]]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for argv in commands:
            with contextlib.suppress(BaseException):  # a case will say what is wrong
                main(argv)


def _worker(cases_file: str, start: int, memory_mb: int) -> None:
    """Run cases from ``start`` on, one JSON line per case on stdout; end early (status 0)
    when the next case would not find the worker as fresh as the first did (``RECYCLE_MARGIN``,
    ``DEEP_STACK``).

    Each case's input is in the file ``{index}.bin`` beside ``cases_file``
    (which holds the rest): inputs of hundreds of KiB of gzip would otherwise
    all be decoded, and held under the memory limit, by every worker."""
    import resource

    limit = memory_mb << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from passviz.cli import main

    cases = [Case(**c, data="") for c in json.loads(Path(cases_file).read_text("utf-8"))]
    report = sys.stdout
    with tempfile.TemporaryDirectory() as folder:
        _warm_up(main, folder)
        _settle()
        fresh, _ = _address_space()
        for index in range(start, len(cases)):
            case = cases[index]
            data = Path(cases_file).with_name(f"{index}.bin").read_bytes()
            suffix = ".mlir" if case.kind == "mlir" else ".passviz.json"
            if data.startswith(b"\x1f\x8b"):  # named as passviz names the gzip traces it writes
                suffix += ".gz"
            source, out = Path(folder, f"in{suffix}"), Path(folder, "out")
            source.write_bytes(data)
            argv = [a.replace("{input}", str(source)).replace("{out}", str(out)) for a in case.argv]
            stdout, stderr = io.StringIO(), io.StringIO()
            raised: BaseException | None = None
            status: int | None = None
            began = time.perf_counter()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                try:
                    status = main(argv)
                except SystemExit as exc:  # argparse's usage errors
                    status = exc.code if isinstance(exc.code, int) else 1
                    if status == 2:
                        stderr = io.StringIO("passviz: error: usage\n")
                except BaseException as exc:  # noqa: BLE001 - what the campaign looks for
                    raised = exc
            outcome, detail = _classify(status, raised, stdout.getvalue(), stderr.getvalue())
            seconds = time.perf_counter() - began
            line = Outcome(index, case.name, outcome, round(seconds, 3), detail, case.variant, case.argv)
            report.write(json.dumps(asdict(line)) + "\n")
            report.flush()
            _settle()
            heap, stacks = _address_space()
            if outcome not in ACCEPTABLE or heap > fresh + RECYCLE_MARGIN or stacks > 1:
                return  # a case that failed may also have left the worker in a bad state


def _pump(stream: Any, lines: queue.Queue[str | None]) -> None:
    """Hand a worker's report lines to ``lines``, then ``None`` when it ends."""
    for line in stream:
        lines.put(line)
    lines.put(None)


def run_campaign(cases: list[Case], time_limit: float = 20.0, memory_mb: int = 3072) -> list[Outcome]:
    """Run ``cases`` in worker processes; a case past ``time_limit`` seconds is a hang."""
    with tempfile.TemporaryDirectory() as folder:
        cases_file = Path(folder, "cases.json")
        cases_file.write_text(
            json.dumps([{k: v for k, v in asdict(c).items() if k != "data"} for c in cases])
        )
        for index, case in enumerate(cases):
            Path(folder, f"{index}.bin").write_bytes(case.data.encode("latin-1"))
        outcomes: list[Outcome] = []
        while len(outcomes) < len(cases):
            start = len(outcomes)
            worker = subprocess.Popen(
                [sys.executable, "-m", "tests.fuzz", "--worker", str(cases_file), str(start), str(memory_mb)],
                cwd=Path(__file__).resolve().parents[1],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            lines: queue.Queue[str | None] = queue.Queue()

            threading.Thread(target=_pump, args=(worker.stdout, lines), daemon=True).start()
            # The first case of a worker also pays for importing passviz.
            deadline = time.monotonic() + time_limit + 30
            reported = 0
            while True:
                try:
                    line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    index = len(outcomes)
                    case = cases[index]
                    outcomes.append(
                        Outcome(index, case.name, "hang", time_limit, "", case.variant, case.argv)
                    )
                    worker.kill()
                    break
                if line is None:  # the worker died, finished, or ended to start afresh
                    worker.wait()
                    if len(outcomes) < len(cases) and not (worker.returncode == 0 and reported):
                        index = len(outcomes)
                        died = f"worker exited {worker.returncode}: {worker.stderr.read()[-300:] if worker.stderr else ''}"
                        kind = "memory" if worker.returncode and worker.returncode < 0 else "traceback"
                        case = cases[index]
                        outcomes.append(Outcome(index, case.name, kind, 0.0, died, case.variant, case.argv))
                    break
                outcome = Outcome(**json.loads(line))
                if outcome.seconds > time_limit:  # a worker's first case has longer, for the imports
                    outcome.outcome, outcome.detail = "hang", f"{outcome.seconds:.1f} s: {outcome.detail}"
                outcomes.append(outcome)
                reported += 1
                deadline = time.monotonic() + time_limit
            if worker.poll() is None:
                worker.kill()
            worker.wait()
        return outcomes


def summary(outcomes: list[Outcome]) -> str:
    """Counts by outcome, then by case name and outcome, then each unacceptable case."""
    counts = Counter(o.outcome for o in outcomes)
    lines = [", ".join(f"{k}: {counts[k]}" for k in sorted(counts))]
    kinds = sorted(counts)
    by_name: dict[str, Counter[str]] = {}
    for o in outcomes:
        by_name.setdefault(o.name, Counter())[o.outcome] += 1
    width = max([len(n) for n in by_name] + [4])
    lines.append(f"  {'case':<{width}} {'all':>5} " + " ".join(f"{k:>9}" for k in kinds))
    for name, row in sorted(by_name.items(), key=lambda item: (-item[1].total(), item[0])):
        lines.append(f"  {name:<{width}} {row.total():>5} " + " ".join(f"{row[k]:>9}" for k in kinds))
    for o in outcomes:
        if o.outcome not in ACCEPTABLE:
            command = " ".join(o.argv[:1] + [a for a in o.argv[1:] if a not in ("{input}", "{out}")])
            variant = f" [{o.variant}]" if o.variant else ""
            lines.append(f"  #{o.index} {o.name}{variant} ({command}): {o.outcome} {o.detail}".rstrip())
    return "\n".join(lines)


def _main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        _worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=20.0)
    parser.add_argument("--json", help="write every outcome here")
    parser.add_argument("--only", help="run only these cases of the campaign, by index: 40,66,82")
    args = parser.parse_args()
    cases = campaign(args.cases, args.seed)
    chosen = [int(i) for i in args.only.split(",")] if args.only else list(range(len(cases)))
    outcomes = run_campaign([cases[i] for i in chosen], args.time_limit)
    for outcome in outcomes:  # numbered as in the whole campaign, to compare
        outcome.index = chosen[outcome.index]
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(o) for o in outcomes], indent=1))
    print(summary(outcomes))
    os._exit(0 if all(o.outcome in ACCEPTABLE for o in outcomes) else 1)


if __name__ == "__main__":
    _main()
