"""Running pipelines: parse IR and pipeline specs, record a trace, load traces."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_pipeline as parse_pipeline_specs
from xdsl.utils.exceptions import ParseError, VerifyException

import passviz
from passviz.dialects import make_context
from passviz.dialects.triton_version import TritonVersion, triton_version
from passviz.passes import available_passes, traced_passes
from passviz.trace.mlir_parser import MLIRParser
from passviz.trace.model import Trace, TraceMeta
from passviz.trace.recorder import RecordOptions, Tracer
from passviz.trace.store import TraceWriter, read_trace
from passviz.trace.verify import IncrementalVerifier


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


def parse_ir(text: str, filename: str = "<input>") -> ModuleOp:
    """Parse MLIR text into a module; errors carry line and column."""
    ctx = make_context()
    try:
        return MLIRParser(ctx, text, filename).parse_module()
    except ParseError as exc:
        location = exc.span.get_location()
        raise IRParseError(filename, location.line, location.col, exc.msg) from None


def verify_input(module: ModuleOp, filename: str, verifier: IncrementalVerifier | None = None) -> None:
    """Reject input the verifier rejects, so that no pass is blamed for it.

    ``verifier``, if given, does the verifying, and so knows the input verified."""
    try:
        (verifier or IncrementalVerifier(module)).verify()
    except VerifyException as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        raise InputError(f"{filename}: the input does not verify: {lines[0] if lines else exc}") from None


def load_pass_module(source: str) -> dict[str, type[ModulePass]]:
    """The passes defined in a Python file or importable module, by name.

    This is how a user's own passes and patterns (the ones being debugged)
    join a pipeline: ``passviz trace in.mlir --passes-from my_passes.py -p my-pass``.
    """
    path = Path(source)
    try:
        if path.suffix == ".py":
            spec = importlib.util.spec_from_file_location(path.stem, path)
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


MAKE_TTIR: Mapping[TritonVersion, str] = {
    (3, 6): (
        "inline,triton-rewrite-tensor-pointer,canonicalize,triton-combine,"
        "triton-reorder-broadcast,cse,symbol-dce,triton-loop-unroll"
    ),
    (3, 9): "inline,canonicalize,triton-combine,triton-reorder-broadcast,cse,symbol-dce,triton-loop-unroll",
}
"""``make_ttir`` of each modelled Triton for CUDA targets of compute capability
9.0 and up (below that, Triton also rewrites tensor descriptors to pointers,
which passviz lacks).  Triton 3.9 has no block pointers, so no
``rewrite_tensor_pointer``."""


class _NamedPipelines(Mapping[str, str]):
    """The pipelines a spec may name as one pass, for the Triton passviz behaves as."""

    def _pipelines(self) -> dict[str, str]:
        return {"make-ttir": MAKE_TTIR[triton_version()]}

    def __getitem__(self, name: str) -> str:
        return self._pipelines()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._pipelines())

    def __len__(self) -> int:
        return len(self._pipelines())


NAMED_PIPELINES: Mapping[str, str] = _NamedPipelines()
"""Pipelines a spec may name as one pass.  ``make-ttir`` is the ``make_ttir``
of the installed Triton (``MAKE_TTIR``; ``passviz.dialects.triton_version``)."""


def parse_pipeline(spec: str, extra: dict[str, type[ModulePass]] | None = None) -> tuple[ModulePass, ...]:
    """Turn ``a,b{opt=1}`` into pass instances, with a clear error for unknown names.

    A name from ``NAMED_PIPELINES`` stands for its passes."""
    passes = available_passes()
    for name, pass_type in (extra or {}).items():
        passes[name] = _constant(pass_type)
    try:
        specs = [
            inner
            for outer in parse_pipeline_specs(spec)
            for inner in (
                parse_pipeline_specs(NAMED_PIPELINES[outer.name])
                if outer.name in NAMED_PIPELINES and outer.name not in passes
                else (outer,)
            )
        ]
    except Exception as exc:
        raise PipelineError(f"bad pipeline {spec!r}: {exc}") from None
    unknown = [s.name for s in specs if s.name not in passes]
    if unknown:
        known = ", ".join(sorted(traced_passes()))
        raise PipelineError(
            f"unknown pass {unknown[0]!r}; passviz's traced passes are: {known} "
            "(`passviz passes` lists every pass)"
        )
    try:
        return tuple(passes[s.name]().from_pass_spec(s) for s in specs)
    except Exception as exc:
        raise PipelineError(f"bad options in pipeline {spec!r}: {exc}") from None


TRITON_TARGET: tuple[str, int, int] = ("cuda", 90, 32)
"""The Triton target ``triton_frontend_ir`` specializes for (backend, arch, warp
size): ``make-ttir`` is Triton 3.6's ``make_ttir`` for this target."""


