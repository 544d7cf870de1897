"""Invalid IR is refused where MLIR's verifier refuses it, in MLIR's words; valid IR passes.

The oracle is ``iree-opt`` (upstream MLIR's parser and verifier): for each input both refuse,
on the same line, with the same message; for each valid one, both accept.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from passviz.cli import main
from passviz.pipelines import record
from tests.conftest import iree_opt, iree_opt_missing, need

REFUSED = {
    "use-before-definition": """\
func.func @f() -> i32 {
  %a = arith.addi %b, %b : i32
  %b = arith.constant 1 : i32
  func.return %a : i32
}
""",
    "use-not-dominated-across-blocks": """\
func.func @f(%c: i1) -> i32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %x = arith.constant 1 : i32
  cf.br ^bb3
^bb2:
  cf.br ^bb3
^bb3:
  func.return %x : i32
}
""",
    "if-then-without-yield": """\
func.func @f(%c: i1) -> i32 {
  %r = scf.if %c -> (i32) {
  } else {
    %x = arith.constant 1 : i32
    scf.yield %x : i32
  }
  func.return %r : i32
}
""",
    "if-results-without-else": """\
func.func @f(%c: i1) -> i32 {
  %r = scf.if %c -> (i32) {
    %x = arith.constant 1 : i32
    scf.yield %x : i32
  }
  func.return %r : i32
}
""",
    "if-yield-of-the-wrong-type": """\
func.func @f(%c: i1) -> i32 {
  %r = scf.if %c -> (i32) {
    %x = arith.constant 1 : i64
    scf.yield %x : i64
  } else {
    %y = arith.constant 1 : i32
    scf.yield %y : i32
  }
  func.return %r : i32
}
""",
    "if-yield-without-results": """\
func.func @f(%c: i1) {
  scf.if %c {
    %x = arith.constant 1 : i32
    scf.yield %x : i32
  }
  func.return
}
""",
    "block-with-arguments-and-no-terminator": """\
func.func @f(%a: i32) -> i32 {
  cf.br ^bb1(%a : i32)
^bb1(%x: i32):
}
""",
    "empty-block-in-a-region": """\
func.func @f() -> i32 {
  %r = scf.execute_region -> i32 {
    cf.br ^bb1
  ^bb1:
  }
  func.return %r : i32
}
""",
}
"""Inputs MLIR's verifier refuses, which passviz used to trace."""

ACCEPTED = {
    "defined-in-a-dominating-block": """\
func.func @f(%c: i1) -> i32 {
  %x = arith.constant 1 : i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  cf.br ^bb2
^bb2:
  func.return %x : i32
}
""",
    "used-in-an-unreachable-block": """\
func.func @f() -> i32 {
  %x = arith.constant 1 : i32
  func.return %x : i32
^bb1:
  %y = arith.addi %z, %z : i32
  %z = arith.constant 2 : i32
  cf.br ^bb1
}
""",
    "used-in-a-nested-region": """\
func.func @f(%c: i1) -> i32 {
  %x = arith.constant 1 : i32
  %r = scf.if %c -> (i32) {
    scf.yield %x : i32
  } else {
    scf.yield %x : i32
  }
  func.return %r : i32
}
""",
}
"""Valid inputs near the refused ones: MLIR accepts them, and so must passviz."""


def _oracle(path: Path) -> tuple[int, str] | None:
    """iree-opt's first error on ``path``: its line and message; None when it accepts the input."""
    done = subprocess.run([iree_opt(), str(path)], capture_output=True, text=True, timeout=120, check=False)
    if done.returncode == 0:
        return None
    found = re.search(r":(\d+):\d+: error: (.*)", done.stderr)
    assert found is not None, done.stderr
    return int(found.group(1)), found.group(2)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_where_and_as_mlir_refuses_it(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.mlir"
    path.write_text(REFUSED[name])
    assert main(["trace", str(path), "-p", "canonicalize", "-o", str(tmp_path / "t.json")]) == 1
    error = capsys.readouterr().err.strip()
    located = re.fullmatch(
        rf"passviz: error: {re.escape(str(path))}:(\d+):\d+: the input does not verify: (.*)", error
    )
    assert located is not None, error
    assert not (tmp_path / "t.json").exists()  # refused before any step
    need(iree_opt_missing())
    oracle = _oracle(path)
    assert oracle is not None
    line, message = oracle
    assert int(located.group(1)) == line, (error, oracle)
    assert located.group(2) == message, (error, oracle)


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted_as_mlir_accepts_it(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.mlir"
    path.write_text(ACCEPTED[name])
    assert main(["trace", str(path), "-p", "cse", "-o", str(tmp_path / "t.json")]) == 0
    need(iree_opt_missing())
    assert _oracle(path) is None


class _SinkFirstDefinition(ModulePass):
    """A buggy pass: moves the function's first op to just before its return, below its users."""

    name = "test-sink-first-definition"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        function = next(iter(op.body.block.ops))
        block = function.regions[0].block
        first, last = block.first_op, block.last_op
        assert first is not None and last is not None
        first.detach()
        block.insert_op_before(first, last)


def test_a_pass_that_moves_a_definition_below_its_use_is_a_flagged_step() -> None:
    text = """\
func.func @f(%a: i32) -> i32 {
  %x = arith.muli %a, %a : i32
  %y = arith.addi %x, %a : i32
  %z = arith.addi %y, %a : i32
  func.return %z : i32
}
"""
    trace = record(text, [_SinkFirstDefinition()]).trace
    (flagged,) = trace.failed_steps
    assert flagged.flag is not None and flagged.flag["kind"] == "verify"
    assert "does not dominate" in flagged.flag["message"]


NOT_ASCII_DIGITS = {
    "fullwidth-digit": "func.func @f() -> i32 {\n  %0 = arith.constant \uff11 : i32\n  func.return %0 : i32\n}\n",
    "arabic-indic-shape": (
        "func.func @f() -> tensor<\u0663xf32> {\n  %0 = arith.constant dense<1.0> : tensor<\u0663xf32>\n"
        "  func.return %0 : tensor<\u0663xf32>\n}\n"
    ),
}
"""Digits MLIR's lexer does not know: only ASCII digits make numbers."""


@pytest.mark.parametrize("name", sorted(NOT_ASCII_DIGITS))
def test_digits_that_are_not_ascii_are_refused_where_mlir_refuses_them(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / f"{name}.mlir"
    path.write_text(NOT_ASCII_DIGITS[name], encoding="utf-8")
    assert main(["trace", str(path), "-p", "cse", "-o", str(tmp_path / "t.json")]) == 1
    error = capsys.readouterr().err.strip()
    located = re.fullmatch(
        rf"passviz: error: {re.escape(str(path))}:(\d+):(\d+): unexpected character", error
    )
    assert located is not None, error
    need(iree_opt_missing())
    done = subprocess.run([iree_opt(), str(path)], capture_output=True, text=True, timeout=120, check=False)
    assert f":{located.group(1)}:{located.group(2)}: error: unexpected character" in done.stderr
