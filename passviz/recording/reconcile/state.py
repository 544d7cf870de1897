"""One comparison's state: its work lists, what it has seen, what it found.

A reconciliation is made of one class per job (``reconcile/__init__.py`` lists
them), each a subclass of ``ReconcileState``: the state they share, and the
work lists through which they hand each other the entities still to look at.
"""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue

from passviz.recording.reconcile.records import OpRec
from passviz.recording.reconcile.tables import ShadowTables
from passviz.trace.model import OpChange, ValueInfo


class ReconcileState:
    """The state of one comparison of live IR against the shadow, and its work lists."""

    def __init__(self, shadow: ShadowTables) -> None:
        self.s = shadow
        self.op_queue: list[Operation] = []
        self.block_queue: list[Block] = []
        self.region_queue: list[Region] = []
        self.gone_ops: list[str] = []
        self.gone_blocks: list[str] = []
        self.seen_ops: set[Operation] = set()
        self.compared: list[Operation] = []
        """Ops compared field by field (not by the fast path)."""
        self.seen_blocks: set[Block] = set()
        self.seen_regions: set[Region] = set()
        self.walked_ops: int = 0
        self.walked_blocks: int = 0
        self.to_check: list[Operation] = []
        self.created_ops: list[str] = []
        self.created_blocks: list[str] = []
        self.created_regions: set[str] = set()
        self.erased_ops: list[str] = []
        self.erased_blocks: list[str] = []
        self.graveyard: dict[object, str] = {}
        self.erased_block_ops: dict[str, set[str]] = {}
        self.created_set: set[str] = set()
        self.placed: dict[str, str | None] = {}
        """Op id -> the block it was in before (None if created)."""
        self.old_prev: dict[str, str | None] = {}
        """Op id of a placed op -> its predecessor before the step."""
        self.erased_recs: dict[str, OpRec] = {}
        self.moved: list[str] = []
        self.moved_blocks: list[str] = []
        self.changes: dict[str, OpChange] = {}
        self.block_args: dict[str, list[ValueInfo]] = {}
        self.block_names: dict[str, str | None] = {}
        self.args_added: list[str] = []
        self.args_removed: list[str] = []
        self.region_blocks: dict[str, list[str]] = {}
        self.texts: dict[str, str] = {}
        self.problems: list[str] = []
        """Corruption found in the live IR, worded for a person."""
        self.retries: dict[Operation, int] = {}
        """How often each op's operands were looked up again."""
        self.cyclic: set[Operation] = set()
        """Ops found inside their own regions (directly or through other ops)."""
        self.alive: dict[Operation, bool] = {}
        """Whether each op looked at hangs under the root (``_alive_op``)."""

    # -- work lists -----------------------------------------------------------

    def _enqueue_region(self, region: Region | None) -> None:
        if region is not None and region not in self.seen_regions:
            self.region_queue.append(region)

    def _revisit_region(self, region: Region | None) -> None:
        if region is not None:
            self.seen_regions.discard(region)
            self.region_queue.append(region)

    def _enqueue_neighbours(self, op: Operation) -> None:
        if op.prev_op is not None:
            self.op_queue.append(op.prev_op)
        if op.next_op is not None:
            self.op_queue.append(op.next_op)

    def _enqueue_id(self, op_id: str | None) -> None:
        if op_id is None:
            return
        rec = self.s.ops.get(op_id)
        if rec is not None:
            self.op_queue.append(rec.op)

    def _enqueue_owner(self, value: SSAValue) -> None:
        if isinstance(value, OpResult):
            self.op_queue.append(value.op)
            self.seen_ops.discard(value.op)
        elif isinstance(value, BlockArgument):
            self.block_queue.append(value.block)
            self.seen_blocks.discard(value.block)
