"""MLIR's ``arith`` folders and canonicalization patterns.

Folders follow ``mlir/lib/Dialect/Arith/IR/ArithOps.cpp``; patterns follow the
DRR patterns of ``ArithCanonicalization.td`` and the C++ ones of ``ArithOps.cpp``
(``SelectToExtUI``, ``CmpFIntToFPConst``), as of the LLVM that Triton 3.6 builds
against; behaving as Triton 3.9, the folds its newer LLVM adds come too
(``_fold_newer_llvm``, ``mulf(x, 0)`` under ``nnan``/``nsz``).  Inside IREE's
passes they behave as IREE 3.13's LLVM (``passviz.dialects.llvm_version``):
the newer folds, and ``truncf(extf(x))`` left alone.  A DRR pattern's
benefit is the number of ops it matches, so the tables list an op's patterns
sorted by it as MLIR's applicator tries them.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from typing import ClassVar, TypeVar

from xdsl.dialects import arith, ub
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ShapedType,
    TensorType,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.utils.type import get_element_type_or_self

from passviz.dialects.llvm_version import iree_llvm, llvm_since
from passviz.dialects.matchers import (
    APInt,
    bool_attr,
    constant_attr,
    dense,
    float_value,
    foldable_float,
    int_attr,
    int_value,
    int_width,
    is_float_zero,
    is_i1_like,
    is_int,
    is_poison,
)
from passviz.dialects.triton_version import TritonVersion
from passviz.ir.hints import isa
from passviz.passes.canonicalization.builders import (
    ARITH_OP_NAMES,
    binary,
    cmpi,
    constant,
    i1_constant,
    registered,
    registered_by_name,
    select,
    unary,
)
from passviz.passes.canonicalization.folders import Scalar, fold_binary, fold_cast, fold_unary, round_float

FoldResult = Sequence[Attribute | SSAValue]
"""What a folder gives: [] when it changed the op in place, else one entry per result."""

Folder = Callable[[Operation], FoldResult | None]
"""An op's folder; None when it does not fold."""

_OpT = TypeVar("_OpT", bound=Operation)

# Predicates as MLIR numbers them (``arith::CmpIPredicate``, ``arith::CmpFPredicate``).
EQ, NE, SLT, SLE, SGT, SGE, ULT, ULE, UGT, UGE = range(10)
_CMPI_INVERSE = {
    EQ: NE,
    NE: EQ,
    SLT: SGE,
    SLE: SGT,
    SGT: SLE,
    SGE: SLT,
    ULT: UGE,
    ULE: UGT,
    UGT: ULE,
    UGE: ULT,
}
"""``invertPredicate``: the predicate of the negated comparison."""
_CMPI_SWAPPED = {
    SLT: SGT,
    SGT: SLT,
    SLE: SGE,
    SGE: SLE,
    ULT: UGT,
    UGT: ULT,
    ULE: UGE,
    UGE: ULE,
    EQ: EQ,
    NE: NE,
}
"""The predicate of the comparison with its operands swapped."""
_CMPI_TRUE_ON_EQUAL = frozenset({EQ, SLE, SGE, ULE, UGE})
"""``applyCmpPredicateToEqualOperands``."""


# ---------------------------------------------------------------------------
# Helpers


def _defining(value: SSAValue, kind: type[_OpT]) -> _OpT | None:
    """``value.getDefiningOp<kind>()``."""
    owner = value.owner
    return owner if isinstance(owner, kind) else None


def _operand_attrs(op: Operation) -> list[Attribute | None]:
    """The constant value of each operand (the folder's ``adaptor``)."""
    return [constant_attr(operand) for operand in op.operands]


IntAttr = IntegerAttr[IntegerType | IndexType]
"""A scalar integer attribute."""


def _int_attr(value: SSAValue) -> IntAttr | None:
    """``ConstantLikeMatcher APIntAttr``: a constant scalar integer."""
    attr = constant_attr(value)
    return attr if isa(attr, IntAttr) else None


def _zero_attr(type: Attribute) -> Attribute | None:
    """``Builder::getZeroAttr``: 0 (or a splat of it) of ``type``."""
    element = get_element_type_or_self(type)
    is_float = isinstance(element, AnyFloat)
    if isinstance(type, ShapedType):
        if not type.has_static_shape() or not (is_float or int_width(element) is not None):
            return None
        return dense(type, [0.0] if is_float else [0])
    if isinstance(element, AnyFloat):
        return FloatAttr(0.0, element)
    return int_attr(0, element)


def _result(attr: Attribute | None) -> FoldResult | None:
    return None if attr is None else [attr]


def _ints(fn: Callable[[APInt, APInt], APInt | None]) -> Callable[[Scalar, Scalar], Scalar | None]:
    """An element function on two integers."""

    def apply(a: Scalar, b: Scalar) -> Scalar | None:
        assert isinstance(a, APInt) and isinstance(b, APInt)
        return fn(a, b)

    return apply


def _floats(fn: Callable[[float, float], float | None]) -> Callable[[Scalar, Scalar], Scalar | None]:
    """An element function on two floats."""

    def apply(a: Scalar, b: Scalar) -> Scalar | None:
        assert isinstance(a, float) and isinstance(b, float)
        return fn(a, b)

    return apply


def _ieee(fn: Callable[[float, float], float]) -> Callable[[float, float], float]:
    """``fn`` with APFloat's NaNs: a NaN operand propagates, an invalid operation
    gives the positive default NaN (the host's may be negative)."""

    def apply(a: float, b: float) -> float:
        if math.isnan(a):
            return a
        if math.isnan(b):
            return b
        result = fn(a, b)
        return math.nan if math.isnan(result) else result

    return apply


def _overflow(op: Operation) -> frozenset[str]:
    flags = op.properties.get("overflowFlags")
    return flags.data if isinstance(flags, arith.IntegerOverflowAttr) else frozenset()


def _predicate(op: arith.CmpiOp | arith.CmpfOp) -> int:
    return op.predicate.value.data


# ---------------------------------------------------------------------------
# Integer arithmetic folders


def _fold_addi(op: Operation) -> FoldResult | None:
    lhs, rhs = op.operands
    a, b = _operand_attrs(op)
    if is_int(b, 0):  # addi(x, 0) -> x
        return [lhs]
    if (sub := _defining(lhs, arith.SubiOp)) and rhs == sub.rhs:  # addi(subi(a, b), b) -> a
        return [sub.lhs]
    if (sub := _defining(rhs, arith.SubiOp)) and lhs == sub.rhs:  # addi(b, subi(a, b)) -> a
        return [sub.lhs]
    return _result(fold_binary(a, b, "int", _ints(lambda x, y: APInt.of(x.bits + y.bits, x.width))))


def _fold_subi(op: Operation) -> FoldResult | None:
    lhs, rhs = op.operands
    a, b = _operand_attrs(op)
    if lhs == rhs and (zero := _zero_attr(op.results[0].type)) is not None:  # subi(x, x) -> 0
        return [zero]
    if is_int(b, 0):  # subi(x, 0) -> x
        return [lhs]
    if add := _defining(lhs, arith.AddiOp):
        if rhs == add.rhs:  # subi(addi(a, b), b) -> a
            return [add.lhs]
        if rhs == add.lhs:  # subi(addi(a, b), a) -> b
            return [add.rhs]
    return _result(fold_binary(a, b, "int", _ints(lambda x, y: APInt.of(x.bits - y.bits, x.width))))


def _fold_muli(op: Operation) -> FoldResult | None:
    lhs, rhs = op.operands
    a, b = _operand_attrs(op)
    if is_int(b, 0):  # muli(x, 0) -> 0
        return [rhs]
    if is_int(b, 1):  # muli(x, 1) -> x
        return [lhs]
    return _result(fold_binary(a, b, "int", _ints(lambda x, y: APInt.of(x.bits * y.bits, x.width))))


def _fold_div_mul(lhs: SSAValue, rhs: SSAValue, flag: str) -> SSAValue | None:
    """``foldDivMul``: ``(a * b) / b -> a`` when the multiplication cannot wrap."""
    mul = _defining(lhs, arith.MuliOp)
    if mul is None or flag not in _overflow(mul):
        return None
    if mul.lhs == rhs:
        return mul.rhs
    if mul.rhs == rhs:
        return mul.lhs
    return None


def _sdiv(x: APInt, y: APInt) -> APInt | None:
    """Signed division rounding toward zero; None on division by zero or overflow."""
    if y.is_zero() or (x.is_min_signed() and y.is_all_ones()):
        return None
    quotient = abs(x.signed) // abs(y.signed)
    return APInt.of(quotient if (x.signed < 0) == (y.signed < 0) else -quotient, x.width)


def _signed_in_range(value: int, width: int) -> bool:
    return -(1 << (width - 1)) <= value < (1 << (width - 1))


