"""The Toy lexer: the tutorial's tokens, each with where it starts in the file."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from passviz.ir.errors import InputError


@dataclass(frozen=True)
class Location:
    """Where a token or AST node starts in a Toy file."""

    file: str
    """The file name as given on the command line."""
    line: int
    """1-based line."""
    col: int
    """1-based column."""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class ToyError(InputError):
    """A Toy file that cannot be compiled, located as ``file:line:col: message``."""

    def __init__(self, location: Location, message: str) -> None:
        super().__init__(f"{location}: {message}")
        self.location = location
        """Where the problem is."""
        self.message = message
        """The message without its location."""


class Kind(Enum):
    """The kinds of tokens; punctuation is ``CHAR`` with the character as text."""

    EOF = "EOF"
    RETURN = "return"
    VAR = "var"
    DEF = "def"
    IDENTIFIER = "identifier"
    NUMBER = "number"
    CHAR = "char"


@dataclass(frozen=True)
class Token:
    """One token of a Toy file."""

    kind: Kind
    """What it is."""
    text: str
    """Its characters (empty at the end of the file)."""
    location: Location
    """Where it starts."""

    def describe(self) -> str:
        """The token as error messages name it."""
        if self.kind is Kind.EOF:
            return "end of file"
        if self.kind is Kind.CHAR:
            return f"'{self.text}'"
        if self.kind in (Kind.IDENTIFIER, Kind.NUMBER):
            return f"{self.kind.value} '{self.text}'"
        return f"keyword '{self.text}'"


_KEYWORDS = {"return": Kind.RETURN, "var": Kind.VAR, "def": Kind.DEF}
_TOKEN = re.compile(
    r"(?P<space>[ \t\r\f\v]+)|(?P<newline>\n)|(?P<comment>#[^\n]*)"
    r"|(?P<identifier>[A-Za-z][A-Za-z0-9_]*)|(?P<number>[0-9.]+)|(?P<char>.)",
    re.DOTALL,
)
_FLOAT = re.compile(r"[0-9]*\.?[0-9]*")


def tokenize(text: str, filename: str) -> list[Token]:
    """The tokens of ``text``, ending with an ``EOF`` token.

    As the tutorial's lexer: ``#`` starts a comment to the end of the line, a
    number is a run of digits and dots, anything else is a one-character token.
    """
    tokens: list[Token] = []
    line, line_start = 1, 0
    for match in _TOKEN.finditer(text):
        group = match.lastgroup
        if group == "newline":
            line, line_start = line + 1, match.end()
            continue
        if group in ("space", "comment"):
            continue
        location = Location(filename, line, match.start() - line_start + 1)
        word = match.group()
        if group == "identifier":
            tokens.append(Token(_KEYWORDS.get(word, Kind.IDENTIFIER), word, location))
        elif group == "number":
            if _FLOAT.fullmatch(word) is None or word == ".":
                raise ToyError(location, f"Parse error: invalid number '{word}'")
            tokens.append(Token(Kind.NUMBER, word, location))
        else:
            tokens.append(Token(Kind.CHAR, word, location))
    end_col = len(text) - line_start + 1
    tokens.append(Token(Kind.EOF, "", Location(filename, line, end_col)))
    return tokens
