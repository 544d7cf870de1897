"""A shadow copy of the IR structure, and the reconciliation that yields deltas.

The shadow remembers, for every op, block, region and SSA value that is alive,
its stable id and the fields a delta is made of.  At a step boundary the
recorder asks for a reconciliation: the live IR is compared with the shadow,
the differences become the step's ``Delta``, and the shadow is brought up to
date.

A reconciliation is either *full* (the whole module is compared: this is what
catches edits made behind the rewriter's back) or *scoped* to the entities a
rewrite touched.  A scoped reconciliation follows changes outward (a moved
op's old and new neighbours, the owner of an unknown operand, the users of a
replaced value) until nothing new turns up, so its cost is proportional to the
size of the change, not of the module.
"""

from __future__ import annotations

import gc
from bisect import bisect_left
from collections.abc import Generator, Iterable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from xdsl.ir import Attribute, Block, BlockArgument, ErasedSSAValue, Operation, OpResult, Region, SSAValue

from passviz.ir.printer import AttrPrinter, op_text
from passviz.ir.walk import walk_ops
from passviz.ir.xdsl_compat import op_links
from passviz.trace.model import (
    BlockInfo,
    BlockMerge,
    BlockSplit,
    Delta,
    OpChange,
    OpInfo,
    Placement,
    Replacement,
    ValueInfo,
)

_KEY_GAP = 1024.0
"""Spacing of order keys when a block is (re)numbered."""

_MAX_RETRIES = 16
"""How often an op's operands may be looked up again before they count as unresolvable."""


class ReconcileError(Exception):
    """A comparison that could not finish: the live IR is not a tree rooted at the module."""


@dataclass(eq=False, slots=True)
class _OpRec:
    id: str
    op: Operation
    block: str | None
    prev: str | None
    next: str | None
    key: float
    operands: tuple[str, ...] = ()
    results: tuple[str, ...] = ()
    successors: tuple[str, ...] = ()
    attrs: dict[str, Attribute] = field(default_factory=lambda: dict[str, Attribute]())
    props: dict[str, Attribute] = field(default_factory=lambda: dict[str, Attribute]())
    regions: tuple[str, ...] = ()
    loc: Attribute | None = None
    fingerprint: tuple[object, ...] = ()
    """The live op's structure when last compared: if it still matches, and the
    attribute dicts are equal, the op is unchanged (the fast path)."""


def _fingerprint(op: Operation) -> tuple[object, ...]:
    """Identity of everything that places and wires ``op`` (cheap to compare)."""
    prev, nxt, operands, successors = op_links(op)
    return (
        op.parent,
        prev,
        nxt,
        operands,
        op.results,
        tuple(r.name_hint for r in op.results),
        successors,
        op.regions,
        op.location,
    )


def _unchanged(rec: _OpRec, op: Operation) -> bool:
    return rec.fingerprint == _fingerprint(op) and op.attributes == rec.attrs and op.properties == rec.props


@dataclass(eq=False, slots=True)
class _BlockRec:
    id: str
    block: Block
    region: str | None
    args: tuple[str, ...]
    name: str | None
    ops: set[str] = field(default_factory=lambda: set[str]())


@dataclass(eq=False, slots=True)
class _RegionRec:
    id: str
    region: Region
    op: str | None
    blocks: tuple[str, ...] = ()


@dataclass(eq=False, slots=True)
class _ValueRec:
    id: str
    value: SSAValue
    type: Attribute
    name: str | None


@dataclass
class Removal:
    """An op the rewriter announced it is about to erase, with its text then."""

    op: Operation
    text: str


@dataclass
class PendingReplacement:
    """An op replacement announced by the rewriter, resolved to ids later."""

    op: Operation
    old: tuple[SSAValue, ...]
    new: tuple[SSAValue | None, ...]


