"""Where an op stands in its block: whether a step moved it, or only moved others around it."""

from __future__ import annotations

from xdsl.ir import Operation

from passviz.recording.reconcile.blocks import BlockChanges
from passviz.recording.reconcile.records import OpRec


class Positions(BlockChanges):
    """Deciding which ops must be placed anew in the delta."""

    def _check_position(self, rec: OpRec) -> None:
        """Decide whether ``rec``'s op must be placed anew in the delta.

        An op keeps its place if its nearest stationary predecessor is the
        same before and after the step: ops erased, moved away or inserted
        around it do not make it move.
        """
        op = rec.op
        block = op.parent
        if block is None:  # only the root has no block
            return
        if block not in self.s.block_ids:
            self._visit_block(block)
        block_id = self.s.block_ids[block]
        prev, nxt = op.prev_op, op.next_op
        prev_id = self.s.op_ids.get(prev) if prev is not None else None
        next_id = self.s.op_ids.get(nxt) if nxt is not None else None
        if (prev_id, next_id) != (rec.prev, rec.next) or (prev_id is None and prev is not None):
            self._enqueue_id(rec.prev)
            self._enqueue_id(rec.next)
            self._enqueue_neighbours(op)
        if block_id == rec.block and (
            prev_id == rec.prev or self._live_anchor(op, block_id) == self._old_anchor(rec.prev, block_id)
        ):
            return
        self.placed[rec.id] = rec.block
        self.old_prev[rec.id] = rec.prev
        if rec.block is not None and rec.block in self.s.blocks:
            old_block = self.s.blocks[rec.block]
            old_block.ops.discard(rec.id)
            if rec.block != block_id:  # the op left: its old block may be gone
                self.seen_blocks.discard(old_block.block)
                self.block_queue.append(old_block.block)
        self.s.blocks[block_id].ops.add(rec.id)
        rec.block = block_id

    def _live_anchor(self, op: Operation, block_id: str) -> str | None:
        """Nearest live predecessor that was already in this block and stayed."""
        node = op.prev_op
        while node is not None:
            node_id = self.s.op_ids.get(node)
            if (
                node_id is not None
                and node_id not in self.created_set
                and node_id not in self.placed
                and self.s.ops[node_id].block == block_id
            ):
                return node_id
            node = node.prev_op
        return None

    def _old_anchor(self, prev_id: str | None, block_id: str) -> str | None:
        """Nearest old predecessor that is still alive in this block and stayed."""
        cur = prev_id
        while cur is not None:
            if cur in self.erased_recs:
                cur = self.erased_recs[cur].prev
                continue
            if cur in self.placed:
                cur = self.old_prev.get(cur)
                continue
            rec = self.s.ops.get(cur)
            if rec is None:
                return None
            live_block = rec.op.parent
            if (
                live_block is None
                or self.s.block_ids.get(live_block) != block_id
                or not self._alive_op(rec.op)
            ):
                cur = rec.prev
                continue
            return cur
        return None
