"""``canonicalize``: MLIR's canonicalizer on passviz's greedy driver.

Patterns and folders come from MLIR's tables where passviz has them
(``passviz.passes.canonicalization``: arith, scf, cf) and from the ops' own
traits otherwise (xDSL's dialects, and ``tt`` through its canonicalization
trait).  Each pattern, fold, dead-op erasure and constant hoist is a step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, Region, TypeAttribute
from xdsl.pattern_rewriter import RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait, HasFolder

from passviz.passes import canonicalization as mlir
from passviz.passes.greedy import CANONICALIZE, FoldResult, GreedyConfig, GreedyDriver
from passviz.trace.recorder import StepRecorder, TracedPass


@dataclass
class CanonicalizationTables:
    """Where the canonicalizer finds an op's patterns and folder (cached per op name)."""

    _patterns: dict[str, tuple[RewritePattern, ...]] = field(
        default_factory=dict[str, tuple[RewritePattern, ...]]
    )

    def patterns(self, op: Operation) -> Sequence[RewritePattern]:
        """MLIR's patterns for ``op`` if passviz has its table, else the op's traits'."""
        cached = self._patterns.get(op.name)
        if cached is not None:
            return cached
        table = mlir.patterns_for(op)
        if table is None:
            table = tuple(
                pattern
                for trait in op.get_traits_of_type(HasCanonicalizationPatternsTrait)
                for pattern in trait.get_patterns(type(op))
            )
        self._patterns[op.name] = table
        return table

    @staticmethod
    def fold(op: Operation) -> FoldResult | None:
        """MLIR's folder for ``op`` if passviz has it, else the op's own."""
        if mlir.has_table(op.name):
            return mlir.fold(op)
        trait = op.get_trait(HasFolder)
        return trait.fold(op) if trait is not None else None

    @staticmethod
    def materialize(value: Attribute, type: TypeAttribute) -> Operation | None:
        return mlir.materialize_constant(value, type)


def canonicalize_region(
    ctx: Context, region: Region, recorder: StepRecorder, config: GreedyConfig = CANONICALIZE
) -> bool:
    """Canonicalize the ops in ``region``; True if it converged."""
    tables = CanonicalizationTables()
    driver = GreedyDriver(ctx, recorder, tables.patterns, tables.fold, tables.materialize, config)
    return driver.simplify(region)


def canonicalize_op(ctx: Context, op: Operation, recorder: StepRecorder) -> bool:
    """Canonicalize inside each region of ``op`` (``applyPatternsGreedily(op)``)."""
    converged = True
    for region in op.regions:
        converged &= canonicalize_region(ctx, region, recorder)
    return converged


@dataclass(frozen=True)
class Canonicalize(TracedPass):
    """Apply every canonicalization pattern and folder until a fixpoint."""

    name = "canonicalize"
    announces_every_edit = True

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        canonicalize_op(ctx, op, recorder)
