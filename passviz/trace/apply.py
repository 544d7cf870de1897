"""What a trace means, as plain data: the IR at a step, rebuilt from deltas alone.

``apply_delta`` is the reference for the IR state at any step.  It needs no
xDSL and no dialects: ops, blocks, regions and values are records keyed by
their stable ids, and an op's text is the one the trace recorded.  The
header's ``initial`` delta applied to an empty state gives the initial IR.
The viewer's model (``extension/src/model/state.ts``) mirrors this module,
and the golden fixtures (``tests/golden.py``) check that it does, at every
step of every trace the test suite records.  ``passviz.recording.replay`` applies
the same deltas, in the same order, to live xDSL IR.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from passviz.ir.placeholder import region_slots
from passviz.trace.model import Delta, InitialState, OpChange, OpInfo, Placement, ValueInfo


class DeltaError(ValueError):
    """A delta that does not apply to the state it claims to follow."""


_Item = TypeVar("_Item")


def known(table: Mapping[str, _Item], kind: str, item_id: str, error: type[ValueError] = DeltaError) -> _Item:
    """The ``kind`` (op, block, value) of ``table`` whose id is ``item_id``; ``error`` where
    there is none, the delta naming what the IR does not hold."""
    try:
        return table[item_id]
    except KeyError:
        raise error(f"unknown {kind} {item_id}") from None


@dataclass
class OpData:
    """An operation, its links as ids."""

    id: str
    name: str
    block: str | None
    """The block holding the op; None for the root or a detached op."""
    operands: list[str]
    results: list[str]
    successors: list[str]
    regions: list[str]
    attrs: dict[str, str]
    props: dict[str, str]
    loc: str | None
    text: str
    """The op on one line, values named by id, regions as placeholders."""


@dataclass
class BlockData:
    """A block: its region, arguments and ops in order."""

    id: str
    region: str | None
    args: list[str]
    name: str | None
    ops: list[str] = field(default_factory=lambda: list[str]())


@dataclass
class RegionData:
    """A region: the op holding it and its blocks in order."""

    id: str
    op: str | None
    blocks: list[str] = field(default_factory=lambda: list[str]())


@dataclass
class ValueData:
    """An SSA value: an op result or a block argument."""

    id: str
    type: str
    name: str | None
    owner: str
    """The op (a result) or block (an argument) defining it."""
    index: int
    is_arg: bool


@dataclass
class IRData:
    """The IR at one step, as records keyed by stable ids."""

    root: str
    """The id of the top-level op."""
    ops: dict[str, OpData] = field(default_factory=lambda: dict[str, OpData]())
    blocks: dict[str, BlockData] = field(default_factory=lambda: dict[str, BlockData]())
    regions: dict[str, RegionData] = field(default_factory=lambda: dict[str, RegionData]())
    values: dict[str, ValueData] = field(default_factory=lambda: dict[str, ValueData]())

    def op(self, op_id: str) -> OpData:
        return known(self.ops, "op", op_id)

    def block(self, block_id: str) -> BlockData:
        return known(self.blocks, "block", block_id)

    def walk_ops(self) -> Iterator[str]:
        """Every op reachable from the root, in IR pre-order (without recursion: IR nests deep)."""
        if self.root not in self.ops:
            return
        stack = [self.root]
        while stack:
            op_id = stack.pop()
            yield op_id
            children = [
                child
                for region in self.ops[op_id].regions
                for block in (self.regions[region].blocks if region in self.regions else ())
                for child in (self.blocks[block].ops if block in self.blocks else ())
            ]
            stack.extend(reversed(children))


def initial_state(initial: InitialState) -> IRData:
    """The IR before the first step, from the header's ``initial``."""
    state = IRData(initial["root"])
    apply_delta(state, initial["delta"])
    return state


