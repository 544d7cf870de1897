"""The viewer's graph in Python: statuses, networkx views, text diffs, lineage, filters, layouts, exports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import networkx as nx
import pydot
import pytest

from passviz.compilers.triton_linalg.wrap_func_body import CHECKPOINTS
from passviz.pipelines import parse_ir, record
from passviz.trace.model import Trace
from passviz.trace.query import LineageEvent, StepFilter
from passviz.view.diff import DiffRow, step_ir_diff, text_diff
from passviz.view.export import STATUS_COLORS, graph_schema, offline_html, strip_external, to_dot, to_pyvis
from passviz.view.focus import focus
from passviz.view.graph import IRGraph, build_graph, links, step_graph
from passviz.view.layout import LayoutMemory
from passviz.view.state import TraceStates, id_text, parents
from passviz.view.view import TraceView
from passviz.view.viewgraph import VIEW_KINDS, ViewKind
from tests.irgen import arith_module
from tests.passes_for_tests import ExplodingPass, FoldAddiChainPass

SEED = Path(__file__).resolve().parents[1] / "examples" / "wrap_multi_block.mlir"
SEED_PIPELINE = "wrap-func-body-with-single-block,canonicalize"


@pytest.fixture(scope="module")
def seed_trace() -> Trace:
    return record(SEED.read_text(), SEED_PIPELINE, filename=SEED.name).trace


@pytest.fixture(scope="module")
def seed_states(seed_trace: Trace) -> TraceStates:
    return TraceStates(seed_trace)


def _nodes(graph: IRGraph) -> dict[str, str]:
    return {node: str(attrs["status"]) for node, attrs in graph.nodes(data=True)}


def _edges(graph: IRGraph) -> dict[tuple[str, str], str]:
    return {(u, v): str(attrs["status"]) for u, v, attrs in graph.edges(data=True)}


def _changed(graph: IRGraph) -> dict[str, str]:
    return {n: s for n, s in _nodes(graph).items() if s != "unchanged"}


# -- seed 000: statuses, ghosts included -------------------------------------------------------

# Ids in the seed: o0 module, o1 tt.func, b1..b3 the function's blocks with
# args v0..v2 (b1), o2 cf.cond_br, o3 / o4 the two tt.returns.

SEED_NODES = {"o0", "b0", "o1", "b1", "v0", "v1", "v2", "o2", "b2", "o3", "b3", "o4"}


def test_seed_steps_are_the_ones_asserted_below(seed_trace: Trace) -> None:
    assert tuple(s.name for s in seed_trace.steps[1:8]) == CHECKPOINTS
    # MLIR's canonicalize inlines the multi-block scf.execute_region as a CFG.
    assert seed_trace.steps[10].name == "MultiBlockExecuteInliner"


def test_the_initial_ir(seed_states: TraceStates) -> None:
    graph = step_graph(seed_states, -1, "dataflow")
    assert _nodes(graph) == {n: "unchanged" for n in SEED_NODES}
    kinds = {n: str(a["kind"]) for n, a in graph.nodes(data=True)}
    assert kinds == {
        **{n: "box" for n in ("o0", "o1")},
        **{n: "block" for n in ("b0", "b1", "b2", "b3")},
        **{n: "arg" for n in ("v0", "v1", "v2")},
        **{n: "op" for n in ("o2", "o3", "o4")},
    }
    assert _edges(graph) == {("v0", "o2"): "unchanged", ("v1", "o3"): "unchanged", ("v2", "o4"): "unchanged"}
    assert {e["kind"] for _, _, e in step_graph(seed_states, -1, "cfg").edges(data=True)} == {"branch"}
    assert step_graph(seed_states, -1, "nesting").number_of_edges() == 0
    assert step_graph(seed_states, -1, "all").number_of_edges() == 5


def test_entry_arguments_replaced(seed_states: TraceStates) -> None:
    graph = step_graph(seed_states, 4, "dataflow")
    assert _changed(graph) == {
        # the scf.execute_region's entry block (the old entry block) lost its arguments,
        # which changes how the region op and the block print
        "o5": "modified",
        "b1": "modified",
        "o2": "modified",
        "o3": "modified",
        "o4": "modified",
        # the old entry block's arguments, kept as ghosts in their block
        "v0": "erased",
        "v1": "erased",
        "v2": "erased",
    }
    assert graph.nodes["v0"]["parent"] == "b1"
    assert _edges(graph) == {
        ("v3", "o2"): "added",
        ("v4", "o3"): "added",
        ("v5", "o4"): "added",
        ("v0", "o2"): "erased",
        ("v1", "o3"): "erased",
        ("v2", "o4"): "erased",
    }


def test_returns_removed(seed_states: TraceStates) -> None:
    graph = step_graph(seed_states, 7, "dataflow")
    assert _changed(graph) == {"o3": "erased", "o4": "modified"}
    assert _edges(graph) == {
        ("v3", "o2"): "unchanged",
        ("v4", "o8"): "unchanged",
        ("v4", "o3"): "erased",
        ("v5", "o7"): "unchanged",
        ("v5", "o4"): "erased",
        ("o5", "o4"): "added",  # the kept return now returns the execute_region's result
        ("v7", "o6"): "unchanged",
    }
    # the ghost is drawn where it was: in its block, after the op it followed
    order = list(graph.nodes)
    assert graph.nodes["o3"]["parent"] == "b2" and order.index("o3") == order.index("o8") + 1


def test_branches_inserted(seed_states: TraceStates) -> None:
    graph = step_graph(seed_states, 6, "all")
    assert _changed(graph) == {"o7": "added", "o8": "added"}
    added = {(u, v, d["kind"], d["label"]) for u, v, d in graph.edges(data=True) if d["status"] == "added"}
    # each new cf.br uses a value and branches to the yield block
    assert added == {
        ("v4", "o8", "use", "%v4"),
        ("v5", "o7", "use", "%v5"),
        ("b2", "b5", "branch", "cf.br"),
        ("b3", "b5", "branch", "cf.br"),
    }


def test_execute_region_inlined(seed_states: TraceStates) -> None:
    graph = step_graph(seed_states, 10, "dataflow")
    nodes = _nodes(graph)
    # the region op and its yield are gone; the yield became a branch (o9) to the
    # continuation block b6, whose argument v8 the return now uses
    assert {n: nodes[n] for n in ("o5", "o6", "o9", "o10", "b6", "v8", "o4")} == {
        "o5": "erased",
        "o6": "erased",
        "o9": "added",
        "o10": "added",
        "b6": "added",
        "v8": "added",
        "o4": "modified",
    }
    # the blocks the region held now sit in the function: each is modified, not the ops inside
    assert {nodes[b] for b in ("b1", "b2", "b3", "b5")} == {"modified"}
    assert graph.nodes["b1"]["parent"] == "o1"
    edges = _edges(graph)
    assert edges[("v7", "o9")] == "added" and edges[("v8", "o4")] == "added"
    assert edges[("o5", "o4")] == "erased" and edges[("v7", "o6")] == "erased"


def test_cfg_new_entry_block_and_splice(seed_states: TraceStates) -> None:
    first = step_graph(seed_states, 1, "cfg")
    assert _changed(first) == {"o1": "modified", "b4": "added", "v3": "added", "v4": "added", "v5": "added"}
    assert _edges(first) == {("b1", "b2"): "unchanged", ("b1", "b3"): "unchanged"}
    spliced = step_graph(seed_states, 3, "cfg")
    # b4's scf.execute_region now holds the spliced blocks, the first with arguments: it prints anew
    assert _changed(spliced) == {"o5": "modified", "b1": "modified", "b2": "modified", "b3": "modified"}
    assert {spliced.nodes[b]["parent"] for b in ("b1", "b2", "b3")} == {"o5"}


def test_cfg_after_inlining_keeps_the_erased_block_as_ghost(seed_states: TraceStates) -> None:
    graph = step_graph(seed_states, 16, "cfg")
    assert _changed(graph) == {"o12": "erased", "b5": "erased", "v7": "erased", "o4": "modified"}
    assert _edges(graph) == {("b4", "b5"): "erased"}


def test_nesting_execute_region_inserted(seed_states: TraceStates) -> None:
    graph = step_graph(seed_states, 2, "nesting")
    assert _changed(graph) == {"o5": "added"}
    assert graph.number_of_edges() == 0
    attrs = graph.nodes["o5"]
    assert attrs["kind"] == "box"  # an op holding a region
    assert attrs["label"] == "scf.execute_region"
    assert attrs["parent"] == "b4"
    assert attrs["text"].startswith("%v6 = scf.execute_region -> i32 {")
    assert ("b4", "o5") in links(graph)


def test_an_op_with_several_regions_boxes_each() -> None:
    trace = record(
        "func.func @f(%c: i1) -> i32 {\n"
        "  %r = scf.if %c -> (i32) {\n    %a = arith.constant 1 : i32\n    scf.yield %a : i32\n"
        "  } else {\n    %b = arith.constant 2 : i32\n    scf.yield %b : i32\n  }\n"
        "  func.return %r : i32\n}\n",
        "cse",
    ).trace
    graph = build_graph(TraceStates(trace).at(-1))
    regions = [n for n, attrs in graph.nodes(data=True) if attrs["kind"] == "region"]
    assert len(regions) == 2
    assert [graph.nodes[r]["label"] for r in regions] == ["region #0", "region #1"]
    (holder,) = {graph.nodes[r]["parent"] for r in regions}
    assert graph.nodes[holder]["label"] == "scf.if"


# -- labels, locations ---------------------------------------------------------------------------

BRANCHY = """
func.func @g(%c: i1, %a: i32, %b: i32) -> i32 {
  cf.cond_br %c, ^bb1(%a : i32), ^bb2(%b, %a : i32, i32) loc("kernel.py":3:5)
^bb1(%x: i32):
  func.return %x : i32
^bb2(%y: i32, %z: i32):
  %s = arith.addi %y, %z : i32 loc("kernel.py":7:9)
  func.return %s : i32
}
"""


def test_branch_and_use_edges_and_labels() -> None:
    trace = record(BRANCHY, "canonicalize").trace
    state = TraceStates(trace).at(-1)
    branch = next(op for op in state.ops.values() if op.name == "cf.cond_br")
    cfg = build_graph(state, "cfg")
    assert sorted((u, v, d["label"]) for u, v, d in cfg.edges(data=True)) == [
        (branch.block, branch.successors[0], "cf.cond_br"),
        (branch.block, branch.successors[1], "cf.cond_br"),
    ]
    add = next(op for op in state.ops.values() if op.name == "arith.addi")
    dataflow = build_graph(state, "dataflow")
    # the source's names label values; the text names them by id
    assert dataflow.nodes[add.id]["label"] == "%s = arith.addi"
    assert (
        dataflow.nodes[add.id]["text"]
        == f"%{add.results[0]} = arith.addi %{add.operands[0]}, %{add.operands[1]} : i32"
    )
    assert {d["label"] for _, v, d in dataflow.edges(data=True) if v == add.id} == {
        f"%{o}" for o in add.operands
    }
    assert state.ops[add.id].loc == 'loc("kernel.py":7:9)'
    assert parents(state, add.id)[-1] == add.block


# -- text diff -------------------------------------------------------------------------------

CHAIN = """
func.func @f(%a: i32) -> i32 {
  %0 = arith.constant 1 : i32
  %1 = arith.addi %a, %0 : i32
  %2 = arith.constant 2 : i32
  %3 = arith.addi %1, %2 : i32
  %4 = arith.constant 3 : i32
  %5 = arith.addi %3, %4 : i32
  %6 = arith.muli %5, %5 : i32
  func.return %6 : i32
}
"""


@pytest.fixture(scope="module")
def chain_trace() -> Trace:
    return record(
        CHAIN, "test-fold-addi-chain,dce", extra_passes={"test-fold-addi-chain": FoldAddiChainPass}
    ).trace


def _changed_rows(rows: list[DiffRow]) -> list[DiffRow]:
    return [r for r in rows if r.tag not in ("equal", "skip")]


def test_ir_diff_ignores_ssa_renumbering(chain_trace: Trace) -> None:
    states = TraceStates(chain_trace)
    erase = next(s for s in chain_trace.steps if s.name == "erase-dead-op")
    rows = _changed_rows(step_ir_diff(states, erase.index))
    before, after = chain_trace.ir_around(erase.index)
    # erasing one op renumbers every value after it in MLIR's positional names...
    assert len(_changed_rows(text_diff(before, after))) > 1
    # ...but the diff shows only the erased line
    assert len(rows) == 1
    assert rows[0].tag == "delete"
    assert len(_changed_rows(text_diff(before, after, ignore_names=True))) == 1


def test_text_diff_folds_long_unchanged_runs() -> None:
    before = "\n".join(f"line {i}" for i in range(40))
    after = before.replace("line 20", "line twenty")
    rows = text_diff(before, after, context=2)
    assert [r.tag for r in rows] == ["skip", "equal", "equal", "replace", "equal", "equal", "skip"]
    assert rows[3].left == "line 20" and rows[3].right == "line twenty"
    assert rows[0].left == "18 unchanged lines"


# -- lineage and filters -----------------------------------------------------------------------


def test_lineage_follows_a_replacement_both_ways(seed_trace: Trace) -> None:
    forward = seed_trace.lineage("o5")  # the scf.execute_region
    assert [(e.step, e.op, e.action) for e in forward] == [
        (2, "o5", "created"),
        (10, "o5", "replaced"),
        (10, "o5", "erased"),
    ]
    assert forward[1].pattern == "MultiBlockExecuteInliner"
    assert forward[1].by == ()  # replaced by the continuation block's argument
    backward = seed_trace.lineage("o9")  # the branch the region's yield became
    assert (10, "o9", "created") in _tuples(backward)


def _tuples(events: list[LineageEvent]) -> list[tuple[int, str, str]]:
    return [(e.step, e.op, e.action) for e in events]


def test_lineage_of_a_folded_chain(chain_trace: Trace) -> None:
    created = {s.index: [i["id"] for i in s.delta.get("ops_created", ())] for s in chain_trace.steps}
    folds = [s for s in chain_trace.steps if s.name == "FoldAddiChain"]
    assert len(folds) == 2
    first, second = folds
    first_new = first.delta["replaced"][0]["by"][0]
    events = _tuples(chain_trace.lineage(first.delta["replaced"][0]["op"]))
    # the first link was replaced by a new addi, which dce later erased
    assert (first.index, first_new, "created") in events
    assert first_new in created[first.index]
    assert any(op == first_new and action == "erased" for _, op, action in events)
    last = second.delta["replaced"][0]
    events = _tuples(chain_trace.lineage(last["by"][0]))
    assert (second.index, last["op"], "replaced") in events


def test_filters(seed_trace: Trace) -> None:
    changed = seed_trace.filter_steps(StepFilter(changed_only=True))
    assert [s.index for s in changed] == [1, 2, 3, 4, 5, 6, 7, *range(10, 17)]
    canon = seed_trace.filter_steps(StepFilter(pass_name="canonicalize"))
    assert [s.index for s in canon] == list(range(9, 18))
    assert [s.index for s in seed_trace.filter_steps(StepFilter(pattern="EXECUTE"))] == [2, 10]
    touching = seed_trace.filter_steps(StepFilter(touching="o5"))
    assert [s.index for s in touching] == [2, 10]
    both = seed_trace.filter_steps(StepFilter(pass_name="canonicalize", touching="o5"))
    assert [s.index for s in both] == [10]


def test_changed_only_keeps_flagged_steps() -> None:
    run = record(
        "func.func @f(%a: i32) -> i32 {\n  %m = arith.muli %a, %a : i32\n  func.return %m : i32\n}\n",
        "test-explode",
        extra_passes={"test-explode": ExplodingPass},
    )
    kept = run.trace.filter_steps(StepFilter(changed_only=True))
    assert [s.kind for s in kept if s.flag is not None] == ["failure"]


# -- layout and focus ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", VIEW_KINDS)
def test_positions_persist_across_steps(seed_trace: Trace, kind: ViewKind) -> None:
    view = TraceView(seed_trace)
    seen: dict[str, tuple[float, float]] = {}
    for step in [-1, *range(len(seed_trace.steps))]:
        drawn = view.graph(step, kind)
        for node, position in drawn.positions.items():
            assert seen.setdefault(node, position) == position, f"{node} moved at step {step}"
        cells = {(round(x), round(y)) for x, y in drawn.positions.values()}
        assert len(cells) == len(drawn.positions), f"nodes overlap at step {step}"
    # jumping straight to the last step keeps the initial IR's nodes where stepping put them
    jumped = TraceView(seed_trace).graph(14, kind).positions
    initial = set(build_graph(TraceStates(seed_trace).at(-1), kind).nodes)
    assert initial & set(jumped)
    assert {n: jumped[n] for n in initial & set(jumped)} == {n: seen[n] for n in initial & set(jumped)}


def test_boxes_are_drawn_above_what_they_hold(seed_trace: Trace) -> None:
    drawn = TraceView(seed_trace).graph(-1, "nesting")
    for parent, node in links(drawn.graph):
        assert drawn.positions[parent][1] < drawn.positions[node][1]


def test_layout_places_new_nodes_below_what_feeds_them() -> None:
    memory = LayoutMemory()
    graph = IRGraph()
    graph.add_edge("a", "b")
    first = memory.place(graph)
    graph.add_edge("b", "c")
    second = memory.place(graph)
    assert second["a"] == first["a"] and second["b"] == first["b"]
    assert second["c"][1] > second["b"][1]


def test_large_graphs_show_the_neighbourhood_of_the_change() -> None:
    trace = record(arith_module(600, seed=3), "cse").trace
    step = next(s.index for s in trace.steps if s.kind == "rewrite")
    full = step_graph(TraceStates(trace), step, "dataflow")
    assert full.number_of_nodes() > 100
    focused = focus(full, max_nodes=45)
    assert focused.note is not None and "of" in focused.note and "max_nodes=45" in focused.note
    assert focused.graph.number_of_nodes() <= 45
    changed = {n for n, a in full.nodes(data=True) if a["status"] != "unchanged"}
    assert changed and changed <= set(focused.graph.nodes)
    # every node keeps the boxes around it
    for node, attrs in focused.graph.nodes(data=True):
        assert attrs["parent"] is None or attrs["parent"] in focused.graph, node
    small = focus(full, max_nodes=10_000)
    assert small.note is None and small.graph is full


# -- exports ---------------------------------------------------------------------------------------


def test_node_link_json_matches_its_schema_and_round_trips(seed_trace: Trace) -> None:
    view = TraceView(seed_trace)
    for kind in VIEW_KINDS:
        data = view.node_link(7, kind)
        jsonschema.validate(data, graph_schema())
        text = json.dumps(data)
        back = nx.node_link_graph(json.loads(text), edges="edges")
        drawn = view.graph(7, kind)
        assert set(back.nodes) == set(drawn.graph.nodes)
        assert back.number_of_edges() == drawn.graph.number_of_edges()
        assert all("x" in n and "y" in n for n in data["nodes"])
        assert data["graph"] == {"kind": kind, "step": 7, "note": None}
        assert {e["key"] for e in data["edges"]} == {k for _, _, k in drawn.graph.edges(keys=True)}


def test_dot_export_parses_and_keeps_labels_and_status(seed_states: TraceStates) -> None:
    graph = step_graph(seed_states, 7, "dataflow")
    dot = to_dot(graph)
    parsed = pydot.graph_from_dot_data(dot)
    assert parsed is not None
    nodes = {n.get_name(): n for n in parsed[0].get_nodes() if n.get_name() not in ("node", "graph", "edge")}
    assert set(nodes) == set(graph.nodes)
    assert nodes["o3"].get("style") == '"filled,dashed"'  # the erased return
    assert nodes["o4"].get("fillcolor") == f'"{STATUS_COLORS["modified"]}"'
    assert "tt.return %v6 : i32" in nodes["o4"].get("tooltip")
    drawn = {(e.get_source(), e.get_destination()) for e in parsed[0].get_edges()}
    assert drawn == {(u, v) for u, v in graph.edges()} | set(links(graph))


EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?\s*https?:""", re.IGNORECASE)


