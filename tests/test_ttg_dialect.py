"""The ``ttg`` encodings: ``#ttg.blocked`` and ``#ttg.slice`` as Triton 3.6 reads and prints them,
and the result encodings tt ops infer through them."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import TensorType, f32
from xdsl.ir import Block
from xdsl.utils.exceptions import VerifyException

from passviz.compilers.triton.dialects import tt
from passviz.compilers.triton.dialects.ttg import BlockedEncodingAttr, SliceEncodingAttr
from passviz.ir.printer import print_module
from passviz.pipelines import IRParseError, parse_ir
from tests.conftest import need
from tests.test_combine import assert_replay_exact
from tests.triton_oracle import TritonError, triton_missing, triton_normalize

B2 = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>"
B1 = "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>"
C1 = "#ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>"
MODULE = 'module attributes {{"ttg.num-ctas" = {ctas} : i32, "ttg.num-warps" = 1 : i32}} {{\n{body}\n}}'


def in_module(body: str, ctas: int = 1) -> str:
    return MODULE.format(body=body, ctas=ctas)


THREE_LAYOUTS = in_module(
    f"""  tt.func @f(%x: tensor<4xf32, {C1}>) -> tensor<4xf32, {B1}> {{
    %z = arith.constant dense<1.0> : tensor<4x4xf32, {B2}>
    %y = arith.constant dense<1.0> : tensor<4xf32, {B1}>
    tt.return %y : tensor<4xf32, {B1}>
  }}"""
)

REDUCE_EXPAND = in_module(
    f"""  tt.func @f(%a: tensor<32x128xf32, {B2}>) -> tensor<32x128xf32, {B2}> {{
    %0 = "tt.reduce"(%a) <{{axis = 1 : i32}}> ({{
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      tt.reduce.return %s : f32
    }}) : (tensor<32x128xf32, {B2}>) -> tensor<32xf32, #ttg.slice<{{dim = 1, parent = {B2}}}>>
    %1 = tt.expand_dims %0 {{axis = 1 : i32}} : tensor<32xf32, #ttg.slice<{{dim = 1, parent = {B2}}}>> -> tensor<32x1xf32, {B2}>
    %2 = tt.broadcast %1 : tensor<32x1xf32, {B2}> -> tensor<32x128xf32, {B2}>
    tt.return %2 : tensor<32x128xf32, {B2}>
  }}"""
)


def test_blocked_layouts_print_as_aliases_numbered_in_first_use_order() -> None:
    printed = print_module(parse_ir(THREE_LAYOUTS))
    head = printed.splitlines()[:3]
    assert head == [f"#blocked = {C1}", f"#blocked1 = {B1}", f"#blocked2 = {B2}"]
    assert "tt.func @f(%x: tensor<4xf32, #blocked>) -> tensor<4xf32, #blocked1>" in printed
    assert "tensor<4x4xf32, #blocked2>" in printed
    assert printed.count("#ttg.blocked") == 3


def test_aliases_are_those_triton_prints() -> None:
    need(triton_missing())
    ours = print_module(parse_ir(THREE_LAYOUTS))
    theirs = triton_normalize(THREE_LAYOUTS)
    assert ours.splitlines()[:3] == theirs.splitlines()[:3]
    assert triton_normalize(ours) == theirs


def test_printed_aliases_parse_back_to_the_same_module() -> None:
    printed = print_module(parse_ir(REDUCE_EXPAND))
    assert print_module(parse_ir(printed)) == printed


def test_cga_layout_round_trips() -> None:
    text = in_module(
        "  tt.func @f(%a: tensor<32x128xf32, "
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], "
        "order = [1, 0], CGALayout = [[1, 0]]}>>) {\n    tt.return\n  }",
        ctas=2,
    )
    module = parse_ir(text)
    layout = next(
        arg.type.encoding
        for op in module.walk()
        if isinstance(op, tt.FuncOp)
        for arg in op.body.blocks[0].args
        if isinstance(arg.type, TensorType)
    )
    assert isinstance(layout, BlockedEncodingAttr)
    assert [[v.data for v in basis] for basis in layout.cga_layout] == [[1, 0]]
    assert "CGALayout = [[1, 0]]" in print_module(module)
    if triton_missing() is None:
        assert triton_normalize(print_module(module)) == triton_normalize(text)


def test_reduce_gives_a_slice_and_expand_dims_takes_it_back() -> None:
    module = parse_ir(REDUCE_EXPAND)
    module.verify()
    reduce = next(op for op in module.walk() if isinstance(op, tt.ReduceOp))
    expand = next(op for op in module.walk() if isinstance(op, tt.ExpandDimsOp))
    (a,) = reduce.srcs
    assert isinstance(a.type, TensorType)
    blocked = a.type.encoding
    assert isinstance(blocked, BlockedEncodingAttr)
    assert reduce.result_types[0] == TensorType(f32, [32], SliceEncodingAttr(1, blocked))
    assert expand.result.type == TensorType(f32, [32, 1], blocked)
    # Built without result types, the ops infer the same ones.
    block = Block(arg_types=[a.type])
    rebuilt = tt.ReduceOp([block.args[0]], 1)
    assert rebuilt.result_types == reduce.result_types
    assert tt.ExpandDimsOp(rebuilt.results[0], 1).result.type == expand.result.type


def _expand_dims_text(source: str, axis: int, result: str) -> str:
    return in_module(
        f"  tt.func @f(%a: {source}) {{\n"
        f"    %0 = tt.expand_dims %a {{axis = {axis} : i32}} : {source} -> {result}\n"
        "    tt.return\n  }"
    )


EXPAND_DIMS_ERRORS = [
    (
        f"tensor<4xf32, {B1}>",
        0,
        f"tensor<1x4xf32, {B2}>",
        "ExpandDimsOp operand encoding must be SliceEncodingAttr",
    ),
    (
        f"tensor<32xf32, #ttg.slice<{{dim = 1, parent = {B2}}}>>",
        0,
        f"tensor<1x32xf32, {B2}>",
        "Incompatible slice dimension for ExpandDimsOp operand",
    ),
]


@pytest.mark.parametrize(("source", "axis", "result", "message"), EXPAND_DIMS_ERRORS)
def test_expand_dims_needs_a_matching_slice(source: str, axis: int, result: str, message: str) -> None:
    module = parse_ir(_expand_dims_text(source, axis, result))
    with pytest.raises(VerifyException, match=f"'tt.expand_dims' op {message}"):
        module.verify()
    if triton_missing() is None:
        with pytest.raises(TritonError):
            triton_normalize(_expand_dims_text(source, axis, result))


BAD_LAYOUTS = [
    (
        "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0], CTAOrder = [0]}>",
        "unexpected key: CTAOrder",
    ),
    (
        "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1]}>",
        "#ttg.blocked needs order",
    ),
    (
        "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>",
        "must have the same rank",
    ),
    (
        "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [1]}>",
        "order [1] is not a permutation of 0..0",
    ),
    (f"#ttg.slice<{{dim = 2, parent = {B2}}}>", "dim 2 is out of range for a parent of rank 2"),
]


@pytest.mark.parametrize(("layout", "message"), BAD_LAYOUTS)
def test_bad_layouts_are_located_parse_errors(layout: str, message: str) -> None:
    text = in_module(f"  tt.func @f(%a: tensor<4xf32, {layout}>) {{\n    tt.return\n  }}")
    with pytest.raises(IRParseError) as caught:
        parse_ir(text, "k.mlir")
    assert message in caught.value.message
    assert caught.value.line == 2
    if triton_missing() is None:
        with pytest.raises(TritonError):
            triton_normalize(text)


def test_canonicalize_swaps_broadcast_and_expand_dims_through_a_slice() -> None:
    text = in_module(
        f"""  tt.func @fn(%arg0: tensor<1xf32, #ttg.slice<{{dim = 1, parent = {B2}}}>>) -> tensor<32x1xf32, {B2}> {{
    %a = tt.broadcast %arg0 : tensor<1xf32, #ttg.slice<{{dim = 1, parent = {B2}}}>> -> tensor<32xf32, #ttg.slice<{{dim = 1, parent = {B2}}}>>
    %b = tt.expand_dims %a {{axis = 1 : i32}} : tensor<32xf32, #ttg.slice<{{dim = 1, parent = {B2}}}>> -> tensor<32x1xf32, {B2}>
    tt.return %b : tensor<32x1xf32, {B2}>
  }}"""
    )
    assert_replay_exact(text, "canonicalize")