def apply_delta(state: IRData, delta: Delta) -> None:
    """Apply one step's delta to ``state``, in the order ``passviz.recording.replay`` applies it."""
    for info in delta.get("blocks_created", ()):
        _create_block(state, info["id"], info["args"], info.get("name"))
    created = delta.get("ops_created", ())
    for info in created:
        _create_op(state, info)
    modified = delta.get("ops_modified", ())
    for change in modified:
        if "results" in change:
            _set_results(state, change["id"], change["results"])
    for block_id, args in delta.get("block_args", {}).items():
        _set_block_args(state, block_id, args)
    for info in created:
        _check_values(state, info["operands"])
    for change in modified:
        _modify_op(state, change)
    _place(state, delta.get("placed", ()))
    for region_id, block_ids in delta.get("region_blocks", {}).items():
        _set_region_blocks(state, region_id, block_ids)
    # Erased last: an erased op's regions may have held blocks that now live
    # elsewhere (an inlined scf.execute_region).
    _erase_ops(state, delta.get("ops_erased", ()))
    for block_id in delta.get("blocks_erased", ()):
        _erase_block(state, block_id)
    for block_id, name in delta.get("block_names", {}).items():
        state.block(block_id).name = name
    for op_id, text in delta.get("texts", {}).items():
        if op_id in state.ops:
            state.ops[op_id].text = text


def _register(state: IRData, info: ValueInfo, owner: str, index: int, is_arg: bool) -> None:
    state.values[info["id"]] = ValueData(info["id"], info["type"], info.get("name"), owner, index, is_arg)


def _check_values(state: IRData, ids: Sequence[str]) -> None:
    for value_id in ids:
        if value_id not in state.values:
            raise DeltaError(f"unknown value {value_id}")


def _create_block(state: IRData, block_id: str, args: Sequence[ValueInfo], name: str | None) -> None:
    state.blocks[block_id] = BlockData(block_id, None, [a["id"] for a in args], name)
    for index, arg in enumerate(args):
        _register(state, arg, block_id, index, True)


def _claim_region(state: IRData, region_id: str, op_id: str) -> None:
    """Give ``region_id`` to ``op_id``, taking it from the op that held it before."""
    region = state.regions.get(region_id)
    if region is not None and region.op is not None and region.op != op_id and region.op in state.ops:
        holder = state.ops[region.op]
        holder.regions = [r for r in holder.regions if r != region_id]
    state.regions[region_id] = RegionData(region_id, op_id, region.blocks if region is not None else [])


def _create_op(state: IRData, info: OpInfo) -> None:
    regions = list(info.get("regions", ()))
    state.ops[info["id"]] = OpData(
        id=info["id"],
        name=info["name"],
        block=None,
        operands=list(info["operands"]),
        results=[r["id"] for r in info["results"]],
        successors=list(info.get("successors", ())),
        regions=regions,
        attrs=dict(info.get("attrs", {})),
        props=dict(info.get("props", {})),
        loc=info.get("loc"),
        text=info["name"],
    )
    for region_id in regions:
        _claim_region(state, region_id, info["id"])
    for index, result in enumerate(info["results"]):
        _register(state, result, info["id"], index, False)


def _set_values(
    state: IRData, owner: str, old: Sequence[str], infos: Sequence[ValueInfo], is_arg: bool
) -> list[str]:
    """Give ``owner`` (an op's results or a block's arguments) the values ``infos``; returns their ids."""
    keep = {i["id"] for i in infos}
    for value_id in old:
        if value_id not in keep:
            state.values.pop(value_id, None)
    for index, info in enumerate(infos):
        _register(state, info, owner, index, is_arg)
    return [i["id"] for i in infos]


def _set_results(state: IRData, op_id: str, infos: Sequence[ValueInfo]) -> None:
    op = state.op(op_id)
    op.results = _set_values(state, op_id, op.results, infos, False)


def _set_block_args(state: IRData, block_id: str, infos: Sequence[ValueInfo]) -> None:
    block = state.block(block_id)
    block.args = _set_values(state, block_id, block.args, infos, True)


def _modify_op(state: IRData, change: OpChange) -> None:
    op = state.op(change["id"])
    if "operands" in change:
        _check_values(state, change["operands"])
        op.operands = list(change["operands"])
    if "successors" in change:
        op.successors = list(change["successors"])
    if "attrs" in change:
        op.attrs = dict(change["attrs"])
    if "props" in change:
        op.props = dict(change["props"])
    if "loc" in change:
        op.loc = change["loc"]
    if "regions" in change:
        keep = {r for r in change["regions"] if r in state.regions}
        for region_id in op.regions:
            if region_id not in keep and region_id in state.regions:
                state.regions[region_id].op = None
        op.regions = [r for r in op.regions if r in keep]


