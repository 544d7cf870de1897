"""The viewer on long real traces, in real headless Chromium, through its inspection API.

The standalone page of each trace is loaded from ``file://`` with every
other request blocked; ``tests/browser/inspect_page.mjs`` runs a plan of
steps, clicks and keys and reports ``window.passvizViewers[0].inspect()``
after each.  At every checked step: the viewer fills the window, the step's
changed nodes lie inside the graph's viewport, no two sibling boxes overlap
and every node lies inside its parent's box.  The traces:

- seed 000 (wrap, then canonicalize; its block-structure checkpoints and
  MultiBlockExecuteInliner);
- a matmul written as a broadcast-multiply-reduce through ``make-ttir``,
  whose ``triton-combine`` step makes its ``tt.dot``;
- Triton's tutorial matmul through ``make-ttir`` (hundreds of steps);
- a 2,000-op module through ``canonicalize,cse`` (thousands of steps).

Screenshots of the key steps go to ``tests/artifacts/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from passviz.trace.model import Trace
from tests import long_traces
from tests.conftest import need
from tests.triton_oracle import triton_missing
from tests.viewer_checks import check_view, drive

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]


def _steps_plan(name: str, steps: list[int]) -> list[dict[str, Any]]:
    plan: list[dict[str, Any]] = []
    for step in steps:
        plan += [{"goto": step}, {"inspect": f"step{step}"}, {"shot": f"{name}-step{step}"}]
    return plan


def _op_alive_and_changed_later(trace: Trace, start: int) -> str:
    """An op that exists at ``start`` and that a later step modifies (so it has lineage links)."""
    created = {info["id"]: s.index for s in trace.steps for info in s.delta.get("ops_created", ())}
    for step in trace.steps[start + 1 :]:
        for change in step.delta.get("ops_modified", ()):
            if created.get(change["id"], -1) <= start:
                return change["id"]
    raise LookupError(f"no op alive at step {start} is modified later")


def _keyboard_plan(trace: Trace, start: int) -> list[dict[str, Any]]:
    """From ``start``: → after clicking the graph, a lineage link and a checkbox."""
    op = _op_alive_and_changed_later(trace, start)
    return [
        {"goto": start},
        {"clickGraph": True},
        {"key": "ArrowRight"},
        {"inspect": "after-graph-click"},
        {"click": f'.pv-line[data-op="{op}"]'},
        {"click": ".pv-details .pv-link"},
        {"inspect": "at-lineage-link"},
        {"key": "ArrowRight"},
        {"inspect": "after-lineage-click"},
        {"click": ".pv-toolbar input[type=checkbox]"},
        {"key": "ArrowLeft"},
        {"inspect": "after-checkbox-click"},
        {"click": ".pv-toolbar input[type=checkbox]"},
    ]


def _filter_plan(query: str) -> list[dict[str, Any]]:
    return [
        {"inspect": "unfiltered"},
        {"check": "hide steps that changed nothing"},
        {"inspect": "changed-only"},
        {"check": "hide steps that changed nothing"},
        {"fill": query},
        {"inspect": "searched"},
        {"click": ".pv-search"},
        {"key": "Escape"},
        {"inspect": "search-cleared"},
    ]


def check_keyboard(results: dict[str, Any], start: int) -> None:
    visible = results["after-graph-click"]["visibleSteps"]
    assert results["after-graph-click"]["step"] == visible[visible.index(start) + 1]
    linked = results["at-lineage-link"]["step"]
    after_link = results["after-lineage-click"]["step"]
    assert after_link == visible[visible.index(linked) + 1]
    assert results["after-checkbox-click"]["step"] == linked


def check_filters(results: dict[str, Any], trace: Trace, query: str) -> None:
    everything = results["unfiltered"]["visibleSteps"]
    assert everything == [-1, *range(len(trace.steps))]
    changed = [s.index for s in trace.steps if s.changed or s.flag is not None]
    assert results["changed-only"]["visibleSteps"] == [-1, *changed]
    found = results["searched"]["visibleSteps"]
    assert len(everything) > len(found) > 1
    assert results["search-cleared"]["visibleSteps"] == everything


def test_seed_000(artifacts: Path) -> None:
    trace = long_traces.seed_trace()
    inliner = long_traces.first_step(trace, name="MultiBlockExecuteInliner")
    checkpoints = [
        long_traces.first_step(trace, name=n) for n in ("new entry block", "blocks spliced in", "yield block")
    ]
    steps = [-1, *checkpoints, inliner, len(trace.steps) - 1]
    results = drive(
        trace,
        "seed000",
        [*_steps_plan("seed000", steps), *_keyboard_plan(trace, 2), *_filter_plan("simplify")],
        artifacts,
    )
    for step in steps:
        check_view(results[f"step{step}"], step)
        text = results[f"step{step}"]["irText"]
        assert "tt.func @wrap_multi_block_triton_func(" in text
        assert '"tt.func"()' not in text and '"builtin.module"()' not in text
    # The last step changes nothing and the module has shrunk to a few nodes: all of it is in view.
    final = results[f"step{len(trace.steps) - 1}"]
    view = final["viewport"]
    assert all(
        view["x"] <= n["box"]["x"]
        and view["y"] <= n["box"]["y"]
        and n["box"]["x"] + n["box"]["w"] <= view["x"] + view["w"]
        and n["box"]["y"] + n["box"]["h"] <= view["y"] + view["h"]
        for n in final["nodes"]
    )
    at_inliner = results[f"step{inliner}"]
    assert any(n["status"] == "erased" and n["label"] == "scf.execute_region" for n in at_inliner["nodes"])
    check_keyboard(results, 2)
    check_filters(results, trace, "simplify")


def test_matmul_tt_dot_step(artifacts: Path, tmp_path: Path) -> None:
    need(triton_missing())
    trace = long_traces.dot_trace(tmp_path)
    dot = long_traces.first_step(trace, creates="tt.dot")
    assert trace.steps[dot].name == "CombineBroadcastMulReducePattern"
    steps = [-1, dot, len(trace.steps) - 1]
    assert trace.initial is not None
    # the broadcast product the pattern folds into the tt.dot, located in the kernel's own file
    product = next(
        i["id"]
        for i in trace.initial["delta"]["ops_created"]
        if i["name"] == "arith.mulf" and "matmul_by_sum.py" in i.get("loc", "")
    )
    source = [
        {"goto": dot - 1},
        {"click": f'.pv-line[data-op="{product}"]'},
        {"text": ".pv-source-current", "as": "source-line"},
        {"text": ".pv-source-files", "as": "source-files"},
        {"shot": "matmul-by-sum-source"},
    ]
    results = drive(
        trace,
        "matmul-by-sum",
        [*_steps_plan("matmul-by-sum", steps), *source, *_filter_plan("tt.dot")],
        artifacts,
    )
    # the product is located where the kernel's source multiplies and reduces
    assert "tl.sum(a[:, :, None] * b[None, :, :], axis=1)" in results["source-line"]
    # the page says which files it carries: the kernel's own, nothing else
    assert results["source-files"] == "this trace carries 1 source file:matmul_by_sum.py"
    for step in steps:
        check_view(results[f"step{step}"], step)
        text = results[f"step{step}"]["irText"]
        assert "tt.func public @matmul_by_sum(" in text and '"tt.func"()' not in text
    seen = results[f"step{dot}"]
    dots = [n for n in seen["nodes"] if "tt.dot" in n["label"]]
    assert [n["status"] for n in dots] == ["added"]
    assert dots[0]["box"]["h"] >= 20, "the new tt.dot is drawn at a legible zoom"
    assert dot in results["searched"]["visibleSteps"]
    check_filters(results, trace, "tt.dot")


def test_tutorial_matmul(artifacts: Path) -> None:
    need(triton_missing())
    trace = long_traces.matmul_trace()
    assert len(trace.steps) > 250
    middle = next(s.index for s in trace.steps[len(trace.steps) // 2 :] if s.delta.get("ops_erased"))
    steps = [-1, 5, middle, len(trace.steps) - 1]
    results = drive(
        trace, "matmul", [*_steps_plan("matmul", steps), *_keyboard_plan(trace, middle)], artifacts
    )
    for step in steps:
        check_view(results[f"step{step}"], step)
        assert "tt.func public @matmul_kernel(" in results[f"step{step}"]["irText"]
    check_keyboard(results, middle)


@pytest.mark.slow
def test_two_thousand_op_module(artifacts: Path) -> None:
    trace = long_traces.big_trace(2000)
    assert len(trace.steps) > 2000
    erases = [s.index for s in trace.steps if s.delta.get("ops_erased")]
    middle = erases[len(erases) // 2]
    steps = [-1, 1, middle, len(trace.steps) - 2]
    results = drive(trace, "big2000", [*_steps_plan("big2000", steps), *_filter_plan("cse")], artifacts)
    for step in steps:
        check_view(results[f"step{step}"], step)
    # The whole module at once is a sketch (no label could be read); at a change
    # the camera comes close and Cytoscape holds only what is in and around view.
    opened = results["step-1"]
    assert opened["sketched"] and opened["drawn"] == [] and len(opened["nodes"]) > 2000
    erased = results[f"step{middle}"]
    changed = {n["id"] for n in erased["nodes"] if n["status"] != "unchanged" and n["kind"] == "op"}
    assert not erased["sketched"] and changed and changed <= set(erased["drawn"])
    assert len(erased["drawn"]) < len(erased["nodes"]) / 4
    check_filters(results, trace, "cse")
