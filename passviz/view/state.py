"""The IR at one step as plain data keyed by stable trace ids.

Graph builders and diffs work on these snapshots rather than on live xDSL
objects, so that two steps can be held side by side and compared by id.  They
are built from ``passviz.trace.apply``, the pure-data meaning of a trace's
deltas that the viewer's model mirrors.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from passviz.recording.initial import ensure_initial
from passviz.recording.replay import ReplayError
from passviz.trace.apply import DeltaError, IRData, apply_delta, initial_state, ir_lines
from passviz.trace.model import Trace


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
    """The module with every value and block named by its id, as the viewer prints it: stable across steps."""

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


def snapshot(data: IRData) -> IRState:
    """``data`` (the pure-data state ``passviz.trace.apply`` keeps) as a frozen ``IRState``."""
    state = IRState(root=data.root, id_text="".join(f"{line.text}\n" for line in ir_lines(data)))
    for op_id in data.walk_ops():
        op = data.ops[op_id]
        state.ops[op_id] = OpState(
            id=op_id,
            name=op.name,
            block=op.block,
            operands=tuple(op.operands),
            results=tuple(op.results),
            successors=tuple(op.successors),
            regions=tuple(op.regions),
            attrs=(*op.props.items(), *op.attrs.items()),
            loc=op.loc,
            text=op.text,
        )
        for index, result in enumerate(op.results):
            value = data.values[result]
            state.values[result] = ValueState(result, value.type, op_id, index, False)
        for region_index, region_id in enumerate(op.regions):
            region = data.regions[region_id]
            state.regions[region_id] = RegionState(region_id, op_id, region_index, tuple(region.blocks))
            for position, block_id in enumerate(region.blocks):
                block = data.blocks[block_id]
                state.blocks[block_id] = BlockState(
                    id=block_id,
                    region=region_id,
                    label=f"^{block_id}",  # as the id-named IR prints it
                    index=position,
                    args=tuple(block.args),
                    ops=tuple(block.ops),
                )
                for index, arg in enumerate(block.args):
                    state.values[arg] = ValueState(arg, data.values[arg].type, block_id, index, True)
    return state


class TraceStates:
    """The IR state at any step of a trace, applying deltas forward and caching.

    Step ``-1`` is the initial IR.  States come from ``passviz.trace.apply``,
    the one meaning of a delta; moving forward continues from the current
    position, moving back starts again from the initial IR, so recent states
    are cached.
    """

    def __init__(self, trace: Trace, cache_size: int = 64) -> None:
        self.trace = trace
        self.cache_size = cache_size
        self._cache: OrderedDict[int, IRState] = OrderedDict()
        self._data: IRData | None = None
        self._position = -1

    def at(self, step: int) -> IRState:
        """The state after ``step`` (-1: before the first step)."""
        if step < -1 or step >= len(self.trace.steps):
            raise IndexError(f"step {step} is out of range: the trace has {len(self.trace.steps)} steps")
        cached = self._cache.get(step)
        if cached is not None:
            self._cache.move_to_end(step)
            return cached
        if self._data is None or self._position > step:
            self._data = initial_state(ensure_initial(self.trace))
            self._position = -1
        for applied in self.trace.steps[self._position + 1 : step + 1]:
            try:
                apply_delta(self._data, applied.delta)
            except DeltaError as exc:
                raise ReplayError(f"step {applied.index}: cannot apply its delta: {exc}") from exc
        self._position = step
        state = snapshot(self._data)
        self._cache[step] = state
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return state

    def before(self, step: int) -> IRState:
        """The state just before ``step``."""
        return self.at(step - 1)
