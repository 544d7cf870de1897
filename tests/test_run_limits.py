"""A run on the CPU stops at its limits (``--timeout``, ``--max-ops``) with one flagged line, the
trace and the process intact: a kernel whose loop never ends does not hang ``run`` or ``bisect``."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from passviz.cli import main
from passviz.interpret.values import DEFAULT_MAX_OPS, DEFAULT_TIMEOUT, RunError, RunLimits
from passviz.pipelines import parse_ir
from passviz.run.launch import launch

SPIN = """\
tt.func @spin(%x: !tt.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %go = arith.cmpi sge, %i, %c0 : i32
    scf.condition(%go) %i : i32
  } do {
  ^bb0(%j: i32):
    %k = arith.addi %j, %c0 : i32
    scf.yield %k : i32
  }
  %p = tt.addptr %x, %r : !tt.ptr<f32>, i32
  %v = arith.constant 1.0 : f32
  tt.store %p, %v : !tt.ptr<f32>
  tt.return
}
"""
"""A kernel whose ``scf.while`` never ends (its condition stays true)."""

ARGS = ["--arg", "x=16:f32:zeros", "--arg", "n=4"]


def _trace(folder: Path) -> Path:
    source, out = folder / "spin.mlir", folder / "spin.passviz.json"
    source.write_text(SPIN)
    assert main(["trace", str(source), "-p", "cse", "-o", str(out)]) == 0
    return out


def _one_error(capsys: pytest.CaptureFixture[str]) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("passviz: error: "), lines
    return lines[0]


def test_the_op_budget_stops_an_endless_loop(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = _trace(tmp_path)
    capsys.readouterr()
    assert main(["run", str(trace), "--step", "initial", *ARGS, "--max-ops", "20000"]) == 1
    error = _one_error(capsys)
    assert "the run stopped after 20,000 ops (--max-ops): does a loop never end?" in error
    assert "@spin" in error  # located at the op it was about to run
    assert main(["steps", str(trace)]) == 0  # the trace is intact


def test_the_clock_stops_an_endless_loop(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = _trace(tmp_path)
    capsys.readouterr()
    began = time.monotonic()
    assert main(["run", str(trace), "--step", "initial", *ARGS, "--timeout", "0.5"]) == 1
    assert time.monotonic() - began < 30
    assert "the run stopped after 0.5 s (--timeout): does a loop never end?" in _one_error(capsys)


def test_bisect_runs_every_step_within_the_limits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = _trace(tmp_path)
    capsys.readouterr()
    assert main(["bisect", str(trace), *ARGS, "--max-ops", "20000"]) == 0
    out = capsys.readouterr().out
    assert "the initial IR fails:" in out and "(--max-ops)" in out


def test_limits_apply_to_launch_from_python() -> None:
    module = parse_ir(SPIN)
    x = np.zeros(16, dtype=np.float32)
    with pytest.raises(RunError, match="--max-ops"):
        launch(module, [("x", x), ("n", 4)], (1,), limits=RunLimits(timeout=None, max_ops=5_000))


def test_the_command_line_states_the_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "-h"])
    usage = " ".join(capsys.readouterr().out.split())
    assert f"(default {DEFAULT_TIMEOUT:g})" in usage
    assert f"(default {DEFAULT_MAX_OPS:,})" in usage
