"""Models users bring (issue 26), each through ``iree-flow`` and each of its passes alone
(on the module iree-opt gives the passes before it), equal to ``iree-opt`` 3.13: a reduce-mean
(two ``linalg.reduce`` roots and a ``linalg.map``), a standalone ``linalg.broadcast``, a
``tensor.pad`` left over, an int8 matmul (i8 x i8 -> i32, sign-extended), ``linalg.map`` in
both forms, and ``linalg.softmax`` whose init IREE keeps read-only."""

from __future__ import annotations

import pytest

from passviz.compilers.iree.family import IREE_FLOW
from passviz.ir.errors import IRParseError
from passviz.ir.printer import print_module
from passviz.pipelines import parse_ir, record
from passviz.pipelines.input import parse_located, verify_input
from tests.conftest import iree_opt_missing, need
from tests.iree_support import run_iree_opt
from tests.test_iree_pipeline import FUNCTION_PASSES, nested_pipeline

pytestmark = pytest.mark.iree

_REDUCE = """    (%in: f32, %init: f32) {
      %r = arith.addf %in, %init : f32
      linalg.yield %r : f32
    }"""

MODELS = {
    "reduce_mean": f"""func.func @reduce_mean(%arg0: tensor<8x14x14x512xf32>) -> tensor<8x512xf32> {{
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 1.960000e+02 : f32
  %0 = tensor.empty() : tensor<8x14x512xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<8x14x512xf32>) -> tensor<8x14x512xf32>
  %reduced = linalg.reduce ins(%arg0 : tensor<8x14x14x512xf32>) outs(%1 : tensor<8x14x512xf32>) dimensions = [1]
{_REDUCE}
  %2 = tensor.empty() : tensor<8x512xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<8x512xf32>) -> tensor<8x512xf32>
  %reduced_1 = linalg.reduce ins(%reduced : tensor<8x14x512xf32>) outs(%3 : tensor<8x512xf32>) dimensions = [1]
{_REDUCE}
  %mapped = linalg.map ins(%reduced_1 : tensor<8x512xf32>) outs(%2 : tensor<8x512xf32>)
    (%in: f32, %init: f32) {{
      %5 = arith.divf %in, %cst_0 : f32
      linalg.yield %5 : f32
    }}
  return %mapped : tensor<8x512xf32>
}}
""",
    "broadcast": """func.func @bcast(%a: tensor<16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = tensor.empty() : tensor<8x16xf32>
  %1 = linalg.broadcast ins(%a : tensor<16xf32>) outs(%0 : tensor<8x16xf32>) dimensions = [0]
  return %1 : tensor<8x16xf32>
}
""",
    "broadcast_map": """func.func @bcast2(%a: tensor<16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = tensor.empty() : tensor<8x16xf32>
  %1 = linalg.broadcast ins(%a : tensor<16xf32>) outs(%0 : tensor<8x16xf32>) dimensions = [0]
  %2 = linalg.map { arith.addf } ins(%1, %b : tensor<8x16xf32>, tensor<8x16xf32>) outs(%0 : tensor<8x16xf32>)
  return %2 : tensor<8x16xf32>
}
""",
    "leftover_pad": """func.func @pad(%a: tensor<1x14x14x8xf32>) -> tensor<1x16x16x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x14x14x8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x14x14x8xf32>) outs(%0 : tensor<1x14x14x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %5 = arith.maximumf %in, %cst : f32
    linalg.yield %5 : f32
  } -> tensor<1x14x14x8xf32>
  %padded = tensor.pad %1 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %cst : f32
  } : tensor<1x14x14x8xf32> to tensor<1x16x16x8xf32>
  return %padded : tensor<1x16x16x8xf32>
}
""",
    "int8_matmul": """func.func @int8_matmul(%a: tensor<8x16xi8>, %b: tensor<16x4xi8>) -> tensor<8x4xi8> {
  %c0 = arith.constant 0 : i32
  %0 = tensor.empty() : tensor<8x4xi32>
  %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<8x4xi32>) -> tensor<8x4xi32>
  %2 = linalg.matmul ins(%a, %b : tensor<8x16xi8>, tensor<16x4xi8>) outs(%1 : tensor<8x4xi32>) -> tensor<8x4xi32>
  %3 = tensor.empty() : tensor<8x4xi8>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<8x4xi32>) outs(%3 : tensor<8x4xi8>) {
  ^bb0(%in: i32, %out: i8):
    %5 = arith.trunci %in : i32 to i8
    linalg.yield %5 : i8
  } -> tensor<8x4xi8>
  return %4 : tensor<8x4xi8>
}
""",
    "map_forms": """func.func @f(%m: tensor<8x16xf32>, %c: f32) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %5 = linalg.map ins(%m : tensor<8x16xf32>) outs(%m : tensor<8x16xf32>) (%in: f32, %init: f32) {
    %q = arith.divf %in, %c : f32
    linalg.yield %q : f32
  }
  %6 = linalg.map ins(%m, %m : tensor<8x16xf32>, tensor<8x16xf32>) outs(%m : tensor<8x16xf32>) (%in: f32, %in2: f32, %init: f32) {
    %q = arith.addf %in2, %in fastmath<fast> : f32
    linalg.yield %q : f32
  }
  %7 = linalg.map { arith.addf {fastmath = #arith.fastmath<fast>} } ins(%m, %m : tensor<8x16xf32>, tensor<8x16xf32>) outs(%m : tensor<8x16xf32>) {foo}
  return %5, %6, %7 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}
""",
    "softmax_untied": """func.func @sm(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %3 = linalg.softmax dimension(1) ins(%a : tensor<8x16xf32>) outs(%b : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %3 : tensor<8x16xf32>
}
""",
    "softmax_dynamic": """func.func @sm(%a: tensor<?x16xf32>, %b: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %3 = linalg.softmax dimension(1) ins(%a : tensor<?x16xf32>) outs(%b : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %3 : tensor<?x16xf32>
}
""",
    "softmax_shared_empty": """func.func @attn(%q: tensor<2x8x4xf32>, %k: tensor<2x4x8xf32>) -> tensor<2x8x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x8x8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %2 = linalg.batch_matmul ins(%q, %k : tensor<2x8x4xf32>, tensor<2x4x8xf32>) outs(%1 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  %3 = linalg.softmax dimension(2) ins(%2 : tensor<2x8x8xf32>) outs(%0 : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  return %3 : tensor<2x8x8xf32>
}
""",
}
"""The models, by name."""


