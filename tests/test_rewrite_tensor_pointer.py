"""``triton-rewrite-tensor-pointer``: Triton 3.6's output op for op, and one trace step per rewrite."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from _pytest.mark.structures import ParameterSet

from passviz.pipelines import record
from passviz.recording.recorder import RecordOptions
from tests.conftest import need, peer_file, split_chunks
from tests.triton_oracle import compare, triton_missing

PASS = "triton-rewrite-tensor-pointer"

PEER_TEST = "triton/test/Triton/rewrite-tensor-pointer.mlir"


IF_STORE = """
tt.func public @if_store(%arg0: !tt.ptr<f32>, %arg1: i1, %arg2: tensor<64x16xf32>, %arg3: i64, %arg4: i32) {
  %c0_i32 = arith.constant 0 : i32
  %c16_i32 = arith.constant 16 : i32
  %c1_i64 = arith.constant 1 : i64
  %c16_i64 = arith.constant 16 : i64
  %0 = tt.make_tensor_ptr %arg0, [%arg3, %c16_i64], [%c16_i64, %c1_i64], [%arg4, %c0_i32] {order = array<i32: 1, 0>} : !tt.ptr<tensor<64x16xf32>>
  %1 = scf.if %arg1 -> (!tt.ptr<tensor<64x16xf32>>) {
    %2 = tt.advance %0, [%c16_i32, %c0_i32] : !tt.ptr<tensor<64x16xf32>>
    scf.yield %2 : !tt.ptr<tensor<64x16xf32>>
  } else {
    scf.yield %0 : !tt.ptr<tensor<64x16xf32>>
  } {some.attr = 1 : i32}
  tt.store %1, %arg2 {boundaryCheck = array<i32: 1, 0>} : !tt.ptr<tensor<64x16xf32>>
  %3 = tt.load %1 {boundaryCheck = array<i32: 0>, padding = 1 : i32, cache = 2 : i32, isVolatile = true} : !tt.ptr<tensor<64x16xf32>>
  tt.return
}
"""
"""An ``scf.if`` returning a block pointer (its attribute is dropped), a store
checking both dimensions (masks and-ed in ``boundaryCheck`` order) and a
zero-padded volatile load with a cache modifier."""

NESTED_FOR = """
tt.func public @nested_for(%arg0: !tt.ptr<i32>, %arg1: i32) -> tensor<8x4x2xi32> {
  %c0_i32 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  %c4_i32 = arith.constant 4 : i32
  %c1_i64 = arith.constant 1 : i64
  %c8_i64 = arith.constant 8 : i64
  %cst = arith.constant dense<0> : tensor<8x4x2xi32>
  %0 = tt.make_tensor_ptr %arg0, [%c8_i64, %c8_i64, %c8_i64], [%c8_i64, %c8_i64, %c1_i64], [%arg1, %c0_i32, %c1_i32] {order = array<i32: 2, 1, 0>} : !tt.ptr<tensor<8x4x2xi32>>
  %1:2 = scf.for %i = %c0_i32 to %c4_i32 step %c1_i32 iter_args(%acc = %cst, %p = %0) -> (tensor<8x4x2xi32>, !tt.ptr<tensor<8x4x2xi32>>) : i32 {
    %2:2 = scf.for %j = %c0_i32 to %c4_i32 step %c1_i32 iter_args(%acc2 = %acc, %q = %p) -> (tensor<8x4x2xi32>, !tt.ptr<tensor<8x4x2xi32>>) : i32 {
      %3 = tt.load %q {boundaryCheck = array<i32: 2, 0>, padding = 1 : i32} : !tt.ptr<tensor<8x4x2xi32>>
      %4 = arith.addi %acc2, %3 : tensor<8x4x2xi32>
      %5 = tt.advance %q, [%c0_i32, %c1_i32, %c0_i32] : !tt.ptr<tensor<8x4x2xi32>>
      scf.yield %4, %5 : tensor<8x4x2xi32>, !tt.ptr<tensor<8x4x2xi32>>
    }
    %6 = tt.advance %2#1, [%c1_i32, %c0_i32, %c0_i32] : !tt.ptr<tensor<8x4x2xi32>>
    scf.yield %2#0, %6 : tensor<8x4x2xi32>, !tt.ptr<tensor<8x4x2xi32>>
  }
  tt.store %1#1, %1#0 : !tt.ptr<tensor<8x4x2xi32>>
  tt.return %1#0 : tensor<8x4x2xi32>
}
"""
"""A rank-3 block pointer carried through nested loops (integer zero padding,
a mask over dimensions 2 then 0), stored after the loop without checks."""

HANDWRITTEN = {"if_store": IF_STORE, "nested_for": NESTED_FOR}


def _function_name(chunk: str) -> str:
    match = re.search(r"tt\.func (?:public |private )?@(\w+)", chunk)
    assert match is not None, chunk
    return match.group(1)


def _peer_cases() -> list[ParameterSet]:
    chunks = split_chunks(peer_file(PEER_TEST).read_text())
    cases: list[ParameterSet] = []
    for chunk in chunks:
        name = _function_name(chunk)
        cases.append(pytest.param(chunk, id=name))
    return cases


@pytest.mark.parametrize("chunk", _peer_cases())
def test_peer_function_matches_triton(chunk: str) -> None:
    need(triton_missing())
    ours, triton = compare(chunk, PASS)
    assert ours == triton


@pytest.mark.parametrize("chunk", [pytest.param(text, id=name) for name, text in HANDWRITTEN.items()])
def test_handwritten_function_matches_triton(chunk: str) -> None:
    need(triton_missing())
    ours, triton = compare(chunk, PASS)
    assert ours == triton


def _step_names(text: str) -> list[str]:
    # Unverified: the steps do not depend on whether passviz's arith takes tensors.
    run = record(text, PASS, options=RecordOptions(verify_each="off"))
    assert run.trace.status == "ok", [s.flag for s in run.trace.steps if s.flag]
    return [s.name or "" for s in run.trace.steps if s.kind == "rewrite"]


def test_one_step_per_rewrite_in_order() -> None:
    chunk = next(c for c in split_chunks(peer_file(PEER_TEST).read_text()) if "@rewrite_for" in c)
    assert _step_names(chunk) == [
        "rewrite tt.make_tensor_ptr",
        "rewrite scf.for",
        "rewrite tt.load",
        "rewrite tt.advance",
        "rewrite scf.yield",
        # Erased last-replaced first: the cloned body's ops, then the old loop.
        "erase tt.advance",
        "erase tt.load",
        "erase scf.for",
        "erase tt.make_tensor_ptr",
    ]


def test_one_step_per_rewritten_op() -> None:
    names = Counter(_step_names(IF_STORE) + _step_names(NESTED_FOR))
    replaced = {
        "tt.make_tensor_ptr": 2,
        "tt.advance": 3,
        "tt.load": 2,
        "tt.store": 2,
        "scf.if": 1,
        "scf.for": 2,
    }
    # Each yield of a rebuilt region that carried a block pointer is rewritten in place.
    yields = 4
    expected = Counter({f"rewrite {op}": n for op, n in replaced.items()})
    expected.update({f"erase {op}": n for op, n in replaced.items()})
    expected["rewrite scf.yield"] = yields
    assert names == expected


def test_if_without_block_pointers_is_left_alone() -> None:
    text = """
