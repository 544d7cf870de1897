"""IREE's dispatch passes (form dispatch regions, convert them to workgroups, outline
them) on their peer test files: for each input chunk, ``iree-opt`` prints passviz's
output of the file's RUN-line pipeline exactly as it prints its own output of it,
and that print passes the chunk's CHECK lines."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest
from _pytest.mark import ParameterSet
from xdsl.dialects.builtin import ModuleOp

from passviz.compilers.registry import make_context
from passviz.ir.mlir_parser import MLIRParser
from passviz.ir.printer import print_module
from passviz.pipelines import RecordOptions, TraceRun, record
from passviz.recording.replay import Replayer
from tests.conftest import (
    PEER,
    filecheck,
    iree_opt,
    iree_opt_missing,
    need,
    peer_file,
    run_passviz,
    split_chunks,
)
from tests.iree_support import DISPATCH_PASSES, FILES, SEED_MATMUL, run_iree_opt, without_resource_handles

pytestmark = pytest.mark.iree

SKIPS: dict[str, str] = {}
"""Chunks passviz does not make equal to iree-opt's output, and why."""

_PRINT_FLAGS = ("--allow-unregistered-dialect", "--mlir-print-local-scope")
"""RUN-line flags that change how iree-opt reads or prints, not what runs."""


def _run_line(relative: str) -> tuple[list[str], list[str]]:
    """The RUN line's pass flags (``--pass-pipeline=...`` or ``--iree-...``) and its print flags."""
    line = peer_file(relative).read_text().splitlines()[0].removeprefix("// RUN:")
    words = shlex.split(line.split("|")[0])
    passes = [w for w in words if w.startswith("--pass-pipeline=") or re.match(r"--iree-[\w-]+$", w)]
    flags = [w for w in words if w in _PRINT_FLAGS]
    return passes, flags


def passviz_pipeline(passes: list[str]) -> str:
    """The passviz pipeline of a RUN line's passes: MLIR's nesting (``builtin.module(util.func(...))``)
    dropped, since passviz runs every pass on the whole module."""
    if passes[0].startswith("--pass-pipeline="):
        spec = passes[0].removeprefix("--pass-pipeline=")
        spec = re.sub(r"[\w.]+\(", "", spec).replace(")", "")
        return ",".join(name.strip() for name in spec.split(","))
    return ",".join(p.removeprefix("--") for p in passes)


def _cases(skips: dict[str, str] = SKIPS, files: dict[str, str] = FILES) -> list[ParameterSet]:
    """One case per chunk of each of ``files``, skipped where ``skips`` names it."""
    cases: list[ParameterSet] = []
    for stem, relative in files.items():
        path = PEER / relative
        chunks = split_chunks(path.read_text()) if path.exists() else [""]
        for index in range(len(chunks)):
            case_id = f"{stem}-{index}"
            marks = [pytest.mark.skip(reason=skips[case_id])] if case_id in skips else []
            cases.append(pytest.param(relative, index, id=case_id, marks=marks))
    return cases


def _chunk(relative: str, index: int) -> str:
    return split_chunks(peer_file(relative).read_text())[index]


def _checks(chunk: str) -> str:
    """The chunk's FileCheck directives (the CHECK lines, input lines blanked)."""
    return "\n".join(line if re.match(r"\s*//\s*CHECK", line) else "" for line in chunk.splitlines())


def _record(chunk: str, pipeline: str, flags: list[str], options: RecordOptions | None = None) -> TraceRun:
    """passviz's run of ``pipeline`` on ``chunk``, reading unknown ops where the RUN line lets iree-opt."""
    allow = "--allow-unregistered-dialect" in flags
    source: str | ModuleOp = (
        MLIRParser(make_context(allow_unregistered=True), chunk).parse_module() if allow else chunk
    )
    return record(source, pipeline, options=options or RecordOptions())


@pytest.mark.parametrize(("relative", "index"), _cases())
def test_output_is_iree_opts(relative: str, index: int) -> None:
    """iree-opt prints passviz's output of the RUN line's passes as its own, and it passes the CHECK lines."""
    need(iree_opt_missing())
    chunk = _chunk(relative, index)
    passes, flags = _run_line(relative)
    run = _record(chunk, passviz_pipeline(passes), flags)
    assert run.trace.status == "ok", run.trace.failed_steps
    ours = run_iree_opt(print_module(run.module), *flags)
    assert ours == run_iree_opt(chunk, *flags, *passes)
    filecheck(ours, _checks(chunk))


