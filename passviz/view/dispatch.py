"""The dispatch graph of one step: what ``iree-opt --iree-flow-dump-dispatch-graph`` draws.

Each function of the module (``util.func``, ``func.func`` at the top level)
is a box holding its arguments, the ops of its body and its return; a
dispatch (``flow.dispatch.region``, ``flow.dispatch.workgroups`` or, once
outlined, ``flow.dispatch``) is one node, whatever it holds, and the tensors
flowing between them are edges, a region's captured values included.  As in
IREE's dump, constants are left out.  Outlined ``flow.executable`` ops are
nodes too, and each ``flow.dispatch`` links to the executable it calls.

The graph is a pure function of the IR state; ``extension/src/model/
dispatch.ts`` computes the same from the viewer's state (checked by the
golden fixtures of ``tests/golden.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from passviz.trace.apply import IRData
from passviz.view.state import op_attrs

DISPATCH_OPS = frozenset({"flow.dispatch.region", "flow.dispatch.workgroups", "flow.dispatch"})
"""The ops that are one dispatch each."""

FUNCTION_OPS = frozenset({"util.func", "func.func"})
"""The function ops whose bodies the graph draws."""

RETURN_OPS = frozenset({"util.return", "func.return"})

PLUMBING = frozenset(
    {
        "flow.return",
        "flow.dispatch.workgroup_count_from_dag_root",
        "flow.dispatch.workgroup_count_from_slice",
        "iree_tensor_ext.dispatch.tensor.load",
        "iree_tensor_ext.dispatch.tensor.store",
        "iree_tensor_ext.dispatch.workload.ordinal",
        "flow.dispatch.tensor.load",
        "flow.dispatch.tensor.store",
        "tensor.empty",
        "func.return",
        "linalg.yield",
    }
)
"""Ops in a dispatch that move its tensors in and out rather than compute: not named as its members."""


@dataclass(frozen=True, slots=True)
class DispatchNode:
    """A node of the dispatch graph."""

    id: str
    """The op's (or argument's) trace id."""
    kind: str
    """``func``, ``arg``, ``op``, ``dispatch``, ``return`` or ``executable``."""
    parent: str | None
    """The function box holding it; None for functions and executables."""
    label: str
    members: tuple[str, ...]
    """For a dispatch or executable: the ids of the ops it computes, in IR order."""


@dataclass(frozen=True, slots=True)
class DispatchEdge:
    """A tensor from one node to another (``tensor``), or a dispatch's call of its executable (``calls``)."""

    id: str
    kind: str
    source: str
    target: str
    label: str
    """The tensor's type (empty for ``calls``)."""


def _constant(name: str) -> bool:
    return name.endswith(".constant")


def _attr(state: IRData, op_id: str, key: str) -> str:
    """The printed value of ``op_id``'s attribute or property ``key`` ('' without one)."""
    return op_attrs(state.ops[op_id]).get(key, "")


def _sym_name(state: IRData, op_id: str) -> str:
    """``op_id``'s symbol name, unquoted ('' without one)."""
    return _attr(state, op_id, "sym_name").strip('"')


def _body_ops(state: IRData, op_id: str) -> list[str]:
    """The ops of every block of every region of ``op_id``, one level deep, in order."""
    return [
        child
        for region in state.ops[op_id].regions
        if region in state.regions
        for block in state.regions[region].blocks
        if block in state.blocks
        for child in state.blocks[block].ops
    ]


def _members(state: IRData, op_id: str) -> tuple[str, ...]:
    """The computing ops a dispatch or executable holds, looking through modules and functions."""
    found: list[str] = []
    for child in _body_ops(state, op_id):
        name = state.ops[child].name
        if name in FUNCTION_OPS or name in {"builtin.module", "flow.executable.export"}:
            found.extend(_members(state, child))
        elif name not in PLUMBING and not _constant(name):
            found.append(child)
    return tuple(found)


def _inputs(state: IRData, op_id: str) -> list[str]:
    """The values ``op_id`` reads: its operands, then the values its regions capture, first use first."""
    seen: dict[str, None] = dict.fromkeys(state.ops[op_id].operands)
    inside: set[str] = set()
    stack = list(reversed(_body_ops(state, op_id)))
    nested: list[str] = []
    while stack:
        child = stack.pop()
        nested.append(child)
        stack.extend(reversed(_body_ops(state, child)))
    for child in nested:
        inside.update(state.ops[child].results)
    for holder in (op_id, *nested):
        for region in state.ops[holder].regions:
            for block in state.regions[region].blocks if region in state.regions else ():
                inside.update(state.blocks[block].args if block in state.blocks else ())
    for child in nested:
        for value in state.ops[child].operands:
            if value not in inside:
                seen.setdefault(value)
    return list(seen)


def _label(state: IRData, op_id: str, kind: str, index: int) -> str:
    op = state.ops[op_id]
    if kind == "executable":
        return f"flow.executable @{_sym_name(state, op_id) or '?'}"
    if op.name == "flow.dispatch":
        return f"flow.dispatch {_attr(state, op_id, 'entry_points').strip('[]')}".rstrip()
    if kind == "dispatch":
        return f"{op.name} #{index}"
    return op.name


def dispatch_graph(state: IRData) -> tuple[dict[str, DispatchNode], dict[str, DispatchEdge]]:
    """The dispatch graph of ``state``: nodes in IR order, then edges in their targets' order."""
    nodes: dict[str, DispatchNode] = {}
    edges: dict[str, DispatchEdge] = {}
    executables: dict[str, str] = {}
    calls: list[tuple[str, str]] = []
    top = _body_ops(state, state.root) if state.root in state.ops else []
    count = 0
    for holder in top:
        op = state.ops[holder]
        if op.name == "flow.executable":
            nodes[holder] = DispatchNode(
                holder, "executable", None, _label(state, holder, "executable", 0), _members(state, holder)
            )
            executables[_sym_name(state, holder)] = holder
            continue
        if op.name not in FUNCTION_OPS or not op.regions or op.regions[0] not in state.regions:
            continue
        blocks = state.regions[op.regions[0]].blocks
        if not blocks:
            continue
        nodes[holder] = DispatchNode(holder, "func", None, f"{op.name} @{_sym_name(state, holder)}", ())
        entry = state.blocks[blocks[0]]
        producers: dict[str, str] = {}
        for arg in entry.args:
            nodes[arg] = DispatchNode(arg, "arg", holder, f"%{arg}: {state.values[arg].type}", ())
            producers[arg] = arg
        for child in entry.ops:
            name = state.ops[child].name
            if _constant(name):
                continue
            if name in DISPATCH_OPS:
                kind = "dispatch"
                members = _members(state, child)
            else:
                kind = "return" if name in RETURN_OPS else "op"
                members = ()
            nodes[child] = DispatchNode(child, kind, holder, _label(state, child, kind, count), members)
            count += kind == "dispatch"
            for value in _inputs(state, child):
                source = producers.get(value)
                if source is None:
                    continue
                edge_id = f"{source}>{child}:{value}"
                edges[edge_id] = DispatchEdge(edge_id, "tensor", source, child, state.values[value].type)
            for result in state.ops[child].results:
                producers[result] = child
            if name == "flow.dispatch":
                callee = _attr(state, child, "entry_points").strip("[]").split("::")[0].lstrip("@")
                calls.append((child, callee))
    for dispatch, callee in calls:
        target = executables.get(callee)
        if target is not None:
            edge_id = f"{dispatch}>{target}:calls"
            edges[edge_id] = DispatchEdge(edge_id, "calls", dispatch, target, "")
    return nodes, edges
