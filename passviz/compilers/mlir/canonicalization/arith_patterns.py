"""arith's canonicalization patterns that are not of the rules' shapes (``arith_rules``):
the DRR patterns of ``ArithCanonicalization.td`` that match in their own ways, and
the C++ ones of ``ArithOps.cpp`` (``SelectToExtUI``, ``CmpFIntToFPConst``), named
as MLIR names them.  ``SelectToMinMax`` comes with Triton 3.9's newer LLVM.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import ClassVar, Self, cast

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IntegerType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from passviz.compilers.mlir.canonicalization.arith_casts import int_to_float, mantissa_width
from passviz.compilers.mlir.canonicalization.arith_common import (
    EQ,
    INVERTED_PREDICATE,
    NE,
    SGE,
    SGT,
    SIGNED_PREDICATES,
    SLE,
    SLT,
    UGE,
    UGT,
    ULE,
    ULT,
    cmp_predicate,
    element_width,
    i1_same_shape,
    int_constant,
    overflow_flags,
    replace,
    zero_attr,
)
from passviz.compilers.mlir.canonicalization.builders import (
    binary,
    cmpi,
    constant,
    i1_constant,
    select,
    unary,
)
from passviz.compilers.mlir.version import Snapshot
from passviz.ir.hints import isa
from passviz.rewrite.matchers import constant_attr, defining, foldable_float, int_attr, int_value, is_int

# ---------------------------------------------------------------------------
# Integer arithmetic and comparisons


class _Nested(RewritePattern, ABC):
    """A pattern of ops of ``kind`` whose operand ``at`` an op of ``inner`` makes:
    ``build`` gives the ops that replace such an op, or None where it does not apply.
    ``variants`` makes its patterns of each side, named as MLIR names them."""

    kind: ClassVar[type[Operation]]
    inner: ClassVar[type[Operation]]
    at: ClassVar[int]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, self.kind) or (inner := defining(op.operands[self.at], self.inner)) is None:
            return
        if (new_ops := self.build(op, inner)) is not None:
            replace(rewriter, op, new_ops, [new_ops[-1].results[0]])

    @abstractmethod
    def build(self, op: Operation, inner: Operation) -> list[Operation] | None:
        """The new ops, of ``op`` and ``inner``, the last of which replaces ``op``; None
        where the pattern does not apply."""

    @classmethod
    def variants(cls, *variants: tuple[str, str, int]) -> tuple[type[Self], ...]:
        """A pattern class of each variant: its name, its rule as the .td file's comments
        write it, and the operand ``at`` it matches."""
        return tuple(
            cast(
                type[Self],
                type(
                    name,
                    (cls,),
                    {"__doc__": doc, "__module__": cls.__module__, "__qualname__": name, "at": at},
                ),
            )
            for name, doc, at in variants
        )


def _is_negative_one(value: SSAValue) -> bool:
    """``IsScalarOrSplatNegativeOne`` of a constant."""
    found = int_value(constant_attr(value))
    return found is not None and found.is_all_ones()


class _AddIMulNegativeOne(_Nested):
    """addi of x and muli(y, -1) -> subi(x, y), the muli on the side ``at``."""

    kind, inner = arith.AddiOp, arith.MuliOp

    def build(self, op: Operation, inner: Operation) -> list[Operation] | None:
        if not _is_negative_one(inner.operands[1]):
            return None
        return [binary(arith.SubiOp, op.operands[1 - self.at], inner.operands[0], frozenset())]


class SubISubILHSRHSLHS(_Nested):
    """subi(subi(a, b), a) -> subi(0, b)"""

    kind, inner, at = arith.SubiOp, arith.SubiOp, 0

    def build(self, op: Operation, inner: Operation) -> list[Operation] | None:
        if inner.operands[0] != op.operands[1] or (zero := zero_attr(inner.operands[1].type)) is None:
            return None
        const = constant(zero)
        flags = overflow_flags(inner) & overflow_flags(op)
        return [const, binary(arith.SubiOp, const.result, inner.operands[1], flags)]


def _is_i1(value: SSAValue, truth: bool) -> bool:
    """``ConstantAttr<I1Attr, "1">`` (or ``"0"``): the scalar ``i1`` constant ``truth``."""
    attr = int_constant(value)
    return attr is not None and attr.type == IntegerType(1) and (attr.value.data != 0) == truth


class XOrINotCmpI(_Nested):
    """not(cmpi(pred, a, b)) -> cmpi(~pred, a, b), where not(x) is xori(x, 1)"""

    kind, inner, at = arith.XOrIOp, arith.CmpiOp, 0

    def build(self, op: Operation, inner: Operation) -> list[Operation] | None:
        assert isinstance(inner, arith.CmpiOp)
        if not _is_i1(op.operands[1], True):
            return None
        return [cmpi(INVERTED_PREDICATE[cmp_predicate(inner)], inner.lhs, inner.rhs, op.results[0].type)]


# ---------------------------------------------------------------------------
# Selects


class _RedundantSelect(_Nested):
    """select(pred, ..., select(pred, ...)) -> the outer select with the inner one's value
    on the side ``at`` (1: the true value, 2: the false value), where the inner select is."""

    kind, inner = arith.SelectOp, arith.SelectOp

    def build(self, op: Operation, inner: Operation) -> list[Operation] | None:
        if inner.operands[0] != op.operands[0]:
            return None
        values = list(op.operands[1:])
        values[self.at - 1] = inner.operands[self.at]
        return [select(op.operands[0], *values)]


class SelectNotCond(_Nested):
    """select(not(pred), a, b) -> select(pred, b, a)"""

    kind, inner, at = arith.SelectOp, arith.XOrIOp, 0

    def build(self, op: Operation, inner: Operation) -> list[Operation] | None:
        if int_constant(inner.operands[1]) is None or not _is_negative_one(inner.operands[1]):
            return None
        return [select(inner.operands[0], op.operands[2], op.operands[1])]


class SelectI1ToNot(RewritePattern):
    """select(pred, false, true) -> not(pred)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter) -> None:
        if not _is_i1(op.lhs, False) or not _is_i1(op.rhs, True):
            return
        const = i1_constant(True)
        new = binary(arith.XOrIOp, op.cond, const.result)
        replace(rewriter, op, [const, new], [new.result])