def check_against_iree_opt(text: str) -> None:
    """``text`` through ``iree-flow``, then through each pass alone on iree-opt's module before
    it, equal to iree-opt's output each time."""
    function = "util.func" if "util.func" in text else "func.func"
    run = record(text, "iree-flow")
    assert run.trace.status == "ok", run.trace.failed_steps
    assert run_iree_opt(print_module(run.module)) == run_iree_opt(
        text, f"--pass-pipeline={nested_pipeline(function)}"
    )
    current = text
    for name in IREE_FLOW.split(","):
        pipeline = (
            f"builtin.module({function}({name}))" if name in FUNCTION_PASSES else f"builtin.module({name})"
        )
        theirs = run_iree_opt(current, f"--pass-pipeline={pipeline}")
        alone = record(current, name)
        assert alone.trace.status == "ok", (name, alone.trace.failed_steps)
        assert run_iree_opt(print_module(alone.module)) == theirs, name
        current = theirs


@pytest.mark.parametrize("model", sorted(MODELS))
def test_model_equals_iree_opt(model: str) -> None:
    """Each model, through the pipeline and each pass, is what iree-opt makes of it."""
    need(iree_opt_missing())
    check_against_iree_opt(MODELS[model])


def test_reduce_is_a_dispatch_root_over_the_whole_input() -> None:
    """Both reduces of the reduce-mean model are roots of their own: the first reads the whole
    8x14x14x512 input (IREE's), not a reduced 8x512."""
    run = record(MODELS["reduce_mean"], "iree-flow")
    printed = print_module(run.module)
    assert "readonly:tensor<8x14x14x512xf32>" in printed
    assert printed.count("flow.dispatch @") == 3  # the two reduces, then the map


def test_map_prints_as_mlir_does() -> None:
    """``linalg.map`` prints its short form where the body is one op on the inputs."""
    printed = print_module(parse_ir(MODELS["map_forms"]))
    assert "linalg.map { arith.addf {fastmath = #arith.fastmath<fast>} } ins(" in printed
    assert "(%in: f32, %init: f32) {" in printed or "(%arg" in printed
    assert print_module(parse_ir(printed)) == printed


def test_int8_matmul_body_sign_extends() -> None:
    """The i8 x i8 -> i32 matmul's body sign-extends both inputs, as MLIR builds it."""
    module = parse_ir(MODELS["int8_matmul"])
    matmul = next(op for op in module.walk() if op.name == "linalg.matmul")
    assert [op.name for op in matmul.regions[0].block.ops] == [
        "arith.extsi",
        "arith.extsi",
        "arith.muli",
        "arith.addi",
        "linalg.yield",
    ]


def test_verifier_error_names_line_and_whole_message() -> None:
    """An op of a named op's built body that fails is blamed on the named op's line, with the
    whole of xDSL's message (what does not verify, and why)."""
    text = """func.func @f(%a: tensor<8xf32>, %b: tensor<8xf16>) -> tensor<8xf32> {
  %2 = linalg.add ins(%a, %b : tensor<8xf32>, tensor<8xf16>) outs(%a : tensor<8xf32>) -> tensor<8xf32>
  return %2 : tensor<8xf32>
}
"""
    parsed = parse_located(text, "in.mlir")
    with pytest.raises(IRParseError) as caught:
        verify_input(parsed.module, "in.mlir", op_starts=parsed.op_starts)
    message = str(caught.value)
    assert "in.mlir:2:" in message
    assert "does not verify: attribute f32 expected from variable 'T', but got f16" in message
