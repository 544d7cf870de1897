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


def _dominates_in_region(a: Block, b: Block) -> bool:
    """Whether ``a`` dominates ``b``, two blocks of one region (climbing ``b``'s dominators)."""
    idom = immediate_dominators(b.parent) if b.parent is not None else {}
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
    available at ``op``, and ``op`` is neither its definition nor inside it."""
    if isinstance(value, BlockArgument):
        ancestor = _ancestor_in(value.block.parent, op)
        block = ancestor.parent_block() if ancestor is not None else None
        return block is not None and _dominates_in_region(value.block, block)
    assert isinstance(value, OpResult)
    definition = value.op
    block = definition.parent_block()
    ancestor = _ancestor_in(definition.parent_region(), op)
    if block is None or ancestor is None or ancestor is definition:
        return False
    ancestor_block = ancestor.parent_block()
    if ancestor_block is block:
        return definition.is_before_in_block(ancestor)
    return ancestor_block is not None and _dominates_in_region(block, ancestor_block)
