"""IREE's Flow-pipeline passes, each checked on its peer test file: passviz's output
satisfies the file's CHECK lines, and ``iree-opt`` prints it exactly as it prints its own
output of the file's pass."""

from __future__ import annotations

import re

import pytest
from _pytest.mark import ParameterSet

from passviz.ir.printer import print_module
from passviz.pipelines import RecordOptions, record
from passviz.recording.replay import Replayer
from tests.conftest import PEER, filecheck, iree_opt_missing, need, peer_file, split_chunks
from tests.iree_support import (
    PASSES,
    SEED_DETACH,
    SEED_EXAMPLES,
    SEED_PASSES,
    run_iree_opt,
    without_resource_handles,
)

pytestmark = pytest.mark.iree

PATTERNS = {
    "iree-preprocessing-convert-1x1-filter-conv2d-to-matmul": "Convert1x1FilterConvToMatmul",
    "iree-global-opt-convert-conv2d-to-img2col": "ConvertConv2D",
    "iree-dispatch-creation-elementwise-op-fusion": "",
    "iree-dispatch-creation-fuse-multi-use-elementwise-producer": "",
}
"""How the IREE patterns whose rewrites each pass records are named (a prefix)."""

PRINTS_APART = {
    **{
        f"conv2d_to_img2col-{index}": "passviz prints affine maps inline; the checks want MLIR's #map aliases"
        for index in range(4)
    },
    **{
        f"fuse_multiuse_elementwise_producer-{index}": (
            "passviz prints a multi-result op's results one by one (%0, %1, %2 = ...); "
            "the checks want MLIR's %0:3"
        )
        for index in (0, 2)
    },
}
"""Cases whose CHECK lines passviz's own print misses, and why (iree-opt's print of it passes them)."""


NEWER_THAN_3_13 = (
    "written for an IREE newer than 3.13: iree-opt 3.13 cannot parse its iree_linalg_ext.attention "
    "(properties dictionary is missing required attribute: indexing_maps)"
)

SKIP = {f"elementwise_op_fusion-{index}": NEWER_THAN_3_13 for index in (0, 1, 5, 6, 7, 8, 9, 10)}
"""Cases no IREE 3.13 output exists for, and why."""

DIFFERS: dict[str, str] = {}
"""Cases where passviz's output is not iree-opt's yet, and why."""


def _cases(*, against_iree: bool = False) -> list[ParameterSet]:
    """Every chunk of every pass's peer file; ``against_iree`` marks the cases that differ from iree-opt."""
    cases: list[ParameterSet] = []
    for name, relative in PASSES.items():
        path = PEER / relative
        chunks = split_chunks(path.read_text()) if path.exists() else [""]
        for index in range(len(chunks)):
            case_id = f"{path.stem}-{index}"
            marks: list[pytest.MarkDecorator] = []
            if case_id in SKIP:
                marks.append(pytest.mark.skip(reason=SKIP[case_id]))
            elif against_iree and case_id in DIFFERS:
                marks.append(pytest.mark.xfail(reason=DIFFERS[case_id], strict=True))
            cases.append(pytest.param(name, relative, index, id=case_id, marks=marks))
    return cases


def _apart(case: ParameterSet) -> ParameterSet:
    """``case``, expected to fail where passviz prints the IR apart from MLIR."""
    why = PRINTS_APART.get(str(case.id))
    if why is None:
        return case
    return pytest.param(
        *case.values, id=case.id, marks=[*case.marks, pytest.mark.xfail(reason=why, strict=True)]
    )


def _chunk(relative: str, index: int) -> str:
    return split_chunks(peer_file(relative).read_text())[index]


def _checks(chunk: str) -> str:
    """The chunk's FileCheck directives (the CHECK lines, input lines blanked)."""
    return "\n".join(line if re.match(r"\s*//\s*CHECK", line) else "" for line in chunk.splitlines())


def _pass_flag(name: str, run_line: str) -> str:
    """How the RUN line runs the pass: its ``--pass-pipeline`` (a function pass nests in
    ``util.func``), else ``--name``."""
    pipeline = re.search(r'--pass-pipeline="([^"]+)"', run_line)
    return f"--pass-pipeline={pipeline.group(1)}" if pipeline else f"--{name}"


