"""Recording a pipeline run on a module, text or file as a trace."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib.metadata import version
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from passviz.compilers.registry import (
    ALIASED_ATTRIBUTES,
    make_context,
    recorded_dispatch,
    recorded_syntax,
)
from passviz.ir.collection import fewer_collections
from passviz.ir.errors import InputError
from passviz.ir.verify import IncrementalVerifier
from passviz.pipelines.input import decode_input, parse_located, verify_input
from passviz.pipelines.load import readable
from passviz.pipelines.spec import parse_pipeline
from passviz.recording.recorder import RecordOptions, Tracer
from passviz.trace.model import Trace, TraceMeta
from passviz.trace.store import TraceWriter
from passviz.version import __version__


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
    if (dispatch := recorded_dispatch()) is not None:
        meta["dispatch"] = dispatch
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
