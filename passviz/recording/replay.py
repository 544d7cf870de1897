"""Exact replay: rebuild the IR at any step from the initial IR and the deltas.

The replayer builds the initial IR from the trace's ``initial`` delta (a
version 1 trace without one: parses its initial IR text and gives it the ids
the recorder gave, by building the same ``Shadow``), then applies each step's
delta to the xDSL IR by id.  Printing the result gives the IR text at that step,
without any snapshot stored in the trace.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TypeVar

from xdsl.context import Context
from xdsl.dialects.builtin import LocationAttr, ModuleOp, UnregisteredOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import ParseError
from xdsl.utils.mlir_lexer import MLIRTokenKind

from passviz.ir.mlir_parser import MLIRParser
from passviz.ir.printer import print_module
from passviz.ir.xdsl_compat import current_token
from passviz.recording.reconcile.tables import ById
from passviz.recording.shadow import Shadow
from passviz.trace.apply import DeltaError, known, placement_order
from passviz.trace.model import Delta, InitialState, OpChange, OpInfo, Placement, Trace, ValueInfo
from passviz.trace.model import ReplayError as ReplayError  # raised here; defined with the model


class Replayer(ById[Operation, Block, Region, SSAValue]):
    """Walks a trace forward, keeping the IR of the current step.

    ``passviz.load_trace`` and ``passviz.record`` give their traces this class as
    ``Trace.replayer``, which ``Trace.ir_at`` and its kin use."""

    def __init__(self, trace: Trace) -> None:
        if trace.context_factory is None:
            raise ReplayError(
                "this trace has no context factory: open it with passviz.load_trace() "
                "so that its dialects are known"
            )
        super().__init__()
        self.trace = trace
        self.ctx: Context = trace.context_factory()
        self._attr_cache: dict[str, Attribute] = {}
        self._op_types: dict[str, type[Operation]] = {}
        self.position = -1
        """Index of the last applied step (-1: the initial IR)."""
        with self.syntax():
            if trace.initial is not None:
                self.module = self._build(trace.initial)
            elif trace.initial_ir is not None:
                self.module = self._parse(trace.initial_ir)
            else:
                raise ReplayError("this trace has no initial IR")

    def syntax(self) -> AbstractContextManager[object]:
        """The syntax the trace's texts are written in, entered: parse and print inside it."""
        return self.trace.syntax()

    def _build(self, initial: InitialState) -> ModuleOp:
        """The initial module, built from its structured delta: no MLIR text to parse."""
        try:
            self._parse_attrs(_attr_texts(initial["delta"]))
            self.apply(initial["delta"])
            module = self.ops.get(initial["root"])
        except Exception as exc:
            raise ReplayError(f"{self.trace.where()}the trace's initial IR cannot be built: {exc}") from exc
        if not isinstance(module, ModuleOp) or module.parent is not None:
            raise ReplayError(
                f"{self.trace.where()}the trace's initial IR: its root is not a top-level builtin.module"
            )
        return module

    def _parse(self, text: str) -> ModuleOp:
        """The initial module, parsed from a version 1 trace's text, with the ids the recorder gave."""
        module = _parse_initial_ir(self.ctx, text, self.trace.where())
        shadow = Shadow(module)
        self.ops.update((i, r.op) for i, r in shadow.ops.items())
        self.blocks.update((i, r.block) for i, r in shadow.blocks.items())
        self.regions.update((i, r.region) for i, r in shadow.regions.items())
        self.values.update((i, r.value) for i, r in shadow.values.items())
        self.value_ids.update(shadow.value_ids)
        return module

    def text(self) -> str:
        """The IR at the current position."""
        with self.syntax():
            return print_module(self.module)

    def advance_to(self, index: int) -> None:
        """Apply steps until ``index`` is the last applied one."""
        if index < self.position:
            raise ReplayError("a replayer only moves forward; make a new one to go back")
        with self.syntax():
            self._advance_to(index)

    def _advance_to(self, index: int) -> None:
        while self.position < index:
            self.position += 1
            step = self.trace.steps[self.position]
            try:
                self.apply(step.delta)
            except Exception as exc:
                where = self.trace.where(self.position)
                raise ReplayError(f"{where}step {step.index}: cannot apply its delta: {exc}") from exc

    # -- parsing helpers ---------------------------------------------------------

    def _attr(self, text: str) -> Attribute:
        cached = self._attr_cache.get(text)
        if cached is None:
            cached = MLIRParser(self.ctx, text).parse_attribute()
            self._attr_cache[text] = cached
        return cached

    def _parse_attrs(self, texts: Sequence[str]) -> None:
        """Parse many attribute (and type) texts at once, for the cache.

        One parser for all of them costs far less than one each; if the texts
        do not read as one comma-separated list, each is parsed on its own later.
        """
        texts = [t for t in dict.fromkeys(texts) if t not in self._attr_cache]
        if not texts:
            return
        parser = MLIRParser(self.ctx, ",\n".join(texts))
        try:
            attrs = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_attribute)
        except ParseError:
            return
        if len(attrs) == len(texts) and current_token(parser).kind == MLIRTokenKind.EOF:
            self._attr_cache.update(zip(texts, attrs, strict=True))

    def _attrs(self, texts: dict[str, str]) -> dict[str, Attribute]:
        return {name: self._attr(text) for name, text in texts.items()}

    def _value(self, value_id: str) -> SSAValue:
        return known(self.values, "value", value_id, ReplayError)

    def _op(self, op_id: str) -> Operation:
        return known(self.ops, "op", op_id, ReplayError)

    def _block(self, block_id: str) -> Block:
        return known(self.blocks, "block", block_id, ReplayError)

    # -- applying a delta ---------------------------------------------------------

    def apply(self, delta: Delta) -> None:
        """Apply one step's delta to the IR."""
        for info in delta.get("blocks_created", ()):
            self._create_block(info["id"], info["args"], info.get("name"))
        created = delta.get("ops_created", ())
        for info in created:
            self._create_op(info)
        modified = delta.get("ops_modified", ())
        for change in modified:
            if "results" in change:
                self._set_results(self._op(change["id"]), change["results"])
        for block_id, args in delta.get("block_args", {}).items():
            self._set_block_args(self._block(block_id), args)
        for info in created:
            op = self.ops[info["id"]]
            if info["operands"]:
                op.operands = [self._value(v) for v in info["operands"]]
            successors = info.get("successors")
            if successors:
                op.successors = [self._block(b) for b in successors]
        for change in modified:
            self._modify_op(change)
        self._place(delta.get("placed", ()))
        for region_id, block_ids in delta.get("region_blocks", {}).items():
            self._set_region_blocks(region_id, block_ids)
        # Erased last: an erased op's regions may have held blocks that now live
        # elsewhere (an inlined scf.execute_region), and erasing drops references
        # throughout its regions.
        for op_id in delta.get("ops_erased", ()):
            self._erase_op(op_id)
        for block_id in delta.get("blocks_erased", ()):
            self._erase_block(block_id)
        for block_id, name in delta.get("block_names", {}).items():
            self._block(block_id).name_hint = name

    def _create_block(self, block_id: str, args: Sequence[ValueInfo], name: str | None) -> None:
        block = Block(arg_types=[self._attr(a["type"]) for a in args])
        block.name_hint = name
        self.blocks[block_id] = block
        for arg, info in zip(block.args, args, strict=True):
            self._register_value(arg, info)

    def _register_value(self, value: SSAValue, info: ValueInfo) -> None:
        value.name_hint = info.get("name")
        self.values[info["id"]] = value
        self.value_ids[value] = info["id"]

    def _forget_value(self, value: SSAValue) -> None:
        value_id = self.value_ids.pop(value, None)
        if value_id is not None:
            self.values.pop(value_id, None)

    def _region_for(self, region_id: str) -> Region:
        region = self.regions.get(region_id)
        if region is None:
            region = Region()
            self.regions[region_id] = region
        elif region.parent is not None:
            region.parent.detach_region(region)
        return region

    def _op_type(self, name: str) -> type[Operation]:
        op_type = self._op_types.get(name)
        if op_type is None:
            op_type = self.ctx.get_optional_op(name) or UnregisteredOp.with_name(name)
            self._op_types[name] = op_type
        return op_type

    def _create_op(self, info: OpInfo) -> None:
        props, attrs, regions = info.get("props"), info.get("attrs"), info.get("regions")
        op = self._op_type(info["name"]).create(
            result_types=[self._attr(r["type"]) for r in info["results"]],
            properties=self._attrs(props) if props else {},
            attributes=self._attrs(attrs) if attrs else {},
            regions=[self._region_for(r) for r in regions] if regions else (),
        )
        if "loc" in info:
            op.location = self._location(info["loc"])
        self.ops[info["id"]] = op
        for result, value_info in zip(op.results, info["results"], strict=True):
            self._register_value(result, value_info)

    def _location(self, text: str) -> LocationAttr:
        location = MLIRParser(self.ctx, text).parse_optional_location()
        if location is None:
            raise ReplayError(f"bad location {text!r}")
        return location

    def _modify_op(self, change: OpChange) -> None:
        op = self._op(change["id"])
        if "operands" in change:
            op.operands = [self._value(v) for v in change["operands"]]
        if "successors" in change:
            op.successors = [self._block(b) for b in change["successors"]]
        if "attrs" in change:
            op.attributes = self._attrs(change["attrs"])
        if "props" in change:
            op.properties = self._attrs(change["props"])
        if "regions" in change:
            keep = {self.regions[r] for r in change["regions"] if r in self.regions}
            for region in list(op.regions):
                if region not in keep:
                    op.detach_region(region)
        if "loc" in change:
            op.location = self._location(change["loc"])

    def _set_results(self, op: Operation, infos: Sequence[ValueInfo]) -> None:
        for result, info in zip(list(op.results), infos, strict=True):
            value: SSAValue = result
            if self.value_ids.get(result) != info["id"]:
                new_type = self._attr(info["type"])
                self._forget_value(result)
                if result.type != new_type:
                    value = Rewriter.replace_value_with_new_type(result, new_type)
            self._register_value(value, info)

    def _set_block_args(self, block: Block, infos: Sequence[ValueInfo]) -> None:
        wanted = [info["id"] for info in infos]
        for arg in list(block.args):
            if self.value_ids.get(arg) not in wanted:
                self._forget_value(arg)
                block.erase_arg(arg, safe_erase=False)
        for index, info in enumerate(infos):
            current = self.values.get(info["id"])
            if current is not None and current in block.args:
                new_type = self._attr(info["type"])
                if current.type != new_type:
                    self._forget_value(current)
                    current = Rewriter.replace_value_with_new_type(current, new_type)
                self._register_value(current, info)
                continue
            arg = block.insert_arg(self._attr(info["type"]), index)
            self._register_value(arg, info)

    def _erase_op(self, op_id: str) -> None:
        op = _erased(self.ops, "op", op_id)
        for result in op.results:
            self._forget_value(result)
        if op.parent is not None:
            op.detach()
        op.drop_all_references()

    def _place(self, placements: Sequence[Placement]) -> None:
        for placement in placements:
            op = self._op(placement["id"])
            if op.parent is not None:
                op.detach()
        try:
            order = placement_order(placements)
        except DeltaError as exc:
            raise ReplayError(str(exc)) from None
        for placement in order:
            self._insert(placement)

    def _insert(self, placement: Placement) -> None:
        op = self._op(placement["id"])
        block = self._block(placement["block"])
        after = placement["after"]
        if after is None:
            first = block.first_op
            if first is None:
                block.add_op(op)
            else:
                block.insert_op_before(op, first)
            return
        anchor = self._op(after)
        if anchor.parent is not block:
            raise ReplayError(
                f"op {placement['id']} is placed after {after}, which is not in {placement['block']}"
            )
        block.insert_op_after(op, anchor)

    def _set_region_blocks(self, region_id: str, block_ids: Sequence[str]) -> None:
        region = self.regions.get(region_id)
        if region is None:
            region = Region()
            self.regions[region_id] = region
        for block in list(region.blocks):
            region.detach_block(block)
        for block_id in block_ids:
            block = self._block(block_id)
            if block.parent is not None:
                block.parent.detach_block(block)
            region.add_block(block)

    def _erase_block(self, block_id: str) -> None:
        block = _erased(self.blocks, "block", block_id)
        for arg in block.args:
            self._forget_value(arg)
        if block.parent is not None:
            block.parent.detach_block(block)