@pytest.mark.parametrize(("name", "relative", "index"), [_apart(case) for case in _cases()])
def test_output_passes_the_peer_checks(name: str, relative: str, index: int) -> None:
    """passviz's own print of its output passes the peer file's CHECK lines."""
    chunk = _chunk(relative, index)
    run = record(chunk, name)
    assert run.trace.status == "ok", run.trace.failed_steps
    filecheck(print_module(run.module), _checks(chunk))


@pytest.mark.parametrize(("name", "relative", "index"), _cases(against_iree=True))
def test_output_is_iree_opts(name: str, relative: str, index: int) -> None:
    """iree-opt prints passviz's output as its own (which passes the CHECK lines)."""
    need(iree_opt_missing())
    chunk = _chunk(relative, index)
    # Print as the RUN line does (--mlir-print-local-scope inlines the affine maps the checks name).
    run_line = peer_file(relative).read_text().splitlines()[0]
    flags = [flag for flag in ("--mlir-print-local-scope",) if flag in run_line]
    ours = run_iree_opt(print_module(record(chunk, name).module), *flags)
    expected = run_iree_opt(chunk, *flags, _pass_flag(name, run_line))
    assert without_resource_handles(ours) == without_resource_handles(expected)
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
        replayed, live = replayer.text(), run.tracer.snapshots[step_index + 1]
        assert without_resource_handles(replayed) == without_resource_handles(live), step.name


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


DETACH = "iree-global-opt-detach-elementwise-from-named-ops"

DETACH_CASES = {
    "seed_conv_with_generic_init": SEED_DETACH,
    "matmul_with_bias_broadcast_init": """util.func public @bias_matmul(%a: tensor<?x16xf32>, %b: tensor<16x?xf32>, %bias: tensor<?xf32>, %m: index, %n: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<?x?xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x?xf32>) outs(%0 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %2 = arith.constant 0 : index
  util.return %1 : tensor<?x?xf32>
}
""",
    "batch_matmul_i32": """util.func public @batched(%a: tensor<4x8x16xi32>, %b: tensor<4x16x8xi32>, %c: tensor<4x8x8xi32>) -> tensor<4x8x8xi32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : tensor<4x8x8xi32>) outs(%c : tensor<4x8x8xi32>) {
  ^bb0(%x: i32, %y: i32):
    %s = arith.muli %x, %x : i32
    linalg.yield %s : i32
  } -> tensor<4x8x8xi32>
  %1 = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xi32>, tensor<4x16x8xi32>) outs(%0 : tensor<4x8x8xi32>) -> tensor<4x8x8xi32>
  util.return %1 : tensor<4x8x8xi32>
}
""",
    "fill_and_argument_inits_stay": """util.func public @keep(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %c: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%c : tensor<2x2xf32>) -> tensor<2x2xf32>
  util.return %0, %1 : tensor<2x2xf32>, tensor<2x2xf32>
}
""",
    "constant_inits": """util.func public @constants(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %cst = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %splat = arith.constant dense<5.0> : tensor<2x2xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>) outs(%cst : tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x2xf32>) outs(%splat : tensor<2x2xf32>) {
  ^bb0(%p: f32, %q: f32):
    %s = arith.maximumf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  util.return %0, %1 : tensor<2x2xf32>, tensor<2x2xf32>
}
""",
    "img2col_batched_generic": """util.func public @batch_generic(%a: tensor<8x196x36xf32>, %b: tensor<36x16xf32>, %c: tensor<8x196x16xf32>) -> tensor<8x196x16xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : tensor<8x196x16xf32>) outs(%c : tensor<8x196x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<8x196x16xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<8x196x36xf32>, tensor<36x16xf32>) outs(%0 : tensor<8x196x16xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %3 = arith.mulf %in, %in_2 : f32
    %4 = arith.addf %3, %out : f32
    linalg.yield %4 : f32
  } -> tensor<8x196x16xf32>
  util.return %1 : tensor<8x196x16xf32>
}
""",
}
"""Inputs for detach-elementwise, which has no peer file: the seed's example in IREE 3.13
syntax (``tensor.empty`` for ``linalg.init_tensor``), and one case per branch of IREE's patterns."""

