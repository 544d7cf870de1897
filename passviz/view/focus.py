"""Keeping large graphs usable: show the neighbourhood of what changed."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from passviz.view.graph import IRGraph, changed_nodes


@dataclass(frozen=True)
class Focused:
    """A graph cut down to at most a given size, and a note saying how."""

    graph: IRGraph
    note: str | None
    """None when the whole graph is shown."""


def _with_boxes(graph: IRGraph, nodes: set[str]) -> set[str]:
    """``nodes`` and every box, region and block drawn around them."""
    kept = set(nodes)
    for node in nodes:
        parent = graph.nodes[node].get("parent")
        while parent is not None and parent in graph and parent not in kept:
            kept.add(parent)
            parent = graph.nodes[parent].get("parent")
    return kept


def _cut(graph: IRGraph, keep: set[str]) -> IRGraph:
    """``graph`` with only ``keep``, in its order."""
    return graph.subgraph([n for n in graph.nodes if n in keep]).copy()


def focus(graph: IRGraph, max_nodes: int, radius: int = 2) -> Focused:
    """The whole graph if it has at most ``max_nodes`` nodes, else the changed nodes' neighbourhood.

    The neighbourhood (along the graph's edges, with the boxes around what it
    holds) shrinks from ``radius`` edges down to the changed nodes alone until
    it fits; with nothing changed, the first ``max_nodes`` nodes in IR order
    (boxes first) are shown.
    """
    total = graph.number_of_nodes()
    if total <= max_nodes:
        return Focused(graph, None)
    changed = changed_nodes(graph)
    if not changed:
        keep = list(graph.nodes)[:max_nodes]
        note = f"Showing the first {len(keep)} of {total} nodes: this step changed nothing here."
        return Focused(_cut(graph, set(keep)), note)
    undirected: nx.Graph[str] = nx.Graph(graph)
    for r in range(radius, -1, -1):
        near: set[str] = set()
        for node in changed:
            near.update(nx.single_source_shortest_path_length(undirected, node, cutoff=r))
        keep_set = _with_boxes(graph, near)
        if len(keep_set) <= max_nodes:
            note = (
                f"Showing {len(keep_set)} of {total} nodes: the {len(changed)} changed nodes"
                + (f" and their neighbours within {r} edges" if r else "")
                + f", with their boxes (the limit is max_nodes={max_nodes})."
            )
            return Focused(_cut(graph, keep_set), note)
    kept: set[str] = set()
    shown = 0
    for node in changed:
        more = _with_boxes(graph, kept | {node})
        if len(more) > max_nodes:
            break
        kept, shown = more, shown + 1
    note = (
        f"Showing {shown} of the {len(changed)} changed nodes out of {total}, with their boxes "
        f"(the limit is max_nodes={max_nodes})."
    )
    return Focused(_cut(graph, kept), note)