class SelectToExtUI(RewritePattern):
    """select(%x, 1, 0) -> extui(%x); select(%x, 0, 1) -> extui(xori(%x, true))"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter) -> None:
        type = op.result.type
        if not isinstance(type, IntegerType) or type.bitwidth == 1:
            return
        t, f = constant_attr(op.lhs), constant_attr(op.rhs)
        if is_int(t, 1) and is_int(f, 0):
            new = unary(arith.ExtUIOp, op.cond, op.result.type)
            replace(rewriter, op, [new], [new.result])
        elif is_int(t, 0) and is_int(f, 1):
            one = int_attr(1, op.cond.type)
            assert one is not None
            const = constant(one)
            xor = binary(arith.XOrIOp, op.cond, const.result)
            new = unary(arith.ExtUIOp, xor.result, op.result.type)
            replace(rewriter, op, [const, xor, new], [new.result])


class SelectToMinMax(RewritePattern):
    """select(cmpi(p, a, b), a, b) -> min/max(a, b), by the predicate's sign and
    direction (either value order); Triton 3.9's LLVM has it, 3.6's not."""

    since: ClassVar[Snapshot] = (3, 9)
    """The Triton release whose LLVM has the pattern (``patterns_for`` leaves it out before)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter) -> None:
        cmp = defining(op.cond, arith.CmpiOp)
        if cmp is None or (predicate := cmp_predicate(cmp)) in (EQ, NE):
            return
        if (op.lhs, op.rhs) == (cmp.lhs, cmp.rhs):
            lhs_is_true = True
        elif (op.lhs, op.rhs) == (cmp.rhs, cmp.lhs):
            lhs_is_true = False
        else:
            return
        less = predicate in (SLT, SLE, ULT, ULE)
        signed = predicate in SIGNED_PREDICATES
        kinds = {
            (True, True): arith.MinSIOp,
            (True, False): arith.MinUIOp,
            (False, True): arith.MaxSIOp,
            (False, False): arith.MaxUIOp,
        }
        new = binary(kinds[less == lhs_is_true, signed], cmp.lhs, cmp.rhs)
        replace(rewriter, op, [new], [new.result])


