"""Rich display in notebooks: a trace shows in the viewer, one step's graph as a static offline page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from passviz.trace.model import Trace
from passviz.view.view import DEFAULT_MAX_NODES, StepGraph, TraceView
from passviz.view.viewgraph import ViewKind
from passviz.widget.html import FIGURE_CSS, graph_frame, step_header
from passviz.widget.stepper import viewer_bundle


def trace_bundle(trace: Trace) -> dict[str, Any]:
    """What evaluating a trace in a kernel shows: the viewer (the extension's, else in an iframe)."""
    return viewer_bundle(trace)


@dataclass
class GraphFigure:
    """One step's graph, shown as a static offline pyvis page (no widgets needed)."""

    trace: Trace
    drawn: StepGraph
    height: int = 520

    def _repr_html_(self) -> str:
        header = step_header(self.trace, self.drawn.step)
        return f"<style>{FIGURE_CSS}</style>{header}{graph_frame(self.drawn, self.height)}"


def show_graph(
    trace: Trace,
    step: int,
    kind: ViewKind = "dataflow",
    *,
    view: TraceView | None = None,
    max_nodes: int = DEFAULT_MAX_NODES,
    height: int = 520,
) -> GraphFigure:
    """The viewer's graph after ``step`` (-1: the initial IR), coloured against the step before.

    A static, offline pyvis figure of the graph the viewer draws: its nodes
    (ops, boxes, regions, blocks, block arguments), each linked from the box
    it sits in, and the edges ``kind`` chooses, as the viewer's toggles do:
    ``"all"``, ``"dataflow"`` (uses), ``"cfg"`` (branches) or ``"nesting"``
    (none).  Pass the same ``view`` for a series of steps, so nodes keep
    their places.
    """
    view = view or TraceView(trace, max_nodes=max_nodes)
    if not -1 <= step < len(trace.steps):
        raise IndexError(
            f"step {step} is out of range: -1 is the initial IR, then 0 to {len(trace.steps) - 1}"
        )
    return GraphFigure(trace, view.graph(step, kind), height)