def _fold_divui(op: Operation) -> FoldResult | None:
    lhs, rhs = op.operands
    a, b = _operand_attrs(op)
    if is_int(b, 1):
        return [lhs]
    if (value := _fold_div_mul(lhs, rhs, "nuw")) is not None:
        return [value]
    return _result(
        fold_binary(
            a, b, "int", _ints(lambda x, y: None if y.is_zero() else APInt(x.width, x.bits // y.bits))
        )
    )


def _fold_divsi(op: Operation) -> FoldResult | None:
    lhs, rhs = op.operands
    a, b = _operand_attrs(op)
    if is_int(b, 1):
        return [lhs]
    if (value := _fold_div_mul(lhs, rhs, "nsw")) is not None:
        return [value]
    return _result(fold_binary(a, b, "int", _ints(_sdiv)))


def _ceildivui(x: APInt, y: APInt) -> APInt | None:
    if y.is_zero():
        return None
    quotient = -(-x.bits // y.bits)
    return APInt(x.width, quotient) if quotient < (1 << x.width) else None


def _ceildivsi(x: APInt, y: APInt) -> APInt | None:
    if y.is_zero():
        return None
    if x.is_zero():
        return x
    # MLIR gives up whenever an intermediate step overflows, MININT included.
    if x.is_min_signed() or y.is_min_signed():
        return None
    quotient = -(-x.signed // y.signed)
    return APInt.of(quotient, x.width) if _signed_in_range(quotient, x.width) else None


def _floordivsi(x: APInt, y: APInt) -> APInt | None:
    if y.is_zero():
        return None
    quotient = x.signed // y.signed
    return APInt.of(quotient, x.width) if _signed_in_range(quotient, x.width) else None


def _fold_ceildivui(op: Operation) -> FoldResult | None:
    a, b = _operand_attrs(op)
    if is_int(b, 1):
        return [op.operands[0]]
    return _result(fold_binary(a, b, "int", _ints(_ceildivui)))


def _fold_ceildivsi(op: Operation) -> FoldResult | None:
    a, b = _operand_attrs(op)
    if is_int(b, 1):
        return [op.operands[0]]
    return _result(fold_binary(a, b, "int", _ints(_ceildivsi)))


def _fold_floordivsi(op: Operation) -> FoldResult | None:
    a, b = _operand_attrs(op)
    if is_int(b, 1):
        return [op.operands[0]]
    return _result(fold_binary(a, b, "int", _ints(_floordivsi)))


def _srem(x: APInt, y: APInt) -> APInt | None:
    if y.is_zero():
        return None
    remainder = abs(x.signed) % abs(y.signed)
    return APInt.of(-remainder if x.signed < 0 else remainder, x.width)


def _fold_remui(op: Operation) -> FoldResult | None:
    a, b = _operand_attrs(op)
    if is_int(b, 1):  # remui(x, 1) -> 0
        return _result(_zero_attr(op.results[0].type))
    return _result(
        fold_binary(a, b, "int", _ints(lambda x, y: None if y.is_zero() else APInt(x.width, x.bits % y.bits)))
    )


def _fold_remsi(op: Operation) -> FoldResult | None:
    a, b = _operand_attrs(op)
    if is_int(b, 1):  # remsi(x, 1) -> 0
        return _result(_zero_attr(op.results[0].type))
    return _result(fold_binary(a, b, "int", _ints(_srem)))


def _is_not_of(value: SSAValue, of: SSAValue) -> bool:
    """``value`` is ``xori(of, <all ones>)``."""
    xor = _defining(value, arith.XOrIOp)
    if xor is None or xor.lhs != of:
        return False
    ones = int_value(constant_attr(xor.rhs))
    return ones is not None and ones.is_all_ones()


def _fold_andi(op: Operation) -> FoldResult | None:
    lhs, rhs = op.operands
    a, b = _operand_attrs(op)
    if is_int(b, 0):  # and(x, 0) -> 0
        return [rhs]
    if (ones := int_value(b)) is not None and ones.is_all_ones():  # and(x, allOnes) -> x
        return [lhs]
    if _is_not_of(rhs, lhs) or _is_not_of(lhs, rhs):  # and(x, not(x)) -> 0
        return _result(_zero_attr(op.results[0].type))
    for prev_value, other in ((lhs, rhs), (rhs, lhs)):  # and(a, and(a, b)) -> and(a, b)
        prev = _defining(prev_value, arith.AndIOp)
        if prev is not None and other in (prev.lhs, prev.rhs):
            return [prev.result]
    return _result(fold_binary(a, b, "int", _ints(lambda x, y: APInt(x.width, x.bits & y.bits))))


def _fold_ori(op: Operation) -> FoldResult | None:
    lhs, rhs = op.operands
    a, b = _operand_attrs(op)
    if (value := int_value(b)) is not None:
        if value.is_zero():  # or(x, 0) -> x
            return [lhs]
        if value.is_all_ones():  # or(x, <all ones>) -> <all ones>
            assert b is not None
            return [b]
    for x, maybe_not in ((lhs, rhs), (rhs, lhs)):  # or(x, xor(x, 1)) -> 1
        if _is_not_of(maybe_not, x):
            xor = _defining(maybe_not, arith.XOrIOp)
            assert xor is not None
            return [xor.rhs]
    return _result(fold_binary(a, b, "int", _ints(lambda x, y: APInt(x.width, x.bits | y.bits))))


def _fold_xori(op: Operation) -> FoldResult | None:
    lhs, rhs = op.operands
    a, b = _operand_attrs(op)
    if is_int(b, 0):  # xor(x, 0) -> x
        return [lhs]
    if lhs == rhs:  # xor(x, x) -> 0
        return _result(_zero_attr(op.results[0].type))
    if prev := _defining(lhs, arith.XOrIOp):  # xor(xor(x, a), a) -> x
        if prev.rhs == rhs:
            return [prev.lhs]
        if prev.lhs == rhs:
            return [prev.rhs]
    if prev := _defining(rhs, arith.XOrIOp):  # xor(a, xor(x, a)) -> x
        if prev.rhs == lhs:
            return [prev.lhs]
        if prev.lhs == lhs:
            return [prev.rhs]
    return _result(fold_binary(a, b, "int", _ints(lambda x, y: APInt(x.width, x.bits ^ y.bits))))


def _last_element(attr: Attribute | None) -> APInt | None:
    """The last element of a constant integer operand (the scalar, or a splat's value)."""
    if isa(attr, DenseIntOrFPElementsAttr):
        values = attr.get_values()
        width = int_width(attr.get_element_type())
        last = values[-1] if values else None
        return APInt.of(last, width) if isinstance(last, int) and width is not None else None
    return int_value(attr)


_DIVISIONS = frozenset(
    {"arith.divui", "arith.divsi", "arith.ceildivui", "arith.ceildivsi", "arith.floordivsi"}
)
"""The integer divisions, which Triton 3.9's LLVM folds at ``0 / x`` and ``x / x``."""

_REMAINDERS = frozenset({"arith.remui", "arith.remsi"})
"""The integer remainders, which Triton 3.9's LLVM folds at ``0 % x`` and ``x % x``."""

_SHIFTS = frozenset({"arith.shli", "arith.shrui", "arith.shrsi"})
"""The shifts, which Triton 3.9's LLVM folds at ``0 << x`` (and ``-1 >> x`` signed)."""


def _fold_newer_llvm(op: Operation) -> FoldResult | None:
    """Integer folds of Triton 3.9's LLVM that 3.6's lacks; tried before the others
    (but after ``x / 1 -> x``), in the order that LLVM's folders try them.

    ``x >> x`` is 0; ``0 / x``, ``0 % x`` and a shift of 0 are 0 (even for
    ``x = 0``); a signed shift right of all ones is all ones; ``x / x`` is 1 and
    ``x % x`` is 0.  Which of these answer with the operand and which with a new
    constant was read off Triton 3.9's output: it decides where constants land."""
    lhs, rhs = op.operands
    a, b = _operand_attrs(op)
    result_type = op.results[0].type
    if op.name in _DIVISIONS and is_int(b, 1):
        return None  # x / 1 -> x comes first
    if lhs == rhs and op.name in ("arith.shrui", "arith.shrsi"):
        # x >> x is 0: an amount below the width exceeds the bits left of it.
        return _result(_zero_attr(result_type))
    if op.name in _SHIFTS and is_int(a, 0):
        return [lhs]
    if op.name in _DIVISIONS and is_int(a, 0):
        return [lhs]
    if op.name in _REMAINDERS and is_int(a, 0):
        return _result(_zero_attr(result_type))
    if op.name == "arith.shrsi" and (ones := int_value(a)) is not None and ones.is_all_ones():
        return [lhs]
    if lhs != rhs:
        return None
    if op.name in _DIVISIONS:
        return _result(_one_attr(result_type))
    if op.name in _REMAINDERS:
        return _result(_zero_attr(result_type))
    return None


def _one_attr(type: Attribute) -> Attribute | None:
    """1 (or a splat of it) of the integer ``type``."""
    element = get_element_type_or_self(type)
    if int_width(element) is None:
        return None
    if isinstance(type, ShapedType):
        return dense(type, [1]) if type.has_static_shape() else None
    return int_attr(1, element)


def _with_newer_llvm_folds(folder: Folder) -> Folder:
    """``folder``, after ``_fold_newer_llvm`` when behaving as Triton 3.9."""

    def fold(op: Operation) -> FoldResult | None:
        if llvm_since((3, 9)) and (folded := _fold_newer_llvm(op)) is not None:
            return folded
        return folder(op)

    return fold


def _shift_folder(shift: Callable[[APInt, int], int]) -> Folder:
    """A shift's folder: ``x >> 0 -> x``; constants fold when the amount is below the width.

    MLIR's check is a flag each element overwrites, so over a dense amount only
    the last element's counts; APInt clamps the others to the width.
    """

    def fold(op: Operation) -> FoldResult | None:
        a, b = _operand_attrs(op)
        if is_int(b, 0):
            return [op.operands[0]]
        last = _last_element(b)
        if last is None or last.bits >= last.width:
            return None

        def element(x: APInt, y: APInt) -> APInt:
            return APInt.of(shift(x, min(y.bits, x.width)), x.width)

        return _result(fold_binary(a, b, "int", _ints(element)))

    return fold


def _min_max_folder(pick: Callable[[APInt, APInt], APInt], absorbing: str, identity: str) -> Folder:
    """A min/max folder: x op x -> x; x op <absorbing> -> <absorbing>; x op <identity> -> x."""

    def fold(op: Operation) -> FoldResult | None:
        lhs, rhs = op.operands
        a, b = _operand_attrs(op)
        if lhs == rhs:
            return [rhs]
        if (value := int_value(b)) is not None:
            if _is_extreme(value, absorbing):
                return [rhs]
            if _is_extreme(value, identity):
                return [lhs]
        return _result(fold_binary(a, b, "int", _ints(pick)))

    return fold


def _is_extreme(value: APInt, which: str) -> bool:
    if which == "smax":
        return value.is_max_signed()
    if which == "smin":
        return value.is_min_signed()
    if which == "umax":
        return value.is_all_ones()
    return value.is_zero()


# ---------------------------------------------------------------------------
# Float arithmetic folders


def _ieee_div(x: float, y: float) -> float:
    if y != 0.0:
        return x / y
    if x == 0.0 or math.isnan(x):
        return math.nan
    return math.copysign(math.inf, x) * math.copysign(1.0, y)


def _float_binary_folder(
    calc: Callable[[float, float], float], rhs_identity: Callable[[float | None], bool]
) -> Folder:
    """A float op's folder: ``x op <identity>`` -> x; constants fold."""

    def fold(op: Operation) -> FoldResult | None:
        a, b = _operand_attrs(op)
        if rhs_identity(float_value(b)):
            return [op.operands[0]]
        return _result(fold_binary(a, b, "float", _floats(calc)))

    return fold


def _fold_mulf(op: Operation) -> FoldResult | None:
    a, b = _operand_attrs(op)
    rhs = float_value(b)
    if rhs == 1.0:  # mulf(x, 1) -> x
        return [op.operands[0]]
    if llvm_since((3, 9)) and is_float_zero(rhs, negative=None) and _has_flags(op, "nnan", "nsz"):
        return [op.operands[1]]  # mulf(x, ±0) -> ±0 when NaNs and the sign of zero may be ignored
    return _result(fold_binary(a, b, "float", _floats(_ieee(lambda x, y: x * y))))


def _maxnum(x: float, y: float) -> float:
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    if x == y == 0.0:
        return y if math.copysign(1.0, x) < 0 else x
    return max(x, y)


def _minnum(x: float, y: float) -> float:
    if math.isnan(x):
        return y
    if math.isnan(y):
        return x
    if x == y == 0.0:
        return x if math.copysign(1.0, x) < 0 else y
    return min(x, y)


def _maximum(x: float, y: float) -> float:
    """``llvm::maximum``: NaN-propagating, -0 < +0."""
    if math.isnan(x):
        return x
    if math.isnan(y):
        return y
    return _maxnum(x, y)


def _minimum(x: float, y: float) -> float:
    """``llvm::minimum``: NaN-propagating, -0 < +0."""
    if math.isnan(x):
        return x
    if math.isnan(y):
        return y
    return _minnum(x, y)


def _float_min_max_folder(calc: Callable[[float, float], float], identity: Callable[[float], bool]) -> Folder:
    """``maximumf``/``maxnumf``/...: x op x -> x; x op <identity> -> x; constants fold."""

    def fold(op: Operation) -> FoldResult | None:
        lhs, rhs = op.operands
        a, b = _operand_attrs(op)
        if lhs == rhs:
            return [rhs]
        if (value := float_value(b)) is not None and identity(value):
            return [lhs]
        return _result(fold_binary(a, b, "float", _floats(calc)))

    return fold


def _fold_negf(op: Operation) -> FoldResult | None:
    if inner := _defining(op.operands[0], arith.NegfOp):  # negf(negf(x)) -> x
        return [inner.operand]
    (a,) = _operand_attrs(op)

    def negate(x: Scalar) -> Scalar:
        assert isinstance(x, float)
        return -x

    return _result(fold_unary(a, "float", negate))


# ---------------------------------------------------------------------------
# Cast folders


def _result_width(op: Operation) -> int:
    width = int_width(op.results[0].type)
    assert width is not None
    return width


def _fold_extui(op: Operation) -> FoldResult | None:
    if inner := _defining(op.operands[0], arith.ExtUIOp):  # extui(extui(x)) -> extui(x)
        op.operands = [inner.input]
        return []
    (a,) = _operand_attrs(op)
    width = _result_width(op)
    return _result(
        fold_cast(
            a, op.results[0].type, "int", lambda x: APInt(width, x.bits) if isinstance(x, APInt) else None
        )
    )


def _fold_extsi(op: Operation) -> FoldResult | None:
    if inner := _defining(op.operands[0], arith.ExtSIOp):  # extsi(extsi(x)) -> extsi(x)
        op.operands = [inner.input]
        return []
    (a,) = _operand_attrs(op)
    width = _result_width(op)
    return _result(
        fold_cast(
            a,
            op.results[0].type,
            "int",
            lambda x: APInt.of(x.signed, width) if isinstance(x, APInt) else None,
        )
    )


def _fold_trunci(op: Operation) -> FoldResult | None:
    operand = op.operands[0]
    width = _result_width(op)
    ext = _defining(operand, arith.ExtUIOp) or _defining(operand, arith.ExtSIOp)
    if ext is not None:
        src = ext.operands[0]
        if (int_width(src.type) or 0) > width:  # trunci(ext(a)) -> trunci(a)
            op.operands = [src]
            return []
        if get_element_type_or_self(src.type) == get_element_type_or_self(op.results[0].type):
            return [src]  # trunci(ext(a)) -> a
    if inner := _defining(operand, arith.TruncIOp):  # trunci(trunci(a)) -> trunci(a)
        op.operands = [inner.input]
        return []
    (a,) = _operand_attrs(op)
    return _result(
        fold_cast(
            a, op.results[0].type, "int", lambda x: APInt.of(x.bits, width) if isinstance(x, APInt) else None
        )
    )


def _float_type(type: Attribute) -> AnyFloat | None:
    element = get_element_type_or_self(type)
    return element if isinstance(element, AnyFloat) else None


def _float_width(type: AnyFloat) -> int:
    return type.bitwidth


def _convert_exact(target: AnyFloat) -> Callable[[Scalar], Scalar | None]:
    """``convertFloatValue``: a float converted to ``target`` when no information is lost."""

    def convert(x: Scalar) -> Scalar | None:
        assert isinstance(x, float)
        converted = round_float(x, target)
        if math.isnan(x):
            return converted
        return converted if converted == x else None

    return convert


def _has_contract(op: Operation) -> bool:
    return _has_flags(op, "contract")


def _has_flags(op: Operation, *names: str) -> bool:
    """Whether ``op``'s fastmath flags include all of ``names``."""
    flags = op.properties.get("fastmath")
    return isinstance(flags, arith.FastMathFlagsAttr) and all(name in flags.data for name in names)


def _fold_extf(op: Operation) -> FoldResult | None:
    trunc = _defining(op.operands[0], arith.TruncFOp)
    if (
        trunc is not None
        and trunc.input.type == op.results[0].type
        and _has_contract(trunc)
        and _has_contract(op)
    ):
        return [trunc.input]  # extf(truncf(x)) -> x, both contracted
    target = _float_type(op.results[0].type)
    if target is None or not foldable_float(target):
        return None
    (a,) = _operand_attrs(op)
    return _result(fold_cast(a, op.results[0].type, "float", _convert_exact(target)))


def _fold_truncf(op: Operation) -> FoldResult | None:
    target = _float_type(op.results[0].type)
    if target is None:
        return None
    # IREE 3.13's LLVM no longer folds truncf(extf(a)); Triton's still do.
    if not iree_llvm() and (ext := _defining(op.operands[0], arith.ExtFOp)):
        src = ext.input
        src_type = _float_type(src.type)
        if src_type is not None:
            # An extension is always exact, so the source is representable in between.
            if _float_width(src_type) > _float_width(target):  # truncf(extf(a)) -> truncf(a)
                op.operands = [src]
                return []
            if src_type == target:  # truncf(extf(a)) -> a
                return [src]
    if not foldable_float(target):
        return None
    (a,) = _operand_attrs(op)
    return _result(fold_cast(a, op.results[0].type, "float", _convert_exact(target)))


_MANTISSA_BITS = {16: 11, 32: 24, 64: 53}
"""Significand bits of the IEEE types by width (bf16, 16 bits wide, has 8)."""


def _int_to_float(value: int, target: AnyFloat) -> float:
    """``value`` rounded to nearest even in ``target``, with a single rounding."""
    bits = 8 if target.name == "bf16" else _MANTISSA_BITS[target.bitwidth]
    magnitude = abs(value)
    excess = magnitude.bit_length() - bits
    if excess > 0:
        # Round the integer itself to ``bits`` significant bits, ties to even.
        quotient, remainder = divmod(magnitude, 1 << excess)
        half = 1 << (excess - 1)
        if remainder > half or (remainder == half and quotient & 1):
            quotient += 1
        magnitude = quotient << excess
    try:
        result = float(magnitude)
    except OverflowError:
        result = math.inf
    return round_float(math.copysign(result, -1.0 if value < 0 else 1.0), target)


def _int_to_float_folder(signed: bool) -> Folder:
    def fold(op: Operation) -> FoldResult | None:
        target = _float_type(op.results[0].type)
        if target is None or not foldable_float(target):
            return None
        (a,) = _operand_attrs(op)

        def convert(x: Scalar) -> Scalar | None:
            assert isinstance(x, APInt)
            return _int_to_float(x.signed if signed else x.bits, target)

        return _result(fold_cast(a, op.results[0].type, "int", convert))

    return fold


def _float_to_int_folder(signed: bool) -> Folder:
    def fold(op: Operation) -> FoldResult | None:
        width = _result_width(op)
        (a,) = _operand_attrs(op)

        def convert(x: Scalar) -> Scalar | None:
            assert isinstance(x, float)
            if not math.isfinite(x):
                return None
            value = math.trunc(x)
            low, high = (-(1 << (width - 1)), 1 << (width - 1)) if signed else (0, 1 << width)
            return APInt.of(value, width) if low <= value < high else None

        return _result(fold_cast(a, op.results[0].type, "float", convert))

    return fold


def _index_cast_folder(signed: bool) -> Folder:
    """``index_cast`` (sign-extends or truncates) / ``index_castui`` (zero-extends)."""

    def fold(op: Operation) -> FoldResult | None:
        (a,) = _operand_attrs(op)
        width = _result_width(op)

        def convert(x: Scalar) -> Scalar | None:
            assert isinstance(x, APInt)
            return APInt.of(x.signed if signed else x.bits, width)

        return _result(fold_cast(a, op.results[0].type, "int", convert))

    return fold


def _fmod(x: float, y: float) -> float:
    """``APFloat::mod``: the remainder with the dividend's sign; NaN when invalid."""
    try:
        return math.fmod(x, y)
    except ValueError:
        return math.nan


def _fold_remf(op: Operation) -> FoldResult | None:
    a, b = _operand_attrs(op)
    return _result(fold_binary(a, b, "float", _floats(_ieee(_fmod))))


_PACK_FORMATS = {16: "<e", 32: "<f", 64: "<d"}


def _bits_to_float(bits: int, type: AnyFloat) -> float | None:
    if type.name == "bf16":
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    fmt = _PACK_FORMATS.get(type.bitwidth)
    if fmt is None:
        return None
    return struct.unpack(fmt, bits.to_bytes(type.bitwidth // 8, "little"))[0]


def _float_to_bits(value: float, type: AnyFloat) -> int | None:
    if type.name == "bf16":
        return struct.unpack("<I", struct.pack("<f", value))[0] >> 16
    fmt = _PACK_FORMATS.get(type.bitwidth)
    if fmt is None:
        return None
    return int.from_bytes(struct.pack(fmt, value), "little")


def _fold_bitcast(op: Operation) -> FoldResult | None:
    (a,) = _operand_attrs(op)
    if a is None:
        return None
    result_type = op.results[0].type
    if is_poison(a):
        return None if isinstance(result_type, ShapedType) else [ub.PoisonAttr()]
    source = get_element_type_or_self(op.operands[0].type)
    target = get_element_type_or_self(result_type)
    if isinstance(a, DenseIntOrFPElementsAttr) != isinstance(result_type, ShapedType):
        return None

    def convert(x: Scalar) -> Scalar | None:
        bits = (
            x.bits
            if isinstance(x, APInt)
            else _float_to_bits(x, source)
            if isinstance(source, AnyFloat)
            else None
        )
        if bits is None:
            return None
        if isinstance(target, AnyFloat):
            return _bits_to_float(bits, target)
        width = int_width(target)
        return None if width is None else APInt.of(bits, width)

    kind = "float" if isinstance(source, AnyFloat) else "int"
    return _result(fold_cast(a, result_type, kind, convert))


# ---------------------------------------------------------------------------
# Comparison and select folders


def _apply_cmpi(predicate: int, x: APInt, y: APInt) -> bool:
    match predicate:
        case 0:
            return x.bits == y.bits
        case 1:
            return x.bits != y.bits
        case 2:
            return x.signed < y.signed
        case 3:
            return x.signed <= y.signed
        case 4:
            return x.signed > y.signed
        case 5:
            return x.signed >= y.signed
        case 6:
            return x.bits < y.bits
        case 7:
            return x.bits <= y.bits
        case 8:
            return x.bits > y.bits
        case _:
            return x.bits >= y.bits


def _i1_same_shape(type: Attribute) -> Attribute:
    """``getI1SameShape``: ``i1``, or the shaped type with ``i1`` elements."""
    if isinstance(type, TensorType):
        return TensorType(IntegerType(1), type.get_shape(), type.encoding)
    if isinstance(type, VectorType):
        return VectorType(IntegerType(1), type.get_shape(), type.scalable_dims)
    return IntegerType(1)


def _ext_of_i1(value: SSAValue) -> SSAValue | None:
    """The ``i1`` (or vector of ``i1``) that ``extsi``/``extui`` extends to ``value``."""
    ext = _defining(value, arith.ExtSIOp) or _defining(value, arith.ExtUIOp)
    if ext is None:
        return None
    source = ext.operands[0]
    # MLIR's getIntegerWidth only looks at integers and vectors of them, not tensors.
    if isinstance(source.type, TensorType):
        return None
    return source if get_element_type_or_self(source.type) == IntegerType(1) else None


def _fold_cmpi(op: Operation) -> FoldResult | None:
    assert isinstance(op, arith.CmpiOp)
    lhs, rhs = op.lhs, op.rhs
    predicate = _predicate(op)
    if lhs == rhs:  # cmpi(pred, x, x)
        return _result(bool_attr(op.result.type, predicate in _CMPI_TRUE_ON_EQUAL))
    a, b = _operand_attrs(op)
    if is_int(b, 0):
        if predicate == NE and (source := _ext_of_i1(lhs)) is not None:  # ext(x : i1) != 0 -> x
            return [source]
        if is_i1_like(lhs.type) and predicate == NE:  # x != false -> x
            return [lhs]
    if is_int(b, 1) and is_i1_like(lhs.type) and predicate == EQ:  # x == true -> x
        return [lhs]
    if a is not None and b is None:  # Move the constant to the right.
        op.properties["predicate"] = IntegerAttr(_CMPI_SWAPPED[predicate], 64)
        op.operands = [rhs, lhs]
        return []
    if a is None or b is None:
        return None
    compare = _ints(lambda x, y: APInt(1, int(_apply_cmpi(predicate, x, y))))
    return _result(fold_binary(a, b, "int", compare, _i1_same_shape(op.operands[0].type)))


def _apply_cmpf(predicate: int, x: float, y: float) -> bool:
    unordered = math.isnan(x) or math.isnan(y)
    match predicate:
        case 0:
            return False
        case 15:
            return True
        case 7:
            return not unordered
        case 14:
            return unordered
        case _:
            pass
    ordered_result = {1: x == y, 2: x > y, 3: x >= y, 4: x < y, 5: x <= y, 6: x != y}
    if predicate <= 6:
        return not unordered and ordered_result[predicate]
    # ueq..une are the unordered forms of oeq..one (8 -> 1, ..., 13 -> 6).
    return unordered or ordered_result[predicate - 7]


def _fold_cmpf(op: Operation) -> FoldResult | None:
    assert isinstance(op, arith.CmpfOp)
    a, b = _operand_attrs(op)
    lhs = a if isa(a, FloatAttr[AnyFloat]) else None
    rhs = b if isa(b, FloatAttr[AnyFloat]) else None
    # If one operand is NaN, making them both NaN does not change the result.
    if lhs is not None and math.isnan(lhs.value.data):
        rhs = lhs
    if rhs is not None and math.isnan(rhs.value.data):
        lhs = rhs
    if lhs is None or rhs is None:
        return None
    value = _apply_cmpf(_predicate(op), lhs.value.data, rhs.value.data)
    return [IntegerAttr(int(value), IntegerType(1), truncate_bits=True)]


def _fold_select(op: Operation) -> FoldResult | None:
    assert isinstance(op, arith.SelectOp)
    cond, true_value, false_value = op.cond, op.lhs, op.rhs
    if true_value == false_value:
        return [true_value]
    c, t, f = _operand_attrs(op)
    if is_int(c, 1):  # select true, %0, %1 => %0
        return [true_value]
    if is_int(c, 0):  # select false, %0, %1 => %1
        return [false_value]
    if is_poison(t):  # If either operand is fully poisoned, return the other.
        return [false_value]
    if is_poison(f):
        return [true_value]
    result_type = op.result.type
    if isinstance(result_type, IntegerType) and result_type.bitwidth == 1 and is_int(t, 1) and is_int(f, 0):
        return [cond]  # select %x, true, false => %x
    if cmp := _defining(cond, arith.CmpiOp):
        predicate = _predicate(cmp)
        if predicate in (EQ, NE) and {cmp.lhs, cmp.rhs} == {true_value, false_value} and cmp.lhs != cmp.rhs:
            return [true_value if predicate == NE else false_value]
    return _result(_select_elements(c, t, f, op.result.type))


def _select_elements(
    cond: Attribute | None, true_attr: Attribute | None, false_attr: Attribute | None, type: Attribute
) -> Attribute | None:
    """Constant-fold a select over a non-splat constant condition."""
    if not (
        isinstance(cond, DenseIntOrFPElementsAttr)
        and isinstance(true_attr, DenseIntOrFPElementsAttr)
        and isinstance(false_attr, DenseIntOrFPElementsAttr)
    ):
        return None
    picks = cond.get_values()
    chosen = [
        t if p else f for p, t, f in zip(picks, true_attr.get_values(), false_attr.get_values(), strict=True)
    ]
    return dense(type, chosen)  # pyright: ignore[reportArgumentType]


def _fold_constant(op: Operation) -> FoldResult | None:
    assert isinstance(op, arith.ConstantOp)
    return [op.value]


# ---------------------------------------------------------------------------
# Trait folders (``Commutative``, ``Idempotent``): tried when the op's own folder
# fails or folds in place, as ``Op::foldSingleResultHook`` does.


def _fold_commutative(op: Operation) -> FoldResult | None:
    """``foldCommutative``: move constant operands to the end, keeping their order."""
    operands = list(op.operands)
    constant = [constant_attr(operand) is not None for operand in operands]
    first = next((i for i, c in enumerate(constant) if c), len(operands))
    tail = operands[first:]
    reordered = [v for v, c in zip(tail, constant[first:], strict=True) if not c]
    reordered += [v for v, c in zip(tail, constant[first:], strict=True) if c]
    if reordered == tail:
        return None
    op.operands = operands[:first] + reordered
    return []


def _fold_idempotent(op: Operation) -> FoldResult | None:
    """``foldIdempotent`` for a binary op: ``op(x, x) -> x``."""
    return [op.operands[0]] if op.operands[0] == op.operands[1] else None


def _with_traits(fold: Folder, *traits: Folder) -> Folder:
    def fold_with_traits(op: Operation) -> FoldResult | None:
        result = fold(op)
        if result:
            return result
        for trait in traits:
            if (folded := trait(op)) is not None:
                return folded
        return result

    return fold_with_traits


def _commutative(fold: Folder) -> Folder:
    return _with_traits(fold, _fold_commutative)


def _fold_identity_cast(op: Operation) -> FoldResult | None:
    """``CastOpInterface``'s trait folder: a cast to its operand's type is that operand."""
    if op.operand_types != op.result_types:
        return None
    return list(op.operands)


def _cast(fold: Folder) -> Folder:
    return _with_traits(fold, _fold_identity_cast)


# ---------------------------------------------------------------------------
# Patterns (ArithCanonicalization.td), named as MLIR names them.


def _add_int_attrs(type: Attribute, a: IntAttr, b: IntAttr, sign: int = 1) -> IntAttr:
    """``addIntegerAttrs`` / ``subIntegerAttrs`` (``sign=-1``): the result has ``type``."""
    result = int_attr(a.value.data + sign * b.value.data, type)
    assert result is not None
    return result


def _replace(
    rewriter: PatternRewriter, root: Operation, new_ops: Sequence[Operation], values: Sequence[SSAValue]
) -> None:
    rewriter.replace(root, list(new_ops), list(values))


class AddIAddConstant(RewritePattern):
    """addi(addi(x, c0), c1) -> addi(x, c0 + c1)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.lhs, arith.AddiOp)
        if inner is None or (c0 := _int_attr(inner.rhs)) is None or (c1 := _int_attr(op.rhs)) is None:
            return
        const = constant(_add_int_attrs(op.result.type, c0, c1))
        new = binary(arith.AddiOp, inner.lhs, const.result, _overflow(inner) & _overflow(op))
        _replace(rewriter, op, [const, new], [new.result])


class AddISubConstantRHS(RewritePattern):
    """addi(subi(x, c0), c1) -> addi(x, c1 - c0)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.lhs, arith.SubiOp)
        if inner is None or (c0 := _int_attr(inner.rhs)) is None or (c1 := _int_attr(op.rhs)) is None:
            return
        const = constant(_add_int_attrs(op.result.type, c1, c0, -1))
        new = binary(arith.AddiOp, inner.lhs, const.result, _overflow(inner) & _overflow(op))
        _replace(rewriter, op, [const, new], [new.result])


class AddISubConstantLHS(RewritePattern):
    """addi(subi(c0, x), c1) -> subi(c0 + c1, x)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.lhs, arith.SubiOp)
        if inner is None or (c0 := _int_attr(inner.lhs)) is None or (c1 := _int_attr(op.rhs)) is None:
            return
        const = constant(_add_int_attrs(op.result.type, c0, c1))
        new = binary(arith.SubiOp, const.result, inner.rhs, _overflow(inner) & _overflow(op))
        _replace(rewriter, op, [const, new], [new.result])


def _is_negative_one(value: SSAValue) -> bool:
    """``IsScalarOrSplatNegativeOne`` of a constant."""
    found = int_value(constant_attr(value))
    return found is not None and found.is_all_ones()


class AddIMulNegativeOneRhs(RewritePattern):
    """addi(x, muli(y, -1)) -> subi(x, y)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter) -> None:
        mul = _defining(op.rhs, arith.MuliOp)
        if mul is None or not _is_negative_one(mul.rhs):
            return
        new = binary(arith.SubiOp, op.lhs, mul.lhs, frozenset())
        _replace(rewriter, op, [new], [new.result])


class AddIMulNegativeOneLhs(RewritePattern):
    """addi(muli(x, -1), y) -> subi(y, x)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter) -> None:
        mul = _defining(op.lhs, arith.MuliOp)
        if mul is None or not _is_negative_one(mul.rhs):
            return
        new = binary(arith.SubiOp, op.rhs, mul.lhs, frozenset())
        _replace(rewriter, op, [new], [new.result])


class MulIMulIConstant(RewritePattern):
    """muli(muli(x, c0), c1) -> muli(x, c0 * c1)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.MuliOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.lhs, arith.MuliOp)
        if inner is None or (c0 := _int_attr(inner.rhs)) is None or (c1 := _int_attr(op.rhs)) is None:
            return
        type = op.result.type
        if c0.type != type or c1.type != type:
            return
        product = int_attr(c0.value.data * c1.value.data, type)
        assert product is not None
        const = constant(product)
        new = binary(arith.MuliOp, inner.lhs, const.result, _overflow(inner) & _overflow(op))
        _replace(rewriter, op, [const, new], [new.result])


class SubIRHSAddConstant(RewritePattern):
    """subi(addi(x, c0), c1) -> addi(x, c0 - c1)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SubiOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.lhs, arith.AddiOp)
        if inner is None or (c0 := _int_attr(inner.rhs)) is None or (c1 := _int_attr(op.rhs)) is None:
            return
        const = constant(_add_int_attrs(op.result.type, c0, c1, -1))
        new = binary(arith.AddiOp, inner.lhs, const.result, frozenset())
        _replace(rewriter, op, [const, new], [new.result])


class SubILHSAddConstant(RewritePattern):
    """subi(c1, addi(x, c0)) -> subi(c1 - c0, x)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SubiOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.rhs, arith.AddiOp)
        if (c1 := _int_attr(op.lhs)) is None or inner is None or (c0 := _int_attr(inner.rhs)) is None:
            return
        const = constant(_add_int_attrs(op.result.type, c1, c0, -1))
        new = binary(arith.SubiOp, const.result, inner.lhs, _overflow(inner) & _overflow(op))
        _replace(rewriter, op, [const, new], [new.result])


class SubIRHSSubConstantRHS(RewritePattern):
    """subi(subi(x, c0), c1) -> subi(x, c0 + c1)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SubiOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.lhs, arith.SubiOp)
        if inner is None or (c0 := _int_attr(inner.rhs)) is None or (c1 := _int_attr(op.rhs)) is None:
            return
        const = constant(_add_int_attrs(op.result.type, c0, c1))
        new = binary(arith.SubiOp, inner.lhs, const.result, _overflow(inner) & _overflow(op))
        _replace(rewriter, op, [const, new], [new.result])


class SubIRHSSubConstantLHS(RewritePattern):
    """subi(subi(c0, x), c1) -> subi(c0 - c1, x)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SubiOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.lhs, arith.SubiOp)
        if inner is None or (c0 := _int_attr(inner.lhs)) is None or (c1 := _int_attr(op.rhs)) is None:
            return
        const = constant(_add_int_attrs(op.result.type, c0, c1, -1))
        new = binary(arith.SubiOp, const.result, inner.rhs, _overflow(inner) & _overflow(op))
        _replace(rewriter, op, [const, new], [new.result])


class SubILHSSubConstantRHS(RewritePattern):
    """subi(c1, subi(x, c0)) -> subi(c0 + c1, x)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SubiOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.rhs, arith.SubiOp)
        if (c1 := _int_attr(op.lhs)) is None or inner is None or (c0 := _int_attr(inner.rhs)) is None:
            return
        const = constant(_add_int_attrs(op.result.type, c0, c1))
        new = binary(arith.SubiOp, const.result, inner.lhs, _overflow(inner) & _overflow(op))
        _replace(rewriter, op, [const, new], [new.result])


class SubILHSSubConstantLHS(RewritePattern):
    """subi(c1, subi(c0, x)) -> addi(x, c1 - c0)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SubiOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.rhs, arith.SubiOp)
        if (c1 := _int_attr(op.lhs)) is None or inner is None or (c0 := _int_attr(inner.lhs)) is None:
            return
        const = constant(_add_int_attrs(op.result.type, c1, c0, -1))
        new = binary(arith.AddiOp, inner.rhs, const.result, _overflow(inner) & _overflow(op))
        _replace(rewriter, op, [const, new], [new.result])