# ---------------------------------------------------------------------------
# Casts and extended arithmetic


class TruncIShrSIToTrunciShrUI(RewritePattern):
    """trunci(shrsi(x, c)) -> trunci(shrui(x, c)) when c is the number of bits dropped."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.TruncIOp, rewriter: PatternRewriter) -> None:
        shift = defining(op.input, arith.ShRSIOp)
        if shift is None or (c0 := constant_attr(shift.rhs)) is None:
            return
        amount = int_value(c0)
        if amount is None or element_width(shift.lhs) - element_width(op.result) != amount.bits:
            return
        const = constant(c0)
        shrui = binary(arith.ShRUIOp, shift.lhs, const.result)
        flags = op.properties.get("overflowFlags")
        new = unary(arith.TruncIOp, shrui.result, op.result.type, {"overflowFlags": flags} if flags else None)
        replace(rewriter, op, [const, shrui, new], [new.result])


class MulSIExtendedRHSOne(RewritePattern):
    """mulsi_extended(x, 1) -> [x, extsi(cmpi slt, x, 0)]"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.MulSIExtendedOp, rewriter: PatternRewriter) -> None:
        one = int_value(constant_attr(op.rhs))
        if one is None or one.signed != 1 or (zero := zero_attr(op.lhs.type)) is None:
            return
        const = constant(zero)
        cmp = cmpi(SLT, op.lhs, const.result, i1_same_shape(op.lhs.type))
        ext = unary(arith.ExtSIOp, cmp.result, op.lhs.type)
        replace(rewriter, op, [const, cmp, ext], [op.lhs, ext.result])


# ---------------------------------------------------------------------------
# CmpFIntToFPConst


_CMPF_TO_CMPI = {
    1: EQ,
    8: EQ,
    2: SGT,
    9: SGT,
    3: SGE,
    10: SGE,
    4: SLT,
    11: SLT,
    5: SLE,
    12: SLE,
    6: NE,
    13: NE,
}
"""``convertToIntegerPredicate`` for signed inputs (oeq/ueq -> eq, ogt/ugt -> sgt, ...)."""
_TO_UNSIGNED = {SGT: UGT, SGE: UGE, SLT: ULT, SLE: ULE}


_FRACTIONAL_KNOWN = {NE: True, EQ: False}
"""The comparisons with a fractional constant whose outcome is known: (float)int != 4.4 is true."""
_FRACTIONAL_KNOWN_WHEN_NEGATIVE = {ULE: False, ULT: False, UGT: True, UGE: True}
"""Those known when the fractional constant is negative: an unsigned int is above it."""
_FRACTIONAL_ROUNDED = {False: {ULT: ULE, SLT: SLE, UGE: UGT, SGE: SGT}, True: {SLE: SLT, SGT: SGE}}
"""By the fractional constant's sign (negative), the predicates that compare with it
rounded toward zero instead (the others stay)."""


