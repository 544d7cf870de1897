"""The quick check of records (``passviz.trace.envelope``) agrees with the schema: what the schema
accepts passes, what it rejects fails, field by field, the deltas' fields included."""

from __future__ import annotations

import copy
import functools
from typing import Any

import pytest

from passviz.pipelines import record
from passviz.trace import envelope
from passviz.trace.envelope import record_problem, step_problem, steps_valid
from passviz.trace.records import trace_records
from passviz.trace.store import schema_errors
from tests.golden import recorded_traces
from tests.long_traces import seed_trace
from tests.mutants import Mutant, enriched, mutants


@functools.cache
def _records() -> list[dict[str, Any]]:
    """Every record of every trace the suite records, headers and end records too."""
    records: list[dict[str, Any]] = []
    for make in recorded_traces().values():
        records += trace_records(make())
    failing = record("func.func @f() {\n  func.return\n}\n", "canonicalize,cse")
    records += trace_records(failing.trace)
    return records


def _step_records() -> list[dict[str, Any]]:
    return [r for r in _records() if "record" not in r]


@functools.cache
def _a_rewrite_step() -> dict[str, Any]:
    """One rewrite step's record, from a small trace (the mutations below need no more; the
    suite's traces include make-ttir ones, which need Triton)."""
    text = "func.func @f(%a: i32) -> i32 {\n  %c0 = arith.constant 0 : i32\n  %b = arith.addi %a, %c0 : i32\n  func.return %b : i32\n}\n"
    records = trace_records(record(text, "canonicalize").trace)
    return next(r for r in records if r.get("kind") == "rewrite")


def test_every_record_the_schema_accepts_passes() -> None:
    steps = _step_records()
    assert len(steps) > 20
    for step in steps:
        assert schema_errors(step) == []
        assert step_problem(step) is None, step
    assert steps_valid(steps)
    others = [r for r in _records() if "record" in r]
    assert {r["record"] for r in others} == {"header", "end"}
    for other in others:
        assert schema_errors(other) == [] and record_problem(other) is None, other["record"]


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
    step = copy.deepcopy(_a_rewrite_step())
    step[field] = value
    assert schema_errors(step), "the schema accepts it: the case is not bad"
    assert step_problem(step) is not None


def test_an_id_with_a_trailing_newline_fails() -> None:
    step = copy.deepcopy(_a_rewrite_step())
    step["root"] = "o3\n"
    assert step_problem(step) is not None


@functools.cache
def _seed_records() -> list[dict[str, Any]]:
    """The seed trace's records, with every optional field somewhere and a run record."""
    return enriched(trace_records(seed_trace()))


@functools.cache
def _judged(seed: int) -> list[tuple[Mutant, dict[str, Any], list[str]]]:
    """Each mutant of the seed records, its changed record, and what the schema says of it."""
    records = _seed_records()
    out: list[tuple[Mutant, dict[str, Any], list[str]]] = []
    for mutant in mutants(records, seed):
        changed = mutant.record(records)
        out.append((mutant, changed, schema_errors(changed)))
    return out


@pytest.mark.parametrize("columns", [envelope._COLUMNS, 1], ids=["columns-8", "columns-1"])  # pyright: ignore[reportPrivateUsage]
def test_every_mutant_is_judged_as_the_schema_judges_it(
    columns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With columns=1, every list and map is checked a column at a time first (all_valid), then item by item.
    monkeypatch.setattr(envelope, "_COLUMNS", columns)
    judged = _judged(0)
    assert len(judged) > 2000
    assert {m.path[0] for m, _, _ in judged if m.path} >= {"delta", "initial", "meta", "flag", "differences"}
    wrong: list[str] = []
    for mutant, changed, by_schema in judged:
        problem = record_problem(changed)
        # JSON Schema's integer takes 2.0; the quick check, stricter, wants an int.
        stricter = mutant.change == "integral float" and problem is not None
        if bool(by_schema) != (problem is not None) and not stricter:
            wrong.append(f"{mutant}: schema {by_schema[:1]}, quick check {problem!r}")
        if "record" not in changed and problem is not None and steps_valid([changed]):
            wrong.append(f"{mutant}: steps_valid passes what step_problem refuses: {problem}")
    assert wrong == []


def test_steps_checked_together_fail_if_any_fails() -> None:
    records = _seed_records()
    steps = [r for r in records if "record" not in r]
    assert steps_valid(steps)
    for mutant in mutants(records, seed=1):
        changed = mutant.apply(records)
        if "record" in changed[mutant.line]:
            continue
        batch = [r for r in changed if "record" not in r]
        if any(step_problem(step) is not None for step in batch):
            assert not steps_valid(batch), mutant


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("delta", "ops_created", 0), 5, "delta/ops_created/0: not a created op"),
        (("delta", "ops_created", 0, "name"), None, "delta/ops_created/0/name: not a non-empty string"),
        (("delta", "ops_erased", 0), ["o1"], "delta/ops_erased/0: not an op id"),
        (
            ("delta", "replaced", 0, "values", 0),
            ["v1"],
            "delta/replaced/0/values/0: not a pair of value ids or nulls",
        ),
        (("delta", "texts"), {"x": "y"}, "delta/texts/x: a key that is not an op id"),
        (("kind",), ["rewrite"], "kind: not one of checkpoint, failure, pass-begin, pass-end, rewrite"),
    ],
)
def test_a_problem_is_located_by_its_path(path: tuple[str | int, ...], value: object, message: str) -> None:
    step = copy.deepcopy(
        next(
            s
            for s in _seed_records()
            if s.get("delta", {}).get("ops_created")
            and s["delta"].get("replaced")
            and s["delta"].get("ops_erased")
        )
    )
    parent: Any = step
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    assert step_problem(step) == message
    del parent[path[-1]]
    if path[-1] in ("name",):
        assert step_problem(step) == message.replace("not a non-empty string", "missing")
