"""``show_graph``'s static figure in real headless Chromium (playwright-core, Debian's /usr/bin/chromium).

Every network request is blocked; the page must draw from what it carries.
Screenshots go to ``tests/artifacts/`` (or ``$PASSVIZ_ARTIFACTS``).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from passviz.notebook import GraphFigure, show_graph
from passviz.pipelines import record
from passviz.trace.model import Trace
from passviz.view.export import STATUS_COLORS
from tests.conftest import BROWSER

HERE = Path(__file__).resolve().parent
SEED = HERE.parent / "examples" / "wrap_multi_block.mlir"


def _render(page: str, folder: Path, name: str, hover: str | None = None) -> dict[str, Any]:
    path = folder / f"{name}.html"
    path.write_text(page, encoding="utf-8")
    command = ["node", str(BROWSER / "check_page.mjs"), str(path), str(folder / f"{name}.png")]
    if hover is not None:
        command.append(hover)
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _rgb(hex_color: str) -> tuple[int, int, int]:
    return (int(hex_color[1:3], 16), int(hex_color[3:5], 16), int(hex_color[5:7], 16))


def _pixels_near(
    colors: dict[str, int], target: tuple[int, int, int], tolerance: int = 10, *, see_through: bool = False
) -> int:
    """How many drawn pixels are within ``tolerance`` of ``target`` in every channel.

    The canvas reports ``#rrggbb`` for opaque pixels and ``#rrggbb/aa`` for
    see-through ones; ``see_through`` counts only the latter (ghost nodes).
    """
    total = 0
    for color, count in colors.items():
        if ("/" in color) != see_through:
            continue
        if all(abs(a - b) <= tolerance for a, b in zip(_rgb(color), target, strict=True)):
            total += count
    return total


def _page(figure: GraphFigure) -> str:
    """The figure as a notebook shows it, on a page of its own."""
    return f"<!doctype html><html><body>{figure._repr_html_()}</body></html>"  # pyright: ignore[reportPrivateUsage]


@pytest.fixture(scope="module")
def seed_trace() -> Trace:
    return record(SEED.read_text(), "wrap-func-body-with-single-block,canonicalize", filename=SEED.name).trace


def test_added_nodes_are_drawn_in_colour(seed_trace: Trace, artifacts: Path) -> None:
    figure = show_graph(seed_trace, 6, "dataflow")  # branches inserted
    result = _render(_page(figure), artifacts, "figure-step6-dataflow")
    assert result["blocked"] == [] and result["errors"] == []
    graph = result["graph"]
    assert graph["canvas"]["width"] > 300 and graph["canvas"]["height"] > 200
    drawn = {n["id"]: n["status"] for n in graph["nodes"]}
    assert drawn == {n: s for n, s in figure.drawn.graph.nodes(data="status")}
    assert {n for n, s in drawn.items() if s == "added"} == {"o7", "o8"}
    assert _pixels_near(graph["colors"], _rgb(STATUS_COLORS["added"])) > 200
    assert _pixels_near(graph["colors"], _rgb(STATUS_COLORS["unchanged"])) > 200
    assert graph["legend"] == ["added", "modified", "erased", "unchanged"]
    # nodes stand where the layout put them
    for node, (x, y) in figure.drawn.positions.items():
        assert graph["positions"][node] == {"x": x, "y": y}


def test_modified_and_erased_nodes_are_drawn_in_colour(seed_trace: Trace, artifacts: Path) -> None:
    figure = show_graph(seed_trace, 7, "dataflow")  # returns removed
    result = _render(_page(figure), artifacts, "figure-step7-dataflow", hover="o3")
    assert result["blocked"] == [] and result["errors"] == []
    colors = result["graph"]["colors"]
    assert _pixels_near(colors, _rgb(STATUS_COLORS["modified"])) > 200
    assert _pixels_near(colors, _rgb(STATUS_COLORS["erased"]), see_through=True) > 100
    tooltip = result["tooltip"]
    assert tooltip is not None and "o3  [erased]" in tooltip["text"]
    assert "returns removed" in result["page_text"]  # the step header


def test_control_flow_view(seed_trace: Trace, artifacts: Path) -> None:
    figure = show_graph(seed_trace, 3, "cfg")  # blocks spliced into the execute_region
    result = _render(_page(figure), artifacts, "figure-step3-cfg")
    statuses = {n["id"]: n["status"] for n in result["graph"]["nodes"] if n["status"] != "unchanged"}
    # the scf.execute_region (o5) prints anew once it holds the spliced blocks
    assert statuses == {"o5": "modified", "b1": "modified", "b2": "modified", "b3": "modified"}
    edges = {(e["from"], e["to"]): e["status"] for e in result["graph"]["edges"]}
    assert edges[("b1", "b2")] == "unchanged"  # a branch
    assert edges[("o5", "b1")] == "modified"  # the box now holding b1


PAYLOAD_IR = """
func.func @f(%a: i32) -> i32 {
  %c = arith.constant {note = "<img src=x onerror=\\"window.__pwned='attr'\\">"} 1 : i32
  %s = arith.addi %a, %c {tag = "</script><script>window.__pwned='script'</script>"} : i32
  func.return {note = "<img src=z onerror=\\"window.__pwned='ret'\\">"} %s : i32
}
"""


def test_untrusted_text_never_runs(artifacts: Path) -> None:
    trace = record(PAYLOAD_IR, "canonicalize").trace
    trace.meta["input"] = "<script>window.__pwned='input'</script>.mlir"
    trace.meta["pipeline"] = "<img src=x onerror=\"window.__pwned='pipeline'\">"
    for step in trace.steps:
        step.name = "<img src=y onerror=\"window.__pwned='name'\">"
        step.pass_name = "<svg onload=\"window.__pwned='pass'\">"
    figure = show_graph(trace, -1, "dataflow", height=760)  # tall enough to show the return
    graph = figure.drawn.graph
    ret = next(n for n, label in graph.nodes(data="label") if label == "func.return")
    result = _render(_page(figure), artifacts, "figure-payloads", hover=ret)
    assert result["pwned"] == {"page": None, "frame": None}
    assert result["dialogs"] == [] and result["errors"] == []
    assert "<script>window.__pwned='input'</script>.mlir" in result["page_text"]  # as text
    assert result["tooltip"] is not None and "__pwned='ret'" in result["tooltip"]["text"]
    result = _render(_page(show_graph(trace, 0, "dataflow")), artifacts, "figure-payloads-step0")
    assert result["pwned"] == {"page": None, "frame": None}
    assert "<svg onload" in result["page_text"]
