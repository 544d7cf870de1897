"""The initial IR as structured data: a delta that creates the whole module.

Viewers that rebuild the IR at every step without parsing MLIR (the
JupyterLab extension, the standalone page) start from this delta and apply
each step's delta after it.  Ids are those of the recorder: the delta is
built from the same ``Shadow`` the recorder (or the replayer) builds.
"""

from __future__ import annotations

from passviz.recording.replay import Replayer
from passviz.recording.shadow import Shadow
from passviz.trace.model import BlockInfo, Delta, InitialState, OpInfo, Placement, Trace


def initial_state(shadow: Shadow) -> InitialState:
    """The module ``shadow`` was built on, as a delta that creates it from nothing.

    The shadow must be up to date with the module (as it is right after it
    is built).  Blocks and ops are listed in IR order, the module first;
    every op but the module is placed, and every op gets the text
    ``Shadow.text_of`` gives (values ``%v3``, successors ``^b2``, nested
    regions ``{...}``), the text step deltas record.
    """
    root = shadow.root
    blocks: list[BlockInfo] = []
    ops: list[OpInfo] = []
    placed: list[Placement] = []
    region_blocks: dict[str, list[str]] = {}
    texts: dict[str, str] = {}
    for op in root.walk():
        op_id = shadow.op_ids[op]
        ops.append(shadow.op_info(op_id))
        texts[op_id] = shadow.text_of(op)
        block_id = shadow.ops[op_id].block
        if op is not root and block_id is not None:
            prev = op.prev_op
            placed.append(
                Placement(id=op_id, block=block_id, after=shadow.op_ids[prev] if prev is not None else None)
            )
        for region in op.regions:
            block_ids = [shadow.block_ids[block] for block in region.blocks]
            region_blocks[shadow.region_ids[region]] = block_ids
            blocks.extend(shadow.block_info(b) for b in block_ids)
    delta = Delta()
    if blocks:
        delta["blocks_created"] = blocks
    delta["ops_created"] = ops
    if placed:
        delta["placed"] = placed
    if region_blocks:
        delta["region_blocks"] = region_blocks
    delta["texts"] = texts
    return InitialState(root=shadow.op_ids[root], delta=delta)


def ensure_initial(trace: Trace) -> InitialState:
    """The trace's initial state, computed by replay (and kept) if its file had none.

    Replay needs the trace's context factory (``passviz.load_trace`` gives
    one); without it this raises ``ReplayError``, as does an initial IR that
    does not parse.
    """
    if trace.initial is not None:
        return trace.initial
    replayer = Replayer(trace)
    trace.initial = initial_state(Shadow(replayer.module))
    return trace.initial
