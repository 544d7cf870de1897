"""What the canonicalization patterns of ops that branch on an ``i1`` condition share
(``cf.cond_br``, ``scf.if``): the condition's constant value, and the pattern that
takes the branch a constant condition decides."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from passviz.ir.hints import isa
from passviz.rewrite.matchers import constant_attr


def bool_constant(value: SSAValue) -> bool | None:
    """``m_Constant(&BoolAttr)``: the value of a constant ``i1``."""
    attr = constant_attr(value)
    if not isa(attr, IntegerAttr[IntegerType | IndexType]) or attr.type != IntegerType(1):
        return None
    return attr.value.data != 0


class ConstantCondition(RewritePattern, ABC):
    """An op of ``kind`` whose condition (its first operand) is a constant: ``take``
    replaces it by what it does on that condition."""

    kind: ClassVar[type[Operation]]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, self.kind) or (condition := bool_constant(op.operands[0])) is None:
            return
        self.take(op, condition, rewriter)

    @abstractmethod
    def take(self, op: Operation, condition: bool, rewriter: PatternRewriter) -> None:
        """Replace ``op``, whose condition is ``condition``."""
