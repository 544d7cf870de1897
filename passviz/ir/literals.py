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
- ``i2000000000`` is a type xDSL takes, and a constant of it costs gigabytes
  to fold, print or run.  ``integer_width_problem`` refuses integer types
  wider than ``MAX_INTEGER_WIDTH`` bits, MLIR's own limit, in MLIR's words.

``BoundedLexer`` also reads the commonest tokens (identifiers, integers,
punctuation) with one regular expression, and hands anything else to xDSL's
character-by-character lexer: the same tokens, a quarter of parsing time less.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import MLIRToken, MLIRTokenKind

from passviz.ir.string_lexer import LinearStringLexer

MAX_INTEGER_DIGITS = 4_300
"""The most decimal digits of an integer literal (Python's default
``sys.get_int_max_str_digits()``); a hex literal's value must have no more."""

MAX_DENSE_ELEMENTS = 1 << 20
"""The most elements a ``dense<...>`` literal may stand for (1,048,576: a
1024x1024 splat).  xDSL keeps one Python object per element while parsing
and printing, so more would cost gigabytes."""

MAX_INTEGER_WIDTH = (1 << 24) - 1
"""The widest integer type, in bits (16,777,215): MLIR's ``IntegerType::kMaxWidth``."""

_INTEGER_TYPE = re.compile(r"[su]?i([0-9]+)")
"""An integer type's name (``i32``, ``si8``, ``ui1``); the group is its width."""

_WIDTH_DIGITS = len(str(MAX_INTEGER_WIDTH))
"""Digits of ``MAX_INTEGER_WIDTH``: a width with more (less leading zeros) is too wide."""

_INTEGER_BOUND = 10**MAX_INTEGER_DIGITS
"""The smallest value with more than ``MAX_INTEGER_DIGITS`` digits."""

_SHORT_HEX = 3_571
"""Hex literals of this many digits or fewer are below ``_INTEGER_BOUND`` (16^3571 < 10^4300)."""


_SUFFIX_ID = r"(?:[0-9]+|[a-zA-Z$._][a-zA-Z0-9$._-]*)"
"""``MLIRLexer._suffix_id`` less a leading ``-`` (``#-}`` ends file metadata: left to xDSL)."""

_COMMON_TOKEN = re.compile(
    r"(?>(?://[^\n]*\n?|\s+)*)"  # MLIRLexer._whitespace_regex, never given back
    r"(?:(?P<bare>[a-zA-Z_][a-zA-Z0-9_$.]*)"
    rf"|(?P<percent>%{_SUFFIX_ID})|(?P<hash>#{_SUFFIX_ID})|(?P<bang>!{_SUFFIX_ID})|(?P<caret>\^{_SUFFIX_ID})"
    r"|(?P<at>@[a-zA-Z_][a-zA-Z0-9_$.]*)"
    r"|(?P<int>(?!0x[0-9a-fA-F])[0-9]+(?![0-9.]))"  # not hex, not a float
    r"|(?P<arrow>->)|(?P<punct>[:,()}\[\]<>=+*?|]))",
    re.ASCII,
)
"""White space and comments, then a token ``MLIRLexer.lex`` reads the same way;
anything else (strings, floats, hex, ``{``, ``-``, ``/``, ``...``, the end) does not match."""

_KINDS: dict[str, MLIRTokenKind] = {
    "bare": MLIRTokenKind.BARE_IDENT,
    "percent": MLIRTokenKind.PERCENT_IDENT,
    "hash": MLIRTokenKind.HASH_IDENT,
    "bang": MLIRTokenKind.EXCLAMATION_IDENT,
    "caret": MLIRTokenKind.CARET_IDENT,
    "at": MLIRTokenKind.AT_IDENT,
    "int": MLIRTokenKind.INTEGER_LIT,
    "arrow": MLIRTokenKind.ARROW,
}
"""The kind of each named group of ``_COMMON_TOKEN`` but ``punct``."""

_PUNCTUATION: dict[str, MLIRTokenKind] = {
    ":": MLIRTokenKind.COLON,
    ",": MLIRTokenKind.COMMA,
    "(": MLIRTokenKind.L_PAREN,
    ")": MLIRTokenKind.R_PAREN,
    "}": MLIRTokenKind.R_BRACE,
    "[": MLIRTokenKind.L_SQUARE,
    "]": MLIRTokenKind.R_SQUARE,
    "<": MLIRTokenKind.LESS,
    ">": MLIRTokenKind.GREATER,
    "=": MLIRTokenKind.EQUAL,
    "+": MLIRTokenKind.PLUS,
    "*": MLIRTokenKind.STAR,
    "?": MLIRTokenKind.QUESTION,
    "|": MLIRTokenKind.VERTICAL_BAR,
}
"""The single-character tokens ``_COMMON_TOKEN`` reads (``MLIRLexer.lex``'s table less ``/``)."""


class BoundedLexer(LinearStringLexer):
    """xDSL's MLIR lexer (with linear string literals) refusing integer literals
    longer than ``MAX_INTEGER_DIGITS`` digits."""

    def lex(self) -> MLIRToken:
        common = _COMMON_TOKEN.match(self.input.content, self.pos)
        if common is not None:
            group = common.lastgroup
            assert group is not None
            start, end = common.span(group)
            self.pos = end
            kind = _PUNCTUATION[common[group]] if group == "punct" else _KINDS[group]
            token = Token(kind, Span(start, end, self.input))
        else:
            token = super().lex()
        if token.kind in (MLIRTokenKind.INTEGER_LIT, MLIRTokenKind.FLOAT_LIT) and not token.text.isascii():
            # xDSL starts a number at any str.isnumeric() character and Python's int() reads any
            # Unicode digit; MLIR's lexer knows ASCII digits only.
            at = token.span.start + next(i for i, char in enumerate(token.text) if not char.isascii())
            raise ParseError(Span(at, at + 1, self.input), "unexpected character")
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


def integer_width_problem(name: str) -> str | None:
    """Why the type named ``name`` is refused (an integer type wider than MLIR allows), or None."""
    match = _INTEGER_TYPE.fullmatch(name)
    if match is None:
        return None
    # A width of thousands of digits is not even converted to an int.
    digits = match[1].lstrip("0")
    if len(digits) <= _WIDTH_DIGITS and int(digits or "0") <= MAX_INTEGER_WIDTH:
        return None
    return f"integer bitwidth is limited to {MAX_INTEGER_WIDTH} bits"


def dense_size_problem(shape: Sequence[int]) -> str | None:
    """Why a dense literal of ``shape`` is refused, or None if it is not."""
    count = math.prod(shape)
    if count <= MAX_DENSE_ELEMENTS:
        return None
    return (
        f"dense literal of {count:,} elements is larger than passviz reads "
        f"(at most {MAX_DENSE_ELEMENTS:,} elements)"
    )
