"""MLIR's call graph (``mlir/lib/Analysis/CallGraph.cpp``) and the inliner's
symbol use counts (``CGUseList`` in ``mlir/lib/Transforms/Utils/Inliner.cpp``).

Calls are the ops with ``passviz.rewrite.calls.CallOpInterface``, callables those with xDSL's
``CallableOpInterface``, whichever dialect they belong to.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Operation, Region
from xdsl.traits import CallableOpInterface, SymbolOpInterface, SymbolTable

from passviz.rewrite.calls import call_callee, is_call
from passviz.rewrite.symbols import op_symbol_refs

EdgeKind = Literal["abstract", "call", "child"]
"""An edge of the external node to every top-level callable, a call, or a
callable to a callable nested in it."""


@dataclass(frozen=True)
class Edge:
    """An edge of the call graph."""

    target: CallGraphNode
    """Where the edge leads."""
    kind: EdgeKind
    """What the edge stands for."""


@dataclass(eq=False)
class CallGraphNode:
    """A callable region, or (``region`` None) the external caller or the unknown callee."""

    region: Region | None
    """The callable region; None for the two external nodes."""
    edges: list[Edge] = field(default_factory=list[Edge])
    """Outgoing edges in the order they were found, without repeats."""

    @property
    def is_external(self) -> bool:
        """Whether this is the external caller or the unknown callee."""
        return self.region is None

    @property
    def callable(self) -> Operation:
        """The op that owns the callable region."""
        assert self.region is not None and self.region.parent is not None
        return self.region.parent

    def add_edge(self, target: CallGraphNode, kind: EdgeKind) -> None:
        """Add an edge unless an equal one is there (MLIR keeps them in a SetVector)."""
        edge = Edge(target, kind)
        if edge not in self.edges:
            self.edges.append(edge)

    def has_children(self) -> bool:
        """Whether a callable is nested in this one."""
        return any(edge.kind == "child" for edge in self.edges)


def callable_region(op: Operation) -> Region | None:
    """The body of a callable op, or None if it has none (a declaration) or is no callable."""
    interface = op.get_trait(CallableOpInterface)
    if interface is None:
        return None
    region = interface.get_callable_region(op)
    return region if region.blocks else None


def resolve_symbol(anchor: Operation, ref: SymbolRefAttr) -> Operation | None:
    """The op ``ref`` names, looked up from the nearest symbol table around ``anchor``."""
    try:
        return SymbolTable.lookup_symbol(anchor, ref)
    except ValueError:  # no symbol table around anchor
        return None


class CallGraph:
    """The call graph of every callable nested in an op, as MLIR builds it."""

    def __init__(self, root: Operation) -> None:
        self.external_caller = CallGraphNode(None)
        """Has an edge to every callable that is not nested in another."""
        self.unknown_callee = CallGraphNode(None)
        """Where calls to declarations, indirect calls and unresolved names lead."""
        self.nodes: dict[Region, CallGraphNode] = {}
        """The callable nodes, in the order they were found."""
        # Nodes first, then calls: a call may name a callable further down.
        self._compute(root, None, resolve_calls=False)
        self._compute(root, None, resolve_calls=True)

    def _compute(self, op: Operation, parent: CallGraphNode | None, *, resolve_calls: bool) -> None:
        if is_call(op):
            if resolve_calls and parent is not None:
                parent.add_edge(self.resolve(op), "call")
            return
        if op.has_trait(CallableOpInterface):
            region = callable_region(op)
            if region is None:
                return
            parent = self._get_or_add(region, parent)
        for region in op.regions:
            for block in region.blocks:
                for nested in block.ops:
                    self._compute(nested, parent, resolve_calls=resolve_calls)

    def _get_or_add(self, region: Region, parent: CallGraphNode | None) -> CallGraphNode:
        node = self.nodes.get(region)
        if node is not None:
            return node
        node = CallGraphNode(region)
        self.nodes[region] = node
        if parent is not None:
            parent.add_edge(node, "child")
        else:
            self.external_caller.add_edge(node, "abstract")
        return node

    def lookup(self, region: Region | None) -> CallGraphNode | None:
        """The node of a callable region, if it has one."""
        return self.nodes.get(region) if region is not None else None

    def resolve(self, call: Operation) -> CallGraphNode:
        """The node a call leads to: its callee's, or the unknown callee."""
        callee = call_callee(call)
        target = resolve_symbol(call, callee) if callee is not None else None
        node = self.lookup(callable_region(target)) if target is not None else None
        return node if node is not None else self.unknown_callee

    def sccs(self) -> list[list[CallGraphNode]]:
        """The strongly connected components, callees before callers.

        This is LLVM's ``scc_iterator`` (Tarjan's algorithm, iterative) from
        the external caller node: the same components in the same order,
        each listed in the order it leaves the DFS stack.
        """
        return _tarjan(self.external_caller)


