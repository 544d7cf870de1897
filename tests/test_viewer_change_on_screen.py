"""The change is on screen at every changed step of the long real traces (issue 24, item 2).

Each trace's standalone page is driven in real headless Chromium
(``tests/viewer_checks.drive``) through every step that changed the IR, and
``inspect()`` is read after each.  At every such step:

- at least one changed line of the IR pane lies inside its visible part, and
  an added (or moved) line too when the step added any;
- the step's changed nodes lie inside the graph's viewport; a change too big
  for one legible screen (its nodes' bounding box, at the zoom shown, is larger
  than the viewport) has some of them in view and the pane counts the rest;
- the labels of the changed ops in view are at least 10 px tall;
- no two sibling boxes overlap and every node lies inside its parent's box;
- the minimap (when not folded away) covers no changed node;

and the steps were built and laid out by the viewer's worker thread, off the
page's (issue 24, item 4): the checks above hold for what it made.

The split: every changed step of seed 000 (at 1400 x 900 and at a notebook's
900 x 600), of the Toy program down to LLVM (``toy-ch6``, ~1 min) and of the
IREE ``matmul_bias`` and convolution through ``iree-flow`` runs in CI; of the
persistent matmul through ``make-ttir`` (422 changed steps, 2.5 min on two
cores, and CI runs Triton's tests twice) CI checks the structural steps (the
inlining, CSE, region simplification: every step but the greedy driver's own
folds and erasures), and ``PASSVIZ_EXHAUSTIVE=1`` checks every one.  Screenshots of
the ``_compute_pid`` inlining, the outlined ``flow.executable`` and Toy's
scf→cf lowering (``ForLowering``) go to ``tests/artifacts/``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from passviz.trace.model import Trace
from tests import long_traces
from tests.conftest import need
from tests.viewer_checks import TOLERANCE, _changed, check_view, drive  # pyright: ignore[reportPrivateUsage]

pytestmark = pytest.mark.browser

LEGIBLE_PX = 10.0
"""The smallest label height of a changed op, in page pixels."""

Box = dict[str, float]


def _inside(inner: Box, outer: Box) -> bool:
    return (
        inner["x"] >= outer["x"] - TOLERANCE
        and inner["y"] >= outer["y"] - TOLERANCE
        and inner["x"] + inner["w"] <= outer["x"] + outer["w"] + TOLERANCE
        and inner["y"] + inner["h"] <= outer["y"] + outer["h"] + TOLERANCE
    )


def _meets(a: Box, b: Box) -> bool:
    return (
        a["x"] < b["x"] + b["w"]
        and b["x"] < a["x"] + a["w"]
        and a["y"] < b["y"] + b["h"]
        and b["y"] < a["y"] + a["h"]
    )


def check_change_on_screen(seen: dict[str, Any], step: int) -> list[str]:
    """What is wrong with the drawn ``step`` (empty: nothing)."""
    problems: list[str] = []
    try:
        check_view(seen, step, fills_window=False)
    except AssertionError as error:
        return [f"step {step}: {error}"]
    ir = seen["irChanges"]
    if ir["changed"] > 0 and ir["visible"] == 0:
        problems.append(f"step {step}: none of its {ir['changed']} changed IR lines is in view")
    if ir["added"] > 0 and ir["addedVisible"] == 0:
        problems.append(f"step {step}: none of its {ir['added']} added IR lines is in view")
    shown = [n for n in _changed(seen["nodes"]) if _inside(n["box"], seen["viewport"])]
    small = [n["label"] for n in shown if n["kind"] == "op" and n["labelPx"] < LEGIBLE_PX]
    if small:
        problems.append(f"step {step}: changed op labels under {LEGIBLE_PX} px: {small[:3]}")
    minimap = seen["changes"]["minimap"]
    if minimap is not None:
        covered = [n["label"] for n in shown if _meets(n["box"], minimap)]
        if covered:
            problems.append(f"step {step}: the minimap covers {covered[:3]}")
    return problems


def changed_steps(trace: Trace) -> list[int]:
    return [s.index for s in trace.steps if s.changed]


def check_every_changed_step(
    trace: Trace,
    name: str,
    artifacts: Path,
    shots: dict[int, str] | None = None,
    *,
    steps: list[int] | None = None,
    **size: int,
) -> int:
    """Drive every changed step of ``trace`` (or ``steps``); fail with every problem found.  Returns the steps checked."""
    shots = shots or {}
    steps = changed_steps(trace) if steps is None else steps
    plan: list[dict[str, Any]] = []
    for step in steps:
        plan += [{"goto": step}, {"inspect": f"step{step}"}]
        if step in shots:
            plan.append({"shot": shots[step]})
    results = drive(trace, name, plan, artifacts, **size)
    problems = [p for step in steps for p in check_change_on_screen(results[f"step{step}"], step)]
    # The steps were built and laid out off the page's thread (its worker), and drawn from that.
    laid = results[f"step{steps[-1]}"]["laidAhead"]
    if laid < len(steps) // 2:
        problems.append(f"only {laid} of {len(steps)} steps were laid out by the viewer's worker")
    assert problems == [], f"{len(problems)} problems in {len(steps)} steps:\n" + "\n".join(problems[:40])
    return len(steps)


def test_seed_000_every_changed_step(artifacts: Path) -> None:
    assert check_every_changed_step(long_traces.seed_trace(), "change-seed000", artifacts) >= 10


def test_seed_000_at_notebook_width(artifacts: Path) -> None:
    """A notebook's output cell: 900 x 600."""
    check_every_changed_step(
        long_traces.seed_trace(), "change-seed000-narrow", artifacts, width=900, height=600
    )


