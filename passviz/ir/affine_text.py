"""Affine maps as MLIR's printer writes them (``AsmPrinter::printAffineExprInternal``).

xDSL parenthesizes every binary expression (``(d2 * 2)``, ``((d0 * 2) + d1)``);
MLIR parenthesizes only a sum or product inside a tighter operator
(``d0 * 2 + d1``, ``(d0 + d1) * 2``), and writes ``x + y * -1`` as ``x - y``,
``x + y * -3`` as ``x - y * 3``, ``x + -3`` as ``x - 3`` and ``x * -1`` as ``-x``.
"""

from __future__ import annotations

from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)

_SPELLING = {
    AffineBinaryOpKind.Add: " + ",
    AffineBinaryOpKind.Mul: " * ",
    AffineBinaryOpKind.FloorDiv: " floordiv ",
    AffineBinaryOpKind.CeilDiv: " ceildiv ",
    AffineBinaryOpKind.Mod: " mod ",
}
"""Each binary operator as MLIR spells it, spaces included."""


def affine_expr_text(expr: AffineExpr, strong: bool = False) -> str:
    """``expr`` as MLIR prints it; ``strong`` where it is an operand of a tight operator."""
    if isinstance(expr, AffineDimExpr):
        return f"d{expr.position}"
    if isinstance(expr, AffineSymExpr):
        return f"s{expr.position}"
    if isinstance(expr, AffineConstantExpr):
        return str(expr.value)
    assert isinstance(expr, AffineBinaryOpExpr)
    text = _binary_text(expr)
    return f"({text})" if strong else text


def _binary_text(expr: AffineBinaryOpExpr) -> str:
    lhs, rhs = expr.lhs, expr.rhs
    if expr.kind != AffineBinaryOpKind.Add:
        if expr.kind == AffineBinaryOpKind.Mul and isinstance(rhs, AffineConstantExpr) and rhs.value == -1:
            return "-" + affine_expr_text(lhs, True)
        return affine_expr_text(lhs, True) + _SPELLING[expr.kind] + affine_expr_text(rhs, True)
    if (
        isinstance(rhs, AffineBinaryOpExpr)
        and rhs.kind == AffineBinaryOpKind.Mul
        and isinstance(rhs.rhs, AffineConstantExpr)
    ):
        factor = rhs.rhs.value
        if factor == -1:
            tight = isinstance(rhs.lhs, AffineBinaryOpExpr) and rhs.lhs.kind == AffineBinaryOpKind.Add
            return affine_expr_text(lhs) + " - " + affine_expr_text(rhs.lhs, tight)
        if factor < -1:
            return affine_expr_text(lhs) + " - " + affine_expr_text(rhs.lhs, True) + f" * {-factor}"
    if isinstance(rhs, AffineConstantExpr) and rhs.value < 0:
        return affine_expr_text(lhs) + f" - {-rhs.value}"
    return affine_expr_text(lhs) + " + " + affine_expr_text(rhs)


def affine_map_text(map_: AffineMap) -> str:
    """``map_`` as MLIR prints it inside ``affine_map<...>``: ``(d0, d1)[s0] -> (d0 * 2 + s0)``."""
    dims = ", ".join(f"d{i}" for i in range(map_.num_dims))
    symbols = ", ".join(f"s{i}" for i in range(map_.num_symbols))
    head = f"({dims})" + (f"[{symbols}]" if map_.num_symbols else "")
    return f"{head} -> ({', '.join(affine_expr_text(result) for result in map_.results)})"