tt.func @f(%arg0: i1, %arg1: i32) -> i32 {
  %0 = scf.if %arg0 -> (i32) {
    scf.yield %arg1 : i32
  } else {
    scf.yield %arg1 : i32
  }
  tt.return %0 : i32
}
"""
    assert _step_names(text) == []


def test_while_carrying_a_block_pointer_is_an_error() -> None:
    text = """
tt.func @f(%arg0: !tt.ptr<f32>, %arg1: i1) {
  %c0_i32 = arith.constant 0 : i32
  %c1_i64 = arith.constant 1 : i64
  %0 = tt.make_tensor_ptr %arg0, [%c1_i64], [%c1_i64], [%c0_i32] {order = array<i32: 0>} : !tt.ptr<tensor<4xf32>>
  %1 = scf.while (%p = %0) : (!tt.ptr<tensor<4xf32>>) -> !tt.ptr<tensor<4xf32>> {
    scf.condition(%arg1) %p : !tt.ptr<tensor<4xf32>>
  } do {
  ^bb0(%q: !tt.ptr<tensor<4xf32>>):
    scf.yield %q : !tt.ptr<tensor<4xf32>>
  }
  tt.return
}
"""
    run = record(text, PASS)
    flags = [s.flag for s in run.trace.steps if s.flag]
    assert run.trace.status != "ok"
    assert any("scf.while uses a block pointer" in f["message"] for f in flags), flags


def test_padding_without_boundary_check_fails_verification_as_in_triton() -> None:
    # Triton builds a load with `other` but no mask, which its verifier rejects.
    text = """
tt.func @f(%arg0: !tt.ptr<f32>) {
  %c0_i32 = arith.constant 0 : i32
  %c1_i64 = arith.constant 1 : i64
  %0 = tt.make_tensor_ptr %arg0, [%c1_i64], [%c1_i64], [%c0_i32] {order = array<i32: 0>} : !tt.ptr<tensor<4xf32>>
  %1 = tt.load %0 {padding = 1 : i32} : !tt.ptr<tensor<4xf32>>
  tt.return
}
"""
    run = record(text, PASS)
    flags = [s.flag for s in run.trace.steps if s.flag]
    assert [f["kind"] for f in flags] == ["verify"], flags
    assert "needs a 'mask'" in flags[0]["message"], flags