class Shadow:
    """The shadow structure of one module, kept in step with the live IR."""

    def __init__(self, root: Operation, attrs: AttrPrinter | None = None) -> None:
        self.root = root
        self.attrs = attrs or AttrPrinter()
        self.ops: dict[str, _OpRec] = {}
        self.blocks: dict[str, _BlockRec] = {}
        self.regions: dict[str, _RegionRec] = {}
        self.values: dict[str, _ValueRec] = {}
        self.op_ids: dict[Operation, str] = {}
        self.block_ids: dict[Block, str] = {}
        self.region_ids: dict[Region, str] = {}
        self.value_ids: dict[SSAValue, str] = {}
        self.users: dict[str, set[str]] = {}
        """Value id -> ids of the ops whose recorded operands use it."""
        self.problems: list[str] = []
        """What the last comparisons found corrupt in the live IR (uses of values
        no longer defined, ops inside their own regions, uses before definitions):
        the recorder flags the step and clears this."""
        self._next = {"o": 0, "b": 0, "r": 0, "v": 0}
        with _collector_paused():
            _Reconciliation(self).register_initial(root)

    def new_id(self, kind: str) -> str:
        """A fresh id of the given kind (``o``, ``b``, ``r`` or ``v``)."""
        number = self._next[kind]
        self._next[kind] = number + 1
        return f"{kind}{number}"

    def id_of(self, op: Operation) -> str | None:
        """The id of a live op, if the shadow knows it."""
        return self.op_ids.get(op)

    def changed_behind(self, op: Operation) -> bool:
        """Whether a known op was moved, detached or edited since the last comparison."""
        op_id = self.op_ids.get(op)
        return op_id is not None and not _unchanged(self.ops[op_id], op)

    def text_of(self, op: Operation) -> str:
        """The op's text: SSA values named by id (``%v3``), successors by block id (``^b2``)."""
        return op_text(op, self.value_ids, self.block_ids).strip()

    def value_info(self, value_id: str) -> ValueInfo:
        """A known value as a delta records it: id, type and name hint."""
        rec = self.values[value_id]
        info = ValueInfo(id=value_id, type=self.attrs.text(rec.type))
        if rec.name is not None:
            info["name"] = rec.name
        return info

    def attr_texts(self, attrs: dict[str, Attribute]) -> dict[str, str]:
        """Attributes (or properties) printed, in their order."""
        return {name: self.attrs.text(attr) for name, attr in attrs.items()}

    def op_info(self, op_id: str) -> OpInfo:
        """A known op as a delta records a created one, from its shadow record."""
        rec = self.ops[op_id]
        info = OpInfo(
            id=op_id,
            name=rec.op.name,
            operands=list(rec.operands),
            results=[self.value_info(v) for v in rec.results],
        )
        if rec.successors:
            info["successors"] = list(rec.successors)
        if rec.attrs:
            info["attrs"] = self.attr_texts(rec.attrs)
        if rec.props:
            info["props"] = self.attr_texts(rec.props)
        if rec.regions:
            info["regions"] = list(rec.regions)
        if rec.loc is not None and (loc := self.attrs.loc_text(rec.loc)) is not None:
            info["loc"] = loc
        return info

    def block_info(self, block_id: str) -> BlockInfo:
        """A known block as a delta records a created one: its arguments and name hint."""
        rec = self.blocks[block_id]
        info = BlockInfo(id=block_id, args=[self.value_info(v) for v in rec.args])
        if rec.name is not None:
            info["name"] = rec.name
        return info

    def reconcile(
        self,
        *,
        full: bool,
        ops: Iterable[Operation] = (),
        blocks: Iterable[Block] = (),
        removed: Sequence[Removal] = (),
        replacements: Sequence[PendingReplacement] = (),
    ) -> Delta:
        """Compare the live IR with the shadow; return the delta and update the shadow.

        A scoped comparison starts from ``ops``, ``blocks``, the ``removed`` ops
        and the owners of ``replacements``' new values; a full one from everything.
        """
        with _collector_paused():
            reconciliation = _Reconciliation(self)
            try:
                return reconciliation.run(
                    full=full, ops=ops, blocks=blocks, removed=removed, replacements=replacements
                )
            finally:
                self.problems.extend(p for p in reconciliation.problems if p not in self.problems)


