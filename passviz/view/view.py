"""Everything a renderer shows for one step, computed from a trace.

A ``TraceView`` holds the IR states, the viewer's graph of recent steps and
one remembered layout per view kind, so that stepping back and forth keeps
nodes where they were.  ``show_graph`` draws it; other renderers can take
its node-link data.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from passviz.trace.apply import IRData
from passviz.trace.model import Trace
from passviz.trace.query import LineageEvent
from passviz.view.diff import DiffGraph, DiffRow, diff_graphs, step_ir_diff, touched_by
from passviz.view.export import ViewBox, to_node_link, view_box
from passviz.view.focus import focus
from passviz.view.graph import IRGraph, changed_nodes, to_networkx
from passviz.view.layout import LayoutMemory, Position
from passviz.view.state import TraceStates, id_text, ops_named, parents
from passviz.view.viewgraph import ViewGraph, ViewKind, view_graph

DEFAULT_MAX_NODES = 250
"""Above this many nodes a step's graph is cut down to the changed nodes' neighbourhood."""


@dataclass(frozen=True)
class StepGraph:
    """One graph of one step, ready to draw."""

    step: int
    kind: ViewKind
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
    """The viewer's graph, diffs and details for any step of a trace, with stable layouts."""

    def __init__(self, trace: Trace, max_nodes: int = DEFAULT_MAX_NODES) -> None:
        self.trace = trace
        self.max_nodes = max_nodes
        self.states = TraceStates(trace)
        self._layouts: dict[ViewKind, LayoutMemory] = {}
        self._graphs: OrderedDict[int, ViewGraph] = OrderedDict()

    def _built(self, step: int) -> ViewGraph:
        """The viewer's graph after ``step``; kept, since stepping on reuses it as the step before."""
        graph = self._graphs.get(step)
        if graph is None:
            graph = view_graph(self.states.at(step))
            self._graphs[step] = graph
            if len(self._graphs) > 8:
                self._graphs.popitem(last=False)
        return graph

    def step_diff(self, step: int) -> DiffGraph:
        """The viewer's graph after ``step`` (-1: the initial IR), statuses against the step before."""
        if step < 0:
            initial = self._built(-1)
            return diff_graphs(initial, initial)
        before = self._built(step - 1)  # first: states are rebuilt forward
        return diff_graphs(before, self._built(step), touched_by(self.trace.steps[step]))

    def _layout(self, kind: ViewKind) -> LayoutMemory:
        memory = self._layouts.get(kind)
        if memory is None:
            memory = LayoutMemory()
            # The initial IR is the common base, wherever the user jumps first.
            memory.place(focus(to_networkx(self.step_diff(-1), kind), self.max_nodes).graph)
            self._layouts[kind] = memory
        return memory

    def graph(self, step: int, kind: ViewKind = "all") -> StepGraph:
        """The graph of ``kind`` after ``step`` (-1: the initial IR), statuses against the step before."""
        if step < -1:
            raise IndexError(f"step {step}: -1 is the initial IR; count steps from 0")
        full = to_networkx(self.step_diff(step), kind)
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

    def state(self, step: int) -> IRData:
        """The IR state after ``step`` (``passviz.trace.apply``'s plain data; do not modify it)."""
        return self.states.at(step)

    def id_text(self, step: int) -> str:
        """The IR after ``step``, values and blocks named by their stable ids (``%v3``, ``^b2``)."""
        return id_text(self.states.at(step))

    def ops_named(self, step: int, name: str) -> list[str]:
        """The ids of the ops called ``name`` after ``step``, in IR order."""
        return ops_named(self.states.at(step), name)

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
        chain = tuple(f"{p} {state.ops[p].name}" if p in state.ops else p for p in parents(state, op.id))
        attrs = (*op.props.items(), *op.attrs.items())
        return OpDetails(op.id, op.name, op.text, attrs, op.loc, chain, lineage, alive)

    def node_link(self, step: int, kind: ViewKind = "all") -> dict[str, Any]:
        """The step's graph as node-link JSON with positions (see ``graph.schema.json``)."""
        drawn = self.graph(step, kind)
        return to_node_link(drawn.graph, drawn.positions, step=step, note=drawn.note)
