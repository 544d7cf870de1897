"""Golden fixtures: what Python says a trace means, for the viewer's model to match.

For each trace the test suite records, ``write_fixtures`` writes the trace
file, copies of it cut mid-line, and the expected meaning of every step from
passviz's pure-data reference (``passviz.trace.apply``, ``passviz.graph.
viewgraph``, ``passviz.trace.query``): the IR state (ops, blocks, regions,
values), the viewer's graph, the IR lines, the dispatch graph
(``passviz.view.dispatch``, as the trace's ``meta.dispatch`` defines it), each step's label and change counts, and every
op's lineage.  ``extension/test/golden.test.ts`` replays
the same files with the TypeScript model and compares.

To keep the files small, a long trace stores its full state and graph every
``EVERY`` steps (and at its last step); labels and counts are stored for
every step, lineage for every op.

    python -m tests.golden OUT_DIR
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from passviz.recording.initial import ensure_initial
from passviz.trace.apply import IRData, apply_delta, initial_state, ir_lines
from passviz.trace.model import DispatchVocabulary, Trace
from passviz.trace.query import lineage, op_names, step_label
from passviz.trace.store import write_trace
from passviz.trace.summary import step_counts
from passviz.view.alias_layout import layout_aliases
from passviz.view.dispatch import dispatch_graph
from passviz.view.printed import printed_names
from passviz.view.state import snapshot
from passviz.view.viewgraph import view_graph

_BLOCKED = [
    "#ttg.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>",
    "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>",
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>",
]
_ENCODED = "tensor<4xf32, #iree_encoding.testing<>>"
ALIASED_MODULE = f"""\
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32}} {{
  func.func @enc(%t: tensor<4xf32>) -> tensor<4xf32> {{
    %e = iree_encoding.set_encoding %t : tensor<4xf32> -> {_ENCODED}
    %u = iree_encoding.unset_encoding %e : {_ENCODED} -> tensor<4xf32>
    func.return %u : tensor<4xf32>
  }}
  tt.func @f(%x: tensor<4xf32, {_BLOCKED[0]}>) -> tensor<4xf32, {_BLOCKED[1]}> {{
    %z = arith.constant dense<1.0> : tensor<4x4xf32, {_BLOCKED[2]}>
    %y = arith.constant dense<1.0> : tensor<4xf32, {_BLOCKED[1]}>
    %w = arith.constant dense<1.0> : tensor<4xf32, {_BLOCKED[1]}>
    %s = arith.addf %y, %w : tensor<4xf32, {_BLOCKED[1]}>
    tt.return %s : tensor<4xf32, {_BLOCKED[1]}>
  }}
}}
"""
"""Attributes of both aliased kinds (``#encoding``, three ``#blocked``), interleaved, with steps
that erase and fold ops using them: the aliases the IR pane prints step by step."""

EVERY = 10
"""A trace longer than ``SHORT`` steps stores its state every this many steps."""
SHORT = 60


def _state(state: IRData) -> dict[str, Any]:
    """The state as plain lists (copies: the state goes on changing)."""
    return {
        "ops": {
            o.id: [o.name, o.block, [*o.operands], [*o.results], [*o.successors], [*o.regions], o.text]
            for o in state.ops.values()
        },
        "blocks": {b.id: [b.region, [*b.args], b.name, [*b.ops]] for b in state.blocks.values()},
        "regions": {r.id: [r.op, [*r.blocks]] for r in state.regions.values()},
        "values": {v.id: [v.type, v.name, v.owner, v.index, v.is_arg] for v in state.values.values()},
    }


def _graph(state: IRData) -> dict[str, Any]:
    nodes, edges = view_graph(state)
    return {
        "nodes": [[n.id, n.kind, n.parent, n.label, n.text] for n in nodes.values()],
        "edges": [[e.id, e.kind, e.source, e.target, e.label] for e in edges.values()],
    }


def _dispatch(state: IRData, hints: DispatchVocabulary | None) -> dict[str, Any]:
    """The dispatch graph as the trace's ``meta.dispatch`` defines it (none without one)."""
    nodes, edges = dispatch_graph(snapshot(state), hints)
    return {
        "nodes": [[n.id, n.kind, n.parent, n.label, [*n.members]] for n in nodes.values()],
        "edges": [[e.id, e.kind, e.source, e.target, e.label] for e in edges.values()],
    }


def expectations(trace: Trace) -> dict[str, Any]:
    """What every step of ``trace`` means, as the fixture stores it."""
    initial = ensure_initial(trace)
    state = initial_state(initial)
    names = op_names(initial["delta"], trace.steps)
    keep = len(trace.steps) <= SHORT
    steps: list[dict[str, Any]] = []
    for index in range(-1, len(trace.steps)):
        if index >= 0:
            apply_delta(state, trace.steps[index].delta)
        record: dict[str, Any] = {"step": index}
        if index >= 0:
            step = trace.steps[index]
            record["label"] = step_label(step, names)
            record["counts"] = step_counts(step)
        if keep or index % EVERY == 0 or index == len(trace.steps) - 1:
            record["state"] = _state(state)
            record["graph"] = _graph(state)
            record["dispatch"] = _dispatch(state, trace.meta.get("dispatch"))
            lines = ir_lines(state)
            record["lines"] = [line.text for line in lines]
            printed = printed_names(state, lines)
            record["names"] = {"values": printed.values, "blocks": printed.blocks}
            record["aliases"] = layout_aliases(record["lines"], trace.meta.get("aliases")).definitions
        steps.append(record)
    every_op = sorted(names, key=lambda i: int(i[1:]))
    history = {
        op: [[e.step, e.op, e.action, list(e.by), e.text] for e in lineage(trace.steps, op)]
        for op in every_op
    }
    return {"steps": steps, "lineage": history}


def _cuts(text: str) -> Iterator[tuple[str, str, int]]:
    """Copies of a trace cut inside its third and its last step record, and inside the header.

    Each with the number of steps a reader must open; -1 for the cut header,
    which Python opens as an empty trace and the viewer refuses (it has no
    initial IR to draw).
    """
    lines = text.splitlines(keepends=True)
    starts = [sum(len(line) for line in lines[:i]) for i in range(len(lines))]
    if len(lines) > 4:
        yield "cut-early", text[: starts[3] + len(lines[3]) // 2], 2
        last = len(lines) - 2  # the last step record, before the end record
        yield "cut-late", text[: starts[last] + len(lines[last]) // 2], last - 1
    yield "cut-header", text[: len(lines[0]) // 2], -1


def write_fixtures(folder: Path, traces: dict[str, Callable[[], Trace]]) -> list[str]:
    """Write the fixtures of ``traces`` into ``folder``; returns the names written."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    for name, make in traces.items():
        trace = make()
        path = folder / f"{name}.passviz.json"
        write_trace(trace, path)
        (folder / f"{name}.expected.json").write_text(json.dumps(expectations(trace)), encoding="utf-8")
        text = path.read_text(encoding="utf-8")
        for suffix, cut, steps in _cuts(text):
            (folder / f"{name}.{suffix}.passviz.json").write_text(cut, encoding="utf-8")
            (folder / f"{name}.{suffix}.steps").write_text(str(steps), encoding="utf-8")
        written.append(name)
    return written


def recorded_traces() -> dict[str, Callable[[], Trace]]:
    """The traces the suite records: seed 000, inline, fold-unstructured-ptr, iree-flow, and make-ttir with triton."""
    from passviz.pipelines import record
    from tests import long_traces
    from tests.conftest import PEER
    from tests.test_inline import CASES, LOOP_IN_FOR, TWO_CALLS

    traces: dict[str, Callable[[], Trace]] = {
        "seed000": long_traces.seed_trace,
        "inline-two-calls": lambda: record(TWO_CALLS, "inline").trace,
        "wrap-inline-loop": lambda: record(LOOP_IN_FOR, "wrap-func-body-with-single-block,inline").trace,
    }
    for case in list(CASES)[:3]:
        traces[f"inline-{case}"] = lambda case=case: record(CASES[case], "inline").trace
    unstructured = PEER / "triton-shared/test/Conversion/TritonToUnstructured"
    for name in ("gather_simple_loop.mlir", "gather_nested.mlir"):
        if (unstructured / name).exists():
            text = (unstructured / name).read_text(encoding="utf-8")
            traces[f"fold-{name[:-5]}"] = lambda text=text: record(text, "fold-unstructured-ptr").trace
    traces["canonicalize-cse-300"] = lambda: long_traces.big_trace(300)
    traces["aliases-blocked-encoding"] = lambda: record(ALIASED_MODULE, "cse,canonicalize").trace
    from tests.iree_support import SEED_MATMUL

    traces["iree-flow-matmul-bias"] = lambda: record(SEED_MATMUL, "iree-flow").trace
    from tests.triton_oracle import triton_missing

    if triton_missing() is None:
        from tests.triton_kernels import KERNELS
        from tests.triton_oracle import frontend_ir

        for kernel in KERNELS:
            traces[f"make-ttir-{kernel}"] = lambda kernel=kernel: (
                record(frontend_ir(kernel), "make-ttir").trace
            )
    return traces


if __name__ == "__main__":
    print("\n".join(write_fixtures(Path(sys.argv[1]), recorded_traces())))
