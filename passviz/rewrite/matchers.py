"""MLIR's constant matchers (``mlir/IR/Matchers.h``) on xDSL values and attributes.

``constant_attr`` is ``m_Constant``: the attribute a ``ConstantLike`` op defines a
value with (what a folder's ``adaptor`` holds).  ``int_value`` / ``float_value``
are ``m_ConstantInt`` / ``m_ConstantFloat``: a scalar attribute or the value of a
splat elements attribute.  Integers are ``APInt``s: a bit pattern and a width, as
MLIR keeps them, since xDSL stores signless values normalized to the signed range.
``defining`` is ``getDefiningOp<OpTy>``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeVar

from xdsl.dialects.builtin import (
    AnyDenseElement,
    AnyFloat,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ShapedType,
)
from xdsl.dialects.ub import PoisonAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.traits import ConstantLike
from xdsl.utils.type import get_element_type_or_self

from passviz.ir.hints import isa
from passviz.ir.traits import has_trait

_OpT = TypeVar("_OpT", bound=Operation)

INDEX_WIDTH = 64
"""The width MLIR folds ``index`` values with (``IndexType::kInternalStorageBitWidth``)."""


@dataclass(frozen=True)
class APInt:
    """An integer of a fixed width, as a bit pattern (``llvm::APInt``)."""

    width: int
    """The number of bits."""
    bits: int
    """The value, unsigned: ``0 <= bits < 2**width``."""

    @staticmethod
    def of(value: int, width: int) -> APInt:
        """``value`` wrapped to ``width`` bits (a mask, not ``%``: instant at any width)."""
        return APInt(width, value & ((1 << width) - 1))

    @property
    def signed(self) -> int:
        """The value read as two's complement."""
        if self.width and self.bits >> (self.width - 1):
            return self.bits - (1 << self.width)
        return self.bits

    def is_zero(self) -> bool:
        return self.bits == 0

    def is_one(self) -> bool:
        return self.bits == 1

    def is_all_ones(self) -> bool:
        return self.bits == (1 << self.width) - 1

    def is_max_signed(self) -> bool:
        return self.bits == (1 << (self.width - 1)) - 1

    def is_min_signed(self) -> bool:
        return self.bits == 1 << (self.width - 1)


def int_width(type: Attribute) -> int | None:
    """The bit width of an integer or index type (or of a shaped type's elements)."""
    element = get_element_type_or_self(type)
    if isinstance(element, IntegerType):
        return element.bitwidth
    if isinstance(element, IndexType):
        return INDEX_WIDTH
    return None


def int_or_float_width(type: Attribute) -> int | None:
    """``getIntOrFloatBitWidth``: the bit width of an integer or float type (or of a shaped
    type's elements); None for any other type, ``index`` included."""
    element = get_element_type_or_self(type)
    return element.bitwidth if isinstance(element, IntegerType | AnyFloat) else None


def is_i1_like(type: Attribute) -> bool:
    """Whether ``type`` is ``i1`` or a shaped type of ``i1``."""
    return int_width(type) == 1 and isinstance(get_element_type_or_self(type), IntegerType)


def constant_attr(value: SSAValue) -> Attribute | None:
    """``m_Constant``: the value of the ``ConstantLike`` op that defines ``value``."""
    owner = value.owner
    if not isinstance(owner, Operation) or not has_trait(owner, ConstantLike, value_if_unregistered=False):
        return None
    if len(owner.results) != 1:
        return None
    # Attributes may be falsy (an IntegerAttr of 0): test against None.
    found = owner.properties.get("value")
    return found if found is not None else owner.attributes.get("value")


def defining(value: SSAValue | None, kind: type[_OpT]) -> _OpT | None:
    """``value.getDefiningOp<kind>()``: the op of type ``kind`` whose result ``value`` is."""
    owner = value.owner if value is not None else None
    return owner if isinstance(owner, kind) else None


def has_one_use(op: Operation) -> bool:
    """``Operation::hasOneUse``: its results have exactly one use between them."""
    return sum(1 for result in op.results for _ in result.uses) == 1


def is_constant(value: SSAValue) -> bool:
    """Whether a ``ConstantLike`` op defines ``value``."""
    return constant_attr(value) is not None