@dataclass
class _Frame:
    node: CallGraphNode
    next_edge: int
    min_visited: int


_DONE = 2**32 - 1
"""The visit number of a node whose component is complete (LLVM's ``~0U``)."""


def _tarjan(entry: CallGraphNode) -> list[list[CallGraphNode]]:
    numbers: dict[CallGraphNode, int] = {}
    node_stack: list[CallGraphNode] = []
    visit_stack: list[_Frame] = []
    components: list[list[CallGraphNode]] = []

    def visit(node: CallGraphNode) -> None:
        number = len(numbers) + 1
        numbers[node] = number
        node_stack.append(node)
        visit_stack.append(_Frame(node, 0, number))

    visit(entry)
    while visit_stack:
        frame = visit_stack[-1]
        if frame.next_edge < len(frame.node.edges):
            child = frame.node.edges[frame.next_edge].target
            frame.next_edge += 1
            if child not in numbers:
                visit(child)
            else:
                frame.min_visited = min(frame.min_visited, numbers[child])
            continue
        visit_stack.pop()
        if visit_stack:
            visit_stack[-1].min_visited = min(visit_stack[-1].min_visited, frame.min_visited)
        if frame.min_visited != numbers[frame.node]:
            continue
        component: list[CallGraphNode] = []
        while not component or component[-1] is not frame.node:
            node = node_stack.pop()
            numbers[node] = _DONE
            component.append(node)
        components.append(component)
    return components


def symbol_uses(op: Operation) -> Iterator[tuple[SymbolRefAttr, Operation]]:
    """Every symbol reference in ``op`` and the ops nested in it, with its user.

    Like MLIR's ``SymbolTable::getSymbolUses``, this does not enter nested
    symbol tables.
    """
    for ref in op_symbol_refs(op):
        yield ref, op
    for region in op.regions:
        for block in region.blocks:
            for nested in block.ops:
                if nested.has_trait(SymbolTable):
                    yield from ((ref, nested) for ref in op_symbol_refs(nested))
                    continue
                yield from symbol_uses(nested)


def _walk_referenced_nodes(
    op: Operation,
    graph: CallGraph,
    resolved: dict[SymbolRefAttr, CallGraphNode | None],
    callback: Callable[[CallGraphNode, Operation], None],
) -> None:
    """Call ``callback`` for each symbol use in ``op`` that names a callable node."""
    anchor = op.parent_op()
    for ref, user in symbol_uses(op):
        if ref not in resolved:
            target = resolve_symbol(anchor, ref) if anchor is not None else None
            resolved[ref] = graph.lookup(callable_region(target)) if target is not None else None
        node = resolved[ref]
        if node is not None:
            callback(node, user)


@dataclass
class _Uses:
    """The discardable nodes one node refers to (MLIR's ``CGUser``)."""

    top_level: list[CallGraphNode] = field(default_factory=list[CallGraphNode])
    """Nodes the callable op itself refers to in its attributes (each once)."""
    inner: dict[CallGraphNode, int] = field(default_factory=dict[CallGraphNode, int])
    """How often ops nested in the callable refer to each node."""


