"""triton-combine: Triton 3.6's CombineOpsPass, compared with Triton's output
function by function, and the broadcast-mul-reduce rewrite named in a trace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from passviz.compilers.triton.passes.combine import combine_patterns
from passviz.compilers.triton.version import use_triton_version
from passviz.pipelines import record
from passviz.recording.recorder import UNANNOUNCED, RecordOptions
from passviz.recording.replay import Replayer
from passviz.trace.model import Step
from tests.conftest import PEER, need, peer_file, split_functions
from tests.triton_oracle import compare, triton_missing

COMBINE = "triton/test/Triton/combine.mlir"


def _functions(relative: str) -> list[tuple[str, str]]:
    path = PEER / relative
    return list(split_functions(path.read_text()).items()) if path.exists() else []


XFAIL: dict[tuple[str, str], str] = {}
"""(function, pipeline) -> why passviz's output cannot equal Triton's yet."""


def _cases() -> list[object]:
    cases: list[object] = []
    for pipeline in ("canonicalize,triton-combine", "triton-combine"):
        for name, text in _functions(COMBINE):
            # A function written for another Triton release is skipped by the oracle.
            marks: list[pytest.MarkDecorator] = []
            if (name, pipeline) in XFAIL:
                marks.append(pytest.mark.xfail(reason=XFAIL[name, pipeline], strict=True))
            cases.append(pytest.param(text, pipeline, id=f"{pipeline}:{name}", marks=marks))
    return cases


@pytest.mark.parametrize(("text", "pipeline"), _cases())
def test_combine_matches_triton(text: str, pipeline: str) -> None:
    need(triton_missing())
    peer_file(COMBINE)
    ours, triton = compare(text, pipeline)
    assert ours == triton


def test_peer_file_has_its_functions() -> None:
    peer_file(COMBINE)
    names = [name for name, _ in _functions(COMBINE)]
    assert len(names) == 30 and "test_combine_broadcast_mul_reduce" in names


@pytest.mark.parametrize("version", ["3.6", "3.9"])
def test_patterns_are_registered_in_triton_order(version: str) -> None:
    with use_triton_version(version):
        names = [type(p).__name__ for p in combine_patterns()]
    scaled = ["CombineDotScaledAddFPattern"] if version == "3.9" else []
    assert names == [
        "CombineDotAddIPattern",
        "CombineDotAddFPattern",
        *scaled,
        "CombineSelectMaskedLoadPattern",
        "CombineAddPtrPattern",
        "CombineBroadcastMulReducePattern",
        "CombineReshapeReducePatterns",
        "RankedReduceDescriptorLoads",
    ]


# -- Cases the peer file does not cover, compared with Triton too --------------------------

EXTRA = {
    "dot_add_int": """
tt.func @f(%a: tensor<16x16xi8>, %b: tensor<16x16xi8>, %d: tensor<16x16xi32>) -> tensor<16x16xi32> {
  %zero = arith.constant dense<0> : tensor<16x16xi32>
  %dot = tt.dot %a, %b, %zero : tensor<16x16xi8> * tensor<16x16xi8> -> tensor<16x16xi32>
  %res = arith.addi %d, %dot : tensor<16x16xi32>
  tt.return %res : tensor<16x16xi32>
}
""",
    "dot_add_both_dots_rhs_first": """
tt.func @f(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<16x16xf32>
  %d0 = tt.dot %a, %b, %zero : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %d1 = tt.dot %b, %a, %zero : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %res = arith.addf %d0, %d1 : tensor<16x16xf32>
  tt.return %res : tensor<16x16xf32>
}
""",
    "select_masked_load_keeps_hints": """
tt.func @f(%ptr: tensor<8x!tt.ptr<f32>>, %cond: i1, %other: tensor<8xf32>) -> tensor<8xf32> {
  %mask = tt.splat %cond : i1 -> tensor<8xi1>
  %x = tt.load %ptr, %mask cacheModifier = ca evictionPolicy = evict_last {isVolatile = true} : tensor<8x!tt.ptr<f32>>
  %0 = arith.select %cond, %x, %other : tensor<8xf32>
  tt.return %0 : tensor<8xf32>
}
""",
    "select_masked_load_keeps_hints_3_9_spelling": """