def splat_value(attr: DenseIntOrFPElementsAttr[AnyDenseElement]) -> int | float | None:
    """The single value of a splat elements attribute, or None."""
    values = attr.get_values()
    if not values or values.count(values[0]) != len(values):
        return None
    first = values[0]
    return first if isinstance(first, int | float) else None


def splat_element(attr: Attribute | None) -> IntegerAttr | FloatAttr | None:
    """The element of a splat ``DenseElementsAttr`` (``SplatElementsAttr``), or None."""
    if not isinstance(attr, DenseIntOrFPElementsAttr) or not attr.is_splat():
        return None
    element = next(iter(attr.iter_attrs()), None)
    return element if isinstance(element, IntegerAttr | FloatAttr) else None


def int_value(attr: Attribute | None) -> APInt | None:
    """``m_ConstantInt``: an integer attribute, or a splat of integers."""
    if isa(attr, IntegerAttr[IntegerType | IndexType]):
        width = int_width(attr.type)
        return None if width is None else APInt.of(attr.value.data, width)
    if isa(attr, DenseIntOrFPElementsAttr):
        width = int_width(attr.get_element_type())
        value = splat_value(attr)
        if width is None or not isinstance(value, int):
            return None
        return APInt.of(value, width)
    return None


def float_value(attr: Attribute | None) -> float | None:
    """``m_ConstantFloat``: a float attribute, or a splat of floats."""
    if isinstance(attr, FloatAttr):
        return attr.value.data
    if isa(attr, DenseIntOrFPElementsAttr) and isinstance(attr.get_element_type(), AnyFloat):
        value = splat_value(attr)
        return float(value) if value is not None else None
    return None


def is_int(attr: Attribute | None, value: int) -> bool:
    """``m_Zero`` / ``m_One``: an integer (or splat) equal to ``value``."""
    found = int_value(attr)
    return found is not None and found == APInt.of(value, found.width)


def is_poison(attr: Attribute | None) -> bool:
    """``ub::m_Poison``."""
    return isinstance(attr, PoisonAttr)


def is_float_zero(value: float | None, *, negative: bool | None) -> bool:
    """``m_PosZeroFloat`` / ``m_NegZeroFloat`` / ``m_AnyZeroFloat`` (``negative=None``)."""
    if value is None or value != 0.0:
        return False
    return negative is None or (math.copysign(1.0, value) < 0) == negative


def is_zero(value: SSAValue) -> bool:
    """``m_Zero() || m_AnyZeroFloat()``: an integer zero or a float ±0 (or a splat of one)."""
    attr = constant_attr(value)
    return is_int(attr, 0) or is_float_zero(float_value(attr), negative=None)


FOLDABLE_FLOATS = (Float16Type, BFloat16Type, Float32Type, Float64Type)
"""Float types whose arithmetic passviz folds: a double rounded once more to them is
exact for + - * / (53 >= 2p + 2), so results equal APFloat's."""


def foldable_float(type: Attribute) -> bool:
    """Whether passviz can fold floats of ``type`` (or of its elements) exactly."""
    return isinstance(get_element_type_or_self(type), FOLDABLE_FLOATS)


def bool_attr(type: Attribute, value: bool) -> Attribute | None:
    """``getBoolAttribute``: ``true``/``false``, or a splat of it for a shaped type."""
    if not isinstance(type, ShapedType):
        return int_attr(int(value), IntegerType(1))
    if not type.has_static_shape():
        return None
    return dense(type, [int(value)])


def int_attr(value: int, type: Attribute) -> IntegerAttr[IntegerType | IndexType] | None:
    """``IntegerAttr::get(type, value)``, wrapping ``value`` to the type's width."""
    if isa(type, IntegerType):
        return IntegerAttr(value, type, truncate_bits=True)
    if isinstance(type, IndexType):
        return IntegerAttr(APInt.of(value, INDEX_WIDTH).signed, type)
    return None


def dense(type: ShapedType, values: list[int] | list[float]) -> DenseIntOrFPElementsAttr:
    """A dense elements attribute of ``type``; one value makes a splat."""
    return DenseIntOrFPElementsAttr.from_list(type, values)  # pyright: ignore[reportArgumentType, reportCallIssue, reportUnknownVariableType]
