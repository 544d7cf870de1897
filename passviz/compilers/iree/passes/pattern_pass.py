"""IREE's pattern passes: a greedy pattern pass that behaves as IREE 3.13's LLVM, and the
MLIR folders IREE's greedy drivers apply that passviz's tensor dialect lacks."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import tensor
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter

from passviz.compilers.iree.passes.dispatch_common import dynamic_count
from passviz.compilers.mlir.passes.canonicalize import GreedyPatternPass
from passviz.compilers.mlir.version import behaves_as_iree
from passviz.recording.interface import StepRecorder
from passviz.rewrite.patterns import RootedPattern


@dataclass(frozen=True)
class IreePatternPass(GreedyPatternPass):
    """A ``GreedyPatternPass`` of IREE's: its patterns run as IREE 3.13's LLVM has them."""

    @behaves_as_iree
    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        super().run(ctx, op, recorder)


class FoldInverseReshape(RootedPattern):
    """MLIR's reshape folder (``foldReshapeOp``): an expansion of a collapse, or a collapse of an
    expansion, whose result has the first reshape's source type is that source (at most one
    dynamic dimension)."""

    def applies_to(self, op: Operation) -> bool:
        return isinstance(op, tensor.ExpandShapeOp | tensor.CollapseShapeOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        inverse = {tensor.ExpandShapeOp: tensor.CollapseShapeOp, tensor.CollapseShapeOp: tensor.ExpandShapeOp}
        kind = next((k for k in inverse if isinstance(op, k)), None)
        if kind is None:
            return
        producer = op.operands[0].owner
        if not isinstance(producer, inverse[kind]):
            return
        source = producer.operands[0]
        if source.type != op.results[0].type or dynamic_count(source.type) >= 2:
            return
        rewriter.replace(op, [], [source])


__all__ = ["FoldInverseReshape", "IreePatternPass"]
