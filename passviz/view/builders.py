"""networkx graphs of the IR at one step: dataflow, control flow and nesting.

Every node is keyed by its stable trace id, so the same op is the same node
at every step.  Node attributes (all graphs):

- ``kind``: ``op``, ``arg`` (a block argument), ``block`` or ``region``;
- ``label``: a short name to draw; ``text``: the IR the node stands for;
- ``dialect`` and ``op_name`` (empty for blocks, regions and arguments);
- ``parents``: the enclosing op/region/block ids, outermost first;
- ``loc``: the op's location, or None;
- ``status`` is added by :mod:`passviz.view.diff`.

Edges carry ``kind`` (``use``, ``forward``, ``branch``, ``enter``,
``contains``), a ``label`` and, for dataflow, the ``value`` and operand
``index``.  A ``forward`` edge runs from a value a branch passes on to the
successor's block argument it becomes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import networkx as nx

from passviz.view.state import IRState, OpState

GraphKind = Literal["dataflow", "cfg", "nesting"]
"""The three views of a step."""

GRAPH_KINDS: tuple[GraphKind, ...] = ("dataflow", "cfg", "nesting")

if TYPE_CHECKING:
    IRGraph: TypeAlias = nx.MultiDiGraph[str]
else:  # networkx's classes take no type arguments at run time
    IRGraph = nx.MultiDiGraph
"""All builders return a directed multigraph keyed by trace ids: two ops may share several edges."""


def build_graph(state: IRState, kind: GraphKind) -> IRGraph:
    """The graph of ``kind`` for ``state``."""
    return _BUILDERS[kind](state)


def _op_node(state: IRState, op: OpState) -> dict[str, Any]:
    return {
        "kind": "op",
        "label": op.name,
        "text": op.text,
        "dialect": op.dialect,
        "op_name": op.name,
        "parents": list(state.parents(op.id)),
        "loc": op.loc,
    }


def _plain_node(state: IRState, node_id: str, kind: str, label: str, text: str) -> dict[str, Any]:
    return {
        "kind": kind,
        "label": label,
        "text": text,
        "dialect": "",
        "op_name": "",
        "parents": list(state.parents(node_id)),
        "loc": None,
    }


def _is_container(op: OpState) -> bool:
    """Ops that only hold regions (modules, functions): shown by nesting, not dataflow."""
    return bool(op.regions) and not op.operands and not op.results


def dataflow_graph(state: IRState) -> IRGraph:
    """Ops and block arguments as nodes, an edge from each value's definition to each use."""
    graph = IRGraph(kind="dataflow")
    for op in state.ops.values():
        if op.id != state.root and not _is_container(op):
            graph.add_node(op.id, **_op_node(state, op))
        if op.id == state.root:
            continue
        # Arguments go in right after the op whose region holds them, before the block's ops.
        for region_id in op.regions:
            for block_id in state.regions[region_id].blocks:
                for arg in state.blocks[block_id].args:
                    value = state.values[arg]
                    graph.add_node(arg, **_plain_node(state, arg, "arg", f"%{arg}", f"%{arg} : {value.type}"))
    for op in state.ops.values():
        if op.id not in graph:
            continue
        for index, value_id in enumerate(op.operands):
            value = state.values[value_id]
            source = value_id if value.is_arg else value.owner
            if source not in graph:
                continue
            graph.add_edge(
                source,
                op.id,
                key=f"{value_id}>{op.id}#{index}",
                kind="use",
                label="",
                value=value_id,
                index=index,
                text=f"%{value_id} : {value.type}",
            )
        _add_forward_edges(state, op, graph)
    return graph


def _add_forward_edges(state: IRState, op: OpState, graph: IRGraph) -> None:
    """Edges from each value a branch forwards to the successor argument it becomes."""
    for successor, operands in zip(op.successors, successor_operands(state, op), strict=True):
        if successor not in state.blocks:
            continue
        for index, (value_id, arg) in enumerate(zip(operands, state.blocks[successor].args, strict=False)):
            value = state.values[value_id]
            source = value_id if value.is_arg else value.owner
            if source not in graph or arg not in graph:
                continue
            graph.add_edge(
                source,
                arg,
                key=f"{op.id}>{arg}#{index}",
                kind="forward",
                label="",
                value=value_id,
                index=index,
                op=op.id,
                text=f"%{value_id} → %{arg} through {op.name}",
            )


