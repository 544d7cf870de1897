"""``dce``: xDSL's region dead-code elimination, one step per erased op or block."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Region
from xdsl.rewriter import InsertPoint
from xdsl.transforms.dead_code_elimination import LiveSet

from passviz.recording.interface import StepRecorder, TracedPass


@dataclass(frozen=True)
class DeadCodeElimination(TracedPass):
    """Erase ops whose results are unused and that have no other effect."""

    name = "dce"
    announces_every_edit = True

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        live = LiveSet()
        while live.changed:
            live.changed = False
            live.propagate_region_liveness(op.body)
        _erase_dead(op.body, live, recorder)


def _erase_dead(region: Region, live: LiveSet, recorder: StepRecorder) -> None:
    """Erase what ``live`` did not mark, in the order xDSL's ``region_dce`` does."""
    first = region.first_block
    if first is None:
        return
    for block in reversed(region.blocks):
        if block is not first and not any(live.is_live(o) for o in block.ops):
            with recorder.step("erase-dead-block", full=True):
                region.erase_block(block, safe_erase=False)
            continue
        for operation in reversed(block.ops):
            if live.is_live(operation):
                for nested in operation.regions:
                    _erase_dead(nested, live, recorder)
                continue
            with recorder.step("erase-dead-op", root=operation):
                recorder.rewriter(InsertPoint.before(operation)).erase(operation, safe_erase=False)
