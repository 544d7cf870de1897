"""The IR at one step as plain data keyed by stable trace ids.

Graph builders and diffs work on these snapshots rather than on live xDSL
objects, so that two steps can be held side by side and compared by id.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from io import StringIO

from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.printer import Printer

from passviz.trace.irtext import AttrPrinter, op_text, print_module
from passviz.trace.model import Trace
from passviz.trace.query import touched_ops
from passviz.trace.replay import Replayer


@dataclass(frozen=True, slots=True)
class ValueState:
    """An SSA value: the result of an op or the argument of a block."""

    id: str
    type: str
    owner: str
    """The op (for a result) or block (for an argument) that defines it."""
    index: int
    """Its position among the owner's results or arguments."""
    is_arg: bool


@dataclass(frozen=True, slots=True)
class OpState:
    """An operation, with its links as ids."""

    id: str
    name: str
    block: str | None
    """The block holding the op (None for the top-level module)."""
    operands: tuple[str, ...]
    results: tuple[str, ...]
    successors: tuple[str, ...]
    regions: tuple[str, ...]
    attrs: tuple[tuple[str, str], ...]
    """Properties and attributes, printed, in the op's order."""
    loc: str | None
    text: str
    """The op on one line, values named by their ids, nested regions as ``{...}``."""

    @property
    def dialect(self) -> str:
        """The dialect prefix of the op name (``arith`` for ``arith.addi``)."""
        return self.name.split(".", 1)[0] if "." in self.name else ""


@dataclass(frozen=True, slots=True)
class BlockState:
    """A block: its arguments and its ops in order."""

    id: str
    region: str | None
    label: str
    """``^b<n>``: the block's id, as the id-named IR prints it."""
    index: int
    """The block's position in its region."""
    args: tuple[str, ...]
    ops: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RegionState:
    """A region: the op holding it and its blocks in order."""

    id: str
    op: str
    index: int
    blocks: tuple[str, ...]


@dataclass
class IRState:
    """The whole module at one step."""

    root: str
    """The id of the top-level op (the module)."""
    ops: dict[str, OpState] = field(default_factory=lambda: dict[str, OpState]())
    """Every op, in IR (pre-)order."""
    blocks: dict[str, BlockState] = field(default_factory=lambda: dict[str, BlockState]())
    regions: dict[str, RegionState] = field(default_factory=lambda: dict[str, RegionState]())
    values: dict[str, ValueState] = field(default_factory=lambda: dict[str, ValueState]())
    id_text: str = ""
    """The module with every value and block named by its id: stable across steps."""
    text: str = ""
    """The module with MLIR's positional names; only kept when ``id_text`` could not be printed."""

    def parents(self, node_id: str) -> tuple[str, ...]:
        """The chain of enclosing op/region/block ids of a node, outermost first."""
        chain: list[str] = []
        current: str | None = self._parent(node_id)
        while current is not None:
            chain.append(current)
            current = self._parent(current)
        return tuple(reversed(chain))

    def _parent(self, node_id: str) -> str | None:
        if node_id in self.ops:
            return self.ops[node_id].block
        if node_id in self.blocks:
            return self.blocks[node_id].region
        if node_id in self.regions:
            return self.regions[node_id].op
        if node_id in self.values:
            value = self.values[node_id]
            return value.owner if value.is_arg else self._parent(value.owner)
        return None

    def ops_named(self, name: str) -> list[str]:
        """The ids of the ops called ``name`` (``scf.execute_region``), in IR order."""
        return [op.id for op in self.ops.values() if op.name == name]