class SubISubILHSRHSLHS(RewritePattern):
    """subi(subi(a, b), a) -> subi(0, b)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SubiOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.lhs, arith.SubiOp)
        if inner is None or inner.lhs != op.rhs or (zero := _zero_attr(inner.rhs.type)) is None:
            return
        const = constant(zero)
        new = binary(arith.SubiOp, const.result, inner.rhs, _overflow(inner) & _overflow(op))
        _replace(rewriter, op, [const, new], [new.result])


def _ext_pair(
    op: Operation, kind: type[arith.ExtUIOp] | type[arith.ExtSIOp]
) -> tuple[SSAValue, SSAValue] | None:
    """The sources of ``op(ext(x), ext(y))`` when ``x`` and ``y`` have one type."""
    lhs, rhs = (_defining(operand, kind) for operand in op.operands)
    if lhs is None or rhs is None or lhs.input.type != rhs.input.type:
        return None
    return lhs.input, rhs.input


def _ext_of_binary_pattern(
    name: str, kind: type[Operation], ext: type[arith.ExtUIOp] | type[arith.ExtSIOp], doc: str
) -> type[RewritePattern]:
    """``binop(ext(x), ext(y)) -> ext(binop(x, y))`` (``AndOfExtUI``, ``XOrIOfExtSI``, ...)."""

    def match_and_rewrite(self: RewritePattern, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, kind) or (sources := _ext_pair(op, ext)) is None:
            return
        inner = binary(kind, *sources)
        outer = unary(ext, inner.results[0], op.results[0].type)
        _replace(rewriter, op, [inner, outer], [outer.results[0]])

    return type(name, (RewritePattern,), {"__doc__": doc, "match_and_rewrite": match_and_rewrite})


AndOfExtUI = _ext_of_binary_pattern(
    "AndOfExtUI", arith.AndIOp, arith.ExtUIOp, "and(extui(x), extui(y)) -> extui(and(x, y))"
)
AndOfExtSI = _ext_of_binary_pattern(
    "AndOfExtSI", arith.AndIOp, arith.ExtSIOp, "and(extsi(x), extsi(y)) -> extsi(and(x, y))"
)
OrOfExtUI = _ext_of_binary_pattern(
    "OrOfExtUI", arith.OrIOp, arith.ExtUIOp, "or(extui(x), extui(y)) -> extui(or(x, y))"
)
OrOfExtSI = _ext_of_binary_pattern(
    "OrOfExtSI", arith.OrIOp, arith.ExtSIOp, "or(extsi(x), extsi(y)) -> extsi(or(x, y))"
)
XOrIOfExtUI = _ext_of_binary_pattern(
    "XOrIOfExtUI", arith.XOrIOp, arith.ExtUIOp, "xor(extui(x), extui(y)) -> extui(xor(x, y))"
)
XOrIOfExtSI = _ext_of_binary_pattern(
    "XOrIOfExtSI", arith.XOrIOp, arith.ExtSIOp, "xor(extsi(x), extsi(y)) -> extsi(xor(x, y))"
)


def _is_i1(value: SSAValue, truth: bool) -> bool:
    """``ConstantAttr<I1Attr, "1">`` (or ``"0"``): the scalar ``i1`` constant ``truth``."""
    attr = _int_attr(value)
    return attr is not None and attr.type == IntegerType(1) and (attr.value.data != 0) == truth


class XOrINotCmpI(RewritePattern):
    """not(cmpi(pred, a, b)) -> cmpi(~pred, a, b), where not(x) is xori(x, 1)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.XOrIOp, rewriter: PatternRewriter) -> None:
        cmp = _defining(op.lhs, arith.CmpiOp)
        if cmp is None or not _is_i1(op.rhs, True):
            return
        new = cmpi(_CMPI_INVERSE[_predicate(cmp)], cmp.lhs, cmp.rhs, op.result.type)
        _replace(rewriter, op, [new], [new.result])


