"""The viewer's graph of a step as a networkx graph: what ``show_graph`` and the exports draw.

Nodes and edges are ``passviz.view.viewgraph``'s, keyed by their stable ids
(the same op is the same node at every step), with the viewer's vocabulary.
Node attributes:

- ``kind``: ``op``, ``box`` (an op holding regions), ``region`` (one of
  several regions of a box), ``block`` or ``arg`` (a block argument);
- ``parent``: the box, region or block drawn around it (None at the top);
- ``label``: what the viewer writes on it; ``text``: the IR it stands for;
- ``status``: ``added``, ``modified``, ``erased`` (a ghost from the step
  before) or ``unchanged``, as ``passviz.view.diff`` computes them.

Edges are keyed by their ids and carry ``kind`` (``use``: from a value's
definition to a use; ``branch``: from a block to a successor), ``label``
(the value for a use, the branch op for a branch) and ``status``.  A view
kind (``all``, ``dataflow``, ``cfg``, ``nesting``) chooses the edge kinds,
as the viewer's edge toggles do; every view has every node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

import networkx as nx

from passviz.trace.apply import IRData
from passviz.view.diff import DiffGraph, diff_graphs, step_diff
from passviz.view.state import TraceStates
from passviz.view.viewgraph import EDGE_KINDS, ViewKind, view_graph

if TYPE_CHECKING:
    IRGraph: TypeAlias = nx.MultiDiGraph[str]
else:  # networkx's classes take no type arguments at run time
    IRGraph = nx.MultiDiGraph
"""A directed multigraph keyed by trace ids: two nodes may share several edges."""


def to_networkx(diff: DiffGraph, kind: ViewKind = "all") -> IRGraph:
    """``diff``'s nodes (in its order) and the edges of the kinds ``kind`` draws, with their statuses."""
    if kind not in EDGE_KINDS:
        raise ValueError(f"kind must be one of {', '.join(EDGE_KINDS)}, not {kind!r}")
    graph = IRGraph(kind=kind)
    for node in diff.nodes.values():
        graph.add_node(
            node.id,
            kind=node.kind,
            parent=node.parent,
            label=node.label,
            text=node.text,
            status=diff.node_status[node.id],
        )
    shown = EDGE_KINDS[kind]
    for edge in diff.edges.values():
        if edge.kind in shown:
            graph.add_edge(
                edge.source,
                edge.target,
                key=edge.id,
                kind=edge.kind,
                label=edge.label,
                status=diff.edge_status[edge.id],
            )
    return graph


def build_graph(state: IRData, kind: ViewKind = "all") -> IRGraph:
    """The viewer's graph of ``state``, every node and edge ``unchanged``."""
    drawn = view_graph(state)
    return to_networkx(diff_graphs(drawn, drawn), kind)


def step_graph(states: TraceStates, step: int, kind: ViewKind = "all") -> IRGraph:
    """The viewer's graph after ``step`` (-1: the initial IR), with statuses against the step before."""
    return to_networkx(step_diff(states, step), kind)


def changed_nodes(graph: IRGraph) -> list[str]:
    """The nodes whose status is not ``unchanged``, in graph order."""
    return [n for n, attrs in graph.nodes(data=True) if attrs.get("status") != "unchanged"]


def links(graph: IRGraph) -> list[tuple[str, str]]:
    """What a drawing joins: each edge, and each node to the box, region or block around it.

    The viewer draws a node inside its parent; a static figure draws a link
    from the parent instead.
    """
    found = [(u, v) for u, v in graph.edges()]
    for node, attrs in graph.nodes(data=True):
        parent: object = attrs.get("parent")
        if isinstance(parent, str) and parent in graph:
            found.append((parent, node))
    return found
