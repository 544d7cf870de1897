"""``passviz triton``: a real Triton compile captured as a trace, checked against Triton itself.

The oracle is a separate process that compiles the same kernels as a user
would to see their passes: ``triton.compile`` with ``MLIR_ENABLE_DUMP=1`` and
``MLIR_DUMP_PATH``, keeping ``compiled.asm`` and ``compiled.metadata``.  Each
captured trace must step through its dump's passes, in its order and under its
names, each step showing that pass's snapshot (modulo value names), grouped by
stage (``ttir``, ``ttgir``, ``llir``); its LLVM IR and PTX must be the
oracle's, byte for byte, and the cubin it keeps the oracle's with Triton's
launch metadata.  The matrix: the tutorials' vector add, fused softmax,
matmul, layer norm and flash attention, for ``cuda:90`` and ``cuda:100``,
under the installed Triton (3.6 in CI's first stage, 3.9 in its second) and
under the Triton 3.9 of ``.venv-triton39``.

For CI's time, each Triton compiles the whole matrix in two processes: the
oracle (a fork per compile, so that each dump has its own file: Triton opens
``MLIR_DUMP_PATH`` once per process) and ``passviz triton`` run for every case
in one process.  Pytest-xdist workers share the results (a file lock); each
case's checks are a test of their own.
"""

from __future__ import annotations

import base64
import fcntl
import functools
import gc
import hashlib
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from passviz.compilers.triton.capture import parse_constexpr, parse_signature, parse_target
from passviz.importer import TextReplayer
from passviz.importer.dump import split_dump
from passviz.ir.errors import InputError
from passviz.trace.store import read_trace
from tests.conftest import need, triton_39_python
from tests.test_import_dump import assert_same_ir

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "tests" / "triton_kernels.py"
SIGNATURE = "x_ptr=*fp32,y_ptr=*fp32,output_ptr=*fp32,n_elements=i32,BLOCK_SIZE=constexpr"
MATRIX = ("vector_add", "fused_softmax", "matmul", "layer_norm", "flash_attention")
TARGETS = ("cuda:90", "cuda:100")
CASES = [(kernel, target) for kernel in MATRIX for target in TARGETS]
EVERY_TARGET = ("vector_add", "flash_attention")
"""The kernels each Triton compiles for both targets; the others, for its own GPU generation's
(3.6: cuda:90, 3.9 and later: cuda:100). So every kernel is checked under both Tritons, both
targets under both, and every kernel for every target under one, at half the compiles (CI's time)."""


def _covered(version: str) -> list[tuple[str, str]]:
    """The cases the Triton of ``version`` checks."""
    own = "cuda:90" if version.startswith("3.6") else "cuda:100"
    return [(kernel, target) for kernel, target in CASES if kernel in EVERY_TARGET or target == own]


@functools.cache
def _triton_version(python: Path) -> str:
    """The version of the Triton ``python`` has (read from its metadata: no Triton import)."""
    script = "import importlib.metadata as m; print(m.version('triton'))"
    return subprocess.run(
        [str(python), "-c", script], capture_output=True, text=True, check=True
    ).stdout.strip()


def _case(python: Path, kernel: str, target: str) -> None:
    """Skip a case the other Triton checks."""
    version = _triton_version(python)
    if (kernel, target) not in _covered(version):
        pytest.skip(
            f"{kernel} for {target} is checked under the other Triton (Triton {version}: {EVERY_TARGET} for every target)"
        )


