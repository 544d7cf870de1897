"""Snapshots that differ from the one before in a few one-line ops, read in place
(``passviz.importer.inplace``): the trace and the match statistics are the ones a full read of
each snapshot gives (the import with in-place reading switched off is the oracle), and where the
full match could pair ops otherwise, the import reads the snapshot whole."""

from __future__ import annotations

import json

import pytest

from passviz.importer import dump
from passviz.importer.dump import ImportReport, import_text
from passviz.importer.inplace import changed_lines
from passviz.trace.model import Trace
from passviz.trace.records import end_record, header_record, step_to_record

MODULE = """module attributes {{test.flag = {flag} : i32}} {{
  func.func @f(%arg0: i32, %arg1: !test.ptr) -> i32 {{
    %c1 = arith.constant 1 : i32
    %0 = arith.addi %arg0, %c1 : i32 loc("k.py":3:4)
    "test.fence"() {{kind = "a"}} : () -> () loc("k.py":4:4)
    %1 = arith.muli %0, %0 : i32 loc("k.py":5:4)
    {line}
    "test.store"(%arg1, %1) : (!test.ptr, i32) -> () loc("k.py":7:4)
    func.return %1 : i32 loc("k.py":8:4)
  }}
}}
"""

FENCE = '"test.fence"() {kind = "b"} : () -> () loc("k.py":6:4)'


def _dump(*lines: str, flags: tuple[int, ...] = ()) -> str:
    """Triton's ``MLIR_ENABLE_DUMP`` of a module printed once per line given, as the line before
    the store (and with each of ``flags``, 1 where none is given, as its attribute)."""
    return "".join(
        f"// -----// IR Dump Before Pass{index} (pass-{index}) ('builtin.module' operation) //----- //\n"
        + MODULE.format(line=line, flag=flags[index] if index < len(flags) else 1)
        + "\n\n"
        for index, line in enumerate(lines)
    )


def _imported(text: str, *, in_place: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, int]:
    """The trace (as its file holds it), the match statistics, and how many snapshots were
    read in place."""
    done: list[bool] = []
    read = dump.read_in_place

    def counted(*args: object) -> object:
        found = read(*args) if in_place else None  # type: ignore[arg-type]
        done.append(found is not None)
        return found

    with monkeypatch.context() as patch:
        patch.setattr(dump, "read_in_place", counted)
        report: ImportReport = import_text(text)
    stats = [(s.matched, s.moved, s.created, s.erased, s.by_phase) for s in report.stats]
    return _records(report.trace), repr(stats), sum(done)


def _records(trace: Trace) -> str:
    """The trace as its file's records."""
    records = [header_record(trace), *(step_to_record(step) for step in trace.steps), end_record(trace)]
    return json.dumps(records, sort_keys=True)


CASES = {
    # An op rewritten into another (a lowering of a fence): created, the old one erased.
    "rewritten": (
        '"test.fence"() {kind = "b"} : () -> () loc("k.py":6:4)',
        '"llvm.inline_asm"() : () -> () loc("k.py":6:4)',
    ),
    # Only its location moved: the same op, its location changed.
    "relocated": (
        '%2 = arith.addi %1, %c1 : i32 loc("k.py":6:4)',
        '%2 = arith.addi %1, %c1 : i32 loc("k.py":9:9)',
    ),
    # The same op and location, another attribute: the same op, modified.
    "modified": (FENCE, FENCE.replace('"b"', '"c"')),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_snapshot_read_in_place_is_what_reading_it_whole_gives(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    before, after = CASES[case]
    text = _dump(before, after, after)
    whole = _imported(text, in_place=False, monkeypatch=monkeypatch)
    in_place = _imported(text, in_place=True, monkeypatch=monkeypatch)
    assert in_place[2] == 1, case  # (the second snapshot; the third prints as the second)
    assert in_place[:2] == whole[:2], case


def test_a_module_whose_attributes_changed_is_read_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _dump(FENCE, FENCE, FENCE, flags=(1, 2, 2))
    whole = _imported(text, in_place=False, monkeypatch=monkeypatch)
    in_place = _imported(text, in_place=True, monkeypatch=monkeypatch)
    assert in_place[2] == 1
    assert in_place[:2] == whole[:2]
    assert "test.flag = 2 : i32" in whole[0]


def test_a_function_whose_header_changed_is_what_reading_it_whole_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    header = "func.func @f(%arg0: i32, %arg1: !test.ptr) -> i32 {"
    first, second = _dump(FENCE, FENCE).split("// -----//")[1:]
    changed = second.replace(header, header[:-1] + "attributes {noinline} {")
    relocated = second.replace(
        'return %1 : i32 loc("k.py":8:4)\n  }', 'return %1 : i32 loc("k.py":8:4)\n  } loc("k.py":1:1)'
    )
    for after in (changed, relocated):
        text = f"// -----//{first}// -----//{after}"
        whole = _imported(text, in_place=False, monkeypatch=monkeypatch)
        assert _imported(text, in_place=True, monkeypatch=monkeypatch)[:2] == whole[:2]
    assert (
        "noinline"
        in _imported(f"// -----//{first}// -----//{changed}", in_place=True, monkeypatch=monkeypatch)[0]
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # The new op computes what another op does: the full match may pair it with that one.
        (FENCE, '"test.fence"() {kind = "a"} : () -> () loc("k.py":4:4)'),
        # The old op had a value the rest uses, and the new one computes otherwise.
        ('%2 = arith.addi %1, %c1 : i32 loc("k.py":6:4)', '%2 = arith.subi %1, %c1 : i32 loc("k.py":6:4)'),
        # The new line names a value the old one did not.
        ('%2 = arith.addi %1, %c1 : i32 loc("k.py":6:4)', '%2 = arith.addi %0, %c1 : i32 loc("k.py":6:4)'),
    ],
)
def test_where_the_match_could_differ_the_snapshot_is_read_whole(
    before: str, after: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _dump(before, after)
    whole = _imported(text, in_place=False, monkeypatch=monkeypatch)
    assert _imported(text, in_place=True, monkeypatch=monkeypatch)[:2] == whole[:2]


def test_changed_lines_are_the_few_near_each_other() -> None:
    old = "a\n  b\n  c\nd\n"
    assert changed_lines(old, old) == []
    assert changed_lines(old, "a\n  B\n  c\nd\n") == [(2, 2, "  b", "  B")]
    assert changed_lines(old, "a\n  bb\n  cc\nd\n") == [(2, 2, "  b", "  bb"), (6, 7, "  c", "  cc")]
    # A line more or fewer, or changes far apart, are not a few lines changed.
    assert changed_lines(old, "a\n  b\n  x\n  c\nd\n") is None
    far = "".join(f"{n}\n" for n in range(40))
    assert changed_lines(far, far.replace("1\n", "x\n", 1).replace("38\n", "y\n")) is None