def triton_frontend_ir(
    kernel: object,
    signature: Mapping[str, str],
    constexprs: Mapping[str, object] | None = None,
    *,
    target: tuple[str, int, int] = TRITON_TARGET,
    locations: bool = True,
) -> str:
    """The TTIR that Triton's frontend makes of ``kernel``, before any pass: the
    input of ``make-ttir`` (``triton.compile``'s first stage), with each op's
    ``file:line:col`` in the kernel's source unless ``locations`` is off.

    ``kernel`` is a ``@triton.jit`` function; ``signature`` gives each argument's
    Triton type (``"*fp32"``, ``"i32"``, ``"constexpr"``) and ``constexprs`` the
    values of the ``tl.constexpr`` ones. Needs ``pip install 'passviz[triton]'``.
    """
    try:
        libtriton: Any = importlib.import_module("triton._C.libtriton")
        backends: Any = importlib.import_module("triton.backends.compiler")
        compiler: Any = importlib.import_module("triton.compiler.compiler")
    except ImportError as exc:
        raise InputError(f"capturing a Triton kernel needs pip install 'passviz[triton]': {exc}") from None
    gpu_target = backends.GPUTarget(*target)
    backend = compiler.make_backend(gpu_target)
    options = backend.parse_options({})
    context = libtriton.ir.context()
    libtriton.ir.load_dialects(context)
    backend.load_dialects(context)
    source = compiler.ASTSource(kernel, signature=dict(signature), constexprs=dict(constexprs or {}))
    codegen = backend.get_codegen_implementation(options)
    module = source.make_ir(gpu_target, options, codegen, backend.get_module_map(), context)
    return str(module.str() if locations else module.str_nodebug())


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
    text: str,
    pipeline: str,
    *,
    filename: str = "<input>",
    output: str | Path | None = None,
    options: RecordOptions | None = None,
    extra_passes: dict[str, type[ModulePass]] | None = None,
) -> TraceRun:
    """Parse ``text``, run ``pipeline`` on it and record the trace (to ``output`` too)."""
    options = options or RecordOptions()
    passes = parse_pipeline(pipeline, extra_passes)
    module = parse_ir(text, filename)
    verifier = IncrementalVerifier(module)
    verify_input(module, filename, verifier)
    meta = TraceMeta(
        input=filename,
        pipeline=pipeline,
        passviz_version=passviz.__version__,
        xdsl_version=version("xdsl"),
        verify_each=options.verify_each,
    )
    writer = TraceWriter.to_path(output) if output is not None else None
    tracer = Tracer(module, meta, writer=writer, options=options, initial_ir=text, verifier=verifier)
    trace = tracer.run(make_context(), passes)
    trace.context_factory = make_context
    return TraceRun(trace, tracer, module)


def record_file(
    path: str | Path,
    pipeline: str,
    *,
    output: str | Path | None = None,
    options: RecordOptions | None = None,
    extra_passes: dict[str, type[ModulePass]] | None = None,
) -> TraceRun:
    """``record`` on the contents of a file."""
    text = Path(path).read_text(encoding="utf-8")
    return record(
        text, pipeline, filename=str(path), output=output, options=options, extra_passes=extra_passes
    )


def _constant(pass_type: type[ModulePass]) -> Callable[[], type[ModulePass]]:
    return lambda: pass_type


def load_trace(path: str | Path) -> Trace:
    """Read a trace file, ready for replay with passviz's dialects."""
    return read_trace(path, context_factory=make_context)
