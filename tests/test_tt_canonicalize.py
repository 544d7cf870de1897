"""canonicalize on tt ops: Triton 3.6's canonicalization patterns, compared
with Triton's output chunk by chunk."""

from __future__ import annotations

import re

import pytest

from passviz.compilers.triton.canonicalization import patterns_for
from passviz.compilers.triton.version import use_triton_version
from passviz.pipelines import record
from tests.conftest import PEER, need, peer_file, split_chunks
from tests.test_combine import assert_replay_exact
from tests.triton_oracle import compare, triton_missing

CANONICALIZE = "triton/test/Triton/canonicalize.mlir"


def _chunks() -> list[tuple[str, str]]:
    path = PEER / CANONICALIZE
    if not path.exists():
        return []
    named: list[tuple[str, str]] = []
    for index, chunk in enumerate(split_chunks(path.read_text())):
        match = re.search(r"tt\.func @(\w+)", chunk)
        assert match is not None
        named.append((f"{index}-{match.group(1)}", chunk))
    return named


def _cases() -> list[object]:
    return [pytest.param(text, id=name) for name, text in _chunks()]


@pytest.mark.parametrize("text", _cases())
def test_canonicalize_matches_triton(text: str) -> None:
    need(triton_missing())
    peer_file(CANONICALIZE)
    ours, triton = compare(text, "canonicalize")
    assert ours == triton


def test_patterns_in_mlir_order() -> None:
    def names(op_name: str) -> list[str]:
        return [type(p).__name__ for p in patterns_for(op_name)]

    assert names("tt.broadcast") == ["BroadcastSplatPattern", "BroadcastBroadcastPattern"]
    assert names("tt.load") == ["CanonicalizeMaskedLoadPattern"]
    assert names("tt.store") == ["CanonicalizeMaskedStorePattern"]
    assert names("tt.expand_dims") == ["ExpandDimsOpCanonicalize"]
    assert names("tt.splat") == []
    assert names("tt.trans") == []
    with use_triton_version("3.6"):
        assert names("tt.int_to_ptr") == []
        assert names("tt.reshape") == ["ReshapeOpCanonicalize"]
    with use_triton_version("3.9"):
        assert names("tt.int_to_ptr") == ["CanonicalizeIntToPtrOfPtrToInt", "CanonicalizeIntToPtrWithAdd"]
        assert names("tt.reshape") == ["ReshapeOpCanonicalize", "ReshapeOfExpandDimsPattern"]