ORACLE = """
import base64, json, os, sys
sys.path.insert(0, {root!r})
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tests.triton_kernels import KERNELS
folder = sys.argv[1]
for name, target in json.loads(sys.argv[2]):
    case = os.path.join(folder, f"{{name}}-{{target.replace(':', '')}}")
    pid = os.fork()
    if pid == 0:
        # The child's first dump opens MLIR_DUMP_PATH; its exit (a normal one) flushes it.
        os.environ["MLIR_DUMP_PATH"] = case + ".oracle.mlir"
        kernel = KERNELS[name]
        backend, arch = target.split(":")
        compiled = triton.compile(
            ASTSource(kernel.fn, kernel.signature, kernel.constexprs), target=GPUTarget(backend, int(arch), 32)
        )
        meta = compiled.metadata
        asm = {{key: value for key, value in compiled.asm.items() if isinstance(value, str)}}
        # Triton's own SASS (cuobjdump -sass, made when asked for).
        asm["sass"] = compiled.asm["sass"]
        launch = {{"name": meta.name, "num_warps": meta.num_warps, "shared": meta.shared}}
        result = {{"asm": asm, "cubin": base64.b64encode(compiled.asm["cubin"]).decode(), "launch": launch}}
        with open(case + ".oracle.json", "w") as out:
            json.dump({{**result, "version": triton.__version__}}, out)
        sys.exit(0)
    if os.waitpid(pid, 0)[1] != 0:
        sys.exit(f"the oracle's compile of {{name}} for {{target}} failed")
# LLVM's own dumps of the vector add for cuda:90 (LLVM_IR_ENABLE_DUMP), which go to standard error.
pid = os.fork()
if pid == 0:
    os.environ.update(LLVM_IR_ENABLE_DUMP="1", MLIR_DUMP_PATH=os.path.join(folder, "llvm.oracle.mlir"))
    os.dup2(os.open(os.path.join(folder, "llvm.oracle.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
    kernel = KERNELS["vector_add"]
    triton.compile(ASTSource(kernel.fn, kernel.signature, kernel.constexprs), target=GPUTarget("cuda", 90, 32))
    sys.exit(0)
if os.waitpid(pid, 0)[1] != 0:
    sys.exit("the oracle's compile with LLVM_IR_ENABLE_DUMP failed")
"""
"""The oracle: each case compiled by Triton with its own switches, in a fork of one process; then
the vector add with LLVM's dumps on."""

CAPTURE = """
import json, os, sys
sys.path.insert(0, {root!r})
from passviz import capture_triton
from passviz.cli import main
from passviz.trace.store import write_trace
from tests.triton_kernels import KERNELS
folder = sys.argv[1]
for name, target in json.loads(sys.argv[2]):
    kernel = KERNELS[name]
    case = os.path.join(folder, f"{{name}}-{{target.replace(':', '')}}")
    signature = ",".join(f"{{argument}}={{kind}}" for argument, kind in kernel.signature.items())
    constexprs = [f"--constexpr={{key}}={{value}}" for key, value in kernel.constexprs.items()]
    if name != "vector_add":
        write_trace(capture_triton(kernel.fn, kernel.signature, dict(kernel.constexprs), target=target), case + ".passviz.json")
        continue
    # The command line too, where the kernel calls no other: passviz triton runs the file as a module
    # of its own name, which Triton puts in the names of the functions a kernel calls.
    spec = f"{{os.path.join({root!r}, 'tests', 'triton_kernels.py')}}:{{kernel.fn.fn.__name__}}"
    command = ["triton", spec, "--signature", signature, *constexprs, "--target", target]
    if main([*command, "-o", case + ".passviz.json"]) != 0:
        sys.exit(f"passviz triton failed on {{name}} for {{target}}")
# Last: LLVM's print-after-all stays on in the process once Triton has turned it on.
kernel = KERNELS["vector_add"]
trace = capture_triton(kernel.fn, kernel.signature, dict(kernel.constexprs), target="cuda:90", llvm_passes=True)
write_trace(trace, os.path.join(folder, "llvm.passviz.json"))
"""
"""``passviz.capture_triton`` on each case in one process, and ``passviz triton``'s command line
(``passviz.cli.main``) on the vector add; then the vector add with ``llvm_passes``."""


