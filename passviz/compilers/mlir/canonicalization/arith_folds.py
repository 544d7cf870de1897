"""MLIR's folders of arith's integer and float arithmetic (``ArithOps.cpp``).

Behaving as Triton 3.9, or inside IREE's passes, the integer folds of the newer
LLVM come first (``_fold_newer_llvm``) and ``mulf(x, 0)`` folds under
``nnan``/``nsz``.  ``Commutative`` and ``Idempotent``'s trait folders follow an
op's own when it fails or folds in place.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ShapedType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.type import get_element_type_or_self

from passviz.compilers.mlir.canonicalization.arith_common import (
    folded,
    has_fastmath,
    i1_same_shape,
    ints,
    operand_attrs,
    overflow_flags,
    with_traits,
    zero_attr,
)
from passviz.compilers.mlir.version import llvm_since
from passviz.ir.hints import isa
from passviz.rewrite.folders import Scalar, fold_binary, fold_unary
from passviz.rewrite.greedy import Folder, FoldResult
from passviz.rewrite.matchers import (
    APInt,
    constant_attr,
    defining,
    dense,
    float_value,
    int_attr,
    int_value,
    int_width,
    is_float_zero,
    is_int,
    is_poison,
)

# ---------------------------------------------------------------------------
# Integer arithmetic folders


def _fold_addi(op: Operation) -> FoldResult | None:
    lhs, rhs = op.operands
    a, b = operand_attrs(op)
    if is_int(b, 0):  # addi(x, 0) -> x
        return [lhs]
    if (sub := defining(lhs, arith.SubiOp)) and rhs == sub.rhs:  # addi(subi(a, b), b) -> a
        return [sub.lhs]
    if (sub := defining(rhs, arith.SubiOp)) and lhs == sub.rhs:  # addi(b, subi(a, b)) -> a
        return [sub.lhs]
    return folded(fold_binary(a, b, "int", ints(lambda x, y: APInt.of(x.bits + y.bits, x.width))))


def _fold_subi(op: Operation) -> FoldResult | None:
    lhs, rhs = op.operands
    a, b = operand_attrs(op)
    if lhs == rhs and (zero := zero_attr(op.results[0].type)) is not None:  # subi(x, x) -> 0
        return [zero]
    if is_int(b, 0):  # subi(x, 0) -> x
        return [lhs]
    if add := defining(lhs, arith.AddiOp):
        if rhs == add.rhs:  # subi(addi(a, b), b) -> a
            return [add.lhs]
        if rhs == add.lhs:  # subi(addi(a, b), a) -> b
            return [add.rhs]
    return folded(fold_binary(a, b, "int", ints(lambda x, y: APInt.of(x.bits - y.bits, x.width))))


def _fold_muli(op: Operation) -> FoldResult | None:
    lhs, rhs = op.operands
    a, b = operand_attrs(op)
    if is_int(b, 0):  # muli(x, 0) -> 0
        return [rhs]
    if is_int(b, 1):  # muli(x, 1) -> x
        return [lhs]
    return folded(fold_binary(a, b, "int", ints(lambda x, y: APInt.of(x.bits * y.bits, x.width))))


def _fold_div_mul(lhs: SSAValue, rhs: SSAValue, flag: str) -> SSAValue | None:
    """``foldDivMul``: ``(a * b) / b -> a`` when the multiplication cannot wrap."""
    mul = defining(lhs, arith.MuliOp)
    if mul is None or flag not in overflow_flags(mul):
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


def _udiv(x: APInt, y: APInt) -> APInt | None:
    return None if y.is_zero() else APInt(x.width, x.bits // y.bits)


def _division_folder(calc: Callable[[APInt, APInt], APInt | None], mul_flag: str | None = None) -> Folder:
    """A division's folder: ``x / 1`` -> x; with ``mul_flag``, ``(x * y) / y`` -> x when
    the multiplication has that overflow flag; constants fold."""

    def fold(op: Operation) -> FoldResult | None:
        lhs, rhs = op.operands
        a, b = operand_attrs(op)
        if is_int(b, 1):
            return [lhs]
        if mul_flag is not None and (value := _fold_div_mul(lhs, rhs, mul_flag)) is not None:
            return [value]
        return folded(fold_binary(a, b, "int", ints(calc)))

    return fold


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


def _srem(x: APInt, y: APInt) -> APInt | None:
    if y.is_zero():
        return None
    remainder = abs(x.signed) % abs(y.signed)
    return APInt.of(-remainder if x.signed < 0 else remainder, x.width)


def _urem(x: APInt, y: APInt) -> APInt | None:
    return None if y.is_zero() else APInt(x.width, x.bits % y.bits)


def _remainder_folder(calc: Callable[[APInt, APInt], APInt | None]) -> Folder:
    """A remainder's folder: ``x % 1`` -> 0; constants fold."""

    def fold(op: Operation) -> FoldResult | None:
        a, b = operand_attrs(op)
        if is_int(b, 1):
            return folded(zero_attr(op.results[0].type))
        return folded(fold_binary(a, b, "int", ints(calc)))

    return fold


