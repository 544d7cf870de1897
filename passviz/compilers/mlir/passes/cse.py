"""``cse``: common subexpression elimination as MLIR's ``cse`` does it, one step per replacement.

xDSL's driver does the work within a block and in single-block regions; it
skips regions of several blocks (a function with an early ``return``).  There
MLIR walks the region's dominator tree, so that an op in a block replaces an
equivalent op in any block it dominates, and so does this pass.  Ops are
erased in the order they were found, as MLIR erases them, so that a trace is
the same from run to run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnknownLoc
from xdsl.ir import Operation, Region, Use
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.transforms.common_subexpression_elimination import CSEDriver, KnownOps

from passviz.ir.dominance import dominator_tree
from passviz.ir.xdsl_compat import (
    cse_known_ops,
    cse_rewriter,
    cse_simplify_block,
    set_cse_known_ops,
    set_cse_rewriter,
)
from passviz.recording.interface import NullRecorder, StepRecorder
from passviz.rewrite.rewriter_pass import RewriterPass


@dataclass
class _RecordedCSEDriver(CSEDriver):
    """xDSL's CSE driver, replacing uses through the recorder's rewriter and
    walking regions of several blocks by dominance."""

    recorder: StepRecorder = field(default_factory=NullRecorder)
    _erase_order: dict[Operation, None] = field(default_factory=dict[Operation, None])
    """The ops to erase, in the order they were found (an ordered set)."""

    def _mark_erasure(self, op: Operation) -> None:
        self._erase_order[op] = None

    def _replace_and_delete(self, op: Operation, existing: Operation) -> None:
        rewriter = cse_rewriter(self)
        assert isinstance(rewriter, PatternRewriter)

        known = cse_known_ops(self)

        def visited(use: Use) -> bool:
            return use.operation not in known

        with self.recorder.step("cse", root=op):
            for old, new in zip(op.results, existing.results, strict=True):
                if all(visited(u) for u in old.uses):
                    rewriter.replace_uses_with_if(old, new, visited)
            # Said as a replacement, so that the step records which op's values took the place
            # of this one's (its label reads ``cse arith.muli → %v12``, lineage follows the merge).
            rewriter.handle_operation_replacement(op, existing.results)
            # As MLIR: the op kept takes the location of the op it replaces if it has none.
            if isinstance(existing.location, UnknownLoc) and not isinstance(op.location, UnknownLoc):
                existing.location = op.location
                rewriter.notify_op_modified(existing)
        if all(not r.uses for r in op.results):
            self._mark_erasure(op)

    def _simplify_region(self, region: Region) -> None:
        if len(region.blocks) <= 1:
            super()._simplify_region(region)
            return
        tree = dominator_tree(region)
        entry = region.blocks.first
        assert entry is not None
        # Depth first over the dominator tree: a block sees the ops of the blocks that dominate it.
        outer = cse_known_ops(self)
        set_cse_known_ops(self, KnownOps(outer))
        cse_simplify_block(self, entry)
        stack = [(cse_known_ops(self), iter(tree[entry]))]
        while stack:
            scope, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                continue
            set_cse_known_ops(self, KnownOps(scope))
            cse_simplify_block(self, child)
            stack.append((cse_known_ops(self), iter(tree[child])))
        set_cse_known_ops(self, outer)

    def _commit_erasures(self) -> None:
        if not any(o.parent is not None for o in self._erase_order):
            return
        with self.recorder.step("erase-dead-ops"):
            for op in self._erase_order:
                if op.parent is not None:
                    cse_rewriter(self).erase_op(op)
        self._erase_order.clear()


@dataclass(frozen=True)
class CommonSubexpressionElimination(RewriterPass):
    """Replace ops that compute a value already computed in scope."""

    name = "cse"

    def rewrite(self, ctx: Context, op: ModuleOp, recorder: StepRecorder, rewriter: PatternRewriter) -> None:
        driver = _RecordedCSEDriver(recorder=recorder)
        set_cse_rewriter(driver, rewriter)
        driver.simplify(op)
