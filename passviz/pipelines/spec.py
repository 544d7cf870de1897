"""Pipeline specs (``a,b{opt=1}``, a named pipeline standing for its passes) as pass instances, every
error one line at its column in the spec."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec, PipelineLexer, SpecTokenKind
from xdsl.utils.arg_spec import parse_pipeline as parse_pipeline_specs
from xdsl.utils.exceptions import ArgSpecParseError

from passviz.compilers.registry import (
    NAMED_PIPELINES,
    available_passes,
    traced_passes,
)
from passviz.ir.errors import PipelineError


def parse_pipeline(spec: str, extra: dict[str, type[ModulePass]] | None = None) -> tuple[ModulePass, ...]:
    """Turn ``a,b{opt=1}`` into pass instances.

    A name from ``NAMED_PIPELINES`` stands for its passes.  Every error is a
    ``PipelineError`` of one line that gives the column in ``spec`` it is at;
    an unknown pass name comes with the known names closest to it.
    """
    passes = available_passes()
    for name, pass_type in (extra or {}).items():
        passes[name] = _constant(pass_type)
    if not spec.strip():
        raise PipelineError("the pipeline is empty: name at least one pass, e.g. -p canonicalize")
    specs: list[tuple[ArgSpec, int]] = []
    for outer, column in _located_specs(spec):
        if outer.name in NAMED_PIPELINES and outer.name not in passes:
            specs.extend((inner, column) for inner, _ in _located_specs(NAMED_PIPELINES[outer.name]))
        else:
            specs.append((outer, column))
    instances: list[ModulePass] = []
    for arg_spec, column in specs:
        if arg_spec.name not in passes:
            raise PipelineError(_at(spec, column, _unknown_pass(arg_spec.name, passes)))
        # MLIR's ``pass{flag}`` sets a flag: a bare name means true.
        flags = {key: value if value != () else (True,) for key, value in arg_spec.parameters.items()}
        arg_spec = ArgSpec(arg_spec.name, flags)
        try:
            instances.append(passes[arg_spec.name]().from_pass_spec(arg_spec))
        except Exception as exc:
            raise PipelineError(_at(spec, column, f"bad options for {arg_spec.name}: {exc}")) from None
    return tuple(instances)


def _constant(pass_type: type[ModulePass]) -> Callable[[], type[ModulePass]]:
    return lambda: pass_type


def _at(spec: str, column: int, message: str) -> str:
    """``message`` located at ``column`` (from 1) of the pipeline ``spec``."""
    return f"pipeline {spec!r}, column {column}: {message}"


_XDSL_SPEC_ERROR = re.compile(r"pass-pipeline:(\d+):(\d+)\n")
"""Where xDSL 0.74 says an ``ArgSpecParseError`` is (it keeps no token): its
text is this location, the spec, a caret line and the message last."""


_MLIR_ANCHOR = re.compile(r"\s*[\w.]+\(")
"""The start of an MLIR-style anchored pipeline, ``builtin.module(...)``."""


def _located_specs(spec: str) -> list[tuple[ArgSpec, int]]:
    """The pass specs of ``spec``, each with the column of its name (from 1)."""
    try:
        specs = list(parse_pipeline_specs(spec))
    except ArgSpecParseError as exc:  # a BaseException in xDSL
        raise PipelineError(_syntax_error(spec, str(exc))) from None
    columns: list[int] = []
    depth = 0
    after_comma = True
    lexer = PipelineLexer(spec)
    while (token := lexer.lex()).kind is not SpecTokenKind.EOF:
        if token.kind is SpecTokenKind.L_BRACE:
            depth += 1
        elif token.kind is SpecTokenKind.R_BRACE:
            depth -= 1
        elif depth == 0 and token.kind is SpecTokenKind.IDENT and after_comma:
            columns.append(token.span.start + 1)
        if depth == 0 and token.kind is not SpecTokenKind.SPACE:
            after_comma = token.kind is SpecTokenKind.COMMA
    if after_comma:
        raise PipelineError(_at(spec, len(spec) + 1, "expected a pass name after ','"))
    return list(zip(specs, columns, strict=True))


def _syntax_error(spec: str, message: str) -> str:
    """xDSL's several-line ``ArgSpecParseError`` text as one line at its column in ``spec``."""
    match = _XDSL_SPEC_ERROR.search(message)
    if match is None:
        return f"pipeline {spec!r}: {message.strip().splitlines()[-1]}"
    line, column = int(match[1]), int(match[2])
    text = [part.strip() for part in message.splitlines() if part.strip()][-1]
    offset = sum(len(earlier) + 1 for earlier in spec.split("\n")[: line - 1]) + column
    text = text.removesuffix(" here")
    text = text[:1].lower() + text[1:]
    if _MLIR_ANCHOR.match(spec):
        text += " (passviz pipelines list passes as 'canonicalize,cse', without MLIR's 'builtin.module(...)')"
    return _at(spec, offset, text)


def _unknown_pass(name: str, passes: Mapping[str, object]) -> str:
    close = difflib.get_close_matches(name, [*passes, *NAMED_PIPELINES], n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
    known = ", ".join(sorted(traced_passes()))
    return (
        f"unknown pass {name!r}{hint}; passviz's traced passes are: {known} "
        "(`passviz passes` lists every pass)"
    )