def _is_not_of(value: SSAValue, of: SSAValue) -> bool:
    """``value`` is ``xori(of, <all ones>)``."""
    xor = defining(value, arith.XOrIOp)
    if xor is None or xor.lhs != of:
        return False
    ones = int_value(constant_attr(xor.rhs))
    return ones is not None and ones.is_all_ones()


def _fold_andi(op: Operation) -> FoldResult | None:
    lhs, rhs = op.operands
    a, b = operand_attrs(op)
    if is_int(b, 0):  # and(x, 0) -> 0
        return [rhs]
    if (ones := int_value(b)) is not None and ones.is_all_ones():  # and(x, allOnes) -> x
        return [lhs]
    if _is_not_of(rhs, lhs) or _is_not_of(lhs, rhs):  # and(x, not(x)) -> 0
        return folded(zero_attr(op.results[0].type))
    for prev_value, other in ((lhs, rhs), (rhs, lhs)):  # and(a, and(a, b)) -> and(a, b)
        prev = defining(prev_value, arith.AndIOp)
        if prev is not None and other in (prev.lhs, prev.rhs):
            return [prev.result]
    return folded(fold_binary(a, b, "int", ints(lambda x, y: APInt(x.width, x.bits & y.bits))))


def _fold_ori(op: Operation) -> FoldResult | None:
    lhs, rhs = op.operands
    a, b = operand_attrs(op)
    if (value := int_value(b)) is not None:
        if value.is_zero():  # or(x, 0) -> x
            return [lhs]
        if value.is_all_ones():  # or(x, <all ones>) -> <all ones>
            assert b is not None
            return [b]
    for x, maybe_not in ((lhs, rhs), (rhs, lhs)):  # or(x, xor(x, 1)) -> 1
        if _is_not_of(maybe_not, x):
            xor = defining(maybe_not, arith.XOrIOp)
            assert xor is not None
            return [xor.rhs]
    return folded(fold_binary(a, b, "int", ints(lambda x, y: APInt(x.width, x.bits | y.bits))))


def _fold_xori(op: Operation) -> FoldResult | None:
    lhs, rhs = op.operands
    a, b = operand_attrs(op)
    if is_int(b, 0):  # xor(x, 0) -> x
        return [lhs]
    if lhs == rhs:  # xor(x, x) -> 0
        return folded(zero_attr(op.results[0].type))
    if prev := defining(lhs, arith.XOrIOp):  # xor(xor(x, a), a) -> x
        if prev.rhs == rhs:
            return [prev.lhs]
        if prev.lhs == rhs:
            return [prev.rhs]
    if prev := defining(rhs, arith.XOrIOp):  # xor(a, xor(x, a)) -> x
        if prev.rhs == lhs:
            return [prev.lhs]
        if prev.lhs == lhs:
            return [prev.rhs]
    return folded(fold_binary(a, b, "int", ints(lambda x, y: APInt(x.width, x.bits ^ y.bits))))


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
    a, b = operand_attrs(op)
    result_type = op.results[0].type
    if op.name in _DIVISIONS and is_int(b, 1):
        return None  # x / 1 -> x comes first
    if lhs == rhs and op.name in ("arith.shrui", "arith.shrsi"):
        # x >> x is 0: an amount below the width exceeds the bits left of it.
        return folded(zero_attr(result_type))
    if op.name in _SHIFTS and is_int(a, 0):
        return [lhs]
    if op.name in _DIVISIONS and is_int(a, 0):
        return [lhs]
    if op.name in _REMAINDERS and is_int(a, 0):
        return folded(zero_attr(result_type))
    if op.name == "arith.shrsi" and (ones := int_value(a)) is not None and ones.is_all_ones():
        return [lhs]
    if lhs != rhs:
        return None
    if op.name in _DIVISIONS:
        return folded(_one_attr(result_type))
    if op.name in _REMAINDERS:
        return folded(zero_attr(result_type))
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
        if llvm_since((3, 9)) and (newer := _fold_newer_llvm(op)) is not None:
            return newer
        return folder(op)

    return fold


