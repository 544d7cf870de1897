"""MLIR's folders of arith's comparisons and ``select`` (``ArithOps.cpp``)."""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.type import get_element_type_or_self

from passviz.compilers.mlir.canonicalization.arith_common import (
    EQ,
    NE,
    SWAPPED_PREDICATE,
    TRUE_ON_EQUAL,
    apply_cmpi,
    cmp_predicate,
    folded,
    i1_same_shape,
    ints,
    operand_attrs,
)
from passviz.ir.hints import isa
from passviz.rewrite.folders import fold_binary
from passviz.rewrite.greedy import Folder, FoldResult
from passviz.rewrite.matchers import APInt, bool_attr, defining, dense, is_i1_like, is_int, is_poison


def _ext_of_i1(value: SSAValue) -> SSAValue | None:
    """The ``i1`` (or vector of ``i1``) that ``extsi``/``extui`` extends to ``value``."""
    ext = defining(value, arith.ExtSIOp) or defining(value, arith.ExtUIOp)
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
    predicate = cmp_predicate(op)
    if lhs == rhs:  # cmpi(pred, x, x)
        return folded(bool_attr(op.result.type, predicate in TRUE_ON_EQUAL))
    a, b = operand_attrs(op)
    if is_int(b, 0):
        if predicate == NE and (source := _ext_of_i1(lhs)) is not None:  # ext(x : i1) != 0 -> x
            return [source]
        if is_i1_like(lhs.type) and predicate == NE:  # x != false -> x
            return [lhs]
    if is_int(b, 1) and is_i1_like(lhs.type) and predicate == EQ:  # x == true -> x
        return [lhs]
    if a is not None and b is None:  # Move the constant to the right.
        op.properties["predicate"] = IntegerAttr(SWAPPED_PREDICATE[predicate], 64)
        op.operands = [rhs, lhs]
        return []
    if a is None or b is None:
        return None
    compare = ints(lambda x, y: APInt(1, int(apply_cmpi(predicate, x, y))))
    return folded(fold_binary(a, b, "int", compare, i1_same_shape(op.operands[0].type)))


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
    a, b = operand_attrs(op)
    lhs = a if isa(a, FloatAttr[AnyFloat]) else None
    rhs = b if isa(b, FloatAttr[AnyFloat]) else None
    # If one operand is NaN, making them both NaN does not change the result.
    if lhs is not None and math.isnan(lhs.value.data):
        rhs = lhs
    if rhs is not None and math.isnan(rhs.value.data):
        lhs = rhs
    if lhs is None or rhs is None:
        return None
    value = _apply_cmpf(cmp_predicate(op), lhs.value.data, rhs.value.data)
    return [IntegerAttr(int(value), IntegerType(1), truncate_bits=True)]


def _fold_select(op: Operation) -> FoldResult | None:
    assert isinstance(op, arith.SelectOp)
    cond, true_value, false_value = op.cond, op.lhs, op.rhs
    if true_value == false_value:
        return [true_value]
    c, t, f = operand_attrs(op)
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
    if cmp := defining(cond, arith.CmpiOp):
        predicate = cmp_predicate(cmp)
        if predicate in (EQ, NE) and {cmp.lhs, cmp.rhs} == {true_value, false_value} and cmp.lhs != cmp.rhs:
            return [true_value if predicate == NE else false_value]
    return folded(_select_elements(c, t, f, op.result.type))


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


FOLDERS: dict[str, Folder] = {
    arith.CmpiOp.name: _fold_cmpi,
    arith.CmpfOp.name: _fold_cmpf,
    arith.SelectOp.name: _fold_select,
}
"""MLIR's folders of the comparisons and ``select``."""