EXTRA = {
    "masked_load_keeps_hints": """
tt.func @f(%ptr: tensor<8x!tt.ptr<f32>>) -> tensor<8xf32> {
  %true = arith.constant dense<true> : tensor<8xi1>
  %other = arith.constant dense<1.0> : tensor<8xf32>
  %x = tt.load %ptr, %true, %other cacheModifier = cg {isVolatile = true} : tensor<8x!tt.ptr<f32>>
  tt.return %x : tensor<8xf32>
}
""",
    "masked_load_keeps_hints_3_9_spelling": """
tt.func @f(%ptr: tensor<8x!tt.ptr<f32>>) -> tensor<8xf32> {
  %true = arith.constant dense<true> : tensor<8xi1>
  %other = arith.constant dense<1.0> : tensor<8xf32>
  %x = tt.load %ptr, %true, %other {cachePolicy = #tt.cache_policy<cache_modifier = cg, eviction_policy = evict_normal>, isVolatile = true} : tensor<8x!tt.ptr<f32>>
  tt.return %x : tensor<8xf32>
}
""",
    "masked_store_keeps_hints_3_9_spelling": """
tt.func @f(%ptr: tensor<8x!tt.ptr<f32>>, %v: tensor<8xf32>) {
  %true = arith.constant dense<true> : tensor<8xi1>
  tt.store %ptr, %v, %true {cachePolicy = #tt.cache_policy<cache_modifier = none, eviction_policy = evict_first>} : tensor<8x!tt.ptr<f32>>
  tt.return
}
""",
    "int_to_ptr_of_ptr_to_int_of_another_pointee": """
tt.func @f(%p: !tt.ptr<f32>) -> !tt.ptr<f16> {
  %i = tt.ptr_to_int %p : !tt.ptr<f32> -> i64
  %r = tt.int_to_ptr %i : i64 -> !tt.ptr<f16>
  tt.return %r : !tt.ptr<f16>
}
""",
    "int_to_ptr_of_constant_offsets": """
tt.func @f(%v: i64, %t: tensor<4xi64>) -> (!tt.ptr<f16>, !tt.ptr<f16>, !tt.ptr<f64>, !tt.ptr<i1>, tensor<4x!tt.ptr<f32>>, tensor<4x!tt.ptr<f32>>) {
  %c6 = arith.constant 6 : i64
  %c7 = arith.constant 7 : i64
  %cm16 = arith.constant -16 : i64
  %d12 = arith.constant dense<12> : tensor<4xi64>
  %d = arith.constant dense<[4, 8, 12, 16]> : tensor<4xi64>
  %a = arith.addi %v, %c6 : i64
  %r0 = tt.int_to_ptr %a : i64 -> !tt.ptr<f16>
  %b = arith.addi %c6, %v : i64
  %r1 = tt.int_to_ptr %b : i64 -> !tt.ptr<f16>
  %c = arith.addi %v, %cm16 : i64
  %r2 = tt.int_to_ptr %c : i64 -> !tt.ptr<f64>
  %e = arith.addi %v, %c7 : i64
  %r3 = tt.int_to_ptr %e : i64 -> !tt.ptr<i1>
  %f = arith.addi %t, %d12 : tensor<4xi64>
  %r4 = tt.int_to_ptr %f : tensor<4xi64> -> tensor<4x!tt.ptr<f32>>
  %g = arith.addi %t, %d : tensor<4xi64>
  %r5 = tt.int_to_ptr %g : tensor<4xi64> -> tensor<4x!tt.ptr<f32>>
  tt.return %r0, %r1, %r2, %r3, %r4, %r5 : !tt.ptr<f16>, !tt.ptr<f16>, !tt.ptr<f64>, !tt.ptr<i1>, tensor<4x!tt.ptr<f32>>, tensor<4x!tt.ptr<f32>>
}
""",
    "false_masked_load_without_other_stays": """
tt.func @f(%ptr: tensor<8x!tt.ptr<f32>>) -> tensor<8xf32> {
  %false = arith.constant dense<false> : tensor<8xi1>
  %x = tt.load %ptr, %false : tensor<8x!tt.ptr<f32>>
  tt.return %x : tensor<8xf32>
}
""",
    "masked_store_keeps_hints": """
tt.func @f(%ptr: tensor<8x!tt.ptr<f32>>, %v: tensor<8xf32>) {
  %true = arith.constant dense<true> : tensor<8xi1>
  tt.store %ptr, %v, %true evictionPolicy = evict_first : tensor<8x!tt.ptr<f32>>
  tt.return
}
""",
    "expand_dims_of_splat_and_broadcast": """
tt.func @f(%x: f32, %y: tensor<4x1xf32>) -> (tensor<1x8xf32>, tensor<4x1x8xf32>) {
  %s = tt.splat %x : f32 -> tensor<8xf32>
  %e = tt.expand_dims %s {axis = 0 : i32} : tensor<8xf32> -> tensor<1x8xf32>
  %b = tt.broadcast %y : tensor<4x1xf32> -> tensor<4x8xf32>
  %e2 = tt.expand_dims %b {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4x1x8xf32>
  tt.return %e, %e2 : tensor<1x8xf32>, tensor<4x1x8xf32>
}
""",
    "reshape_chain_and_splat": """
tt.func @f(%x: tensor<16xf32>, %y: f32) -> (tensor<4x4xf32>, tensor<2x8xf32>) {
  %r = tt.reshape %x allow_reorder : tensor<16xf32> -> tensor<2x8xf32>
  %r2 = tt.reshape %r : tensor<2x8xf32> -> tensor<4x4xf32>
  %s = tt.splat %y : f32 -> tensor<16xf32>
  %r3 = tt.reshape %s : tensor<16xf32> -> tensor<2x8xf32>
  tt.return %r2, %r3 : tensor<4x4xf32>, tensor<2x8xf32>
}
""",
    "nested_transpose": """
tt.func @f(%x: tensor<2x4x8xf32>) -> tensor<8x2x4xf32> {
  %a = tt.trans %x {order = array<i32: 1, 0, 2>} : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
  %b = tt.trans %a {order = array<i32: 2, 1, 0>} : tensor<4x2x8xf32> -> tensor<8x2x4xf32>
  tt.return %b : tensor<8x2x4xf32>
}
""",
    "reshape_of_expand_dims": """
tt.func @f(%x: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<256xf32>, tensor<16x16xf32>) {
  %a = tt.expand_dims %x {axis = 2 : i32} : tensor<16x16xf32> -> tensor<16x16x1xf32>
  %back = tt.reshape %a : tensor<16x16x1xf32> -> tensor<16x16xf32>
  %flat = tt.reshape %a : tensor<16x16x1xf32> -> tensor<256xf32>
  %reordered = tt.reshape %a allow_reorder : tensor<16x16x1xf32> -> tensor<16x16xf32>
  tt.return %back, %flat, %reordered : tensor<16x16xf32>, tensor<256xf32>, tensor<16x16xf32>
}
""",
    "efficient_layout_reshape_stays": """
tt.func @f(%x: tensor<16xf32>) -> tensor<4x4xf32> {
  %r = tt.reshape %x : tensor<16xf32> -> tensor<2x8xf32>
  %r2 = tt.reshape %r efficient_layout : tensor<2x8xf32> -> tensor<4x4xf32>
  tt.return %r2 : tensor<4x4xf32>
}
""",
}


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_extra_cases_replay_exactly(name: str) -> None:
    assert_replay_exact(EXTRA[name], "canonicalize")


EXTRA_XFAIL: dict[str, str] = {}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=[pytest.mark.xfail(reason=EXTRA_XFAIL[name], strict=True)])
        if name in EXTRA_XFAIL
        else name
        for name in sorted(EXTRA)
    ],
)
def test_extra_cases_match_triton(name: str) -> None:
    need(triton_missing())
    ours, triton = compare(EXTRA[name], "canonicalize")
    assert ours == triton


def test_steps_are_named_after_the_patterns() -> None:
    run = record(EXTRA["expand_dims_of_splat_and_broadcast"], "canonicalize")
    assert run.trace.status == "ok"
    names = [s.name for s in run.trace.steps if s.kind == "rewrite"]
    assert names.count("ExpandDimsOpCanonicalize") == 2