def _shift_folder(shift: Callable[[APInt, int], int]) -> Folder:
    """A shift's folder: ``x >> 0 -> x``; constants fold when the amount is below the width.

    MLIR's check is a flag each element overwrites, so over a dense amount only
    the last element's counts; APInt clamps the others to the width.
    """

    def fold(op: Operation) -> FoldResult | None:
        a, b = operand_attrs(op)
        if is_int(b, 0):
            return [op.operands[0]]
        last = _last_element(b)
        if last is None or last.bits >= last.width:
            return None

        def element(x: APInt, y: APInt) -> APInt:
            return APInt.of(shift(x, min(y.bits, x.width)), x.width)

        return folded(fold_binary(a, b, "int", ints(element)))

    return fold


def _min_max_folder(pick: Callable[[APInt, APInt], APInt], absorbing: str, identity: str) -> Folder:
    """A min/max folder: x op x -> x; x op <absorbing> -> <absorbing>; x op <identity> -> x."""

    def fold(op: Operation) -> FoldResult | None:
        lhs, rhs = op.operands
        a, b = operand_attrs(op)
        if lhs == rhs:
            return [rhs]
        if (value := int_value(b)) is not None:
            if _is_extreme(value, absorbing):
                return [rhs]
            if _is_extreme(value, identity):
                return [lhs]
        return folded(fold_binary(a, b, "int", ints(pick)))

    return fold


def _signed_max(x: APInt, y: APInt) -> APInt:
    return x if x.signed >= y.signed else y


def _signed_min(x: APInt, y: APInt) -> APInt:
    return x if x.signed <= y.signed else y


def _unsigned_max(x: APInt, y: APInt) -> APInt:
    return x if x.bits >= y.bits else y


def _unsigned_min(x: APInt, y: APInt) -> APInt:
    return x if x.bits <= y.bits else y


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
        a, b = operand_attrs(op)
        if rhs_identity(float_value(b)):
            return [op.operands[0]]
        return folded(fold_binary(a, b, "float", _floats(calc)))

    return fold


def _fold_mulf(op: Operation) -> FoldResult | None:
    a, b = operand_attrs(op)
    rhs = float_value(b)
    if rhs == 1.0:  # mulf(x, 1) -> x
        return [op.operands[0]]
    if llvm_since((3, 9)) and is_float_zero(rhs, negative=None) and has_fastmath(op, "nnan", "nsz"):
        return [op.operands[1]]  # mulf(x, ±0) -> ±0 when NaNs and the sign of zero may be ignored
    return folded(fold_binary(a, b, "float", _floats(_ieee(lambda x, y: x * y))))


def _signed_zero_order(x: float) -> tuple[float, float]:
    """The order of floats that are not NaN, with -0 < +0."""
    return (x, math.copysign(1.0, x))


def _extremum(*, larger: bool, nan_propagates: bool) -> Callable[[float, float], float]:
    """``llvm::maximum``/``minimum`` (a NaN operand is the result) and ``maxnum``/
    ``minnum`` (the other operand is), with -0 < +0."""

    def calc(x: float, y: float) -> float:
        if math.isnan(x) or math.isnan(y):
            nan, other = (x, y) if math.isnan(x) else (y, x)
            return nan if nan_propagates else other
        if larger:
            return max(x, y, key=_signed_zero_order)
        return min(x, y, key=_signed_zero_order)

    return calc


_maxnum = _extremum(larger=True, nan_propagates=False)
_minnum = _extremum(larger=False, nan_propagates=False)
_maximum = _extremum(larger=True, nan_propagates=True)
_minimum = _extremum(larger=False, nan_propagates=True)


def _float_min_max_folder(calc: Callable[[float, float], float], identity: Callable[[float], bool]) -> Folder:
    """``maximumf``/``maxnumf``/...: x op x -> x; x op <identity> -> x; constants fold."""

    def fold(op: Operation) -> FoldResult | None:
        lhs, rhs = op.operands
        a, b = operand_attrs(op)
        if lhs == rhs:
            return [rhs]
        if (value := float_value(b)) is not None and identity(value):
            return [lhs]
        return folded(fold_binary(a, b, "float", _floats(calc)))

    return fold


def _fold_negf(op: Operation) -> FoldResult | None:
    if inner := defining(op.operands[0], arith.NegfOp):  # negf(negf(x)) -> x
        return [inner.operand]
    (a,) = operand_attrs(op)

    def negate(x: Scalar) -> Scalar:
        assert isinstance(x, float)
        return -x

    return folded(fold_unary(a, "float", negate))