def _shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every pytest-xdist worker of this run sees (the run's own without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _matrix(python: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The oracle's and the capture's results for every case under ``python``'s Triton, made once a
    test run (the first worker to ask makes them, the others wait on the lock and read them)."""
    key = hashlib.sha1(str(python.absolute()).encode()).hexdigest()[:12]
    folder = _shared_folder(tmp_path_factory) / f"triton-matrix-{key}"
    with open(folder.parent / f"{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        failed = folder / "failed.txt"
        if failed.exists():
            pytest.fail(failed.read_text())
        if (folder / "done").exists():
            return folder
        folder.mkdir(exist_ok=True)
        cases = json.dumps(_covered(_triton_version(python)))
        env = {**os.environ, "MLIR_ENABLE_DUMP": "1", "TRITON_ALWAYS_COMPILE": "1"}
        # Triton 3.9 warns, on standard error, where the LLVM dumps go, that this is unset; 1 is its default.
        env["TRITON_DEFAULT_FP_FUSION"] = "1"
        env.pop("MLIR_DUMP_PATH", None)
        runs = [
            subprocess.Popen(
                [str(python), "-c", script.format(root=str(ROOT)), str(folder), cases],
                env={**env, "TRITON_CACHE_DIR": str(folder / f"cache-{side}")},
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                cwd=folder,
            )
            for side, script in (("oracle", ORACLE), ("capture", CAPTURE))
        ]
        for side, run in zip(("the oracle", "the capture"), runs, strict=True):
            out, err = run.communicate(timeout=600)
            (folder / f"log-{run.pid}.txt").write_text(out)
            if run.returncode != 0:
                failed.write_text(f"{side} under {python} failed:\n{err[-3000:]}")
                pytest.fail(failed.read_text())
        (folder / "done").touch()
    return folder


def _check(folder: Path, kernel: str, target: str) -> None:
    """The captured trace of ``kernel`` for ``target`` against the oracle's compile of it."""
    case = folder / f"{kernel}-{target.replace(':', '')}"
    oracle = json.loads(case.with_suffix(".oracle.json").read_text(encoding="utf-8"))
    asm = oracle["asm"]
    # Schema-validated once (its jsonschema check takes seconds on a long trace), checked by the
    # envelope's own checks on every case.
    trace = read_trace(case.with_suffix(".passviz.json"), validate=kernel == "vector_add")
    banners = split_dump(case.with_suffix(".oracle.mlir").read_text(encoding="utf-8")).banners
    where = f"{kernel} for {target} under Triton {oracle['version']}"
    # One step per pass the oracle printed (its last pass has no after: the dump prints before).
    assert [step.name for step in trace.steps] == [banner.label for banner in banners[:-1]], where
    replayer = TextReplayer(trace)
    for step in trace.steps:
        before, after = banners[step.index].text, banners[step.index + 1].text
        if after == before:
            # The pass changed nothing (the dump printed the same text): nor did the step, and the
            # IR after it is the one checked after the step before.
            assert not step.changed, f"{where}: step {step.index} ({step.name}) changed the IR"
            continue
        replayer.advance_to(step.index)
        expected, shown = (
            _values_by_definition(_blocks_by_region(text)) for text in (after, replayer.text())
        )
        assert_same_ir(expected, shown, f"{where}: step {step.index} ({step.name})")
    # Grouped by stage, in the compile's order; the layouts come with the ttgir stage.
    stages = list(dict.fromkeys(step.pass_name for step in trace.steps))
    assert stages == ["ttir", "ttgir", "llir"], where
    first_ttgir = next(step for step in trace.steps if step.pass_name == "ttgir")
    assert (first_ttgir.name or "").startswith("ConvertTritonToTritonGPU"), where
    # After the MLIR passes: the compile's own LLVM IR and PTX, byte for byte, and its SASS.
    imported = trace.meta.get("imported", {"dump": "", "printing": ""})
    outputs = {output["stage"]: output["text"] for output in imported.get("outputs", [])}
    assert outputs["llir"] == asm["llir"], where
    assert outputs["ptx"] == asm["ptx"], where
    # The cubin Triton built, and what its launch needs, as Triton's metadata says.
    assert "kernel" in imported, where
    kept = imported["kernel"]
    assert kept["target"] == target and kept["triton_version"] == oracle["version"], where
    assert {name: kept[name] for name in ("name", "num_warps", "shared")} == oracle["launch"], where
    kept_cubin = base64.b64decode(kept["binary"])
    _assert_same_cubin(kept_cubin, base64.b64decode(oracle["cubin"]), where)
    # Its SASS is Triton's (``asm["sass"]``, which cuobjdump disassembles with nvdisasm's dataflow
    # analysis on), byte for byte where the cubins are the same bytes.
    if kept_cubin == base64.b64decode(oracle["cubin"]):
        assert outputs["sass"] == asm["sass"], where
    else:
        assert _REGISTER.sub(r"\1", outputs["sass"]) == _REGISTER.sub(r"\1", asm["sass"]), where
    # The kernel's Python source goes with the trace (the source pane shows each op's line).
    assert str(KERNELS) in trace.sources, where


def _blocks_by_region(text: str) -> str:
    """``text`` with each block label qualified by the region it is in (``^bb0`` in the third region
    opened: ``^r3.bb0``): MLIR numbers blocks per region, so two regions may each have a ``^bb0``,
    which ``assert_same_ir``'s renaming would take for one block."""
    lines: list[str] = []
    regions = [0]
    opened = 0
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("}") and len(regions) > 1:
            regions.pop()
        lines.append(_BLOCK.sub(f"^r{regions[-1]}.\\g<name>", line))
        if stripped.endswith("{") and not stripped.startswith("#"):
            opened += 1
            regions.append(opened)
    return "\n".join(lines)


_BLOCK = re.compile(r"\^(?P<name>[\w$.\-]+)")


def _values_by_definition(text: str) -> str:
    """``text`` with each value renamed by its definition (``%d7.0``: the one defined at line 7,
    column 0): MLIR names values per region too, so sibling regions may reuse a name (three loops'
    ``%off``), which ``assert_same_ir``'s renaming would take for one value. A name is defined in a
    line's leading results (``%a, %b = ...``) or where ``:`` or `` =`` follows it (block and function
    arguments, ``scf.for``'s induction variable and ``iter_args``); any other is a use of its
    latest definition."""
    latest: dict[str, str] = {}
    lines: list[str] = []
    for line in text.split("\n"):
        results = _RESULTS.match(line)
        leading = results.end(1) if results is not None else 0
        parts: list[str] = []
        at = 0
        for found in _VALUE.finditer(line):
            name = found.group("value")
            if name is None:
                continue
            if found.start() < leading or found.group("defined") is not None or name not in latest:
                latest[name] = f"%d{len(lines)}.{found.start()}"
            parts += [line[at : found.start()], latest[name]]
            at = found.end("value")
        lines.append("".join([*parts, line[at:]]))
    return "\n".join(lines)


_VALUE = re.compile(r'"(?:[^"\\\n]|\\.)*"|(?P<value>%[\w$.\-]+)(?P<defined>(?=:)|(?= =[^=]))?')
_RESULTS = re.compile(r"^\s*(%[\w$.\-]+(?::\d+)?(?:, %[\w$.\-]+(?::\d+)?)*) =[^=]")


def _assert_same_cubin(kept: bytes, built: bytes, where: str) -> None:
    """The same cubin: its bytes, or where ptxas assembled the same PTX otherwise (for Blackwell it
    does, from one process to the next: a few uniform registers allocated otherwise), the same size
    and the same SASS instructions, register numbers aside."""
    if kept == built:
        return
    disasm: Any = importlib.import_module("triton.tools.disasm")

    assert len(kept) == len(built), f"{where}: the kept cubin is not the one Triton built"
    unnumbered = [_REGISTER.sub(r"\1", str(disasm.get_sass(cubin))) for cubin in (kept, built)]
    assert unnumbered[0] == unnumbered[1], f"{where}: the kept cubin's SASS is not the built one's"


_REGISTER = re.compile(r"\b(U?R|U?P)(?!Z\b|T\b)\d+\b")


@pytest.mark.triton
@pytest.mark.parametrize(("kernel", "target"), CASES)
def test_capture_under_triton_36_is_what_mlir_enable_dump_shows(
    kernel: str, target: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The installed Triton: 3.6 in CI's first stage, 3.9 in its second (``-m triton``)."""
    from tests.triton_oracle import triton_missing

    need(triton_missing())
    _case(Path(sys.executable), kernel, target)
    _check(_matrix(Path(sys.executable), tmp_path_factory), kernel, target)


@pytest.mark.triton
@pytest.mark.slow
@pytest.mark.parametrize(("kernel", "target"), CASES)
def test_capture_under_triton_39_is_what_mlir_enable_dump_shows(
    kernel: str, target: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    python = triton_39_python()
    if python.absolute() == Path(sys.executable).absolute():
        pytest.skip("Triton 3.9 is the installed one: its cases run as the installed Triton's")
    _case(python, kernel, target)
    _check(_matrix(python, tmp_path_factory), kernel, target)


@pytest.mark.triton
def test_llvm_passes_are_the_dumps_llvm_ir_enable_dump_prints(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """``llvm_passes``: LLVM's IR after each of its passes that changed it, as Triton's
    ``LLVM_IR_ENABLE_DUMP`` prints it, named by the pass, in order: ``make_llir``'s optimizations
    before the LLVM IR, ``make_ptx``'s code generation (IR, then machine passes) before the PTX;
    the compile's outputs and MLIR passes as without."""
    from tests.triton_oracle import triton_missing

    need(triton_missing())
    folder = _matrix(Path(sys.executable), tmp_path_factory)
    trace = read_trace(folder / "llvm.passviz.json", validate=True)
    outputs = trace.meta.get("imported", {"dump": "", "printing": ""}).get("outputs", [])
    stages = [output["stage"] for output in outputs]
    llvm = [(o["stage"], o["text"]) for o in outputs if o["stage"].startswith("llvm")]
    assert llvm == _changed_llvm_dumps((folder / "llvm.oracle.txt").read_text(encoding="utf-8"))
    first_machine = next(i for i, stage in enumerate(stages) if stage.startswith("llvm mir: "))
    assert "llvm: InstCombinePass" in stages[: stages.index("llir")]
    assert stages.index("llir") < first_machine < stages.index("ptx") < stages.index("sass")
    oracle = json.loads((folder / "vector_add-cuda90.oracle.json").read_text(encoding="utf-8"))
    texts = {output["stage"]: output["text"] for output in outputs}
    assert texts["llir"] == oracle["asm"]["llir"] and texts["ptx"] == oracle["asm"]["ptx"]
    plain = read_trace(folder / "vector_add-cuda90.passviz.json")
    assert [step.name for step in trace.steps] == [step.name for step in plain.steps]


def _changed_llvm_dumps(text: str) -> list[tuple[str, str]]:
    """Each dump of ``print-after-all`` output whose IR differs from the dump before of its kind (IR
    or machine IR), as ``(llvm: PASS, IR)`` or ``(llvm mir: PASS, MIR)``; the pass manager's log
    lines and what came before the first dump left out."""
    found: list[tuple[str, str]] = []
    last: dict[str, str] = {}
    for part in re.split(r"^(?=(?:; |# )?\*\*\* IR Dump After )", text, flags=re.M)[1:]:
        banner, _, body = part.partition("\n")
        kind = "llvm mir" if banner.startswith("#") else "llvm"
        name = re.sub(r" on \S+$", "", banner.split("IR Dump After ", 1)[1].rsplit(" ***", 1)[0])
        lines = [line for line in body.split("\n") if not re.match(r"(Running|Invalidating|Clearing) ", line)]
        ir = "\n".join(lines).strip("\n") + "\n"
        if last.get(kind) != ir:
            found.append((f"{kind}: {name}", ir))
            last[kind] = ir
    return found


@pytest.mark.triton
def test_run_on_a_captured_trace_says_what_it_can_do(
    tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """``passviz run`` on a captured trace: no CPU run of an imported trace's IR, and ``--gpu``
    without a GPU says why, with the exit status of ``--gpu`` on any trace without a GPU."""
    from passviz.cli import _parser, main  # pyright: ignore[reportPrivateUsage]
    from passviz.cli.common import CliError
    from passviz.cli.run_kept import run_imported
    from passviz.run.gpu_launch import pycuda_missing
    from tests.triton_oracle import triton_missing

    need(triton_missing())
    path = _matrix(Path(sys.executable), tmp_path_factory) / "vector_add-cuda90.passviz.json"
    trace = read_trace(path)
    with pytest.raises(CliError, match="has no IR the CPU interpreter can run; run --gpu launches the cubin"):
        run_imported(_parser().parse_args(["run", str(path)]), trace)
    if pycuda_missing() is None:
        pytest.skip("pycuda is installed: tests/gpu launches the kept cubin")
    with pytest.raises(CliError, match="^--gpu: running on the GPU needs pycuda"):
        run_imported(_parser().parse_args(["run", str(path), "--gpu"]), trace)
    assert main(["run", str(path), "--gpu"]) == 1
    assert "passviz: error: --gpu: running on the GPU needs pycuda" in capsys.readouterr().err


@pytest.mark.triton
def test_the_sass_is_tritons_with_or_without_the_dataflow_analysis(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The capture's fork disassembles without nvdisasm's dataflow analysis (no branch stack from
    Volta on): Triton's ``asm["sass"]`` all the same; where that ``nvdisasm`` fails, as Triton
    runs it; and Triton's disassembler calls ``subprocess`` again after."""
    from passviz.compilers.triton import sass
    from tests.triton_oracle import triton_missing

    need(triton_missing())
    disasm: Any = importlib.import_module("triton.tools.disasm")
    oracle = json.loads(
        (_matrix(Path(sys.executable), tmp_path_factory) / "vector_add-cuda90.oracle.json").read_text()
    )
    cubin, expected = base64.b64decode(oracle["cubin"]), oracle["asm"]["sass"]
    disasm.get_sass.cache_clear()
    assert sass.disassemble(cubin, 90, fast=True) == expected
    assert disasm.subprocess is subprocess
    disasm.get_sass.cache_clear()

    def failing(_disasm: object) -> str:
        return "/bin/false"  # (an nvdisasm that fails whatever it is asked)

    monkeypatch.setattr(sass, "_nvdisasm", failing)
    assert sass.disassemble(cubin, 90, fast=True) == expected
    assert disasm.subprocess is subprocess


@pytest.mark.triton
def test_capture_from_python_leaves_the_process_as_it_was(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``passviz.capture_triton`` in the user's own process (a notebook's kernel): the dump goes
    to the trace, not to the user's standard error, which works as before afterwards; where the
    process cannot fork, the compile runs in it, to the same trace."""
    from tests.triton_oracle import triton_missing

    need(triton_missing())
    import passviz
    from tests.triton_kernels import KERNELS

    add_kernel = KERNELS["vector_add"].fn
    before = {name: os.environ.get(name) for name in ("MLIR_ENABLE_DUMP", "TRITON_CACHE_DIR")}
    trace = passviz.capture_triton(add_kernel, parse_signature(SIGNATURE), {"BLOCK_SIZE": 1024})
    assert len(trace.steps) > 20 and trace.status == "ok"
    print("still here", file=sys.stderr)
    os.write(2, b"fd 2 too\n")
    err = capfd.readouterr().err
    assert "IR Dump" not in err and "still here" in err and "fd 2 too" in err
    assert {name: os.environ.get(name) for name in before} == before
    assert gc.isenabled()  # (paused while the capture reads, on again after)
    # A second capture of the same kernel compiles again (a cache hit would dump nothing), here
    # in this process, its dump on standard error for the compile's duration.
    monkeypatch.delattr(os, "fork")
    again = passviz.capture_triton(add_kernel, parse_signature(SIGNATURE), {"BLOCK_SIZE": 1024})
    assert [step.name for step in again.steps] == [step.name for step in trace.steps]
    assert [step.pass_name for step in again.steps] == [step.pass_name for step in trace.steps]
    kept = [t.meta.get("imported", {"dump": "", "printing": ""}).get("kernel") for t in (again, trace)]
    assert kept[0] is not None and kept[0] == kept[1]
    os.write(2, b"fd 2 after\n")
    err = capfd.readouterr().err
    assert "IR Dump" not in err and "fd 2 after" in err
    assert gc.isenabled()


def test_a_kept_cubin_is_launched_as_triton_describes_it() -> None:
    """``meta.imported.kernel`` as the GPU launch takes it (``GpuKernel``), and the inputs ``run
    --gpu`` makes from its signature when none are given."""
    from passviz.cli.run_kept import gpu_kernel, kept_specs
    from passviz.run.inputs import parse_arg
    from passviz.trace.model import CompiledKernel

    kept = CompiledKernel(
        name="k",
        target="cuda:100",
        binary=base64.b64encode(b"\x7fELF").decode(),
        signature={"x": "*kfp32", "y": "*bf16", "n": "i32", "eps": "fp32"},
        num_warps=8,
        num_ctas=1,
        shared=1024,
        global_scratch_size=16,
        global_scratch_align=8,
        profile_scratch_size=0,
        profile_scratch_align=1,
        cooperative=False,
        pdl=False,
        triton_version="3.9.0",
    )
    kernel = gpu_kernel(kept)
    assert (kernel.name, kernel.cubin, kernel.capability, kernel.block, kernel.shared) == (
        "k", b"\x7fELF", 100, 256, 1024
    )  # fmt: skip
    assert kernel.signature == ("*kfp32", "*bf16", "i32", "fp32") and kernel.unsupported() is None
    assert (kernel.global_scratch.size, kernel.global_scratch.align) == (16, 8)
    specs = kept_specs(kept)
    assert specs == ["x=4096:f32", "y=4096:bf16", "n=64", "eps=0.5"]
    assert [str(parse_arg(spec)) for spec in specs] == [
        "x=4096:f32:random",
        "y=4096:bf16:random",
        "n=64",
        "eps=0.5",
    ]


def test_command_line_arguments_read_or_say_why() -> None:
    assert parse_target("cuda:90") == ("cuda", 90, 32) and parse_target("cuda:100")[1] == 100
    assert parse_signature("x=*fp16, n=i32,B=constexpr") == {"x": "*fp16", "n": "i32", "B": "constexpr"}
    assert parse_constexpr("BLOCK=1024") == ("BLOCK", 1024)
    assert parse_constexpr("EPS=1e-5") == ("EPS", 1e-5)
    assert parse_constexpr("EVEN=True") == ("EVEN", True)
    for bad, call in (("gpu", parse_target), ("cuda:sm90", parse_target), ("x", parse_signature)):
        with pytest.raises(InputError):
            call(bad)
    with pytest.raises(InputError):
        parse_constexpr("=3")


@pytest.mark.triton
@pytest.mark.browser
def test_captured_matmul_in_the_viewer(artifacts: Path) -> None:
    """The captured tutorial matmul in Chromium: the timeline's stage groups, every changed step
    of the layout passes (ttgir) with its change on screen, and the PTX shown from the outputs row."""
    from tests.test_viewer_change_on_screen import check_change_on_screen
    from tests.triton_kernels import KERNELS
    from tests.triton_oracle import triton_missing
    from tests.viewer_checks import drive

    need(triton_missing())
    import passviz

    kernel = KERNELS["matmul"]
    trace = passviz.capture_triton(kernel.fn, kernel.signature, dict(kernel.constexprs))
    layout = [s.index for s in trace.steps if s.pass_name == "ttgir" and s.changed]
    assert len(layout) >= 5
    plan: list[dict[str, object]] = []
    for step in layout:
        plan.extend([{"goto": step}, {"inspect": f"step{step}"}])
    plan.extend(
        [
            {"shot": "capture-matmul-ttgir-last-layout-step"},
            {"text": ".pv-steps", "as": "timeline"},
            {"click": ".pv-output:nth-of-type(2)"},
            {"inspect": "ptx"},
            {"shot": "capture-matmul-ptx"},
        ]
    )
    results = drive(trace, "capture-matmul", plan, artifacts)
    problems = [p for step in layout for p in check_change_on_screen(results[f"step{step}"], step)]
    assert problems == [], "\n".join(problems[:20])
    timeline = results["timeline"] or ""
    assert all(stage in timeline for stage in ("ttir", "ttgir", "llir")), timeline[:300]
    assert ".target sm_90a" in results["ptx"]["irText"]