@contextmanager
def _collector_paused() -> Generator[None]:
    """Pause Python's cyclic garbage collector for a bulk of small allocations.

    Records are plain containers without reference cycles, but allocating
    ten thousand of them next to a large xDSL module makes the collector scan
    that whole module again and again: more than half the cost of building a
    shadow.  The previous state is restored on exit.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _Reconciliation:
    """One comparison of live IR against the shadow."""

    def __init__(self, shadow: Shadow) -> None:
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
        self.walked_ops = 0
        self.walked_blocks = 0
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
        self.erased_recs: dict[str, _OpRec] = {}
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

    # -- registration -------------------------------------------------------

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
                        prev = self._register_op(child, self.s.block_ids[block], prev, index * _KEY_GAP)
                        stack.append(child)
        for rec in self.s.ops.values():
            self._take_content(rec)
            self._take_neighbours(rec)
            rec.fingerprint = _fingerprint(rec.op)

    def _take_neighbours(self, rec: _OpRec) -> None:
        prev, nxt = rec.op.prev_op, rec.op.next_op
        rec.prev = self.s.op_ids.get(prev) if prev is not None else None
        rec.next = self.s.op_ids.get(nxt) if nxt is not None else None

    def _take_content(self, rec: _OpRec) -> None:
        """Copy the live op's fields into its record (all referenced ids are known)."""
        op, ids = rec.op, self.s
        values = ids.value_ids
        _, _, operands, successors = op_links(op)
        self._set_operands(rec, tuple([values[v] for v in operands]) if operands else ())
        rec.results = tuple([values[v] for v in op.results]) if op.results else ()
        rec.successors = tuple([ids.block_ids[b] for b in successors]) if successors else ()
        rec.regions = tuple([ids.region_ids[r] for r in op.regions]) if op.regions else ()
        rec.attrs, rec.props, rec.loc = dict(op.attributes), dict(op.properties), op.location

    def _set_operands(self, rec: _OpRec, operands: tuple[str, ...]) -> None:
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
        self.s.ops[op_id] = _OpRec(op_id, op, block, prev, None, key)
        if block is not None:
            self.s.blocks[block].ops.add(op_id)
        for result in op.results:
            self._register_value(result)
        return op_id

    def _register_value(self, value: SSAValue) -> str:
        value_id = self.s.new_id("v")
        self.s.value_ids[value] = value_id
        self.s.values[value_id] = _ValueRec(value_id, value, value.type, value.name_hint)
        return value_id

    def _register_block(self, block: Block) -> str:
        block_id = self.s.new_id("b")
        self.s.block_ids[block] = block_id
        region = block.parent
        region_id = self.s.region_ids.get(region) if region is not None else None
        args = tuple(self._register_value(a) for a in block.args)
        self.s.blocks[block_id] = _BlockRec(block_id, block, region_id, args, block.name_hint)
        return block_id

    def _register_region(self, region: Region, op_id: str | None) -> str:
        region_id = self.s.new_id("r")
        self.s.region_ids[region] = region_id
        rec = _RegionRec(region_id, region, op_id)
        self.s.regions[region_id] = rec
        return region_id

    # -- liveness -----------------------------------------------------------

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

    def _found_cycle(self, op: Operation) -> None:
        if op in self.cyclic:
            return
        self.cyclic.add(op)
        self.problems.append(f"{self._describe(op)} was moved into its own region")

    def _describe(self, op: Operation) -> str:
        """An op as a problem names it: its name, its id if it has one, its location."""
        op_id = self.s.op_ids.get(op) or self.graveyard.get(op)
        where = self.s.attrs.loc_text(op.location)
        return f"{op.name}" + (f" ({op_id})" if op_id else "") + (f" at {where}" if where else "")

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

    def _alive_block(self, block: Block) -> bool:
        region = block.parent
        if region is None or region.parent is None:
            return False
        return self._alive_op(region.parent)

    def _alive_region(self, region: Region) -> bool:
        return region.parent is not None and self._alive_op(region.parent)

    # -- the walk -----------------------------------------------------------

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

    def _check_dominance(self) -> None:
        """Flag uses before definitions among the ops this comparison placed, created or changed."""
        ops = self.s.ops
        candidates = {*self.placed, *self.created_ops, *self.changes}
        checked: set[tuple[Operation, Operation]] = set()
        for op_id in sorted(candidates):
            rec = ops.get(op_id)
            if rec is None:
                continue
            op = rec.op
            pairs = [(v.op, op) for v in op.operands if isinstance(v, OpResult)]
            pairs.extend((op, use.operation) for r in op.results for use in r.uses)
            for definer, user in pairs:
                if (definer, user) in checked or definer in self.cyclic or user in self.cyclic:
                    continue
                checked.add((definer, user))
                if definer not in self.s.op_ids or user not in self.s.op_ids:
                    continue  # not in the IR: reported as a dangling use
                if not _visible(definer, user, ops, self.s.op_ids):
                    self.problems.append(
                        f"{self._describe(user)} uses a result of {self._describe(definer)}, "
                        "which does not dominate it"
                    )

    def _refresh_neighbours_of_seen(self) -> None:
        for op in self.compared:
            op_id = self.s.op_ids.get(op)
            if op_id is not None:
                rec = self.s.ops[op_id]
                self._take_neighbours(rec)
                rec.fingerprint = _fingerprint(op)

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
            if op_id is not None and _unchanged(ops[op_id], op):
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
        if block in self.seen_blocks:
            return
        self.seen_blocks.add(block)
        block_id = self.s.block_ids.get(block)
        if block_id is None:
            if not self._alive_block(block):
                return
            block_id = self._register_block(block)
            self.created_blocks.append(block_id)
            self._revisit_region(block.parent)
            self.op_queue.extend(block.ops)
            return
        if not self._alive_block(block):
            self.gone_blocks.append(block_id)
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

    def _enqueue_region(self, region: Region | None) -> None:
        if region is not None and region not in self.seen_regions:
            self.region_queue.append(region)

    def _revisit_region(self, region: Region | None) -> None:
        if region is not None:
            self.seen_regions.discard(region)
            self.region_queue.append(region)

    def _check_args(self, rec: _BlockRec) -> None:
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

    def _visit_op(self, op: Operation) -> None:
        if op in self.seen_ops:
            return
        self.seen_ops.add(op)
        op_id = self.s.op_ids.get(op)
        if op_id is None:
            if not self._alive_op(op):
                return
            self._visit_new_op(op)
            return
        if not self._alive_op(op):
            self.gone_ops.append(op_id)
            return
        rec = self.s.ops[op_id]
        self.compared.append(op)
        if _unchanged(rec, op):
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

    def _check_position(self, rec: _OpRec) -> None:
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

    def _check_content(self, op: Operation) -> None:
        op_id = self.s.op_ids.get(op)
        if op_id is None:
            return
        rec = self.s.ops[op_id]
        missing = False
        operands: list[str] = []
        for value in op.operands:
            value_id = self.s.value_ids.get(value)
            if value_id is None:
                dangling = self._dangling(value)
                if dangling is not None or self.retries.get(op, 0) >= _MAX_RETRIES:
                    self._bad_operand(op, value, dangling or "a value the IR does not define")
                    # The IR still names the value (an ErasedSSAValue stands for the
                    # value it replaced): so does the trace, for replay to match.
                    known = value.old_value if isinstance(value, ErasedSSAValue) else value
                    old = self.s.value_ids.get(known) or self.graveyard.get(known)
                    if old is not None:
                        operands.append(old)
                    continue
                missing = True
                self._enqueue_owner(value)
                continue
            operands.append(value_id)
        successors: list[str] = []
        for block in op.successors:
            block_id = self.s.block_ids.get(block)
            if block_id is None:
                missing = True
                self.block_queue.append(block)
                continue
            successors.append(block_id)
        regions: list[str] = []
        for region in op.regions:
            region_id = self.s.region_ids.get(region)
            if region_id is None:
                missing = True
                self.region_queue.append(region)
                continue
            regions.append(region_id)
        if missing:
            self.retries[op] = self.retries.get(op, 0) + 1
            self.to_check.append(op)
            return
        if op_id in self.created_set:  # nothing to compare with: take it as it is
            self._take_content(rec)
            return
        results, results_changed = self._result_ids(rec)
        change = OpChange(id=op_id)
        if tuple(operands) != rec.operands:
            self._set_operands(rec, tuple(operands))
            change["operands"] = operands
        if results_changed:
            rec.results = results
            change["results"] = [self.s.value_info(v) for v in results]
        if tuple(successors) != rec.successors:
            rec.successors = tuple(successors)
            change["successors"] = successors
        if tuple(regions) != rec.regions:
            rec.regions = tuple(regions)
            change["regions"] = regions
        if op.attributes != rec.attrs:
            rec.attrs = dict(op.attributes)
            change["attrs"] = self.s.attr_texts(rec.attrs)
        if op.properties != rec.props:
            rec.props = dict(op.properties)
            change["props"] = self.s.attr_texts(rec.props)
        if op.location != rec.loc:
            rec.loc = op.location
            change["loc"] = self.s.attrs.text(op.location)  # `loc(unknown)` too
        if len(change) > 1:
            self.changes[op_id] = change

    def _result_ids(self, rec: _OpRec) -> tuple[tuple[str, ...], bool]:
        changed = False
        ids: list[str] = []
        for result in rec.op.results:
            value_id = self.s.value_ids.get(result)
            if value_id is None:
                value_id = self._register_value(result)
                self.op_queue.extend(use.operation for use in result.uses)
                changed = True
            elif self._check_value_meta(value_id, result):
                changed = True
            ids.append(value_id)
        if tuple(ids) != rec.results:
            for old in rec.results:
                if old not in ids:
                    self._forget_value(old)
            changed = True
        return tuple(ids), changed

    def _enqueue_owner(self, value: SSAValue) -> None:
        if isinstance(value, OpResult):
            self.op_queue.append(value.op)
            self.seen_ops.discard(value.op)
        elif isinstance(value, BlockArgument):
            self.block_queue.append(value.block)
            self.seen_blocks.discard(value.block)

    def _bad_operand(self, op: Operation, value: SSAValue, why: str) -> None:
        index = next((i for i, v in enumerate(op.operands) if v is value), 0)
        self.problems.append(f"{self._describe(op)} uses {why} (operand {index})")

    # -- erasure ------------------------------------------------------------

    def _settle_gone_op(self, op_id: str) -> None:
        rec = self.s.ops.get(op_id)
        if rec is None:
            return
        if self._alive_op(rec.op):
            self.seen_ops.discard(rec.op)
            self.op_queue.append(rec.op)
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
        if rec is None:
            return
        if self._alive_block(rec.block):
            self.seen_blocks.discard(rec.block)
            self.block_queue.append(rec.block)
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

    # -- order keys and moves --------------------------------------------------

    def _place(self) -> None:
        """Give placed ops order keys and decide which of them really moved."""
        by_block: dict[str, list[str]] = {}
        for op_id in self.placed:
            rec = self.s.ops.get(op_id)
            if rec is None or rec.block is None:
                continue
            by_block.setdefault(rec.block, []).append(op_id)
        for block_id, op_ids in by_block.items():
            self._place_in_block(block_id, set(op_ids))

    def _place_in_block(self, block_id: str, placed: set[str]) -> None:
        done: set[str] = set()
        for op_id in sorted(placed):
            if op_id in done:
                continue
            run = self._run_around(self.s.ops[op_id].op, placed)
            done.update(self.s.op_ids[o] for o in run)
            if not run:
                continue
            self._settle_run(block_id, run)

    def _run_around(self, op: Operation, placed: set[str]) -> list[Operation]:
        first = op
        while first.prev_op is not None and self.s.op_ids.get(first.prev_op) in placed:
            first = first.prev_op
        run: list[Operation] = []
        node: Operation | None = first
        while node is not None and self.s.op_ids.get(node) in placed:
            run.append(node)
            node = node.next_op
        return run

    def _settle_run(self, block_id: str, run: list[Operation]) -> None:
        lo = self._key_of(run[0].prev_op)
        hi = self._key_of(run[-1].next_op)
        stayed: list[tuple[float, str]] = []
        for op in run:
            op_id = self.s.op_ids[op]
            old_block = self.placed[op_id]
            if old_block is None:
                continue
            key = self.s.ops[op_id].key
            inside = (lo is None or key > lo) and (hi is None or key < hi)
            if old_block != block_id or not inside:
                self.moved.append(op_id)
            else:
                stayed.append((key, op_id))
        keep = set(_longest_increasing(stayed))
        self.moved.extend(op_id for _, op_id in stayed if op_id not in keep)
        self._assign_keys(block_id, run, lo, hi)

    def _key_of(self, op: Operation | None) -> float | None:
        if op is None:
            return None
        op_id = self.s.op_ids.get(op)
        return self.s.ops[op_id].key if op_id is not None else None

    def _assign_keys(self, block_id: str, run: list[Operation], lo: float | None, hi: float | None) -> None:
        count = len(run)
        if lo is None and hi is None:
            lo, hi = 0.0, _KEY_GAP * (count + 1)
        elif lo is None:
            assert hi is not None
            lo = hi - _KEY_GAP * (count + 1)
        elif hi is None:
            hi = lo + _KEY_GAP * (count + 1)
        step = (hi - lo) / (count + 1)
        if step <= abs(hi) * 1e-9 + 1e-9:
            self._renumber(block_id)
            return
        for index, op in enumerate(run, start=1):
            self.s.ops[self.s.op_ids[op]].key = lo + step * index

    def _renumber(self, block_id: str) -> None:
        block = self.s.blocks[block_id].block
        for index, op in enumerate(block.ops):
            op_id = self.s.op_ids.get(op)
            if op_id is not None:
                self.s.ops[op_id].key = index * _KEY_GAP

    # -- the delta ------------------------------------------------------------

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