def test_pyvis_html_is_offline(seed_trace: Trace) -> None:
    drawn = TraceView(seed_trace).graph(6, "cfg")
    page = offline_html(to_pyvis(drawn.graph, drawn.positions), drawn.note, drawn.box)
    assert not EXTERNAL.findall(page)
    assert "bootstrap" not in page.lower()
    assert "vis-network" in page and "new vis.Network" in page
    assert 'class="pv-legend"' in page


def test_strip_external_removes_multiline_tags() -> None:
    page = (
        '<head><link\n  href="https://cdn.example/x.css"\n rel="stylesheet"\n/>'
        '<script\n src="//cdn.example/x.js"\n crossorigin="anonymous"\n></script>'
        "<script>var keep = 1;</script></head>"
    )
    assert strip_external(page) == "<head><script>var keep = 1;</script></head>"


def test_id_named_text_is_valid_ir() -> None:
    text = id_text(TraceStates(record(BRANCHY, "canonicalize").trace).at(-1))
    assert "%v0" in text and "^b2(%v1 : i32)" in text
    parse_ir(text)


def test_the_viewer_graph_names_values_as_the_ir_pane_prints_them() -> None:
    """A node's value is named as ``passviz show`` prints it: the source's name, else MLIR's
    number in its function; never the trace's id (that shows on hover and in details)."""
    from passviz.trace.apply import ir_lines
    from passviz.view.printed import printed_names, printed_text
    from passviz.view.viewgraph import view_graph

    text = """func.func @f(%a: i32, %b: i32) -> i32 {
  %c = arith.addi %a, %b : i32
  %0 = arith.muli %c, %c : i32
  %1 = arith.subi %0, %a : i32
  func.return %1 : i32
}
"""
    trace = record(text, "canonicalize").trace
    states = TraceStates(trace)
    for step in range(-1, len(trace.steps)):
        state = states.at(step)
        names = printed_names(state, ir_lines(state)).values
        shown = printed_text(state, trace.meta)
        nodes, _ = view_graph(state)
        for node in nodes.values():
            found = re.match(r"%([^ ,]+)(?:, …)? = ", node.label)
            if found is None:
                continue
            assert found.group(1) == names[state.ops[node.id].results[0]]
            assert not re.fullmatch(r"v\d+", found.group(1))
            assert f"%{found.group(1)} = " in shown
