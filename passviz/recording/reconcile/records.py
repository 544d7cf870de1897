"""The shadow's records: what it remembers of each op, block, region and value.

A record holds an entity's stable id and the fields a delta is made of, as
they were at the last comparison.  ``fingerprint`` and ``unchanged`` are the
fast path of a comparison: an op whose links and attributes are the same
objects as last time has not changed.  ``Removal`` and ``PendingReplacement``
are what the rewriter announced during a step, matched with ids when the step
ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from passviz.ir.xdsl_compat import op_links

KEY_GAP = 1024.0
"""Spacing of order keys when a block is (re)numbered."""


@dataclass(eq=False, slots=True)
class OpRec:
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


def fingerprint(op: Operation) -> tuple[object, ...]:
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


def unchanged(rec: OpRec, op: Operation) -> bool:
    return rec.fingerprint == fingerprint(op) and op.attributes == rec.attrs and op.properties == rec.props


@dataclass(eq=False, slots=True)
class BlockRec:
    id: str
    block: Block
    region: str | None
    args: tuple[str, ...]
    name: str | None
    ops: set[str] = field(default_factory=lambda: set[str]())


@dataclass(eq=False, slots=True)
class RegionRec:
    id: str
    region: Region
    op: str | None
    blocks: tuple[str, ...] = ()


@dataclass(eq=False, slots=True)
class ValueRec:
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
