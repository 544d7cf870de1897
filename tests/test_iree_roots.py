"""Dispatch roots and fusion for every kind of structured op (issue 26), decided through MLIR's
structured op interface: each model through ``iree-flow`` and through each of its passes alone
equals ``iree-opt`` 3.13, and form-dispatch-regions' decision steps name the roots IREE picks."""

from __future__ import annotations

import pytest

from passviz.compilers.iree.structured import is_convolution, loop_iterators, root_reason
from passviz.ir.printer import print_module
from passviz.pipelines import parse_ir, record
from tests.conftest import iree_opt_missing, need
from tests.iree_generator import Outcome, check_models

pytestmark = pytest.mark.iree

_WINDOW = "{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}"


def _model(name: str, args: str, result: str, body: str) -> str:
    return f"func.func @{name}({args}) -> {result} {{\n{body}}}\n"


MODELS = {
    "reduce_root": _model(
        "reduce_root",
        "%a: tensor<8x14x14x512xf32>",
        "tensor<8x512xf32>",
        """  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<8x14x512xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x14x512xf32>) -> tensor<8x14x512xf32>
  %r = linalg.reduce ins(%a : tensor<8x14x14x512xf32>) outs(%1 : tensor<8x14x512xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  %2 = tensor.empty() : tensor<8x512xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<8x512xf32>) -> tensor<8x512xf32>
  %r2 = linalg.reduce ins(%r : tensor<8x14x512xf32>) outs(%3 : tensor<8x512xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %r2 : tensor<8x512xf32>
""",
    ),
    "broadcast_alone": _model(
        "broadcast_alone",
        "%a: tensor<?x16xf32>, %n: index",
        "tensor<?x4x16xf32>",
        """  %0 = tensor.empty(%n) : tensor<?x4x16xf32>
  %1 = linalg.broadcast ins(%a : tensor<?x16xf32>) outs(%0 : tensor<?x4x16xf32>) dimensions = [1]
  return %1 : tensor<?x4x16xf32>
""",
    ),
    "map_after_matmul": _model(
        "map_after_matmul",
        "%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>",
        "tensor<8x4xf32>",
        """  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<8x4xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%1 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %3 = linalg.map { arith.addf } ins(%2, %c : tensor<8x4xf32>, tensor<8x4xf32>) outs(%0 : tensor<8x4xf32>)
  return %3 : tensor<8x4xf32>
""",
    ),
    "pooling_nhwc_sum": _model(
        "pooling_nhwc_sum",
        "%a: tensor<1x8x8x4xf32>",
        "tensor<1x7x7x4xf32>",
        f"""  %cst = arith.constant 0.0 : f32
  %w = tensor.empty() : tensor<2x2xf32>
  %0 = tensor.empty() : tensor<1x7x7x4xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x7x7x4xf32>) -> tensor<1x7x7x4xf32>
  %2 = linalg.pooling_nhwc_sum {_WINDOW} ins(%a, %w : tensor<1x8x8x4xf32>, tensor<2x2xf32>) outs(%1 : tensor<1x7x7x4xf32>) -> tensor<1x7x7x4xf32>
  return %2 : tensor<1x7x7x4xf32>
""",
    ),
    "pooling_nchw_max_then_relu": _model(
        "pooling_nchw_max_then_relu",
        "%a: tensor<1x4x8x8xf32>",
        "tensor<1x4x7x7xf32>",
        f"""  %cst = arith.constant 0.0 : f32
  %w = tensor.empty() : tensor<2x2xf32>
  %0 = tensor.empty() : tensor<1x4x7x7xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  %2 = linalg.pooling_nchw_max {_WINDOW} ins(%a, %w : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%1 : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  %3 = linalg.map {{ arith.maximumf }} ins(%2, %1 : tensor<1x4x7x7xf32>, tensor<1x4x7x7xf32>) outs(%0 : tensor<1x4x7x7xf32>)
  return %3 : tensor<1x4x7x7xf32>
""",
    ),
    "conv_variants": _model(
        "conv_variants",
        "%a: tensor<1x4x8x8xf32>, %f: tensor<2x4x3x3xf32>, %b: tensor<1x8x8x4xf32>, %g: tensor<3x3x4xf32>, %h: tensor<2x3x3x4xf32>",
        "(tensor<1x2x6x6xf32>, tensor<1x6x6x4xf32>, tensor<1x6x6x2xf32>)",
        f"""  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<1x2x6x6xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  %2 = linalg.conv_2d_nchw_fchw {_WINDOW} ins(%a, %f : tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) outs(%1 : tensor<1x2x6x6xf32>) -> tensor<1x2x6x6xf32>
  %3 = tensor.empty() : tensor<1x6x6x4xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %5 = linalg.depthwise_conv_2d_nhwc_hwc {_WINDOW} ins(%b, %g : tensor<1x8x8x4xf32>, tensor<3x3x4xf32>) outs(%4 : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %6 = tensor.empty() : tensor<1x6x6x2xf32>
  %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<1x6x6x2xf32>) -> tensor<1x6x6x2xf32>
  %8 = linalg.conv_2d_nhwc_fhwc {_WINDOW} ins(%b, %h : tensor<1x8x8x4xf32>, tensor<2x3x3x4xf32>) outs(%7 : tensor<1x6x6x2xf32>) -> tensor<1x6x6x2xf32>
  %9 = linalg.map {{ arith.addf }} ins(%8, %8 : tensor<1x6x6x2xf32>, tensor<1x6x6x2xf32>) outs(%6 : tensor<1x6x6x2xf32>)
  return %2, %5, %9 : tensor<1x2x6x6xf32>, tensor<1x6x6x4xf32>, tensor<1x6x6x2xf32>
""",
    ),
    "matmul_variants": _model(
        "matmul_variants",
        "%a: tensor<8x16xf32>, %v: tensor<16xf32>, %q: tensor<2x8x16xf32>, %k: tensor<2x16x4xf32>",
        "(tensor<8xf32>, tensor<2x8x4xf32>, tensor<8x4xf32>)",
        """  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8xf32>) -> tensor<8xf32>
  %2 = linalg.matvec ins(%a, %v : tensor<8x16xf32>, tensor<16xf32>) outs(%1 : tensor<8xf32>) -> tensor<8xf32>
  %3 = tensor.empty() : tensor<2x8x4xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %5 = linalg.batch_matmul ins(%q, %k : tensor<2x8x16xf32>, tensor<2x16x4xf32>) outs(%4 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %6 = tensor.empty() : tensor<8x4xf32>
  %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %8 = linalg.batch_reduce_matmul ins(%q, %k : tensor<2x8x16xf32>, tensor<2x16x4xf32>) outs(%7 : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %2, %5, %8 : tensor<8xf32>, tensor<2x8x4xf32>, tensor<8x4xf32>
""",
    ),
    "int8_conv_dequant": _model(
        "int8_conv_dequant",
        "%a: tensor<1x8x8x4xi8>, %f: tensor<3x3x4x2xi8>, %bias: tensor<2xi8>",
        "tensor<1x6x6x2xf32>",
        f"""  %c0 = arith.constant 0 : i32
  %0 = tensor.empty() : tensor<2xi32>
  %1 = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%bias : tensor<2xi8>) outs(%0 : tensor<2xi32>) {{
  ^bb0(%in: i8, %out: i32):
    %e = arith.extsi %in : i8 to i32
    linalg.yield %e : i32
  }} -> tensor<2xi32>
  %2 = tensor.empty() : tensor<1x6x6x2xi32>
  %3 = linalg.fill ins(%c0 : i32) outs(%2 : tensor<1x6x6x2xi32>) -> tensor<1x6x6x2xi32>
  %4 = linalg.conv_2d_nhwc_hwcf {_WINDOW} ins(%a, %f : tensor<1x8x8x4xi8>, tensor<3x3x4x2xi8>) outs(%3 : tensor<1x6x6x2xi32>) -> tensor<1x6x6x2xi32>
  %5 = tensor.empty() : tensor<1x6x6x2xf32>
  %6 = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%4, %1 : tensor<1x6x6x2xi32>, tensor<2xi32>) outs(%5 : tensor<1x6x6x2xf32>) {{
  ^bb0(%in: i32, %b: i32, %out: f32):
    %s = arith.addi %in, %b : i32
    %e = arith.sitofp %s : i32 to f32
    linalg.yield %e : f32
  }} -> tensor<1x6x6x2xf32>
  return %6 : tensor<1x6x6x2xf32>
""",
    ),
    "leftover_pad_dynamic": _model(
        "leftover_pad_dynamic",
        "%a: tensor<?x6xf32>",
        "tensor<?x9xf32>",
        """  %cst = arith.constant 0.0 : f32
  %p = tensor.pad %a low[0, 1] high[0, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<?x6xf32> to tensor<?x9xf32>
  return %p : tensor<?x9xf32>
""",
    ),
    "softmax_tie": _model(
        "softmax_tie",
        "%a: tensor<?x16xf32>",
        "tensor<?x16xf32>",
        """  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x16xf32>
  %0 = tensor.empty(%n) : tensor<?x16xf32>
  %1 = linalg.softmax dimension(1) ins(%a : tensor<?x16xf32>) outs(%0 : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %1 : tensor<?x16xf32>
""",
    ),
}
"""A model per class of op the issue names, by name."""

