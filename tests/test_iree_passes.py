"""IREE's Flow-pipeline passes, each checked on its peer test file: passviz's output
satisfies the file's CHECK lines, and ``iree-opt`` prints it exactly as it prints its own
output of the file's pass."""

from __future__ import annotations

import re
import subprocess

import pytest
from _pytest.mark import ParameterSet

from passviz.pipelines import RecordOptions, record
from passviz.trace.irtext import print_module
from passviz.trace.replay import Replayer
from tests.conftest import PEER, filecheck, iree_opt, iree_opt_missing, need, peer_file, split_chunks

pytestmark = pytest.mark.iree

PASSES = {
    "iree-preprocessing-convert-1x1-filter-conv2d-to-matmul": (
        "iree/compiler/src/iree/compiler/Preprocessing/Common/test/conv1x1_to_matmul.mlir"
    ),
    "iree-global-opt-convert-conv2d-to-img2col": (
        "iree/compiler/src/iree/compiler/GlobalOptimization/test/conv2d_to_img2col.mlir"
    ),
}
"""Each pass and its peer test file (its RUN line runs that pass alone)."""

PATTERNS = {
    "iree-preprocessing-convert-1x1-filter-conv2d-to-matmul": "Convert1x1FilterConvToMatmul",
    "iree-global-opt-convert-conv2d-to-img2col": "ConvertConv2D",
}
"""How the IREE patterns whose rewrites each pass records are named (a prefix)."""

PRINTS_APART = {
    "conv1x1_to_matmul-4": "xDSL prints affine expressions with parentheses, (d2 * 2) where MLIR prints d2 * 2",
    **{
        f"conv2d_to_img2col-{index}": "passviz prints affine maps inline; the checks want MLIR's #map aliases"
        for index in range(4)
    },
}
"""Cases whose CHECK lines passviz's own print misses, and why (iree-opt's print of it passes them)."""


def _cases() -> list[ParameterSet]:
    cases: list[ParameterSet] = []
    for name, relative in PASSES.items():
        path = PEER / relative
        chunks = split_chunks(path.read_text()) if path.exists() else [""]
        cases.extend(
            pytest.param(name, relative, index, id=f"{path.stem}-{index}") for index in range(len(chunks))
        )
    return cases


def _apart(case: ParameterSet) -> ParameterSet:
    """``case``, expected to fail where passviz prints the IR apart from MLIR."""
    why = PRINTS_APART.get(str(case.id))
    if why is None:
        return case
    return pytest.param(*case.values, id=case.id, marks=pytest.mark.xfail(reason=why, strict=True))


def _chunk(relative: str, index: int) -> str:
    return split_chunks(peer_file(relative).read_text())[index]


def _checks(chunk: str) -> str:
    """The chunk's FileCheck directives (the CHECK lines, input lines blanked)."""
    return "\n".join(line if re.match(r"\s*//\s*CHECK", line) else "" for line in chunk.splitlines())


def _iree_opt(text: str, *flags: str) -> str:
    done = subprocess.run([iree_opt(), *flags, "-"], input=text, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(("name", "relative", "index"), [_apart(case) for case in _cases()])
def test_output_passes_the_peer_checks(name: str, relative: str, index: int) -> None:
    """passviz's own print of its output passes the peer file's CHECK lines."""
    chunk = _chunk(relative, index)
    run = record(chunk, name)
    assert run.trace.status == "ok", run.trace.failed_steps
    filecheck(print_module(run.module), _checks(chunk))


@pytest.mark.parametrize(("name", "relative", "index"), _cases())
def test_output_is_iree_opts(name: str, relative: str, index: int) -> None:
    """iree-opt prints passviz's output as its own (which passes the CHECK lines)."""
    need(iree_opt_missing())
    chunk = _chunk(relative, index)
    # Print as the RUN line does (--mlir-print-local-scope inlines the affine maps the checks name).
    run_line = peer_file(relative).read_text().splitlines()[0]
    flags = [flag for flag in ("--mlir-print-local-scope",) if flag in run_line]
    ours = _iree_opt(print_module(record(chunk, name).module), *flags)
    assert ours == _iree_opt(chunk, *flags, f"--{name}")
    filecheck(ours, _checks(chunk))


@pytest.mark.parametrize(("name", "relative", "index"), _cases())
def test_every_rewrite_is_a_named_step_that_replays(name: str, relative: str, index: int) -> None:
    """The rewrites are steps named after IREE's pattern, and the trace replays to the live IR."""
    chunk = _chunk(relative, index)
    run = record(chunk, name, options=RecordOptions(check=True, verify_each="rewrite"))
    assert run.trace.status == "ok", run.trace.failed_steps
    assert any(step.name.startswith(PATTERNS[name]) for step in run.trace.steps)
    replayer = Replayer(run.trace)
    for step_index, step in enumerate(run.trace.steps):
        replayer.advance_to(step_index)
        assert replayer.text() == run.tracer.snapshots[step_index + 1], f"step {step_index} ({step.name})"


def test_conv1x1_leaves_wider_filters_alone() -> None:
    """A 3x3 filter is no matmul: the convolution stays."""
    text = """util.func public @f(%i: tensor<1x6x6x2xf32>, %f: tensor<3x3x2x4xf32>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %f : tensor<1x6x6x2xf32>, tensor<3x3x2x4xf32>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  util.return %0 : tensor<1x4x4x4xf32>
}
"""
    run = record(text, "iree-preprocessing-convert-1x1-filter-conv2d-to-matmul")
    assert "linalg.conv_2d_nhwc_hwcf" in print_module(run.module)
    assert "Convert1x1FilterConvToMatmul" not in {step.name for step in run.trace.steps}


def test_img2col_names_each_rewrite_after_its_iree_pattern() -> None:
    """Each convolution kind is rewritten by its own IREE pattern, one step each."""
    relative = PASSES["iree-global-opt-convert-conv2d-to-img2col"]
    names = [
        [step.name for step in record(chunk, "iree-global-opt-convert-conv2d-to-img2col").trace.steps[1:-1]]
        for chunk in split_chunks(peer_file(relative).read_text())
    ]
    assert names == [
        ["ConvertConv2DNhwcHwcf"],
        ["ConvertDepthwiseConv2DNhwcHwc"],
        ["ConvertConv2DNhwcHwcf"],
        ["ConvertConv2DNchwFchw"],
    ]


def test_img2col_leaves_dynamic_and_dilated_convolutions_alone() -> None:
    """IREE converts static shapes with unit dilations only."""
    text = """func.func @f(%i: tensor<1x?x6x2xf32>, %j: tensor<1x8x8x2xf32>, %f: tensor<3x3x2x4xf32>, %o: tensor<1x4x4x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %f : tensor<1x?x6x2xf32>, tensor<3x3x2x4xf32>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%j, %f : tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %0, %1 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}
"""
    printed = print_module(record(text, "iree-global-opt-convert-conv2d-to-img2col").module)
    assert printed.count("linalg.conv_2d_nhwc_hwcf") == 2
