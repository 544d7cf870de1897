"""What a step changed: statuses on the viewer's graph, and the IR text diff.

A node's status says how it compares with the step before: ``added`` (a
new id), ``erased`` (kept as a ghost, with its old data), ``modified`` (its
own text or its direct parent changed, or the step moved or modified it
without changing its text) or ``unchanged``.  Edges get the same statuses.
``extension/src/model/diff.ts`` is its twin.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, replace
from typing import Literal, TypeAlias

from passviz.trace.apply import IRData
from passviz.trace.model import Step
from passviz.view.state import TraceStates, id_text
from passviz.view.viewgraph import ViewEdge, ViewGraph, ViewNode, view_graph

Status: TypeAlias = Literal["added", "erased", "modified", "unchanged"]
"""How a node or edge compares with the step before."""

STATUSES: tuple[Status, ...] = ("added", "modified", "erased", "unchanged")


@dataclass(frozen=True)
class DiffGraph:
    """A step's graph, a status on every node and edge, the step before's lost parts as ghosts."""

    nodes: dict[str, ViewNode]
    """In IR pre-order, each ghost right after the node it followed before, so it is drawn where it was."""
    edges: dict[str, ViewEdge]
    node_status: dict[str, Status]
    edge_status: dict[str, Status]

    def changed(self) -> list[str]:
        """The nodes whose status is not ``unchanged``, in order."""
        return [n for n, s in self.node_status.items() if s != "unchanged"]


def touched_by(step: Step) -> set[str]:
    """Ids a step changed without necessarily changing their text: moved ops, changed blocks."""
    delta = step.delta
    found = set(delta.get("ops_moved", ()))
    found.update(change["id"] for change in delta.get("ops_modified", ()))
    found.update(delta.get("blocks_moved", ()))
    found.update(delta.get("block_args", {}))
    found.update(delta.get("region_blocks", {}))
    return found


def diff_graphs(
    before: ViewGraph, after: ViewGraph, touched: set[str] | frozenset[str] = frozenset()
) -> DiffGraph:
    """``after``, a status on every node and edge, ``before``'s lost parts as ghosts (``diffGraphs``)."""
    old_nodes, old_edges = before
    new_nodes, new_edges = after
    ghosts_after: dict[str | None, list[ViewNode]] = {}
    previous: str | None = None
    for node in old_nodes.values():
        if node.id not in new_nodes:
            ghosts_after.setdefault(previous, []).append(node)
        previous = node.id
    nodes: dict[str, ViewNode] = {}
    node_status: dict[str, Status] = {}

    def add_ghosts(anchor: str | None) -> None:
        for ghost in ghosts_after.get(anchor, ()):
            nodes[ghost.id] = ghost
            node_status[ghost.id] = "erased"
            add_ghosts(ghost.id)

    add_ghosts(None)
    for node in new_nodes.values():
        old = old_nodes.get(node.id)
        status: Status = "unchanged"
        if old is None:
            status = "added"
        elif node.id in touched or old.text != node.text or old.parent != node.parent:
            # Not the label: what it adds to the text is the value's shown name, which
            # erasing another value renumbers without changing this one.
            status = "modified"
        nodes[node.id] = node
        node_status[node.id] = status
        add_ghosts(node.id)
    # A ghost keeps its old box only while that box is drawn.
    for node in list(nodes.values()):
        if node.parent is not None and node.parent not in nodes:
            nodes[node.id] = replace(node, parent=None)
    edges: dict[str, ViewEdge] = {}
    edge_status: dict[str, Status] = {}
    for edge in new_edges.values():
        old_edge = old_edges.get(edge.id)
        same = old_edge is not None and (old_edge.source, old_edge.target) == (edge.source, edge.target)
        edges[edge.id] = edge
        edge_status[edge.id] = "unchanged" if same else "added"
    for edge in old_edges.values():
        if edge.id not in new_edges:
            edges[edge.id] = edge
            edge_status[edge.id] = "erased"
    return DiffGraph(nodes, edges, node_status, edge_status)


