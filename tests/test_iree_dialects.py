"""IREE's dialects (flow, iree_tensor_ext, hal, util) and the linalg ops Flow inputs use:
every ``// -----`` chunk of IREE's peer tests parses and prints back to what ``iree-opt`` reads
as the same module."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _pytest.mark import ParameterSet
from xdsl.ir import Operation
from xdsl.parser import Parser

from passviz.compilers.registry import make_context
from passviz.ir.printer import print_module
from tests.conftest import PEER, iree_opt_missing, need, split_chunks
from tests.iree_support import run_iree_opt, without_resource_handles

pytestmark = pytest.mark.iree

IREE_TESTS = PEER / "iree"
"""IREE's test files among the peer files (``shared/peer/SOURCES.md``)."""

NOT_MODELLED = {
    "iree_linalg_ext.": (
        "written for an IREE newer than 3.13: iree-opt 3.13 rejects this iree_linalg_ext.attention "
        "(properties dictionary is missing required attribute: indexing_maps), and passviz does not model it"
    ),
}
"""Dialects some chunks use that passviz leaves out, with why (elementwise_op_fusion.mlir's attention cases)."""


def _unregistered(path: Path) -> bool:
    """Whether the file's RUN line lets ops of unknown dialects through (``test.sink``)."""
    return path.exists() and "--allow-unregistered-dialect" in path.read_text().splitlines()[0]


def _cases() -> list[ParameterSet]:
    if not IREE_TESTS.is_dir():
        return [
            pytest.param(
                None, "", id="no-peer-files", marks=pytest.mark.skip(reason=f"{IREE_TESTS} is missing")
            )
        ]
    cases: list[ParameterSet] = []
    for path in sorted(IREE_TESTS.rglob("*.mlir")):
        for index, chunk in enumerate(split_chunks(path.read_text())):
            code = "\n".join(line for line in chunk.splitlines() if not line.lstrip().startswith("//"))
            missing = [
                why for prefix, why in NOT_MODELLED.items() if re.search(rf"\b{re.escape(prefix)}", code)
            ]
            marks = [pytest.mark.skip(reason=missing[0])] if missing else []
            cases.append(pytest.param(path, chunk, id=f"{path.stem}-{index}", marks=marks))
    return cases


def _parse(text: str, path: Path) -> Operation:
    return Parser(make_context(allow_unregistered=_unregistered(path)), text).parse_module()


def _iree_print(text: str, path: Path) -> str:
    """``iree-opt``'s print of ``text`` (no pass), failing the test on its error."""
    flags = ["--allow-unregistered-dialect"] if _unregistered(path) else []
    return run_iree_opt(text, *flags)


@pytest.mark.parametrize(("path", "chunk"), _cases())
def test_passviz_reads_back_what_it_prints(path: Path, chunk: str) -> None:
    """passviz's print of a chunk parses again to the same print.

    ``dense_resource`` handles are left out of the comparison (here and with
    iree-opt): xDSL keeps the handles of every parse in one store per process
    and renames a handle seen before (``__elided__`` becomes ``__elided___0``).
    """
    first = print_module(_parse(chunk, path))
    second = print_module(_parse(first, path))
    assert without_resource_handles(second) == without_resource_handles(first)


@pytest.mark.parametrize(("path", "chunk"), _cases())
def test_iree_opt_reads_passviz_print_as_the_same_module(path: Path, chunk: str) -> None:
    """``iree-opt`` prints passviz's print of a chunk exactly as it prints the chunk itself."""
    need(iree_opt_missing())
    printed = print_module(_parse(chunk, path))
    expected = without_resource_handles(_iree_print(chunk, path))
    assert without_resource_handles(_iree_print(printed, path)) == expected


def test_flow_syntax_is_irees() -> None:
    """The dispatch ops print in IREE 3.13's own syntax, not the generic form."""
    text = """util.func public @f(%arg0: tensor<?x4xf32>, %arg1: index) -> tensor<?x4xf32> {
  %0 = flow.dispatch.workgroups[%arg1](%arg0, %arg1) : (tensor<?x4xf32>{%arg1}, index) -> %arg0{%arg1} =
      (%arg2: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>, %arg3: index) {
    %1 = iree_tensor_ext.dispatch.tensor.load %arg2, offsets = [0, 0], sizes = [%arg3, 4], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>{%arg3} -> tensor<?x4xf32>
    iree_tensor_ext.dispatch.tensor.store %1, %arg2, offsets = [0, 0], sizes = [%arg3, 4], strides = [1, 1] : tensor<?x4xf32> -> !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>{%arg3}
    flow.return
  } count(%arg2: index) -> (index, index, index) {
    %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice(%arg2)
    flow.return %x, %y, %z : index, index, index
  }
  util.return %0 : tensor<?x4xf32>
}
"""
    printed = print_module(Parser(make_context(), text).parse_module())
    assert '"flow.' not in printed and '"iree_tensor_ext.' not in printed
    assert "-> %arg0{%arg1} =\n" in printed
    assert "sizes = [%arg3, 4]" in printed
    assert re.search(r"\} count\(%arg2\w*: index\) -> \(index, index, index\) \{", printed)


