"""Settling what a comparison found gone: erased ops, blocks and values leave the shadow.

An entity the step erased keeps its id in the ``graveyard`` for the rest of the
comparison, so that announced removals and replacements can still be named.
An op or block that turns out alive elsewhere (moved, not erased) is visited
again instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

from xdsl.ir import Block, Operation

from passviz.recording.reconcile.liveness import Liveness

_Entity = TypeVar("_Entity", Operation, Block)


class Erasure(Liveness):
    """Taking erased ops, blocks, regions and values out of the shadow."""

    def _first_visit(
        self,
        entity: _Entity,
        seen: set[_Entity],
        ids: Mapping[_Entity, str],
        alive: Callable[[_Entity], bool],
        gone: list[str],
        new: Callable[[_Entity], object],
    ) -> str | None:
        """The id of ``entity`` (an op or a block) visited for the first time, known and alive;
        otherwise None, handing a new one that is alive to ``new`` and taking a known one that
        is not for ``gone``."""
        if entity in seen:
            return None
        seen.add(entity)
        entity_id = ids.get(entity)
        if entity_id is None:
            if alive(entity):
                new(entity)
            return None
        if not alive(entity):
            gone.append(entity_id)
            return None
        return entity_id

    def _alive_elsewhere(
        self, entity: _Entity, alive: Callable[[_Entity], bool], seen: set[_Entity], queue: list[_Entity]
    ) -> bool:
        """Whether ``entity``, found gone from its place, still hangs under the root (moved, not
        erased): then it is visited again."""
        if not alive(entity):
            return False
        seen.discard(entity)
        queue.append(entity)
        return True

    def _settle_gone_op(self, op_id: str) -> None:
        rec = self.s.ops.get(op_id)
        if rec is None or self._alive_elsewhere(rec.op, self._alive_op, self.seen_ops, self.op_queue):
            return
        self._enqueue_id(rec.prev)
        self._enqueue_id(rec.next)
        self.erased_ops.append(op_id)
        self.erased_recs[op_id] = rec
        self.graveyard[rec.op] = op_id
        del self.s.ops[op_id]
        del self.s.op_ids[rec.op]
        for value_id in rec.operands:
            if value_id in self.s.users:
                self.s.users[value_id].discard(op_id)
        if rec.block is not None and rec.block in self.s.blocks:
            self.s.blocks[rec.block].ops.discard(op_id)
        for value_id in rec.results:
            self._forget_value(value_id)
        for region_id in rec.regions:
            region_rec = self.s.regions.pop(region_id, None)
            if region_rec is None:
                continue
            if self._alive_region(region_rec.region):
                self.s.regions[region_id] = region_rec  # moved to another op
                self.region_queue.append(region_rec.region)
                continue
            del self.s.region_ids[region_rec.region]
            self.gone_blocks.extend(region_rec.blocks)
        if rec.block is not None and rec.block in self.s.blocks:
            self.block_queue.append(self.s.blocks[rec.block].block)
            self.seen_blocks.discard(self.s.blocks[rec.block].block)

    def _settle_gone_block(self, block_id: str) -> None:
        rec = self.s.blocks.get(block_id)
        if rec is None or self._alive_elsewhere(
            rec.block, self._alive_block, self.seen_blocks, self.block_queue
        ):
            return
        self.erased_blocks.append(block_id)
        self.erased_block_ops[block_id] = set(rec.ops)
        self.graveyard[rec.block] = block_id
        del self.s.blocks[block_id]
        del self.s.block_ids[rec.block]
        for value_id in rec.args:
            self._forget_value(value_id)
        self.gone_ops.extend(sorted(rec.ops))
        if rec.region is not None and rec.region in self.s.regions:
            region = self.s.regions[rec.region].region
            self.seen_regions.discard(region)
            self.region_queue.append(region)

    def _forget_value(self, value_id: str) -> None:
        """Drop a dead value; the ops that used it must have changed: visit them."""
        for user in sorted(self.s.users.pop(value_id, ())):  # sorted: traces are deterministic
            user_rec = self.s.ops.get(user)
            if user_rec is not None:
                self.seen_ops.discard(user_rec.op)
                self.op_queue.append(user_rec.op)
        rec = self.s.values.pop(value_id, None)
        if rec is None:
            return
        self.graveyard[rec.value] = value_id
        self.s.value_ids.pop(rec.value, None)
