"""A real Triton compile as a trace: a user's ``@triton.jit`` kernel through ``triton.compile``.

The installed Triton (3.6 or 3.9) compiles the kernel for a GPU target, on a
machine without one, with ``MLIR_ENABLE_DUMP`` on: its MLIR prints the module
before each pass.  The compile runs in a fork of the process, its dump going to
a file through Triton's ``MLIR_DUMP_PATH`` (buffered: printed to standard error,
every token is a write of its own, which makes the compile several times as
slow); a stage hook (Triton's ``knobs.runtime.add_stages_inspection_hook``)
marks each stage in the same stream as it starts, so that the imported steps
are grouped by stage (``ttir``, ``ttgir``, ``llir``).  Without a fork, the
compile runs in the process, its dump on standard error, which is a file for
the compile's duration.  The dump is read by ``passviz.importer``
(no dialect needed); what the compile made after its MLIR passes (LLVM IR,
PTX, SASS) is kept as text in ``meta.imported.outputs``, the cubin and how
Triton launches it in ``meta.imported.kernel`` (``passviz run --gpu`` runs
it), and the kernel's source file in the trace's sources.

With ``llvm_passes``, Triton's ``LLVM_IR_ENABLE_DUMP`` is on too: LLVM prints
its IR after each of its own passes (``make_llir``'s optimization pipeline,
``make_ptx``'s code generation) on standard error.  Those dumps are kept as
outputs named ``llvm: PASS`` (``llvm mir: PASS`` for the machine passes), each
one that changed the IR, before the stage's own output; the fork's exit takes
along the ``print-after-all`` that Triton's switch turns on for good.
"""

from __future__ import annotations

import base64
import codecs
import contextlib
import importlib
import importlib.util
import inspect
import io
import json
import os
import re
import select
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from passviz.compilers.triton.sass import disassemble
from passviz.ir.collection import collector_paused
from passviz.ir.errors import InputError

if TYPE_CHECKING:
    from passviz.importer.dump import DumpImport, ImportReport
    from passviz.importer.reader import ReadError
    from passviz.trace.model import CompiledKernel, StageOutput, Trace

# The importer, the trace's model and the rewrite recorder are imported where they are used:
# once the compile's fork is running (their modules take a twentieth of a second to import,
# which the compile would otherwise wait for).

DEFAULT_TARGET = "cuda:90"
"""The GPU ``passviz triton`` compiles for: an H100 (compute capability 9.0)."""

_TARGET = re.compile(r"^(cuda|hip):(\w+)$")
_KNOBS_ENV = (
    "MLIR_ENABLE_DUMP",
    "MLIR_DUMP_PATH",
    "LLVM_IR_ENABLE_DUMP",
    "TRITON_ALWAYS_COMPILE",
    "TRITON_CACHE_DIR",
)
"""The environment the capture sets for the compile, and puts back afterwards."""


def parse_target(text: str) -> tuple[str, int | str, int]:
    """``cuda:90`` as Triton's ``GPUTarget`` fields (backend, arch, warp size); InputError if not."""
    found = _TARGET.match(text.strip())
    if found is None:
        raise InputError(f"--target {text!r}: expected backend:arch, such as cuda:90 or cuda:100")
    backend, arch = found.group(1), found.group(2)
    if backend == "cuda":
        if not arch.isdigit():
            raise InputError(f"--target {text!r}: a CUDA arch is a number (90 for sm_90)")
        return backend, int(arch), 32
    return backend, arch, 64


def load_kernel(spec: str) -> object:
    """The ``@triton.jit`` function ``FILE.py:KERNEL`` names, its file run as a module."""
    path_text, _, name = spec.rpartition(":")
    path = Path(path_text)
    if not path_text or not name:
        raise InputError(f"{spec}: expected FILE.py:KERNEL")
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    loader = importlib.util.spec_from_file_location(f"passviz_captured_{path.stem}", path)
    if loader is None or loader.loader is None:
        raise InputError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(loader)
    sys.modules[loader.name] = module
    try:
        loader.loader.exec_module(module)
    except Exception as exc:  # the user's file: any error it raises is theirs to read
        raise InputError(f"{path}: running it failed: {type(exc).__name__}: {exc}") from None
    kernel = getattr(module, name, None)
    if kernel is None:
        raise InputError(f"{path}: defines no {name}")
    if not hasattr(kernel, "fn") or not callable(getattr(kernel, "run", None)):
        raise InputError(f"{path}: {name} is not a @triton.jit function")
    return kernel


