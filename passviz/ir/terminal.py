"""Text from a trace, made safe to print on a terminal.

Names, messages and IR texts in a trace file come from anywhere.  Printed
raw, an escape sequence among them could retitle the terminal, rewrite
lines already shown or write the clipboard.  ``printable`` spells every
control character (C0, DEL, C1) and every bidirectional override, which
can make text read other than it runs, as a visible escape such as
``\\x1b``; ``one_line`` does the same to line breaks, for fields that are
printed one per line.  A lone surrogate (JSON's ``"\\ud800"``, or a file
name that is not UTF-8) cannot be written as UTF-8 at all: it too becomes
its escape, ``\\ud800``.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""Characters that a terminal acts on or that reorder text, and lone surrogates (tab and newline aside)."""

_CONTROL_OR_BREAK = re.compile(_CONTROL.pattern[:-1] + r"\t\n\u2028\u2029]")
"""The same, with tab, newline and the Unicode line and paragraph separators."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control character but tab and newline written as an escape."""
    return _CONTROL.sub(_escape, text)


def one_line(text: str) -> str:
    """``text`` on one line, every control character (line breaks too) written as an escape."""
    return _CONTROL_OR_BREAK.sub(_escape, text)


_CARET_LINE = re.compile(r"\s*\^+\s*")


def first_line(text: str) -> str:
    """The first line of ``text`` that is not blank, stripped ("" if there is none)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


ERROR_CHARS = 2000
"""The most characters of an error message printed: the rest of one naming a crafted
id of millions of digits would flood the terminal."""


def error_line(message: str) -> str:
    """An error message as one printable line, at most ``ERROR_CHARS`` long (and a note).

    xDSL's parse errors span several lines (location, the source line, a
    caret under it, the message); they become the location and the message.
    Of any other message, the first line is kept."""
    lines = [line for line in message.splitlines() if line.strip()]
    if not lines:
        return ""
    if len(lines) >= 3 and _CARET_LINE.fullmatch(lines[-2]):
        line = one_line(f"{lines[0].rstrip(': ')}: {lines[-1].strip()}")
    else:
        line = one_line(lines[0])
    if len(line) <= ERROR_CHARS:
        return line
    return f"{line[:ERROR_CHARS]}... ({len(line) - ERROR_CHARS:,} more characters)"