def _fmod(x: float, y: float) -> float:
    """``APFloat::mod``: the remainder with the dividend's sign; NaN when invalid."""
    try:
        return math.fmod(x, y)
    except ValueError:
        return math.nan


def _fold_remf(op: Operation) -> FoldResult | None:
    a, b = operand_attrs(op)
    return folded(fold_binary(a, b, "float", _floats(_ieee(_fmod))))


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


def _commutative(fold: Folder) -> Folder:
    return with_traits(fold, _fold_commutative)


# ---------------------------------------------------------------------------
# Extended arithmetic folders


def _fold_addui_extended(op: Operation) -> FoldResult | None:
    assert isinstance(op, arith.AddUIExtendedOp)
    a, b = operand_attrs(op)
    if is_int(b, 0) and (false := zero_attr(op.overflow.type)) is not None:  # x + 0 -> x, false
        return [op.lhs, false]
    total = fold_binary(a, b, "int", ints(lambda x, y: APInt.of(x.bits + y.bits, x.width)))
    if total is None:
        return None
    if is_poison(total):
        return [total, total]
    overflow = fold_binary(
        total, a, "int", ints(lambda s, x: APInt(1, int(s.bits < x.bits))), i1_same_shape(op.sum.type)
    )
    return None if overflow is None else [total, overflow]


def _mul_extended_folder(high: Callable[[APInt, APInt], APInt], unsigned: bool) -> Folder:
    def fold(op: Operation) -> FoldResult | None:
        assert isinstance(op, arith.MulExtendedBase)
        a, b = operand_attrs(op)
        if is_int(b, 0):  # x * 0 -> 0, 0
            assert b is not None
            return [b, b]
        if unsigned and is_int(b, 1) and (zero := zero_attr(op.lhs.type)) is not None:  # x * 1 -> x, 0
            return [op.lhs, zero]
        low = fold_binary(a, b, "int", ints(lambda x, y: APInt.of(x.bits * y.bits, x.width)))
        if low is None:
            return None
        top = fold_binary(a, b, "int", ints(high))
        return None if top is None else [low, top]

    return fold


def _mulhs(x: APInt, y: APInt) -> APInt:
    return APInt.of((x.signed * y.signed) >> x.width, x.width)


def _mulhu(x: APInt, y: APInt) -> APInt:
    return APInt.of((x.bits * y.bits) >> x.width, x.width)


# ---------------------------------------------------------------------------
# Table


FOLDERS: dict[str, Folder] = {
    arith.AddiOp.name: _commutative(_fold_addi),
    arith.SubiOp.name: _fold_subi,
    arith.MuliOp.name: _commutative(_fold_muli),
    arith.DivUIOp.name: _with_newer_llvm_folds(_division_folder(_udiv, "nuw")),
    arith.DivSIOp.name: _with_newer_llvm_folds(_division_folder(_sdiv, "nsw")),
    arith.CeilDivUIOp.name: _with_newer_llvm_folds(_division_folder(_ceildivui)),
    arith.CeilDivSIOp.name: _with_newer_llvm_folds(_division_folder(_ceildivsi)),
    arith.FloorDivSIOp.name: _with_newer_llvm_folds(_division_folder(_floordivsi)),
    arith.RemUIOp.name: _with_newer_llvm_folds(_remainder_folder(_urem)),
    arith.RemSIOp.name: _with_newer_llvm_folds(_remainder_folder(_srem)),
    arith.AndIOp.name: with_traits(_fold_andi, _fold_commutative, _fold_idempotent),
    arith.OrIOp.name: with_traits(_fold_ori, _fold_commutative, _fold_idempotent),
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
    "arith.remf": _fold_remf,
    arith.NegfOp.name: _fold_negf,
    arith.MaximumfOp.name: _commutative(_float_min_max_folder(_maximum, lambda v: v == -math.inf)),
    arith.MaxnumfOp.name: _commutative(_float_min_max_folder(_maxnum, math.isnan)),
    arith.MinimumfOp.name: _commutative(_float_min_max_folder(_minimum, lambda v: v == math.inf)),
    arith.MinnumfOp.name: _commutative(_float_min_max_folder(_minnum, math.isnan)),
    arith.AddUIExtendedOp.name: _commutative(_fold_addui_extended),
    arith.MulSIExtendedOp.name: _commutative(_mul_extended_folder(_mulhs, unsigned=False)),
    arith.MulUIExtendedOp.name: _commutative(_mul_extended_folder(_mulhu, unsigned=True)),
}
"""MLIR's folder of each arith arithmetic op (trait folders included)."""
