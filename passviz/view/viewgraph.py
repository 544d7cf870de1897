"""The graph the viewer draws for one step, as plain data: the reference for ``buildGraph``.

Ops, block arguments, and the blocks and region-holding ops as boxes (and
the regions too, for an op that has more than one); dataflow edges from each
value's definition to each use, and control-flow edges from a block to its
successors.  ``extension/src/model/graph.ts`` is its twin, checked against it
by the golden fixtures (``tests/golden.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, TypeAlias

from passviz.trace.apply import IRData, OpData, ir_lines
from passviz.view.printed import printed_names

_Work = tuple[str, str, str | None, int]
"""A node still to add: its kind, id, parent and (for a region) its index."""

NodeKind: TypeAlias = Literal["op", "box", "region", "block", "arg"]
EdgeKind: TypeAlias = Literal["use", "branch"]

ViewKind: TypeAlias = Literal["all", "dataflow", "cfg", "nesting"]
"""Which edges a view draws: both, dataflow (``use``), control flow (``branch``), or none (boxes only)."""

VIEW_KINDS: tuple[ViewKind, ...] = ("all", "dataflow", "cfg", "nesting")

EDGE_KINDS: dict[ViewKind, tuple[EdgeKind, ...]] = {
    "all": ("use", "branch"),
    "dataflow": ("use",),
    "cfg": ("branch",),
    "nesting": (),
}
"""The edge kinds each view draws (the viewer's ``edges`` option, ``extension/src/view/options.ts``)."""

ViewGraph: TypeAlias = "tuple[dict[str, ViewNode], dict[str, ViewEdge]]"
"""What ``view_graph`` returns: nodes (boxes before what they hold) and edges, by id."""

LABEL_LIMIT = 40
"""Labels past this many characters are cut with an ellipsis (the whole op shows on hover)."""


@dataclass(frozen=True)
class ViewNode:
    """A node the viewer draws."""

    id: str
    kind: NodeKind
    """``op``, ``box`` (an op holding regions), ``region``, ``block`` or ``arg``."""
    parent: str | None
    """The box drawn around it, or None at the top."""
    label: str
    text: str


@dataclass(frozen=True)
class ViewEdge:
    """An edge the viewer draws: ``use`` (dataflow) or ``branch`` (control flow)."""

    id: str
    kind: EdgeKind
    source: str
    target: str
    label: str


def _cut(text: str, limit: int) -> str:
    return f"{text[: limit - 1]}…" if len(text) > limit else text


def _short_type(text: str) -> str:
    return f"{text[:23]}…" if len(text) > 24 else text


def _constant_value(op: OpData) -> str | None:
    value = op.props.get("value", op.attrs.get("value"))
    if value is None:
        return None
    return _cut(re.sub(r"\s*:\s*[^:]*$", "", value), 18)


def _op_label(op: OpData, names: dict[str, str]) -> str:
    label = op.name
    value = _constant_value(op) if op.name.endswith(".constant") else None
    if value is not None:
        label += f" {value}"
    if op.results:
        first = op.results[0]
        more = ", …" if len(op.results) > 1 else ""
        label = f"%{names.get(first, first)}{more} = {label}"
    return _cut(label, LABEL_LIMIT)


def _box_label(op: OpData) -> str:
    symbol = op.props.get("sym_name", op.attrs.get("sym_name"))
    if symbol is None:
        return op.name
    bare = re.sub(r'^"|"$', "", symbol)
    return _cut(f"{op.name} @{bare}", 60)


def view_graph(state: IRData) -> ViewGraph:
    """The viewer's nodes (boxes before what they hold) and edges at ``state``."""
    nodes: dict[str, ViewNode] = {}
    edges: dict[str, ViewEdge] = {}
    # Values are named as the IR pane and the CLI print them (``%pid_m``, else MLIR's ``%12``).
    names = printed_names(state, ir_lines(state)).values
    # (kind, id, parent, region index), last first; an explicit stack, since IR nests deep.
    stack: list[_Work] = [("op", state.root, None, 0)] if state.root in state.ops else []
    while stack:
        kind, node_id, parent, index = stack.pop()
        if kind == "region":
            holder = state.ops[parent or ""]
            text = f"region #{index} of {holder.name}"
            nodes[node_id] = ViewNode(node_id, "region", parent, f"region #{index}", text)
            region = state.regions[node_id]
            stack.extend(("block", b, node_id, 0) for b in reversed(region.blocks))
            continue
        if kind == "block":
            block = state.block(node_id)
            types = [state.values[a].type if a in state.values else "?" for a in block.args]
            args = ", ".join(f"%{a}: {t}" for a, t in zip(block.args, types, strict=True))
            nodes[node_id] = ViewNode(node_id, "block", parent, f"^{node_id}", f"^{node_id}({args})")
            for arg, type_text in zip(block.args, types, strict=True):
                label = f"%{names.get(arg, arg)}: {_short_type(type_text)}"
                nodes[arg] = ViewNode(arg, "arg", node_id, label, f"%{arg}: {type_text}")
            stack.extend(("op", o, node_id, 0) for o in reversed(block.ops))
            continue
        op = state.op(node_id)
        boxed = bool(op.regions)
        label = _box_label(op) if boxed else _op_label(op, names)
        nodes[node_id] = ViewNode(node_id, "box" if boxed else "op", parent, label, op.text)
        # An op with one region holds its blocks itself; with several, each region is a box.
        work: list[_Work] = []
        for region_index, region_id in enumerate(op.regions):
            region = state.regions.get(region_id)
            if region is None:
                continue
            if len(op.regions) > 1:
                work.append(("region", region_id, node_id, region_index))
            else:
                work.extend(("block", b, node_id, 0) for b in region.blocks)
        stack.extend(reversed(work))
    for node in nodes.values():
        if node.kind not in ("op", "box"):
            continue
        op = state.ops[node.id]
        for index, value_id in enumerate(op.operands):
            value = state.values.get(value_id)
            if value is None:
                continue
            source = value_id if value.is_arg else value.owner
            if source not in nodes:
                continue
            edge_id = f"use:{value_id}>{node.id}#{index}"
            edges[edge_id] = ViewEdge(edge_id, "use", source, node.id, f"%{value_id}")
        if op.block is None:
            continue
        for index, block_id in enumerate(op.successors):
            if block_id not in nodes:
                continue
            edge_id = f"br:{node.id}#{index}"
            edges[edge_id] = ViewEdge(edge_id, "branch", op.block, block_id, op.name)
    return nodes, edges