DETACH_STEPS = {
    "seed_conv_with_generic_init": ["DetachElementwisePattern"],
    "matmul_with_bias_broadcast_init": ["DetachElementwisePattern"],
    "batch_matmul_i32": ["DetachElementwisePattern"],
    "fill_and_argument_inits_stay": [],
    "constant_inits": ["DetachSplatConstantOutsOperands", "DetachElementwisePattern"],
    "img2col_batched_generic": ["DetachElementwisePattern"],
}
"""The IREE pattern steps each case records, in order."""


@pytest.mark.parametrize("case", sorted(DETACH_CASES))
def test_detach_is_iree_opts(case: str) -> None:
    need(iree_opt_missing())
    text = DETACH_CASES[case]
    ours = run_iree_opt(print_module(record(text, DETACH).module))
    assert ours == run_iree_opt(text, f"--{DETACH}")


@pytest.mark.parametrize("case", sorted(DETACH_CASES))
def test_detach_steps_are_irees_patterns_and_replay(case: str) -> None:
    run = record(DETACH_CASES[case], DETACH, options=RecordOptions(check=True, verify_each="rewrite"))
    assert run.trace.status == "ok", run.trace.failed_steps
    patterns = [
        step.name
        for step in run.trace.steps
        if step.name.startswith("Detach") and step.name != "DetachElementwiseFromNamedOps"
    ]
    assert patterns == DETACH_STEPS[case]
    replayer = Replayer(run.trace)
    for step_index, step in enumerate(run.trace.steps):
        replayer.advance_to(step_index)
        assert replayer.text() == run.tracer.snapshots[step_index + 1], f"step {step_index} ({step.name})"


def test_detach_gives_the_seeds_conv_a_zero_fill_and_adds_the_old_init_after() -> None:
    """The seed's example: the conv accumulates into a fresh zero fill, and a generic adds
    the generic that used to be its init to the conv's result."""
    module = record(DETACH_CASES["seed_conv_with_generic_init"], DETACH).module
    printed = print_module(module)
    conv = re.search(r"(%\w+) = linalg\.conv_2d_nhwc_hwcf .*outs\((%\w+) :", printed)
    assert conv is not None
    result, init = conv.groups()
    assert re.search(rf"{init} = linalg\.fill ins\(%\w+ : f32\)", printed)
    add = re.search(rf"linalg\.generic .*ins\({result}, (%\w+) : .*outs\({init} :", printed)
    assert add is not None
    assert re.search(rf"{add.group(1)} = linalg\.generic", printed)


FUSION = "iree-dispatch-creation-elementwise-op-fusion"

TWO_USERS = """util.func public @f(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.exp %x : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  util.return %1, %2 : tensor<8xf32>, tensor<8xf32>
}
"""


def test_fusion_refuses_a_producer_with_two_users_and_says_why() -> None:
    """IREE's control function keeps a multi-use add out of both consumers (the
    multi-use pass handles it); the refusal names the reason."""
    from passviz.compilers.iree.passes.elementwise_op_fusion import fusion_refusal
    from passviz.compilers.mlir.dialects.linalg import GenericOp

    run = record(TWO_USERS, FUSION)
    assert not any(step.name == "FuseElementwiseOps" for step in run.trace.steps)
    refused = [step for step in run.trace.steps if step.name.startswith("NoFusion")]
    assert [step.name for step in refused] == [
        "NoFusion: linalg.generic (arith.addf) stays out of input 0 of linalg.generic (math.exp) "
        "(the producer has other users)",
        "NoFusion: linalg.generic (arith.addf) stays out of input 0 of linalg.generic (arith.mulf) "
        "(the producer has other users)",
    ]
    assert refused[0].root == refused[1].root is not None  # both rooted at the add
    generics = [op for op in run.module.walk() if isinstance(op, GenericOp)]
    assert len(generics) == 3
    producer, consumer = generics[0], generics[1]
    assert fusion_refusal(producer, consumer, 0) == "the producer has other users"
    if iree_opt_missing() is None:
        assert run_iree_opt(print_module(run.module)) == run_iree_opt(TWO_USERS, f"--{FUSION}")


