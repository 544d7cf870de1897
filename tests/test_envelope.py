"""The quick envelope check agrees with the schema: what the schema accepts passes, bad envelopes fail both."""

from __future__ import annotations

import copy
import functools
from typing import Any

import pytest

from passviz.pipelines import record
from passviz.trace.envelope import step_problem
from passviz.trace.store import schema_errors, trace_records
from tests.golden import recorded_traces


@functools.cache
def _step_records() -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for make in recorded_traces().values():
        records += [r for r in trace_records(make()) if "record" not in r]  # type: ignore[misc]
    failing = record("func.func @f() {\n  func.return\n}\n", "canonicalize,cse")
    records += [r for r in trace_records(failing.trace) if "record" not in r]  # type: ignore[misc]
    return records


def test_every_record_the_schema_accepts_passes() -> None:
    # (An id with a trailing newline is refused here; the schema's pattern, read by
    # Python's re, still lets "o3\n" through.)
    steps = _step_records()
    assert len(steps) > 20
    for step in steps:
        assert schema_errors(step) == []
        assert step_problem(step) is None, step


BAD: list[tuple[str, Any]] = [
    ("index", -1),
    ("index", "3"),
    ("index", True),
    ("kind", "teleport"),
    ("pass", 7),
    ("pass_index", 1.5),
    ("name", None),
    ("root", "v3"),
    ("delta", []),
    ("chain", ["o1", 2]),
    ("dispatch", ["o1"]),
    ("dispatch", [[]]),
    ("flag", {"kind": "verify"}),
    ("flag", {"kind": "boom", "message": "m"}),
    ("flag", {"kind": "verify", "message": "m", "cycle": "ab"}),
    ("surprise", 1),
]


@pytest.mark.parametrize(("field", "value"), BAD, ids=[f"{f}={v!r}" for f, v in BAD])
def test_bad_envelopes_fail_both(field: str, value: Any) -> None:
    step = copy.deepcopy(next(s for s in _step_records() if s["kind"] == "rewrite"))
    step[field] = value
    assert schema_errors(step), "the schema accepts it: the case is not bad"
    assert step_problem(step) is not None


def test_an_id_with_a_trailing_newline_fails() -> None:
    step = copy.deepcopy(next(s for s in _step_records() if s["kind"] == "rewrite"))
    step["root"] = "o3\n"
    assert step_problem(step) is not None
