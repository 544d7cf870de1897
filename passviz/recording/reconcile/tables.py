"""The shadow's tables: the records and ids of one module's entities, and their texts.

``ShadowTables`` maps each op, block, region and SSA value the shadow knows to
its stable id and record (``records``), hands out fresh ids, and words known
entities as a delta records them (``op_info``, ``block_info``, ``value_info``,
``text_of``).  ``passviz.recording.shadow.Shadow`` fills the tables and keeps
them in step with the live IR.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from passviz.ir.printer import AttrPrinter, op_text
from passviz.recording.reconcile.records import BlockRec, OpRec, RegionRec, ValueRec, unchanged
from passviz.trace.model import BlockInfo, OpInfo, ValueInfo

OpT = TypeVar("OpT")
BlockT = TypeVar("BlockT")
RegionT = TypeVar("RegionT")
ValueT = TypeVar("ValueT")


class ById(Generic[OpT, BlockT, RegionT, ValueT]):
    """A module's ops, blocks, regions and values by their trace ids (as records in the
    shadow, as live IR in a replay), and the ids of its live values."""

    def __init__(self) -> None:
        self.ops: dict[str, OpT] = {}
        self.blocks: dict[str, BlockT] = {}
        self.regions: dict[str, RegionT] = {}
        self.values: dict[str, ValueT] = {}
        self.value_ids: dict[SSAValue, str] = {}


class ShadowTables(ById[OpRec, BlockRec, RegionRec, ValueRec]):
    """The shadow's tables of one module: records by id, ids by live entity, and fresh ids."""

    def __init__(self, root: Operation, attrs: AttrPrinter | None = None) -> None:
        super().__init__()
        self.root = root
        self.attrs = attrs or AttrPrinter()
        self.op_ids: dict[Operation, str] = {}
        self.block_ids: dict[Block, str] = {}
        self.region_ids: dict[Region, str] = {}
        self.users: dict[str, set[str]] = {}
        """Value id -> ids of the ops whose recorded operands use it."""
        self.problems: list[str] = []
        """What the last comparisons found corrupt in the live IR (uses of values
        no longer defined, ops inside their own regions, uses before definitions):
        the recorder flags the step and clears this."""
        self._next = {"o": 0, "b": 0, "r": 0, "v": 0}

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
        return op_id is not None and not unchanged(self.ops[op_id], op)

    def text_of(self, op: Operation) -> str:
        """The op's text: SSA values named by id (``%v3``), successors by block id (``^b2``)."""
        return op_text(op, self.value_ids, self.block_ids)

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
