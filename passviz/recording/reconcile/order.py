"""Order keys: each op's place in its block as a number, and which placed ops really moved.

Ops keep a key that grows along their block; ops placed by a step get keys
between their new neighbours', and of those that stayed in their block, the
ones outside a longest run of increasing keys count as moved.
"""

from __future__ import annotations

from bisect import bisect_left

from xdsl.ir import Operation

from passviz.recording.reconcile.records import KEY_GAP
from passviz.recording.reconcile.state import ReconcileState


class OrderKeys(ReconcileState):
    """Order keys for placed ops, and the ops that moved."""

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
            lo, hi = 0.0, KEY_GAP * (count + 1)
        elif lo is None:
            assert hi is not None
            lo = hi - KEY_GAP * (count + 1)
        elif hi is None:
            hi = lo + KEY_GAP * (count + 1)
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
                self.s.ops[op_id].key = index * KEY_GAP


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
