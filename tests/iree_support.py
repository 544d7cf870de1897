"""What the IREE tests share: iree-opt run on a text, outputs compared without resource
handles, the peer files each pass is checked on, and the seed's models."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from tests.conftest import iree_opt


def run_iree_opt(text: str, *flags: str) -> str:
    """iree-opt's output for ``text`` under ``flags``, failing the test on its error."""
    done = subprocess.run([iree_opt(), *flags, "-"], input=text, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def without_resource_handles(text: str) -> str:
    """``text`` without ``dense_resource`` handles, which xDSL renames on every parse in a
    process (tests/test_iree_dialects.py says why)."""
    return re.sub(r"dense_resource<[^>]*>", "dense_resource<>", text)


PASSES = {
    "iree-preprocessing-convert-1x1-filter-conv2d-to-matmul": (
        "iree/compiler/src/iree/compiler/Preprocessing/Common/test/conv1x1_to_matmul.mlir"
    ),
    "iree-global-opt-convert-conv2d-to-img2col": (
        "iree/compiler/src/iree/compiler/GlobalOptimization/test/conv2d_to_img2col.mlir"
    ),
    "iree-dispatch-creation-elementwise-op-fusion": (
        "iree/compiler/src/iree/compiler/DispatchCreation/test/elementwise_op_fusion.mlir"
    ),
    "iree-dispatch-creation-fuse-multi-use-elementwise-producer": (
        "iree/compiler/src/iree/compiler/DispatchCreation/test/fuse_multiuse_elementwise_producer.mlir"
    ),
}
"""Each pass and its peer test file (its RUN line runs that pass alone)."""

FILES = {
    "dispatch_linalg_on_tensors_default": (
        "iree/compiler/src/iree/compiler/DispatchCreation/test/dispatch_linalg_on_tensors_default.mlir"
    ),
    "form_dispatch_workgroups": "iree/compiler/src/iree/compiler/DispatchCreation/test/form_dispatch_workgroups.mlir",
    "convert_region_to_workgroups": (
        "iree/compiler/src/iree/compiler/DispatchCreation/test/convert_region_to_workgroups.mlir"
    ),
    "outline_dispatch_regions": "iree/compiler/src/iree/compiler/Dialect/Flow/Transforms/test/outline_dispatch_regions.mlir",
    "pad_fusion_with_producer": "iree/compiler/src/iree/compiler/DispatchCreation/test/pad_fusion_with_producer.mlir",
    "pad_fusion_with_consumer": "iree/compiler/src/iree/compiler/DispatchCreation/test/pad_fusion_with_consumer.mlir",
}
"""Each peer file, by name."""

_MATMUL_BIAS_BODY = """  %cst = arith.constant 0.000000e+00 : f32
  %0 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<2x10xf32>
  %1 = hal.tensor.import %arg1 : !hal.buffer_view -> tensor<10x5xf32>
  %2 = hal.tensor.import %arg2 : !hal.buffer_view -> tensor<5xf32>
  %3 = tensor.empty() : tensor<2x5xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<2x5xf32>) -> tensor<2x5xf32>
  %5 = linalg.matmul ins(%0, %1 : tensor<2x10xf32>, tensor<10x5xf32>) outs(%4 : tensor<2x5xf32>) -> tensor<2x5xf32>
  %6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%5, %2 : tensor<2x5xf32>, tensor<5xf32>) outs(%3 : tensor<2x5xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %8 = arith.addf %in, %in_0 : f32
    linalg.yield %8 : f32
  } -> tensor<2x5xf32>
  %7 = hal.tensor.export %6 : tensor<2x5xf32> -> !hal.buffer_view
"""
"""The seed's matmul + bias-add, between its function's header and its return."""

SEED_MATMUL = (
    "util.func public @test(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view)"
    " -> !hal.buffer_view {\n" + _MATMUL_BIAS_BODY + "  util.return %7 : !hal.buffer_view\n}\n"
)
"""The seed's matmul + bias-add model (its ``dispatch.region`` example), in IREE 3.13 syntax."""

SEED_DETACH = """func.func @test(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub} {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<1x4x4x3xf32>
  %1 = hal.tensor.import %arg1 : !hal.buffer_view -> tensor<2x2x3x4xf32>
  %2 = hal.tensor.import %arg2 : !hal.buffer_view -> tensor<1x3x3x4xf32>
  %3 = tensor.empty() : tensor<1x3x3x4xf32>
  %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  %5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2 : tensor<1x3x3x4xf32>) outs(%4 : tensor<1x3x3x4xf32>) {
  ^bb0(%arg3: f32, %arg4: f32):
    %8 = arith.addf %arg3, %arg3 : f32
    linalg.yield %8 : f32
  } -> tensor<1x3x3x4xf32>
  %6 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : tensor<1x4x4x3xf32>, tensor<2x2x3x4xf32>) outs(%5 : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  %7 = hal.tensor.export %6 : tensor<1x3x3x4xf32> -> !hal.buffer_view
  return %7 : !hal.buffer_view
}
"""
"""The seed's convolution whose init is an elementwise generic (the detach pass's example)."""

SEED_PASSES = (
    "iree-preprocessing-convert-1x1-filter-conv2d-to-matmul",
    "iree-global-opt-convert-conv2d-to-img2col",
    "iree-global-opt-detach-elementwise-from-named-ops",
    "iree-dispatch-creation-elementwise-op-fusion",
    "iree-dispatch-creation-fuse-multi-use-elementwise-producer",
)
"""The seed's Flow passes passviz has, in the seed's order (the last two run on functions)."""


def _seed_conv(image: str, filter_: str, out: str) -> str:
    """The seed's convolution of an ``image`` tensor by a ``filter_`` tensor into ``out`` (shapes as ``AxBxCxD``)."""
    return f"""func.func @conv(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {{iree.abi.stub}} {{
  %cst = arith.constant 0.000000e+00 : f32
  %0 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<{image}xf32>
  %1 = hal.tensor.import %arg1 : !hal.buffer_view -> tensor<{filter_}xf32>
  %2 = tensor.empty() : tensor<{out}xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<{out}xf32>) -> tensor<{out}xf32>
  %4 = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} ins(%0, %1 : tensor<{image}xf32>, tensor<{filter_}xf32>) outs(%3 : tensor<{out}xf32>) -> tensor<{out}xf32>
  %5 = hal.tensor.export %4 : tensor<{out}xf32> -> !hal.buffer_view
  return %5 : !hal.buffer_view
}}
"""


SEED_EXAMPLES = {
    "conv1x1": _seed_conv("1x2x2x3", "1x1x3x4", "1x2x2x4"),
    "img2col": _seed_conv("1x4x4x3", "2x2x3x4", "1x3x3x4"),
    "matmul_bias": (
        "func.func @predict(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view, %arg2: !hal.buffer_view)"
        " -> !hal.buffer_view attributes {iree.abi.stub} {\n"
        + _MATMUL_BIAS_BODY
        + "  return %7 : !hal.buffer_view\n}\n"
    ),
    "detach": SEED_DETACH,
}
"""The seed's examples in IREE 3.13 syntax: ``tensor.empty`` for ``linalg.init_tensor``."""

MODELS = {**SEED_EXAMPLES, "matmul_bias_util": SEED_MATMUL}
"""The seed's models in IREE 3.13 syntax (``func.func``), and its matmul + bias-add as a ``util.func``."""

DISPATCH_PASSES = (
    "iree-dispatch-creation-form-dispatch-regions",
    "iree-dispatch-creation-clone-producers-into-dispatch-regions",
    "iree-dispatch-creation-convert-dispatch-regions-to-workgroups",
    "cse",
    "iree-flow-canonicalize",
    "cse",
    "iree-flow-outline-dispatch-regions",
)
"""The dispatch half of the Flow pipeline, in IREE's order."""


@dataclass(frozen=True)
class IreeOptResult:
    """iree-opt's output for one input of a batch, or None and its error."""

    output: str | None
    error: str = ""


_SPLIT = "\n// -----\n"


def run_iree_opt_batch(texts: Sequence[str], *flags: str) -> list[IreeOptResult]:
    """iree-opt's output for each of ``texts`` under ``flags``, all in one run
    (``--split-input-file``); where that run fails, each input runs alone to tell which did."""
    if not texts:
        return []
    command = [iree_opt(), "--split-input-file", "--mlir-disable-threading", *flags, "-"]
    done = subprocess.run(command, input=_SPLIT.join(texts), capture_output=True, text=True, timeout=600)
    outputs = done.stdout.split(_SPLIT)
    if done.returncode == 0 and len(outputs) == len(texts):
        # Each output framed alike wherever it stood in the batch (the last ends the file).
        return [IreeOptResult(o.rstrip() + "\n") for o in outputs]
    found: list[IreeOptResult] = []
    for text in texts:
        alone = subprocess.run(command, input=text, capture_output=True, text=True, timeout=120)
        ok = alone.returncode == 0
        found.append(
            IreeOptResult(alone.stdout.rstrip() + "\n") if ok else IreeOptResult(None, alone.stderr.strip())
        )
    return found
