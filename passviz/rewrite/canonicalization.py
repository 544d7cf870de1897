"""A dialect's canonicalization patterns and folders, kept apart from its op classes.

MLIR finds an op's canonicalization patterns and folder on the op
(``getCanonicalizationPatterns``, ``fold``), as xDSL does through its traits
(``HasCanonicalizationPatternsTrait``, ``HasFolder``).  Where the patterns import the ops they
rewrite, the ops cannot name them without an import cycle; their dialect carries a
``DialectCanonicalizationInterface`` instead (MLIR's dialect-level hooks:
``Dialect::getCanonicalizationPatterns`` and the ``DialectFoldInterface``), attached by its
family (``passviz.compilers.family.extended``), and the canonicalizer finds it in the context.
It also folds where an xDSL folder cannot: in place.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialect_interfaces import DialectInterface
from xdsl.ir import Operation
from xdsl.pattern_rewriter import RewritePattern
from xdsl.traits import HasFolder

from passviz.rewrite.greedy import FoldResult


class DialectCanonicalizationInterface(DialectInterface):
    """The canonicalization patterns and the folder of a dialect's ops."""

    def patterns(self, op: Operation) -> Sequence[RewritePattern]:
        """The canonicalization patterns of ``op`` (an op of this dialect) beyond its traits',
        in the order MLIR tries them."""
        return ()

    def fold(self, op: Operation) -> FoldResult | None:
        """MLIR's fold of ``op`` (an op of this dialect): one value or attribute per result,
        ``()`` when the op was changed in place, None when it does not fold.  By default its
        xDSL folder's (``HasFolder``)."""
        folder = op.get_trait(HasFolder)
        return folder.fold(op) if folder is not None else None


def canonicalization_interface(ctx: Context | None, op: Operation) -> DialectCanonicalizationInterface | None:
    """The canonicalization interface of ``op``'s dialect in ``ctx``, if it has one."""
    dialect = ctx.get_optional_dialect(op.dialect_name()) if ctx is not None else None
    return dialect.get_interface(DialectCanonicalizationInterface) if dialect is not None else None
