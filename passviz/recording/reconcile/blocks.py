"""Block and region changes: new, moved and erased blocks, a region's block list, block arguments."""

from __future__ import annotations

from xdsl.ir import Block, Region, SSAValue

from passviz.recording.reconcile.erasure import Erasure
from passviz.recording.reconcile.records import BlockRec
from passviz.recording.reconcile.registration import Registration


class BlockChanges(Registration, Erasure):
    """Comparing regions and blocks with their records."""

    def _visit_region(self, region: Region) -> None:
        if region in self.seen_regions:
            return
        self.seen_regions.add(region)
        if not self._alive_region(region):
            return
        parent = region.parent
        rec_id = self.s.region_ids.get(region)
        if rec_id is None:
            rec_id = self._register_region(region, self.s.op_ids.get(parent) if parent is not None else None)
            self.created_regions.add(rec_id)
        rec = self.s.regions[rec_id]
        if parent is not None and parent not in self.s.op_ids:
            self.op_queue.append(parent)
        live: list[str] = []
        for block in region.blocks:
            self._visit_block(block)
            block_id = self.s.block_ids[block]
            self.s.blocks[block_id].region = rec_id
            live.append(block_id)
        live_tuple = tuple(live)
        if live_tuple != rec.blocks or rec_id in self.created_regions:
            for old in rec.blocks:
                if old not in live_tuple and old in self.s.blocks:
                    self.gone_blocks.append(old)
            rec.blocks = live_tuple
            self.region_blocks[rec_id] = live
        if parent is not None and parent in self.s.op_ids:
            rec.op = self.s.op_ids[parent]

    def _visit_block(self, block: Block) -> None:
        block_id = self._first_visit(
            block,
            self.seen_blocks,
            self.s.block_ids,
            self._alive_block,
            self.gone_blocks,
            self._visit_new_block,
        )
        if block_id is None:
            return
        rec = self.s.blocks[block_id]
        region = block.parent
        assert region is not None
        region_id = self.s.region_ids.get(region)
        if region_id != rec.region:
            self.moved_blocks.append(block_id)
            if rec.region is not None and rec.region in self.s.regions:
                self._revisit_region(self.s.regions[rec.region].region)
            self._revisit_region(region)
        self._check_args(rec)
        if block.name_hint != rec.name:
            rec.name = block.name_hint
            self.block_names[block_id] = block.name_hint

    def _visit_new_block(self, block: Block) -> None:
        block_id = self._register_block(block)
        self.created_blocks.append(block_id)
        self._revisit_region(block.parent)
        self.op_queue.extend(block.ops)

    def _check_args(self, rec: BlockRec) -> None:
        live: list[str] = []
        meta_changed = False
        for arg in rec.block.args:
            arg_id = self.s.value_ids.get(arg)
            if arg_id is None:
                arg_id = self._register_value(arg)
                self.op_queue.extend(use.operation for use in arg.uses)
            elif self._check_value_meta(arg_id, arg):
                meta_changed = True
            live.append(arg_id)
        live_tuple = tuple(live)
        if live_tuple == rec.args and not meta_changed:
            return
        if live_tuple != rec.args:
            added = [a for a in live_tuple if a not in rec.args]
            removed = [a for a in rec.args if a not in live_tuple]
            self.args_added.extend(added)
            self.args_removed.extend(removed)
            for value_id in removed:
                self._forget_value(value_id)
            rec.args = live_tuple
        self.block_args[rec.id] = [self.s.value_info(v) for v in live_tuple]

    def _check_value_meta(self, value_id: str, value: SSAValue) -> bool:
        """Refresh type and name of a known value; True if either changed."""
        rec = self.s.values[value_id]
        if rec.type == value.type and rec.name == value.name_hint:
            return False
        rec.type = value.type
        rec.name = value.name_hint
        return True
