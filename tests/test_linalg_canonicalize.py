"""passviz's ``canonicalize`` on linalg and tensor ops equals ``iree-opt --canonicalize`` (MLIR's
canonicalizer, as IREE 3.13's LLVM has it), pattern by pattern: each case is a small function
that one pattern of ``passviz.compilers.mlir.canonicalization.linalg``/``tensor`` rewrites (or,
where a condition fails, must leave alone).  iree-opt runs twice for all cases together."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import pytest

from passviz.ir.printer import print_module
from passviz.pipelines import record
from tests.conftest import iree_opt_missing, need
from tests.iree_support import run_iree_opt_batch

pytestmark = pytest.mark.iree

_ID2 = "affine_map<(d0, d1) -> (d0, d1)>"
_SWAP2 = "affine_map<(d0, d1) -> (d1, d0)>"


@dataclass(frozen=True)
class Case:
    """A function and the step passviz's canonicalizer must take on it (``""``: none of ours)."""

    text: str
    step: str


CASES: dict[str, Case] = {
    "transpose_of_transpose": Case(
        """func.func @f(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %e0 = tensor.empty() : tensor<3x2x4xf32>
  %t0 = linalg.transpose ins(%a : tensor<2x3x4xf32>) outs(%e0 : tensor<3x2x4xf32>) permutation = [1, 0, 2]
  %e1 = tensor.empty() : tensor<4x2x3xf32>
  %t1 = linalg.transpose ins(%t0 : tensor<3x2x4xf32>) outs(%e1 : tensor<4x2x3xf32>) permutation = [2, 1, 0]
  return %t1 : tensor<4x2x3xf32>
}""",
        "FoldTransposeWithTranspose",
    ),
    "transposes_to_identity": Case(
        """func.func @f(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e0 = tensor.empty() : tensor<3x2xf32>
  %t0 = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e0 : tensor<3x2xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<2x3xf32>
  %t1 = linalg.transpose ins(%t0 : tensor<3x2xf32>) outs(%e1 : tensor<2x3xf32>) permutation = [1, 0]
  return %t1 : tensor<2x3xf32>
}""",
        "FoldTranspose",
    ),
    "transpose_of_broadcast": Case(
        """func.func @f(%a: tensor<?x6xf32>) -> tensor<6x5x?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %a, %c0 : tensor<?x6xf32>
  %e0 = tensor.empty(%d) : tensor<?x5x6xf32>
  %b = linalg.broadcast ins(%a : tensor<?x6xf32>) outs(%e0 : tensor<?x5x6xf32>) dimensions = [1]
  %e1 = tensor.empty(%d) : tensor<6x5x?xf32>
  %t = linalg.transpose ins(%b : tensor<?x5x6xf32>) outs(%e1 : tensor<6x5x?xf32>) permutation = [2, 1, 0]
  return %t : tensor<6x5x?xf32>
}""",
        "SwapTransposeWithBroadcast",
    ),
    "transpose_of_broadcast_used_twice": Case(
        """func.func @f(%a: tensor<4x6xf32>) -> (tensor<6x5x4xf32>, tensor<4x5x6xf32>) {
  %e0 = tensor.empty() : tensor<4x5x6xf32>
  %b = linalg.broadcast ins(%a : tensor<4x6xf32>) outs(%e0 : tensor<4x5x6xf32>) dimensions = [1]
  %e1 = tensor.empty() : tensor<6x5x4xf32>
  %t = linalg.transpose ins(%b : tensor<4x5x6xf32>) outs(%e1 : tensor<6x5x4xf32>) permutation = [2, 1, 0]
  return %t, %b : tensor<6x5x4xf32>, tensor<4x5x6xf32>
}""",
        "",
    ),
    "broadcast_of_broadcast": Case(
        """func.func @f(%a: tensor<8x6xi8>) -> tensor<8x8x6x4xi8> {
  %e0 = tensor.empty() : tensor<8x6x4xi8>
  %b0 = linalg.broadcast ins(%a : tensor<8x6xi8>) outs(%e0 : tensor<8x6x4xi8>) dimensions = [2]
  %e1 = tensor.empty() : tensor<8x8x6x4xi8>
  %b1 = linalg.broadcast ins(%b0 : tensor<8x6x4xi8>) outs(%e1 : tensor<8x8x6x4xi8>) dimensions = [0]
  return %b1 : tensor<8x8x6x4xi8>
}""",
        "FoldBroadcasts",
    ),
    "collapse_of_collapse": Case(
        """func.func @f(%a: tensor<?x6x8x4xi32>) -> tensor<?x192xi32> {
  %c1 = tensor.collapse_shape %a [[0], [1, 2], [3]] : tensor<?x6x8x4xi32> into tensor<?x48x4xi32>
  %c2 = tensor.collapse_shape %c1 [[0], [1, 2]] : tensor<?x48x4xi32> into tensor<?x192xi32>
  return %c2 : tensor<?x192xi32>
}""",
        "ComposeReassociativeReshapeOps",
    ),
    "expand_of_expand": Case(
        """func.func @f(%a: tensor<?x24xi32>, %n: index) -> tensor<?x2x3x4xi32> {
  %e1 = tensor.expand_shape %a [[0], [1, 2]] output_shape [%n, 6, 4] : tensor<?x24xi32> into tensor<?x6x4xi32>
  %e2 = tensor.expand_shape %e1 [[0], [1, 2], [3]] output_shape [%n, 2, 3, 4]
    : tensor<?x6x4xi32> into tensor<?x2x3x4xi32>
  return %e2 : tensor<?x2x3x4xi32>
}""",
        "ComposeReassociativeReshapeOps",
    ),
    "expand_of_collapse": Case(
        """func.func @f(%a: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %c = tensor.collapse_shape %a [[0, 1]] : tensor<4x6xf32> into tensor<24xf32>
  %e = tensor.expand_shape %c [[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
  return %e : tensor<4x6xf32>
}""",
        "FoldInverseReshape",
    ),
    "collapse_of_fill": Case(
        """func.func @f(%v: f32) -> tensor<24xf32> {
  %e = tensor.empty() : tensor<4x6xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %c = tensor.collapse_shape %f [[0, 1]] : tensor<4x6xf32> into tensor<24xf32>
  return %c : tensor<24xf32>
}""",
        "FoldFillWithTensorReshape",
    ),
    "pad_of_pad": Case(
        """func.func @f(%a: tensor<4x4xf32>) -> tensor<7x6xf32> {
  %z = arith.constant 0.0 : f32
  %p1 = tensor.pad %a low[1, 0] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<4x4xf32> to tensor<5x5xf32>
  %p2 = tensor.pad %p1 low[1, 1] high[1, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<5x5xf32> to tensor<7x6xf32>
  return %p2 : tensor<7x6xf32>
}""",
        "FoldConsecutiveConstantPadding",
    ),
    "pad_of_pad_by_other_values": Case(
        """func.func @f(%a: tensor<4x4xf32>) -> tensor<6x4xf32> {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 1.0 : f32
  %p1 = tensor.pad %a low[1, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %z : f32
  } : tensor<4x4xf32> to tensor<5x4xf32>
  %p2 = tensor.pad %p1 low[1, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %o : f32
  } : tensor<5x4xf32> to tensor<6x4xf32>
  return %p2 : tensor<6x4xf32>
}""",
        "",
    ),
    "identity_generic": Case(
        f"""func.func @f(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {{
  %e = tensor.empty() : tensor<4x3xf32>
  %g = linalg.generic {{indexing_maps = [{_ID2}, {_ID2}], iterator_types = ["parallel", "parallel"]}}
    ins(%a : tensor<4x3xf32>) outs(%e : tensor<4x3xf32>) {{
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }} -> tensor<4x3xf32>
  return %g : tensor<4x3xf32>
}}""",
        "EraseIdentityGeneric",
    ),
    "generic_with_equal_permuted_maps": Case(
        f"""func.func @f(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {{
  %e = tensor.empty() : tensor<4x4xf32>
  %g = linalg.generic {{indexing_maps = [{_SWAP2}, {_SWAP2}], iterator_types = ["parallel", "parallel"]}}
    ins(%a : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {{
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }} -> tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}}""",
        "EraseIdentityGeneric",
    ),
}