def _cmpi_ext_pattern(
    name: str, ext: type[arith.ExtUIOp] | type[arith.ExtSIOp], doc: str
) -> type[RewritePattern]:
    """``cmpi(eq|ne, ext(a), ext(b)) -> cmpi(eq|ne, a, b)``."""

    def match_and_rewrite(self: RewritePattern, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.CmpiOp) or (sources := _ext_pair(op, ext)) is None:
            return
        if _predicate(op) not in (EQ, NE):
            return
        new = cmpi(_predicate(op), *sources, op.result.type)
        _replace(rewriter, op, [new], [new.result])

    return type(name, (RewritePattern,), {"__doc__": doc, "match_and_rewrite": match_and_rewrite})


CmpIExtSI = _cmpi_ext_pattern(
    "CmpIExtSI", arith.ExtSIOp, "cmpi(== or !=, extsi(a), extsi(b)) -> cmpi(== or !=, a, b)"
)
CmpIExtUI = _cmpi_ext_pattern(
    "CmpIExtUI", arith.ExtUIOp, "cmpi(== or !=, extui(a), extui(b)) -> cmpi(== or !=, a, b)"
)


class RedundantSelectFalse(RewritePattern):
    """select(pred, a, select(pred, b, c)) -> select(pred, a, c)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.rhs, arith.SelectOp)
        if inner is None or inner.cond != op.cond:
            return
        new = select(op.cond, op.lhs, inner.rhs)
        _replace(rewriter, op, [new], [new.result])


class RedundantSelectTrue(RewritePattern):
    """select(pred, select(pred, a, b), c) -> select(pred, a, c)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.lhs, arith.SelectOp)
        if inner is None or inner.cond != op.cond:
            return
        new = select(op.cond, inner.lhs, op.rhs)
        _replace(rewriter, op, [new], [new.result])


