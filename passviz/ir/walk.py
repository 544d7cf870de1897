"""Walking nested IR without nested generators.

xDSL's ``Operation.walk`` recurses through one generator per region, block
and op, so every op it yields passes up through a generator frame per level
of nesting: a walk of ``n`` ops nested ``d`` deep costs ``n * d``.  ``walk_ops``
yields the same ops in the same (pre-)order from an explicit stack, at a
constant cost per op; an upstream ``walk`` could do the same.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.ir import Operation


def walk_ops(root: Operation) -> Iterator[Operation]:
    """``root`` and every op nested in it, in ``root.walk()``'s order."""
    stack: list[Operation] = [root]
    while stack:
        op = stack.pop()
        yield op
        nested: list[Operation] = []
        for region in op.regions:
            for block in region.blocks:
                nested.extend(block.ops)
        stack.extend(reversed(nested))
