"""The dispatch graph of one step: what ``iree-opt --iree-flow-dump-dispatch-graph`` draws.

Which ops play which part is the trace's to say: its ``meta.dispatch``
(``DispatchVocabulary``, recorded from the family that defines a dispatch
graph, IREE's) names them, and a trace without it has no dispatch graph.
Each function at the top of the module is a box holding its arguments, the
ops of its body and its return; a dispatch op (a region, its workgroups or,
once outlined, the call of an executable) is one node, whatever it holds, and
the tensors flowing between them are edges, a region's captured values
included.  As in IREE's dump, constants (ops of no operand and no region with
a ``value``) are left out.  Executables are nodes too, and each call links to
the executable it calls.

The graph is a pure function of the IR state and the vocabulary;
``extension/src/model/dispatch.ts`` computes the same from the viewer's state
(checked by the golden fixtures of ``tests/golden.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from passviz.trace.apply import IRData, ir_lines
from passviz.trace.model import DispatchVocabulary
from passviz.view.printed import printed_names
from passviz.view.state import op_attrs


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


def _constant(state: IRData, op_id: str) -> bool:
    """Whether ``op_id`` is a constant: no operand, no region, a ``value``."""
    op = state.ops[op_id]
    return not op.operands and not op.regions and "value" in op_attrs(op)


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


def _members(state: IRData, op_id: str, hints: DispatchVocabulary) -> tuple[str, ...]:
    """The computing ops a dispatch or executable holds, looking through functions and containers."""
    found: list[str] = []
    for child in _body_ops(state, op_id):
        name = state.ops[child].name
        if name in hints["function_ops"] or name in hints["container_ops"]:
            found.extend(_members(state, child, hints))
        elif name not in hints["plumbing_ops"] and not _constant(state, child):
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


def _callee(state: IRData, op_id: str, hints: DispatchVocabulary) -> str:
    """What a call names, without the brackets: ``@executable::@entry``."""
    return _attr(state, op_id, hints["entry_points"]).strip("[]")


def _label(state: IRData, op_id: str, kind: str, index: int, hints: DispatchVocabulary) -> str:
    op = state.ops[op_id]
    if kind == "executable":
        return f"{op.name} @{_sym_name(state, op_id) or '?'}"
    if op.name == hints["call_op"]:
        return f"{op.name} {_callee(state, op_id, hints)}".rstrip()
    if kind == "dispatch":
        return f"{op.name} #{index}"
    return op.name


def dispatch_graph(
    state: IRData, hints: DispatchVocabulary | None
) -> tuple[dict[str, DispatchNode], dict[str, DispatchEdge]]:
    """The dispatch graph of ``state`` as ``hints`` (a trace's ``meta.dispatch``) define it: nodes in
    IR order, then edges in their targets' order.  Empty without ``hints``."""
    nodes: dict[str, DispatchNode] = {}
    edges: dict[str, DispatchEdge] = {}
    if hints is None:
        return nodes, edges
    executables: dict[str, str] = {}
    calls: list[tuple[str, str]] = []
    top = _body_ops(state, state.root) if state.root in state.ops else []
    count = 0
    # Arguments are labelled as the IR pane and the CLI print them (`%arg0`), not by trace id.
    names = printed_names(state, ir_lines(state)).values if top else {}
    for holder in top:
        op = state.ops[holder]
        if op.name == hints["executable_op"]:
            label = _label(state, holder, "executable", 0, hints)
            nodes[holder] = DispatchNode(holder, "executable", None, label, _members(state, holder, hints))
            executables[_sym_name(state, holder)] = holder
            continue
        if op.name not in hints["function_ops"] or not op.regions or op.regions[0] not in state.regions:
            continue
        blocks = state.regions[op.regions[0]].blocks
        if not blocks:
            continue
        nodes[holder] = DispatchNode(holder, "func", None, f"{op.name} @{_sym_name(state, holder)}", ())
        entry = state.blocks[blocks[0]]
        producers: dict[str, str] = {}
        for arg in entry.args:
            nodes[arg] = DispatchNode(
                arg, "arg", holder, f"%{names.get(arg, arg)}: {state.values[arg].type}", ()
            )
            producers[arg] = arg
        for child in entry.ops:
            name = state.ops[child].name
            if _constant(state, child):
                continue
            if name in hints["dispatch_ops"]:
                kind = "dispatch"
                members = _members(state, child, hints)
            else:
                kind = "return" if name in hints["return_ops"] else "op"
                members = ()
            label = _label(state, child, kind, count, hints)
            nodes[child] = DispatchNode(child, kind, holder, label, members)
            count += kind == "dispatch"
            for value in _inputs(state, child):
                source = producers.get(value)
                if source is None:
                    continue
                edge_id = f"{source}>{child}:{value}"
                edges[edge_id] = DispatchEdge(edge_id, "tensor", source, child, state.values[value].type)
            for result in state.ops[child].results:
                producers[result] = child
            if name == hints["call_op"]:
                calls.append((child, _callee(state, child, hints).split("::")[0].lstrip("@")))
    for dispatch, callee in calls:
        target = executables.get(callee)
        if target is not None:
            edge_id = f"{dispatch}>{target}:calls"
            edges[edge_id] = DispatchEdge(edge_id, "calls", dispatch, target, "")
    return nodes, edges
