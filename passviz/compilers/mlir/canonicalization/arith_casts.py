"""MLIR's folders of arith's casts (``ArithOps.cpp``): extensions, truncations,
conversions between integers and floats, index casts and bitcasts.

Each takes ``CastOpInterface``'s trait folder too: a cast to its operand's type
is that operand.  Inside IREE's passes ``truncf(extf(x))`` is left alone, as
IREE 3.13's LLVM leaves it.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

from xdsl.dialects import arith, ub
from xdsl.dialects.builtin import AnyFloat, DenseIntOrFPElementsAttr, ShapedType
from xdsl.ir import Attribute, Operation
from xdsl.utils.type import get_element_type_or_self

from passviz.compilers.mlir.canonicalization.arith_common import (
    folded,
    has_fastmath,
    operand_attrs,
    with_traits,
)
from passviz.compilers.mlir.version import iree_llvm
from passviz.rewrite.folders import Scalar, fold_cast, round_float
from passviz.rewrite.greedy import Folder, FoldResult
from passviz.rewrite.matchers import APInt, defining, foldable_float, int_width, is_poison


def _result_width(op: Operation) -> int:
    width = int_width(op.results[0].type)
    assert width is not None
    return width


def _extension_folder(kind: type[Operation], extend: Callable[[APInt, int], APInt]) -> Folder:
    """``extui``'s or ``extsi``'s folder: ``ext(ext(x)) -> ext(x)``, in place, when both
    extensions are of ``kind``; constants fold, ``extend`` widening each to the result's width."""

    def fold(op: Operation) -> FoldResult | None:
        if inner := defining(op.operands[0], kind):
            op.operands = [inner.operands[0]]
            return []
        (a,) = operand_attrs(op)
        width = _result_width(op)
        return folded(
            fold_cast(
                a, op.results[0].type, "int", lambda x: extend(x, width) if isinstance(x, APInt) else None
            )
        )

    return fold


def _fold_trunci(op: Operation) -> FoldResult | None:
    operand = op.operands[0]
    width = _result_width(op)
    ext = defining(operand, arith.ExtUIOp) or defining(operand, arith.ExtSIOp)
    if ext is not None:
        src = ext.operands[0]
        if (int_width(src.type) or 0) > width:  # trunci(ext(a)) -> trunci(a)
            op.operands = [src]
            return []
        if get_element_type_or_self(src.type) == get_element_type_or_self(op.results[0].type):
            return [src]  # trunci(ext(a)) -> a
    if inner := defining(operand, arith.TruncIOp):  # trunci(trunci(a)) -> trunci(a)
        op.operands = [inner.input]
        return []
    (a,) = operand_attrs(op)
    return folded(
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
    return has_fastmath(op, "contract")


def _fold_extf(op: Operation) -> FoldResult | None:
    trunc = defining(op.operands[0], arith.TruncFOp)
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
    (a,) = operand_attrs(op)
    return folded(fold_cast(a, op.results[0].type, "float", _convert_exact(target)))


def _fold_truncf(op: Operation) -> FoldResult | None:
    target = _float_type(op.results[0].type)
    if target is None:
        return None
    # IREE 3.13's LLVM no longer folds truncf(extf(a)); Triton's still do.
    if not iree_llvm() and (ext := defining(op.operands[0], arith.ExtFOp)):
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
    (a,) = operand_attrs(op)
    return folded(fold_cast(a, op.results[0].type, "float", _convert_exact(target)))


_MANTISSA_BITS = {16: 11, 32: 24, 64: 53}
"""Significand bits of the IEEE types by width (bf16, 16 bits wide, has 8)."""


def int_to_float(value: int, target: AnyFloat) -> float:
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


def mantissa_width(type: AnyFloat) -> int:
    """``FloatType::getFPMantissaWidth``: significand bits, implicit bit included."""
    if type.name == "bf16":
        return 8
    return _MANTISSA_BITS.get(type.bitwidth, -1)


def _int_to_float_folder(signed: bool) -> Folder:
    def fold(op: Operation) -> FoldResult | None:
        target = _float_type(op.results[0].type)
        if target is None or not foldable_float(target):
            return None
        (a,) = operand_attrs(op)

        def convert(x: Scalar) -> Scalar | None:
            assert isinstance(x, APInt)
            return int_to_float(x.signed if signed else x.bits, target)

        return folded(fold_cast(a, op.results[0].type, "int", convert))

    return fold


def _float_to_int_folder(signed: bool) -> Folder:
    def fold(op: Operation) -> FoldResult | None:
        width = _result_width(op)
        (a,) = operand_attrs(op)

        def convert(x: Scalar) -> Scalar | None:
            assert isinstance(x, float)
            if not math.isfinite(x):
                return None
            value = math.trunc(x)
            low, high = (-(1 << (width - 1)), 1 << (width - 1)) if signed else (0, 1 << width)
            return APInt.of(value, width) if low <= value < high else None

        return folded(fold_cast(a, op.results[0].type, "float", convert))

    return fold


def _index_cast_folder(signed: bool) -> Folder:
    """``index_cast`` (sign-extends or truncates) / ``index_castui`` (zero-extends)."""

    def fold(op: Operation) -> FoldResult | None:
        (a,) = operand_attrs(op)
        width = _result_width(op)

        def convert(x: Scalar) -> Scalar | None:
            assert isinstance(x, APInt)
            return APInt.of(x.signed if signed else x.bits, width)

        return folded(fold_cast(a, op.results[0].type, "int", convert))

    return fold


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
    (a,) = operand_attrs(op)
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
    return folded(fold_cast(a, result_type, kind, convert))


def _fold_identity_cast(op: Operation) -> FoldResult | None:
    """``CastOpInterface``'s trait folder: a cast to its operand's type is that operand."""
    if op.operand_types != op.result_types:
        return None
    return list(op.operands)


def _cast(fold: Folder) -> Folder:
    """``fold``, then ``CastOpInterface``'s trait folder."""
    return with_traits(fold, _fold_identity_cast)


# ---------------------------------------------------------------------------
# Table


FOLDERS: dict[str, Folder] = {
    arith.ExtUIOp.name: _cast(_extension_folder(arith.ExtUIOp, lambda x, width: APInt(width, x.bits))),
    arith.ExtSIOp.name: _cast(_extension_folder(arith.ExtSIOp, lambda x, width: APInt.of(x.signed, width))),
    arith.TruncIOp.name: _cast(_fold_trunci),
    arith.ExtFOp.name: _cast(_fold_extf),
    arith.TruncFOp.name: _cast(_fold_truncf),
    arith.SIToFPOp.name: _cast(_int_to_float_folder(signed=True)),
    arith.UIToFPOp.name: _cast(_int_to_float_folder(signed=False)),
    arith.FPToSIOp.name: _cast(_float_to_int_folder(signed=True)),
    arith.FPToUIOp.name: _cast(_float_to_int_folder(signed=False)),
    arith.IndexCastOp.name: _cast(_index_cast_folder(signed=True)),
    "arith.index_castui": _cast(_index_cast_folder(signed=False)),
    arith.BitcastOp.name: _cast(_fold_bitcast),
}
"""MLIR's folder of each arith cast (the trait folder included)."""
