"""Verifying a module again after a pass, re-checking only what the pass could have broken.

The recorder runs the verifier after every pass (or every rewrite), as
``mlir-opt`` and ``xdsl-opt`` do; on a 10,000-op module xDSL's full verifier
is a third of a traced run.  Most ops are untouched by a pass, so this
verifier keeps, for every op that last verified, a fingerprint of everything
its verifier can read, and verifies again only the ops whose fingerprint
changed.  It compares the IR itself, not the recorder's deltas, so edits made
behind the rewriter's back are covered too.

What an op's verifier reads, and so what its fingerprint holds: its operands
and their types, its result types, properties, attributes and successors, its
place (the block, whether it ends it, how many blocks the region has), the
block arguments and terminators of its own regions (``scf.for`` checks its
yield), and its parent op's properties (``func.return`` checks the function
type).  Ops that read symbols elsewhere in the module (symbol tables and their
users) are verified every time.  When anything fails, the module is verified
in full, so that the message is the one the full verifier gives.
"""

from __future__ import annotations

from collections.abc import Hashable

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.traits import SymbolTable, SymbolUserOpInterface

from passviz.ir.structure_checks import check_structure, verify_like_mlir
from passviz.ir.walk import walk_ops


def _terminator(block: Block) -> Hashable:
    last = block.last_op
    if last is None:
        return None
    return (last, tuple(o.type for o in last.operands), tuple(last.successors))


def _place(block: Block | None) -> Hashable:
    """What an op's verifier may read of where it is: its block, how many blocks
    its region has, and its parent op's properties (the same for a whole block)."""
    region = block.parent if block is not None else None
    parent_op = region.parent if region is not None else None
    return (
        block,
        len(region.blocks) if region is not None else 0,
        parent_op,
        tuple(parent_op.properties.items()) if parent_op is not None else (),
    )


def _fingerprint(op: Operation, places: dict[Block | None, Hashable]) -> Hashable:
    """Everything ``op``'s own verifier may read (its nested ops excluded).

    ``places`` caches ``_place`` per block for one walk of an unchanging module."""
    block = op.parent
    place = places.get(block)
    if place is None:
        place = places[block] = _place(block)
    operands = tuple(op.operands)
    regions = op.regions
    return (
        place,
        op.next_op is None,
        operands,
        tuple([o.type for o in operands]),
        tuple([r.type for r in op.results]),
        tuple(op.properties.items()),
        tuple(op.attributes.items()),
        tuple(op.successors),
        tuple(
            (len(r.blocks), tuple((tuple(a.type for a in b.args), _terminator(b)) for b in r.blocks))
            for r in regions
        )
        if regions
        else (),
    )


def _always(op: Operation) -> bool:
    """Ops whose verifiers read beyond their neighbourhood: symbol tables and symbol users."""
    return op.has_trait(SymbolTable) or op.has_trait(SymbolUserOpInterface)


class IncrementalVerifier:
    """Verifies a module as ``module.verify()`` does, skipping ops unchanged since they last verified."""

    def __init__(self, module: ModuleOp) -> None:
        self.module = module
        """The module verified."""
        self._verified: dict[Operation, Hashable] = {}
        """The fingerprint of every op when it last verified."""
        self._always: dict[type[Operation], bool] = {}
        """Per op class: whether its ops are verified every time."""

    def verify(self) -> None:
        """Raise what ``module.verify()`` raises, if anything."""
        if not self._verified:
            self._verify_all()
            return
        verified: dict[Operation, Hashable] = {}
        places: dict[Block | None, Hashable] = {}
        changed = False
        try:
            for op in walk_ops(self.module):
                fingerprint = _fingerprint(op, places)
                always = self._always.get(type(op))
                if always is None:
                    always = self._always[type(op)] = _always(op)
                last = self._verified.get(op)
                differs = last != fingerprint
                changed |= differs
                if always or differs:
                    for block in (b for r in op.regions for b in r.blocks):
                        _check_block(block)
                    op.verify(verify_nested_ops=False)
                    last = fingerprint
                # Keeping the old, equal fingerprint frees the new one at once:
                # replacing 10,000 long-lived tuples on every pass would make
                # the cyclic collector scan the whole module again each time.
                verified[op] = last
        except Exception:
            # The full verifier decides, and its message is the one shown.
            self._verify_all()
            return
        # Any edit can move a definition below a use it does not touch: these are checked whole,
        # unless no op changed and none moved (the walk meets the same ops in the same order).
        if changed or not _same_order(verified, self._verified):
            check_structure(self.module)
        self._verified = verified

    def _verify_all(self) -> None:
        self._verified = {}
        verify_like_mlir(self.module)
        places: dict[Block | None, Hashable] = {}
        self._verified = {op: _fingerprint(op, places) for op in walk_ops(self.module)}


def _same_order(a: dict[Operation, Hashable], b: dict[Operation, Hashable]) -> bool:
    """Whether two walks (dicts keep the order ops were met in) met the same ops in the same order."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def _check_block(block: Block) -> None:
    """The checks ``Block.verify`` and ``Region.verify`` make besides verifying the ops."""
    region = block.parent
    if region is None:
        return
    for op in block.ops:
        if op.parent is not block:
            raise ValueError("Parent pointer of operation does not refer to containing region")
    if block.first_op is None:
        block.verify()  # the empty-block rule; no ops to descend into