def _detach(state: IRData, op_ids: Iterable[str]) -> None:
    """Take the ops ``op_ids`` out of their blocks: each block filtered once, however many of its
    ops leave (a pass erasing most of a 20k-op function is one pass over it, not 20k)."""
    leaving: dict[str, set[str]] = {}
    for op_id in op_ids:
        op = state.op(op_id)
        if op.block is None:
            continue
        leaving.setdefault(op.block, set()).add(op_id)
        op.block = None
    for block_id, gone in leaving.items():
        block = state.blocks.get(block_id)
        if block is not None:
            block.ops = [o for o in block.ops if o not in gone]


def _erase_ops(state: IRData, op_ids: Sequence[str]) -> None:
    seen: set[str] = set()
    for op_id in op_ids:
        if op_id not in state.ops or op_id in seen:
            raise DeltaError(f"cannot erase unknown op {op_id}")
        seen.add(op_id)
    _detach(state, op_ids)
    for op_id in op_ids:
        for result in state.ops[op_id].results:
            state.values.pop(result, None)
        del state.ops[op_id]


def placement_order(placements: Sequence[Placement]) -> list[Placement]:
    """``placements`` in an order where each op's anchor (``after``) is in place before it.

    Replay (``passviz.recording.replay``) and ``apply_delta`` both insert in this order.
    """
    pending = {p["id"] for p in placements}
    waiting: dict[str, list[Placement]] = {}
    ready: list[Placement] = []
    for placement in placements:
        after = placement["after"]
        if after is not None and after in pending:
            waiting.setdefault(after, []).append(placement)
        else:
            ready.append(placement)
    order: list[Placement] = []
    while ready:
        placement = ready.pop()
        order.append(placement)
        ready.extend(waiting.pop(placement["id"], ()))
    if len(order) != len(placements):
        raise DeltaError("placements refer to each other in a cycle")
    return order


def _place(state: IRData, placements: Sequence[Placement]) -> None:
    _detach(state, (placement["id"] for placement in placements))
    by_block: dict[str, list[Placement]] = {}
    for placement in placement_order(placements):
        by_block.setdefault(placement["block"], []).append(placement)
    for block_id, group in by_block.items():
        if len(group) < _LINKED:
            for placement in group:
                _insert(state, placement)
        else:
            _insert_linked(state, block_id, group)


_LINKED = 16
"""From how many ops placed into one block on they are linked in, not each found by a search of
the block (a pass that rewrites a 20k-op LLVM function places thousands)."""


def _insert_linked(state: IRData, block_id: str, group: Sequence[Placement]) -> None:
    """``_insert`` of each of ``group``, in order, through a map from each op to the next."""
    block = state.block(block_id)
    following: dict[str | None, str | None] = {}
    previous: str | None = None  # None: the block's start
    for op_id in block.ops:
        following[previous] = op_id
        previous = op_id
    following[previous] = None
    for placement in group:
        after = placement["after"]
        if after is not None and after not in following:
            raise DeltaError(
                f"op {placement['id']} is placed after {after}, which is not in {placement['block']}"
            )
        op_id = placement["id"]
        following[op_id] = following[after]
        following[after] = op_id
        state.op(op_id).block = block.id
    ops: list[str] = []
    current = following[None]
    while current is not None:
        ops.append(current)
        current = following[current]
    block.ops = ops


def _insert(state: IRData, placement: Placement) -> None:
    block = state.block(placement["block"])
    op = state.op(placement["id"])
    position = 0
    after = placement["after"]
    if after is not None:
        if after not in block.ops:
            raise DeltaError(
                f"op {placement['id']} is placed after {after}, which is not in {placement['block']}"
            )
        position = block.ops.index(after) + 1
    block.ops.insert(position, op.id)
    op.block = block.id


