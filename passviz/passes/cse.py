"""``cse``: xDSL's common subexpression elimination, one step per replacement."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, Use
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.transforms.common_subexpression_elimination import CSEDriver

from passviz.trace.recorder import NullRecorder, StepRecorder, TracedPass


@dataclass
class _RecordedCSEDriver(CSEDriver):
    """xDSL's CSE driver, replacing uses through the recorder's rewriter."""

    recorder: StepRecorder = field(default_factory=NullRecorder)

    def _replace_and_delete(self, op: Operation, existing: Operation) -> None:
        rewriter = self._rewriter
        assert isinstance(rewriter, PatternRewriter)

        def visited(use: Use) -> bool:
            return use.operation not in self._known_ops

        with self.recorder.step("cse", root=op):
            for old, new in zip(op.results, existing.results, strict=True):
                if all(visited(u) for u in old.uses):
                    rewriter.replace_uses_with_if(old, new, visited)
        if all(not r.uses for r in op.results):
            self._mark_erasure(op)

    def _commit_erasures(self) -> None:
        if not any(o.parent is not None for o in self._to_erase):
            return
        with self.recorder.step("erase-dead-ops"):
            super()._commit_erasures()


@dataclass(frozen=True)
class CommonSubexpressionElimination(TracedPass):
    """Replace ops that compute a value already computed in scope."""

    name = "cse"
    announces_every_edit = True

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        rewriter = recorder.rewriter(InsertPoint.at_start(op.body.block))
        _RecordedCSEDriver(_rewriter=rewriter, recorder=recorder).simplify(op)
