"""Giving ids to what the shadow has not seen yet, and copying an op's fields into its record.

``register_initial`` numbers a whole module once, without a delta; the
``_register_*`` methods number what a comparison finds new.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, Region, SSAValue

from passviz.ir.xdsl_compat import op_links
from passviz.recording.reconcile.records import KEY_GAP, BlockRec, OpRec, RegionRec, ValueRec, fingerprint
from passviz.recording.reconcile.state import ReconcileState


class Registration(ReconcileState):
    """Ids for new ops, blocks, regions and values; records filled from the live IR."""

    def register_initial(self, root: Operation) -> None:
        """Give ids to everything in ``root`` without producing a delta."""
        self._register_op(root, block=None, prev=None, key=0.0)
        stack: list[Operation] = [root]
        while stack:
            op = stack.pop()
            for region in op.regions:
                region_id = self._register_region(region, self.s.op_ids[op])
                self.s.regions[region_id].blocks = tuple(
                    self._register_block(block) for block in region.blocks
                )
                for block in region.blocks:
                    prev: str | None = None
                    for index, child in enumerate(block.ops):
                        prev = self._register_op(child, self.s.block_ids[block], prev, index * KEY_GAP)
                        stack.append(child)
        for rec in self.s.ops.values():
            self._take_content(rec)
            self._take_neighbours(rec)
            rec.fingerprint = fingerprint(rec.op)

    def _take_neighbours(self, rec: OpRec) -> None:
        prev, nxt = rec.op.prev_op, rec.op.next_op
        rec.prev = self.s.op_ids.get(prev) if prev is not None else None
        rec.next = self.s.op_ids.get(nxt) if nxt is not None else None

    def _take_content(self, rec: OpRec) -> None:
        """Copy the live op's fields into its record (all referenced ids are known)."""
        op, ids = rec.op, self.s
        values = ids.value_ids
        _, _, operands, successors = op_links(op)
        self._set_operands(rec, tuple([values[v] for v in operands]) if operands else ())
        rec.results = tuple([values[v] for v in op.results]) if op.results else ()
        rec.successors = tuple([ids.block_ids[b] for b in successors]) if successors else ()
        rec.regions = tuple([ids.region_ids[r] for r in op.regions]) if op.regions else ()
        rec.attrs, rec.props, rec.loc = dict(op.attributes), dict(op.properties), op.location

    def _set_operands(self, rec: OpRec, operands: tuple[str, ...]) -> None:
        """Record new operands, keeping the value -> users index in step."""
        users = self.s.users
        for value_id in rec.operands:
            if value_id not in operands and value_id in users:
                users[value_id].discard(rec.id)
        for value_id in operands:
            users.setdefault(value_id, set()).add(rec.id)
        rec.operands = operands

    def _register_op(self, op: Operation, block: str | None, prev: str | None, key: float) -> str:
        op_id = self.s.new_id("o")
        self.s.op_ids[op] = op_id
        self.s.ops[op_id] = OpRec(op_id, op, block, prev, None, key)
        if block is not None:
            self.s.blocks[block].ops.add(op_id)
        for result in op.results:
            self._register_value(result)
        return op_id

    def _register_value(self, value: SSAValue) -> str:
        value_id = self.s.new_id("v")
        self.s.value_ids[value] = value_id
        self.s.values[value_id] = ValueRec(value_id, value, value.type, value.name_hint)
        return value_id

    def _register_block(self, block: Block) -> str:
        block_id = self.s.new_id("b")
        self.s.block_ids[block] = block_id
        region = block.parent
        region_id = self.s.region_ids.get(region) if region is not None else None
        args = tuple(self._register_value(a) for a in block.args)
        self.s.blocks[block_id] = BlockRec(block_id, block, region_id, args, block.name_hint)
        return block_id

    def _register_region(self, region: Region, op_id: str | None) -> str:
        region_id = self.s.new_id("r")
        self.s.region_ids[region] = region_id
        rec = RegionRec(region_id, region, op_id)
        self.s.regions[region_id] = rec
        return region_id