def _longest_increasing(items: list[tuple[float, str]]) -> list[str]:
    """The ids of a longest run of ``items`` whose keys increase (patience sort)."""
    if not items:
        return []
    tails: list[float] = []
    tail_index: list[int] = []
    parent: list[int] = [-1] * len(items)
    for index, (key, _) in enumerate(items):
        pos = bisect_left(tails, key)
        if pos == len(tails):
            tails.append(key)
            tail_index.append(index)
        else:
            tails[pos] = key
            tail_index[pos] = index
        parent[index] = tail_index[pos - 1] if pos > 0 else -1
    out: list[str] = []
    cursor = tail_index[-1]
    while cursor != -1:
        out.append(items[cursor][1])
        cursor = parent[cursor]
    return out[::-1]


def _visible(
    definer: Operation, user: Operation, ops: dict[str, _OpRec], op_ids: dict[Operation, str]
) -> bool:
    """Whether ``definer``'s results may be used by ``user`` (SSA dominance).

    Ops of graph regions (a module's body) and of blocks other than the
    definer's count as dominated: only uses before the definition in the same
    block, uses inside the definer itself and uses outside the definer's
    region are reported, which is what a pattern gets wrong."""
    block = definer.parent
    region = block.parent if block is not None else None
    if block is None or region is None:
        return True
    holder = region.parent
    if holder is None or holder.parent is None:
        return True  # the module's own body is a graph region
    node: Operation | None = user
    depth = 0
    while node is not None and (node.parent is None or node.parent.parent is not region):
        parent_block = node.parent
        parent_region = parent_block.parent if parent_block is not None else None
        node = parent_region.parent if parent_region is not None else None
        depth += 1
        if depth > 100_000:
            return True
    if node is None:
        return False  # used outside the region that defines it
    if node is definer:
        return False  # used inside the op that defines it
    if node.parent is not block:
        return True
    def_key, use_key = ops[op_ids[definer]].key, ops[op_ids[node]].key if node in op_ids else None
    if use_key is not None and def_key < use_key:
        return True
    cursor = node.prev_op  # keys disagree or are missing: the block's order decides
    while cursor is not None:
        if cursor is definer:
            return True
        cursor = cursor.prev_op
    return False