def step_diff(states: TraceStates, step: int) -> DiffGraph:
    """The viewer's graph after ``step`` (-1: the initial IR, all ``unchanged``), against the step before."""
    if step < 0:
        initial = view_graph(states.at(step))
        return diff_graphs(initial, initial)
    before = view_graph(states.before(step))  # first: states are rebuilt forward
    return diff_graphs(before, view_graph(states.at(step)), touched_by(states.trace.steps[step]))


# -- the IR text diff -------------------------------------------------------------

DiffTag = Literal["equal", "insert", "delete", "replace", "skip"]


@dataclass(frozen=True)
class DiffRow:
    """One row of a side-by-side diff; a side is None where it has no line."""

    tag: DiffTag
    """``skip`` rows stand for a run of unchanged lines that were folded."""
    left_no: int | None
    left: str | None
    right_no: int | None
    right: str | None


_SSA_NAME = re.compile(r"%[A-Za-z0-9_.$-]+|\^[A-Za-z0-9_.$-]+")


def mask_names(line: str) -> str:
    """A line with its SSA value and block names blanked, so renumbering compares equal."""
    return _SSA_NAME.sub(lambda m: m.group(0)[0], line)


def text_diff(before: str, after: str, *, context: int = 3, ignore_names: bool = False) -> list[DiffRow]:
    """A side-by-side line diff; unchanged runs longer than ``2 * context`` are folded.

    With ``ignore_names``, lines are compared with SSA and block names
    blanked: for IR printed with positional names (``%0``, ``^bb1``), where
    inserting one op renames every value after it.
    """
    left = before.splitlines()
    right = after.splitlines()
    key = mask_names if ignore_names else _same
    matcher = difflib.SequenceMatcher(None, [key(x) for x in left], [key(x) for x in right], autojunk=False)
    rows: list[DiffRow] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows.extend(_equal_rows(left, right, i1, i2, j1, j2, context))
            continue
        for offset in range(max(i2 - i1, j2 - j1)):
            i, j = i1 + offset, j1 + offset
            rows.append(
                DiffRow(
                    tag if tag == "replace" else ("delete" if i < i2 else "insert"),
                    i + 1 if i < i2 else None,
                    left[i] if i < i2 else None,
                    j + 1 if j < j2 else None,
                    right[j] if j < j2 else None,
                )
            )
    return rows


def _same(line: str) -> str:
    return line


def _equal_rows(
    left: list[str], right: list[str], i1: int, i2: int, j1: int, j2: int, context: int
) -> list[DiffRow]:
    def row(offset: int) -> DiffRow:
        return DiffRow("equal", i1 + offset + 1, left[i1 + offset], j1 + offset + 1, right[j1 + offset])

    count = i2 - i1
    first, last = i1 == 0, i2 == len(left)
    keep_head = 0 if first else context
    keep_tail = 0 if last else context
    if count <= keep_head + keep_tail + 1:
        return [row(k) for k in range(count)]
    skipped = count - keep_head - keep_tail
    rows = [row(k) for k in range(keep_head)]
    rows.append(DiffRow("skip", None, f"{skipped} unchanged lines", None, f"{skipped} unchanged lines"))
    rows.extend(row(k) for k in range(count - keep_tail, count))
    return rows


def ir_diff(before: IRData, after: IRData, *, context: int = 3) -> list[DiffRow]:
    """The diff of two states' IR, values and blocks named by their stable ids.

    Stable names make renumbering impossible, so every changed line is a real
    change.
    """
    return text_diff(id_text(before), id_text(after), context=context)


def step_ir_diff(states: TraceStates, step: int, *, context: int = 3) -> list[DiffRow]:
    """The IR diff of ``step`` against the step before."""
    before = states.before(step)
    return ir_diff(before, states.at(step), context=context)
