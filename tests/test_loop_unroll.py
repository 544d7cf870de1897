"""triton-loop-unroll: Triton's LoopUnroll over MLIR's loopUnrollByFactor, compared with Triton's."""

from __future__ import annotations

import pytest
from _pytest.mark import ParameterSet

from passviz.pipelines import record
from passviz.recording.recorder import RecordOptions
from passviz.recording.replay import Replayer
from tests.conftest import PEER, need, parse_or_skip, peer_cases, split_chunks
from tests.triton_oracle import compare, triton_missing

UNROLL_TEST = PEER / "triton/test/Triton/loop-unroll.mlir"
"""Triton's own test of the pass."""


def _doubling_loop(name: str, lb: int, ub: int, step: int, type_: str, *, factor: int) -> str:
    """``@name(%x)``: a loop from ``lb`` to ``ub`` by ``step`` (constants of ``type_``) that
    doubles ``%x`` each iteration, marked for unrolling by ``factor``."""
    suffix = "" if type_ == "index" else f" : {type_}"
    return f"""
tt.func @{name}(%x: f32) -> f32 {{
  %lb = arith.constant {lb} : {type_}
  %ub = arith.constant {ub} : {type_}
  %st = arith.constant {step} : {type_}
  %r = scf.for %i = %lb to %ub step %st iter_args(%a = %x) -> (f32){suffix} {{
    %b = arith.addf %a, %a : f32
    scf.yield %b : f32
  }} {{tt.loop_unroll_factor = {factor} : i32}}
  tt.return %r : f32
}}
"""


CASES = {
    "dynamic_bounds": """
tt.func @f(%lb: i32, %ub: i32, %s: i32, %x: f32) -> f32 {
  %r = scf.for %i = %lb to %ub step %s iter_args(%a = %x) -> (f32) : i32 {
    %ii = arith.sitofp %i : i32 to f32
    %b = arith.addf %a, %ii : f32
    scf.yield %b : f32
  } {tt.loop_unroll_factor = 3 : i32}
  tt.return %r : f32
}
""",
    "static_with_epilogue": """
tt.func @g(%x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c10 step %c1 iter_args(%a = %x) -> (f32) {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %b = arith.addf %a, %f : f32
    scf.yield %b : f32
  } {tt.loop_unroll_factor = 4 : i32}
  tt.return %r : f32
}
""",
    "static_even": _doubling_loop("h", 0, 12, 1, "index", factor=4),
    "epilogue_single_iteration": _doubling_loop("epi1", 0, 9, 1, "index", factor=4),
    "main_loop_no_iteration": _doubling_loop("main0", 0, 3, 1, "i32", factor=4),
    "main_loop_single_iteration": _doubling_loop("single", 0, 4, 1, "i32", factor=4),
    "empty_body": """
tt.func @empty(%lb: i32, %ub: i32) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    scf.yield
  } {tt.loop_unroll_factor = 4 : i32}
  tt.return
}
""",
    "nested_loops": """
tt.func @nested(%lb: i32, %ub: i32, %p: !tt.ptr<i32>) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    scf.for %j = %lb to %ub step %c1 : i32 {
      %k = arith.addi %i, %j : i32
      tt.store %p, %k : !tt.ptr<i32>
    } {tt.loop_unroll_factor = 2 : i32}
  } {tt.loop_unroll_factor = 2 : i32}
  tt.return
}
""",
    "factor_one_kept": _doubling_loop("factor1", 0, 1, 1, "i32", factor=1),
    "upper_bound_offset": """
tt.func @off(%lb: i32, %x: f32) -> f32 {
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  %ub = arith.addi %lb, %c5 : i32
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%a = %x) -> (f32) : i32 {
    %b = arith.addf %a, %a : f32
    scf.yield %b : f32
  } {tt.loop_unroll_factor = 2 : i32}
  tt.return %r : f32
}
""",
    "negative_step": _doubling_loop("neg", 0, 5, -1, "i32", factor=2),
    "yield_defined_outside": """
tt.func @outside(%x: f32, %y: f32, %n: i32) -> (f32, f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x, %b = %y) -> (f32, f32) : i32 {
    %s = arith.addf %a, %b : f32
    scf.yield %y, %s : f32, f32
  } {tt.loop_unroll_factor = 2 : i32}
  tt.return %r#0, %r#1 : f32, f32
}
""",
    "i64_factor_other_attrs": """
tt.func @i64f(%x: f32, %n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) : i32 {
    %s = arith.addf %a, %a : f32
    scf.yield %s : f32
  } {tt.loop_unroll_factor = 2 : i64, other = 1 : i32}
  tt.return %r : f32
}
""",
    "signed_difference_overflows": _doubling_loop("signedov", -100, 100, 1, "i8", factor=3),
    "step_not_dividing_range": """
tt.func @u(%x: f32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c9 = arith.constant 10 : i32
  %c1 = arith.constant 3 : i32
  %r = scf.for %i = %c0 to %c9 step %c1 iter_args(%a = %x) -> (f32) : i32 {
    %f = arith.sitofp %i : i32 to f32
    %b = arith.addf %a, %f : f32
    scf.yield %b : f32
  } {tt.loop_unroll_factor = 2 : i32}
  tt.return %r : f32
}
""",
    "nested_regions_in_body": """
tt.func @nr(%n: i32, %c: i1, %p: !tt.ptr<i32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    scf.if %c {
      tt.store %p, %i : !tt.ptr<i32>
    }
  } {tt.loop_unroll_factor = 3 : i32}
  tt.return
}
""",
    "swapped_iter_args": """
tt.func @swap(%x: f32, %y: f32, %n: i32) -> (f32, f32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x, %b = %y) -> (f32, f32) : i32 {
    %s = arith.addf %a, %b : f32
    scf.yield %b, %s : f32, f32
  } {tt.loop_unroll_factor = 3 : i32}
  tt.return %r#0, %r#1 : f32, f32
}
""",
    "inner_loop_uses_outer_values": """
tt.func @inner(%x: f32, %n: i32) -> f32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f32) : i32 {
    %s = scf.for %j = %c0 to %i step %c1 iter_args(%b = %a) -> (f32) : i32 {
      %t = arith.addf %b, %a : f32
      scf.yield %t : f32
    }
    scf.yield %s : f32
  } {tt.loop_unroll_factor = 2 : i32}
  tt.return %r : f32
}
""",
    "index_dynamic_bounds": """
tt.func @idx(%x: f32, %lb: index, %ub: index, %st: index) -> f32 {
  %r = scf.for %i = %lb to %ub step %st iter_args(%a = %x) -> (f32) {
    %k = arith.index_cast %i : index to i32
    %f = arith.sitofp %k : i32 to f32
    %s = arith.addf %a, %f : f32
    scf.yield %s : f32
  } {tt.loop_unroll_factor = 4 : i32}
  tt.return %r : f32
}
""",
}
"""Hand-written loops, one function each, by what they exercise."""