class _Snapshotter:
    """Turns the replayer's live module into an ``IRState``."""

    def __init__(self, replayer: Replayer, attrs: AttrPrinter, op_texts: dict[str, str]) -> None:
        self.attrs = attrs
        self.op_texts = op_texts
        self.op_ids = {op: i for i, op in replayer.ops.items()}
        self.block_ids = {block: i for i, block in replayer.blocks.items()}
        self.region_ids = {region: i for i, region in replayer.regions.items()}
        self.value_ids = replayer.value_ids
        self.names = replayer.value_ids
        self.block_names = self.block_ids
        self.module = replayer.module

    def snapshot(self) -> IRState:
        root = self.op_ids[self.module]
        id_text = self._id_text()
        state = IRState(root=root, id_text=id_text, text="" if id_text else print_module(self.module))
        self._op(state, self.module, None)
        return state

    def _op(self, state: IRState, op: Operation, block: str | None) -> None:
        op_id = self.op_ids[op]
        attrs = [(name, self.attrs.text(value)) for name, value in op.properties.items()]
        attrs += [(name, self.attrs.text(value)) for name, value in op.attributes.items()]
        state.ops[op_id] = OpState(
            id=op_id,
            name=op.name,
            block=block,
            operands=tuple(self.value_ids[v] for v in op.operands),
            results=tuple(self.value_ids[v] for v in op.results),
            successors=tuple(self.block_ids[b] for b in op.successors),
            regions=tuple(self.region_ids[r] for r in op.regions),
            attrs=tuple(attrs),
            loc=self.attrs.loc_text(op.location),
            text=self._text(op, op_id),
        )
        for index, result in enumerate(op.results):
            value_id = self.value_ids[result]
            state.values[value_id] = ValueState(value_id, self.attrs.text(result.type), op_id, index, False)
        for index, region in enumerate(op.regions):
            self._region(state, region, op_id, index)

    def _text(self, op: Operation, op_id: str) -> str:
        text = self.op_texts.get(op_id)
        if text is None:
            text = op_text(op, self.names, self.block_names).strip()
            self.op_texts[op_id] = text
        return text

    def _region(self, state: IRState, region: Region, op_id: str, index: int) -> None:
        region_id = self.region_ids[region]
        blocks = list(region.blocks)
        state.regions[region_id] = RegionState(
            region_id, op_id, index, tuple(self.block_ids[b] for b in blocks)
        )
        for position, block in enumerate(blocks):
            self._block(state, block, region_id, position)

    def _block(self, state: IRState, block: Block, region_id: str, position: int) -> None:
        block_id = self.block_ids[block]
        label = f"^{block_id}"  # as the id-named IR prints it
        state.blocks[block_id] = BlockState(
            id=block_id,
            region=region_id,
            label=label,
            index=position,
            args=tuple(self.value_ids[a] for a in block.args),
            ops=tuple(self.op_ids[op] for op in block.ops),
        )
        for arg in block.args:
            value_id = self.value_ids[arg]
            state.values[value_id] = ValueState(
                value_id, self.attrs.text(arg.type), block_id, arg.index, True
            )
        for op in block.ops:
            self._op(state, op, block_id)

    def _id_text(self) -> str:
        """The module with values and blocks named by id, so renumbering never shows as a change."""
        stream = StringIO()
        printer = Printer(stream=stream)
        values: dict[SSAValue, str] = printer._ssa_values  # pyright: ignore[reportPrivateUsage]
        blocks: dict[Block, str] = printer._blocks  # pyright: ignore[reportPrivateUsage]
        values.update(self.names)
        blocks.update(self.block_names)
        try:
            printer.print_op(self.module)
        except Exception:
            return ""
        stream.write("\n")
        return stream.getvalue()


class TraceStates:
    """The IR state at any step of a trace, replaying forward and caching.

    Step ``-1`` is the initial IR.  Moving forward continues the current
    replay; moving back starts a new one, so recent states are cached.
    """

    def __init__(self, trace: Trace, cache_size: int = 64) -> None:
        self.trace = trace
        self.cache_size = cache_size
        self._attrs = AttrPrinter()
        self._cache: OrderedDict[int, IRState] = OrderedDict()
        self._replayer: Replayer | None = None
        self._op_texts: dict[str, str] = {}
        """Op texts at the replayer's position: an op's text only changes when a step touches it."""

    def at(self, step: int) -> IRState:
        """The state after ``step`` (-1: before the first step)."""
        if step < -1 or step >= len(self.trace.steps):
            raise IndexError(f"step {step} is out of range: the trace has {len(self.trace.steps)} steps")
        cached = self._cache.get(step)
        if cached is not None:
            self._cache.move_to_end(step)
            return cached
        replayer = self._replayer
        if replayer is None or replayer.position > step:
            replayer = Replayer(self.trace)
            self._replayer = replayer
            self._op_texts.clear()
        for applied in self.trace.steps[replayer.position + 1 : step + 1]:
            # An op's text also changes when its entry block does (a function's signature).
            for op_id in touched_ops(applied.delta) | applied.delta.get("texts", {}).keys():
                self._op_texts.pop(op_id, None)
        replayer.advance_to(step)
        state = _Snapshotter(replayer, self._attrs, self._op_texts).snapshot()
        self._cache[step] = state
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return state

    def before(self, step: int) -> IRState:
        """The state just before ``step``."""
        return self.at(step - 1)
