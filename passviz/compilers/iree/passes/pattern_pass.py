"""IREE's pattern passes: a greedy pattern pass that behaves as IREE 3.13's LLVM."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from passviz.compilers.mlir.passes.canonicalize import GreedyPatternPass
from passviz.compilers.mlir.version import behaves_as_iree
from passviz.recording.interface import StepRecorder


@dataclass(frozen=True)
class IreePatternPass(GreedyPatternPass):
    """A ``GreedyPatternPass`` of IREE's: its patterns run as IREE 3.13's LLVM has them."""

    @behaves_as_iree
    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        super().run(ctx, op, recorder)


__all__ = ["IreePatternPass"]