def parse_signature(text: str) -> dict[str, str]:
    """``x=*fp16,n=i32`` as Triton's signature (each argument's type, ``constexpr`` for constants)."""
    signature: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, equals, kind = part.partition("=")
        if not equals or not name.strip() or not kind.strip():
            raise InputError(f"--signature: {part!r} is not name=type (x=*fp16, n=i32)")
        signature[name.strip()] = kind.strip()
    return signature


def parse_constexpr(text: str) -> tuple[str, object]:
    """``BLOCK=1024`` as a constexpr's name and value (an int, a float, True/False, else the text)."""
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise InputError(f"--constexpr {text!r}: expected NAME=VALUE")
    value = value.strip()
    parsed: object = value
    if value in ("True", "False"):
        parsed = value == "True"
    else:
        for kind in (int, float):
            try:
                parsed = kind(value)
                break
            except ValueError:
                continue
    return name.strip(), parsed


@contextlib.contextmanager
def _stderr_to(path: Path) -> Iterator[None]:
    """The process's standard error (file descriptor 2, where MLIR writes) goes to ``path``; Python's
    ``sys.stderr`` keeps writing where it did."""
    sys.stderr.flush()
    saved = os.dup(2)
    python_stderr = sys.stderr
    with open(path, "wb") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sys.stderr = python_stderr


@contextlib.contextmanager
def _compile_settings(cache: str, llvm_passes: bool = False) -> Iterator[None]:
    """The environment a captured compile runs in: the dump on (LLVM's too with ``llvm_passes``),
    a fresh cache (a cache hit dumps nothing), put back as it was afterwards."""
    before = {name: os.environ.get(name) for name in _KNOBS_ENV}
    os.environ.update(MLIR_ENABLE_DUMP="1", TRITON_ALWAYS_COMPILE="1", TRITON_CACHE_DIR=cache)
    # A dump path would take the dump away from the stream the stage lines go to.
    os.environ.pop("MLIR_DUMP_PATH", None)
    if llvm_passes:
        os.environ["LLVM_IR_ENABLE_DUMP"] = "1"
    else:
        os.environ.pop("LLVM_IR_ENABLE_DUMP", None)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _stage_marking(knobs: Any) -> contextlib.AbstractContextManager[None]:
    """Triton's stage hook, set for the compile: each stage writes ``passviz stage NAME`` into the
    dump (standard error) as it starts (``passviz.importer`` groups the passes after it under that
    stage)."""

    def mark(name: str) -> None:
        os.write(2, f"\n// -----// passviz stage {name} //----- //\n".encode())

    @contextlib.contextmanager
    def installed() -> Iterator[None]:
        before = knobs.runtime.add_stages_inspection_hook
        knobs.runtime.add_stages_inspection_hook = _stage_hook(mark)
        try:
            yield
        finally:
            knobs.runtime.add_stages_inspection_hook = before

    return installed()


@dataclass
class _Compiled:
    """What ``triton.compile`` gave, as plain data (from a forked child)."""

    asm: dict[str, Any]
    """``compiled.asm``: text by stage, the cubin as bytes."""
    metadata: dict[str, Any]
    """The fields of ``compiled.metadata`` a launch needs."""
    dump: str
    """The MLIR dump, each stage's passes after a ``passviz stage NAME`` banner ("" where
    ``reading`` read it as it was written)."""
    stream: str
    """What the compile wrote to standard error (LLVM's dumps with ``llvm_passes``), each stage
    after a ``passviz stage NAME`` banner too."""
    reading: _MarkedStages | None = None
    """The dump, read while the compile wrote it, all but what ``_MarkedStages.finish`` reads."""
    sass: str | None = None
    """The cubin's SASS where the child disassembled it (None: still to do, or no cuobjdump)."""
    disassembled: bool = False
    """Whether the child disassembled the cubin (``sass`` is its result, None if it failed)."""


