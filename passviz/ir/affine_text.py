"""Affine maps as MLIR's printer writes them (``AsmPrinter::printAffineExprInternal``),
and read with a bound on their size.

xDSL parenthesizes every binary expression (``(d2 * 2)``, ``((d0 * 2) + d1)``);
MLIR parenthesizes only a sum or product inside a tighter operator
(``d0 * 2 + d1``, ``(d0 + d1) * 2``), and writes ``x + y * -1`` as ``x - y``,
``x + y * -3`` as ``x - y * 3``, ``x + -3`` as ``x - 3`` and ``x * -1`` as ``-x``.

xDSL reads an affine expression of any size, but hashes, simplifies and
prints it recursively, one Python frame per operator, and simplifies it in
time quadratic in its size (exponential in nested ``mod``s): a sum of 3,000
terms raises ``RecursionError``, one of 20,000 takes minutes, and so does
``d0 mod 3`` nested 20 deep.  ``BoundedAffineParser`` refuses a map or set of more
than ``MAX_AFFINE_TERMS`` terms, located at the first term past the limit.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)
from xdsl.parser import AffineParser
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRToken, MLIRTokenKind

from passviz.ir.parse_errors import MlirErrorPositions
from passviz.ir.xdsl_compat import current_token

MAX_AFFINE_TERMS = 256
"""The most terms an affine map or set may have, all its expressions together:
each dimension, symbol, constant, parenthesized expression and negation is
one, and each ``mod`` adds its dividend's again.  Real maps have a handful;
this many keeps an expression's depth, and so every recursive walk of it,
within Python's default recursion limit, and its simplification fast."""

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


class BoundedAffineParser(MlirErrorPositions, AffineParser):
    """xDSL's affine parser, refusing a map or set of more than ``MAX_AFFINE_TERMS`` terms, its
    errors where MLIR reports them (a wrong token: where the text before it ends)."""

    def __init__(self, state: ParserState[MLIRTokenKind]) -> None:
        super().__init__(state)
        self._terms = 0
        """The terms read so far: one parser reads one map or set."""
        self._expanded: dict[int, tuple[AffineExpr, int]] = {}
        """Each expression measured, by ``id`` (kept so that the id stays its), with its size
        as xDSL's simplifier expands it."""

    def _parse_primary(self, parse_optional_bare_id: Callable[[], AffineExpr | None]) -> AffineExpr:
        # Every operand, parenthesized group and negation is read here, once each.
        self._count(1)
        token = current_token(self)
        if (
            token.kind is MLIRTokenKind.INTEGER_LIT
            and int(token.text, 16 if token.text[:2] in ("0x", "0X") else 10) > 2**63 - 1
        ):
            self.raise_error("constant too large for index", at_position=token.span)  # MLIR's limit
        return super()._parse_primary(parse_optional_bare_id)

    def _create_binop_expr(self, lhs: AffineExpr, rhs: AffineExpr, binop: MLIRToken) -> AffineExpr:
        # xDSL simplifies ``a mod b`` as ``a - b * (a floordiv b)``: ``a`` twice, so nested
        # mods expand exponentially; the copy counts as terms of its own.
        if binop.text == "mod":
            self._count(self._expanded_size(lhs), binop.span)
        return super()._create_binop_expr(lhs, rhs, binop)

    def _count(self, terms: int, where: Span | None = None) -> None:
        """Add ``terms``, refusing the map past ``MAX_AFFINE_TERMS`` at ``where`` (the current token)."""
        self._terms += terms
        if self._terms > MAX_AFFINE_TERMS:
            self.raise_error(
                f"affine map or set of more than {MAX_AFFINE_TERMS:,} terms; passviz reads no more",
                at_position=where,
            )

    def _expanded_size(self, root: AffineExpr) -> int:
        """How many terms ``root`` stands for once each ``mod``'s dividend is copied."""
        sizes = self._expanded
        stack = [root]
        while stack:
            expr = stack[-1]
            if id(expr) in sizes:
                stack.pop()
                continue
            if not isinstance(expr, AffineBinaryOpExpr):
                sizes[id(expr)] = (expr, 1)
                continue
            missing = [child for child in (expr.lhs, expr.rhs) if id(child) not in sizes]
            if missing:
                stack.extend(missing)
                continue
            lhs, rhs = sizes[id(expr.lhs)][1], sizes[id(expr.rhs)][1]
            copies = 2 if expr.kind == AffineBinaryOpKind.Mod else 1
            sizes[id(expr)] = (expr, copies * lhs + rhs + 1)
        return sizes[id(root)][1]
