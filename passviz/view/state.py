"""The IR at any step of a trace, as ``passviz.trace.apply``'s plain data.

The one IR-state model is ``passviz.trace.apply.IRData``: ops, blocks,
regions and values keyed by their stable trace ids, rebuilt from deltas
alone, the model the viewer mirrors.  ``TraceStates`` gives it at any step
(each a copy of its own, so two steps can be held side by side and compared
by id); the functions below read it as the graph and the notebooks need.
"""

from __future__ import annotations

from collections import OrderedDict

from passviz.recording.initial import ensure_initial
from passviz.trace.apply import (
    BlockData,
    DeltaError,
    IRData,
    OpData,
    RegionData,
    ValueData,
    apply_delta,
    initial_state,
    ir_lines,
)
from passviz.trace.model import Trace


def snapshot(data: IRData) -> IRData:
    """A copy of ``data``, in its order, which later deltas applied to ``data`` leave as it is."""
    return IRData(
        root=data.root,
        ops={
            k: OpData(
                o.id,
                o.name,
                o.block,
                [*o.operands],
                [*o.results],
                [*o.successors],
                [*o.regions],
                {**o.attrs},
                {**o.props},
                o.loc,
                o.text,
            )
            for k, o in data.ops.items()
        },
        blocks={k: BlockData(b.id, b.region, [*b.args], b.name, [*b.ops]) for k, b in data.blocks.items()},
        regions={k: RegionData(r.id, r.op, [*r.blocks]) for k, r in data.regions.items()},
        values={
            k: ValueData(v.id, v.type, v.name, v.owner, v.index, v.is_arg) for k, v in data.values.items()
        },
    )


def id_text(state: IRData) -> str:
    """The module with every value and block named by its id, as the viewer prints it: stable across steps."""
    return "".join(f"{line.text}\n" for line in ir_lines(state))


def ops_named(state: IRData, name: str) -> list[str]:
    """The ids of the ops called ``name`` (``scf.execute_region``), in IR order."""
    return [op_id for op_id in state.walk_ops() if state.ops[op_id].name == name]


def op_attrs(op: OpData) -> dict[str, str]:
    """An op's properties and attributes, printed, properties first."""
    return {**op.props, **op.attrs}


def parents(state: IRData, node_id: str) -> tuple[str, ...]:
    """The chain of enclosing op/region/block ids of an op, block, region or value, outermost first."""
    chain: list[str] = []
    current = _parent(state, node_id)
    while current is not None:
        chain.append(current)
        current = _parent(state, current)
    return tuple(reversed(chain))


def _parent(state: IRData, node_id: str) -> str | None:
    if node_id in state.ops:
        return state.ops[node_id].block
    if node_id in state.blocks:
        return state.blocks[node_id].region
    if node_id in state.regions:
        return state.regions[node_id].op
    value = state.values.get(node_id)
    if value is not None:
        return value.owner if value.is_arg else _parent(state, value.owner)
    return None


class TraceStates:
    """The IR state at any step of a trace, applying deltas forward and caching.

    Step ``-1`` is the initial IR.  Moving forward continues from the current
    position, moving back starts again from the initial IR, so recent states
    are cached.  Each state returned is a copy of its own: never modify it.
    """

    def __init__(self, trace: Trace, cache_size: int = 64) -> None:
        self.trace = trace
        self.cache_size = cache_size
        self._cache: OrderedDict[int, IRData] = OrderedDict()
        self._data: IRData | None = None
        self._position = -1

    def at(self, step: int) -> IRData:
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
                raise DeltaError(f"step {applied.index}: cannot apply its delta: {exc}") from exc
        self._position = step
        state = snapshot(self._data)
        self._cache[step] = state
        if len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return state

    def before(self, step: int) -> IRData:
        """The state just before ``step``."""
        return self.at(step - 1)