tt.func @f(%ptr: tensor<8x!tt.ptr<f32>>, %cond: i1, %other: tensor<8xf32>) -> tensor<8xf32> {
  %mask = tt.splat %cond : i1 -> tensor<8xi1>
  %x = tt.load %ptr, %mask {cachePolicy = #tt.cache_policy<cache_modifier = ca, eviction_policy = evict_last>, isVolatile = true} : tensor<8x!tt.ptr<f32>>
  %0 = arith.select %cond, %x, %other : tensor<8xf32>
  tt.return %0 : tensor<8xf32>
}
""",
    "select_masked_load_used_twice": """
tt.func @f(%ptr: tensor<8x!tt.ptr<f32>>, %cond: i1, %other: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %mask = tt.splat %cond : i1 -> tensor<8xi1>
  %x = tt.load %ptr, %mask : tensor<8x!tt.ptr<f32>>
  %0 = arith.select %cond, %x, %other : tensor<8xf32>
  tt.return %0, %x : tensor<8xf32>, tensor<8xf32>
}
""",
    "select_other_defined_after_the_load": """
tt.func @f(%ptr: tensor<8x!tt.ptr<f32>>, %cond: i1, %o: f32) -> tensor<8xf32> {
  %mask = tt.splat %cond : i1 -> tensor<8xi1>
  %x = tt.load %ptr, %mask : tensor<8x!tt.ptr<f32>>
  %other = tt.splat %o : f32 -> tensor<8xf32>
  %0 = arith.select %cond, %x, %other : tensor<8xf32>
  tt.return %0 : tensor<8xf32>
}
""",
    "select_masked_load_with_ops_between": """
tt.func @f(%ptr: tensor<8x!tt.ptr<f32>>, %cond: i1, %other: tensor<8xf32>, %q: tensor<8xf32>) -> tensor<8xf32> {
  %mask = tt.splat %cond : i1 -> tensor<8xi1>
  %x = tt.load %ptr, %mask : tensor<8x!tt.ptr<f32>>
  %y = arith.addf %q, %q : tensor<8xf32>
  %0 = arith.select %cond, %x, %other : tensor<8xf32>
  %1 = arith.addf %0, %y : tensor<8xf32>
  tt.return %1 : tensor<8xf32>
}
""",
    "mul_reduce_of_broadcast_arguments": """
tt.func @f(%arg0: tensor<32x16x1xf32>, %arg1: tensor<1x16x32xf32>) -> tensor<32x32xf32> {
  %1 = tt.broadcast %arg0 : tensor<32x16x1xf32> -> tensor<32x16x32xf32>
  %3 = tt.broadcast %arg1 : tensor<1x16x32xf32> -> tensor<32x16x32xf32>
  %4 = arith.mulf %1, %3 : tensor<32x16x32xf32>
  %5 = "tt.reduce"(%4) <{axis = 1 : i32}> ({
  ^bb0(%arg2: f32, %arg3: f32):
    %6 = arith.addf %arg2, %arg3 : f32
    tt.reduce.return %6 : f32
  }) : (tensor<32x16x32xf32>) -> tensor<32x32xf32>
  tt.return %5 : tensor<32x32xf32>
}
""",
    "mul_reduce_right_side_too_small": """
tt.func @f(%arg0: tensor<8x16xf32>, %arg1: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %0 = tt.expand_dims %arg0 {axis = 2 : i32} : tensor<8x16xf32> -> tensor<8x16x1xf32>
  %1 = tt.broadcast %0 : tensor<8x16x1xf32> -> tensor<8x16x32xf32>
  %2 = tt.expand_dims %arg1 {axis = 0 : i32} : tensor<16x32xf32> -> tensor<1x16x32xf32>
  %3 = tt.broadcast %2 : tensor<1x16x32xf32> -> tensor<8x16x32xf32>
  %4 = arith.mulf %3, %1 : tensor<8x16x32xf32>
  %5 = "tt.reduce"(%4) <{axis = 1 : i32}> ({
  ^bb0(%arg2: f32, %arg3: f32):
    %6 = arith.addf %arg2, %arg3 : f32
    tt.reduce.return %6 : f32
  }) : (tensor<8x16x32xf32>) -> tensor<8x32xf32>
  tt.return %5 : tensor<8x32xf32>
}
""",
    "addptr_chain_of_three": """
tt.func @f(%base: !tt.ptr<f32>, %i: i64, %j: i64, %k: i64) -> !tt.ptr<f32> {
  %p0 = tt.addptr %base, %i : !tt.ptr<f32>, i64
  %p1 = tt.addptr %p0, %j : !tt.ptr<f32>, i64
  %p2 = tt.addptr %p1, %k {tt.divisibility = 16 : i32} : !tt.ptr<f32>, i64
  tt.return %p2 : !tt.ptr<f32>
}
""",
    "rank_reduce_desc_load_in_3_6_syntax": """
tt.func @f(%0: !tt.tensordesc<tensor<1x128x64xf16>>) -> (tensor<128x64xf16>) {
  %c0 = arith.constant 0 : i32
  %l = tt.descriptor_load %0[%c0, %c0, %c0] : !tt.tensordesc<tensor<1x128x64xf16>> -> tensor<1x128x64xf16>
  %r = tt.reshape %l : tensor<1x128x64xf16> -> tensor<128x64xf16>
  tt.return %r : tensor<128x64xf16>
}
""",
    "mul_reduce_too_small": """
tt.func @f(%arg0: tensor<8x16xf32>, %arg1: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %0 = tt.expand_dims %arg0 {axis = 2 : i32} : tensor<8x16xf32> -> tensor<8x16x1xf32>
  %1 = tt.broadcast %0 : tensor<8x16x1xf32> -> tensor<8x16x32xf32>
  %2 = tt.expand_dims %arg1 {axis = 0 : i32} : tensor<16x32xf32> -> tensor<1x16x32xf32>
  %3 = tt.broadcast %2 : tensor<1x16x32xf32> -> tensor<8x16x32xf32>
  %4 = arith.mulf %1, %3 : tensor<8x16x32xf32>
  %5 = "tt.reduce"(%4) <{axis = 1 : i32}> ({
  ^bb0(%a: f32, %b: f32):
    %6 = arith.addf %a, %b : f32
    tt.reduce.return %6 : f32
  }) : (tensor<8x16x32xf32>) -> tensor<8x32xf32>
  tt.return %5 : tensor<8x32xf32>
}
""",
    "reshape_feeding_reduce_and_other": """
tt.func @f(%0: tensor<32x4x2xi32>) -> (i32, tensor<256xi32>) {
  %1 = tt.reshape %0 : tensor<32x4x2xi32> -> tensor<256xi32>
  %2 = "tt.reduce" (%1) ({
  ^bb0(%a: i32, %b: i32):
    %add = arith.addi %a, %b : i32
    tt.reduce.return %add : i32
  }) {axis = 0 : i32} : (tensor<256xi32>) -> i32
  tt.return %2, %1 : i32, tensor<256xi32>
}
""",
}


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_extra_cases_match_triton(name: str) -> None:
    need(triton_missing())
    ours, triton = compare(EXTRA[name], "triton-combine")
    assert ours == triton


def assert_replay_exact(text: str, pipeline: str) -> None:
    """Every step of the trace, replayed, gives the live IR after it; no edit is unannounced."""
    run = record(text, pipeline, options=RecordOptions(check=True, verify_each="rewrite"))
    assert run.trace.status == "ok", run.trace.failed_steps
    assert all(step.name != UNANNOUNCED for step in run.trace.steps)
    replayer = Replayer(run.trace)
    for index, step in enumerate(run.trace.steps):
        replayer.advance_to(index)
        assert replayer.text() == run.tracer.snapshots[index + 1], f"step {index} ({step.name})"


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_extra_cases_replay_exactly(name: str) -> None:
    assert_replay_exact(EXTRA[name], "triton-combine")


# -- Offsets: isAddPtrOffsetCombinable ------------------------------------------------------


def test_offsets_combinable_only_without_signed_overflow() -> None:
    text = """
tt.func @f(%base: !tt.ptr<f32>) -> (!tt.ptr<f32>, !tt.ptr<f32>) {
  %a = arith.constant 100 : i8
  %b = arith.constant 27 : i8
  %c = arith.constant 28 : i8
  %p = tt.addptr %base, %a : !tt.ptr<f32>, i8
  %q = tt.addptr %p, %b : !tt.ptr<f32>, i8
  %r = tt.addptr %p, %c : !tt.ptr<f32>, i8
  tt.return %q, %r : !tt.ptr<f32>, !tt.ptr<f32>
}
"""
    run = record(text, "triton-combine")
    assert run.trace.status == "ok"
    ir = run.trace.ir_at(-1)
    assert "arith.constant 127 : i8" in ir
    assert "arith.constant 28 : i8" in ir
    names = [s.name for s in run.trace.steps if s.kind == "rewrite"]
    assert names.count("CombineAddPtrPattern") == 1


# -- The seed: broadcast-mul-reduce becomes a dot, named in the trace -----------------------

SEED = """
tt.func @test_combine_broadcast_mul_reducesum(%lhs: tensor<128x64xf32>, %rhs: tensor<64x128xf32>) -> (tensor<128x128xf32>) {
    %expand_lhs = tt.expand_dims %lhs {axis = 2 : i32} : tensor<128x64xf32> -> tensor<128x64x1xf32>
    %expand_rhs = tt.expand_dims %rhs {axis = 0 : i32} : tensor<64x128xf32> -> tensor<1x64x128xf32>
    %a = tt.broadcast %expand_lhs : tensor<128x64x1xf32> -> tensor<128x64x128xf32>
    %b = tt.broadcast %expand_rhs : tensor<1x64x128xf32> -> tensor<128x64x128xf32>
    %mul = arith.mulf %a, %b : tensor<128x64x128xf32>
    %reduce = "tt.reduce" (%mul) ({
    ^bb0(%arg0: f32, %arg1: f32):
      %add = arith.addf %arg0, %arg1 : f32
      tt.reduce.return %add : f32
    }) {axis = 1 : i32} : (tensor<128x64x128xf32>) -> tensor<128x128xf32>
    tt.return %reduce : tensor<128x128xf32>
}
"""


def _dot_step(steps: list[Step]) -> Step:
    creating = [s for s in steps if any(o["name"] == "tt.dot" for o in s.delta.get("ops_created", []))]
    assert len(creating) == 1, [s.name for s in creating]
    return creating[0]


def test_seed_dot_is_created_by_the_broadcast_mul_reduce_pattern() -> None:
    run = record(SEED, "triton-combine")
    assert run.trace.status == "ok"
    step = _dot_step(run.trace.steps)
    assert step.kind == "rewrite"
    assert step.name == "CombineBroadcastMulReducePattern"
    assert step.pass_name == "triton-combine"
    initial = run.trace.initial
    assert initial is not None
    reduces = [o["id"] for o in initial["delta"].get("ops_created", []) if o["name"] == "tt.reduce"]
    assert step.root is not None and [step.root] == reduces
    assert step.root in step.delta["ops_erased"]
    final = run.trace.ir_at(-1)
    assert "tt.dot" in final and "tt.reduce" not in final and "arith.mulf" not in final


def test_seed_replays_exactly() -> None:
    assert_replay_exact(SEED, "triton-combine")


def test_seed_steps_cli_names_the_pattern_next_to_the_dot(tmp_path: Path) -> None:
    source = tmp_path / "seed.mlir"
    source.write_text(SEED)
    trace = tmp_path / "seed.json"
    cli = [sys.executable, "-m", "passviz.cli"]
    traced = subprocess.run(
        [*cli, "trace", str(source), "-p", "triton-combine", "-o", str(trace)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert traced.returncode == 0, traced.stderr
    listed = subprocess.run([*cli, "steps", str(trace)], capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    lines = [line for line in listed.stdout.splitlines() if "CombineBroadcastMulReducePattern" in line]
    assert len(lines) == 1, listed.stdout
    index = int(lines[0].split()[0])
    assert " rewrite " in lines[0] and "triton-combine" in lines[0]
    shown = subprocess.run(
        [*cli, "show", str(trace), "--step", str(index), "--diff"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    added = [line for line in shown.stdout.splitlines() if line.startswith("+") and "tt.dot" in line]
    assert len(added) == 1, shown.stdout
