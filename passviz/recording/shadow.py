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

The shadow's tables and records, and the reconciliation's jobs, live in
``passviz.recording.reconcile`` (its ``__init__`` lists them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.ir import Block, Operation

from passviz.ir.collection import collector_paused
from passviz.ir.printer import AttrPrinter
from passviz.recording.reconcile.records import PendingReplacement, Removal
from passviz.recording.reconcile.tables import ShadowTables
from passviz.recording.reconcile.walk import ReconcileError, Reconciliation
from passviz.trace.model import Delta

__all__ = ["PendingReplacement", "ReconcileError", "Removal", "Shadow"]


class Shadow(ShadowTables):
    """The shadow structure of one module, kept in step with the live IR."""

    def __init__(self, root: Operation, attrs: AttrPrinter | None = None) -> None:
        super().__init__(root, attrs)
        # (Records hold no cycles, but allocating ten thousand of them beside a large xDSL
        # module sets off collections going through the module again and again: more than half
        # a shadow's cost.)
        with collector_paused():
            Reconciliation(self).register_initial(root)

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
        with collector_paused():
            reconciliation = Reconciliation(self)
            try:
                return reconciliation.run(
                    full=full, ops=ops, blocks=blocks, removed=removed, replacements=replacements
                )
            finally:
                self.problems.extend(p for p in reconciliation.problems if p not in self.problems)
