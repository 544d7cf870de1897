"""Trace files are hostile until proven otherwise: every one gets a clean one-line
answer from every command, in bounded time and memory."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from passviz.cli import main

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
