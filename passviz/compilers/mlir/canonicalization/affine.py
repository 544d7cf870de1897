"""MLIR's canonicalization of ``affine.for``, for the part xDSL's op lacks.

MLIR's ``affine.for`` has recursive memory effects, so a loop without
results whose body only reads memory, if that, is trivially dead and the canonicalizer
erases it; xDSL's ``affine.for`` declares no effects, so here a pattern
erases it.  The loads' and stores' ``SimplifyAffineOp`` lives on passviz's
ops (``passviz.compilers.mlir.dialects.affine``).
"""

from __future__ import annotations

from xdsl.dialects import affine
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.traits import MemoryEffectKind, RecursiveMemoryEffect, get_effects


def _has_no_effects(op: Operation) -> bool:
    """Whether ``op`` and the ops it nests only read memory, if that (an ``affine.for`` is its body)."""
    for inner in op.walk():
        if isinstance(inner, affine.ForOp | affine.YieldOp):
            continue
        effects = get_effects(inner)
        if effects is None:
            if inner.has_trait(RecursiveMemoryEffect):
                continue
            return False
        if any(effect.kind is not MemoryEffectKind.READ for effect in effects):
            return False  # reads alone leave an unused op dead, as in MLIR
    return True


class DeadAffineFor(RewritePattern):
    """An ``affine.for`` without results whose body at most reads: trivially dead in MLIR."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: affine.ForOp, rewriter: PatternRewriter) -> None:
        if op.results or not _has_no_effects(op):
            return
        rewriter.erase(op)


PATTERNS: dict[str, tuple[RewritePattern, ...]] = {affine.ForOp.name: (DeadAffineFor(),)}
"""``affine.for``'s patterns."""

OP_NAMES: frozenset[str] = frozenset(PATTERNS)
