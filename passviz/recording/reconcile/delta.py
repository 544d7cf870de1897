"""Building the step's ``Delta`` from what a comparison found, with replacements matched to ids
and the texts of the ops it touched."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation, OpResult, SSAValue

from passviz.recording.reconcile.records import PendingReplacement
from passviz.recording.reconcile.state import ReconcileState
from passviz.trace.model import BlockMerge, BlockSplit, Delta, OpChange, Placement, Replacement


class DeltaBuilder(ReconcileState):
    """The delta of one comparison."""

    def _placement(self, op_id: str) -> Placement:
        rec = self.s.ops[op_id]
        assert rec.block is not None
        prev = rec.op.prev_op
        return Placement(id=op_id, block=rec.block, after=self.s.op_ids[prev] if prev is not None else None)

    def _delta(self, replacements: Sequence[PendingReplacement]) -> Delta:
        delta = Delta()
        created = [o for o in self.created_ops if o in self.s.ops]
        live_placed = [o for o in self.placed if o in self.s.ops]
        if created:
            delta["ops_created"] = [self.s.op_info(o) for o in created]
        if self.erased_ops:
            delta["ops_erased"] = list(self.erased_ops)
        modified = [c for o, c in self.changes.items() if o in self.s.ops]
        if modified:
            delta["ops_modified"] = modified
        moved = [o for o in self.moved if o in self.s.ops]
        if moved:
            delta["ops_moved"] = moved
        if live_placed:
            delta["placed"] = [self._placement(o) for o in live_placed]
        self._block_delta(delta)
        if self.region_blocks:
            delta["region_blocks"] = self.region_blocks
        replaced = self._replacements(replacements)
        if replaced:
            delta["replaced"] = replaced
        self._texts(delta, created, modified, moved)
        return delta

    def _block_delta(self, delta: Delta) -> None:
        created = [b for b in self.created_blocks if b in self.s.blocks]
        if created:
            delta["blocks_created"] = [self.s.block_info(b) for b in created]
        if self.erased_blocks:
            delta["blocks_erased"] = list(self.erased_blocks)
        moved = [b for b in self.moved_blocks if b in self.s.blocks and b not in created]
        if moved:
            delta["blocks_moved"] = moved
        args = {b: a for b, a in self.block_args.items() if b in self.s.blocks and b not in created}
        if args:
            delta["block_args"] = args
        names = {b: n for b, n in self.block_names.items() if b in self.s.blocks}
        if names:
            delta["block_names"] = names
        if self.args_added:
            delta["args_added"] = list(self.args_added)
        if self.args_removed:
            delta["args_removed"] = list(self.args_removed)
        splits = self._splits(set(created))
        if splits:
            delta["blocks_split"] = splits
        merges = self._merges()
        if merges:
            delta["blocks_merged"] = merges

    def _splits(self, created_blocks: set[str]) -> list[BlockSplit]:
        seen: set[tuple[str, str]] = set()
        splits: list[BlockSplit] = []
        for op_id, old_block in self.placed.items():
            rec = self.s.ops.get(op_id)
            if rec is None or old_block is None or rec.block not in created_blocks:
                continue
            if old_block not in self.s.blocks or (rec.block, old_block) in seen:
                continue
            assert rec.block is not None
            seen.add((rec.block, old_block))
            splits.append(BlockSplit(block=rec.block, source=old_block))
        return splits

    def _merges(self) -> list[BlockMerge]:
        merges: list[BlockMerge] = []
        for block_id, old_ops in self.erased_block_ops.items():
            # Ops already re-recorded in their new block left the old block's record.
            moved_out = {op_id for op_id, old in self.placed.items() if old == block_id}
            targets = {
                rec.block
                for op_id in old_ops | moved_out
                if (rec := self.s.ops.get(op_id)) is not None and rec.block is not None
            }
            merges.extend(BlockMerge(block=block_id, into=t) for t in sorted(targets))
        return merges

    def _lookup(self, obj: SSAValue | Operation) -> str | None:
        """The id of a live or just-erased value or op."""
        if isinstance(obj, Operation):
            found = self.s.op_ids.get(obj)
        else:
            found = self.s.value_ids.get(obj)
        return found if found is not None else self.graveyard.get(obj)

    def _replacements(self, pending: Sequence[PendingReplacement]) -> list[Replacement]:
        out: list[Replacement] = []
        for item in pending:
            op_id = self._lookup(item.op)
            if op_id is None:
                continue
            pairs: list[list[str | None]] = []
            by: list[str] = []
            for old, new in zip(item.old, item.new, strict=True):
                new_id = self._lookup(new) if new is not None else None
                pairs.append([self._lookup(old), new_id])
                if isinstance(new, OpResult):
                    owner = self._lookup(new.op)
                    if owner is not None and owner not in by:
                        by.append(owner)
            out.append(Replacement(op=op_id, values=pairs, by=by))
        return out

    def _texts(self, delta: Delta, created: list[str], modified: list[OpChange], moved: list[str]) -> None:
        # An op's custom syntax may show its entry block's arguments (a function's
        # signature): a new entry block, or new arguments, change the op's text.
        holders: list[str] = []
        for block_id in delta.get("block_args", {}):
            region = self.s.blocks[block_id].region if block_id in self.s.blocks else None
            holder = self.s.regions[region].op if region in self.s.regions else None
            if holder is not None:
                holders.append(holder)
        for region_id in delta.get("region_blocks", {}):
            holder = self.s.regions[region_id].op if region_id in self.s.regions else None
            if holder is not None:
                holders.append(holder)
        for op_id in [*created, *(c["id"] for c in modified), *moved, *holders]:
            if op_id not in self.s.ops:
                continue
            if op_id not in self.texts:
                self.texts[op_id] = self.s.text_of(self.s.ops[op_id].op)
        if self.texts:
            delta["texts"] = self.texts