ROOTS = {
    "reduce_root": ["linalg.reduce", "linalg.reduce"],
    "broadcast_alone": ["linalg.broadcast"],
    "map_after_matmul": ["linalg.map", "linalg.matmul"],
    "pooling_nhwc_sum": ["linalg.pooling_nhwc_sum"],
    "pooling_nchw_max_then_relu": ["linalg.map", "linalg.pooling_nchw_max"],
    "conv_variants": [
        "linalg.map",
        "linalg.conv_2d_nhwc_fhwc",
        "linalg.depthwise_conv_2d_nhwc_hwc",
        "linalg.conv_2d_nchw_fchw",
    ],
    "matmul_variants": ["linalg.batch_reduce_matmul", "linalg.batch_matmul", "linalg.matvec"],
    "int8_conv_dequant": ["linalg.conv_2d_nhwc_hwcf", "linalg.generic"],
    "leftover_pad_dynamic": ["tensor.pad"],
    "softmax_tie": ["linalg.softmax"],
}
"""The ops each model's dispatches are rooted at, in the order form-dispatch-regions opens them
(its walk goes from the block's end).  ``linalg.map`` is a named op, so a root of its own: IREE
fuses no producer into it (its inputs are not its init) and it fuses into no root, as iree-opt's
output above shows; the int8 model's dequantizing generic (an i32 input, an f32 init) is left
over: a convolution fuses only a consumer whose init its result could reuse."""


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Outcome]:
    need(iree_opt_missing())
    return check_models(MODELS)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_equals_iree_opt(name: str, outcomes: dict[str, Outcome]) -> None:
    """The model, through the pipeline and each pass alone, is iree-opt's."""
    outcome = outcomes[name]
    assert not outcome.refused, outcome.refused
    assert not outcome.skipped, outcome.skipped
    assert not outcome.differences, outcome.report()


