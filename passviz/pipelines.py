"""Running pipelines: parse IR and pipeline specs, record a trace, load traces."""

from __future__ import annotations

import difflib
import hashlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import cache
from importlib.metadata import version
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec, PipelineLexer, SpecTokenKind
from xdsl.utils.arg_spec import parse_pipeline as parse_pipeline_specs
from xdsl.utils.exceptions import ArgSpecParseError, ParseError, VerifyException
from xdsl.utils.lexer import Span

from passviz.compilers.registry import (
    ALIASED_ATTRIBUTES,
    NAMED_PIPELINES,
    available_passes,
    make_context,
    recorded_syntax,
    syntax_problems,
    traced_passes,
    use_recorded_syntax,
)
from passviz.ir.collection import fewer_collections
from passviz.ir.errors import InputError, IRParseError, PipelineError
from passviz.ir.mlir_parser import MLIRParser
from passviz.ir.structure_checks import OpVerifyError
from passviz.ir.terminal import first_line
from passviz.ir.verify import IncrementalVerifier
from passviz.ir.xdsl_compat import current_token
from passviz.recording.initial import ensure_initial
from passviz.recording.recorder import RecordOptions, Tracer
from passviz.recording.replay import Replayer, ReplayError
from passviz.trace.model import Trace, TraceMeta
from passviz.trace.store import TraceWriter, read_trace
from passviz.version import __version__

__all__ = ["NAMED_PIPELINES", "IRParseError", "InputError", "PipelineError"]


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
        message = first_line(str(exc)) or type(exc).__name__
        culprit = exc.op if isinstance(exc, OpVerifyError) else _failing_op(module) if op_starts else None
        start = op_starts.get(culprit) if op_starts and culprit is not None else None
        if start is None:
            raise InputError(f"{filename}: the input does not verify: {message}") from None
        location = start.get_location()
        raise IRParseError(
            filename, location.line, location.col, f"the input does not verify: {message}"
        ) from None


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