_LAUNCH_FIELDS = (
    "name",
    "num_warps",
    "num_ctas",
    "shared",
    "global_scratch_size",
    "global_scratch_align",
    "profile_scratch_size",
    "profile_scratch_align",
    "launch_cooperative_grid",
    "launch_pdl",
)
_MARKER = re.compile(r'passviz\.stage = "([\w.-]+)"')
_LINE_BANNER = "\n// -----// "
"""A banner at the start of a line: where ``_marked_stages`` cuts the dump."""


def _compile_forked(
    triton: Any, source: Any, gpu: Any, options: Mapping[str, object], work: Path, llvm_passes: bool
) -> _Compiled | None:
    """``triton.compile`` in a fork of this process, its MLIR dump written to a file through Triton's
    ``MLIR_DUMP_PATH``, which LLVM buffers: printed to standard error, each token is a write of its
    own, which takes the compile several times as long. Triton opens that file once a process, so
    the fork is what lets every capture have its own; the fork's exit also takes along what LLVM's
    switches change for good (``LLVM_IR_ENABLE_DUMP`` turns ``print-after-all`` on). None where
    there is no fork, or where the dump went elsewhere (this process had opened Triton's dump file
    before): the caller compiles in this process. An InputError for a kernel Triton refuses."""
    fork = getattr(os, "fork", None)
    if fork is None:
        return None
    result, dump, stream = work / "result.json", work / "dump.txt", work / "stream.txt"
    pid = fork()
    if pid == 0:  # the child: compile, write what it gave, and leave without unwinding the caller
        code = 1
        try:
            _child_compile(triton, source, gpu, options, work, llvm_passes)
            code = 0
        except BaseException as exc:  # noqa: BLE001 (anything the child raises goes to the parent)
            result.write_text(json.dumps({"error": f"{type(exc).__name__}: {exc}"}))
        finally:
            os._exit(code)
    from passviz.importer.dump import DumpImport

    marked = _MarkedStages(DumpImport())
    try:
        _read_while_compiling(pid, dump, marked)
    except BaseException:
        # The capture stops here (an interrupt, a bug): so does the compile.
        with contextlib.suppress(ProcessLookupError, ChildProcessError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        raise
    if not result.exists():
        raise InputError("triton.compile died in the capture's child process")
    found = json.loads(result.read_text(encoding="utf-8"))
    if "error" in found:
        raise InputError(f"triton.compile of {_kernel_name(source.fn)} failed: {found['error']}")
    if not marked.marked:
        return None
    if marked.failed is not None:
        raise InputError(f"{_kernel_name(source.fn)}: the compile's IR dump does not read: {marked.failed}")
    asm = dict(found["asm"])
    asm["cubin"] = base64.b64decode(found["cubin"]) if found.get("cubin") is not None else None
    return _Compiled(
        asm={key: value for key, value in asm.items() if value is not None},
        metadata=found["metadata"],
        dump="",
        stream=stream.read_text(encoding="utf-8", errors="replace"),
        reading=marked,
        sass=found.get("sass"),
        disassembled="sass" in found,
    )


def _read_while_compiling(pid: int, dump: Path, marked: _MarkedStages) -> None:
    """Read the dump the forked compile ``pid`` writes to ``dump`` as it comes, into ``marked``,
    until the compile ends: the passes' snapshots are read on this core while the compile goes
    on on another. Text as ``Path.read_text`` gives it (UTF-8, bad bytes replaced, any line
    ending as ``\\n``), piece by piece."""
    decoder = io.IncrementalNewlineDecoder(codecs.getincrementaldecoder("utf-8")(errors="replace"), True)
    waiting = _ExitWait(pid)
    source: BinaryIO | None = None
    try:
        with collector_paused():
            while True:
                ended = waiting.ended()
                if source is None and dump.exists():
                    source = open(dump, "rb", buffering=0)  # noqa: SIM115 (closed below)
                piece = source.read() if source is not None else None
                if ended:
                    # The rest is read later (``_MarkedStages.finish``).
                    marked.hold(decoder.decode(piece or b"", final=True))
                    break
                if piece:
                    marked.feed(decoder.decode(piece))
                else:
                    waiting.wait(0.01)
    finally:
        waiting.close()
        if source is not None:
            source.close()


class _ExitWait:
    """Waiting for a child process to end, a while at a time: on its pidfd where the system has
    them (woken as it ends), else by sleeping."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.done = False
        self.fd: int | None = None
        with contextlib.suppress(AttributeError, OSError):
            self.fd = os.pidfd_open(pid)

    def ended(self) -> bool:
        """Whether the child has ended (and been reaped)."""
        if not self.done:
            self.done = os.waitpid(self.pid, os.WNOHANG)[0] != 0
        return self.done

    def wait(self, seconds: float) -> None:
        """Wait ``seconds``, or less if the child ends."""
        if self.fd is not None:
            select.select([self.fd], [], [], seconds)
        else:
            time.sleep(seconds)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


class _MarkedStages:
    """The compile's dump as it is written, each stage's marker (a module naming the stage) as a
    ``passviz stage NAME`` banner, nothing from the end marker on (its padding), fed to ``into``
    section by section (``_marked_stages`` of the whole, piece by piece)."""

    def __init__(self, into: DumpImport) -> None:
        self.into = into
        self.held: list[str] = []
        self.edge = ""
        """The last characters held, where a banner's line start may have begun."""
        self.marked = False
        """Whether a stage marker came (else the dump went elsewhere: no capture's)."""
        self.ended = False
        self.failed: ReadError | None = None

    def feed(self, text: str) -> None:
        """The next piece of the dump; the sections it completes go on to ``into``."""
        if self.ended or not text:
            return
        if _LINE_BANNER not in self.edge + text:
            self.held.append(text)
            self.edge = (self.edge + text)[-len(_LINE_BANNER) :]
            return
        held = "".join([*self.held, text])
        cut = held.rfind(_LINE_BANNER) + 1
        self.held, self.edge = [held[cut:]], held[-len(_LINE_BANNER) :]
        self._pass_on(held[:cut])

    def hold(self, text: str) -> None:
        """The dump's last piece, kept to read with ``finish``."""
        if not self.ended:
            self.held.append(text)
            self.marked = self.marked or _has_marker(text)

    def finish(self, name: str) -> ImportReport:
        """The dump has ended: read what is left; the import's report."""
        held = "".join(self.held)
        self.held, self.edge = [], ""
        self._pass_on(held, last=True)
        if self.failed is not None:
            raise self.failed
        return self.into.finish(name)

    def _pass_on(self, text: str, *, last: bool = False) -> None:
        """Pass on ``text``: whole sections, up to where a banner begins (unless ``last``, or the
        end marker came: then up to the dump's end)."""
        if self.ended:
            return
        marked, self.ended = _marked_stages(text)
        self.marked = self.marked or _has_marker(text)
        if self.failed is not None:
            return
        from passviz.importer.reader import ReadError

        try:
            self.into.feed(marked, at_banner=not (last or self.ended))
        except ReadError as exc:  # told once the compile is over (its own errors come first)
            self.failed = exc


def _child_compile(
    triton: Any, source: Any, gpu: Any, options: Mapping[str, object], work: Path, llvm_passes: bool
) -> None:
    """The forked child's compile (``_compile_forked``): standard error to a file, the dump on,
    each stage marked in both streams, the result written as JSON."""
    os.dup2(os.open(work / "stream.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
    os.environ.update(
        MLIR_ENABLE_DUMP="1",
        MLIR_DUMP_PATH=str(work / "dump.txt"),
        TRITON_ALWAYS_COMPILE="1",
        TRITON_CACHE_DIR=str(work / "cache"),
    )
    if llvm_passes:
        os.environ["LLVM_IR_ENABLE_DUMP"] = "1"
    else:
        os.environ.pop("LLVM_IR_ENABLE_DUMP", None)
    libtriton: Any = importlib.import_module("triton._C.libtriton")
    knobs: Any = importlib.import_module("triton.knobs")
    context = libtriton.ir.context()
    libtriton.ir.load_dialects(context)

    def mark(name: str, padding: int = 1 << 14) -> None:
        # Into the buffered dump through the dump itself: a pass manager printing a module that
        # names the stage; the padding pushes what LLVM holds out to the file (a few pages): the
        # stage before is there to read as this one runs, and all of it before the exit.
        os.write(2, f"\n// -----// passviz stage {name} //----- //\n".encode())
        path = work / f"stage-{name}.mlir"
        pad = f', passviz.stage_padding = "{"." * padding}"' if padding else ""
        path.write_text(f'module attributes {{passviz.stage = "{name}"{pad}}} {{\n}}\n')
        manager = libtriton.ir.pass_manager(context)
        manager.enable_debug()
        libtriton.passes.common.add_symbol_dce(manager)
        manager.run(libtriton.ir.parse_mlir_module(str(path), context), "passviz")

    knobs.runtime.add_stages_inspection_hook = _stage_hook(mark)
    compiled = triton.compile(source, target=gpu, options=dict(options))
    mark("end", padding=1 << 20)
    metadata = {field: getattr(compiled.metadata, field, None) for field in _LAUNCH_FIELDS}
    cubin = compiled.asm.get("cubin")
    found: dict[str, Any] = {
        "asm": {key: value for key, value in compiled.asm.items() if isinstance(value, str)},
        "cubin": base64.b64encode(cubin).decode("ascii") if isinstance(cubin, bytes) else None,
        "metadata": metadata,
    }
    if isinstance(cubin, bytes):
        # Disassembled here, as soon as the cubin is built, while the parent still reads the
        # dump (a third of a second whatever the kernel; less without nvdisasm's dataflow
        # analysis, which this process of the capture's own may turn off).
        capability = gpu.arch if gpu.backend == "cuda" and isinstance(gpu.arch, int) else None
        found["sass"] = disassemble(cubin, capability, fast=True)
    (work / "result.json").write_text(json.dumps(found))


def _marked_stages(text: str) -> tuple[str, bool]:
    """The dump with each stage marker's section (its module names the stage) as a ``passviz stage
    NAME`` banner, and nothing from the end marker on (its padding); and whether the end marker
    came."""
    parts: list[str] = []
    for section in _line_banner_sections(text):
        marker = _MARKER.search(section) if "passviz.stage" in section else None
        if marker is None:
            parts.append(section)
        elif marker.group(1) == "end":
            return "".join(parts), True
        else:
            parts.append(f"// -----// passviz stage {marker.group(1)} //----- //\n")
    return "".join(parts), False


def _has_marker(text: str) -> bool:
    """Whether ``text`` holds a stage marker (looked for only where its attribute's name is: a
    regular expression's scan of megabytes is slow)."""
    return "passviz.stage" in text and _MARKER.search(text) is not None


def _line_banner_sections(text: str) -> list[str]:
    """``text`` cut where a banner starts a line (``re.split(r"(?m)^(?=// -----// )", text)``),
    the cuts found with ``str.find``."""
    mark = _LINE_BANNER[1:]
    cuts = [0] if text.startswith(mark) else []
    pos = text.find(_LINE_BANNER)
    while pos >= 0:
        cuts.append(pos + 1)
        pos = text.find(_LINE_BANNER, pos + 1)
    if not cuts:
        return [text]
    bounds = [0, *cuts, len(text)] if cuts[0] else [*cuts, len(text)]
    return [text[start:end] for start, end in zip(bounds, bounds[1:], strict=False)]


def _stage_hook(mark: Callable[[str], None]) -> Callable[..., Any]:
    """Triton's stage inspection hook: each stage calls ``mark(NAME)`` as it starts."""

    def marked(name: str, stage: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        def run(source: Any, metadata: Any) -> Any:
            mark(name)
            return stage(source, metadata)

        return run

    def hook(*args: Any) -> Any:
        if not args:
            # Triton 3.9 asks the hook for a cache key first.
            return ("passviz-capture", "passviz-capture")
        stages: dict[str, Callable[[Any, Any], Any]] = args[1]
        for name in list(stages):
            stages[name] = marked(name, stages[name])
        return None

    return hook


_LLVM_BANNER = re.compile(r"^(#? ?;? ?)\*\*\* IR Dump After (.*?) \*\*\*:?$")
"""LLVM's ``print-after-all`` banner: ``; *** IR Dump After PASS on SCOPE ***`` (the new pass
manager), ``*** IR Dump After NAME (arg) ***`` (code generation's IR passes) or ``# *** IR Dump
After NAME (arg) ***:`` (its machine passes)."""
_LLVM_NOISE = re.compile(
    r"^(Running (pass|analysis)|Invalidating (analysis|all)|Clearing all analysis|Skipping pass)\b"
)
"""The pass manager's log lines that come with ``LLVM_IR_ENABLE_DUMP``: no IR."""
_LLVM_SCOPE = re.compile(r" on \S+$")
_STAGE_LINE = re.compile(r"^// -----// passviz stage ([\w.-]+) //----- //$")


def split_llvm_dumps(text: str) -> tuple[str, list[tuple[str | None, str, str]]]:
    """``text`` (a captured compile's stream) without LLVM's own dumps, and those dumps: each one's
    compile stage (``llir``, ``ptx``), name (``llvm: InstCombinePass``, ``llvm mir: ...``) and IR,
    in the order they came. A dump runs from its banner to the next banner, MLIR's or LLVM's."""
    kept: list[str] = []
    dumps: list[tuple[str | None, str, list[str]]] = []
    stage: str | None = None
    # Where the lines go: the MLIR dump (True), the last LLVM dump (False), or nowhere (None:
    # the pass manager's log before a dump's banner).
    into_mlir: bool | None = True
    for line in text.split("\n"):
        if line.startswith("// -----// "):
            marked = _STAGE_LINE.match(line)
            stage = marked.group(1) if marked else stage
            into_mlir = True
        elif (banner := _LLVM_BANNER.match(line)) is not None:
            kind = "llvm mir" if banner.group(1).startswith("#") else "llvm"
            # ``PASS on add_kernel``: the scope is the kernel's (or ``[module]``), the same every time.
            name = _LLVM_SCOPE.sub("", banner.group(2).strip())
            dumps.append((stage, f"{kind}: {name}", []))
            into_mlir = False
            continue
        elif _LLVM_NOISE.match(line):
            into_mlir = None
            continue
        if into_mlir:
            kept.append(line)
        elif into_mlir is False:
            dumps[-1][2].append(line)
    return "\n".join(kept), [
        (where, name, "\n".join(lines).strip("\n") + "\n") for where, name, lines in dumps
    ]


def _check_arguments(
    kernel: object, name: str, signature: Mapping[str, str], constexprs: Mapping[str, object]
) -> None:
    """InputError naming what the signature misses, or a constexpr given no value: Triton's own
    message for these is an AttributeError deep in its frontend."""
    arguments: list[str] = list(getattr(kernel, "arg_names", []) or [])
    missing = [a for a in arguments if a not in signature and a not in constexprs]
    if missing:
        raise InputError(f"{name}: --signature gives no type for {', '.join(missing)}")
    unknown = [a for a in signature if arguments and a not in arguments]
    if unknown:
        raise InputError(f"{name}: it has no argument {', '.join(unknown)} (it takes {', '.join(arguments)})")
    unset = [a for a, kind in signature.items() if kind == "constexpr" and a not in constexprs]
    if unset:
        raise InputError(f"{name}: give each constexpr a value: --constexpr {unset[0]}=VALUE")


def _kernel_name(kernel: object) -> str:
    return str(getattr(getattr(kernel, "fn", kernel), "__name__", "kernel"))


def capture_triton(
    kernel: object,
    signature: Mapping[str, str],
    constexprs: Mapping[str, object] | None = None,
    *,
    target: str = DEFAULT_TARGET,
    llvm_passes: bool = False,
    rewrites: Sequence[str] = (),
    **options: object,
) -> Trace:
    """The trace of ``triton.compile`` on ``kernel`` (a ``@triton.jit`` function) for ``target``
    (``cuda:90``): every MLIR pass of its ``ttir``, ``ttgir`` and ``llir`` stages a step, grouped by
    stage, then its LLVM IR, PTX and SASS as text, and its cubin with Triton's launch metadata.
    ``signature`` gives each argument's Triton type (``*fp16``, ``i32``, ``constexpr``),
    ``constexprs`` the constants' values, ``options`` Triton's compile options (``num_warps``,
    ``num_stages``, ...). ``llvm_passes`` keeps LLVM's IR after each of its passes too (where the
    process cannot fork, Triton's switch for it leaves LLVM's ``print-after-all`` on, so that later
    compiles in the process print to standard error). ``rewrites`` names passes (``tritongpu-remove-
    layout-conversions``) recorded pattern application by pattern application from Triton's own
    pattern log (``passviz.compilers.triton.rewrites``). Runs on a machine without a GPU."""
    try:
        triton: Any = importlib.import_module("triton")
        backends: Any = importlib.import_module("triton.backends.compiler")
        compiler: Any = importlib.import_module("triton.compiler")
        knobs: Any = importlib.import_module("triton.knobs")
    except ImportError as exc:
        raise InputError(f"capturing a Triton compile needs pip install 'passviz[triton]': {exc}") from None
    gpu = backends.GPUTarget(*parse_target(target))
    name = _kernel_name(kernel)
    _check_arguments(kernel, name, signature, constexprs or {})
    try:
        source = compiler.ASTSource(kernel, signature=dict(signature), constexprs=dict(constexprs or {}))
    except Exception as exc:  # Triton's own message says what is wrong with the signature
        raise InputError(f"{name}: {type(exc).__name__}: {exc}") from None
    # The collector paused from the compile to the trace: the import takes each snapshot apart
    # once done with it, and what it made, mostly the trace, lives on.
    with collector_paused(promote=True):
        with tempfile.TemporaryDirectory(prefix="passviz-triton-") as work:
            compiled = _compile_forked(triton, source, gpu, options, Path(work), llvm_passes)
            if compiled is None:
                compiled = _compile_here(triton, knobs, source, gpu, options, Path(work), llvm_passes)
        from passviz.importer import TextReplayer, import_text
        from passviz.importer.reader import ReadError

        llvm_dumps = split_llvm_dumps(compiled.stream)[1] if llvm_passes else []
        cubin = compiled.asm.get("cubin")
        title = f"triton.compile of {name} ({target}, Triton {triton.__version__})"
        # Where the child did not disassemble the cubin, cuobjdump does while the rest of the dump is
        # read: a process of its own, it needs no GIL.
        with ThreadPoolExecutor(max_workers=1) as pool:
            pending = not compiled.disassembled
            sass = pool.submit(disassemble, cubin) if pending and isinstance(cubin, bytes) else None
            try:
                if compiled.reading is not None:
                    trace = compiled.reading.finish(title).trace
                else:
                    trace = import_text(compiled.dump, name=title).trace
            except ReadError as exc:
                raise InputError(f"{name}: the compile's IR dump does not read: {exc}") from None
            disassembled = sass.result() if sass is not None else compiled.sass
        trace.replayer = TextReplayer
        imported = trace.meta.setdefault("imported", {"dump": "", "printing": "before"})
        imported["outputs"] = _outputs(compiled.asm, llvm_dumps, disassembled)
        kept = _compiled_kernel(compiled, signature, target, str(triton.__version__))
        if kept is not None:
            imported["kernel"] = kept
        function: Any = getattr(kernel, "fn", kernel)
        file = inspect.getsourcefile(function) if inspect.isfunction(function) else None
        if file is not None and Path(file).is_file():
            trace.sources = {file: Path(file).read_text(encoding="utf-8")}
    if rewrites:
        from passviz.compilers.triton.rewrites import record_rewrites

        trace = record_rewrites(trace, rewrites, target=target, options=options)
    return trace


def _compile_here(
    triton: Any,
    knobs: Any,
    source: Any,
    gpu: Any,
    options: Mapping[str, object],
    work: Path,
    llvm_passes: bool,
) -> _Compiled:
    """``triton.compile`` in this process, its dump (and LLVM's) on standard error, which goes to a
    file for the compile's duration (``_compile_forked`` where there is a fork: this is slower)."""
    dump = work / "here.txt"
    try:
        with (
            _compile_settings(str(work / "cache-here"), llvm_passes),
            _stage_marking(knobs),
            _stderr_to(dump),
        ):
            compiled = triton.compile(source, target=gpu, options=dict(options))
    except Exception as exc:  # a kernel Triton refuses: its message, located by Triton
        raise InputError(
            f"triton.compile of {_kernel_name(source.fn)} failed: {type(exc).__name__}: {exc}"
        ) from None
    text = dump.read_text(encoding="utf-8", errors="replace")
    metadata = {field: getattr(compiled.metadata, field, None) for field in _LAUNCH_FIELDS}
    mlir = split_llvm_dumps(text)[0] if llvm_passes else text
    return _Compiled(dict(compiled.asm), metadata, mlir, text)


def _outputs(
    asm: Mapping[str, Any], llvm_dumps: list[tuple[str | None, str, str]], sass: str | None
) -> list[StageOutput]:
    """The compile's text outputs in the order it made them: each stage's LLVM pass dumps that
    changed the IR (from the one before of their kind), then the stage's own output; then the
    cubin's SASS."""
    from passviz.trace.model import StageOutput

    outputs: list[StageOutput] = []
    last: dict[str, str] = {}
    for stage in ("llir", "ptx"):
        for where, name, text in llvm_dumps:
            kind = name.partition(":")[0]
            if where == stage and last.get(kind) != text:
                outputs.append(StageOutput(stage=name, text=text))
                last[kind] = text
        if isinstance(asm.get(stage), str):
            outputs.append(StageOutput(stage=stage, text=asm[stage]))
    if sass is not None:
        outputs.append(StageOutput(stage="sass", text=sass))
    return outputs


def _compiled_kernel(
    compiled: _Compiled, signature: Mapping[str, str], target: str, version: str
) -> CompiledKernel | None:
    """The cubin and Triton's launch metadata for it (as ``passviz.run.gpu_compile.GpuKernel``
    holds them), or None for a target that builds no cubin."""
    from passviz.trace.model import CompiledKernel

    cubin = compiled.asm.get("cubin")
    if not isinstance(cubin, bytes):
        return None
    meta = compiled.metadata

    def count(field: str, default: int) -> int:
        value = meta.get(field)
        return default if value is None else int(value)

    return CompiledKernel(
        name=str(meta["name"]),
        target=target,
        binary=base64.b64encode(cubin).decode("ascii"),
        signature={argument: kind for argument, kind in signature.items() if kind != "constexpr"},
        num_warps=count("num_warps", 4),
        num_ctas=count("num_ctas", 1),
        shared=count("shared", 0),
        global_scratch_size=count("global_scratch_size", 0),
        global_scratch_align=count("global_scratch_align", 1),
        profile_scratch_size=count("profile_scratch_size", 0),
        profile_scratch_align=count("profile_scratch_align", 1),
        cooperative=bool(meta.get("launch_cooperative_grid")),
        pdl=bool(meta.get("launch_pdl")),
        triton_version=version,
    )