@pytest.mark.parametrize(("relative", "index"), _cases({}))
def test_every_step_replays(relative: str, index: int) -> None:
    """The trace replays to the live IR at every step, verifying after every rewrite."""
    chunk = _chunk(relative, index)
    passes, flags = _run_line(relative)
    run = _record(chunk, passviz_pipeline(passes), flags, RecordOptions(check=True, verify_each="rewrite"))
    assert run.trace.status == "ok", run.trace.failed_steps
    replayer = Replayer(run.trace)
    for step_index, step in enumerate(run.trace.steps):
        replayer.advance_to(step_index)
        assert replayer.text() == run.tracer.snapshots[step_index + 1], f"step {step_index} ({step.name})"


def test_run_lines_map_to_passviz_pipelines() -> None:
    """The RUN lines' nested pipelines flatten to passviz's pass lists."""
    passes, _ = _run_line(FILES["dispatch_linalg_on_tensors_default"])
    assert passviz_pipeline(passes) == (
        "iree-dispatch-creation-form-dispatch-regions,iree-dispatch-creation-clone-producers-into-dispatch-regions,"
        "iree-dispatch-creation-convert-dispatch-regions-to-workgroups,cse,iree-flow-canonicalize,cse"
    )


def test_workgroups_steps_list_the_dispatch_members() -> None:
    """Each conversion is one step whose dispatch field holds the workgroups op and its body's ops."""
    chunk = _chunk(FILES["convert_region_to_workgroups"], 0)
    run = record(chunk, "iree-dispatch-creation-convert-dispatch-regions-to-workgroups")
    steps = [s for s in run.trace.steps if s.name == "ConvertDispatchRegionToWorkgroups"]
    assert len(steps) == 2
    last = steps[-1].dispatch
    assert last is not None and len(last) == 2
    # The second workgroups op holds two loads, the empty, fill, matmul, the store (and its constant).
    assert len(last[1]) == 1 + 7


def test_steps_name_the_step_that_fuses_the_bias_add(tmp_path: Path) -> None:
    """passviz steps names the decision that puts the bias-add into the matmul's dispatch,
    and the region formed then holds both."""
    source = tmp_path / "seed.mlir"
    source.write_text(SEED_MATMUL)
    trace = tmp_path / "seed.trace"
    done = run_passviz("trace", str(source), "-p", ",".join(DISPATCH_PASSES[:3]), "-o", str(trace))
    assert done.returncode == 0, done.stderr
    steps = run_passviz("steps", str(trace))
    assert steps.returncode == 0, steps.stderr
    fused = [line for line in steps.stdout.splitlines() if "FuseWithConsumer" in line]
    assert len(fused) == 1
    assert "linalg.generic joins dispatch 0 of linalg.matmul" in fused[0]
    run = record(SEED_MATMUL, DISPATCH_PASSES[0])
    moved = [s for s in run.trace.steps if s.name is not None and s.name.startswith("MoveIntoDispatchRegion")]
    assert len(moved) == 1 and moved[0].dispatch is not None
    (region,) = moved[0].dispatch
    assert len(region) == 3  # the region, the matmul, the bias-add


def test_a_refused_fusion_says_why() -> None:
    """The quantized depthwise convolution keeps its truncating consumer out, and the step says why."""
    chunk = _chunk(FILES["dispatch_linalg_on_tensors_default"], 0)
    names = [s.name or "" for s in record(chunk, DISPATCH_PASSES[0]).trace.steps]
    refused = [n for n in names if n.startswith("NoFusion: linalg.generic")]
    assert refused == [
        "NoFusion: linalg.generic stays out of dispatch 0 (the convolution's result could not reuse"
        " the consumer's init buffer (a stack allocation))"
    ]
    assert "Root: linalg.generic opens dispatch 1 (a linalg op no dispatch took)" in names


def test_seed_matmul_dispatch_passes_are_iree_opts() -> None:
    """The seed's model through the dispatch passes ends with iree-opt's executable and dispatch."""
    need(iree_opt_missing())
    run = record(SEED_MATMUL, ",".join(DISPATCH_PASSES))
    assert run.trace.status == "ok", run.trace.failed_steps
    nested = "util.func(" + ",".join(DISPATCH_PASSES[:3]) + ")," + ",".join(DISPATCH_PASSES[3:])
    ours = run_iree_opt(print_module(run.module))
    assert ours == run_iree_opt(SEED_MATMUL, f"--pass-pipeline=builtin.module({nested})")
    assert "flow.executable private @test_dispatch_0" in ours


OTHER_INPUTS = {
    "elementwise_op_fusion": "iree/compiler/src/iree/compiler/DispatchCreation/test/elementwise_op_fusion.mlir",
    "fuse_multiuse_elementwise_producer": (
        "iree/compiler/src/iree/compiler/DispatchCreation/test/fuse_multiuse_elementwise_producer.mlir"
    ),
    "conv1x1_to_matmul": "iree/compiler/src/iree/compiler/Preprocessing/Common/test/conv1x1_to_matmul.mlir",
}
"""Other peer files whose inputs make good dispatch-formation cases (their own passes aside)."""