def test_fusion_steps_name_the_transposes_fused_into_the_matmul() -> None:
    """transpose_matmul: both transposes fuse into the matmul-like generic, one step each."""
    chunk = _chunk(PASSES[FUSION], 2)
    names = [step.name for step in record(chunk, FUSION).trace.steps]
    assert names.count("FuseElementwiseOps") == 2


SEED_STEPS = {
    "conv1x1": ["Convert1x1FilterConvToMatmul"],
    "img2col": ["ConvertConv2DNhwcHwcf"],
    "matmul_bias": [],
    # img2col runs first: the matmul it makes accumulates into a collapse_shape, which
    # DetachElementwisePattern leaves alone (iree-opt agrees).
    "detach": ["ConvertConv2DNhwcHwcf", "RemoveOutsDependency"],
}
"""The IREE patterns that fire on each example along the seed's passes, in order."""


@pytest.mark.parametrize("example", sorted(SEED_EXAMPLES))
def test_seed_examples_along_the_seed_passes(example: str) -> None:
    """Each of the seed's examples through the seed's passes in order: the patterns that
    fire, and (with iree-opt) the same module as iree-opt running the same passes."""
    text = SEED_EXAMPLES[example]
    run = record(text, ",".join(SEED_PASSES))
    assert run.trace.status == "ok", run.trace.failed_steps
    assert [step.name for step in run.trace.steps if step.kind == "rewrite" and step.name[0].isupper()] == (
        SEED_STEPS[example]
    )
    if iree_opt_missing() is not None:
        return
    nested = ",".join(SEED_PASSES[:3]) + ",func.func(" + ",".join(SEED_PASSES[3:]) + ")"
    assert run_iree_opt(print_module(run.module)) == run_iree_opt(
        text, f"--pass-pipeline=builtin.module({nested})"
    )


SPLIT = "iree-dispatch-creation-split-reduction-ops"

ARGMAX = """util.func public @argmax(%arg0: tensor<1x131072xf32>) -> tensor<1xi64> {
  %cst = arith.constant 0xFF800000 : f32
  %c0_i64 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<1xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1xf32>) -> tensor<1xf32>
  %2 = tensor.empty() : tensor<1xi64>
  %3 = linalg.fill ins(%c0_i64 : i64) outs(%2 : tensor<1xi64>) -> tensor<1xi64>
  %4:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<1x131072xf32>) outs(%1, %3 : tensor<1xf32>, tensor<1xi64>) {
  ^bb0(%in: f32, %out: f32, %out_0: i64):
    %5 = linalg.index 1 : index
    %6 = arith.index_cast %5 : index to i64
    %7 = arith.maximumf %in, %out : f32
    %8 = arith.cmpf ogt, %in, %out : f32
    %9 = arith.select %8, %6, %out_0 : i64
    linalg.yield %7, %9 : f32, i64
  } -> (tensor<1xf32>, tensor<1xi64>)
  util.return %4#1 : tensor<1xi64>
}
"""


def test_split_reduction_leaves_short_reductions_and_matmuls_as_iree_does() -> None:
    """With IREE's defaults nothing but a long argmax is split: a 1000-long argmax and the
    seed's examples come out unchanged, as from iree-opt."""
    short = ARGMAX.replace("131072", "1000")
    for text in (short, *SEED_EXAMPLES.values()):
        run = record(text, SPLIT)
        assert run.trace.status == "ok", run.trace.failed_steps
        assert all(step.kind != "rewrite" for step in run.trace.steps)
        if iree_opt_missing() is None:
            split = f"--pass-pipeline=builtin.module(func.func({SPLIT}), util.func({SPLIT}))"
            assert run_iree_opt(print_module(run.module)) == run_iree_opt(text, split)


def test_split_reduction_says_it_does_not_model_a_long_argmax() -> None:
    """iree-opt splits a 128 Ki argmax; passviz stops with a one-line reason instead."""
    run = record(ARGMAX, SPLIT)
    assert run.trace.status == "failed"
    message = run.trace.failed_steps[0].flag["message"]
    assert "splitArgmaxReduction" in message and "\n" not in message


INDEX_PRODUCER = """util.func public @f(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %s = arith.addf %x, %f : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<4x8xf32>) outs(%e2 : tensor<8x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = math.exp %x : f32
    linalg.yield %m : f32
  } -> tensor<8x4xf32>
  util.return %1 : tensor<8x4xf32>
}
"""


