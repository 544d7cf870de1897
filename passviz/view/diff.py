"""What a step changed: graph statuses by stable id, and the IR text diff.

A node's status says how it compares with the step before: ``added``,
``erased`` (kept in the graph as a ghost, with its old attributes and
edges), ``modified`` or ``unchanged``.  Edges get the same statuses.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from passviz.trace.model import Step
from passviz.view.builders import GraphKind, IRGraph, build_graph
from passviz.view.state import IRState, TraceStates

Status = Literal["added", "erased", "modified", "unchanged"]
"""How a node or edge compares with the step before."""

STATUSES: tuple[Status, ...] = ("added", "modified", "erased", "unchanged")

_COMPARED = ("kind", "label", "text")
"""The node attributes whose change makes a node ``modified`` (besides its direct parent)."""


def _changed(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """True if the node itself changed: its text, or where it sits.

    Only the direct parent counts: when a block moves into a new region, the
    block is modified, not every op inside it.
    """
    if any(old.get(key) != new.get(key) for key in _COMPARED):
        return True
    return old.get("parents", [])[-1:] != new.get("parents", [])[-1:]


def diff_graphs(before: IRGraph, after: IRGraph, touched: Iterable[str] = ()) -> IRGraph:
    """``after`` with a ``status`` on every node and edge, and ``before``'s lost parts as ghosts.

    ``touched`` names nodes the step changed in ways the attributes do not
    show (an op moved within its block), which are ``modified`` too.
    """
    touched = set(touched)
    graph = IRGraph(**after.graph)
    for node, attrs in after.nodes(data=True):
        if node not in before:
            status: Status = "added"
        elif node in touched or _changed(before.nodes[node], attrs):
            status = "modified"
        else:
            status = "unchanged"
        graph.add_node(node, **attrs, status=status)
    for node, attrs in before.nodes(data=True):
        if node not in after:
            graph.add_node(node, **attrs, status="erased")
    for source, target, key, attrs in after.edges(keys=True, data=True):
        edge_status: Status = "unchanged" if before.has_edge(source, target, key) else "added"
        graph.add_edge(source, target, key=key, **attrs, status=edge_status)
    for source, target, key, attrs in before.edges(keys=True, data=True):
        if not after.has_edge(source, target, key):
            graph.add_edge(source, target, key=key, **attrs, status="erased")
    return graph


def touched_by(step: Step) -> set[str]:
    """Ids a step changed without necessarily changing their text: moved ops, changed blocks."""
    delta = step.delta
    found = set(delta.get("ops_moved", ()))
    found.update(change["id"] for change in delta.get("ops_modified", ()))
    found.update(delta.get("blocks_moved", ()))
    found.update(delta.get("block_args", {}))
    found.update(delta.get("region_blocks", {}))
    return found


def step_graph(
    states: TraceStates,
    step: int,
    kind: GraphKind,
    built: Callable[[int], IRGraph] | None = None,
) -> IRGraph:
    """The graph of ``kind`` after ``step``, with statuses against the step before.

    Step -1 is the initial IR, where everything is ``unchanged``.  ``built``
    gives the plain graph after a step (a cache); by default it is built.
    """

    def build(index: int) -> IRGraph:
        return built(index) if built is not None else build_graph(states.at(index), kind)

    if step < 0:
        after = build(step)
        return diff_graphs(after, after)
    before = build(step - 1)  # first: the replay only moves forward
    return diff_graphs(before, build(step), touched_by(states.trace.steps[step]))


def changed_nodes(graph: IRGraph) -> list[str]:
    """The nodes whose status is not ``unchanged``, in graph order."""
    return [n for n, attrs in graph.nodes(data=True) if attrs.get("status") != "unchanged"]


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


def ir_diff(before: IRState, after: IRState, *, context: int = 3) -> list[DiffRow]:
    """The diff of two states' IR, values and blocks named by their stable ids.

    Stable names make renumbering impossible, so every changed line is a real
    change.
    """
    return text_diff(before.id_text, after.id_text, context=context)


def step_ir_diff(states: TraceStates, step: int, *, context: int = 3) -> list[DiffRow]:
    """The IR diff of ``step`` against the step before."""
    before = states.before(step)
    return ir_diff(before, states.at(step), context=context)