_Item = TypeVar("_Item", Operation, Block)


def _erased(table: dict[str, _Item], kind: str, item_id: str) -> _Item:
    """The ``kind`` (op, block) of ``table`` whose id is ``item_id``, which a delta erases, taken
    out of ``table``; a ``ReplayError`` where there is none."""
    item = table.pop(item_id, None)
    if item is None:
        raise ReplayError(f"cannot erase unknown {kind} {item_id}")
    return item


def _parse_initial_ir(ctx: Context, text: str, where: str) -> ModuleOp:
    """Parse a trace's initial IR; the trace file is untrusted, so errors are located (``where``:
    the header's ``PATH:LINE: ``, then the line and column in the IR)."""
    if not text.strip():  # what reading leaves of a trace cut inside its header
        raise ReplayError("the trace holds no IR: it is truncated inside its header")
    try:
        return MLIRParser(ctx, text, "initial IR").parse_module()
    except ParseError as exc:
        location = exc.span.get_location()
        raise ReplayError(
            f"{where}the trace's initial IR does not parse: {location.line}:{location.col}: {exc.msg}"
        ) from None


def _attr_texts(delta: Delta) -> list[str]:
    """Every attribute and type text the ops and blocks ``delta`` creates hold."""
    texts: list[str] = []
    for block in delta.get("blocks_created", ()):
        texts.extend(arg["type"] for arg in block["args"])
    for info in delta.get("ops_created", ()):
        texts.extend(result["type"] for result in info["results"])
        texts.extend(info.get("attrs", {}).values())
        texts.extend(info.get("props", {}).values())
    return texts