@pytest.mark.parametrize("name", sorted(ROOTS))
def test_roots_are_iree_s(name: str) -> None:
    """form-dispatch-regions opens a dispatch at each op IREE's ``isRootLikeOp`` (or its leftover
    walk) picks, and says so in a ``Root`` step."""
    run = record(MODELS[name], "iree-dispatch-creation-form-dispatch-regions")
    assert run.trace.status == "ok", run.trace.failed_steps
    names = [step.name or "" for step in run.trace.steps]
    roots = [step.split(" ")[1] for step in names if step.startswith("Root: ")]
    assert roots == ROOTS[name]


def test_root_reasons_come_from_the_loops() -> None:
    """A reduction generic, every named op but fill and a softmax are roots; an elementwise
    generic and a fill are not; the poolings and convolutions are convolutions by their window."""
    module = parse_ir(
        MODELS["pooling_nchw_max_then_relu"] + MODELS["matmul_variants"] + MODELS["reduce_root"]
    )
    found = {op.name: (root_reason(op), is_convolution(op)) for op in module.walk() if loop_iterators(op)}
    assert found["linalg.pooling_nchw_max"] == ("a named linalg op", True)
    assert found["linalg.matvec"] == ("a named linalg op", False)
    assert found["linalg.reduce"] == ("a named linalg op", False)
    assert found["linalg.map"] == ("a named linalg op", False)
    assert found["linalg.fill"] == (None, False)


def test_softmax_init_stays_read_only() -> None:
    """After the workgroups pass the softmax's init is an input, read-only, and the result is
    written to a fresh output: the tie IREE does not make."""
    run = record(MODELS["softmax_tie"], "iree-flow")
    printed = print_module(run.module)
    assert "readwrite" not in printed
    assert "writeonly:tensor<?x16xf32>" in printed
    assert "-> %" not in printed.split("flow.dispatch @")[1].split("\n")[0]
