"""The CPU interpreter on IREE's Flow IR: the seed's models run at every step of ``iree-flow``
(linalg and tensor ops, dispatch regions inline, workgroups and outlined executables through
their dispatch tensors), and ``passviz bisect`` finds a wrong rewrite in a Flow trace."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from passviz.cli import main
from passviz.compilers.iree.family import IREE_FLOW
from passviz.compilers.mlir.dialects.linalg import MatmulOp
from passviz.pipelines import parse_ir, record
from passviz.run.bisect import INITIAL, bisect, run_step
from passviz.run.inputs import derive_specs, make_arguments
from passviz.run.launch import launch
from tests.conftest import peer_file, split_chunks
from tests.iree_support import DISPATCH_PASSES, FILES, MODELS, PASSES


class SwapMatmulOperands(RewritePattern):
    """A wrong rewrite: ``A @ B`` becomes ``B @ A``, which still verifies for square matrices."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, MatmulOp):
            lhs, rhs = op.inputs
            rewriter.replace(op, MatmulOp([rhs, lhs], list(op.outputs)))


@dataclass(frozen=True)
class SwapMatmuls(ModulePass):
    """The user's pass that holds the wrong rewrite."""

    name = "swap-matmul-operands"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(SwapMatmulOperands(), apply_recursively=False).rewrite_module(op)


SQUARE = """func.func @predict(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<4x4xf32>
  %1 = hal.tensor.import %arg1 : !hal.buffer_view -> tensor<4x4xf32>
  %2 = hal.tensor.import %arg2 : !hal.buffer_view -> tensor<4xf32>
  %3 = tensor.empty() : tensor<4x4xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %5 = linalg.matmul ins(%0, %1 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%4 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%5, %2 : tensor<4x4xf32>, tensor<4xf32>) outs(%3 : tensor<4x4xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %8 = arith.addf %in, %in_0 : f32
    linalg.yield %8 : f32
  } -> tensor<4x4xf32>
  %7 = hal.tensor.export %6 : tensor<4x4xf32> -> !hal.buffer_view
  return %7 : !hal.buffer_view
}
"""
"""The seed's matmul + bias-add model with square matrices, so swapped operands still verify."""

FLOW = IREE_FLOW.split(",")
SWAPPED = ",".join(
    [
        *FLOW[: FLOW.index("iree-dispatch-creation-clone-producers-into-dispatch-regions") + 1],
        "swap-matmul-operands",
    ]
    + FLOW[FLOW.index("iree-dispatch-creation-clone-producers-into-dispatch-regions") + 1 :]
)
"""``iree-flow`` with the wrong pass once the matmul and its bias-add share a dispatch region."""


def _conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """A stride-1 NHWC x HWCF convolution without padding, as numpy sums it."""
    _, height, width, _ = x.shape
    kh, kw, _, _ = w.shape
    out = 0
    for i in range(kh):
        for j in range(kw):
            window = x[:, i : i + height - kh + 1, j : j + width - kw + 1, :]
            out = out + np.einsum("nhwc,cf->nhwf", window, w[i, j])
    return np.asarray(out)


@pytest.mark.parametrize("model", sorted(MODELS))
def test_every_step_of_iree_flow_keeps_the_models_results(model: str) -> None:
    """Each step of ``iree-flow`` runs, from the linalg ops to the outlined executables, and
    computes what the model computed."""
    run = record(MODELS[model], "iree-flow")
    arguments = make_arguments(derive_specs(parse_ir(MODELS[model])))
    result = bisect(run.trace, arguments, (1,), every=True)
    assert result.first is None
    assert len(result.runs) == len(run.trace.steps) + 1
    assert all(outcome.error is None for outcome in result.runs.values())


def test_the_seed_models_compute_what_numpy_computes() -> None:
    """The initial IR's outputs are the convolution and the matmul + bias-add numpy computes."""
    for model, reference in (
        ("conv1x1", lambda a: _conv(a[0], a[1])),
        ("img2col", lambda a: _conv(a[0], a[1])),
        ("matmul_bias", lambda a: a[0] @ a[1] + a[2]),
    ):
        module = parse_ir(MODELS[model])
        arguments = make_arguments(derive_specs(module))
        (output,) = launch(module, arguments, (1,)).outputs.values()
        expected = reference([value for _, value in arguments]).reshape(-1)
        np.testing.assert_allclose(output, expected, rtol=1e-5, atol=1e-5)


def test_the_outlined_executables_compute_the_bias_add() -> None:
    """After the last step, the function only dispatches to executables; they compute A @ B + bias."""
    run = record(MODELS["matmul_bias"], "iree-flow")
    arguments = make_arguments(derive_specs(parse_ir(MODELS["matmul_bias"])))
    last = run_step(run.trace, len(run.trace.steps) - 1, arguments, (1,))
    a, b, bias = (value for _, value in arguments)
    assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and isinstance(bias, np.ndarray)
    np.testing.assert_allclose(last.outputs["result #0"], (a @ b + bias).reshape(-1), rtol=1e-5)


