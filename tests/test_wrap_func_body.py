"""wrap-func-body-with-single-block: the seed's sub-steps and its final IR."""

from __future__ import annotations

from xdsl.parser import Parser

from passviz.compilers.registry import make_context
from passviz.compilers.triton_linalg.wrap_func_body import CHECKPOINTS
from passviz.pipelines import record
from passviz.recording.recorder import RecordOptions
from tests.conftest import WRAP_TEST, filecheck, peer_file, split_chunks

SEED_INPUT = """
tt.func @wrap_multi_block_triton_func(%arg0: i1, %arg1: i32, %arg2: i32) -> i32 {
  cf.cond_br %arg0, ^bb1, ^bb2
^bb1:
  tt.return %arg1: i32
^bb2:
  tt.return %arg2: i32
}
"""

# The seed's final IR (000_9d32ea9e2bf91ceb.txt, last listing), in MLIR's syntax.
SEED_FINAL = """
tt.func @wrap_multi_block_triton_func(%arg0: i1, %arg1: i32, %arg2: i32) -> i32 {
  %0 = scf.execute_region -> i32 {
    cf.cond_br %arg0, ^bb1, ^bb2
  ^bb1:  // pred: ^bb0
    cf.br ^bb3(%arg1 : i32)
  ^bb2:  // pred: ^bb0
    cf.br ^bb3(%arg2 : i32)
  ^bb3(%1: i32):  // 2 preds: ^bb1, ^bb2
    scf.yield %1 : i32
  }
  tt.return %0 : i32
}
"""


def _wrap(text: str) -> str:
    run = record(text, "wrap-func-body-with-single-block")
    assert run.trace.status == "ok", run.trace.failed_steps
    return run.tracer.snapshots[-1] if run.tracer.snapshots else run.trace.ir_at(-1)


def test_seed_sub_steps_are_checkpoints_in_order() -> None:
    run = record(SEED_INPUT, "wrap-func-body-with-single-block")
    names = [s.name for s in run.trace.steps if s.kind == "checkpoint"]
    assert names == list(CHECKPOINTS)
    kinds = [s.kind for s in run.trace.steps]
    assert kinds[0] == "pass-begin" and kinds[-1] == "pass-end"


def test_seed_sub_step_deltas() -> None:
    steps = {s.name: s for s in record(SEED_INPUT, "wrap-func-body-with-single-block").trace.steps}
    assert len(steps["new entry block"].delta["blocks_created"]) == 1
    created = steps["scf.execute_region inserted"].delta["ops_created"]
    assert [o["name"] for o in created] == ["scf.execute_region"]
    assert len(steps["blocks spliced in"].delta["blocks_moved"]) == 3
    assert len(steps["entry arguments replaced"].delta["args_removed"]) == 3
    assert [o["name"] for o in steps["yield block"].delta["ops_created"]] == ["scf.yield"]
    assert [o["name"] for o in steps["branches inserted"].delta["ops_created"]] == ["cf.br", "cf.br"]
    removed = steps["returns removed"].delta
    assert len(removed["ops_erased"]) == 1 and len(removed["ops_moved"]) == 1


def test_seed_result_equals_seed_final_ir() -> None:
    run = record(SEED_INPUT, "wrap-func-body-with-single-block")
    ctx = make_context()
    expected = Parser(ctx, SEED_FINAL).parse_module()
    assert run.module.is_structurally_equivalent(expected)
    assert run.trace.ir_at(-1) == str(expected) + "\n"


def test_peer_file_passes_filecheck() -> None:
    path = peer_file(str(WRAP_TEST.relative_to(WRAP_TEST.parents[4])))
    for chunk in split_chunks(path.read_text()):
        output = record(chunk, "wrap-func-body-with-single-block").trace.ir_at(-1)
        filecheck(output, chunk)


def test_single_block_function_is_untouched() -> None:
    text = "func.func @f(%a: i32) -> i32 {\n  func.return %a : i32\n}\n"
    run = record(text, "wrap-func-body-with-single-block")
    assert [s.kind for s in run.trace.steps] == ["pass-begin", "pass-end"]
    assert "scf.execute_region" not in run.trace.ir_at(-1)


def test_several_results() -> None:
    text = """
func.func @two(%c: i1, %a: i32, %b: f32) -> (i32, f32) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  func.return %a, %b : i32, f32
^bb2:
  %z = arith.constant 0 : i32
  func.return %z, %b : i32, f32
}
"""
    out = record(text, "wrap-func-body-with-single-block").trace.ir_at(-1)
    assert "scf.execute_region -> (i32, f32)" in out
    assert "scf.yield %" in out and "func.return %0, %0#1" not in out
    assert out.count("func.return") == 1


def test_no_results() -> None:
    text = """
tt.func @none(%c: i1, %p: !tt.ptr<f32>, %v: f32) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  tt.store %p, %v : !tt.ptr<f32>
  tt.return
^bb2:
  tt.return
}
"""
    run = record(text, "wrap-func-body-with-single-block")
    out = run.trace.ir_at(-1)
    assert run.trace.status == "ok"
    assert "scf.execute_region {" in out
    assert out.count("tt.return") == 1 and "scf.yield\n" in out


def test_loop_with_back_edge() -> None:
    text = """
func.func @loop(%n: i32) -> i32 {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  cf.br ^head(%zero : i32)
^head(%i: i32):
  %done = arith.cmpi sge, %i, %n : i32
  cf.cond_br %done, ^exit, ^body
^body:
  %next = arith.addi %i, %one : i32
  cf.br ^head(%next : i32)
^exit:
  func.return %i : i32
}
"""
    run = record(text, "wrap-func-body-with-single-block", options=RecordOptions(check=True))
    assert run.trace.status == "ok"
    out = run.trace.ir_at(-1)
    assert "scf.execute_region -> i32 {" in out
    assert "cf.br ^head(%next : i32)" in out  # the back edge survives inside the region
    run.module.verify()
