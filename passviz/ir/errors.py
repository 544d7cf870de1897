"""The located errors of bad input: IR that does not parse or verify, a bad pipeline spec."""

from __future__ import annotations


class InputError(ValueError):
    """Input IR that cannot be traced: it does not parse, or does not verify."""


class IRParseError(InputError):
    """Input IR that does not parse, located as ``file:line:col``."""

    def __init__(self, filename: str, line: int, column: int, message: str) -> None:
        super().__init__(f"{filename}:{line}:{column}: {message}")
        self.filename = filename
        self.line = line
        self.column = column
        self.message = message


class PipelineError(ValueError):
    """A pipeline spec that names an unknown pass or bad options."""
