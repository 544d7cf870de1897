"""Whether an op, block, region or value still hangs under the root of the module.

The answers are remembered for the whole comparison (the live IR does not
change during one), and an op found inside its own regions is reported.
"""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue

from passviz.recording.reconcile.corruption import Corruption


class Liveness(Corruption):
    """Liveness of live-IR entities, cached for one comparison."""

    def _alive_op(self, op: Operation) -> bool:
        """Whether ``op`` hangs under the root.  The answer for every op on the
        way up is remembered for this comparison (the live IR does not change
        during it), so deep nesting costs each op one step up, not its depth."""
        cache = self.alive
        path: list[Operation] = []
        node: Operation | None = op
        alive = False
        visited: set[Operation] = set()
        while node is not None:
            known = cache.get(node)
            if known is not None:
                alive = known
                break
            if node is self.s.root:
                alive = True
                break
            path.append(node)
            block = node.parent
            region = block.parent if block is not None else None
            if region is None:
                break
            node = region.parent
            if len(path) > 64 and node is not None:  # deep, or a cycle: from here on, remember
                if node in visited:
                    self._found_cycle(node)
                    break
                visited.add(node)
        for seen in path:
            cache[seen] = alive
        return alive

    def _alive_block(self, block: Block) -> bool:
        region = block.parent
        if region is None or region.parent is None:
            return False
        return self._alive_op(region.parent)

    def _alive_region(self, region: Region) -> bool:
        return region.parent is not None and self._alive_op(region.parent)

    def _dangling(self, value: SSAValue) -> str | None:
        """How ``value`` is not defined in the IR any more, or None if it is."""
        if isinstance(value, OpResult):
            if self._alive_op(value.op):
                return None
            return f"a result of {self._describe(value.op)}, which is no longer in the IR"
        if isinstance(value, BlockArgument):
            if self._alive_block(value.block):
                return None
            block_id = self.s.block_ids.get(value.block) or self.graveyard.get(value.block)
            return f"an argument of block {block_id or '(unknown)'}, which is no longer in the IR"
        return "an erased value"