class CmpFIntToFPConst(RewritePattern):
    """cmpf(itofp(x), c) -> cmpi(x, int(c)) when the conversion cannot change the result."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpfOp, rewriter: PatternRewriter) -> None:
        flt = constant_attr(op.rhs)
        float_type = op.rhs.type
        if (
            not isinstance(flt, FloatAttr)
            or not isinstance(float_type, AnyFloat)
            or not foldable_float(float_type)
        ):
            return
        rhs = flt.value.data
        if math.isnan(rhs):
            return
        mantissa = mantissa_width(float_type)
        if mantissa <= 0:
            return
        if (si := defining(op.lhs, arith.SIToFPOp)) is not None:
            unsigned, int_val = False, si.input
        elif (ui := defining(op.lhs, arith.UIToFPOp)) is not None:
            unsigned, int_val = True, ui.input
        else:
            return
        int_type = int_val.type
        if not isa(int_type, IntegerType):
            return
        width = int_type.bitwidth
        value_bits = width if unsigned else width - 1
        if width > mantissa:
            # Conversion would lose accuracy: check whether that can change the result.
            if math.isinf(rhs):
                if _ilogb(_largest(float_type)) < value_bits:
                    return
            elif rhs != 0.0 and mantissa <= _ilogb(rhs) <= value_bits:
                return
        predicate = cmp_predicate(op)
        if predicate == 7:  # ord: int to fp conversion never makes a NaN
            self.constant(op, True, rewriter)
            return
        if predicate == 14:  # uno
            self.constant(op, False, rewriter)
            return
        if predicate not in _CMPF_TO_CMPI:
            return
        pred = _CMPF_TO_CMPI[predicate]
        if unsigned:
            pred = _TO_UNSIGNED.get(pred, pred)
        low = 0 if unsigned else -(1 << (width - 1))
        high = (1 << width) - 1 if unsigned else (1 << (width - 1)) - 1
        if int_to_float(high, float_type) < rhs:  # above the range
            self.constant(op, pred in (NE, ULT, ULE, SLT, SLE), rewriter)
            return
        if int_to_float(low, float_type) > rhs:  # below the range
            self.constant(op, pred in (NE, UGT, UGE, SGT, SGE), rewriter)
            return
        rhs_int = math.trunc(rhs)
        if not low <= rhs_int <= high:
            return
        if rhs != 0.0 and int_to_float(rhs_int, float_type) != rhs:
            # A fractional constant: adjust the predicate (rhs_int is rounded toward zero).
            negative = rhs < 0
            known = _FRACTIONAL_KNOWN.get(pred)
            if known is None and negative:
                known = _FRACTIONAL_KNOWN_WHEN_NEGATIVE.get(pred)
            if known is not None:
                self.constant(op, known, rewriter)
                return
            pred = _FRACTIONAL_ROUNDED[negative].get(pred, pred)
        rhs_attr = int_attr(rhs_int, int_type)
        assert rhs_attr is not None
        const = constant(rhs_attr)
        new = cmpi(pred, int_val, const.result, op.result.type)
        replace(rewriter, op, [const, new], [new.result])

    @staticmethod
    def constant(op: arith.CmpfOp, value: bool, rewriter: PatternRewriter) -> None:
        new = i1_constant(value)
        replace(rewriter, op, [new], [new.result])


def _ilogb(value: float) -> int:
    """``ilogb``: the unbiased exponent of a finite nonzero float."""
    return math.frexp(value)[1] - 1


def _largest(type: AnyFloat) -> float:
    bits = mantissa_width(type)
    exponent = {8: 127, 11: 15, 24: 127, 53: 1023}[bits]
    return (2.0 - 2.0 ** (1 - bits)) * 2.0**exponent


# ---------------------------------------------------------------------------
# The mirrored patterns: a class of each side their family's class takes


AddIMulNegativeOneRhs, AddIMulNegativeOneLhs = _AddIMulNegativeOne.variants(
    ("AddIMulNegativeOneRhs", "addi(x, muli(y, -1)) -> subi(x, y)", 1),
    ("AddIMulNegativeOneLhs", "addi(muli(x, -1), y) -> subi(y, x)", 0),
)


RedundantSelectFalse, RedundantSelectTrue = _RedundantSelect.variants(
    ("RedundantSelectFalse", "select(pred, a, select(pred, b, c)) -> select(pred, a, c)", 2),
    ("RedundantSelectTrue", "select(pred, select(pred, a, b), c) -> select(pred, a, c)", 1),
)