OTHER_APART: dict[str, str] = {}
"""Inputs where passviz's dispatch passes differ from iree-opt's, and why."""


@pytest.mark.parametrize(("relative", "index"), _cases(OTHER_APART, OTHER_INPUTS))
def test_dispatch_passes_on_other_peer_inputs_are_iree_opts(relative: str, index: int) -> None:
    """The dispatch half of the pipeline on other peer inputs ends as iree-opt's does."""
    need(iree_opt_missing())
    chunk = _chunk(relative, index)
    nested = "util.func(" + ",".join(DISPATCH_PASSES[:3]) + ")," + ",".join(DISPATCH_PASSES[3:])
    done = subprocess.run(
        [iree_opt(), f"--pass-pipeline=builtin.module({nested})", "-"],
        input=chunk,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        pytest.skip(f"iree-opt itself fails here: {lines[0] if lines else done.returncode}")
    if "util.func" not in chunk:
        pytest.skip("the RUN nesting anchors the passes on util.func; this input has func.func only")
    run = record(chunk, ",".join(DISPATCH_PASSES))
    assert run.trace.status == "ok", run.trace.failed_steps
    # xDSL renames a dense_resource handle an earlier parse in the process declared.
    assert without_resource_handles(run_iree_opt(print_module(run.module))) == without_resource_handles(
        done.stdout
    )


def test_index_tensors_do_not_cross_a_dispatch_boundary() -> None:
    """A region passing a tensor of index fails to convert, as IREE's verifier refuses the workgroups op."""
    chunk = _chunk(OTHER_INPUTS["elementwise_op_fusion"], 13)
    run = record(chunk, ",".join(DISPATCH_PASSES[:3]))
    assert run.trace.status == "failed"
    (failed,) = run.trace.failed_steps
    assert failed.name == "ConvertDispatchRegionToWorkgroups"
    assert failed.flag is not None
    assert (
        "I/O type 'tensor<100xindex>' is invalid: index types must not cross the dispatch boundary"
        in (failed.flag["message"])
    )


SCF_LOOP = """util.func public @loop(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %n: index) -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %f) -> (tensor<4x4xf32>) {
    %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
    ^bb0(%x: f32, %y: f32):
      %z = arith.mulf %x, %x : f32
      linalg.yield %z : f32
    } -> tensor<4x4xf32>
    scf.yield %g : tensor<4x4xf32>
  }
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %z = arith.addf %x, %x : f32
    linalg.yield %z : f32
  } -> tensor<4x4xf32>
  util.return %h : tensor<4x4xf32>
}
"""
"""A matmul + elementwise pair inside an ``scf.for``, and an elementwise op after the loop."""


def test_dispatches_form_inside_scf_loops() -> None:
    """Region formation looks inside scf regions first, as IREE does, and ends as iree-opt does."""
    need(iree_opt_missing())
    run = record(SCF_LOOP, ",".join(DISPATCH_PASSES))
    assert run.trace.status == "ok", run.trace.failed_steps
    roots = [s.name for s in run.trace.steps if s.name is not None and s.name.startswith("Root:")]
    assert roots == [
        "Root: linalg.matmul opens dispatch 0 (a named linalg op)",
        "Root: linalg.generic opens dispatch 1 (a linalg op no dispatch took)",
    ]
    nested = "util.func(" + ",".join(DISPATCH_PASSES[:3]) + ")," + ",".join(DISPATCH_PASSES[3:])
    assert run_iree_opt(print_module(run.module)) == run_iree_opt(
        SCF_LOOP, f"--pass-pipeline=builtin.module({nested})"
    )


FORM_ALONE = {
    "dead_consumer_still_blocks_fusion": """util.func @f(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %dead = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %z = arith.mulf %x, %x : f32
    linalg.yield %z : f32
  } -> tensor<4x4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %z = arith.addf %x, %x : f32
    linalg.yield %z : f32
  } -> tensor<4x4xf32>
  util.return %g : tensor<4x4xf32>
}
""",
    "constants_hoisted_out_of_bodies": """util.func @f(%arg0 : tensor<4x8xf32>, %arg1 : tensor<8x4xf32>, %i: index) -> (tensor<4x4xf32>, index) {
  %empty = tensor.empty() : tensor<4x4xf32>
  %cst = arith.constant 0.0 : f32
  %fill = linalg.fill ins(%cst : f32) outs(%empty : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8x4xf32>) outs(%fill : tensor<4x4xf32>) -> tensor<4x4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x4xf32>) outs(%empty : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.addf %a, %one : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %x = arith.addi %i, %c1 : index
  %y = arith.addi %x, %c2 : index
  util.return %g, %y : tensor<4x4xf32>, index
}
""",
}
"""Cases that show when the pass's cleanup runs: after the regions are formed (a dead consumer
still keeps the matmul from fusing, then its region goes), hoisting the bodies' constants too."""


@pytest.mark.parametrize("name", sorted(FORM_ALONE))
def test_form_dispatch_regions_alone_is_iree_opts(name: str) -> None:
    """Form dispatch regions alone ends as iree-opt's does."""
    need(iree_opt_missing())
    text = FORM_ALONE[name]
    run = record(text, DISPATCH_PASSES[0])
    assert run.trace.status == "ok", run.trace.failed_steps
    pipeline = f"--pass-pipeline=builtin.module(util.func({DISPATCH_PASSES[0]}))"
    assert run_iree_opt(print_module(run.module)) == run_iree_opt(text, pipeline)


_CLONE = "iree-dispatch-creation-clone-producers-into-dispatch-regions"

CLONE_ALONE = {
    "dead_after_cloning": """util.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %cst = arith.constant 1.0 : f32
  %unused = arith.constant 2.0 : f32
  %e0 = tensor.empty() : tensor<8xf32>
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = flow.dispatch.region -> (tensor<4xf32>) {
    %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%f : tensor<4xf32>) {
    ^bb0(%x: f32, %o: f32):
      %s = arith.addf %x, %o : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    flow.return %g : tensor<4xf32>
  }
  util.return %r : tensor<4xf32>
}
""",
    "generic_left_outside": """util.func @f(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %r = flow.dispatch.region -> (tensor<4xf32>) {
    flow.return %a : tensor<4xf32>
  }
  util.return %g, %r : tensor<4xf32>, tensor<4xf32>
}
""",
}
"""Clone producers alone: the ops its first cloning leaves dead go, dead ones from before
too; a generic outside every dispatch gets its own, and the empty tensor its second cloning
leaves dead stays, as in IREE 3.13."""


@pytest.mark.parametrize("name", sorted(CLONE_ALONE))
def test_clone_producers_alone_is_iree_opts(name: str) -> None:
    """Clone producers into dispatch regions alone ends as iree-opt's does."""
    text = CLONE_ALONE[name]
    run = record(text, _CLONE, options=RecordOptions(check=True))
    assert run.trace.status == "ok", run.trace.failed_steps
    names = [step.name for step in run.trace.steps]
    if name == "dead_after_cloning":
        assert names.count("erase-dead-op") == 5  # the fill, both empties, both constants
    else:
        assert "WrapInDispatchRegion: a generic no dispatch took" in names
    need(iree_opt_missing())
    pipeline = f"--pass-pipeline=builtin.module(util.func({_CLONE}))"
    assert run_iree_opt(print_module(run.module)) == run_iree_opt(text, pipeline)


def test_seed_matmul_through_clone_producers_is_iree_opts() -> None:
    """The seed's model through form dispatch regions and clone producers, with nothing after,
    leaves no dead fill, empty tensor or constant in the function, as iree-opt does."""
    need(iree_opt_missing())
    passes = DISPATCH_PASSES[:2]
    assert passes[1] == _CLONE
    run = record(SEED_MATMUL, ",".join(passes))
    assert run.trace.status == "ok", run.trace.failed_steps
    expected = run_iree_opt(SEED_MATMUL, f"--pass-pipeline=builtin.module(util.func({','.join(passes)}))")
    assert run_iree_opt(print_module(run.module)) == expected


def test_pad_joins_its_producers_dispatch() -> None:
    """form-dispatch-regions{fuse-pad-with-producers}: the pad of pad_fusion_with_producer.mlir
    joins the convolution's dispatch as its consumer, and the region's result sizes are the
    padded ones (an affine.apply each)."""
    relative = FILES["pad_fusion_with_producer"]
    chunk = _chunk(relative, 0)
    pipeline = "iree-dispatch-creation-form-dispatch-regions{fuse-pad-with-producers}"
    run = record(chunk, pipeline)
    assert run.trace.status == "ok", run.trace.failed_steps
    names = [step.name for step in run.trace.steps]
    assert "FuseWithConsumer: tensor.pad joins dispatch 0 of linalg.generic, and roots it" in names
    text = print_module(run.module)
    assert text.count("affine.apply") == 4
    filecheck(text, _checks(chunk))


def test_consumer_fusion_leaves_the_index_constants_last_first() -> None:
    """IREE wraps the convolution first, its consumer still outside, so it sizes the result by
    its init, a function argument: four ``tensor.dim``s with their constants at the function's
    top, each constant then hoisted in front of the last by the cleanup's folder."""
    run = record(_chunk(FILES["pad_fusion_with_producer"], 0), "iree-dispatch-creation-form-dispatch-regions")
    assert run.trace.status == "ok", run.trace.failed_steps
    constants = re.findall(r"(%c\d) = arith.constant \d : index", print_module(run.module))
    assert constants == ["%c3", "%c2", "%c1", "%c0"]
