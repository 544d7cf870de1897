"""The dispatch view in real headless Chromium, on the seed's matmul + bias-add through ``iree-flow``.

Once form-dispatch-regions has run, the graph draws the ``flow.dispatch.region``
as a box holding the matmul and the bias-add generic; at the last step the
dispatch graph (``D``) shows the outlined ``flow.dispatch`` between the
function's imported arguments and its export, and the executable it calls.
Screenshots go to ``tests/artifacts/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from passviz.pipelines import record
from passviz.trace.model import Trace
from tests.iree_support import SEED_EXAMPLES, SEED_MATMUL
from tests.viewer_checks import drive

FORM = "iree-dispatch-creation-form-dispatch-regions"


def _ancestors(nodes: dict[str, dict[str, Any]], node_id: str) -> list[str]:
    chain: list[str] = []
    parent = nodes[node_id]["parent"]
    while parent is not None:
        chain.append(parent)
        parent = nodes[parent]["parent"] if parent in nodes else None
    return chain


def _op(trace: Trace, step: int, name: str) -> str:
    from passviz.view.state import TraceStates, ops_named

    found = ops_named(TraceStates(trace).at(step), name)
    assert len(found) == 1, (name, found)
    return found[0]


def test_dispatch_region_box_and_dispatch_graph(artifacts: Path) -> None:
    trace = record(SEED_MATMUL, "iree-flow").trace
    formed = max(s.index for s in trace.steps if s.pass_name == FORM)
    last = len(trace.steps) - 1
    region = _op(trace, formed, "flow.dispatch.region")
    matmul = _op(trace, formed, "linalg.matmul")
    generic = _op(trace, formed, "linalg.generic")
    call = _op(trace, last, "flow.dispatch")
    executable = _op(trace, last, "flow.executable")
    results = drive(
        trace,
        "iree-matmul-bias",
        [
            {"goto": formed},
            {"inspect": "formed"},
            {"shot": "iree-matmul-bias-regions"},
            {"key": "D"},
            {"inspect": "formed-dispatch"},
            {"shot": "iree-matmul-bias-regions-dispatch-graph"},
            {"goto": last},
            {"inspect": "last"},
            {"click": f'.pv-dispatch-pane g[data-id="{call}"]'},
            {"inspect": "dispatch-selected"},
            {"click": f'.pv-dispatch-pane g[data-id="{call}"]'},
            {"inspect": "executable-selected"},
            {"shot": "iree-matmul-bias-dispatch-graph"},
            {"key": "D"},
            {"inspect": "hidden"},
            {"click": f'.pv-line[data-op="{call}"]'},
            {"inspect": "ir-selected"},
            {"shot": "iree-matmul-bias-dispatch-details"},
            {"click": '.pv-details .pv-link:has-text("flow.executable")'},
            {"inspect": "details-link"},
            {"click": '.pv-details .pv-link:has-text("flow.dispatch")'},
            {"inspect": "details-link-back"},
        ],
        artifacts,
    )
    nodes = {n["id"]: n for n in results["formed"]["nodes"]}
    assert nodes[region]["label"].startswith("flow.dispatch.region")
    for op in (matmul, generic):
        assert region in _ancestors(nodes, op), (op, _ancestors(nodes, op))
        box, inner = nodes[region]["box"], nodes[op]["box"]
        assert box["x"] <= inner["x"] and inner["x"] + inner["w"] <= box["x"] + box["w"] + 0.5
        assert box["y"] <= inner["y"] and inner["y"] + inner["h"] <= box["y"] + box["h"] + 0.5
    assert not results["formed"]["dispatch"]["visible"]

    # The dispatch graph at the same step: one region node that computes the matmul and the generic.
    shown = results["formed-dispatch"]["dispatch"]
    assert shown["visible"]
    dispatches = [n for n in shown["nodes"] if n["kind"] == "dispatch"]
    assert [(n["id"], n["members"][-2:]) for n in dispatches] == [(region, [matmul, generic])]
    assert all(n["box"]["w"] > 0 for n in shown["nodes"])

    # At the last step: args → imports → the outlined dispatch → export → return, and its executable.
    graph = results["last"]["dispatch"]
    kinds = {n["id"]: n["kind"] for n in graph["nodes"]}
    assert [i for i, k in kinds.items() if k == "dispatch"] == [call]
    assert kinds[executable] == "executable"
    tensors = [(e["source"], e["target"]) for e in graph["edges"] if e["kind"] == "tensor"]
    into = [kinds[s] for s, t in tensors if t == call]
    assert into == ["op", "op", "op"]
    out = [t for s, t in tensors if s == call]
    assert len(out) == 1 and kinds[out[0]] == "op"
    assert any(kinds[t] == "return" for _, t in tensors)
    assert [(e["source"], e["target"]) for e in graph["edges"] if e["kind"] == "calls"] == [
        (call, executable)
    ]

    # A click on the dispatch selects it and marks its executable; a second click goes to the executable.
    assert results["dispatch-selected"]["dispatch"]["selected"] == call
    linked = {n["id"] for n in results["dispatch-selected"]["dispatch"]["nodes"] if n["linked"]}
    assert linked == {call, executable}
    assert results["executable-selected"]["dispatch"]["selected"] == executable
    assert executable in {n["id"] for n in results["executable-selected"]["nodes"]}
    assert not results["hidden"]["dispatch"]["visible"]

    # Without the pane: the details of a flow.dispatch link to its executable, and back.
    assert results["ir-selected"]["dispatch"]["selected"] == call
    assert results["details-link"]["dispatch"]["selected"] == executable
    assert results["details-link-back"]["dispatch"]["selected"] == call


def test_dispatch_graph_of_three_dispatches(artifacts: Path) -> None:
    """The seed's detach model: three outlined dispatches, one feeding another through a collapse_shape."""
    trace = record(SEED_EXAMPLES["detach"], "iree-flow").trace
    results = drive(
        trace,
        "iree-detach",
        [
            {"goto": len(trace.steps) - 1},
            {"key": "D"},
            {"inspect": "last"},
            {"shot": "iree-detach-dispatch-graph"},
        ],
        artifacts,
    )
    graph = results["last"]["dispatch"]
    assert graph["visible"]
    kinds = {n["id"]: n["kind"] for n in graph["nodes"]}
    labels = {n["id"]: n["label"] for n in graph["nodes"]}
    dispatches = [i for i, k in kinds.items() if k == "dispatch"]
    assert len(dispatches) == 3 and sum(k == "executable" for k in kinds.values()) == 3
    calls = {e["source"]: labels[e["target"]] for e in graph["edges"] if e["kind"] == "calls"}
    assert {labels[d].split("::")[0].split("@")[1] for d in dispatches} == {
        v.split("@")[1] for v in calls.values()
    }
    into: dict[str, list[str]] = {}
    for edge in graph["edges"]:
        if edge["kind"] == "tensor":
            into.setdefault(edge["target"], []).append(edge["source"])
    # The last dispatch reads what the first two computed, each through a collapse_shape.
    last = dispatches[-1]
    upstream = {s for c in into[last] for s in into.get(c, [])}
    assert set(dispatches[:2]) <= upstream
    boxes = [n["box"] for n in graph["nodes"] if n["kind"] in {"dispatch", "executable"}]
    assert all(b["w"] > 0 and b["h"] > 0 for b in boxes)