class SelectNotCond(RewritePattern):
    """select(not(pred), a, b) -> select(pred, b, a)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter) -> None:
        xor = _defining(op.cond, arith.XOrIOp)
        if xor is None or _int_attr(xor.rhs) is None or not _is_negative_one(xor.rhs):
            return
        new = select(xor.lhs, op.rhs, op.lhs)
        _replace(rewriter, op, [new], [new.result])


class SelectI1ToNot(RewritePattern):
    """select(pred, false, true) -> not(pred)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter) -> None:
        if not _is_i1(op.lhs, False) or not _is_i1(op.rhs, True):
            return
        const = i1_constant(True)
        new = binary(arith.XOrIOp, op.cond, const.result)
        _replace(rewriter, op, [const, new], [new.result])


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
            _replace(rewriter, op, [new], [new.result])
        elif is_int(t, 0) and is_int(f, 1):
            one = int_attr(1, op.cond.type)
            assert one is not None
            const = constant(one)
            xor = binary(arith.XOrIOp, op.cond, const.result)
            new = unary(arith.ExtUIOp, xor.result, op.result.type)
            _replace(rewriter, op, [const, xor, new], [new.result])


class SelectToMinMax(RewritePattern):
    """select(cmpi(p, a, b), a, b) -> min/max(a, b), by the predicate's sign and
    direction (either value order); Triton 3.9's LLVM has it, 3.6's not."""

    since: ClassVar[TritonVersion] = (3, 9)
    """The Triton release whose LLVM has the pattern (``patterns_for`` leaves it out before)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter) -> None:
        cmp = _defining(op.cond, arith.CmpiOp)
        if cmp is None or (predicate := _predicate(cmp)) in (EQ, NE):
            return
        if (op.lhs, op.rhs) == (cmp.lhs, cmp.rhs):
            lhs_is_true = True
        elif (op.lhs, op.rhs) == (cmp.rhs, cmp.lhs):
            lhs_is_true = False
        else:
            return
        less = predicate in (SLT, SLE, ULT, ULE)
        signed = predicate in (SLT, SLE, SGT, SGE)
        kinds = {
            (True, True): arith.MinSIOp,
            (True, False): arith.MinUIOp,
            (False, True): arith.MaxSIOp,
            (False, False): arith.MaxUIOp,
        }
        new = binary(kinds[less == lhs_is_true, signed], cmp.lhs, cmp.rhs)
        _replace(rewriter, op, [new], [new.result])


class _BitwiseConstantChain(RewritePattern):
    """``op(op(x, c0), c1) -> op(x, combine(c0, c1))`` for a bitwise ``op``;
    Triton 3.9's LLVM has these, 3.6's not."""

    since: ClassVar[TritonVersion] = (3, 9)
    """The Triton release whose LLVM has the pattern (``patterns_for`` leaves it out before)."""

    op_type: ClassVar[type[arith.XOrIOp] | type[arith.AndIOp] | type[arith.OrIOp]]
    """The bitwise op."""

    @staticmethod
    def combine(a: int, b: int) -> int:
        """The constant that ``op`` by ``a`` then by ``b`` amounts to."""
        raise NotImplementedError

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, self.op_type):
            return
        inner = _defining(op.lhs, self.op_type)
        if inner is None or (c0 := _int_attr(inner.rhs)) is None or (c1 := _int_attr(op.rhs)) is None:
            return
        combined = int_attr(self.combine(c0.value.data, c1.value.data), op.result.type)
        assert combined is not None
        const = constant(combined)
        new = binary(self.op_type, inner.lhs, const.result)
        _replace(rewriter, op, [const, new], [new.result])


class XOrIXOrIConstant(_BitwiseConstantChain):
    """xori(xori(x, c0), c1) -> xori(x, c0 ^ c1)"""

    op_type = arith.XOrIOp

    @staticmethod
    def combine(a: int, b: int) -> int:
        return a ^ b


class AndIAndIConstant(_BitwiseConstantChain):
    """andi(andi(x, c0), c1) -> andi(x, c0 & c1)"""

    op_type = arith.AndIOp

    @staticmethod
    def combine(a: int, b: int) -> int:
        return a & b


class OrIOrIConstant(_BitwiseConstantChain):
    """ori(ori(x, c0), c1) -> ori(x, c0 | c1)"""

    op_type = arith.OrIOp

    @staticmethod
    def combine(a: int, b: int) -> int:
        return a | b


class IndexCastOfIndexCast(RewritePattern):
    """index_cast(index_cast(x)) -> x, if dstType == srcType."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.IndexCastOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.input, arith.IndexCastOp)
        if inner is None or inner.input.type != op.result.type:
            return
        _replace(rewriter, op, [], [inner.input])


