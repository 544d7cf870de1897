"""A quick check of trace records against the schema, for reading without jsonschema.

``passviz validate`` checks every record against the JSON Schema
(``trace.schema.json``); that takes seconds on a long trace (and a second to
import jsonschema), too slow for ``steps`` or ``show``.  Reading checks each
record here instead, in full: its kind, index, every field of its delta and
of the header's initial delta, field by field as the schema says, so that a
hostile or damaged file gets a located error (``delta/ops_created/0/name:
missing``), never a crash where the record is used.  What the schema cannot
say (an op id that names no op) is checked where a delta is applied
(``apply``, ``replay``).  The schema stays the definition;
``tests/test_envelope.py`` checks that the two agree on every record the
test suite records and on mutants of each field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from itertools import chain
from operator import itemgetter
from typing import Any, cast

from passviz.trace.model import VERDICTS
from passviz.trace.records import READ_VERSIONS, TRACE_FORMAT

STEP_KINDS = frozenset(("pass-begin", "pass-end", "rewrite", "checkpoint", "failure"))
FLAG_KINDS = frozenset(("exception", "verify", "nonconvergence"))
_HEADER_FIELDS = frozenset(("record", "format", "version", "meta", "initial_ir", "initial", "sources"))
_META_FIELDS = frozenset(
    (
        "input",
        "pipeline",
        "passviz_version",
        "xdsl_version",
        "verify_each",
        "syntax",
        "aliases",
        "dispatch",
        "imported",
    )
)
_DISPATCH_LISTS = ("dispatch_ops", "function_ops", "return_ops", "plumbing_ops", "container_ops")
_DISPATCH_NAMES = ("executable_op", "call_op", "entry_points")
_END_FIELDS = frozenset(("record", "status", "steps"))


def _at(where: str | int, problem: str) -> str:
    """``problem``, found in the field or item ``where``: its path one step longer."""
    return f"{where}{problem}" if problem.startswith(": ") else f"{where}/{problem}"


def _shown(key: str) -> str:
    """A key from the file as a path shows it: cut short, since it may be millions of characters."""
    return key if len(key) <= 40 else key[:40] + "..."


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


# -- the schema's $defs, as checks -------------------------------------------------------


class _Check:
    """A node of the schema: what is wrong with one value (``problem``), and whether many values
    are all valid (``all_valid``), a column at a time at C speed: the long lists of a header,
    hundreds of step records at once.

    ``problem`` decides.  It says ``PATH: what`` (PATH inside the value, empty for the value
    itself: ``: not a string``; the paths are the schema's, ``ops_created/0/name``), or None.
    ``all_valid`` is True only if ``problem`` finds nothing in any of the values; False may
    also mean "look item by item".
    """

    def problem(self, value: object) -> str | None:
        raise NotImplementedError

    def all_valid(self, values: list[object]) -> bool:
        return all(self.problem(value) is None for value in values)


_COLUMNS = 8
"""A list or object this long is checked a column at a time first (``_Check.all_valid``)."""

_INT, _STR, _LIST, _DICT = (frozenset((kind,)) for kind in (int, str, list, dict))


def _all(values: list[object], kind: frozenset[type]) -> bool:
    """Whether every value is exactly of the type in ``kind`` (JSON makes no subclasses; a bool is no int)."""
    return set(map(type, values)) <= kind


class _String(_Check):
    def __init__(self, *, non_empty: bool = False) -> None:
        self.non_empty = non_empty
        self.bad = ": not a non-empty string" if non_empty else ": not a string"

    def problem(self, value: object) -> str | None:
        return None if isinstance(value, str) and (value or not self.non_empty) else self.bad

    def all_valid(self, values: list[object]) -> bool:
        return _all(values, _STR) and not (self.non_empty and "" in values)


class _Count(_Check):
    """An integer, at least ``minimum`` (JSON Schema's integer: no bool)."""

    def __init__(self, minimum: int = 0) -> None:
        self.minimum = minimum
        self.bad = ": not a count" if minimum == 0 else f": not an integer from {minimum}"

    def problem(self, value: object) -> str | None:
        return None if type(value) is int and value >= self.minimum else self.bad

    def all_valid(self, values: list[object]) -> bool:
        return not values or (_all(values, _INT) and min(cast(list[int], values)) >= self.minimum)


class _Enum(_Check):
    def __init__(self, members: frozenset[str]) -> None:
        self.members = members
        self.bad = ": not one of " + ", ".join(sorted(members))

    def problem(self, value: object) -> str | None:
        # Tested as a string first: a list or object from the file is unhashable.
        return None if isinstance(value, str) and value in self.members else self.bad

    def all_valid(self, values: list[object]) -> bool:
        return _all(values, _STR) and set(cast(list[str], values)) <= self.members


class _Id(_Check):
    """An id: its letter and digits (``o12``)."""

    def __init__(self, letter: str, what: str) -> None:
        self.what = what
        self.bad = f": not {what}"
        self.one = re.compile(f"{letter}[0-9]+")
        self.many = re.compile(f"{letter}[0-9]+(?:\n{letter}[0-9]+)*")

    def problem(self, value: object) -> str | None:
        return None if isinstance(value, str) and self.one.fullmatch(value) is not None else self.bad

    def all_valid(self, values: list[object]) -> bool:
        if not values:
            return True
        if not _all(values, _STR):
            return False
        # One match over the ids joined by newlines: as many newlines as joints means no id holds one.
        joined = "\n".join(cast(list[str], values))
        return joined.count("\n") == len(values) - 1 and self.many.fullmatch(joined) is not None


class _Nullable(_Check):
    def __init__(self, inner: _Check, what: str) -> None:
        self.inner = inner
        self.bad = f": not {what} or null"

    def problem(self, value: object) -> str | None:
        return None if value is None or self.inner.problem(value) is None else self.bad

    def all_valid(self, values: list[object]) -> bool:
        return self.inner.all_valid([value for value in values if value is not None])


class _Items(_Check):
    """A list or an object whose items ``item`` checks: a column at a time where there are many
    (``all_valid``), else one by one, so that a problem says where it lies."""

    container: type[list[Any]] | type[dict[str, Any]]
    """What holds the items."""

    def __init__(self, item: _Check, bad: str) -> None:
        self.item = item
        self.bad = bad

    def problem(self, value: object) -> str | None:
        if not isinstance(value, self.container):
            return self.bad
        held = cast(Any, value)  # the subclass's list or object: its hooks take it as such
        if not self._fits(held):
            return self.bad
        if len(held) >= _COLUMNS and self.all_valid([held]):
            return None
        for where, item in self._entries(held):
            if (found := self._entry_problem(where, item)) is not None:
                return found
        return None

    def _fits(self, value: Any) -> bool:
        """Whether the holder itself is right (a list's size)."""
        return True

    def _entries(self, value: Any) -> Iterable[tuple[str | int, object]]:
        """Each item with its index or key."""
        raise NotImplementedError

    def _entry_problem(self, where: str | int, item: object) -> str | None:
        found = self.item.problem(item)
        return None if found is None else _at(where, found)


class _List(_Items):
    """``what``: a list, each item by ``item``, of ``sizes`` items (a range, if given)."""

    container = list

    def __init__(self, item: _Check, what: str, sizes: range | None = None) -> None:
        """``sizes`` is a range with step 1: its start and stop are what count."""
        super().__init__(item, f": not {what}")
        self.sizes = sizes

    def _fits(self, value: list[object]) -> bool:
        return self.sizes is None or len(value) in self.sizes

    def _entries(self, value: list[object]) -> Iterable[tuple[str | int, object]]:
        return enumerate(value)

    def all_valid(self, values: list[object]) -> bool:
        if not _all(values, _LIST):
            return False
        lists = cast(list[list[object]], values)
        if self.sizes is not None and lists:
            lengths = set(map(len, lists))
            if min(lengths) < self.sizes.start or max(lengths) >= self.sizes.stop:
                return False
        return self.item.all_valid(list(chain.from_iterable(lists)))


class _Map(_Items):
    """An object of ``what``: each value by ``item``, each key an id if ``key`` is given."""

    container = dict

    def __init__(self, item: _Check, what: str, key: _Id | None = None) -> None:
        super().__init__(item, f": not an object of {what}")
        self.key = key

    def _entries(self, value: dict[str, object]) -> Iterable[tuple[str | int, object]]:
        return value.items()

    def _entry_problem(self, where: str | int, item: object) -> str | None:
        name = cast(str, where)
        if self.key is not None and self.key.problem(name) is not None:
            return f"{_shown(name)}: a key that is not {self.key.what}"
        return super()._entry_problem(_shown(name), item)

    def all_valid(self, values: list[object]) -> bool:
        if not _all(values, _DICT):
            return False
        maps = cast(list[dict[str, object]], values)
        if self.key is not None and not self.key.all_valid(list(chain.from_iterable(maps))):
            return False
        return self.item.all_valid([item for fields in maps for item in fields.values()])


class _Object(_Check):
    """``what``: an object with the ``required`` fields and no fields but ``fields``."""

    def __init__(self, what: str, required: tuple[str, ...], fields: dict[str, _Check]) -> None:
        self.what = what
        self.required = required
        self.fields = fields
        self.bad = f": not {what}"

    def problem(self, value: object) -> str | None:
        if not isinstance(value, dict):
            return self.bad
        record: dict[str, object] = value  # pyright: ignore[reportUnknownVariableType]
        for name in self.required:
            if name not in record:
                return f"{name}: missing"
        for name, item in record.items():
            field = self.fields.get(name)
            if field is None:
                return f"{_shown(name)}: unexpected field in {self.what}"
            if (found := field.problem(item)) is not None:
                return _at(name, found)
        return None

    def all_valid(self, values: list[object]) -> bool:
        if not _all(values, _DICT):
            return False
        records = cast(list[dict[str, object]], values)
        present = set[str]().union(*records)
        if not present <= self.fields.keys():
            return False
        for name in present:
            try:  # a required field, or one every record has: its column at C speed
                column = list(map(itemgetter(name), records))
            except KeyError:
                if name in self.required:
                    return False
                column = [record[name] for record in records if name in record]
            if not self.fields[name].all_valid(column):
                return False
        return not records or all(name in present for name in self.required)


_OP = _Id("o", "an op id")
_BLOCK = _Id("b", "a block id")
_REGION = _Id("r", "a region id")
_VALUE = _Id("v", "a value id")
_STRING = _String()
_ATTRS = _Map(_STRING, "attribute texts")
_VALUES = _List(
    _Object("a value", ("id", "type"), {"id": _VALUE, "type": _STRING, "name": _STRING}), "a list of values"
)
_OP_IDS = _List(_OP, "a list of op ids")
_BLOCK_IDS = _List(_BLOCK, "a list of block ids")
_VALUE_IDS = _List(_VALUE, "a list of value ids")
_OP_FIELDS: dict[str, _Check] = {
    "id": _OP,
    "operands": _VALUE_IDS,
    "results": _VALUES,
    "successors": _BLOCK_IDS,
    "attrs": _ATTRS,
    "props": _ATTRS,
    "regions": _List(_REGION, "a list of region ids"),
    "loc": _STRING,
}
_VALUE_PAIRS = _List(
    _List(_Nullable(_VALUE, "a value id"), "a pair of value ids or nulls", range(2, 3)),
    "a list of old and new value pairs",
)

_DELTA = _Object(
    "a delta",
    (),
    {
        "ops_created": _List(
            _Object(
                "a created op",
                ("id", "name", "operands", "results"),
                {**_OP_FIELDS, "name": _String(non_empty=True)},
            ),
            "a list of created ops",
        ),
        "ops_erased": _OP_IDS,
        "ops_modified": _List(_Object("an op change", ("id",), _OP_FIELDS), "a list of op changes"),
        "ops_moved": _OP_IDS,
        "placed": _List(
            _Object(
                "a placement",
                ("id", "block", "after"),
                {"id": _OP, "block": _BLOCK, "after": _Nullable(_OP, "an op id")},
            ),
            "a list of placements",
        ),
        "blocks_created": _List(
            _Object("a created block", ("id", "args"), {"id": _BLOCK, "args": _VALUES, "name": _STRING}),
            "a list of created blocks",
        ),
        "blocks_erased": _BLOCK_IDS,
        "blocks_moved": _BLOCK_IDS,
        "blocks_split": _List(
            _Object("a block split", ("block", "source"), {"block": _BLOCK, "source": _BLOCK}),
            "a list of block splits",
        ),
        "blocks_merged": _List(
            _Object("a block merge", ("block", "into"), {"block": _BLOCK, "into": _BLOCK}),
            "a list of block merges",
        ),
        "block_args": _Map(_VALUES, "block arguments by block id", _BLOCK),
        "block_names": _Map(_Nullable(_STRING, "a string"), "block names by block id", _BLOCK),
        "args_added": _VALUE_IDS,
        "args_removed": _VALUE_IDS,
        "region_blocks": _Map(_BLOCK_IDS, "block id lists by region id", _REGION),
        "replaced": _List(
            _Object(
                "a replacement",
                ("op", "values", "by"),
                {"op": _OP, "values": _VALUE_PAIRS, "by": _OP_IDS},
            ),
            "a list of replacements",
        ),
        "texts": _Map(_STRING, "op texts by op id", _OP),
    },
)

_INITIAL = _Object("the initial state", ("root", "delta"), {"root": _OP, "delta": _DELTA})

_STEP = _Object(
    "a step",
    ("index", "kind"),
    {
        "index": _Count(),
        "kind": _Enum(STEP_KINDS),
        "pass": _STRING,
        "pass_index": _Count(),
        "name": _STRING,
        "root": _OP,
        "delta": _DELTA,
        "flag": _Object(
            "a flag",
            ("kind", "message"),
            {
                "kind": _Enum(FLAG_KINDS),
                "message": _STRING,
                "detail": _STRING,
                "cycle": _List(_STRING, "a list of strings"),
            },
        ),
        "chain": _OP_IDS,
        "dispatch": _List(
            _List(_OP, "a non-empty list of op ids", range(1, 1 << 62)), "a list of op id lists"
        ),
    },
)


def delta_problem(delta: object) -> str | None:
    """What is wrong with a delta (a step's, or the header's initial one), or None."""
    return _DELTA.problem(delta)


def step_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with a step record, its delta included, or None."""
    return _STEP.problem(record)


def steps_valid(records: list[dict[str, Any]]) -> bool:
    """Whether ``step_problem`` finds nothing in any of ``records``: a quick check of many steps at once.

    False may also mean "ask ``step_problem`` of each"."""
    return _STEP.all_valid(cast(list[object], records))


def record_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with a record of any kind (its ``record`` field says which), or None."""
    kind = record.get("record", "step")
    if kind == "header":
        return header_problem(record)
    if kind == "end":
        return end_problem(record)
    if kind == "run":
        return run_problem(record)
    if kind != "step" or "record" in record:
        return f"record: unknown record kind {_shown_kind(kind)}"
    return step_problem(record)


def _shown_kind(kind: object) -> str:
    """A record kind from the file, as an error names it: quoted and cut short if a string."""
    if not isinstance(kind, str):
        return f"(a JSON {_JSON_TYPES.get(type(kind), 'value')}, not a string)"
    return repr(_shown(kind))


_JSON_TYPES: dict[type, str] = {
    dict: "object",
    list: "array",
    int: "number",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


# -- the header, the end and run records --------------------------------------------------


def _unexpected(fields: Iterable[str], allowed: AbstractSet[str], where: str) -> str | None:
    """The first field (in sorted order) not in ``allowed``, as an error in ``where``; or None."""
    extra = set(fields) - allowed
    return f"unexpected field {_shown(sorted(extra)[0])!r} in {where}" if extra else None


def _object_fields(value: object, allowed: AbstractSet[str], where: str) -> tuple[dict[str, Any], str | None]:
    """``value``'s fields, and what is wrong with it: not an object, or a field not in ``allowed``
    (``where`` names it in the error)."""
    if not isinstance(value, dict):
        return {}, f"{where} is not an object"
    fields: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
    return fields, _unexpected(fields, allowed, where)


def header_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with a header record, its initial delta included, or None."""
    if record.get("format") != TRACE_FORMAT:
        return f"the header's format is not {TRACE_FORMAT!r}"
    version = record.get("version")
    if type(version) is not int or version not in READ_VERSIONS:
        return "the header's version is not " + " or ".join(map(str, READ_VERSIONS))
    if (problem := _unexpected(record, _HEADER_FIELDS, "the header")) is not None:
        return problem
    problem = _meta_problem(record.get("meta"))
    if problem is not None:
        return problem
    if version == 1 and not isinstance(record.get("initial_ir"), str):
        return "the header's initial_ir is not a string"
    if version != 1 and "initial_ir" in record:
        return f"unexpected field 'initial_ir' in a version {version} header"
    if not _string_map(record.get("sources", {})):
        return "the header's sources are not file names and texts"
    if "initial" not in record and version == 1:
        return None
    problem = _INITIAL.problem(record.get("initial"))
    if problem is None:
        return None
    if problem.startswith(": "):
        return "the header's initial is not an object with a root op id and a delta"
    return _at("initial", problem)


def _meta_problem(meta: object) -> str | None:
    fields, problem = _object_fields(meta, _META_FIELDS, "the header's meta")
    if problem is not None:
        return problem
    for name in ("input", "pipeline", "passviz_version", "xdsl_version"):
        if not isinstance(fields.get(name), str):
            return f"the header's meta.{name} is not a string"
    if fields.get("verify_each") not in ("off", "pass", "rewrite"):
        return "the header's meta.verify_each is not off, pass or rewrite"
    for name in ("syntax", "aliases"):
        if name in fields and not _string_map(fields[name]):
            return f"the header's meta.{name} is not an object of strings"
    if "imported" in fields:
        problem = _imported_problem(fields["imported"])
        if problem is not None:
            return problem
    if "dispatch" in fields:
        return _dispatch_problem(fields["dispatch"])
    return None


def _imported_problem(imported: object) -> str | None:
    """What is wrong with a header's ``meta.imported`` (``ImportInfo``), or None."""
    fields, problem = _object_fields(
        imported, {"dump", "printing", "notes", "outputs", "kernel"}, "the header's meta.imported"
    )
    if problem is not None:
        return problem
    for name in ("dump", "printing"):
        if not isinstance(fields.get(name), str):
            return f"the header's meta.imported.{name} is not a string"
    notes: object = fields.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):  # pyright: ignore[reportUnknownVariableType]
        return "the header's meta.imported.notes is not a list of strings"
    outputs: object = fields.get("outputs", [])
    if not isinstance(outputs, list):
        return "the header's meta.imported.outputs is not a list"
    for output in cast(list[object], outputs):
        parts, problem = _object_fields(output, {"stage", "text"}, "a meta.imported.outputs item")
        if problem is not None:
            return problem
        if not isinstance(parts.get("stage"), str) or not isinstance(parts.get("text"), str):
            return "a meta.imported.outputs item needs a string stage and text"
    if "kernel" in fields:
        return _kernel_problem(fields["kernel"])
    return None


_KERNEL_TEXTS = ("name", "target", "binary", "triton_version")
_KERNEL_COUNTS = ("num_warps", "num_ctas", "shared", "global_scratch_size", "global_scratch_align")
_KERNEL_COUNTS_MORE = ("profile_scratch_size", "profile_scratch_align")
_KERNEL_FLAGS = ("cooperative", "pdl")


def _kernel_problem(kernel: object) -> str | None:
    """What is wrong with a header's ``meta.imported.kernel`` (``CompiledKernel``), or None."""
    counts = (*_KERNEL_COUNTS, *_KERNEL_COUNTS_MORE)
    allowed = {*_KERNEL_TEXTS, *counts, *_KERNEL_FLAGS, "signature"}
    fields, problem = _object_fields(kernel, allowed, "the header's meta.imported.kernel")
    if problem is not None:
        return problem
    for name in _KERNEL_TEXTS:
        if not isinstance(fields.get(name), str):
            return f"the header's meta.imported.kernel.{name} is not a string"
    for name in counts:
        value = fields.get(name)
        if type(value) is not int or value < 0:
            return f"the header's meta.imported.kernel.{name} is not a count"
    for name in _KERNEL_FLAGS:
        if type(fields.get(name)) is not bool:
            return f"the header's meta.imported.kernel.{name} is not true or false"
    if not _string_map(fields.get("signature")):
        return "the header's meta.imported.kernel.signature is not a map of strings"
    return None


def _dispatch_problem(dispatch: object) -> str | None:
    """What is wrong with a header's ``meta.dispatch`` (``DispatchVocabulary``), or None."""
    allowed = {*_DISPATCH_LISTS, *_DISPATCH_NAMES}
    fields, problem = _object_fields(dispatch, allowed, "the header's meta.dispatch")
    if problem is not None:
        return problem
    for name in _DISPATCH_LISTS:
        items = fields.get(name)
        if not isinstance(items, list) or not all(isinstance(i, str) for i in cast(list[object], items)):
            return f"the header's meta.dispatch.{name} is not a list of strings"
    for name in _DISPATCH_NAMES:
        if not isinstance(fields.get(name), str):
            return f"the header's meta.dispatch.{name} is not a string"
    return None


def _string_map(value: object) -> bool:
    """Whether ``value`` is an object whose values are strings."""
    if not isinstance(value, dict):
        return False
    fields: dict[object, object] = value  # pyright: ignore[reportUnknownVariableType]
    return all(isinstance(item, str) for item in fields.values())


def end_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with an end record, or None."""
    if (problem := _unexpected(record, _END_FIELDS, "the end record")) is not None:
        return problem
    if record.get("status") not in ("ok", "failed"):
        return "the end record's status is not ok or failed"
    if not _count(record.get("steps")):
        return "the end record's steps is not a count"
    return None


_RUN_FIELDS = frozenset(
    (
        "record",
        "step",
        "backend",
        "origin",
        "first",
        "reference",
        "inputs",
        "spec",
        "outputs",
        "verdict",
        "max_error",
        "count",
        "differences",
        "device",
        "time_ms",
        "gbps",
        "message",
    )
)
_DIFFERENCE_FIELDS = frozenset(("buffer", "index", "expected", "got"))


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def run_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with a run record, or None (see the schema's ``run``)."""
    if (problem := _unexpected(record, _RUN_FIELDS, "a run record")) is not None:
        return problem
    step = record.get("step")
    if type(step) is not int or step < -1:
        return "a run record's step is not -1 or a step index"
    if record.get("backend") not in ("cpu", "gpu"):
        return "a run record's backend is not cpu or gpu"
    if record.get("verdict") not in VERDICTS:
        return "a run record's verdict is not same, differs or error"
    if "origin" in record and record["origin"] not in ("run", "bisect"):
        return "a run record's origin is not run or bisect"
    if "reference" in record and record["reference"] not in ("initial", "cpu"):
        return "a run record's reference is not initial or cpu"
    if "first" in record and not isinstance(record["first"], bool):
        return "a run record's first is not true or false"
    for name in ("inputs", "spec", "outputs", "device", "message"):
        if (name == "inputs" or name in record) and not isinstance(record.get(name), str):
            return f"a run record's {name} is not a string"
    for name in ("max_error", "time_ms", "gbps"):
        if name in record and not _number(record[name]):
            return f"a run record's {name} is not a non-negative number"
    if "count" in record and not _count(record["count"]):
        return "a run record's count is not a count"
    if "differences" in record:
        return _differences_problem(record["differences"])
    return None


def _differences_problem(differences: object) -> str | None:
    if not isinstance(differences, list):
        return "a run record's differences is not a list"
    for item in differences:  # pyright: ignore[reportUnknownVariableType]
        if not isinstance(item, dict) or frozenset(item) != _DIFFERENCE_FIELDS:  # pyright: ignore[reportUnknownArgumentType]
            return "a run record's difference is not {buffer, index, expected, got}"
        fields: dict[str, Any] = item  # pyright: ignore[reportUnknownVariableType]
        if not isinstance(fields["buffer"], str) or not _count(fields["index"]):
            return "a run record's difference has no buffer name and element index"
        if not all(isinstance(fields[k], int | float | str) for k in ("expected", "got")):
            return "a run record's difference has an expected or got that is not a number"
    return None
