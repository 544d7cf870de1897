"""Trace files are hostile until proven otherwise: every one gets a clean one-line
answer from every command, in bounded time and memory."""

from __future__ import annotations

import functools
import gc
import gzip
import json
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from passviz.cli import main
from passviz.trace import untrusted
from passviz.trace.records import trace_records
from passviz.trace.store import TraceFormatError, read_trace, schema_errors
from passviz.trace.untrusted import TraceLimitError, decode_record
from tests.long_traces import seed_trace
from tests.mutants import Mutant, enriched, mutants, shape, write_records

MODULE = (
    "func.func @f(%a: i32) -> i32 {\n"
    "  %c = arith.constant 0 : i32\n"
    '  %0 = arith.addi %a, %c {tag = "x"} : i32\n'
    "  func.return %0 : i32\n"
    "}\n"
)


@pytest.fixture
def trace_file(tmp_path: Path) -> Path:
    source = tmp_path / "in.mlir"
    source.write_text(MODULE)
    out = tmp_path / "t.json"
    assert main(["trace", str(source), "-p", "canonicalize", "-o", str(out)]) == 0
    return out


def _one_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """The error line of ``passviz argv``, which must exit 1 with no traceback."""
    capsys.readouterr()
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if not line.startswith("passviz: warning: ")]
    assert len(errors) == 1 and errors[0].startswith("passviz: error: "), err
    return errors[0]


def test_an_unterminated_string_in_an_attribute_text_is_rejected_at_once(
    trace_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = trace_file.read_text()
    assert '\\"x\\"' in text
    trace_file.write_text(text.replace('\\"x\\"', '\\"' + "a" * 40))
    start = time.perf_counter()
    _one_error(capsys, ["show", str(trace_file)])
    assert time.perf_counter() - start < 5  # xDSL 0.74's own lexer: hours


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _write(path: Path, records: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))


ESCAPES = "\x1b]0;retitled\x07\x1b[2K\x9b31m\u202e"


