"""Exact replay: ``Trace.ir_at`` equals the live IR snapshotted at every step."""

from __future__ import annotations

import pytest

from passviz.pipelines import record
from passviz.recording.recorder import RecordOptions
from passviz.recording.replay import Replayer
from tests.conftest import WRAP_TEST, peer_file, split_chunks
from tests.irgen import arith_module

SCF_INPUT = """
func.func @loops(%n: index, %x: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %zero = arith.constant 0 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (i32) {
    %t = arith.addi %acc, %zero : i32
    %u = scf.if %true -> (i32) {
      %k = arith.muli %t, %t : i32
      scf.yield %k : i32
    } else {
      scf.yield %t : i32
    }
    scf.yield %u : i32
  }
  %once = scf.for %j = %c0 to %c1 step %c1 iter_args(%a = %r) -> (i32) {
    %d = arith.addi %a, %a : i32
    scf.yield %d : i32
  }
  func.return %once : i32
}
"""

CF_INPUT = """
func.func @blocks(%c: i1, %x: i32) -> i32 {
  %one = arith.constant 1 : i32
  cf.br ^a(%x : i32)
^a(%p: i32):
  %q = arith.addi %p, %one : i32
  cf.cond_br %c, ^b(%q : i32), ^b(%q : i32)
^b(%r: i32):
  cf.br ^c
^c:
  %dead = arith.muli %r, %r : i32
  func.return %r : i32
}
"""

CASES = {
    "wrap+canonicalize": (WRAP_TEST, "wrap-func-body-with-single-block,canonicalize,cse,dce"),
    "arith canonicalize,cse x2": (arith_module(300, seed=1), "canonicalize,cse,canonicalize,cse,dce"),
    "arith dce,cse": (arith_module(200, seed=2), "dce,cse,canonicalize"),
    "scf canonicalize": (SCF_INPUT, "canonicalize,cse"),
    "cf blocks": (CF_INPUT, "canonicalize,dce"),
    "cf wrap then canonicalize": (CF_INPUT, "wrap-func-body-with-single-block,canonicalize"),
}


def _texts(case: str) -> list[str]:
    source, _ = CASES[case]
    if isinstance(source, str):
        return [source]
    path = peer_file(str(source.relative_to(source.parents[4])))
    return split_chunks(path.read_text())


@pytest.mark.parametrize("verify_each", ["pass", "rewrite"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_replay_matches_live_ir_at_every_step(case: str, verify_each: str) -> None:
    _, pipeline = CASES[case]
    for text in _texts(case):
        options = RecordOptions(check=True, verify_each=verify_each)  # type: ignore[arg-type]
        run = record(text, pipeline, options=options)
        assert run.trace.status == "ok", run.trace.failed_steps
        snapshots = run.tracer.snapshots
        assert len(snapshots) == len(run.trace.steps) + 1
        replayer = Replayer(run.trace)
        assert run.trace.initial_ir == text
        assert replayer.text() == snapshots[0]
        for index in range(len(run.trace.steps)):
            replayer.advance_to(index)
            assert replayer.text() == snapshots[index + 1], (
                f"{case}: step {index} ({run.trace.steps[index].name})"
            )


def test_rewrites_are_recorded_one_by_one() -> None:
    run = record(arith_module(300, seed=1), "canonicalize,cse")
    rewrites = [s for s in run.trace.steps if s.kind == "rewrite"]
    assert len(rewrites) > 20
    passes = {s.pass_name for s in rewrites}
    assert passes == {"canonicalize", "cse"}
    names = {s.name for s in rewrites}
    assert "cse" in names and names & {"fold", "erase-dead-op"}
    assert all(s.root is not None for s in rewrites if s.name == "cse")


def test_ir_at_negative_and_bounds() -> None:
    run = record(CF_INPUT, "canonicalize", options=RecordOptions(check=True))
    trace = run.trace
    assert trace.ir_at(-1) == trace.ir_at(len(trace.steps) - 1)
    assert trace.ir_before(0) == run.tracer.snapshots[0]
    assert trace.ir_before(1) == trace.ir_at(0)
    with pytest.raises(IndexError):
        trace.ir_at(len(trace.steps))