def test_toy_to_llvm_every_changed_step(artifacts: Path) -> None:
    need(None if (long_traces.PEER / long_traces.TOY_PROGRAM).is_file() else "the peer Toy tests")
    trace = long_traces.toy_trace()
    scf_to_cf = long_traces.first_step(trace, name="ForLowering")
    shots = {scf_to_cf: "change-toy-scf-to-cf"}
    assert check_every_changed_step(trace, "change-toy", artifacts, shots) >= 150


def _persistent(tmp_path: Path) -> Trace:
    from tests.triton_oracle import triton_missing

    need(triton_missing())
    return long_traces.persistent_trace(tmp_path)


def test_persistent_matmul_structural_steps(artifacts: Path, tmp_path: Path) -> None:
    """CI's share of the persistent matmul: every changed step but the greedy driver's own
    (fold, erase-dead-op, unique- and hoist-constant): the inlining, CSE, region simplification."""
    trace = _persistent(tmp_path)
    inline = next(
        s.index
        for s in trace.steps
        if s.name is not None and s.name.startswith("inline body of @") and "_compute_pid" in s.name
    )
    steps = [
        s.index
        for s in trace.steps
        if s.changed and s.name not in ("fold", "erase-dead-op", "unique-constant", "hoist-constant")
    ]
    shots = {inline: "change-persistent-matmul-inline-compute-pid"}
    assert check_every_changed_step(trace, "change-persistent-matmul", artifacts, shots, steps=steps) >= 20


@pytest.mark.skipif(
    not os.environ.get("PASSVIZ_EXHAUSTIVE"),
    reason="every step of the persistent matmul (2.5 min): PASSVIZ_EXHAUSTIVE=1",
)
def test_persistent_matmul_every_changed_step(artifacts: Path, tmp_path: Path) -> None:
    assert check_every_changed_step(_persistent(tmp_path), "change-persistent-matmul-all", artifacts) >= 400


@pytest.mark.parametrize("model", ["matmul_bias", "img2col"])
def test_iree_flow_every_changed_step(artifacts: Path, model: str) -> None:
    trace = long_traces.iree_trace(model)
    outlined = long_traces.first_step(trace, creates="flow.executable")
    shots = {outlined: f"change-iree-{model}-outlined-executable"}
    assert check_every_changed_step(trace, f"change-iree-{model}", artifacts, shots) >= 5


def test_persistent_matmul_opens_as_an_overview(artifacts: Path, tmp_path: Path) -> None:
    """The initial IR of the persistent matmul (hundreds of nodes, five functions): each function
    a collapsed box that names it and says how many nodes it hides, however long its name."""
    trace = _persistent(tmp_path)
    plan: list[dict[str, Any]] = [
        {"goto": -1},
        {"inspect": "initial"},
        {"shot": "overview-persistent-matmul-initial"},
    ]
    seen = drive(trace, "overview-persistent-matmul", plan, artifacts)["initial"]
    functions = [n for n in seen["nodes"] if n["kind"] == "box" and n["label"].startswith("tt.func ")]
    assert len(functions) >= 5
    for node in functions:
        name, _, count = node["label"].rpartition("  (+")
        assert name and count.endswith(")") and int(count[:-1]) > 0, node["label"]
        assert _inside(node["box"], seen["viewport"]) and node["labelPx"] >= LEGIBLE_PX, node["label"]
