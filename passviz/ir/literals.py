"""Literals that xDSL 0.74 turns into Python objects without bounds: refused, located, first.

- An integer literal is converted with ``int(text, 10)``
  (``MLIRTokenKind.get_int_value``); past Python's limit of 4,300 digits for
  converting between ``int`` and ``str`` that raises ``ValueError`` inside the
  parser, with no location.  ``BoundedLexer`` refuses longer literals as a
  parse error at the literal.  A hex literal converts at any length, but its
  value could not be printed back, so it is held to the same value size.
  This stands for the same check in xDSL's ``MLIRLexer._lex_number``.
- ``dense<0> : tensor<300000000xi8>`` is 64 bytes of text, but xDSL's
  ``AttrParser.parse_dense_int_or_fp_elements_attr`` builds a Python list of
  every element (3.8 GB here) before packing them, and every print unpacks
  them again.  ``dense_size_problem`` refuses a dense literal of more than
  ``MAX_DENSE_ELEMENTS`` elements before anything is allocated; it stands for
  a limit MLIR does not have, since MLIR stores a splat as one value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.utils.exceptions import ParseError
from xdsl.utils.mlir_lexer import MLIRToken, MLIRTokenKind

from passviz.ir.string_lexer import LinearStringLexer

MAX_INTEGER_DIGITS = 4_300
"""The most decimal digits of an integer literal (Python's default
``sys.get_int_max_str_digits()``); a hex literal's value must have no more."""

MAX_DENSE_ELEMENTS = 1 << 20
"""The most elements a ``dense<...>`` literal may stand for (1,048,576: a
1024x1024 splat).  xDSL keeps one Python object per element while parsing
and printing, so more would cost gigabytes."""

_INTEGER_BOUND = 10**MAX_INTEGER_DIGITS
"""The smallest value with more than ``MAX_INTEGER_DIGITS`` digits."""

_SHORT_HEX = 3_571
"""Hex literals of this many digits or fewer are below ``_INTEGER_BOUND`` (16^3571 < 10^4300)."""


class BoundedLexer(LinearStringLexer):
    """xDSL's MLIR lexer (with linear string literals) refusing integer literals
    longer than ``MAX_INTEGER_DIGITS`` digits."""

    def lex(self) -> MLIRToken:
        token = super().lex()
        if token.kind is MLIRTokenKind.INTEGER_LIT and _too_long(token.text):
            raise ParseError(
                token.span,
                f"integer literal too large: passviz reads values of at most "
                f"{MAX_INTEGER_DIGITS:,} decimal digits",
            )
        return token


def _too_long(text: str) -> bool:
    if text[:2] not in ("0x", "0X"):
        return len(text) > MAX_INTEGER_DIGITS
    # Hex converts in linear time; only the value's size matters, and up to
    # _SHORT_HEX digits it is below the bound.
    return len(text) - 2 > _SHORT_HEX and int(text, 16) >= _INTEGER_BOUND


def dense_size_problem(shape: Sequence[int]) -> str | None:
    """Why a dense literal of ``shape`` is refused, or None if it is not."""
    count = math.prod(shape)
    if count <= MAX_DENSE_ELEMENTS:
        return None
    return (
        f"dense literal of {count:,} elements is larger than passviz reads "
        f"(at most {MAX_DENSE_ELEMENTS:,} elements)"
    )
