"""MLIR's constant-folding helpers (``mlir/Dialect/CommonFolders.h``).

``fold_binary``, ``fold_unary`` and ``fold_cast`` take the operands' constant
attributes (None where an operand is not constant) and an element function, and
fold scalars, splats (computing once) and other dense attributes (element by
element) as ``constFoldBinaryOp``, ``constFoldUnaryOp`` and ``constFoldCastOp``
do.  A poison operand folds to poison.  The element function returns None when
MLIR's would fail (division by zero, overflow, an invalid conversion).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ShapedType,
)
from xdsl.dialects.ub import PoisonAttr
from xdsl.ir import Attribute
from xdsl.utils.type import get_element_type_or_self

from passviz.ir.hints import isa
from passviz.rewrite.matchers import FOLDABLE_FLOATS, APInt, dense, int_attr, int_width

Scalar = APInt | float
"""One element: an integer bit pattern or a float."""

Kind = Literal["int", "float"]
"""Which attributes an operand must hold (``IntegerAttr`` or ``FloatAttr`` elements)."""


@dataclass(frozen=True)
class _Elements:
    """A constant operand, decoded."""

    type: Attribute
    """The attribute's type (scalar or shaped)."""
    values: tuple[Scalar, ...]
    """Its elements (one for a scalar)."""
    shaped: bool
    """Whether it is an elements attribute."""

    @property
    def splat(self) -> bool:
        return all(value == self.values[0] for value in self.values)


MAX_FOLD_WIDTH = 4096
"""The widest integers passviz's folders compute with.  MLIR folds any width; past this one a
product takes seconds and its result has more digits than Python prints (4,300), so wider
constants are left unfolded (MLIR's limit on the type itself is 16,777,215 bits)."""


def _fold_width(type: Attribute) -> int | None:
    """The width to fold ``type``'s integers at, or None when they are not folded."""
    width = int_width(type)
    return width if width is not None and width <= MAX_FOLD_WIDTH else None


def _decode(attr: Attribute, kind: Kind) -> _Elements | None:
    if kind == "int" and isa(attr, IntegerAttr[IntegerType | IndexType]):
        width = _fold_width(attr.type)
        return None if width is None else _Elements(attr.type, (APInt.of(attr.value.data, width),), False)
    if kind == "float" and isa(attr, FloatAttr[AnyFloat]):
        if not isinstance(attr.type, FOLDABLE_FLOATS):
            return None
        return _Elements(attr.type, (attr.value.data,), False)
    if not isa(attr, DenseIntOrFPElementsAttr):
        return None
    values = attr.get_values()
    element = attr.get_element_type()
    if kind == "int":
        width = _fold_width(element)
        ints = tuple(APInt.of(v, width) for v in values if isinstance(v, int)) if width is not None else ()
        return _Elements(attr.type, ints, True) if ints and len(ints) == len(values) else None
    if not isinstance(element, FOLDABLE_FLOATS):
        return None
    floats = tuple(float(v) for v in values if not isinstance(v, tuple))
    return _Elements(attr.type, floats, True) if floats and len(floats) == len(values) else None


def round_float(value: float, type: AnyFloat) -> float:
    """``value`` rounded to ``type`` (to nearest even; infinite past its range)."""
    if isinstance(type, Float64Type) or not math.isfinite(value):
        return value
    try:
        return FloatAttr(value, type).value.data
    except OverflowError:
        return math.copysign(math.inf, value)


def _encode(type: Attribute, values: Sequence[Scalar]) -> Attribute | None:
    """The attribute of ``type`` holding ``values`` (one value: a scalar or a splat)."""
    element = get_element_type_or_self(type)
    if all(isinstance(v, APInt) for v in values):
        ints = [v.signed for v in values if isinstance(v, APInt)]
        if isinstance(type, ShapedType):
            return dense(type, ints)
        return int_attr(ints[0], type)
    if not isinstance(element, FOLDABLE_FLOATS):
        return None
    floats = [round_float(v, element) for v in values if isinstance(v, float)]
    if isinstance(type, ShapedType):
        return dense(type, floats)
    return FloatAttr(floats[0], element)


def fold_binary(
    lhs: Attribute | None,
    rhs: Attribute | None,
    kind: Kind,
    fn: Callable[[Scalar, Scalar], Scalar | None],
    result_type: Attribute | None = None,
) -> Attribute | None:
    """``constFoldBinaryOp``; the result has the operands' type unless ``result_type``."""
    if isinstance(lhs, PoisonAttr):
        return lhs
    if isinstance(rhs, PoisonAttr):
        return rhs
    if lhs is None or rhs is None:
        return None
    a, b = _decode(lhs, kind), _decode(rhs, kind)
    if a is None or b is None or a.type != b.type or a.shaped != b.shaped:
        return None
    type = result_type if result_type is not None else a.type
    if not a.shaped or (a.splat and b.splat):
        result = fn(a.values[0], b.values[0])
        return None if result is None else _encode(type, [result])
    results: list[Scalar] = []
    for x, y in zip(a.values, b.values, strict=True):
        result = fn(x, y)
        if result is None:
            return None
        results.append(result)
    return _encode(type, results)


def fold_unary(
    operand: Attribute | None, kind: Kind, fn: Callable[[Scalar], Scalar | None]
) -> Attribute | None:
    """``constFoldUnaryOp``: the result has the operand's type."""
    if isinstance(operand, PoisonAttr):
        return operand
    if operand is None or (a := _decode(operand, kind)) is None:
        return None
    return fold_cast(operand, a.type, kind, fn)


def fold_cast(
    operand: Attribute | None, result_type: Attribute, kind: Kind, fn: Callable[[Scalar], Scalar | None]
) -> Attribute | None:
    """``constFoldCastOp``: ``fn`` maps each element to one of ``result_type``."""
    if isinstance(operand, PoisonAttr):
        return operand
    if operand is None or (a := _decode(operand, kind)) is None:
        return None
    if a.shaped != isinstance(result_type, ShapedType):
        return None
    if not a.shaped or a.splat:
        result = fn(a.values[0])
        return None if result is None else _encode(result_type, [result])
    results: list[Scalar] = []
    for x in a.values:
        result = fn(x)
        if result is None:
            return None
        results.append(result)
    return _encode(result_type, results)
