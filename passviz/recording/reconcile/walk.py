"""The walk of one comparison: what to visit, in which order, until nothing new turns up.

A full comparison starts from every op that may have changed; a scoped one
from what the rewriter announced.  ``Reconciliation`` puts the jobs together
and drains their work lists; then it orders the placed ops, checks dominance
and builds the delta.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.ir import Block, Operation

from passviz.ir.walk import walk_ops
from passviz.recording.reconcile.content import ContentDiff
from passviz.recording.reconcile.delta import DeltaBuilder
from passviz.recording.reconcile.order import OrderKeys
from passviz.recording.reconcile.positions import Positions
from passviz.recording.reconcile.records import PendingReplacement, Removal, fingerprint, unchanged
from passviz.trace.model import Delta


class ReconcileError(Exception):
    """A comparison that could not finish: the live IR is not a tree rooted at the module."""


class Reconciliation(Positions, ContentDiff, OrderKeys, DeltaBuilder):
    """One comparison of live IR against the shadow."""

    def run(
        self,
        *,
        full: bool,
        ops: Iterable[Operation],
        blocks: Iterable[Block],
        removed: Sequence[Removal],
        replacements: Sequence[PendingReplacement],
    ) -> Delta:
        for item in removed:
            op_id = self.s.op_ids.get(item.op)
            if op_id is not None:
                self.texts[op_id] = item.text
                self.gone_ops.append(op_id)
        for item in replacements:
            for value in item.new:
                if value is not None:
                    self._enqueue_owner(value)
        if full:
            self._seed_everything()
        else:
            self.op_queue.extend(ops)
            self.block_queue.extend(blocks)
        self._drain()
        if full and self._walk_missed_something():
            self._sweep_unseen()
            self._drain()
        self._refresh_neighbours_of_seen()
        self._place()
        self._check_dominance()
        return self._delta(replacements)

    def _drain(self) -> None:
        # Each entity is visited a bounded number of times; past this, the live
        # IR is not a tree (an op in two blocks' lists, say) and comparing stops.
        budget = (
            64 * (len(self.s.ops) + len(self.s.blocks) + len(self.op_queue) + len(self.block_queue)) + 100_000
        )
        while True:
            progressed = False
            while self.region_queue or self.block_queue or self.op_queue:
                progressed = True
                budget -= 1
                if budget < 0:
                    raise ReconcileError("comparing the IR did not settle: ops are linked in a cycle")
                if self.region_queue:
                    self._visit_region(self.region_queue.pop())
                elif self.block_queue:
                    self._visit_block(self.block_queue.pop())
                else:
                    self._visit_op(self.op_queue.pop())
            while self.gone_ops or self.gone_blocks:
                progressed = True
                if self.gone_ops:
                    self._settle_gone_op(self.gone_ops.pop())
                else:
                    self._settle_gone_block(self.gone_blocks.pop())
            if self.to_check:
                progressed = True
                pending, self.to_check = self.to_check, []
                for op in pending:
                    self._check_content(op)
            if not progressed:
                return

    def _seed_everything(self) -> None:
        """Queue every live op that may have changed; unchanged ones are only marked seen."""
        ops = self.s.ops
        op_ids = self.s.op_ids
        for op in walk_ops(self.s.root):
            self.walked_ops += 1
            for region in op.regions:
                self.region_queue.append(region)
                self.block_queue.extend(region.blocks)
                self.walked_blocks += len(region.blocks)
            op_id = op_ids.get(op)
            if op_id is not None and unchanged(ops[op_id], op):
                self.seen_ops.add(op)
                continue
            self.op_queue.append(op)

    def _walk_missed_something(self) -> bool:
        """True if the shadow knows more than the full walk found alive.

        Everything the walk found is known by now, so equal counts mean that
        nothing the shadow knows went unseen, and the sweep can be skipped.
        """
        return len(self.s.ops) != self.walked_ops or len(self.s.blocks) != self.walked_blocks

    def _sweep_unseen(self) -> None:
        """After a full walk, whatever the shadow knows but the walk missed is gone."""
        for op_id, rec in list(self.s.ops.items()):
            if rec.op not in self.seen_ops:
                self.gone_ops.append(op_id)
        for block_id, rec in list(self.s.blocks.items()):
            if rec.block not in self.seen_blocks:
                self.gone_blocks.append(block_id)

    def _refresh_neighbours_of_seen(self) -> None:
        for op in self.compared:
            op_id = self.s.op_ids.get(op)
            if op_id is not None:
                rec = self.s.ops[op_id]
                self._take_neighbours(rec)
                rec.fingerprint = fingerprint(op)

    def _visit_op(self, op: Operation) -> None:
        op_id = self._first_visit(
            op, self.seen_ops, self.s.op_ids, self._alive_op, self.gone_ops, self._visit_new_op
        )
        if op_id is None:
            return
        rec = self.s.ops[op_id]
        self.compared.append(op)
        if unchanged(rec, op):
            for region in op.regions:
                self._enqueue_region(region)
            return
        self._check_position(rec)
        if op.parent is not None and op.parent not in self.seen_blocks:
            self.block_queue.append(op.parent)
        for region in op.regions:
            self._enqueue_region(region)
        self.to_check.append(op)

    def _visit_new_op(self, op: Operation) -> None:
        block = op.parent
        assert block is not None
        if block not in self.s.block_ids:
            self._visit_block(block)
        block_id = self.s.block_ids[block]
        op_id = self._register_op(op, block_id, None, 0.0)
        self.created_ops.append(op_id)
        self.created_set.add(op_id)
        self.compared.append(op)
        self.placed[op_id] = None
        self._enqueue_neighbours(op)
        for region in op.regions:
            self._enqueue_region(region)
        self.to_check.append(op)
