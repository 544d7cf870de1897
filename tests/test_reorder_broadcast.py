"""triton-reorder-broadcast: Triton 3.6's ReorderBroadcast pass, compared with
Triton's output function by function."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import IntegerAttr, i32

from passviz.compilers.triton.canonicalization import is_elementwise
from passviz.compilers.triton.passes.reorder_broadcast import reorder_broadcast_patterns
from passviz.compilers.triton.version import use_triton_version
from passviz.pipelines import record
from passviz.rewrite.patterns import PatternTable
from tests.conftest import PEER, need, peer_file, split_functions
from tests.test_combine import assert_replay_exact
from tests.triton_oracle import compare, triton_missing

REORDER = "triton/test/Triton/reorder-broadcast.mlir"

XFAIL: dict[str, str] = {}
"""function -> why passviz's output cannot equal Triton's yet."""


def _cases() -> list[object]:
    path = PEER / REORDER
    functions = list(split_functions(path.read_text()).items()) if path.exists() else []
    return [
        pytest.param(
            text,
            id=name,
            marks=[pytest.mark.xfail(reason=XFAIL[name], strict=True)] if name in XFAIL else [],
        )
        for name, text in functions
    ]


@pytest.mark.parametrize("text", _cases())
def test_reorder_broadcast_matches_triton(text: str) -> None:
    need(triton_missing())
    peer_file(REORDER)
    ours, triton = compare(text, "triton-reorder-broadcast")
    assert ours == triton


def test_patterns_are_registered_in_triton_order() -> None:
    def names() -> list[str]:
        return [type(p).__name__ for p in reorder_broadcast_patterns()]

    with use_triton_version("3.6"):
        assert names() == [
            "BroadcastSplatPattern",
            "BroadcastBroadcastPattern",
            "ExpandDimsOpCanonicalize",
            "MoveBroadcastAfterElementwisePattern",
            "MoveSplatAfterElementwisePattern",
        ]
    with use_triton_version("3.9"):
        assert "ReshapeOfExpandDimsPattern" in names()


def test_patterns_tried_per_op_in_mlir_order() -> None:
    table = PatternTable(reorder_broadcast_patterns())
    one = arith.ConstantOp(IntegerAttr(1, i32))
    add = arith.AddiOp(one, one)
    assert [type(p).__name__ for p in table(add)] == [
        "MoveBroadcastAfterElementwisePattern",
        "MoveSplatAfterElementwisePattern",
    ]
    assert table(one) == ()


def test_is_elementwise_follows_mlir_traits() -> None:
    one = arith.ConstantOp(IntegerAttr(1, i32))
    assert not is_elementwise(one)
    assert is_elementwise(arith.AddiOp(one, one))
    assert is_elementwise(arith.CmpiOp(one, one, "eq"))
    assert is_elementwise(math.AbsIOp(one))


EXTRA = {
    "reshape_of_expand_dims": """
tt.func @f(%x: tensor<16x16xf32>, %y: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %a = tt.expand_dims %x {axis = 2 : i32} : tensor<16x16xf32> -> tensor<16x16x1xf32>
  %b = tt.reshape %a : tensor<16x16x1xf32> -> tensor<16x16xf32>
  %c = tt.expand_dims %y {axis = 0 : i32} : tensor<16x16xf32> -> tensor<1x16x16xf32>
  %d = tt.reshape %c : tensor<1x16x16xf32> -> tensor<16x16xf32>
  %cst = arith.constant dense<0.0> : tensor<16x16xf32>
  %e = tt.dot %b, %d, %cst : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  tt.return %e : tensor<16x16xf32>
}
""",
    "splat_and_splat_constant": """
tt.func @f(%x: i32) -> tensor<16xi32> {
  %a = tt.splat %x : i32 -> tensor<16xi32>
  %b = arith.constant dense<3> : tensor<16xi32>
  %c = arith.shli %b, %a : tensor<16xi32>
  tt.return %c : tensor<16xi32>
}
""",
    "broadcast_with_splat_operand": """
tt.func @f(%x: tensor<1x32xf32>, %y: f32) -> tensor<16x32xf32> {
  %a = tt.broadcast %x : tensor<1x32xf32> -> tensor<16x32xf32>
  %b = tt.splat %y : f32 -> tensor<16x32xf32>
  %c = arith.subf %a, %b : tensor<16x32xf32>
  tt.return %c : tensor<16x32xf32>
}
""",
    "broadcast_chain_through_expand_dims": """
tt.func @f(%x: tensor<1xf32>) -> tensor<8x8xf32> {
  %a = tt.broadcast %x : tensor<1xf32> -> tensor<8xf32>
  %b = tt.expand_dims %a {axis = 0 : i32} : tensor<8xf32> -> tensor<1x8xf32>
  %c = tt.broadcast %b : tensor<1x8xf32> -> tensor<8x8xf32>
  %d = math.exp %c : tensor<8x8xf32>
  tt.return %d : tensor<8x8xf32>
}
""",
    "addptr_of_splats": """
tt.func @f(%p: !tt.ptr<f32>, %o: i32) -> tensor<64x!tt.ptr<f32>> {
  %a = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
  %b = tt.splat %o : i32 -> tensor<64xi32>
  %c = tt.addptr %a, %b : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
  tt.return %c : tensor<64x!tt.ptr<f32>>
}
""",
}


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_extra_cases_replay_exactly(name: str) -> None:
    assert_replay_exact(EXTRA[name], "triton-reorder-broadcast")


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_extra_cases_match_triton(name: str) -> None:
    need(triton_missing())
    ours, triton = compare(EXTRA[name], "triton-reorder-broadcast")
    assert ours == triton


def test_steps_are_named_after_the_patterns() -> None:
    run = record(EXTRA["broadcast_with_splat_operand"], "triton-reorder-broadcast")
    assert run.trace.status == "ok"
    names = [s.name for s in run.trace.steps if s.kind == "rewrite"]
    assert "MoveBroadcastAfterElementwisePattern" in names
