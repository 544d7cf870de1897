"""The peer test files' ``expected-error`` cases are refused by passviz, at their line.

MLIR's own tests name the errors an input must raise in comments (``mlir-opt -verify-diagnostics``):
``// expected-error {{...}}`` on the line of the error, or with a designator: ``@+N`` / ``@-N``
lines below or above the comment, ``@above`` the last line above it that is no such comment,
``@below`` the next line below it that is none.  ``-split-input-file`` splits a file at
``// -----``, and each part is read alone: every part that carries an ``expected-error`` must be
refused, at one of the lines it names.  A part written in a dialect passviz does not model may be
refused as unknown (``... is not registered``) instead; those are counted and skipped, with why.

The reading of the designators is checked against ``iree-opt -verify-diagnostics`` itself on
inputs of the tests' own, and so is passviz's refusal of them.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from _pytest.mark import ParameterSet

from tests.conftest import PEER, iree_opt, iree_opt_missing, need
from tests.differential import passviz_verdict

_DIRECTIVE = re.compile(
    r"expected-(error|note|remark|warning)(?:-re)? *(@([+-][0-9]+|above|below|unknown))? *\{\{.*\}\}$"
)
"""MLIR's ``-verify-diagnostics`` directive (``SourceMgrDiagnosticVerifierHandler``'s pattern)."""

UNKNOWN = re.compile(r"is not registered|unregistered")
"""passviz's words for an op, type or dialect it does not model."""


@dataclass(frozen=True)
class Chunk:
    """One ``// -----`` part of a peer file: where it is, its text and its expected errors' lines."""

    path: Path
    index: int
    text: str
    lines: tuple[int | None, ...]
    """The line of each ``expected-error`` (1-based in ``text``); None for ``@unknown``."""

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(PEER)}#{self.index}"


def split_input_file(text: str) -> list[str]:
    """``text`` split as ``-split-input-file`` splits it: at each line that is ``// -----``."""
    return re.split(r"^// -----[^\n]*\n?", text, flags=re.MULTILINE)


def expected_error_lines(text: str) -> tuple[int | None, ...]:
    """The line each ``expected-error`` of ``text`` names, as ``-verify-diagnostics`` reads it."""
    lines = text.split("\n")
    found: list[int | None] = []
    below: list[int] = []  # indices into found waiting for the next non-directive line
    last_plain = 0  # the last line (1-based) that holds no directive
    for number, line in enumerate(lines, start=1):
        match = _DIRECTIVE.search(line.rstrip())
        if match is None:
            for waiting in below:
                found[waiting] = number
            below.clear()
            last_plain = number
            continue
        if match.group(1) != "error":
            continue
        designator = match.group(3)
        if designator is None:
            found.append(number)
        elif designator == "unknown":
            found.append(None)
        elif designator == "above":
            found.append(last_plain)
        elif designator == "below":
            below.append(len(found))
            found.append(len(lines))  # a dangling @below: MLIR takes the end of the file
        else:
            found.append(number + int(designator))
    return tuple(found)


def peer_chunks_with_expected_errors() -> list[Chunk]:
    """Every part of every peer ``.mlir`` file that carries an ``expected-error``."""
    chunks: list[Chunk] = []
    for path in sorted(PEER.rglob("*.mlir")):
        for index, text in enumerate(split_input_file(path.read_text("utf-8"))):
            lines = expected_error_lines(text)
            if lines:
                chunks.append(Chunk(path, index, text, lines))
    return chunks


def _cases() -> list[ParameterSet]:
    chunks = peer_chunks_with_expected_errors()
    if not chunks:
        reason = f"no peer .mlir file under {PEER} carries an expected-error line"
        return [pytest.param(None, id="none", marks=pytest.mark.skip(reason=reason))]
    return [pytest.param(chunk, id=chunk.id) for chunk in chunks]


@pytest.mark.parametrize("chunk", _cases())
def test_each_expected_error_is_refused_at_its_line(chunk: Chunk) -> None:
    verdict = passviz_verdict(chunk.text, chunk.path.name)
    assert not verdict.accepted, f"{chunk.id}: passviz accepts a part that expects errors at {chunk.lines}"
    if verdict.line not in chunk.lines and UNKNOWN.search(verdict.message):
        pytest.skip(f"{chunk.id}: written in a dialect passviz does not model ({verdict.message})")
    assert verdict.line in chunk.lines or None in chunk.lines, (chunk.id, chunk.lines, str(verdict))


def test_how_many_peer_parts_expect_errors(capsys: pytest.CaptureFixture[str]) -> None:
    """Says how many parts were checked, refused at their line, and skipped as unknown."""
    chunks = peer_chunks_with_expected_errors()
    at_line = unknown = 0
    for chunk in chunks:
        verdict = passviz_verdict(chunk.text, chunk.path.name)
        if not verdict.accepted and (verdict.line in chunk.lines or None in chunk.lines):
            at_line += 1
        elif not verdict.accepted and UNKNOWN.search(verdict.message):
            unknown += 1
    with capsys.disabled():
        print(
            f"\npeer parts with expected-error: {len(chunks)} checked, {at_line} refused at their line, "
            f"{unknown} skipped as written in dialects passviz does not model"
        )
    assert at_line + unknown == len(chunks)


# -- the reading of the designators, checked against MLIR's -verify-diagnostics ----------------

SELF_CHECK = """\
func.func @same_line() {
  %x = arith.constant 1 : i2000000000 // expected-error {{integer bitwidth is limited to 16777215 bits}}
  func.return
}

// -----
func.func @plus_one() -> i32 {
  // expected-error@+1 {{unexpected character}}
  %0 = arith.constant \uff11 : i32
  func.return %0 : i32
}

// -----
func.func @below(%c: i1) -> i32 {
  // expected-error@below {{branch has 0 operands for successor #0, but target block has 1}}
  cf.br ^bb1
^bb1(%x: i32):
  func.return %x : i32
}

// -----
func.func @above(%a: i32) -> i32 {
  %r = arith.constant 1 : i32
  %s = arith.addi %r, %r : i2000000000
  // expected-error@above {{integer bitwidth is limited to 16777215 bits}}
  func.return %r : i32
}

// -----
func.func @minus_two(%a: i32) {
}
// expected-error@-2 {{empty block: expect at least a terminator}}
"""
"""One part per designator (none, ``@+1``, ``@below``, ``@above``, ``@-2``), each with an error
MLIR and passviz both raise."""


def test_the_designators_are_read_as_mlir_reads_them(tmp_path: Path) -> None:
    parts = split_input_file(SELF_CHECK)
    assert [expected_error_lines(part) for part in parts] == [(2,), (3,), (3,), (3,), (1,)]
    for part in parts:
        verdict = passviz_verdict(part)
        assert not verdict.accepted and verdict.line in expected_error_lines(part), (part, str(verdict))


@pytest.mark.iree
def test_mlir_verify_diagnostics_agrees_with_the_reading(tmp_path: Path) -> None:
    need(iree_opt_missing())
    path = tmp_path / "self_check.mlir"
    path.write_text(SELF_CHECK, encoding="utf-8")
    done = subprocess.run(
        [iree_opt(), "--split-input-file", "--verify-diagnostics", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
