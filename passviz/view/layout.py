"""Node positions that stay put from step to step.

The first graph gets a layered layout (definitions above uses, boxes above
what they hold).  After that, a node keeps the position it was first given;
a new node is put next to its already placed neighbours, below what feeds
it, and nudged sideways until it overlaps nothing.
"""

from __future__ import annotations

from collections.abc import Hashable

import networkx as nx

from passviz.view.graph import IRGraph, links

Position = tuple[float, float]


def drawn_links(graph: IRGraph) -> nx.DiGraph[str]:
    """``graph``'s nodes, in order, joined as a drawing joins them (``links``)."""
    simple: nx.DiGraph[str] = nx.DiGraph()
    simple.add_nodes_from(graph.nodes)
    simple.add_edges_from(links(graph))
    return simple


def layered_layout(graph: IRGraph, dx: float = 190.0, dy: float = 90.0) -> dict[str, Position]:
    """Longest-path layers top to bottom, ordered in each layer by the mean x of their predecessors.

    Cycles (loops in a CFG) are collapsed first, so every graph has layers.
    """
    return _layered(drawn_links(graph), dx, dy)


def _layered(simple: nx.DiGraph[str], dx: float, dy: float) -> dict[str, Position]:
    if simple.number_of_nodes() == 0:
        return {}
    dag = nx.condensation(simple)
    layer_of_component: dict[Hashable, int] = {}
    for component in nx.topological_sort(dag):
        preds = [layer_of_component[p] for p in dag.predecessors(component)]
        layer_of_component[component] = max(preds) + 1 if preds else 0
    order = {node: index for index, node in enumerate(simple.nodes)}
    layers: dict[int, list[str]] = {}
    for node in simple.nodes:
        layer = layer_of_component[dag.graph["mapping"][node]]
        layers.setdefault(layer, []).append(node)
    positions: dict[str, Position] = {}
    for layer in sorted(layers):
        nodes = layers[layer]
        nodes.sort(key=lambda n: (_mean_x(simple, n, positions, order[n] * dx), order[n]))
        start = -((len(nodes) - 1) // 2) * dx  # whole cells, so placements later line up
        for index, node in enumerate(nodes):
            positions[node] = (start + index * dx, layer * dy)
    return positions


def _mean_x(graph: nx.DiGraph[str], node: str, placed: dict[str, Position], default: float) -> float:
    xs = [placed[p][0] for p in graph.predecessors(node) if p in placed]
    return sum(xs) / len(xs) if xs else default


class LayoutMemory:
    """Remembers every node's position, so a node never moves once placed."""

    def __init__(self, dx: float = 190.0, dy: float = 90.0) -> None:
        self.dx = dx
        self.dy = dy
        self.positions: dict[str, Position] = {}
        """Every node placed so far, by id (ids are never reused)."""

    def place(self, graph: IRGraph) -> dict[str, Position]:
        """Positions for every node of ``graph``: remembered ones kept, new ones placed."""
        simple = drawn_links(graph)
        if not self.positions:
            self.positions.update(_layered(simple, self.dx, self.dy))
            return {n: self.positions[n] for n in graph.nodes}
        fresh = [n for n in graph.nodes if n not in self.positions]
        if fresh:
            self._place_new(simple, fresh)
        return {n: self.positions[n] for n in graph.nodes}

    def _place_new(self, graph: nx.DiGraph[str], fresh: list[str]) -> None:
        sub_layout = _layered(graph.subgraph(fresh).copy(), self.dx, self.dy)
        occupied = {self._cell(p) for p in self.positions.values()}
        right = max(x for x, _ in self.positions.values()) + self.dx
        top = min(y for _, y in self.positions.values())
        left = min(x for x, _ in sub_layout.values())
        # Place in layer order, so a chain of new nodes grows from its placed end.
        for node in sorted(fresh, key=lambda n: (sub_layout[n][1], sub_layout[n][0])):
            guess = self._near_neighbours(graph, node)
            if guess is None:
                guess = (right + sub_layout[node][0] - left, top + sub_layout[node][1])
            spot = self._free_spot(guess, occupied)
            self.positions[node] = spot
            occupied.add(self._cell(spot))

    def _near_neighbours(self, graph: nx.DiGraph[str], node: str) -> Position | None:
        preds = [self.positions[p] for p in graph.predecessors(node) if p in self.positions]
        if preds:
            return (sum(x for x, _ in preds) / len(preds), max(y for _, y in preds) + self.dy)
        succs = [self.positions[s] for s in graph.successors(node) if s in self.positions]
        if succs:
            return (sum(x for x, _ in succs) / len(succs), min(y for _, y in succs) - self.dy)
        return None

    def _cell(self, position: Position) -> tuple[int, int]:
        return (round(position[0] / self.dx), round(position[1] / self.dy))

    def _free_spot(self, guess: Position, occupied: set[tuple[int, int]]) -> Position:
        """The nearest free grid cell to ``guess`` on its row, trying right then left."""
        column, row = self._cell(guess)
        for distance in range(len(occupied) + 1):
            for candidate in (column + distance, column - distance):
                if (candidate, row) not in occupied:
                    return (candidate * self.dx, row * self.dy)
        return (column * self.dx, row * self.dy)