def test_escape_sequences_in_a_trace_never_reach_the_terminal(
    trace_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = _records(trace_file)
    for record in records[1:-1]:
        record["name"] = ESCAPES + record["name"]
        if "pass" in record:
            record["pass"] = ESCAPES + record["pass"]
    records[0]["meta"]["input"] = ESCAPES
    _write(trace_file, records)
    for command in (["steps"], ["show"], ["show", "--step", "1", "--diff"], ["dump"]):
        capsys.readouterr()
        assert main([*command, str(trace_file)]) == 0, command
        captured = capsys.readouterr()
        for stream in (captured.out, captured.err):
            assert not any(c in stream for c in "\x1b\x07\x9b\u202e"), (command, stream)
        if command[0] in ("steps", "dump"):
            assert "\\x1b]0;retitled\\x07\\x1b[2K\\x9b31m\\u202e" in captured.out


LONE = "\ud800"
"""A lone surrogate, as JSON's ``"\\ud800"`` reads: no UTF-8 can hold it."""


def test_lone_surrogates_are_printed_escaped(
    trace_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = _records(trace_file)
    header = records[0]
    header["meta"]["input"] += LONE
    header["meta"]["pipeline"] += LONE
    header["sources"] = {f"f{LONE}.py": f"x = 1{LONE}\n"}
    for op in header["initial"]["delta"]["ops_created"]:
        op["loc"] = f'loc("f{LONE}.py":1:2)'
    for record in records[1:-1]:
        record["name"] += LONE
        if "pass" in record:
            record["pass"] += LONE
        if record["kind"] == "rewrite":
            record["flag"] = {"kind": "verify", "message": f"bad{LONE}", "detail": LONE}
    _write(trace_file, records)
    page = tmp_path / "page.html"
    for command in (*COMMANDS, ["export", "--html", str(page)]):
        capsys.readouterr()
        assert main([command[0], str(trace_file), *command[1:]]) == 0, command
        captured = capsys.readouterr()
        (captured.out + captured.err).encode("utf-8")
        if command[0] in ("steps", "dump"):
            assert "Canonicalize\\ud800" in captured.out
    assert "\\ud800" in page.read_text(encoding="utf-8")


def test_a_delta_that_does_not_apply_is_located_at_its_line(
    trace_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = _records(trace_file)
    records[2].setdefault("delta", {})["ops_erased"] = ["o999"]
    records[0]["initial"]["delta"]["placed"][0]["after"] = "o998"
    _write(trace_file, records)
    for command in (["show"], ["dump"], ["validate"]):
        error = _one_error(capsys, [command[0], str(trace_file)])
        assert error.startswith(
            f"passviz: error: {trace_file}:1: the trace's initial IR cannot be built: "
        ), error
    records[0]["initial"]["delta"]["placed"][0]["after"] = None
    _write(trace_file, records)
    error = _one_error(capsys, ["show", str(trace_file)])
    assert error == (
        f"passviz: error: {trace_file}:3: step {records[2]['index']}: cannot apply its delta: "
        "cannot erase unknown op o999"
    )


def test_an_error_naming_a_huge_id_is_cut_short(trace_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = _records(trace_file)
    records[2].setdefault("delta", {})["ops_erased"] = ["o" + "1" * 100_000]  # an id, by the schema
    _write(trace_file, records)
    error = _one_error(capsys, ["show", str(trace_file)])
    assert "cannot erase unknown op o111" in error and error.endswith(" more characters)")
    assert len(error) < 2100


def _with_line(path: Path, number: int, line: str) -> None:
    lines = path.read_text().splitlines()
    lines.insert(number - 1, line)
    path.write_text("\n".join(lines) + "\n")


COMMANDS = (["steps"], ["show"], ["show", "--step", "1", "--diff"], ["dump"], ["validate"])


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("[" * 10_000 + "]" * 10_000, ":2: a record nests deeper than 64 levels, the limit"),
        ('{"a":' * 65 + "1" + "}" * 65, ":2: a record nests deeper than 64 levels, the limit"),
        ('{"index": ' + "9" * 5000 + ', "kind": "rewrite"}', ":2: a number of 5000 digits"),
        ('{"index": 1180591620717411303424, "kind": "rewrite"}', ":2: a number of 22 digits"),
        ('{"index": 0, "kind": "rewrite", "x": NaN}', ":2: not valid JSON (NaN is not JSON)"),
    ],
)
def test_extreme_json_is_one_clean_line(
    line: str, expected: str, trace_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _with_line(trace_file, 2, line)
    for command in COMMANDS:
        start = time.perf_counter()
        error = _one_error(capsys, [command[0], str(trace_file), *command[1:]])
        assert f"{trace_file}{expected}" in error, command
        assert command == ["validate"] or time.perf_counter() - start < 5  # validate imports jsonschema


def test_records_nested_up_to_the_limit_still_read(trace_file: Path) -> None:
    assert decode_record('{"a":' * 63 + "[1]" + "}" * 63) is not None
    with pytest.raises(TraceLimitError):
        decode_record('{"a":' * 64 + "[1]" + "}" * 64)


def test_a_string_past_the_limit_is_one_clean_line(
    trace_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(untrusted, "MAX_STRING_CHARS", 1000)
    assert decode_record('{"index": 0, "name": "' + "x" * 1000 + '"}') is not None
    _with_line(trace_file, 2, '{"index": 0, "kind": "rewrite", "name": "' + "x" * 1001 + '"}')
    error = _one_error(capsys, ["steps", str(trace_file)])
    assert error.endswith(f"{trace_file}:2: a string of 1,001 characters; the limit is 1,000 characters")


def test_a_gzip_bomb_stops_at_the_size_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(untrusted, "MAX_TRACE_BYTES", 1 << 20)
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b" " * (64 << 20), compresslevel=1))
    assert bomb.stat().st_size < 1 << 20
    plain = tmp_path / "big.json"
    plain.write_bytes(b" " * ((1 << 20) + 1))
    for path in (bomb, plain):
        error = _one_error(capsys, ["steps", str(path)])
        assert error == f"passviz: error: {path}: the trace holds more than 1 MiB of records, the limit"


def _gzip(path: Path, parts: list[bytes]) -> None:
    """``parts`` gzip-compressed into ``path``, one member each (a member may repeat a part)."""
    path.write_bytes(b"".join(gzip.compress(part, compresslevel=1) for part in parts))


def test_a_trace_padded_with_newlines_reads_in_constant_memory(trace_file: Path) -> None:
    lines = trace_file.read_bytes().splitlines(keepends=True)
    blank = 64 << 20
    padded = trace_file.with_name("padded.json.gz")
    bad = b'{"index": 0, "kind": "teleport"}\n'
    _gzip(padded, [lines[0] + b"\n" * blank + bad + lines[-1]])
    tracemalloc.start()
    start = time.perf_counter()
    with pytest.raises(TraceFormatError, match=rf"padded.json.gz:{blank + 2}: invalid trace record: .*kind"):
        read_trace(padded)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 16 << 20, f"{peak >> 20} MiB to read 64 MiB of newlines"
    assert seconds < 10


def test_every_member_of_a_gzip_file_is_read(trace_file: Path) -> None:
    lines = trace_file.read_bytes().splitlines(keepends=True)
    split = trace_file.with_name("members.json.gz")
    _gzip(split, [b"".join(lines[:3]), b"".join(lines[3:]), b""])
    trace = read_trace(split)
    assert trace.status == "ok" and len(trace.steps) == len(lines) - 2 and not trace.warnings
    split.write_bytes(split.read_bytes() + b"\0" * 100)  # trailing bytes beginning no member: ignored
    assert len(read_trace(split).steps) == len(lines) - 2


def test_a_gzip_bomb_of_one_line_stops_at_the_size_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(untrusted, "MAX_TRACE_BYTES", 4 << 20)
    for payload in (b"x", b'{"record": "header", "format": "'):
        bomb = tmp_path / "bomb.json.gz"
        _gzip(bomb, [payload + b"a" * (64 << 20)])
        error = _one_error(capsys, ["steps", str(bomb)])
        assert error == f"passviz: error: {bomb}: the trace holds more than 4 MiB of records, the limit"


def test_ids_match_their_pattern_exactly() -> None:
    assert schema_errors({"index": 1, "kind": "rewrite", "root": "o3"}) == []
    assert schema_errors({"index": 1, "kind": "rewrite", "root": "o3\n"})
    assert schema_errors({"index": 1, "kind": "rewrite", "delta": {"texts": {"o3\n": "x"}}})


def test_an_initial_ir_that_does_not_verify_gets_no_traceback(
    trace_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = trace_file.read_text()
    assert '"type":"i32"' in text or "arith.constant 0 : i32" in text
    trace_file.write_text(text.replace('"type":"i32"', '"type":"i64"', 1).replace("0 : i32", "0 : i64", 1))
    for command in COMMANDS:
        capsys.readouterr()
        assert main([command[0], str(trace_file), *command[1:]]) in (0, 1)
        assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("line", "change", "expected"),
    [
        (2, lambda r: r["delta"]["ops_created"].append(5), "delta/ops_created/1: not a created op"),
        (2, lambda r: r["delta"]["ops_erased"].append({"id": "o1"}), "delta/ops_erased/1: not an op id"),
        (2, lambda r: r["delta"]["ops_created"][0].pop("name"), "delta/ops_created/0/name: missing"),
        (2, lambda r: r["delta"]["replaced"][0].pop("values"), "delta/replaced/0/values: missing"),
        (
            2,
            lambda r: r.update(kind=["rewrite"]),
            "kind: not one of checkpoint, failure, pass-begin, pass-end",
        ),
        (2, lambda r: r["delta"].update(texts=[]), "delta/texts: not an object of op texts by op id"),
        (
            1,
            lambda r: r["initial"]["delta"]["placed"][0].update(after=7),
            "initial/delta/placed/0/after: not an op id or null",
        ),
        (
            1,
            lambda r: r["initial"]["delta"]["ops_created"][0].update(operands="v1"),
            "initial/delta/ops_created/0/operands: not a list of value ids",
        ),
    ],
    ids=[
        "created-int",
        "erased-object",
        "created-without-name",
        "replaced-without-values",
        "kind-list",
        "texts-list",
        "initial-after",
        "initial-operands",
    ],
)
def test_a_type_confused_record_is_refused_at_its_line(
    line: int, change: Any, expected: str, trace_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = _records(trace_file)
    if line == 1:
        target = records[0]
    else:  # a step that replaces an op, given a created op and an erased one if it has none
        target = next(r for r in records if r.get("delta", {}).get("replaced"))
        created = {"id": "o9", "name": "x", "operands": [], "results": []}
        target["delta"].setdefault("ops_created", [created])
        target["delta"].setdefault("ops_erased", ["o1"])
        line = records.index(target) + 1
    change(target)
    _write(trace_file, records)
    for command in COMMANDS:
        error = _one_error(capsys, [command[0], str(trace_file), *command[1:]])
        if command[0] != "validate":  # validate says it as jsonschema does
            assert error.startswith(
                f"passviz: error: {trace_file}:{line}: invalid trace record: {expected}"
            ), error


def _base_records() -> list[dict[str, Any]]:
    """The records the fuzz test mutates: seed 000's trace, with every optional field somewhere."""
    return enriched(trace_records(seed_trace()))


@functools.cache
def _mutant_groups() -> dict[str, list[Mutant]]:
    """The mutants of ``_base_records`` (seed 0), by record kind and field: ``step:delta/texts``."""
    records = _base_records()
    groups: dict[str, list[Mutant]] = {}
    for mutant in mutants(records, seed=0):
        path = shape(mutant.path)
        depth = 3 if path[:1] == ("initial",) else 2 if path[:1] in (("delta",), ("meta",), ("flag",)) else 1
        kind = records[mutant.line].get("record", "step")
        groups.setdefault(f"{kind}:{'/'.join(path[:depth])}", []).append(mutant)
    return groups


FUZZ_COMMANDS = (
    ["show"],
    ["show", "--step", "10", "--diff"],
    ["dump"],
    ["validate"],
    ["export", "--html", "PAGE"],
    ["run"],
    ["bisect"],
)
"""What runs on a mutant ``passviz steps`` reads: all of it; on one it refuses, the rest refuses it the same."""

KNOWN: dict[str, str] = {}
"""Groups that still give a traceback, and where the fix belongs (outside the trace reader)."""


def _clean(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``passviz argv``'s exit status and error line ("" if none); fails on anything else."""
    start = time.perf_counter()
    rc = main(argv)
    gc.unfreeze()  # main freezes what exists for its one command; thousands of commands here
    captured = capsys.readouterr()
    assert time.perf_counter() - start < 10, f"{argv[0]} took {time.perf_counter() - start:.1f} s"
    (captured.out + captured.err).encode("utf-8")
    errors = [line for line in captured.err.splitlines() if not line.startswith("passviz: warning: ")]
    assert rc in (0, 1), (rc, captured.err[-2000:])
    if rc == 0:
        assert errors == [], captured.err[-2000:]
        return 0, ""
    assert len(errors) == 1 and errors[0].startswith("passviz: error: "), captured.err[-2000:]
    return 1, errors[0]


@pytest.mark.parametrize(
    "group",
    [
        pytest.param(group, marks=pytest.mark.xfail(strict=True, reason=KNOWN[group]))
        if group in KNOWN
        else group
        for group in sorted(_mutant_groups())
    ],
)
def test_every_command_answers_every_mutant_cleanly(
    group: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = _base_records()
    path, page = tmp_path / "m.json", tmp_path / "page.html"
    for mutant in _mutant_groups()[group]:
        write_records(path, mutant.apply(records))
        rc, error = _clean(["steps", str(path)], capsys)
        if rc == 1 and f"{path}:" in error:
            continue  # refused where it is read, at a line: every command refuses it the same
        for command in FUZZ_COMMANDS:
            argv = [command[0], str(path), *(str(page) if a == "PAGE" else a for a in command[1:])]
            try:
                _clean(argv, capsys)
            except AssertionError as exc:
                raise AssertionError(f"{mutant}: passviz {' '.join(argv[:1] + argv[2:])}: {exc}") from None