class IndexCastOfExtSI(RewritePattern):
    """index_cast(extsi(x)) -> index_cast(x)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.IndexCastOp, rewriter: PatternRewriter) -> None:
        ext = _defining(op.input, arith.ExtSIOp)
        if ext is None:
            return
        new = unary(arith.IndexCastOp, ext.input, op.result.type)
        _replace(rewriter, op, [new], [new.result])


def _index_castui() -> type[Operation]:
    """``arith.index_castui``, which only passviz's arith dialect has."""
    return registered_by_name("arith.index_castui")


class IndexCastUIOfIndexCastUI(RewritePattern):
    """index_castui(index_castui(x)) -> x, if dstType == srcType."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "arith.index_castui":
            return
        inner = op.operands[0].owner
        if not isinstance(inner, Operation) or inner.name != op.name:
            return
        if inner.operands[0].type != op.results[0].type:
            return
        _replace(rewriter, op, [], [inner.operands[0]])


class IndexCastUIOfExtUI(RewritePattern):
    """index_castui(extui(x)) -> index_castui(x)"""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "arith.index_castui" or (ext := _defining(op.operands[0], arith.ExtUIOp)) is None:
            return
        new = _index_castui().create(operands=[ext.input], result_types=[op.results[0].type])
        _replace(rewriter, op, [new], [new.results[0]])


class BitcastOfBitcast(RewritePattern):
    """bitcast(type1, bitcast(type2, x)) -> bitcast(type1, x)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.BitcastOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.input, arith.BitcastOp)
        if inner is None:
            return
        new = unary(arith.BitcastOp, inner.input, op.result.type)
        _replace(rewriter, op, [new], [new.result])