def _set_region_blocks(state: IRData, region_id: str, block_ids: Sequence[str]) -> None:
    region = state.regions.get(region_id) or RegionData(region_id, None)
    for old in region.blocks:
        block = state.blocks.get(old)
        if block is not None and block.region == region_id:
            block.region = None
    for block_id in block_ids:
        block = state.block(block_id)
        if block.region is not None and block.region != region_id and block.region in state.regions:
            other = state.regions[block.region]
            other.blocks = [b for b in other.blocks if b != block_id]
        block.region = region_id
    region.blocks = list(block_ids)
    state.regions[region_id] = region


def _erase_block(state: IRData, block_id: str) -> None:
    block = state.blocks.pop(block_id, None)
    if block is None:
        raise DeltaError(f"cannot erase unknown block {block_id}")
    for arg in block.args:
        state.values.pop(arg, None)
    if block.region is not None and block.region in state.regions:
        region = state.regions[block.region]
        region.blocks = [b for b in region.blocks if b != block_id]


def region_at(state: IRData, op: OpData, index: int) -> RegionData | None:
    """``op``'s region ``index``; None where it has none (an untrusted text's ``-rN``)."""
    return state.regions.get(op.regions[index]) if index < len(op.regions) else None


# -- the module as lines ---------------------------------------------------------------

INDENT = "  "


@dataclass(frozen=True)
class IRLine:
    """A line of the module: its text, indentation included, and its op (None: a block label)."""

    text: str
    op: str | None


def ir_lines(state: IRData, *, locations: bool = False) -> list[IRLine]:
    """The module as lines, each op in its recorded text, regions expanded in place; values and
    blocks named by their ids (``passviz.view.printed`` names them as the printer does).  With
    ``locations``, each op's location (``loc(...)``) ends its last line, as an imported dump shows.

    The viewer's ``irLines`` (``extension/src/model/irtext.ts``) is its twin.
    """
    lines: list[IRLine] = []
    # Work items, last first: a line to emit as it is, or (op, its indentation, region index
    # to open next); an explicit stack, since IR nests deep.
    stack: list[IRLine | tuple[str, str, int]] = [(state.root, "", 0)] if state.root in state.ops else []
    while stack:
        item = stack.pop()
        if isinstance(item, IRLine):
            lines.append(item)
            continue
        op_id, pad, index = item
        op = state.op(op_id)
        loc = f" {op.loc}" if locations and op.loc else ""
        heads, slots = region_slots(op.text.replace("\n", "\n" + pad))
        # An op's syntax may leave a region out (``scf.if``'s empty ``else``): as many as it shows.
        shown = min(len(op.regions), len(slots))
        if shown == 0:
            lines.append(IRLine(pad + heads[0] + loc, op_id))
            continue
        # A region its syntax prints deeper than the op (``linalg.map``'s body, on a line of
        # its own) is indented so, and so is the brace closing it.
        before = pad + INDENT * slots[index - 1].indent if index > 0 else pad
        if index == shown:
            lines.append(IRLine(f"{before}}}{heads[index]}{loc}", op_id))
            continue
        head = heads[0] if index == 0 else "}" + heads[index]
        lines.append(IRLine(before + head + "{", op_id))
        slot = slots[index]
        inner = pad + INDENT * slot.indent
        region = region_at(state, op, slot.index(index))
        blocks = region.blocks if region is not None else []
        work: list[IRLine | tuple[str, str, int]] = []
        for block_index, block_id in enumerate(blocks):
            block = state.block(block_id)
            shown_args = block.args if block_index > 0 or not slot.args_in_header else []
            # As MLIR prints it: the entry block has a label only for arguments the op's header does not show.
            if block_index > 0 or shown_args:
                args = ", ".join(
                    f"%{a}: {state.values[a].type}" if a in state.values else f"%{a}" for a in shown_args
                )
                work.append(IRLine(f"{inner}^{block_id}{f'({args})' if args else ''}:", None))
            ops = block.ops[:-1] if slot.hide_terminators else block.ops
            work.extend((child, inner + INDENT, 0) for child in ops)
        stack.append((op_id, pad, index + 1))
        stack.extend(reversed(work))
    return lines
