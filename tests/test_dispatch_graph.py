"""The dispatch graph (``passviz.view.dispatch``) on the seed's matmul + bias-add through ``iree-flow``.

It follows the trace: before form-dispatch-regions the matmul and the generic
are nodes of their own; once they join a region, the region is one node that
computes both and takes over their tensors; after outlining, the
``flow.dispatch`` calls its executable.  Where the function holds only
dispatches and host ops (from the workgroups on), its nodes and tensors are
those ``iree-opt --iree-flow-dump-dispatch-graph-pass`` draws.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

from passviz.compilers.registry import recorded_dispatch
from passviz.ir.printer import print_module
from passviz.pipelines import record
from passviz.recording.replay import Replayer
from passviz.trace.apply import IRData
from passviz.trace.model import Trace
from passviz.view import dispatch as dispatch_module
from passviz.view.dispatch import dispatch_graph
from passviz.view.printed import printed_text
from passviz.view.state import TraceStates, ops_named
from tests.conftest import iree_opt_missing, need
from tests.iree_support import SEED_EXAMPLES, SEED_MATMUL, run_iree_opt

HINTS = recorded_dispatch()
"""The vocabulary the traces record (``meta.dispatch``): IREE's."""


@pytest.fixture(scope="module")
def trace() -> Trace:
    return record(SEED_MATMUL, "iree-flow").trace


def _named(state: IRData, name: str) -> str:
    (found,) = ops_named(state, name)
    return found


def _edges(state: IRData) -> Counter[tuple[str, str]]:
    """The tensor edges as (source, target) op names (``arg`` for an argument)."""
    nodes, edges = dispatch_graph(state, HINTS)
    name = {
        n.id: "arg" if n.kind == "arg" else state.ops[n.id].name for n in nodes.values() if n.kind != "func"
    }
    return Counter((name[e.source], name[e.target]) for e in edges.values() if e.kind == "tensor")


def _members(state: IRData) -> list[list[str]]:
    """Each dispatch node's member op names."""
    nodes, _ = dispatch_graph(state, HINTS)
    return [[state.ops[m].name for m in n.members] for n in nodes.values() if n.kind == "dispatch"]


def _top(state: IRData) -> list[str]:
    """The op names of the function-level nodes."""
    nodes, _ = dispatch_graph(state, HINTS)
    return [state.ops[n.id].name for n in nodes.values() if n.kind in {"op", "dispatch", "return"}]


def test_the_trace_records_its_vocabulary_and_without_one_there_is_no_graph(trace: Trace) -> None:
    assert HINTS is not None and trace.meta.get("dispatch") == HINTS
    assert "flow.dispatch.region" in HINTS["dispatch_ops"] and HINTS["call_op"] == "flow.dispatch"
    last = TraceStates(trace).at(len(trace.steps) - 1)
    assert dispatch_graph(last, None) == ({}, {})


def test_the_graph_code_names_no_op() -> None:
    """Which ops play which part is the trace's (``meta.dispatch``): no string in the code is an op name."""
    source = Path(dispatch_module.__file__).read_text(encoding="utf-8")
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    named = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and re.search(r"\b[a-z_]+\.[a-z_]+", node.value)
    ]
    assert named == []


def test_the_graph_follows_the_ops_into_their_region(trace: Trace) -> None:
    states = TraceStates(trace)
    first = min(s.index for s in trace.steps if s.dispatch)
    before, after = states.at(first - 1), states.at(first)
    assert _members(before) == []
    assert {"linalg.matmul", "linalg.generic"} <= set(_top(before))
    # The wrap puts the generic (the region's root) in; the matmul joins at the next step.
    assert _members(after) == [["linalg.generic"]]
    assert "linalg.matmul" in _top(after) and "linalg.generic" not in _top(after)
    nodes, _ = dispatch_graph(after, HINTS)
    assert [n.id for n in nodes.values() if n.kind == "dispatch"] == [trace.steps[first].dispatch[0][0]]  # type: ignore[index]
    formed = max(
        s.index for s in trace.steps if s.pass_name == "iree-dispatch-creation-form-dispatch-regions"
    )
    state = states.at(formed)
    assert _members(state) == [["linalg.matmul", "linalg.generic"]]
    assert _top(state) == [
        "hal.tensor.import",
        "hal.tensor.import",
        "hal.tensor.import",
        "tensor.empty",
        "linalg.fill",
        "flow.dispatch.region",
        "hal.tensor.export",
        "util.return",
    ]
    # The region reads what it captures (the imports, the fill, the empty tensor) and feeds the export.
    edges = _edges(state)
    assert edges[("hal.tensor.import", "flow.dispatch.region")] == 3
    assert edges[("linalg.fill", "flow.dispatch.region")] == 1
    assert edges[("flow.dispatch.region", "hal.tensor.export")] == 1
    # clone-producers copies the fill in: the region then computes it too.
    cloned = max(
        s.index
        for s in trace.steps
        if s.pass_name == "iree-dispatch-creation-clone-producers-into-dispatch-regions"
    )
    assert _members(states.at(cloned)) == [["linalg.fill", "linalg.matmul", "linalg.generic"]]
    assert "linalg.fill" not in _top(states.at(cloned))


