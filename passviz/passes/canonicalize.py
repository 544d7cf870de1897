"""``canonicalize``: xDSL's canonicalizer, with each pattern, fold and
dead-op erasure recorded as its own step."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait
from xdsl.transforms.dead_code_elimination import region_dce

from passviz.trace.recorder import StepRecorder, TracedPass


class _CanonicalizationPatterns(RewritePattern):
    """The canonicalization patterns an op's traits declare, tried in order.

    Mirrors xDSL's ``CanonicalizationRewritePattern``, but tries each pattern
    through the recorder so that the step is named after the one that fired.
    """

    def __init__(self, recorder: StepRecorder) -> None:
        self.recorder = recorder

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        for trait in op.get_traits_of_type(HasCanonicalizationPatternsTrait):
            for pattern in trait.get_patterns(type(op)):
                self.recorder.apply_pattern(pattern, op, rewriter)
                if rewriter.has_done_action:
                    return


@dataclass(frozen=True)
class Canonicalize(TracedPass):
    """Apply every canonicalization pattern and folder until a fixpoint."""

    name = "canonicalize"
    announces_every_edit = True

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        pattern = GreedyRewritePatternApplier(
            [_CanonicalizationPatterns(recorder)], ctx=ctx, folding_enabled=True
        )
        recorder.walker(pattern, post_walk_func=region_dce).rewrite_module(op)
