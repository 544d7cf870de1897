"""A read snapshot as the trace's records (ops, blocks, regions and values by id, each op's text
with its values and regions as placeholders), and the delta from one snapshot to the next."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, cast

from passviz.importer.reader import Block, BlockUse, Op, RegionMark, Use, Value
from passviz.ir.placeholder import REGION_PLACEHOLDER
from passviz.trace.model import BlockInfo, Delta, OpChange, OpInfo, Placement, ValueInfo


@dataclass(slots=True)
class FlatOp:
    name: str
    block: str | None
    operands: list[str]
    results: list[ValueInfo]
    successors: list[str]
    regions: list[str]
    loc: str | None
    text: str


@dataclass
class Flat:
    """A snapshot as records keyed by id."""

    root: str
    ops: dict[str, FlatOp] = field(default_factory=lambda: dict[str, FlatOp]())
    block_ops: dict[str, list[str]] = field(default_factory=lambda: dict[str, list[str]]())
    block_args: dict[str, list[ValueInfo]] = field(default_factory=lambda: dict[str, list[ValueInfo]]())
    regions: dict[str, list[str]] = field(default_factory=lambda: dict[str, list[str]]())


def value_info(value: Value) -> ValueInfo:
    """The value as a trace records it: its id, type, and its name where it is not a number."""
    base = value.name.partition("#")[0]
    if base and not base[0].isdigit():
        return {"id": value.id, "type": value.type, "name": base}
    return {"id": value.id, "type": value.type}


def op_text(op: Op) -> str:
    """The op's text as a trace records it: values as ``%<id>``, successors as ``^<id>``, each
    region as a placeholder (``{...-args}`` when its entry block's arguments print in the header)."""
    return _record(op)[0]


def _record(op: Op) -> tuple[str, list[str], list[str]]:
    """The op's text as a trace records it (``op_text``), and the ids of its operands and
    successors, in order: one pass over its parts."""
    out: list[str] = ["%" + ", %".join([v.id for v in op.results]) + " = "] if op.results else []
    operands: list[str] = []
    successors: list[str] = []
    append = out.append
    for part in op.parts:
        if type(part) is str:
            append(part)
        elif type(part) is Use:
            value = part.value
            if value is None:
                append("%" + part.name)
            else:
                append("%" + value.id)
                operands.append(value.id)
        elif type(part) is BlockUse:
            block = part.block
            if block is None:
                append("^" + part.name)
            else:
                append("^" + block.id)
                successors.append(block.id)
        elif isinstance(part, RegionMark):
            region = op.regions[part.index] if part.index < len(op.regions) else None
            flags = "-args" if region is not None and region.args_in_header else ""
            out.append(REGION_PLACEHOLDER.replace("}", flags + "}"))
    return "".join(out), operands, successors


def flatten(top: Op, holder: str | None = None, reuse: tuple[Flat, set[Op]] | None = None) -> Flat:
    """The records of ``top`` and all it holds; ``holder``: the block holding ``top``, if any.
    ``reuse``: the records of the snapshot before and the ops that matched one there computing
    the same (``Ids.computing``): where such an op (one without regions) is in the same block,
    at the same location, its values named alike, its record is the one before."""
    flat = Flat(top.id)
    ops = flat.ops
    before, computing = reuse if reuse is not None else (None, set[Op]())
    for op in top.walk():
        parent = op.parent
        block = parent.id if parent is not None and op is not top else holder
        if op in computing and not op.regions and before is not None:
            was = before.ops.get(op.id)
            if (
                was is not None
                and was.block == block
                and was.loc == op.loc
                and all(value_info(v) == info for v, info in zip(op.results, was.results, strict=True))
            ):
                ops[op.id] = was
                continue
        ops[op.id] = _flat_op(op, block)
        for region in op.regions:
            flat.regions[region.id] = [b.id for b in region.blocks]
            for block in region.blocks:
                flat.block_ops[block.id] = [o.id for o in block.ops]
                flat.block_args[block.id] = [value_info(v) for v in block.args]
    return flat


def _flat_op(op: Op, block: str | None) -> FlatOp:
    """The record of ``op`` (in ``block``), without what it holds."""
    text, operands, successors = _record(op)
    return FlatOp(
        name=op.name,
        block=block,
        operands=operands,
        results=[value_info(v) for v in op.results],
        successors=successors,
        regions=[r.id for r in op.regions],
        loc=op.loc,
        text=text,
    )


def restate(flat: Flat, op: Op) -> tuple[Flat, Delta]:
    """The records ``flat`` with ``op``'s own record made again (what it holds as it was: its
    header printed otherwise), and the delta between."""
    was = flat.ops[op.id]
    record = _flat_op(op, was.block)
    ops = dict(flat.ops)
    ops[op.id] = record
    delta = diff(Flat(flat.root, {op.id: was}), Flat(flat.root, {op.id: record}))
    return Flat(flat.root, ops, flat.block_ops, flat.block_args, flat.regions), delta


def splice(flat: Flat, old: Op, new: Op) -> tuple[Flat, Delta]:
    """The records ``flat`` with op ``old`` and all it holds replaced by ``new`` (in its place in
    its block, an op-scoped dump's op), and the delta between: only ``new`` is flattened and
    compared, with the ops beside it, not the whole module."""
    return splice_all(flat, [(old, new)])


def splice_all(flat: Flat, pairs: list[tuple[Op, Op]]) -> tuple[Flat, Delta]:
    """``splice`` of each ``(old, new)`` of ``pairs`` (in the text's order) at once."""
    part_new = Flat(pairs[0][1].id)
    part_old = Flat(pairs[0][0].id)
    blocks: dict[str, Block] = {}
    for old, new in pairs:
        assert new.parent is not None
        blocks.setdefault(new.parent.id, new.parent)
        spliced = flatten(new, new.parent.id)
        part_new.ops.update(spliced.ops)
        part_new.regions.update(spliced.regions)
        part_new.block_ops.update(spliced.block_ops)
        part_new.block_args.update(spliced.block_args)
        for op in old.walk():
            part_old.ops[op.id] = flat.ops[op.id]
            for region in op.regions:
                part_old.regions[region.id] = flat.regions[region.id]
                for inner in region.blocks:
                    part_old.block_ops[inner.id] = flat.block_ops[inner.id]
                    part_old.block_args[inner.id] = flat.block_args[inner.id]
    befores = {block: flat.block_ops[block] for block in blocks}
    afters = {block: [op.id for op in holder.ops] for block, holder in blocks.items()}
    # The ops beside them, as they were, so that the delta places the new ops among them.
    for block in blocks:
        for op_id in (*befores[block], *afters[block]):
            if op_id not in part_old.ops and op_id not in part_new.ops and op_id in flat.ops:
                part_old.ops[op_id] = part_new.ops[op_id] = flat.ops[op_id]
    part_old.block_ops = {**befores, **part_old.block_ops}
    part_new.block_ops = {**afters, **part_new.block_ops}
    delta = diff(part_old, part_new)
    whole = Flat(flat.root, dict(flat.ops), dict(flat.block_ops), dict(flat.block_args), dict(flat.regions))
    for op_id in part_old.ops:
        whole.ops.pop(op_id, None)
    for table, gone in (
        (whole.regions, part_old.regions),
        (whole.block_ops, part_old.block_ops),
        (whole.block_args, part_old.block_args),
    ):
        for key in gone:
            table.pop(key, None)
    whole.ops.update(part_new.ops)
    whole.regions.update(part_new.regions)
    whole.block_ops.update(part_new.block_ops)
    whole.block_args.update(part_new.block_args)
    return whole, delta


_ABSENT: tuple[object, ...] = (None, [], {})
"""What a record's optional field leaves out: nothing, or an empty list or table."""


def _present(**fields: object) -> dict[str, object]:
    """The fields that hold something, in order: a record leaves out the others."""
    return {key: value for key, value in fields.items() if value not in _ABSENT}


def _op_info(op_id: str, op: FlatOp) -> OpInfo:
    info = OpInfo(id=op_id, name=op.name, operands=op.operands, results=op.results)
    return cast(OpInfo, info | _present(successors=op.successors, regions=op.regions, loc=op.loc))


_COMPARED: tuple[Literal["operands", "results", "successors", "regions"], ...] = (
    "operands",
    "results",
    "successors",
    "regions",
)
"""The fields of an op whose new value a change records wherever it differs."""


def diff(old: Flat | None, new: Flat) -> Delta:
    """The delta that turns ``old`` (None: nothing) into ``new``."""
    old_ops = old.ops if old is not None else {}
    old_blocks = old.block_ops if old is not None else {}
    old_args = old.block_args if old is not None else {}
    old_regions = old.regions if old is not None else {}
    created_blocks = [BlockInfo(id=b, args=args) for b, args in new.block_args.items() if b not in old_args]
    created = [_op_info(i, op) for i, op in new.ops.items() if i not in old_ops]
    modified: list[OpChange] = []
    texts: dict[str, str] = {i: new.ops[i].text for i in new.ops if i not in old_ops}
    for op_id, op in new.ops.items():
        was = old_ops.get(op_id)
        if was is None or was is op or was == op:
            # (Most ops of a snapshot are as they were: one comparison of all their fields.)
            continue
        change = OpChange(id=op_id)
        for key in _COMPARED:
            if getattr(op, key) != getattr(was, key):
                change[key] = getattr(op, key)
        if op.loc != was.loc and op.loc is not None:
            change["loc"] = op.loc
        if op.text != was.text:
            texts[op_id] = op.text
        if len(change) > 1 or op.text != was.text:
            modified.append(change)
    block_args = {b: args for b, args in new.block_args.items() if b in old_args and old_args[b] != args}
    moved: list[str] = []
    placed: list[Placement] = []
    for block_id, ops in new.block_ops.items():
        before = old_blocks.get(block_id, [])
        stay = _stable(before, ops, old_ops)
        for index, op_id in enumerate(ops):
            if op_id in stay:
                continue
            if op_id in old_ops:
                moved.append(op_id)
            placed.append(Placement(id=op_id, block=block_id, after=ops[index - 1] if index else None))
    region_blocks = {r: blocks for r, blocks in new.regions.items() if old_regions.get(r) != blocks}
    erased = [i for i in old_ops if i not in new.ops]
    erased_blocks = [b for b in old_args if b not in new.block_args]
    return cast(
        Delta,
        _present(
            blocks_created=created_blocks,
            ops_created=created,
            ops_erased=erased,
            ops_modified=modified,
            ops_moved=moved,
            placed=placed,
            blocks_erased=erased_blocks,
            block_args=block_args,
            region_blocks=region_blocks,
            texts=texts,
        ),
    )


def _stable(before: list[str], after: list[str], old_ops: dict[str, FlatOp]) -> set[str]:
    """The ops of ``after`` that stay where they were: in the block before, in the same order
    (the longest such run of them)."""
    present = set(after)
    common_before = [o for o in before if o in old_ops and o in present]
    in_before = set(common_before)
    common_after = [o for o in after if o in in_before]
    if common_before == common_after:
        return set(common_after)
    stay: set[str] = set()
    for start, length in kept_in_order(common_before, common_after):
        stay.update(common_after[start : start + length])
    return stay


def kept_in_order(before: Sequence[str], after: Sequence[str]) -> list[tuple[int, int]]:
    """The stretches of ``after`` (start, length) that difflib's ``SequenceMatcher(None, before,
    after, autojunk=False)`` matches with ``before``, for two orders of the same distinct items:
    the longest stretch alike in both (of those, the earliest in ``before``), then the same on
    each side of it. Found from the runs the two orders share (where ``after`` has one item of
    ``before`` right after the other), not item by item: difflib goes through every item of a
    side for each stretch, which a block of thousands of ops with a few moved makes slow."""
    where = {item: index for index, item in enumerate(after)}
    at = [where[item] for item in before]
    runs: list[tuple[int, int, int]] = []  # where each starts in ``before``, in ``after``; its length
    for index, to in enumerate(at):
        if index and to == at[index - 1] + 1:
            start, to_start, length = runs[-1]
            runs[-1] = (start, to_start, length + 1)
        else:
            runs.append((index, to, 1))
    starts = [start for start, _, _ in runs]
    found: list[tuple[int, int]] = []
    queue = [(0, len(before), 0, len(after))]
    while queue:
        low, high, to_low, to_high = queue.pop()
        best, to_best, size = low, to_low, 0
        for index in range(max(bisect_right(starts, low) - 1, 0), bisect_left(starts, high)):
            start, to_start, length = runs[index]
            shift = to_start - start
            first = max(start, low, to_low - shift)
            size_here = min(start + length, high, to_high - shift) - first
            if size_here > size:
                best, to_best, size = first, first + shift, size_here
        if not size:
            continue
        found.append((to_best, size))
        if low < best and to_low < to_best:
            queue.append((low, best, to_low, to_best))
        if best + size < high and to_best + size < to_high:
            queue.append((best + size, high, to_best + size, to_high))
    return found


__all__ = ["Flat", "RegionMark", "diff", "flatten", "op_text", "restate", "splice", "splice_all"]
