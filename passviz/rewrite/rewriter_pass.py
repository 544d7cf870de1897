"""A traced pass that makes every edit through one rewriter the recorder hands it."""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from passviz.recording.interface import StepRecorder, TracedPass


@dataclass(frozen=True)
class RewriterPass(TracedPass):
    """A pass whose edits all go through the recorder's rewriter, so it announces every edit:
    ``rewrite`` gets that rewriter, set at the start of the module's body."""

    announces_every_edit = True

    @abstractmethod
    def rewrite(self, ctx: Context, op: ModuleOp, recorder: StepRecorder, rewriter: PatternRewriter) -> None:
        """Apply the pass to ``op``, every edit through ``rewriter``."""

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        self.rewrite(ctx, op, recorder, recorder.rewriter(InsertPoint.at_start(op.body.block)))


__all__ = ["RewriterPass"]
