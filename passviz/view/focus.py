"""Keeping large graphs usable: show the neighbourhood of what changed."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from passviz.view.builders import IRGraph
from passviz.view.diff import changed_nodes


@dataclass(frozen=True)
class Focused:
    """A graph cut down to at most a given size, and a note saying how."""

    graph: IRGraph
    note: str | None
    """None when the whole graph is shown."""


def focus(graph: IRGraph, max_nodes: int, radius: int = 2) -> Focused:
    """The whole graph if it has at most ``max_nodes`` nodes, else the changed nodes' neighbourhood.

    The neighbourhood shrinks from ``radius`` edges down to the changed nodes
    alone until it fits; with nothing changed, the first ``max_nodes`` nodes
    in IR order are shown.
    """
    total = graph.number_of_nodes()
    if total <= max_nodes:
        return Focused(graph, None)
    changed = changed_nodes(graph)
    if not changed:
        keep = list(graph.nodes)[:max_nodes]
        note = f"Showing the first {len(keep)} of {total} nodes: this step changed nothing here."
        return Focused(graph.subgraph(keep).copy(), note)
    undirected = nx.Graph(graph)
    for r in range(radius, -1, -1):
        keep_set: set[str] = set()
        for node in changed:
            keep_set.update(nx.single_source_shortest_path_length(undirected, node, cutoff=r))
        if len(keep_set) <= max_nodes:
            note = (
                f"Showing {len(keep_set)} of {total} nodes: the {len(changed)} changed nodes"
                + (f" and their neighbours within {r} edges" if r else "")
                + f" (the limit is max_nodes={max_nodes})."
            )
            return Focused(graph.subgraph(keep_set).copy(), note)
    keep = changed[:max_nodes]
    note = (
        f"Showing {len(keep)} of the {len(changed)} changed nodes out of {total} "
        f"(the limit is max_nodes={max_nodes})."
    )
    return Focused(graph.subgraph(keep).copy(), note)
