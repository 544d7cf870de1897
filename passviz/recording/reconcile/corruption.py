"""The corruption a comparison finds in the live IR, worded for a person.

Ops moved into their own regions, uses of values no longer defined, uses
before definitions: each becomes a line of ``problems``, which the recorder
turns into the step's flag.
"""

from __future__ import annotations

from xdsl.ir import Operation, OpResult, SSAValue

from passviz.recording.reconcile.records import OpRec
from passviz.recording.reconcile.state import ReconcileState


class Corruption(ReconcileState):
    """Finding and wording what is corrupt in the live IR."""

    def _describe(self, op: Operation) -> str:
        """An op as a problem names it: its name, its id if it has one, its location."""
        op_id = self.s.op_ids.get(op) or self.graveyard.get(op)
        where = self.s.attrs.loc_text(op.location)
        return f"{op.name}" + (f" ({op_id})" if op_id else "") + (f" at {where}" if where else "")

    def _found_cycle(self, op: Operation) -> None:
        if op in self.cyclic:
            return
        self.cyclic.add(op)
        self.problems.append(f"{self._describe(op)} was moved into its own region")

    def _bad_operand(self, op: Operation, value: SSAValue, why: str) -> None:
        index = next((i for i, v in enumerate(op.operands) if v is value), 0)
        self.problems.append(f"{self._describe(op)} uses {why} (operand {index})")

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


def _visible(
    definer: Operation, user: Operation, ops: dict[str, OpRec], op_ids: dict[Operation, str]
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
