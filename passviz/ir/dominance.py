"""The dominator tree of a region's blocks, ordered as MLIR's.

xDSL's ``DominanceInfo`` answers "does a dominate b" but gives no tree, and
MLIR's CSE walks the tree.  This computes immediate dominators with the
iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance
Algorithm"); each block's children are in depth-first preorder of the CFG
(successors in order), as LLVM's dominator tree lists them.  Blocks that the
entry block cannot reach are not in the tree, as in MLIR.
"""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.traits import NoTerminator, SymbolTable


def _successors(block: Block) -> tuple[Block, ...]:
    last = block.last_op
    return tuple(last.successors) if last is not None else ()


def _preorder(entry: Block) -> list[Block]:
    """The blocks reachable from ``entry`` in depth-first preorder, successors in order."""
    order: list[Block] = []
    seen: set[Block] = set()
    stack = [entry]
    while stack:
        block = stack.pop()
        if block in seen:
            continue
        seen.add(block)
        order.append(block)
        stack.extend(reversed(_successors(block)))
    return order


def _postorder(entry: Block) -> list[Block]:
    """The blocks reachable from ``entry`` in depth-first postorder."""
    order: list[Block] = []
    seen = {entry}
    stack = [(entry, iter(_successors(entry)))]
    while stack:
        block, successors = stack[-1]
        child = next((s for s in successors if s not in seen), None)
        if child is None:
            stack.pop()
            order.append(block)
            continue
        seen.add(child)
        stack.append((child, iter(_successors(child))))
    return order


def immediate_dominators(region: Region) -> dict[Block, Block | None]:
    """Each block reachable from the entry block, with its immediate dominator (None for the entry)."""
    entry = region.blocks.first
    if entry is None:
        return {}
    postorder = _postorder(entry)
    number = {block: index for index, block in enumerate(postorder)}
    predecessors: dict[Block, list[Block]] = {block: [] for block in postorder}
    for block in postorder:
        for successor in _successors(block):
            predecessors[successor].append(block)
    idom: dict[Block, Block] = {entry: entry}

    def intersect(a: Block, b: Block) -> Block:
        while a is not b:
            while number[a] < number[b]:
                a = idom[a]
            while number[b] < number[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for block in reversed(postorder[:-1]):
            processed = [p for p in predecessors[block] if p in idom]
            new = processed[0]
            for other in processed[1:]:
                new = intersect(other, new)
            if idom.get(block) is not new:
                idom[block] = new
                changed = True
    return {block: (None if block is entry else idom[block]) for block in postorder}


def dominator_tree(region: Region) -> dict[Block, list[Block]]:
    """Each block reachable from the entry block, with the blocks it immediately dominates.

    The dict's first key is the entry block, the tree's root."""
    entry = region.blocks.first
    if entry is None:
        return {}
    idom = immediate_dominators(region)
    tree: dict[Block, list[Block]] = {block: [] for block in _preorder(entry)}
    for block in tree:
        parent = idom[block]
        if parent is not None:
            tree[parent].append(block)
    return tree


def _climbs_to(idom: dict[Block, Block | None], a: Block, b: Block) -> bool:
    """Whether climbing ``b``'s immediate dominators in ``idom`` meets ``a``."""
    current: Block | None = b
    while current is not None:
        if current is a:
            return True
        current = idom.get(current)
    return False


def _ancestor_in(region: Region | None, op: Operation | None) -> Operation | None:
    """``op``, or the op enclosing it, that sits directly in ``region``; None if none does."""
    while op is not None and op.parent_region() is not region:
        op = op.parent_op()
    return op


def properly_dominates(value: SSAValue, op: Operation) -> bool:
    """MLIR's ``DominanceInfo::properlyDominates(Value, Operation *)``: ``value`` is
    available at ``op``, and ``op`` is neither its definition nor inside it (one question:
    ``DominanceChecker`` answers many with its trees computed once)."""
    return DominanceChecker().dominates_use(value, op)


def _graph_region(region: Region) -> bool:
    """Whether ``region`` is a graph region, where ops may use values defined after them:
    a module-like op's (a symbol table without a terminator, as ``builtin.module``)."""
    owner = region.parent
    return owner is not None and owner.has_trait(SymbolTable) and owner.has_trait(NoTerminator)


class DominanceChecker:
    """Checks that each operand dominates its use, as MLIR's verifier does, with the dominator
    trees and op orders it needs computed once per region and block."""

    def __init__(self) -> None:
        self._idoms: dict[Region, dict[Block, Block | None]] = {}
        self._orders: dict[Block, dict[Operation, int]] = {}

    def _idom(self, block: Block) -> dict[Block, Block | None]:
        """The immediate dominators of ``block``'s region, computed once."""
        region = block.parent
        assert region is not None
        idom = self._idoms.get(region)
        if idom is None:
            idom = self._idoms[region] = immediate_dominators(region)
        return idom

    def dominates_block(self, a: Block, b: Block) -> bool:
        """Whether block ``a`` dominates ``b`` (one region); MLIR counts a block that the entry
        cannot reach as dominated by every block."""
        idom = self._idom(b)
        return b not in idom or _climbs_to(idom, a, b)

    def _before(self, a: Operation, b: Operation, block: Block) -> bool:
        order = self._orders.get(block)
        if order is None:
            order = self._orders[block] = {op: index for index, op in enumerate(block.ops)}
        return order[a] < order[b]

    def dominates_use(self, value: SSAValue, user: Operation) -> bool:
        """Whether ``value`` is available at ``user``: MLIR's ``properlyDominates``, where a
        use in a graph region needs only to be in the value's region."""
        if isinstance(value, BlockArgument):
            region, block, definition = value.block.parent, value.block, None
        else:
            assert isinstance(value, OpResult)
            definition = value.op
            region, block = definition.parent_region(), definition.parent_block()
        ancestor = _ancestor_in(region, user)
        if region is None or block is None or ancestor is None or ancestor is definition:
            return False
        if _graph_region(region):
            return True
        ancestor_block = ancestor.parent_block()
        assert ancestor_block is not None
        if not self.reachable(ancestor_block):  # MLIR: a use the entry cannot reach is dominated
            return True
        if ancestor_block is not block:
            return self.dominates_block(block, ancestor_block)
        return definition is None or self._before(definition, ancestor, block)

    def reachable(self, block: Block) -> bool:
        """Whether the entry block of ``block``'s region reaches it."""
        return block in self._idom(block)