STEPS = {
    "dynamic_bounds": [
        "drop-unroll-factor",
        "unroll-bounds",
        "epilogue-loop",
        "unroll-body",
        "epilogue-num-stages",
    ],
    "static_even": ["drop-unroll-factor", "unroll-bounds", "unroll-body"],
    "epilogue_single_iteration": [
        "drop-unroll-factor",
        "unroll-bounds",
        "epilogue-loop",
        "promote-single-iteration",
        "unroll-body",
    ],
    "main_loop_no_iteration": [
        "drop-unroll-factor",
        "unroll-bounds",
        "epilogue-loop",
        "unroll-body",
        "erase-zero-trip-loop",
        "epilogue-num-stages",
    ],
    "main_loop_single_iteration": [
        "drop-unroll-factor",
        "unroll-bounds",
        "unroll-body",
        "promote-single-iteration",
    ],
    "empty_body": ["drop-unroll-factor"],
    "factor_one_kept": [],
}
"""The trace steps of some cases, in order."""


def _peer_chunks() -> list[ParameterSet]:
    """Each function of Triton's test file, one test id each."""
    if not UNROLL_TEST.exists():
        return []
    return [
        pytest.param(chunk, id=f"chunk-{i}") for i, chunk in enumerate(split_chunks(UNROLL_TEST.read_text()))
    ]


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_triton(case: str) -> None:
    need(triton_missing())
    ours, triton = compare(CASES[case], "triton-loop-unroll")
    assert ours == triton


@pytest.mark.parametrize("chunk", _peer_chunks())
def test_peer_file_matches_triton(chunk: str) -> None:
    need(triton_missing())
    ours, triton = compare(chunk, "triton-loop-unroll")
    assert ours == triton


@pytest.mark.parametrize("chunk", peer_cases(exclude=UNROLL_TEST))
def test_other_peer_cases_match_triton(chunk: str) -> None:
    # Nothing to unroll in these: the pass must leave them as Triton does.
    need(triton_missing())
    parse_or_skip(chunk)
    ours, triton = compare(chunk, "triton-loop-unroll")
    assert ours == triton


@pytest.mark.parametrize("case", sorted(STEPS))
def test_steps_in_order(case: str) -> None:
    run = record(CASES[case], "triton-loop-unroll")
    assert run.trace.status == "ok", run.trace.failed_steps
    assert [s.name for s in run.trace.steps if s.kind == "rewrite"] == STEPS[case]


@pytest.mark.parametrize("case", sorted(CASES))
def test_replays_exactly(case: str) -> None:
    run = record(CASES[case], "triton-loop-unroll", options=RecordOptions(check=True))
    assert run.trace.status == "ok", run.trace.failed_steps
    replayer = Replayer(run.trace)
    for index, step in enumerate(run.trace.steps):
        replayer.advance_to(index)
        assert replayer.text() == run.tracer.snapshots[index + 1], f"step {index} ({step.name})"


def test_same_value_bounds_take_the_dynamic_path() -> None:
    # Triton 3.6 crashes here (the static trip count is 0, but the bounds are
    # no constants); passviz computes the bounds with ops instead.
    text = """
tt.func @same(%lb: i32, %x: f32) -> f32 {
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %lb to %lb step %c1 iter_args(%a = %x) -> (f32) : i32 {
    %b = arith.addf %a, %a : f32
    scf.yield %b : f32
  } {tt.loop_unroll_factor = 2 : i32}
  tt.return %r : f32
}
"""
    run = record(text, "triton-loop-unroll")
    assert run.trace.status == "ok", run.trace.failed_steps
    names = [s.name for s in run.trace.steps if s.kind == "rewrite"]
    # Neither loop has constant bounds, so neither is promoted.
    assert names == [
        "drop-unroll-factor",
        "unroll-bounds",
        "epilogue-loop",
        "unroll-body",
        "epilogue-num-stages",
    ]
    assert "arith.divui" in run.trace.ir_at(-1)


@pytest.mark.parametrize("case", sorted(CASES))
def test_followed_by_licm_sccp_symbol_dce_matches_triton(case: str) -> None:
    # The four passes in a row, as a pipeline would run them.
    need(triton_missing())
    ours, triton = compare(CASES[case], "triton-loop-unroll,loop-invariant-code-motion,sccp,symbol-dce")
    assert ours == triton
