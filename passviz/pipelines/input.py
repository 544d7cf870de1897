"""Input IR: decoded, parsed with each op's place kept, and verified, every error located."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.lexer import Span

from passviz.compilers.registry import (
    make_context,
)
from passviz.ir.errors import InputError, IRParseError
from passviz.ir.mlir_parser import MLIRParser
from passviz.ir.structure_checks import OpVerifyError
from passviz.ir.terminal import first_line
from passviz.ir.verify import IncrementalVerifier
from passviz.ir.xdsl_compat import current_token


def parse_ir(text: str, filename: str = "<input>") -> ModuleOp:
    """Parse MLIR text into a module; errors carry line and column."""
    return parse_located(text, filename).module


@dataclass
class ParsedInput:
    """A parsed module and where its ops are in the text."""

    module: ModuleOp
    """The module."""
    op_starts: Mapping[Operation, Span]
    """Where each op of the text begins (ops the parser made up, the implicit module, are not there)."""


def parse_located(text: str, filename: str = "<input>") -> ParsedInput:
    """``parse_ir``, keeping where each op is, to locate the verifier's errors."""
    parser: MLIRParser | None = None
    try:
        parser = MLIRParser(make_context(), text, filename)
        return ParsedInput(parser.parse_module(), parser.op_starts)
    except ParseError as exc:
        location = exc.span.get_location()
        raise IRParseError(filename, location.line, location.col, first_line(exc.msg)) from None
    except _PARSER_FAILURES as exc:
        # What the parser's own located handling missed: say where it stopped.
        line, column = _where(parser)
        problem = "nested too deeply" if isinstance(exc, RecursionError) else f"{type(exc).__name__}: {exc}"
        raise IRParseError(filename, line, column, first_line(problem)) from None


_PARSER_FAILURES = (RecursionError, VerifyException, ValueError, TypeError, AssertionError, LookupError)
"""What xDSL's parser raises besides ``ParseError`` on input it cannot read."""


def _where(parser: MLIRParser | None) -> tuple[int, int]:
    """The line and column ``parser`` has read up to (1:1 if it never started)."""
    if parser is None:
        return 1, 1
    location = current_token(parser).span.get_location()
    return location.line, location.col


def decode_input(data: bytes, filename: str) -> str:
    """``data`` as UTF-8 text; invalid UTF-8 is an ``IRParseError`` at its first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        line_start = before.rfind(b"\n") + 1
        column = len(before[line_start:].decode("utf-8")) + 1
        raise IRParseError(
            filename, line, column, f"invalid UTF-8: byte 0x{data[exc.start]:02x} ({exc.reason})"
        ) from None


def verify_input(
    module: ModuleOp,
    filename: str,
    verifier: IncrementalVerifier | None = None,
    op_starts: Mapping[Operation, Span] | None = None,
) -> None:
    """Reject input the verifier rejects, so that no pass is blamed for it.

    ``verifier``, if given, does the verifying, and so knows the input verified.
    ``op_starts`` (from ``parse_located``) locates the error at the op that
    fails, as ``file:line:col``."""
    try:
        (verifier or IncrementalVerifier(module)).verify()
    except VerifyException as exc:
        message = whole_message(str(exc)) or type(exc).__name__
        culprit = exc.op if isinstance(exc, OpVerifyError) else _failing_op(module) if op_starts else None
        start = _written_start(culprit, op_starts) if op_starts else None
        if start is None:
            raise InputError(f"{filename}: the input does not verify: {message}") from None
        location = start.get_location()
        raise IRParseError(
            filename, location.line, location.col, f"the input does not verify: {message}"
        ) from None


def whole_message(text: str) -> str:
    """A verifier's message on one line: its lines joined (xDSL's constraint errors say what
    does not verify on one line and why on the next), each trimmed."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def _written_start(op: Operation | None, op_starts: Mapping[Operation, Span]) -> Span | None:
    """Where ``op`` begins in the text, or the nearest op holding it that was written there
    (an op of a named linalg op's body is built, not read: the error is the named op's)."""
    while op is not None:
        start = op_starts.get(op)
        if start is not None:
            return start
        op = op.parent_op()
    return None


def _failing_op(module: ModuleOp) -> Operation | None:
    """The first op (in the order the verifier reaches them) whose own checks fail.

    xDSL's ``VerifyException`` does not say which op it is about, so each op
    is verified alone: its place in its block and its own verifier."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except Exception:
            return op
    return None