def successor_operands(state: IRState, op: OpState) -> list[tuple[str, ...]]:
    """The operands an op forwards to each successor.

    Branch ops list the forwarded operands last, one group per successor in
    successor order (``cf.br``, ``cf.cond_br``, ``cf.switch``), so the groups
    are read off the end using each successor's argument count.
    """
    counts = [len(state.blocks[b].args) if b in state.blocks else 0 for b in op.successors]
    forwarded = op.operands[len(op.operands) - sum(counts) :] if sum(counts) else ()
    groups: list[tuple[str, ...]] = []
    start = 0
    for count in counts:
        groups.append(tuple(forwarded[start : start + count]))
        start += count
    return groups


def _block_text(state: IRState, block_id: str) -> str:
    block = state.blocks[block_id]
    args = ", ".join(f"%{a}: {state.values[a].type}" for a in block.args)
    head = f"{block.label}({args}):" if args else f"{block.label}:"
    return "\n".join([head, *(f"  {state.ops[o].text}" for o in block.ops)])


def _block_label(state: IRState, block_id: str, max_ops: int = 4) -> str:
    """The block's label and the names of its first ops, one per line."""
    block = state.blocks[block_id]
    names = [state.ops[o].name for o in block.ops[:max_ops]]
    if len(block.ops) > max_ops:
        names.append(f"… {len(block.ops) - max_ops} more")
    return "\n".join([block.label, *names])


def cfg_graph(state: IRState) -> IRGraph:
    """Blocks as nodes; successor edges labelled with the forwarded operands.

    Blocks directly in the module are left out: they hold declarations, not
    control flow.  An ``enter`` edge joins the block holding a region op (an
    ``scf.execute_region``, a loop) to each of its regions' entry blocks, so
    regions inserted by a pass are visible as new branches of the picture.
    """
    graph = IRGraph(kind="cfg")
    top = set(state.ops[state.root].regions)
    for block in state.blocks.values():
        if block.region in top:
            continue
        parent_op = state.ops[state.regions[block.region].op] if block.region else None
        attrs = _plain_node(
            state, block.id, "block", _block_label(state, block.id), _block_text(state, block.id)
        )
        if parent_op is not None:
            attrs["op_name"] = parent_op.name
            attrs["dialect"] = parent_op.dialect
        graph.add_node(block.id, **attrs)
    for op in state.ops.values():
        if op.block is None or op.block not in graph:
            continue
        for index, (target, operands) in enumerate(
            zip(op.successors, successor_operands(state, op), strict=True)
        ):
            label = ", ".join(f"%{v}" for v in operands)
            graph.add_edge(op.block, target, key=f"{op.id}#{index}", kind="branch", label=label, op=op.id)
        for region_id in op.regions:
            blocks = state.regions[region_id].blocks
            if blocks:
                graph.add_edge(
                    op.block,
                    blocks[0],
                    key=f"{op.id}>{region_id}",
                    kind="enter",
                    label="",
                    op=op.id,
                    text=f"into a region of {op.name}",
                )
    return graph


def nesting_graph(state: IRState) -> IRGraph:
    """Containment: module → op → region → block → op, in IR order."""
    graph = IRGraph(kind="nesting")
    position_in_block = {op: i for block in state.blocks.values() for i, op in enumerate(block.ops)}
    for op in state.ops.values():
        graph.add_node(op.id, **_op_node(state, op))
        for index, region_id in enumerate(op.regions):
            region = state.regions[region_id]
            graph.add_node(
                region_id,
                **_plain_node(state, region_id, "region", f"region {index}", f"region {index} of {op.name}"),
            )
            graph.add_edge(op.id, region_id, key="contains", kind="contains", label="", index=index)
            for position, block_id in enumerate(region.blocks):
                block = state.blocks[block_id]
                graph.add_node(
                    block_id,
                    **_plain_node(state, block_id, "block", block.label, _block_text(state, block_id)),
                )
                graph.add_edge(region_id, block_id, key="contains", kind="contains", label="", index=position)
        if op.block is not None:
            graph.add_edge(
                op.block, op.id, key="contains", kind="contains", label="", index=position_in_block[op.id]
            )
    return graph


_BUILDERS: dict[GraphKind, Callable[[IRState], IRGraph]] = {
    "dataflow": dataflow_graph,
    "cfg": cfg_graph,
    "nesting": nesting_graph,
}
