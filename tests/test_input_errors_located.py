"""Bad input through ``passviz trace``: one line naming ``file:line:col`` and the whole reason
(a nested "operand ... does not verify:" with what is wrong with it), no traceback, on the
line and column iree-opt 3.13 blames (for a verifier's error, the op's name)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from passviz.cli import main
from tests.conftest import iree_opt, iree_opt_missing, need

_CASES = {
    "operand_type": (
        """func.func @f(%a: i32, %b: i64) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = "arith.muli"(%0, %b) : (i32, i64) -> i32
  return %1 : i32
}
""",
        "the input does not verify: 'arith.muli' op operand 'rhs' at position 1 does not verify: "
        "attribute i32 expected from variable 'T', but got i64",
        False,
    ),
    "nested_result_type": (
        """module {
  func.func @f(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %c: tensor<4x16xi32>, %n: index) -> tensor<4x16xi32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<4x16xi32>) {
      %0 = linalg.matmul ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>) outs(%acc : tensor<4x16xi32>) -> tensor<4x16xi32>
      %1 = "arith.addi"(%0, %0) : (tensor<4x16xi32>, tensor<4x16xi32>) -> tensor<4x16xi64>
      scf.yield %0 : tensor<4x16xi32>
    }
    return %r : tensor<4x16xi32>
  }
}
""",
        "the input does not verify: 'arith.addi' op result 'result' at position 0 does not verify: "
        "attribute tensor<4x16xi32> expected from variable 'T', but got tensor<4x16xi64>",
        False,
    ),
    "yield_type": (
        """func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%b : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %1 = arith.truncf %x : f32 to f16
    linalg.yield %1 : f16
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
""",
        "the input does not verify: 'linalg.yield' op type of yield operand 1 (f16) doesn't match "
        "the element type of the enclosing linalg.generic op (f32)",
        False,
    ),
    "index_dim": (
        """func.func @f(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%a : tensor<4xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    linalg.yield %c : i32
  } -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
""",
        "the input does not verify: 'linalg.index' op expected dim (1) to be lower than the number "
        "of loops (1) of the enclosing LinalgOp",
        False,
    ),
    "matmul_shapes": (
        """func.func @f(%a: tensor<4x8xi8>, %b: tensor<4x8xi8>, %c: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xi8>, tensor<4x8xi8>) outs(%c : tensor<4x8xi32>) -> tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}
""",
        "the input does not verify: 'linalg.matmul' op inferred input/output operand #1 has shape's "
        "dimension #0 to be 8, but found 4",
        False,
    ),
    "pooling_shapes": (
        """func.func @f(%a: tensor<1x6x6x2xf32>, %w: tensor<2x2xf32>, %o: tensor<1x4x3x2xf32>) -> tensor<1x4x3x2xf32> {
  %0 = linalg.pooling_nhwc_max {strides = dense<2> : vector<2xi64>} ins(%a, %w : tensor<1x6x6x2xf32>, tensor<2x2xf32>) outs(%o : tensor<1x4x3x2xf32>) -> tensor<1x4x3x2xf32>
  return %0 : tensor<1x4x3x2xf32>
}
""",
        "the input does not verify: 'linalg.pooling_nhwc_max' op inferred input/output operand #0 has "
        "shape's dimension #1 to be greater than or equal to 8, but found 6",
        False,
    ),
    "pooling_strides": (
        """func.func @f(%a: tensor<1x6x6x2xf32>, %w: tensor<2x2xf32>, %o: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %0 = linalg.pooling_nhwc_max {strides = dense<2> : vector<3xi64>} ins(%a, %w : tensor<1x6x6x2xf32>, tensor<2x2xf32>) outs(%o : tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  return %0 : tensor<1x3x3x2xf32>
}
""",
        "'linalg.pooling_nhwc_max' op attribute 'strides' failed to satisfy "
        "constraint: 64-bit signless int elements attribute of shape [2]",
        True,
    ),
    "contract_without_maps": (
        """func.func @f(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %c: tensor<4x16xi32>) -> tensor<4x16xi32> {
  %0 = linalg.contract ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>) outs(%c : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}
""",
        "expected 'indexing_maps' attribute",
        True,
    ),
    "pooling_operands": (
        """func.func @f(%a: tensor<1x6x6x2xf32>, %o: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %0 = linalg.pooling_nhwc_max {strides = dense<2> : vector<2xi64>} ins(%a : tensor<1x6x6x2xf32>) outs(%o : tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  return %0 : tensor<1x3x3x2xf32>
}
""",
        "[parseNamedStructuredOpRegion] ods-gen generated region expects 3 args, got 2",
        True,
    ),
    "conv_operands": (
        """func.func @f(%a: tensor<1x6x6x2xf32>, %o: tensor<1x5x5x2xf32>) -> tensor<1x5x5x2xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%a : tensor<1x6x6x2xf32>) outs(%o : tensor<1x5x5x2xf32>) -> tensor<1x5x5x2xf32>
  return %0 : tensor<1x5x5x2xf32>
}
""",
        "[parseNamedStructuredOpRegion] ods-gen generated region expects 3 args, got 2",
        True,
    ),
    "quantized_bools": (
        """func.func @f(%i: tensor<1x4x4x1xi1>, %k: tensor<2x2x1x1xi1>, %z: i32, %o: tensor<1x3x3x1xi1>) -> tensor<1x3x3x1xi1> {
  %0 = linalg.conv_2d_nhwc_hwcf_q ins(%i, %k, %z, %z : tensor<1x4x4x1xi1>, tensor<2x2x1x1xi1>, i32, i32) outs(%o : tensor<1x3x3x1xi1>) -> tensor<1x3x3x1xi1>
  return %0 : tensor<1x3x3x1xi1>
}
""",
        "unsupported operation: sub with bools",
        True,
    ),
}
"""Each bad input: its text, passviz's whole message, and whether it fails while being read
(else the verifier refuses it)."""


@pytest.mark.parametrize("name", sorted(_CASES))
def test_bad_input_gets_one_located_line(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``passviz trace`` exits 1 with ``passviz: error: FILE:LINE:COL: reason`` alone."""
    text, message, _ = _CASES[name]
    path = tmp_path / f"{name}.mlir"
    path.write_text(text)
    assert main(["trace", str(path), "-p", "cse", "-o", str(tmp_path / "out.json")]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("\n") == 1
    located = re.fullmatch(rf"passviz: error: {re.escape(str(path))}:(\d+):(\d+): (.*)\n", err)
    assert located is not None, err
    assert located.group(3) == message


@pytest.mark.iree
def test_iree_opt_blames_the_same_place(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """iree-opt refuses each input too, at the same line and column."""
    need(iree_opt_missing())
    for name, (text, _, _) in sorted(_CASES.items()):
        path = tmp_path / f"{name}.mlir"
        path.write_text(text)
        main(["trace", str(path), "-p", "cse", "-o", str(tmp_path / "out.json")])
        ours = re.match(rf"passviz: error: {re.escape(str(path))}:(\d+):(\d+): ", capsys.readouterr().err)
        done = subprocess.run([iree_opt(), str(path)], capture_output=True, text=True, timeout=60)
        theirs = re.match(rf"{re.escape(str(path))}:(\d+):(\d+): error: ", done.stderr)
        assert done.returncode != 0 and ours is not None and theirs is not None, name
        assert (ours.group(1), ours.group(2)) == (theirs.group(1), theirs.group(2)), name
