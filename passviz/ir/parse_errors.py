"""Where MLIR's parser reports an error that xDSL's parser reports elsewhere.

xDSL blames the token it is looking at when it raises; MLIR blames, for the same failures:

- a token that is not the one expected (``emitWrongTokenError``): where the text before it ends,
  on the line above for a token that begins a line, blank lines and ``//`` comments skipped;
  except a missing keyword, or a function's argument missing after a comma, which it blames on
  the token that is there instead;
- an unknown dialect type or attribute (``!tt.pt``), an undefined alias: the name, not the token
  after it.

``mlir_error_position`` gives that position for a parser about to raise, or None where xDSL's is
MLIR's.  The parsers of ``passviz.ir`` (``MLIRParser``, ``BoundedAffineParser``) raise through it,
by way of ``MlirErrorPositions``.
"""

from __future__ import annotations

import re
from typing import NoReturn

from xdsl.parser.base_parser import BaseParser
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Position, Span

from passviz.ir.xdsl_compat import current_token

_WRONG_TOKEN = re.compile(
    r"(?i)\bexpected\b|^ in block definition$|^Could not parse entire input|must be typed"
)
"""xDSL's messages for a token that is not one the parser expected here."""

_KEYWORD_EXPECTED = re.compile(r"Expected '[A-Za-z_][\w.$-]*'$")
"""xDSL's message for a missing keyword, which MLIR reports at the token that is there instead."""

_NAMED = re.compile(r"^undefined symbol alias '([^']+)'|^'([\w.$-]+)' is not registered")
"""xDSL's messages about a name it has just read (an alias, a dialect type or attribute)."""


def mlir_error_position(
    parser: BaseParser, msg: str, at_position: Span | Position | None, end_position: Position | None
) -> Position | None:
    """Where MLIR reports the error ``parser`` is about to raise with ``msg`` at ``at_position``
    (and ``end_position``), if not where xDSL does."""
    token = current_token(parser).span
    content = parser.lexer.input.content
    if (named := _NAMED.match(msg)) is not None:
        name = named.group(1) or named.group(2)
        candidates = [name] if named.group(1) else [f"!{name}", f"#{name}"]
        found = max(content.rfind(candidate, 0, token.start) for candidate in candidates)
        return None if found < 0 else found
    at_token = at_position is None or (
        isinstance(at_position, Span) and (at_position.start, at_position.end) == (token.start, token.end)
    )
    if (
        at_token
        and end_position is None
        and _WRONG_TOKEN.search(msg)
        and not _KEYWORD_EXPECTED.match(msg)
        and not (msg == "Expected argument or type" and _after_comma(content, token.start))
    ):
        return before_wrong_token(content, token.start, token.start == token.end)
    return None


class MlirErrorPositions(BaseParser):
    """A parser that raises its errors where MLIR reports them (``mlir_error_position``)."""

    def raise_error(  # pyright: ignore[reportIncompatibleMethodOverride]
        self,
        msg: str,
        at_position: Span | Position | None = None,
        end_position: Position | None = None,
    ) -> NoReturn:
        if (where := mlir_error_position(self, msg, at_position, end_position)) is not None:
            raise ParseError(Span(where, where, self.lexer.input), msg)
        if end_position is not None:
            assert isinstance(at_position, Position)
            super().raise_error(msg, at_position, end_position)
        super().raise_error(msg, at_position)


def _after_comma(content: str, position: Position) -> bool:
    """Whether the text before ``position`` ends in a comma: a function's next argument, whose
    absence MLIR reports where the token that is there instead begins ("expected SSA
    identifier"), not as a wrong token (as it does the first argument's)."""
    end = before_wrong_token(content, position, False)
    return end > 0 and content[end - 1] == ","


def before_wrong_token(content: str, position: Position, at_end: bool) -> Position:
    """Where MLIR reports a wrong token at ``position``: after the last text before it, blank
    lines and ``//`` comments skipped (at the end of the input, one character back)."""
    if at_end and position > 0:
        position -= 1
    original = position
    end = position
    while True:
        while end > 0 and content[end - 1] in " \t":
            end -= 1
        if end == 0:
            return original
        if content[end - 1] not in "\n\r":
            return end
        end -= 1
        line_start = max(content.rfind("\n", 0, end), content.rfind("\r", 0, end)) + 1
        comment = content.find("//", line_start, end)
        if comment != -1:
            end = comment