class ExtSIOfExtUI(RewritePattern):
    """extsi(extui(x iN : iM) : iL) -> extui(x : iL)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.ExtSIOp, rewriter: PatternRewriter) -> None:
        inner = _defining(op.input, arith.ExtUIOp)
        if inner is None:
            return
        new = unary(arith.ExtUIOp, inner.input, op.result.type)
        _replace(rewriter, op, [new], [new.result])


def _width(value: SSAValue) -> int:
    """``getScalarOrElementWidth``: -1 for types that are neither int nor float."""
    element = get_element_type_or_self(value.type)
    if isinstance(element, IntegerType):
        return element.bitwidth
    if isinstance(element, AnyFloat):
        return element.bitwidth
    return -1


def _trunci_of_ext_pattern(
    name: str, ext: type[arith.ExtUIOp] | type[arith.ExtSIOp], doc: str
) -> type[RewritePattern]:
    """``trunci(ext(x)) -> ext(x)`` when only extension bits are truncated."""

    def match_and_rewrite(self: RewritePattern, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.TruncIOp) or (inner := _defining(op.input, ext)) is None:
            return
        tr, extended, source = _width(op.result), _width(inner.result), _width(inner.input)
        if not (extended > tr > 0 and tr > source > 0):
            return
        new = unary(ext, inner.input, op.result.type)
        _replace(rewriter, op, [new], [new.results[0]])

    return type(name, (RewritePattern,), {"__doc__": doc, "match_and_rewrite": match_and_rewrite})


TruncIExtSIToExtSI = _trunci_of_ext_pattern(
    "TruncIExtSIToExtSI", arith.ExtSIOp, "trunci(extsi(x)) -> extsi(x)"
)
TruncIExtUIToExtUI = _trunci_of_ext_pattern(
    "TruncIExtUIToExtUI", arith.ExtUIOp, "trunci(extui(x)) -> extui(x)"
)


class TruncIShrSIToTrunciShrUI(RewritePattern):
    """trunci(shrsi(x, c)) -> trunci(shrui(x, c)) when c is the number of bits dropped."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.TruncIOp, rewriter: PatternRewriter) -> None:
        shift = _defining(op.input, arith.ShRSIOp)
        if shift is None or (c0 := constant_attr(shift.rhs)) is None:
            return
        amount = int_value(c0)
        if amount is None or _width(shift.lhs) - _width(op.result) != amount.bits:
            return
        const = constant(c0)
        shrui = binary(arith.ShRUIOp, shift.lhs, const.result)
        flags = op.properties.get("overflowFlags")
        new = unary(arith.TruncIOp, shrui.result, op.result.type, {"overflowFlags": flags} if flags else None)
        _replace(rewriter, op, [const, shrui, new], [new.result])


def _truncf_of_int_to_fp_pattern(
    name: str, cast: type[arith.SIToFPOp] | type[arith.UIToFPOp], doc: str
) -> type[RewritePattern]:
    """``truncf(itofp(x)) -> itofp(x)`` with the default rounding mode."""

    def match_and_rewrite(self: RewritePattern, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.TruncFOp) or (inner := _defining(op.input, cast)) is None:
            return
        if "roundingmode" in op.properties or "roundingmode" in op.attributes:
            return
        new = unary(cast, inner.input, op.result.type)
        _replace(rewriter, op, [new], [new.results[0]])

    return type(name, (RewritePattern,), {"__doc__": doc, "match_and_rewrite": match_and_rewrite})


TruncFSIToFPToSIToFP = _truncf_of_int_to_fp_pattern(
    "TruncFSIToFPToSIToFP", arith.SIToFPOp, "truncf(sitofp(x)) -> sitofp(x)"
)
TruncFUIToFPToUIToFP = _truncf_of_int_to_fp_pattern(
    "TruncFUIToFPToUIToFP", arith.UIToFPOp, "truncf(uitofp(x)) -> uitofp(x)"
)


def _of_negf_pattern(
    name: str, kind: type[arith.MulfOp] | type[arith.DivfOp], doc: str
) -> type[RewritePattern]:
    """``op(negf(x), negf(y)) -> op(x, y)``, keeping the op's fastmath flags."""

    def match_and_rewrite(self: RewritePattern, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, kind):
            return
        lhs, rhs = _defining(op.lhs, arith.NegfOp), _defining(op.rhs, arith.NegfOp)
        if lhs is None or rhs is None or lhs.operand.type != rhs.operand.type:
            return
        new = registered(kind).create(
            operands=[lhs.operand, rhs.operand],
            result_types=[op.result.type],
            properties={"fastmath": op.fastmath},
        )
        _replace(rewriter, op, [new], [new.result])

    return type(name, (RewritePattern,), {"__doc__": doc, "match_and_rewrite": match_and_rewrite})


MulFOfNegF = _of_negf_pattern("MulFOfNegF", arith.MulfOp, "mulf(negf(x), negf(y)) -> mulf(x, y)")
DivFOfNegF = _of_negf_pattern("DivFOfNegF", arith.DivfOp, "divf(negf(x), negf(y)) -> divf(x, y)")


class AddUIExtendedToAddI(RewritePattern):
    """addui_extended(x, y) -> [addi(x, y), x] when the overflow result is unused."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddUIExtendedOp, rewriter: PatternRewriter) -> None:
        if op.overflow.uses:
            return
        new = binary(arith.AddiOp, op.lhs, op.rhs, frozenset())
        _replace(rewriter, op, [new], [new.result, op.lhs])


def _mul_extended_to_muli(name: str, kind: type[arith.MulExtendedBase], doc: str) -> type[RewritePattern]:
    """``mul*i_extended(x, y) -> [muli(x, y), x]`` when the high result is unused."""

    def match_and_rewrite(self: RewritePattern, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, kind) or op.high.uses:
            return
        new = binary(arith.MuliOp, op.lhs, op.rhs, frozenset())
        _replace(rewriter, op, [new], [new.result, op.lhs])

    return type(name, (RewritePattern,), {"__doc__": doc, "match_and_rewrite": match_and_rewrite})


MulSIExtendedToMulI = _mul_extended_to_muli(
    "MulSIExtendedToMulI", arith.MulSIExtendedOp, "mulsi_extended(x, y) -> [muli(x, y), x]"
)
MulUIExtendedToMulI = _mul_extended_to_muli(
    "MulUIExtendedToMulI", arith.MulUIExtendedOp, "mului_extended(x, y) -> [muli(x, y), x]"
)


class MulSIExtendedRHSOne(RewritePattern):
    """mulsi_extended(x, 1) -> [x, extsi(cmpi slt, x, 0)]"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.MulSIExtendedOp, rewriter: PatternRewriter) -> None:
        one = int_value(constant_attr(op.rhs))
        if one is None or one.signed != 1 or (zero := _zero_attr(op.lhs.type)) is None:
            return
        const = constant(zero)
        cmp = cmpi(SLT, op.lhs, const.result, _i1_same_shape(op.lhs.type))
        ext = unary(arith.ExtSIOp, cmp.result, op.lhs.type)
        _replace(rewriter, op, [const, cmp, ext], [op.lhs, ext.result])


# ---------------------------------------------------------------------------
# Extended arithmetic folders


def _fold_addui_extended(op: Operation) -> FoldResult | None:
    assert isinstance(op, arith.AddUIExtendedOp)
    a, b = _operand_attrs(op)
    if is_int(b, 0) and (false := _zero_attr(op.overflow.type)) is not None:  # x + 0 -> x, false
        return [op.lhs, false]
    total = fold_binary(a, b, "int", _ints(lambda x, y: APInt.of(x.bits + y.bits, x.width)))
    if total is None:
        return None
    if is_poison(total):
        return [total, total]
    overflow = fold_binary(
        total, a, "int", _ints(lambda s, x: APInt(1, int(s.bits < x.bits))), _i1_same_shape(op.sum.type)
    )
    return None if overflow is None else [total, overflow]


def _mul_extended_folder(high: Callable[[APInt, APInt], APInt], unsigned: bool) -> Folder:
    def fold(op: Operation) -> FoldResult | None:
        assert isinstance(op, arith.MulExtendedBase)
        a, b = _operand_attrs(op)
        if is_int(b, 0):  # x * 0 -> 0, 0
            assert b is not None
            return [b, b]
        if unsigned and is_int(b, 1) and (zero := _zero_attr(op.lhs.type)) is not None:  # x * 1 -> x, 0
            return [op.lhs, zero]
        low = fold_binary(a, b, "int", _ints(lambda x, y: APInt.of(x.bits * y.bits, x.width)))
        if low is None:
            return None
        top = fold_binary(a, b, "int", _ints(high))
        return None if top is None else [low, top]

    return fold


def _mulhs(x: APInt, y: APInt) -> APInt:
    return APInt.of((x.signed * y.signed) >> x.width, x.width)


def _mulhu(x: APInt, y: APInt) -> APInt:
    return APInt.of((x.bits * y.bits) >> x.width, x.width)


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


def _mantissa_width(type: AnyFloat) -> int:
    """``FloatType::getFPMantissaWidth``: significand bits, implicit bit included."""
    if type.name == "bf16":
        return 8
    return _MANTISSA_BITS.get(type.bitwidth, -1)


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
        mantissa = _mantissa_width(float_type)
        if mantissa <= 0:
            return
        if (si := _defining(op.lhs, arith.SIToFPOp)) is not None:
            unsigned, int_val = False, si.input
        elif (ui := _defining(op.lhs, arith.UIToFPOp)) is not None:
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
        predicate = _predicate(op)
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
        if _int_to_float(high, float_type) < rhs:  # above the range
            self.constant(op, pred in (NE, ULT, ULE, SLT, SLE), rewriter)
            return
        if _int_to_float(low, float_type) > rhs:  # below the range
            self.constant(op, pred in (NE, UGT, UGE, SGT, SGE), rewriter)
            return
        rhs_int = math.trunc(rhs)
        if not low <= rhs_int <= high:
            return
        if rhs != 0.0 and _int_to_float(rhs_int, float_type) != rhs:
            # A fractional constant: adjust the predicate (rhs_int is rounded toward zero).
            negative = rhs < 0
            match pred:
                case 1:  # (float)int != 4.4 -> true
                    self.constant(op, True, rewriter)
                    return
                case 0:  # (float)int == 4.4 -> false
                    self.constant(op, False, rewriter)
                    return
                case 7 if negative:  # ule
                    self.constant(op, False, rewriter)
                    return
                case 3 if negative:  # sle
                    pred = SLT
                case 6:  # ult
                    if negative:
                        self.constant(op, False, rewriter)
                        return
                    pred = ULE
                case 2 if not negative:  # slt
                    pred = SLE
                case 8 if negative:  # ugt
                    self.constant(op, True, rewriter)
                    return
                case 4 if negative:  # sgt
                    pred = SGE
                case 9:  # uge
                    if negative:
                        self.constant(op, True, rewriter)
                        return
                    pred = UGT
                case 5 if not negative:  # sge
                    pred = SGT
                case _:
                    pass
        rhs_attr = int_attr(rhs_int, int_type)
        assert rhs_attr is not None
        const = constant(rhs_attr)
        new = cmpi(pred, int_val, const.result, op.result.type)
        _replace(rewriter, op, [const, new], [new.result])

    @staticmethod
    def constant(op: arith.CmpfOp, value: bool, rewriter: PatternRewriter) -> None:
        new = i1_constant(value)
        _replace(rewriter, op, [new], [new.result])


