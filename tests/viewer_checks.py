"""What every drawn step of the viewer must satisfy, read through its inspection API.

``window.passvizViewers[i].inspect()`` gives the step, the graph pane's
rectangle and every drawn node's box in page pixels.  At every step: the
step's changed nodes lie inside the graph's viewport (a change too big for one
legible screen: part of it, and the pane counts the rest), no two sibling
boxes overlap, and every node lies inside its parent's box.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from passviz.trace.model import Trace
from passviz.trace.store import write_trace
from passviz.widget.standalone import standalone_html
from tests.conftest import BROWSER

ROOT = Path(__file__).resolve().parents[1]

TOLERANCE = 1.5
"""Pixels of slack for borders drawn on a box's edge."""

Box = dict[str, float]


def _inside(inner: Box, outer: Box) -> bool:
    return (
        inner["x"] >= outer["x"] - TOLERANCE
        and inner["y"] >= outer["y"] - TOLERANCE
        and inner["x"] + inner["w"] <= outer["x"] + outer["w"] + TOLERANCE
        and inner["y"] + inner["h"] <= outer["y"] + outer["h"] + TOLERANCE
    )


def _overlapping(boxes: list[tuple[str, Box]]) -> Iterable[tuple[str, str]]:
    """Pairs of boxes that overlap by more than the tolerance (a sweep over their tops)."""
    ordered = sorted(boxes, key=lambda item: item[1]["y"])
    for i, (a, box_a) in enumerate(ordered):
        for b, box_b in ordered[i + 1 :]:
            if box_b["y"] >= box_a["y"] + box_a["h"] - TOLERANCE:
                break
            if (
                box_b["x"] < box_a["x"] + box_a["w"] - TOLERANCE
                and box_a["x"] < box_b["x"] + box_b["w"] - TOLERANCE
            ):
                yield a, b


def _changed(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The nodes a step is about, as the camera chooses them: changed leaves and new boxes, else changed boxes."""
    changed = [n for n in nodes if n["status"] != "unchanged"]
    leaves = [n for n in changed if n["kind"] in ("op", "arg") or n["status"] == "added"]
    return leaves or changed


def too_big(changed: list[dict[str, Any]], viewport: Box) -> bool:
    """Whether the bounding box of ``changed`` (as drawn) is larger than ``viewport``: the camera then
    frames part of the change at a legible zoom and says how many changes lie outside."""
    left = min(n["box"]["x"] for n in changed)
    top = min(n["box"]["y"] for n in changed)
    width = max(n["box"]["x"] + n["box"]["w"] for n in changed) - left
    height = max(n["box"]["y"] + n["box"]["h"] for n in changed) - top
    return width > viewport["w"] or height > viewport["h"]


BOX_LABEL_PX = 26.0
"""The band at a box's top that holds its label (``BOX_PADDING.top`` in ``layout.ts``), at zoom 1."""


def _label_in_view(node: dict[str, Any], viewport: dict[str, float]) -> bool:
    """Whether ``node`` is a box whose label is in view: its top edge inside the viewport and the box
    across it (a box bigger than the view, such as a module a pass gave an attribute, shows so)."""
    if node["kind"] not in ("box", "region", "block"):
        return False
    box = node["box"]
    top, left, right = box["y"], box["x"], box["x"] + box["w"]
    return (
        viewport["y"] - TOLERANCE
        <= top
        <= viewport["y"] + viewport["h"] - BOX_LABEL_PX * node["labelPx"] / 11
        and left < viewport["x"] + viewport["w"]
        and right > viewport["x"]
    )


def check_view(seen: dict[str, Any], step: int, *, fills_window: bool = True) -> None:
    """The invariants of a drawn step (``fills_window``: for a page that is the viewer alone)."""
    assert seen["step"] == step
    viewport = seen["viewport"]
    if fills_window:
        window = seen["window"]
        assert seen["viewerBox"] == {"x": 0, "y": 0, "w": window["w"], "h": window["h"]}, (
            "the viewer fills the window"
        )
        assert viewport["w"] > window["w"] * 0.3 and viewport["h"] > window["h"] * 0.7
    nodes = seen["nodes"]
    assert nodes, "the graph is drawn"
    boxes = {n["id"]: n["box"] for n in nodes}
    changed = _changed(nodes)
    outside = [
        n["id"] for n in changed if not _inside(n["box"], viewport) and not _label_in_view(n, viewport)
    ]
    if outside and not too_big(changed, viewport):
        raise AssertionError(f"changed nodes outside the viewport at step {step}: {outside[:5]}")
    if outside:
        # Too big for one legible screen: part of it in view, and the pane counts the rest.
        assert len(outside) < len(changed), f"no changed node in view at step {step}"
        assert seen["changes"]["outside"] > 0, f"the changes outside the view are not counted at step {step}"
    strays = [n["id"] for n in nodes if n["parent"] is not None and not _inside(n["box"], boxes[n["parent"]])]
    assert strays == [], f"nodes outside their box at step {step}"
    siblings: dict[str | None, list[tuple[str, Box]]] = {}
    for node in nodes:
        siblings.setdefault(node["parent"], []).append((node["id"], node["box"]))
    clashes = [pair for group in siblings.values() for pair in _overlapping(group)]
    assert clashes == [], f"sibling boxes overlap at step {step}"


def drive(
    trace: Trace,
    name: str,
    actions: list[dict[str, Any]],
    folder: Path,
    *,
    width: int = 1400,
    height: int = 900,
) -> dict[str, Any]:
    """Export ``trace`` as a standalone page in ``folder``, run ``actions`` on it in Chromium
    (``tests/browser/inspect_page.mjs``, a ``width`` x ``height`` window) and return what each
    reported; the page loads nothing."""
    if not (ROOT / "passviz" / "static" / "viewer.js").exists():
        pytest.skip("the viewer bundle is not built (pip install -e .)")
    write_trace(trace, folder / f"{name}.passviz.json")
    page = folder / f"{name}.html"
    page.write_text(standalone_html(trace), encoding="utf-8")
    plan = folder / f"plan-{name}.json"
    plan.write_text(
        json.dumps(
            {
                "url": page.as_uri(),
                "artifacts": str(folder),
                "actions": actions,
                "width": width,
                "height": height,
            }
        )
    )
    done = subprocess.run(
        ["node", str(BROWSER / "inspect_page.mjs"), str(plan)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["errors"] == []
    assert report["blocked"] == []
    return report["results"]