@pytest.fixture(scope="module")
def outcomes() -> dict[str, tuple[str | None, str | None, list[str]]]:
    """Per case: iree-opt's canonicalized output, passviz's as iree-opt prints it, passviz's steps."""
    need(iree_opt_missing())
    texts = [case.text for case in CASES.values()]
    theirs = run_iree_opt_batch(texts, "--canonicalize")
    runs = [record(text, "canonicalize") for text in texts]
    again = run_iree_opt_batch([print_module(run.module) for run in runs])
    return {
        name: (their.output, our.output, [step.name or "" for step in run.trace.steps])
        for name, their, our, run in zip(CASES, theirs, again, runs, strict=True)
    }


@pytest.mark.parametrize("name", CASES)
def test_canonicalize_equals_iree_opt(
    name: str, outcomes: dict[str, tuple[str | None, str | None, list[str]]]
) -> None:
    """passviz's canonicalizer gives iree-opt's IR, through the pattern the case is for."""
    theirs, ours, steps = outcomes[name]
    assert theirs is not None and ours is not None
    assert ours == theirs, "\n".join(
        difflib.unified_diff(theirs.splitlines(), ours.splitlines(), "iree-opt", "passviz", lineterm="")
    )
    step = CASES[name].step
    ported = {case.step for case in CASES.values()} - {""}
    if step:
        assert step in steps, steps
    else:
        assert not ported & set(steps), steps