def test_the_dispatch_graph_shows_ops_joining_the_region(artifacts: Path) -> None:
    """Stepping through form-dispatch-regions: the region appears with the generic, then the matmul joins it."""
    trace = record(SEED_MATMUL, "iree-flow").trace
    wrap = min(s.index for s in trace.steps if s.dispatch)
    move = wrap + 1
    results = drive(
        trace,
        "iree-matmul-bias-joining",
        [
            {"goto": wrap - 1},
            {"key": "D"},
            {"inspect": "before"},
            {"key": "ArrowRight"},
            {"inspect": "wrapped"},
            {"shot": "iree-matmul-bias-region-opens"},
            {"key": "ArrowRight"},
            {"inspect": "joined"},
            {"shot": "iree-matmul-bias-matmul-joins"},
        ],
        artifacts,
    )

    def dispatches(name: str) -> list[tuple[str, str]]:
        nodes = results[name]["dispatch"]["nodes"]
        return [(n["label"].split(" #")[0], n["status"]) for n in nodes if n["kind"] == "dispatch"]

    def ops(name: str) -> list[str]:
        return [n["label"] for n in results[name]["dispatch"]["nodes"] if n["kind"] == "op"]

    assert results["wrapped"]["step"] == wrap and results["joined"]["step"] == move
    assert dispatches("before") == [] and {"linalg.matmul", "linalg.generic"} <= set(ops("before"))
    assert dispatches("wrapped") == [("flow.dispatch.region", "added")]
    assert "linalg.generic" not in ops("wrapped") and "linalg.matmul" in ops("wrapped")
    assert dispatches("joined") == [("flow.dispatch.region", "modified")]
    assert "linalg.matmul" not in ops("joined")
