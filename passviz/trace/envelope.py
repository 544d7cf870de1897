"""A quick check of a trace record's envelope, for reading without the full schema.

``passviz validate`` checks every record against the JSON Schema; that takes
seconds on a long trace (and a second to import jsonschema), too slow for
``steps`` or ``show``.  Reading checks each record's envelope here instead:
its kind, index and the types of the fields the reader uses, so that a
hostile or damaged file gets a located error, never a crash in the reader.
What a delta holds is checked where it is applied (``apply``, ``replay``).
The schema stays the definition; ``tests/test_envelope.py`` checks that every
record it accepts passes here and that the envelopes it rejects fail here.
"""

from __future__ import annotations

import re
from typing import Any

from passviz.trace.model import READ_VERSIONS, TRACE_FORMAT, VERDICTS

STEP_KINDS = frozenset(("pass-begin", "pass-end", "rewrite", "checkpoint", "failure"))
FLAG_KINDS = frozenset(("exception", "verify", "nonconvergence"))
_STEP_FIELDS = frozenset(
    ("index", "kind", "pass", "pass_index", "name", "root", "delta", "flag", "chain", "dispatch")
)
_FLAG_FIELDS = frozenset(("kind", "message", "detail", "cycle"))
_HEADER_FIELDS = frozenset(("record", "format", "version", "meta", "initial_ir", "initial", "sources"))
_OP_ID = re.compile(r"o[0-9]+")


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)  # pyright: ignore[reportUnknownVariableType]


def _op_id(value: object) -> bool:
    return isinstance(value, str) and _OP_ID.fullmatch(value) is not None


def _dispatch_regions(value: object) -> bool:
    """Whether ``value`` is a list of non-empty lists of op ids (a step's ``dispatch``)."""
    if not isinstance(value, list):
        return False
    regions: list[object] = value  # pyright: ignore[reportUnknownVariableType]
    return all(_op_ids(region) for region in regions)


def _op_ids(value: object) -> bool:
    """Whether ``value`` is a non-empty list of op ids."""
    if not isinstance(value, list) or not value:
        return False
    items: list[object] = value  # pyright: ignore[reportUnknownVariableType]
    return all(map(_op_id, items))


def step_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with a step record's envelope, or None."""
    extra = set(record) - _STEP_FIELDS
    if extra:
        return f"unexpected field {sorted(extra)[0]!r} in a step"
    if not _count(record.get("index")):
        return "a step's index is not a count"
    if record.get("kind") not in STEP_KINDS:
        return "a step's kind is not one of " + ", ".join(sorted(STEP_KINDS))
    for name in ("pass", "name"):
        if name in record and not isinstance(record[name], str):
            return f"a step's {name} is not a string"
    if "pass_index" in record and not _count(record["pass_index"]):
        return "a step's pass_index is not a count"
    if "root" in record and not _op_id(record["root"]):
        return "a step's root is not an op id"
    if "delta" in record and not isinstance(record["delta"], dict):
        return "a step's delta is not an object"
    if "chain" in record and not (_strings(record["chain"]) and all(map(_op_id, record["chain"]))):
        return "a step's chain is not a list of op ids"
    if "dispatch" in record and not _dispatch_regions(record["dispatch"]):
        return "a step's dispatch is not a list of non-empty op id lists"
    if "flag" in record:
        return _flag_problem(record["flag"])
    return None


def _flag_problem(flag: object) -> str | None:
    if not isinstance(flag, dict):
        return "a step's flag is not an object"
    fields: dict[str, Any] = flag  # pyright: ignore[reportUnknownVariableType]
    if set(fields) - _FLAG_FIELDS:
        return f"unexpected field {sorted(set(fields) - _FLAG_FIELDS)[0]!r} in a flag"
    if fields.get("kind") not in FLAG_KINDS:
        return "a flag's kind is not one of " + ", ".join(sorted(FLAG_KINDS))
    if not isinstance(fields.get("message"), str):
        return "a flag's message is not a string"
    if "detail" in fields and not isinstance(fields["detail"], str):
        return "a flag's detail is not a string"
    if "cycle" in fields and not _strings(fields["cycle"]):
        return "a flag's cycle is not a list of strings"
    return None


def header_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with a header record's envelope (its initial delta aside), or None."""
    if record.get("format") != TRACE_FORMAT:
        return f"the header's format is not {TRACE_FORMAT!r}"
    version = record.get("version")
    if type(version) is not int or version not in READ_VERSIONS:
        return "the header's version is not " + " or ".join(map(str, READ_VERSIONS))
    extra = set(record) - _HEADER_FIELDS
    if extra:
        return f"unexpected field {sorted(extra)[0]!r} in the header"
    meta = record.get("meta")
    if not isinstance(meta, dict):
        return "the header's meta is not an object"
    fields: dict[str, Any] = meta  # pyright: ignore[reportUnknownVariableType]
    for name in ("input", "pipeline", "passviz_version", "xdsl_version"):
        if not isinstance(fields.get(name), str):
            return f"the header's meta.{name} is not a string"
    if fields.get("verify_each") not in ("off", "pass", "rewrite"):
        return "the header's meta.verify_each is not off, pass or rewrite"
    for name in ("syntax", "aliases"):
        if name in fields and not _string_map(fields[name]):
            return f"the header's meta.{name} is not an object of strings"
    if version == 1 and not isinstance(record.get("initial_ir"), str):
        return "the header's initial_ir is not a string"
    if version != 1 and "initial_ir" in record:
        return f"unexpected field 'initial_ir' in a version {version} header"
    initial = record.get("initial")
    if (initial is not None or version != 1) and not _initial_ok(initial):
        return "the header's initial is not an object with a root op id and a delta"
    if not _string_map(record.get("sources", {})):
        return "the header's sources are not file names and texts"
    return None


def _string_map(value: object) -> bool:
    """Whether ``value`` is an object whose values are strings."""
    if not isinstance(value, dict):
        return False
    fields: dict[object, object] = value  # pyright: ignore[reportUnknownVariableType]
    return all(isinstance(item, str) for item in fields.values())


def _initial_ok(initial: object) -> bool:
    if not isinstance(initial, dict):
        return False
    fields: dict[str, Any] = initial  # pyright: ignore[reportUnknownVariableType]
    return _op_id(fields.get("root")) and isinstance(fields.get("delta"), dict)


def end_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with an end record, or None."""
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
    extra = set(record) - _RUN_FIELDS
    if extra:
        return f"unexpected field {sorted(extra)[0]!r} in a run record"
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
