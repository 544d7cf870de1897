"""Everything a renderer shows for one step, computed from a trace.

A ``TraceView`` holds the replay cache and one remembered layout per graph
kind, so that stepping back and forth keeps nodes where they were.  The
notebook stepper renders it; other renderers can take its node-link data.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from passviz.trace.model import Trace
from passviz.trace.query import LineageEvent
from passviz.view.builders import GraphKind, IRGraph, build_graph
from passviz.view.diff import DiffRow, changed_nodes, step_graph, step_ir_diff
from passviz.view.export import ViewBox, to_node_link, view_box
from passviz.view.focus import focus
from passviz.view.layout import LayoutMemory, Position
from passviz.view.state import IRState, TraceStates

DEFAULT_MAX_NODES = 250
"""Above this many nodes a step's graph is cut down to the changed nodes' neighbourhood."""


@dataclass(frozen=True)
class StepGraph:
    """One graph of one step, ready to draw."""

    step: int
    kind: GraphKind
    graph: IRGraph
    """The graph, possibly cut down (see ``note``), with statuses and ghosts."""
    positions: dict[str, Position]
    note: str | None
    """Set when the graph was cut down to the neighbourhood of the changes."""
    box: ViewBox
    """The area to show: every position this view has placed so far, so the picture holds still."""
    total_nodes: int
    """The node count of the whole graph."""

    @property
    def changed(self) -> list[str]:
        """The nodes the step added, modified or erased."""
        return changed_nodes(self.graph)


@dataclass(frozen=True)
class OpDetails:
    """What the details box shows for one op at one step."""

    id: str
    name: str
    text: str
    attrs: tuple[tuple[str, str], ...]
    loc: str | None
    parents: tuple[str, ...]
    """The enclosing ops, regions and blocks, outermost first (ops with their names)."""
    lineage: list[LineageEvent]
    alive: bool
    """False when the op does not exist at this step (erased, or not yet created)."""


class TraceView:
    """Graphs, diffs and details for any step of a trace, with stable layouts."""

    def __init__(self, trace: Trace, max_nodes: int = DEFAULT_MAX_NODES) -> None:
        self.trace = trace
        self.max_nodes = max_nodes
        self.states = TraceStates(trace)
        self._layouts: dict[GraphKind, LayoutMemory] = {}
        self._graphs: OrderedDict[tuple[int, GraphKind], IRGraph] = OrderedDict()

    def _layout(self, kind: GraphKind) -> LayoutMemory:
        memory = self._layouts.get(kind)
        if memory is None:
            memory = LayoutMemory()
            # The initial IR is the common base, wherever the user jumps first.
            initial = step_graph(self.states, -1, kind, lambda index: self._built(index, kind))
            memory.place(focus(initial, self.max_nodes).graph)
            self._layouts[kind] = memory
        return memory

    def _built(self, step: int, kind: GraphKind) -> IRGraph:
        """The plain graph after ``step``; kept, since stepping on reuses it as the step before."""
        key = (step, kind)
        graph = self._graphs.get(key)
        if graph is None:
            graph = build_graph(self.states.at(step), kind)
            self._graphs[key] = graph
            if len(self._graphs) > 8:
                self._graphs.popitem(last=False)
        return graph

    def graph(self, step: int, kind: GraphKind) -> StepGraph:
        """The graph of ``kind`` after ``step`` (-1: the initial IR), statuses against the step before."""
        if step < -1:
            raise IndexError(f"step {step}: -1 is the initial IR; count steps from 0")
        full = step_graph(self.states, step, kind, lambda index: self._built(index, kind))
        focused = focus(full, self.max_nodes)
        memory = self._layout(kind)
        positions = memory.place(focused.graph)
        box = view_box(memory.positions)
        return StepGraph(step, kind, focused.graph, positions, focused.note, box, full.number_of_nodes())

    def diff(self, step: int, context: int = 3) -> list[DiffRow]:
        """The IR diff of ``step`` against the step before (nothing for -1)."""
        if step < 0:
            return []
        return step_ir_diff(self.states, step, context=context)

    def state(self, step: int) -> IRState:
        """The IR state after ``step``."""
        return self.states.at(step)

    def details(self, step: int, op_id: str) -> OpDetails:
        """An op's text, attributes, location, parents and lineage, at ``step``.

        An op erased by ``step`` is described as the step before left it.
        """
        state = self.states.at(step)
        alive = op_id in state.ops
        if not alive and step >= 0 and op_id in self.states.before(step).ops:
            state = self.states.before(step)
        op = state.ops.get(op_id)
        lineage = self.trace.lineage(op_id)
        if op is None:
            return OpDetails(op_id, "", "", (), None, (), lineage, False)
        parents = tuple(f"{p} {state.ops[p].name}" if p in state.ops else p for p in state.parents(op.id))
        return OpDetails(op.id, op.name, op.text, op.attrs, op.loc, parents, lineage, alive)

    def node_link(self, step: int, kind: GraphKind) -> dict[str, Any]:
        """The step's graph as node-link JSON with positions (see ``graph.schema.json``)."""
        drawn = self.graph(step, kind)
        return to_node_link(drawn.graph, drawn.positions, step=step, note=drawn.note)
