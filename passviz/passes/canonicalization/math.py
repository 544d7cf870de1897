"""MLIR's folders of ``math`` ops whose result passviz can compute exactly as MLIR does.

Each follows its ``fold`` in ``mlir/lib/Dialect/Math/IR/MathOps.cpp``:

- ``absf``, ``copysign``, ``ceil``, ``floor``, ``trunc``, ``round``,
  ``roundeven``: exact for every width (``APFloat`` sign and rounding operations);
- ``sqrt``: only ``f32`` and ``f64`` and only a non-negative operand (MLIR
  calls ``sqrtf``/``sqrt`` and gives up on ``-0.0`` too); a double's square
  root rounded once more to ``f32`` equals ``sqrtf``'s (53 >= 2 * 24 + 2).

The transcendental folders (``exp``, ``log``, ``sin``, ``tanh`` ...) call the
host's libm, whose last bit passviz cannot promise to match, so they are left
out: such an op stays unfolded, as it would under a libm that fails.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import Float32Type, Float64Type
from xdsl.ir import Operation
from xdsl.utils.type import get_element_type_or_self

from passviz.dialects.matchers import constant_attr
from passviz.passes.canonicalization.arith import Folder, FoldResult
from passviz.passes.canonicalization.folders import Scalar, fold_binary, fold_unary


def _unary(fn: Callable[[float], float | None], *, f32_f64_only: bool = False) -> Folder:
    """``constFoldUnaryOp<FloatAttr>`` with ``fn`` (None: the element does not fold)."""

    def element(x: Scalar) -> Scalar | None:
        assert isinstance(x, float)
        return fn(x)

    def fold(op: Operation) -> FoldResult | None:
        element_type = get_element_type_or_self(op.results[0].type)
        if f32_f64_only and not isinstance(element_type, Float32Type | Float64Type):
            return None
        folded = fold_unary(constant_attr(op.operands[0]), "float", element)
        return None if folded is None else [folded]

    return fold


def _sqrt(x: float) -> float | None:
    if math.copysign(1.0, x) < 0:  # APFloat::isNegative: -0.0 included
        return None
    return math.sqrt(x)


def _round_half_away(x: float) -> float:
    """``APFloat::roundToIntegral(rmNearestTiesToAway)``."""
    if not math.isfinite(x):
        return x
    return math.copysign(math.floor(abs(x) + 0.5), x)


def _integral(fn: Callable[[float], int]) -> Callable[[float], float]:
    """An ``APFloat::roundToIntegral`` mode: infinities and NaN pass through, signs stay."""

    def apply(x: float) -> float:
        if not math.isfinite(x):
            return x
        return math.copysign(float(fn(x)), x)

    return apply


def _fold_copysign(op: Operation) -> FoldResult | None:
    def element(x: Scalar, y: Scalar) -> Scalar | None:
        assert isinstance(x, float) and isinstance(y, float)
        return math.copysign(x, y)

    lhs, rhs = (constant_attr(operand) for operand in op.operands)
    folded = fold_binary(lhs, rhs, "float", element)
    return None if folded is None else [folded]


FOLDERS: dict[str, Folder] = {
    xmath.AbsFOp.name: _unary(abs),
    xmath.CeilOp.name: _unary(_integral(math.ceil)),
    xmath.FloorOp.name: _unary(_integral(math.floor)),
    xmath.TruncOp.name: _unary(_integral(math.trunc)),
    xmath.RoundOp.name: _unary(_round_half_away),
    xmath.RoundEvenOp.name: _unary(_integral(round)),
    xmath.SqrtOp.name: _unary(_sqrt, f32_f64_only=True),
    xmath.CopySignOp.name: _fold_copysign,
}
"""MLIR's folder of each ``math`` op whose result passviz computes exactly."""