def test_linalg_and_tensor_print_as_mlir_does() -> None:
    """Transposed matmuls keep their maps, reshapes print plain reassociations, and iree-opt
    reads the print as the same module."""
    text = """util.func public @f(%a: tensor<16x8xf32>, %c: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<4x2x8xf32>, tensor<64xf32>) {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %a : tensor<16x8xf32>, tensor<16x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = tensor.expand_shape %0 [[0, 1], [2]] output_shape [4, 2, 8] : tensor<8x8xf32> into tensor<4x2x8xf32>
  %2 = tensor.collapse_shape %c [[0, 1]] : tensor<8x8xf32> into tensor<64xf32>
  util.return %0, %1, %2 : tensor<8x8xf32>, tensor<4x2x8xf32>, tensor<64xf32>
}
"""
    printed = print_module(Parser(make_context(), text).parse_module())
    for line in text.splitlines()[1:4]:
        assert line.strip() in printed
    if iree_opt_missing() is None:
        path = Path("inline.mlir")
        assert _iree_print(printed, path) == _iree_print(text, path)


def test_transpose_broadcast_and_reduce_print_as_mlir_does() -> None:
    """``ins(%a : t)`` with MLIR's spacing, and reduce's payload indented under its arguments."""
    text = """func.func @f(%c: tensor<8x8xf32>, %v: tensor<8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>) {
  %0 = linalg.transpose ins(%c : tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) permutation = [1, 0]
  %1 = linalg.broadcast ins(%v : tensor<8xf32>) outs(%c : tensor<8x8xf32>) dimensions = [1]
  %2 = linalg.reduce ins(%c : tensor<8x8xf32>) outs(%v : tensor<8xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  func.return %0, %1, %2 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>
}
"""
    printed = print_module(Parser(make_context(), text).parse_module())
    # MLIR leaves a space after the dimensions list; passviz does too.
    printed_lines = [line.rstrip() for line in printed.splitlines()]
    for line in text.splitlines()[1:8]:
        assert "  " + line in printed_lines
    if iree_opt_missing() is None:
        path = Path("inline.mlir")
        assert _iree_print(printed, path) == _iree_print(text, path)


SEED_DYNAMIC = """func.func @test(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %0 = hal.buffer_view.dim<%arg0 : !hal.buffer_view>[0] : index
  %1 = hal.tensor.import %arg0 : !hal.buffer_view -> tensor<?xf32>{%0}
  %2 = hal.buffer_view.dim<%arg1 : !hal.buffer_view>[0] : index
  %3 = hal.tensor.import %arg1 : !hal.buffer_view -> tensor<?xf32>{%2}
  %4 = arith.addi %0, %c0 : index
  %5 = flow.dispatch.workgroups[%4](%0, %1, %3, %0, %2, %0) : (index, tensor<?xf32>{%0}, tensor<?xf32>{%2}, index, index, index) -> tensor<?xf32>{%0} =
      (%arg2: index, %arg3: !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>, %arg4: !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>, %arg5: index, %arg6: index, %arg7: index, %arg8: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>) {
    %10 = flow.dispatch.tie_shape %arg3 : !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>{%arg7}
    %7 = iree_tensor_ext.dispatch.tensor.load %10, offsets = [0], sizes = [%arg7], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>{%arg7} -> tensor<?xf32>
    %8 = iree_tensor_ext.dispatch.tensor.load %arg4, offsets = [0], sizes = [%arg6], strides = [1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>{%arg6} -> tensor<?xf32>
    %9 = tensor.empty(%arg7) : tensor<?xf32>
    %11 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%7, %8 : tensor<?xf32>, tensor<?xf32>) outs(%9 : tensor<?xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %12 = arith.addf %in, %in_0 : f32
      linalg.yield %12 : f32
    } -> tensor<?xf32>
    iree_tensor_ext.dispatch.tensor.store %11, %arg8, offsets = [0], sizes = [%arg7], strides = [1] : tensor<?xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<?xf32>>{%arg7}
    flow.return
  } count(%arg2: index) -> (index, index, index) {
    %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice(%arg2)
    flow.return %x, %y, %z : index, index, index
  }
  %6 = hal.tensor.export %5 : tensor<?xf32>{%0} -> !hal.buffer_view
  return %6 : !hal.buffer_view
}
"""
"""The seed's dynamic-shape workgroups example (capture-dispatch-dynamic-dims) in IREE 3.13
syntax; its workload is a plain ``arith.addi`` because xDSL 0.74 cannot parse the seed's
semi-affine ``(s1 - s0) ceildiv s2``."""


def test_seed_dynamic_workgroups_round_trip() -> None:
    """``hal.buffer_view.dim``, dynamic dims on imports, exports, dispatch tensors and
    ``flow.dispatch.tie_shape`` print back as iree-opt reads them."""
    module = Parser(make_context(), SEED_DYNAMIC).parse_module()
    printed = print_module(module)
    assert "hal.buffer_view.dim<%arg0 : !hal.buffer_view>[0] : index" in printed
    assert re.search(
        r"flow\.dispatch\.tie_shape %\w+ : !iree_tensor_ext\.dispatch\.tensor<readonly:tensor<\?xf32>>{%\w+}",
        printed,
    )
    assert print_module(Parser(make_context(), printed).parse_module()) == printed
    if iree_opt_missing() is None:
        path = Path("inline.mlir")
        assert _iree_print(printed, path) == _iree_print(SEED_DYNAMIC, path)


def test_one_resource_handle_is_one_resource_in_every_parse() -> None:
    """Both uses of a dense_resource handle name one resource, however many parses came first
    (the handle is renamed once per parse, not once per use), so CSE merges the two constants."""
    from passviz.pipelines import record

    text = """util.func @f() -> (tensor<2xf32>, tensor<2xf32>) {
  %a = arith.constant dense_resource<__elided__> : tensor<2xf32>
  %b = arith.constant dense_resource<__elided__> : tensor<2xf32>
  util.return %a, %b : tensor<2xf32>, tensor<2xf32>
}
"""
    for _ in range(3):
        printed = print_module(record(text, "cse").module)
        assert printed.count("dense_resource") == 1 and "util.return %a, %a" in printed