def test_an_outlined_dispatch_calls_its_executable(trace: Trace) -> None:
    state = TraceStates(trace).at(len(trace.steps) - 1)
    nodes, edges = dispatch_graph(state, HINTS)
    call, executable = _named(state, "flow.dispatch"), _named(state, "flow.executable")
    assert nodes[call].label == "flow.dispatch @test_dispatch_0::@test_dispatch_0"
    assert nodes[executable].label == "flow.executable @test_dispatch_0"
    assert [state.ops[m].name for m in nodes[executable].members] == [
        "linalg.fill",
        "linalg.matmul",
        "linalg.generic",
    ]
    assert [(e.source, e.target) for e in edges.values() if e.kind == "calls"] == [(call, executable)]


def _dot_edges(dot: str) -> Counter[tuple[str, str]]:
    """The edges between a dump's function-level nodes, as (source, target) op names."""
    names: dict[str, str] = {}
    for node, label in re.findall(
        r"^    (v\d+) \[shape = \w+, label = \"((?:[^\"\\]|\\.)*)\"\];$", dot, re.M
    ):
        names[node] = (
            "arg"
            if re.fullmatch(r"arg\d+", label)
            else re.sub(r"^%[\w.$-]* = |^ = |\[\]$", "", label.split("\\n")[0])
        )
    for cluster, label in re.findall(
        r"^    subgraph (cluster_\d+) \{\n\s+v\d+ .*\n\s+label = \"([^\"\\]*)", dot, re.M
    ):
        names[cluster] = label
    found: Counter[tuple[str, str]] = Counter()
    for source, target, rest in re.findall(r"^  (v\d+) -> (v\d+) \[([^\]]*)\];$", dot, re.M):
        head = re.search(r"lhead = (cluster_\d+)", rest)
        tail = re.search(r"ltail = (cluster_\d+)", rest)
        source = tail.group(1) if tail else source
        target = head.group(1) if head else target
        if source in names and target in names:
            found[(names[source], names[target])] += 1
    return found


@pytest.mark.iree
@pytest.mark.parametrize("model", ["matmul_bias_util", *SEED_EXAMPLES])
def test_the_graph_is_iree_opts_once_the_function_holds_only_dispatches(model: str, tmp_path: Path) -> None:
    """After the workgroups are formed and at the last step, on each of the seed's models."""
    need(iree_opt_missing())
    trace = record(SEED_MATMUL if model == "matmul_bias_util" else SEED_EXAMPLES[model], "iree-flow").trace
    # Once every region is workgroups: IREE's dump draws no edge for a value a region captures.
    workgroups = max(
        s.index
        for s in trace.steps
        if s.pass_name == "iree-dispatch-creation-convert-dispatch-regions-to-workgroups"
    )
    replayer = Replayer(trace)
    states = TraceStates(trace)
    for step in (workgroups, len(trace.steps) - 1):
        replayer.advance_to(step)
        dot = tmp_path / f"step{step}.dot"
        run_iree_opt(
            print_module(replayer.module),
            f"--pass-pipeline=builtin.module(iree-flow-dump-dispatch-graph-pass{{output-file={dot}}})",
            "-o",
            "/dev/null",
        )
        theirs = _dot_edges(dot.read_text(encoding="utf-8"))
        assert theirs and _edges(states.at(step)) == theirs, step


def test_arguments_are_labelled_as_the_cli_prints_them(trace: Trace) -> None:
    """An argument node says ``%arg0: tensor<…>``, the name ``passviz show`` prints in the
    function's signature, not the trace's value id."""
    states = TraceStates(trace)
    for step in (-1, len(trace.steps) - 1):
        state = states.at(step)
        text = printed_text(state, trace.meta)
        nodes, _ = dispatch_graph(state, HINTS)
        labels = [n.label for n in nodes.values() if n.kind == "arg"]
        assert labels
        for label in labels:
            name, kind = label.split(": ", 1)
            assert re.fullmatch(r"%arg\d+", name), label
            assert f"{name}: {kind}" in text, label
