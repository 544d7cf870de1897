"""MLIR's folders of ``math`` ops (``mlir/lib/Dialect/Math/IR/MathOps.cpp``).

- ``absf``, ``copysign``, ``ceil``, ``floor``, ``roundeven``: every float width
  (``APFloat`` sign and rounding operations, exact in Python);
- ``round``, ``trunc``, ``sqrt`` and the libm functions: ``f32`` and ``f64`` only.
  MLIR calls the host's libm (``expf`` for ``f32``, ``exp`` for ``f64``, ...), and
  so does passviz, through ``ctypes``: the same C library gives the same bits.
  Where no libm can be loaded these ops stay unfolded.
- MLIR gives up on the logarithm of a negative number (``-0.0`` included),
  on ``log1p`` below -1 and on the square root of a negative number.

Checked against Triton 3.6's ``canonicalize`` on each op and float width.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
from collections.abc import Callable
from typing import cast

from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import Float32Type, Float64Type
from xdsl.ir import Attribute, Operation
from xdsl.utils.type import get_element_type_or_self

from passviz.compilers.mlir.canonicalization.arith import Folder, FoldResult
from passviz.rewrite.folders import Scalar, fold_binary, fold_unary
from passviz.rewrite.matchers import constant_attr


def _unary(fn: Callable[[float], float | None], *, f32_f64_only: bool = False) -> Folder:
    """``constFoldUnaryOp<FloatAttr>`` with ``fn`` (None: the element does not fold)."""

    def fold(op: Operation) -> FoldResult | None:
        element_type = get_element_type_or_self(op.results[0].type)
        if f32_f64_only and not isinstance(element_type, Float32Type | Float64Type):
            return None
        folded = fold_unary(constant_attr(op.operands[0]), "float", lambda x: fn(_float(x)))
        return None if folded is None else [folded]

    return fold


def _binary(fn: Callable[[float, float], float]) -> Folder:
    """``constFoldBinaryOp<FloatAttr>`` with ``fn``."""

    def fold(op: Operation) -> FoldResult | None:
        lhs, rhs = (constant_attr(operand) for operand in op.operands)
        folded = fold_binary(lhs, rhs, "float", lambda x, y: fn(_float(x), _float(y)))
        return None if folded is None else [folded]

    return fold


def _float(x: Scalar) -> float:
    assert isinstance(x, float)
    return x


def _not_negative(x: float) -> bool:
    """Not ``APFloat::isNegative`` (which ``-0.0`` is)."""
    return math.copysign(1.0, x) > 0


def _sqrt(x: float) -> float | None:
    # A double's square root rounded once more to f32 equals sqrtf's (53 >= 2 * 24 + 2).
    return math.sqrt(x) if _not_negative(x) else None


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


def _libm_unary(name: str, defined: Callable[[float], bool] = lambda x: True) -> Folder:
    """A folder calling libm's ``name`` (``namef`` for ``f32``) where ``defined``."""

    def fold(op: Operation) -> FoldResult | None:
        function = _libm_function(name, get_element_type_or_self(op.results[0].type), arity=1)
        if function is None:
            return None
        return _unary(lambda x: function(x) if defined(x) else None)(op)

    return fold


def _libm_binary(name: str) -> Folder:
    """A folder calling libm's two-argument ``name`` (``namef`` for ``f32``)."""

    def fold(op: Operation) -> FoldResult | None:
        function = _libm_function(name, get_element_type_or_self(op.results[0].type), arity=2)
        return None if function is None else _binary(function)(op)

    return fold


@functools.cache
def _libm() -> ctypes.CDLL | None:
    """The C math library, or None where there is none to load."""
    path = ctypes.util.find_library("m")
    try:
        return ctypes.CDLL(path) if path is not None else None
    except OSError:
        return None


@functools.cache
def _libm_function(name: str, type: Attribute, *, arity: int) -> Callable[..., float] | None:
    """libm's ``name`` for ``f64`` and ``namef`` for ``f32`` (of ``arity`` arguments),
    as MLIR's folders call them."""
    library = _libm()
    if library is None or not isinstance(type, Float32Type | Float64Type):
        return None
    c_type = ctypes.c_float if isinstance(type, Float32Type) else ctypes.c_double
    function = getattr(library, name + ("f" if isinstance(type, Float32Type) else ""), None)
    if function is None:
        return None
    function.restype = c_type
    function.argtypes = [c_type] * arity
    return cast(Callable[..., float], function)


_LIBM_EVERYWHERE = (
    *("exp", "exp2", "expm1", "sin", "cos", "tan", "tanh"),
    *("sinh", "cosh", "asin", "acos", "atan", "erf"),
)
"""The libm functions MLIR folds at every argument (a NaN result included)."""


FOLDERS: dict[str, Folder] = {
    xmath.AbsFOp.name: _unary(abs),
    xmath.CeilOp.name: _unary(_integral(math.ceil)),
    xmath.FloorOp.name: _unary(_integral(math.floor)),
    xmath.RoundEvenOp.name: _unary(_integral(round)),
    xmath.CopySignOp.name: _binary(math.copysign),
    xmath.TruncOp.name: _unary(_integral(math.trunc), f32_f64_only=True),
    xmath.RoundOp.name: _unary(_round_half_away, f32_f64_only=True),
    xmath.SqrtOp.name: _unary(_sqrt, f32_f64_only=True),
    **{f"math.{name}": _libm_unary(name) for name in _LIBM_EVERYWHERE},
    **{f"math.{name}": _libm_unary(name, _not_negative) for name in ("log", "log2", "log10")},
    "math.log1p": _libm_unary("log1p", lambda x: x >= -1.0),
    "math.powf": _libm_binary("pow"),
    "math.atan2": _libm_binary("atan2"),
}
"""MLIR's folder of each ``math`` op that has one and passviz computes as MLIR does."""