def load_pass_module(source: str) -> dict[str, type[ModulePass]]:
    """The passes defined in a Python file or importable module, by name.

    This is how a user's own passes and patterns (the ones being debugged)
    join a pipeline: ``passviz trace in.mlir --passes-from my_passes.py -p my-pass``.
    """
    path = Path(source)
    try:
        if path.suffix == ".py":
            spec = importlib.util.spec_from_file_location(_private_module_name(path), path)
            if spec is None or spec.loader is None:
                raise PipelineError(f"cannot load passes from {source}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module  # dataclasses look their module up there
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(source)
    except PipelineError:
        raise
    except Exception as exc:
        raise PipelineError(f"cannot load passes from {source}: {exc}") from None
    found: dict[str, type[ModulePass]] = {}
    for value in vars(module).values():
        if (
            isinstance(value, type)
            and issubclass(value, ModulePass)
            and value.__module__ == module.__name__
            and isinstance(getattr(value, "name", None), str)
            and not inspect.isabstract(value)
        ):
            found[value.name] = value
    return found


def _private_module_name(path: Path) -> str:
    """A module name for the user's file ``path`` that no importable module has.

    The file is registered in ``sys.modules`` (dataclasses look their module up
    there), so ``typing.py`` must not go in as ``typing``: the name is made from
    the file's stem and a digest of its full path."""
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    stem = re.sub(r"\W", "_", path.stem)
    return f"_passviz_user_{stem}_{digest}"


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


@dataclass
class TraceRun:
    """The outcome of recording a pipeline."""

    trace: Trace
    """The recorded trace."""
    tracer: Tracer
    """The tracer (its ``snapshots`` are filled in check mode)."""
    module: ModuleOp
    """The module after the run."""


def record(
    text: str | ModuleOp,
    pipeline: str | Sequence[ModulePass],
    *,
    filename: str = "<input>",
    output: str | Path | None = None,
    options: RecordOptions | None = None,
    extra_passes: dict[str, type[ModulePass]] | None = None,
) -> TraceRun:
    """Run ``pipeline`` on ``text`` (MLIR text, or a module, which is copied) and
    record the trace (to ``output`` too).

    ``pipeline`` is a spec (``"canonicalize,cse"``) or pass instances, any
    ``ModulePass`` (one defined in a notebook cell too): a plain xDSL pass is
    recorded pattern application by pattern application."""
    with fewer_collections():
        return _record(
            text, pipeline, filename=filename, output=output, options=options, extra_passes=extra_passes
        )


def _record(
    text: str | ModuleOp,
    pipeline: str | Sequence[ModulePass],
    *,
    filename: str,
    output: str | Path | None,
    options: RecordOptions | None,
    extra_passes: dict[str, type[ModulePass]] | None,
) -> TraceRun:
    """``record``'s work."""
    options = options or RecordOptions()
    if isinstance(pipeline, str):
        passes = parse_pipeline(pipeline, extra_passes)
        spec = pipeline
    else:
        passes = tuple(pipeline)
        spec = ",".join(_spec_of(p) for p in passes)
    if isinstance(text, ModuleOp):
        module, initial_ir, op_starts = text.clone(), None, None
    else:
        parsed = parse_located(text, filename)
        module, initial_ir, op_starts = parsed.module, text, parsed.op_starts
    verifier = IncrementalVerifier(module)
    verify_input(module, filename, verifier, op_starts)
    meta = TraceMeta(
        input=filename,
        pipeline=spec,
        passviz_version=__version__,
        xdsl_version=_xdsl_version(),
        verify_each=options.verify_each,
        syntax=recorded_syntax(),
        aliases=dict(ALIASED_ATTRIBUTES),
    )
    writer = TraceWriter.to_path(output) if output is not None else None
    tracer = Tracer(module, meta, writer=writer, options=options, initial_ir=initial_ir, verifier=verifier)
    trace = tracer.run(make_context(), passes)
    readable(trace)
    return TraceRun(trace, tracer, module)


@cache
def _xdsl_version() -> str:
    """The installed xDSL's version, read once: reading package metadata takes
    a third of a millisecond, a third of Triton's whole make_ttir on a small kernel."""
    return version("xdsl")


def _spec_of(pass_: ModulePass) -> str:
    """How a pipeline spec names a pass instance (its class name if its options do not print)."""
    try:
        return str(pass_.pipeline_pass_spec())
    except Exception:
        return getattr(pass_, "name", None) or type(pass_).__name__


def record_file(
    path: str | Path,
    pipeline: str,
    *,
    output: str | Path | None = None,
    options: RecordOptions | None = None,
    extra_passes: dict[str, type[ModulePass]] | None = None,
) -> TraceRun:
    """``record`` on the contents of a file; ``output`` may not be that file."""
    if output is not None and _same_file(path, output):
        raise InputError(f"{output}: the trace would overwrite the input; write it elsewhere (-o)")
    text = decode_input(Path(path).read_bytes(), str(path))
    return record(
        text, pipeline, filename=str(path), output=output, options=options, extra_passes=extra_passes
    )


def _same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve() or os.path.samefile(a, b)
    except OSError:  # b does not exist yet
        return False


def _constant(pass_type: type[ModulePass]) -> Callable[[], type[ModulePass]]:
    return lambda: pass_type


def load_trace(path: str | Path, *, validate: bool = False) -> Trace:
    """Read a trace file (``validate``: every record against the schema), ready for replay."""
    return readable(read_trace(path, validate=validate))


def readable(trace: Trace) -> Trace:
    """``trace``, replayed with passviz's dialects in the syntax it was recorded in
    (``meta.syntax``), whatever Triton is installed here, and with its initial state: a
    version 1 file's is computed by replay once, here, if its initial IR replays (if not,
    replaying it again says why, when asked)."""
    syntax = trace.meta.get("syntax")
    trace.context_factory = make_context
    trace.syntax_scope = lambda: use_recorded_syntax(syntax)
    trace.replayer = Replayer
    trace.warnings.extend(syntax_problems(syntax))
    with suppress(ReplayError):
        ensure_initial(trace)
    return trace
