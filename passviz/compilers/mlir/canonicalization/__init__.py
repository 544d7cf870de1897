"""MLIR's canonicalization of the standard dialects Triton's TTIR uses.

For ``arith``, ``scf``, ``cf`` and ``affine.for`` ops (and the ``math`` ops it folds) this
package is the table the greedy driver reads: each op's canonicalization
patterns in the order MLIR's ``PatternApplicator`` tries them (benefit first,
then registration order), its folder (trait folders such as ``Commutative``
included) and the dialect's constant materializer.  For some ``linalg`` and ``tensor`` ops it
holds the patterns passviz has of MLIR's (``partial_patterns``), tried before any their traits or
their dialect's canonicalization interface bring.  Ops of other dialects fall back to xDSL's tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import RewritePattern

from passviz.compilers.mlir.canonicalization import affine, arith, cf, linalg, math, scf, tensor
from passviz.compilers.mlir.canonicalization.arith import Folder, FoldResult
from passviz.compilers.mlir.version import llvm_since

__all__ = ["FoldResult", "fold", "has_table", "materialize_constant", "partial_patterns", "patterns_for"]

_PATTERNS: Mapping[str, tuple[RewritePattern, ...]] = MappingProxyType(
    {**arith.PATTERNS, **scf.PATTERNS, **cf.PATTERNS, **affine.PATTERNS}
)
_FOLDERS: Mapping[str, Folder] = MappingProxyType({**arith.FOLDERS, **scf.FOLDERS, **math.FOLDERS})
_PARTIAL: Mapping[str, tuple[RewritePattern, ...]] = MappingProxyType({**linalg.PATTERNS, **tensor.PATTERNS})
"""The patterns passviz has for ops whose table it lacks in part (their folders, their other
patterns): the ops keep their traits' and their dialect's."""
_OP_NAMES: frozenset[str] = (
    arith.OP_NAMES | scf.OP_NAMES | cf.OP_NAMES | affine.OP_NAMES | frozenset(math.FOLDERS)
)


def has_table(op_name: str) -> bool:
    """Whether ``patterns_for`` and ``fold`` are MLIR's for ops named ``op_name``."""
    return op_name in _OP_NAMES


def patterns_for(op: Operation) -> tuple[RewritePattern, ...] | None:
    """MLIR's canonicalization patterns for ``op``, in the order MLIR tries them.

    None when passviz has no table for the op's name (use xDSL's patterns).
    """
    if not has_table(op.name):
        return None
    patterns = _PATTERNS.get(op.name, ())
    # Patterns that came with Triton 3.9's newer LLVM name the release in ``since``.
    return tuple(p for p in patterns if (since := getattr(p, "since", None)) is None or llvm_since(since))


def partial_patterns(op: Operation) -> tuple[RewritePattern, ...]:
    """MLIR's canonicalization patterns passviz has for ``op`` where ``has_table`` is false (some
    ``linalg`` and ``tensor`` ops), in the order MLIR tries them; () for others."""
    return _PARTIAL.get(op.name, ())


def fold(op: Operation) -> FoldResult | None:
    """MLIR's folder for ``op``: None if it does not fold (or passviz has none for it)."""
    folder = _FOLDERS.get(op.name)
    return folder(op) if folder is not None else None


def materialize_constant(attr: Attribute, type: Attribute) -> Operation | None:
    """``Dialect::materializeConstant`` for folded values: ``arith.constant`` or ``ub.poison``."""
    return arith.materialize_constant(attr, type)