def _is_private(op: Operation) -> bool:
    visibility = op.properties.get("sym_visibility") or op.attributes.get("sym_visibility")
    return isinstance(visibility, StringAttr) and visibility.data == "private"


class UseList:
    """The symbol uses of the discardable (private) callables, kept up to date
    while inlining so that a callee whose last call was inlined can be erased.

    Counts follow MLIR's ``CGUseList`` exactly, negative ones included (its
    ``DenseMap::operator[]`` inserts zero for a node it does not hold).
    """

    def __init__(self, root: Operation, graph: CallGraph) -> None:
        self.graph = graph
        self.counts: dict[CallGraphNode, int] = {}
        """Symbol uses of each discardable node."""
        self._uses: dict[CallGraphNode, _Uses] = {}
        always_live: dict[SymbolRefAttr, CallGraphNode | None] = {}
        for table in _symbol_tables(root):
            for op in table.regions[0].block.ops:
                node = graph.lookup(callable_region(op))
                if node is None:
                    # Anything else that names a callable keeps it alive.
                    _walk_referenced_nodes(op, graph, always_live, lambda _node, _user: None)
                    continue
                if op.has_trait(SymbolOpInterface) and _is_private(op):
                    self.counts.setdefault(node, 0)
        for node in always_live.values():
            if node is not None:
                self.counts.pop(node, None)
        for node in graph.nodes.values():
            self.recompute(node)

    def _add(self, node: CallGraphNode, delta: int) -> None:
        self.counts[node] = self.counts.get(node, 0) + delta

    def is_dead(self, node: CallGraphNode) -> bool:
        """Whether a discardable node has no uses left."""
        return self.counts.get(node) == 0

    def has_one_use_and_discardable(self, node: CallGraphNode) -> bool:
        """Whether a discardable node has exactly one use left."""
        return self.counts.get(node) == 1

    def recompute(self, node: CallGraphNode) -> None:
        """Count again the uses held by ``node`` (after its body changed)."""
        uses = self._uses.setdefault(node, _Uses())
        self._decrement(uses)
        uses = _Uses()
        self._uses[node] = uses
        parent = node.callable

        def count(target: CallGraphNode, user: Operation) -> None:
            if target not in self.counts:
                return
            if user is not parent:
                uses.inner[target] = uses.inner.get(target, 0) + 1
            elif target not in uses.top_level:
                uses.top_level.append(target)
            else:
                return
            self._add(target, 1)

        _walk_referenced_nodes(parent, self.graph, {}, count)

    def drop_call_uses(self, user: CallGraphNode, call: Operation) -> None:
        """Forget the uses a call inside ``user`` made (it was inlined)."""
        inner = self._uses.setdefault(user, _Uses()).inner

        def drop(target: CallGraphNode, _user: Operation) -> None:
            if target not in inner:
                return
            inner[target] -= 1
            self._add(target, -1)

        _walk_referenced_nodes(call, self.graph, {}, drop)

    def merge_uses_after_inlining(self, callee: CallGraphNode, caller: CallGraphNode) -> None:
        """The caller now holds a copy of every use the callee held."""
        caller_inner = self._uses.setdefault(caller, _Uses()).inner
        for target, n in self._uses.setdefault(callee, _Uses()).inner.items():
            caller_inner[target] = caller_inner.get(target, 0) + n
            self._add(target, n)

    def erase_node(self, node: CallGraphNode) -> None:
        """Forget a node (and its children) and the uses it held."""
        for edge in node.edges:
            if edge.kind == "child":
                self.erase_node(edge.target)
        uses = self._uses.pop(node)
        self._decrement(uses)
        self.counts.pop(node, None)

    def _decrement(self, uses: _Uses) -> None:
        for target in uses.top_level:
            self._add(target, -1)
        for target, n in uses.inner.items():
            self._add(target, -n)


def _symbol_tables(root: Operation) -> Iterator[Operation]:
    """``root`` and the symbol tables nested in it, outermost first."""
    if root.has_trait(SymbolTable):
        yield root
    for region in root.regions:
        for block in region.blocks:
            for op in block.ops:
                yield from _symbol_tables(op)