def test_fusion_maps_a_producers_linalg_index_to_the_fused_loop() -> None:
    """The producer reads ``linalg.index 1``; fused into a transposing consumer it reads the
    consumer's loop 0, as MLIR's folded ``affine.apply`` gives."""
    run = record(INDEX_PRODUCER, FUSION)
    printed = print_module(run.module)
    assert printed.count("linalg.generic") == 1 and "linalg.index 0" in printed
    if iree_opt_missing() is None:
        pipeline = f"--pass-pipeline=builtin.module(util.func({FUSION}))"
        assert run_iree_opt(printed) == run_iree_opt(INDEX_PRODUCER, pipeline)


CASTS = """util.func @casts(%a: f16, %b: bf16, %x: f32, %i: i32) -> (f16, bf16, f32, f32, i32, f32) {
  %0 = arith.extf %a : f16 to f32
  %1 = arith.truncf %0 : f32 to f16
  %2 = arith.extf %b : bf16 to f64
  %3 = arith.truncf %2 : f64 to bf16
  %4 = arith.truncf %x fastmath<contract> : f32 to f16
  %5 = arith.extf %4 fastmath<contract> : f16 to f32
  %c0 = arith.constant 0 : i32
  %6 = arith.divui %c0, %i : i32
  %z = arith.constant 0.0 : f32
  %7 = arith.mulf %x, %z fastmath<nnan,nsz> : f32
  %8 = arith.extf %a : f16 to f64
  %9 = arith.truncf %8 : f64 to f32
  util.return %1, %3, %5, %9, %6, %7 : f16, bf16, f32, f32, i32, f32
}
"""


def test_iree_passes_fold_casts_as_iree_3_13s_llvm() -> None:
    """Inside IREE's passes the arith folders are IREE 3.13's LLVM's: truncf(extf(x)) stays,
    extf(truncf(x)) under contract folds, and Triton 3.9's newer folds (0 / x, x * 0 under
    nnan nsz) come; the same module outside them folds as Triton's LLVM (truncf(extf(x)) is x)."""
    from passviz.compilers.mlir.version import iree_llvm
    from passviz.compilers.triton.version import use_triton_version

    ours = print_module(record(CASTS, "iree-flow-canonicalize").module)
    assert ours.count("arith.truncf") == 3 and ours.count("arith.extf") == 3
    assert "arith.divui" not in ours and "arith.mulf" not in ours
    with use_triton_version("3.6"):
        triton = print_module(record(CASTS, "canonicalize").module)
    assert triton.count("arith.truncf") == 1 and "util.return %a, %b, %x," in triton
    assert "arith.divui" in triton  # Triton 3.6's LLVM lacks 0 / x
    assert not iree_llvm()
    if iree_opt_missing() is None:
        assert run_iree_opt(ours) == run_iree_opt(CASTS, "--canonicalize")


TRUNCATION_TWO_USERS = """util.func @f(%a: tensor<8xf32>) -> (tensor<8xf16>, tensor<8xf16>) {
  %e = tensor.empty() : tensor<8xf16>
  %t = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e : tensor<8xf16>) {
  ^bb0(%x: f32, %o: f16):
    %s = arith.truncf %x : f32 to f16
    linalg.yield %s : f16
  } -> tensor<8xf16>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%t : tensor<8xf16>) outs(%e : tensor<8xf16>) {
  ^bb0(%x: f16, %o: f16):
    %s = arith.addf %x, %x : f16
    linalg.yield %s : f16
  } -> tensor<8xf16>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%t : tensor<8xf16>) outs(%e : tensor<8xf16>) {
  ^bb0(%x: f16, %o: f16):
    %s = arith.mulf %x, %x : f16
    linalg.yield %s : f16
  } -> tensor<8xf16>
  util.return %1, %2 : tensor<8xf16>, tensor<8xf16>
}
"""

MULTI_USE = "iree-dispatch-creation-fuse-multi-use-elementwise-producer"


