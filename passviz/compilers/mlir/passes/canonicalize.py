"""``canonicalize``: MLIR's canonicalizer on passviz's greedy driver.

Patterns and folders come from MLIR's tables where passviz has them
(``passviz.compilers.mlir.canonicalization``: arith, scf, cf; some of linalg's and tensor's) and
otherwise from the
ops' own traits and their dialect's canonicalization interface
(``passviz.rewrite.canonicalization``), which a family attaches to a dialect whose patterns
cannot live with its ops.  Each pattern, fold, dead-op erasure and constant hoist is a step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Protocol

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, TypeAttribute
from xdsl.pattern_rewriter import RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait, HasFolder

from passviz.compilers.mlir import canonicalization as mlir
from passviz.recording.interface import StepRecorder, TracedPass
from passviz.rewrite.canonicalization import DialectCanonicalizationInterface, canonicalization_interface
from passviz.rewrite.greedy import (
    CANONICALIZE,
    DEFAULT,
    FoldResult,
    GreedyConfig,
    GreedyDriver,
    PatternSource,
)
from passviz.rewrite.patterns import PatternTable, RootedPattern


@dataclass
class CanonicalizationTables:
    """Where the canonicalizer finds an op's patterns and folder (cached per op name)."""

    ctx: Context | None = None
    """Where the ops' dialects, with their canonicalization interfaces, are found (without
    one, only MLIR's tables and the ops' traits are)."""
    _patterns: dict[str, tuple[RewritePattern, ...]] = field(
        default_factory=dict[str, tuple[RewritePattern, ...]]
    )
    _interfaces: dict[str, DialectCanonicalizationInterface | None] = field(
        default_factory=dict[str, DialectCanonicalizationInterface | None]
    )

    def interface(self, op: Operation) -> DialectCanonicalizationInterface | None:
        """The canonicalization interface of ``op``'s dialect, if it has one."""
        name = op.dialect_name()
        if name not in self._interfaces:
            self._interfaces[name] = canonicalization_interface(self.ctx, op)
        return self._interfaces[name]

    def patterns(self, op: Operation) -> Sequence[RewritePattern]:
        """MLIR's patterns for ``op`` if passviz has its table, else those of MLIR's it has for the
        op (``partial_patterns``), the op's traits' and then its dialect's canonicalization
        interface's."""
        cached = self._patterns.get(op.name)
        if cached is not None:
            return cached
        table = mlir.patterns_for(op)
        if table is None:
            interface = self.interface(op)
            table = (
                *mlir.partial_patterns(op),
                *(
                    pattern
                    for trait in op.get_traits_of_type(HasCanonicalizationPatternsTrait)
                    for pattern in trait.get_patterns(type(op))
                ),
                *(interface.patterns(op) if interface is not None else ()),
            )
        self._patterns[op.name] = table
        return table

    def fold(self, op: Operation) -> FoldResult | None:
        """MLIR's folder for ``op`` if passviz has it, else its dialect's canonicalization
        interface's (which may fold in place, as xDSL folders cannot), else the op's own."""
        if mlir.has_table(op.name):
            return mlir.fold(op)
        interface = self.interface(op)
        if interface is not None:
            return interface.fold(op)
        trait = op.get_trait(HasFolder)
        return trait.fold(op) if trait is not None else None

    @staticmethod
    def materialize(value: Attribute, type: TypeAttribute) -> Operation | None:
        return mlir.materialize_constant(value, type)


def apply_patterns_greedily(
    ctx: Context,
    op: Operation,
    recorder: StepRecorder,
    patterns: PatternSource | None = None,
    config: GreedyConfig = DEFAULT,
) -> bool:
    """MLIR's ``applyPatternsGreedily(op, patterns, config)`` on each region of
    ``op``, folding with the canonicalizer's folders; without ``patterns``, the
    canonicalization patterns.  True if every region converged."""
    tables = CanonicalizationTables(ctx)
    converged = True
    for region in op.regions:
        driver = GreedyDriver(
            ctx, recorder, patterns or tables.patterns, tables.fold, tables.materialize, config
        )
        converged &= driver.simplify(region)
    return converged


class PatternFactory(Protocol):
    """What makes a pattern pass's patterns, in registration order."""

    def __call__(self) -> Sequence[RootedPattern]: ...


@dataclass(frozen=True)
class GreedyPatternPass(TracedPass):
    """A pass declared by its name, its patterns and its driver's configuration: ``run``
    applies the patterns greedily to the module, as MLIR's pattern passes
    (``applyPatternsGreedily`` over a ``RewritePatternSet``) do.

    A subclass names them in its class line,
    ``class P(GreedyPatternPass, patterns=p_patterns, config=NO_LIMIT)``: ``patterns`` makes
    the set in registration order, called on each run since a set may depend on the version
    passviz behaves as."""

    announces_every_edit = True

    pattern_set: ClassVar[PatternFactory]
    """The pass's patterns, in registration order (``patterns.add<...>``)."""
    config: ClassVar[GreedyConfig] = DEFAULT
    """The greedy driver's configuration (its iteration limit, traversal order)."""

    def __init_subclass__(
        cls,
        patterns: PatternFactory | None = None,
        config: GreedyConfig | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        if patterns is not None:
            cls.pattern_set = patterns
        if config is not None:
            cls.config = config

    def patterns(self, ctx: Context) -> PatternSource:
        """Where the driver finds the patterns for an op."""
        # Read from the class: a function read from the pass would be bound to it.
        return PatternTable(type(self).pattern_set())

    def settled(self, op: ModuleOp, recorder: StepRecorder) -> None:
        """What the pass does once its patterns have converged (nothing, unless overridden)."""

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        apply_patterns_greedily(ctx, op, recorder, self.patterns(ctx), self.config)
        self.settled(op, recorder)


def canonicalize_op(ctx: Context, op: Operation, recorder: StepRecorder) -> bool:
    """Canonicalize inside each region of ``op``, as MLIR's ``canonicalize`` pass does."""
    return apply_patterns_greedily(ctx, op, recorder, config=CANONICALIZE)


@dataclass(frozen=True)
class Canonicalize(TracedPass):
    """Apply every canonicalization pattern and folder until a fixpoint.

    Takes MLIR's ``max-iterations`` and ``top-down`` options, spelled as in ``mlir-opt``:
    ``canonicalize{max-iterations=3 top-down=false}``.  Not ``region-simplify``: MLIR erases
    unreachable blocks even with it ``disabled``, which passviz's driver does not model."""

    name = "canonicalize"
    announces_every_edit = True

    max_iterations: int = CANONICALIZE.max_iterations
    """Iterations over the whole region (MLIR's default 10).  MLIR stops there silently; a trace
    flags the step, as ``test-convergence`` would, since a pattern set that never settles is what
    a person stepping through it looks for.  ``passviz trace --max-iterations`` overrides it."""
    top_down: bool = CANONICALIZE.top_down
    """Process ops first to last (MLIR's default), or bottom-up."""

    def __post_init__(self) -> None:
        # Checked here, when the pipeline is read, so that a bad value is an error at its column.
        if self.max_iterations < 1:
            raise ValueError(f"max-iterations={self.max_iterations}: at least 1")

    def config(self) -> GreedyConfig:
        """The greedy driver's configuration for these options."""
        return replace(CANONICALIZE, max_iterations=self.max_iterations, top_down=self.top_down)

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        apply_patterns_greedily(ctx, op, recorder, config=self.config())
