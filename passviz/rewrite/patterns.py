"""Rewrite patterns that know their root op and benefit, tried in the order MLIR tries them.

A ``RootedPattern`` carries what MLIR's ``Pattern`` does besides its code: the op name it is
rooted at and its ``PatternBenefit``.  ``ordered`` sorts patterns the way MLIR's
``PatternApplicator`` tries them (benefit, highest first; ties in registration order), and a
``PatternTable`` hands the greedy driver the patterns of a set that apply to an op, in that
order.  Table-driven (DRR) patterns have a benefit of the number of ops they match.

``replace_all_uses`` is the rewriter's ``replaceAllUsesWith`` as a trace needs it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern


class RootedPattern(RewritePattern):
    """A pattern that knows MLIR's root op and benefit for it."""

    root: ClassVar[str | None] = None
    """The op name the pattern is rooted at (``None``: see ``applies_to``)."""

    benefit: ClassVar[int] = 1
    """MLIR's ``PatternBenefit``: patterns with a higher one are tried first."""

    def applies_to(self, op: Operation) -> bool:
        """Whether MLIR's applicator would try this pattern on ``op``."""
        return op.name == self.root


def ordered(patterns: Iterable[RootedPattern]) -> tuple[RootedPattern, ...]:
    """``patterns`` in the order MLIR tries them: benefit first, then registration."""
    return tuple(sorted(patterns, key=lambda pattern: -pattern.benefit))


class PatternTable:
    """The patterns of a pattern set that apply to an op, in MLIR's order."""

    def __init__(self, patterns: Sequence[RootedPattern]) -> None:
        """``patterns`` in registration order (``patterns.add<...>``)."""
        self._patterns = tuple(patterns)
        self._by_name: dict[str, tuple[RootedPattern, ...]] = {}

    def __call__(self, op: Operation) -> tuple[RootedPattern, ...]:
        found = self._by_name.get(op.name)
        if found is None:
            found = ordered(p for p in self._patterns if p.applies_to(op))
            self._by_name[op.name] = found
        return found


def replace_all_uses(rewriter: PatternRewriter, old: SSAValue, new: SSAValue) -> None:
    """``replaceAllUsesWith`` that leaves ``new``'s name alone (xDSL would hand it
    ``old``'s name hint, an edit the trace would not see)."""
    name = new.name_hint
    rewriter.replace_all_uses_with(old, new)
    new.name_hint = name