def test_multi_use_fusion_says_why_it_refuses_a_truncation() -> None:
    """A truncation with two users fuses into neither (IREE leaves bit-width changes to
    dispatch formation): one NoFusion step, at its first user, says so; iree-opt agrees."""
    run = record(TRUNCATION_TWO_USERS, MULTI_USE)
    names = [step.name for step in run.trace.steps]
    assert "doMultiUseFusion" not in names
    assert [name for name in names if name.startswith("NoFusion")] == [
        "NoFusion: linalg.generic (arith.truncf) stays out of linalg.generic (arith.addf) "
        "(the producer is a bit truncation)"
    ]
    if iree_opt_missing() is None:
        expected = run_iree_opt(
            TRUNCATION_TWO_USERS, f"--pass-pipeline=builtin.module(util.func({MULTI_USE}))"
        )
        assert run_iree_opt(print_module(run.module)) == expected


UNSTRIDED = """util.func @f(%a: tensor<1x4x4x3xf32>, %b: tensor<2x2x3x4xf32>, %c: tensor<1x3x3x4xf32>, %d: tensor<1x3x4x4xf32>, %e: tensor<4x3x2x2xf32>, %g: tensor<1x4x3x3xf32>) -> (tensor<1x3x3x4xf32>, tensor<1x3x3x4xf32>, tensor<1x4x3x3xf32>) {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%a, %b : tensor<1x4x4x3xf32>, tensor<2x2x3x4xf32>) outs(%c : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  %1 = linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<2xi64>} ins(%a, %b : tensor<1x4x4x3xf32>, tensor<2x2x3x4xf32>) outs(%c : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  %2 = linalg.conv_2d_nchw_fchw ins(%d, %e : tensor<1x3x4x4xf32>, tensor<4x3x2x2xf32>) outs(%g : tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  util.return %0, %1, %2 : tensor<1x3x3x4xf32>, tensor<1x3x3x4xf32>, tensor<1x4x3x3xf32>
}
"""


def test_convolutions_without_strides_or_dilations_default_to_one() -> None:
    """A named convolution may leave out strides and dilations: it prints as read (only the
    attributes given), and img2col treats them as 1, as iree-opt does."""
    from passviz.compilers.mlir.dialects.linalg import Conv2DNhwcHwcfOp

    parsed = record(UNSTRIDED, "cse").module
    printed = print_module(parsed)
    assert printed.count("strides") == 1 and "dilations" not in printed
    conv = next(op for op in parsed.walk() if isinstance(op, Conv2DNhwcHwcfOp))
    assert conv.window_strides() == conv.window_dilations() == (1, 1)
    name = "iree-global-opt-convert-conv2d-to-img2col"
    run = record(UNSTRIDED, name)
    assert run.trace.status == "ok", run.trace.failed_steps
    assert "linalg.conv" not in print_module(run.module)
    if iree_opt_missing() is None:
        assert run_iree_opt(printed) == run_iree_opt(UNSTRIDED)
        expected = run_iree_opt(UNSTRIDED, f"--pass-pipeline=builtin.module(util.func({name}))")
        assert run_iree_opt(print_module(run.module)) == expected


APPLIES = """func.func @f(%a: index, %b: index) -> (index, index, index, index, index) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %0 = affine.apply affine_map<()[s0, s1] -> (s0 + s1 * 20)>()[%a, %c0]
  %1 = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1)>(%c3, %b)
  %2 = affine.apply affine_map<(d0)[s0] -> (d0 + s0)>(%c3)[%c3]
  %3 = affine.apply affine_map<(d0) -> (d0)>(%b)
  %4 = affine.apply affine_map<(d0) -> (d0 + 1)>(%0)
  return %0, %1, %2, %3, %4 : index, index, index, index, index
}
"""


def test_canonicalize_folds_constant_operands_of_affine_apply() -> None:
    """affine.apply takes constant operands into its map and folds a lone operand or an all-constant
    map, as MLIR's SimplifyAffineOp and fold do: s0 + 0 * 20 is s0, so the apply is %a."""
    run = record(APPLIES, "canonicalize")
    assert run.trace.status == "ok", run.trace.failed_steps
    printed = print_module(run.module)
    assert "func.return %a, %1, %0, %b, %2" in printed and printed.count("affine.apply") == 2
    assert "SimplifyAffineApply" in [step.name for step in run.trace.steps]
    if iree_opt_missing() is None:
        assert run_iree_opt(printed) == run_iree_opt(APPLIES, "--canonicalize")