def test_bisect_finds_a_wrong_rewrite_inside_a_dispatch_region() -> None:
    """A user's pass that swaps a matmul's operands, run once the matmul is in a dispatch
    region: bisect names its step, and the outputs after it are B @ A + bias."""
    run = record(SQUARE, SWAPPED, extra_passes={"swap-matmul-operands": SwapMatmuls})
    assert run.trace.status == "ok", run.trace.failed_steps
    arguments = make_arguments(derive_specs(parse_ir(SQUARE)))
    result = bisect(run.trace, arguments, (1,))
    assert result.step is not None and result.step.name == "SwapMatmulOperands"
    assert len(result.runs) < len(run.trace.steps)
    a, b, bias = (value for _, value in arguments)
    assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and isinstance(bias, np.ndarray)
    np.testing.assert_allclose(
        result.runs[INITIAL].outputs["result #0"], (a @ b + bias).reshape(-1), rtol=1e-5
    )
    np.testing.assert_allclose(
        result.runs[result.first].outputs["result #0"], (b @ a + bias).reshape(-1), rtol=1e-5
    )


def test_passviz_bisect_on_a_flow_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The command line derives the buffer views' arrays from the imports and names the step."""
    source = tmp_path / "square.mlir"
    source.write_text(SQUARE)
    trace = tmp_path / "square.passviz.json"
    assert main(["trace", str(source), "-p", SWAPPED, "--passes-from", __file__, "-o", str(trace)]) == 0
    capsys.readouterr()
    assert main(["bisect", str(trace)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == (
        "inputs from the kernel's signature: --arg arg0=4x4:f32:random --arg arg1=4x4:f32:random "
        "--arg arg2=4:f32:random"
    )
    found = next(line for line in printed if line.startswith("first differing step:"))
    assert found.split()[4:7] == ["rewrite", "swap-matmul-operands", "SwapMatmulOperands"]


PEER_RUNS = {
    **{f"conv2d_to_img2col-{index}": "iree-global-opt-convert-conv2d-to-img2col" for index in range(4)},
    **{f"elementwise_op_fusion-{index}": "iree-dispatch-creation-elementwise-op-fusion" for index in (2, 19)},
    **{
        f"fuse_multiuse_elementwise_producer-{index}": "iree-dispatch-creation-fuse-multi-use-elementwise-producer"
        for index in (1, 2)
    },
    "dispatch_linalg_on_tensors_default-1": ",".join(DISPATCH_PASSES[:4]),
}
"""Peer inputs of static shape whose ops the interpreter runs (gathers, ``linalg.index``, an
optimization barrier, ``check`` ops, encodings), each with the passes it goes through; the
1024x1024 matmul and the large convolution and batch norm inputs run too, but take seconds a step."""


def _peer_chunk(case: str) -> str:
    stem, _, index = case.rpartition("-")
    relative = next(path for path in (*PASSES.values(), *FILES.values()) if path.endswith(f"/{stem}.mlir"))
    return split_chunks(peer_file(relative).read_text())[int(index)]


@pytest.mark.parametrize("case", sorted(PEER_RUNS))
def test_every_step_keeps_a_peer_inputs_results(case: str) -> None:
    """Each step of the input's passes runs and computes what the input computed."""
    chunk = _peer_chunk(case)
    run = record(chunk, PEER_RUNS[case])
    assert run.trace.status == "ok", run.trace.failed_steps
    result = bisect(run.trace, make_arguments(derive_specs(parse_ir(chunk))), (1,), every=True)
    assert result.first is None
    assert all(outcome.error is None for outcome in result.runs.values())


SLICES = """func.func @slices(%a: tensor<4x6xf32>, %b: tensor<2x3xf32>) -> (tensor<7x9xf32>, tensor<2x3xf32>, tensor<4x6xf32>) {
  %cst = arith.constant 0.5 : f32
  %p = tensor.pad %a low[1, 2] high[2, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<4x6xf32> to tensor<7x9xf32>
  %s = tensor.extract_slice %a[1, 0] [2, 3] [2, 2] : tensor<4x6xf32> to tensor<2x3xf32>
  %i = tensor.insert_slice %b into %a[2, 3] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x6xf32>
  return %p, %s, %i : tensor<7x9xf32>, tensor<2x3xf32>, tensor<4x6xf32>
}
"""


def test_pad_and_slices_compute_what_numpy_does() -> None:
    """``tensor.pad`` with a constant, a strided ``extract_slice`` and an ``insert_slice``; each
    returned tensor is an output."""
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    b = -np.ones((2, 3), np.float32)
    outputs = launch(parse_ir(SLICES), [("a", a), ("b", b)], (1,)).outputs
    inserted = a.copy()
    inserted[2:4, 3:6] = b
    np.testing.assert_array_equal(
        outputs["result #0"], np.pad(a, [(1, 2), (2, 1)], constant_values=0.5).ravel()
    )
    np.testing.assert_array_equal(outputs["result #1"], a[1:5:2, 0:6:2].ravel())
    np.testing.assert_array_equal(outputs["result #2"], inserted.ravel())