def _ilogb(value: float) -> int:
    """``ilogb``: the unbiased exponent of a finite nonzero float."""
    return math.frexp(value)[1] - 1


def _largest(type: AnyFloat) -> float:
    bits = _mantissa_width(type)
    exponent = {8: 127, 11: 15, 24: 127, 53: 1023}[bits]
    return (2.0 - 2.0 ** (1 - bits)) * 2.0**exponent


# ---------------------------------------------------------------------------
# Tables


def _signed_max(x: APInt, y: APInt) -> APInt:
    return x if x.signed >= y.signed else y


def _signed_min(x: APInt, y: APInt) -> APInt:
    return x if x.signed <= y.signed else y


def _unsigned_max(x: APInt, y: APInt) -> APInt:
    return x if x.bits >= y.bits else y


def _unsigned_min(x: APInt, y: APInt) -> APInt:
    return x if x.bits <= y.bits else y


FOLDERS: dict[str, Folder] = {
    arith.ConstantOp.name: _fold_constant,
    arith.AddiOp.name: _commutative(_fold_addi),
    arith.SubiOp.name: _fold_subi,
    arith.MuliOp.name: _commutative(_fold_muli),
    arith.DivUIOp.name: _with_newer_llvm_folds(_fold_divui),
    arith.DivSIOp.name: _with_newer_llvm_folds(_fold_divsi),
    arith.CeilDivUIOp.name: _with_newer_llvm_folds(_fold_ceildivui),
    arith.CeilDivSIOp.name: _with_newer_llvm_folds(_fold_ceildivsi),
    arith.FloorDivSIOp.name: _with_newer_llvm_folds(_fold_floordivsi),
    arith.RemUIOp.name: _with_newer_llvm_folds(_fold_remui),
    arith.RemSIOp.name: _with_newer_llvm_folds(_fold_remsi),
    arith.AndIOp.name: _with_traits(_fold_andi, _fold_commutative, _fold_idempotent),
    arith.OrIOp.name: _with_traits(_fold_ori, _fold_commutative, _fold_idempotent),
    arith.XOrIOp.name: _commutative(_fold_xori),
    arith.ShLIOp.name: _with_newer_llvm_folds(_shift_folder(lambda x, n: x.bits << n)),
    arith.ShRUIOp.name: _with_newer_llvm_folds(_shift_folder(lambda x, n: x.bits >> n)),
    arith.ShRSIOp.name: _with_newer_llvm_folds(_shift_folder(lambda x, n: x.signed >> n)),
    arith.MaxSIOp.name: _commutative(_min_max_folder(_signed_max, "smax", "smin")),
    arith.MinSIOp.name: _commutative(_min_max_folder(_signed_min, "smin", "smax")),
    arith.MaxUIOp.name: _commutative(_min_max_folder(_unsigned_max, "umax", "umin")),
    arith.MinUIOp.name: _commutative(_min_max_folder(_unsigned_min, "umin", "umax")),
    arith.AddfOp.name: _commutative(
        _float_binary_folder(_ieee(lambda x, y: x + y), lambda v: is_float_zero(v, negative=True))
    ),
    arith.SubfOp.name: _float_binary_folder(
        _ieee(lambda x, y: x - y), lambda v: is_float_zero(v, negative=False)
    ),
    arith.MulfOp.name: _commutative(_fold_mulf),
    arith.DivfOp.name: _float_binary_folder(_ieee(_ieee_div), lambda v: v == 1.0),
    arith.NegfOp.name: _fold_negf,
    arith.MaximumfOp.name: _commutative(_float_min_max_folder(_maximum, lambda v: v == -math.inf)),
    arith.MaxnumfOp.name: _commutative(_float_min_max_folder(_maxnum, math.isnan)),
    arith.MinimumfOp.name: _commutative(_float_min_max_folder(_minimum, lambda v: v == math.inf)),
    arith.MinnumfOp.name: _commutative(_float_min_max_folder(_minnum, math.isnan)),
    arith.CmpiOp.name: _fold_cmpi,
    arith.CmpfOp.name: _fold_cmpf,
    arith.SelectOp.name: _fold_select,
    arith.ExtUIOp.name: _cast(_fold_extui),
    arith.ExtSIOp.name: _cast(_fold_extsi),
    arith.TruncIOp.name: _cast(_fold_trunci),
    arith.ExtFOp.name: _cast(_fold_extf),
    arith.TruncFOp.name: _cast(_fold_truncf),
    arith.SIToFPOp.name: _cast(_int_to_float_folder(signed=True)),
    arith.UIToFPOp.name: _cast(_int_to_float_folder(signed=False)),
    arith.FPToSIOp.name: _cast(_float_to_int_folder(signed=True)),
    arith.FPToUIOp.name: _cast(_float_to_int_folder(signed=False)),
    arith.IndexCastOp.name: _cast(_index_cast_folder(signed=True)),
    "arith.index_castui": _cast(_index_cast_folder(signed=False)),
    "arith.remf": _fold_remf,
    arith.BitcastOp.name: _cast(_fold_bitcast),
    arith.AddUIExtendedOp.name: _commutative(_fold_addui_extended),
    arith.MulSIExtendedOp.name: _commutative(_mul_extended_folder(_mulhs, unsigned=False)),
    arith.MulUIExtendedOp.name: _commutative(_mul_extended_folder(_mulhu, unsigned=True)),
}
"""MLIR's folder of each arith op that has one (trait folders included)."""

PATTERNS: dict[str, tuple[RewritePattern, ...]] = {
    arith.AddiOp.name: (
        AddIAddConstant(),
        AddISubConstantRHS(),
        AddISubConstantLHS(),
        AddIMulNegativeOneRhs(),
        AddIMulNegativeOneLhs(),
    ),
    arith.SubiOp.name: (
        SubIRHSAddConstant(),
        SubILHSAddConstant(),
        SubIRHSSubConstantRHS(),
        SubIRHSSubConstantLHS(),
        SubILHSSubConstantRHS(),
        SubILHSSubConstantLHS(),
        SubISubILHSRHSLHS(),
    ),
    arith.MuliOp.name: (MulIMulIConstant(),),
    arith.AddUIExtendedOp.name: (AddUIExtendedToAddI(),),
    arith.MulSIExtendedOp.name: (MulSIExtendedToMulI(), MulSIExtendedRHSOne()),
    arith.MulUIExtendedOp.name: (MulUIExtendedToMulI(),),
    # Benefit 3 (three ops matched) before XOrINotCmpI's 2.
    arith.XOrIOp.name: (XOrIOfExtUI(), XOrIOfExtSI(), XOrINotCmpI(), XOrIXOrIConstant()),
    arith.AndIOp.name: (AndOfExtUI(), AndOfExtSI(), AndIAndIConstant()),
    arith.OrIOp.name: (OrOfExtUI(), OrOfExtSI(), OrIOrIConstant()),
    arith.CmpiOp.name: (CmpIExtSI(), CmpIExtUI()),
    arith.CmpfOp.name: (CmpFIntToFPConst(),),
    # Benefit 2 (two selects, or select and xori), then 1, each in registration order.
    arith.SelectOp.name: (
        RedundantSelectFalse(),
        RedundantSelectTrue(),
        SelectNotCond(),
        SelectI1ToNot(),
        SelectToExtUI(),
        SelectToMinMax(),
    ),
    arith.IndexCastOp.name: (IndexCastOfIndexCast(), IndexCastOfExtSI()),
    "arith.index_castui": (IndexCastUIOfIndexCastUI(), IndexCastUIOfExtUI()),
    arith.BitcastOp.name: (BitcastOfBitcast(),),
    arith.ExtSIOp.name: (ExtSIOfExtUI(),),
    arith.TruncIOp.name: (TruncIExtSIToExtSI(), TruncIExtUIToExtUI(), TruncIShrSIToTrunciShrUI()),
    arith.TruncFOp.name: (TruncFSIToFPToSIToFP(), TruncFUIToFPToUIToFP()),
    arith.MulfOp.name: (MulFOfNegF(),),
    arith.DivfOp.name: (DivFOfNegF(),),
}
"""MLIR's canonicalization patterns of each arith op, in the order MLIR tries them."""

OP_NAMES: frozenset[str] = ARITH_OP_NAMES
"""The arith ops whose tables these are (ops without patterns or folder have none in MLIR)."""


def materialize_constant(value: Attribute, type: Attribute) -> Operation | None:
    """``ArithDialect::materializeConstant``: ``ub.poison`` or a buildable ``arith.constant``."""
    if isinstance(value, ub.PoisonAttr):
        return ub.PoisonOp(type, value)
    if not isinstance(value, IntegerAttr | FloatAttr | DenseIntOrFPElementsAttr):
        return None
    if value.get_type() != type:
        return None
    element = get_element_type_or_self(type)
    if isa(element, IntegerType) and element != IntegerType(element.bitwidth):
        return None
    properties: dict[str, Attribute] = {"value": value}
    return arith.ConstantOp.create(result_types=[type], properties=properties)
