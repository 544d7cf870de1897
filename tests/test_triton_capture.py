"""``passviz triton``: a real Triton compile captured as a trace, checked against Triton itself.

The oracle is a separate process that compiles the same kernel as a user
would to see its passes: ``triton.compile`` with ``MLIR_ENABLE_DUMP=1`` and
``MLIR_DUMP_PATH``, keeping ``compiled.asm``.  The captured trace must step
through that dump's passes, in its order and under its names, each step
showing that pass's snapshot (modulo value names), grouped by stage
(``ttir``, ``ttgir``, ``llir``); its LLVM IR and PTX must be the oracle's,
byte for byte.  Under Triton 3.6 (``cuda:90``) and 3.9 (``cuda:100``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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

ORACLE = """
import json, sys
sys.path.insert(0, {root!r})
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tests.triton_kernels import add_kernel
signature = {{"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32", "BLOCK_SIZE": "constexpr"}}
compiled = triton.compile(ASTSource(add_kernel, signature, {{"BLOCK_SIZE": 1024}}), target=GPUTarget("cuda", {arch}, 32))
json.dump({{k: v for k, v in compiled.asm.items() if isinstance(v, str)}}, open({asm!r}, "w"))
"""


def _oracle(python: str, arch: int, tmp_path: Path) -> tuple[str, dict[str, str]]:
    """What a user sees of the compile with Triton's own switches: the dump and ``compiled.asm``."""
    dump, asm = tmp_path / "oracle-dump.txt", tmp_path / "oracle-asm.json"
    env = {
        **os.environ,
        "MLIR_ENABLE_DUMP": "1",
        "MLIR_DUMP_PATH": str(dump),
        "TRITON_ALWAYS_COMPILE": "1",
        "TRITON_CACHE_DIR": str(tmp_path / "oracle-cache"),
    }
    script = ORACLE.format(root=str(ROOT), arch=arch, asm=str(asm))
    done = subprocess.run(
        [python, "-c", script], env=env, capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return dump.read_text(encoding="utf-8"), json.loads(asm.read_text(encoding="utf-8"))


def _capture(python: str, target: str, tmp_path: Path) -> Path:
    out = tmp_path / "add.passviz.json"
    command = [
        python, "-m", "passviz.cli", "triton", f"{KERNELS}:add_kernel",
        "--signature", SIGNATURE, "--constexpr", "BLOCK_SIZE=1024", "--target", target, "-o", str(out),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("captured ") and "ttir" in done.stdout and "ptx" in done.stdout
    return out


def _check(python: str, arch: int, tmp_path: Path) -> None:
    oracle, asm = _oracle(python, arch, tmp_path)
    trace = read_trace(_capture(python, f"cuda:{arch}", tmp_path), validate=True)
    banners = split_dump(oracle).banners
    # One step per pass the oracle printed (its last pass has no after: the dump prints before).
    assert [step.name for step in trace.steps] == [banner.label for banner in banners[:-1]]
    replayer = TextReplayer(trace)
    for step in trace.steps:
        replayer.advance_to(step.index)
        assert_same_ir(banners[step.index + 1].text, replayer.text(), f"step {step.index} ({step.name})")
    # Grouped by stage, in the compile's order; the layouts come with the ttgir stage.
    stages = list(dict.fromkeys(step.pass_name for step in trace.steps))
    assert stages == ["ttir", "ttgir", "llir"]
    first_ttgir = next(step for step in trace.steps if step.pass_name == "ttgir")
    assert (first_ttgir.name or "").startswith("ConvertTritonToTritonGPU")
    # After the MLIR passes: the compile's own LLVM IR and PTX, byte for byte, and its SASS.
    outputs = {output["stage"]: output["text"] for output in trace.meta["imported"].get("outputs", [])}
    assert outputs["llir"] == asm["llir"] and outputs["ptx"] == asm["ptx"]
    assert "sass" not in outputs or ("add_kernel" in outputs["sass"] and "EXIT" in outputs["sass"])
    # The kernel's Python source goes with the trace (the source pane shows each op's line).
    assert str(KERNELS) in trace.sources


@pytest.mark.triton
def test_capture_under_triton_36_is_what_mlir_enable_dump_shows(tmp_path: Path) -> None:
    from tests.triton_oracle import triton_missing

    need(triton_missing())
    _check(sys.executable, 90, tmp_path)


@pytest.mark.triton
@pytest.mark.slow
def test_capture_under_triton_39_is_what_mlir_enable_dump_shows(tmp_path: Path) -> None:
    _check(str(triton_39_python()), 100, tmp_path)


@pytest.mark.triton
def test_capture_from_python_leaves_the_process_as_it_was(capfd: pytest.CaptureFixture[str]) -> None:
    """``passviz.capture_triton`` in the user's own process (a notebook's kernel): the dump goes
    to the trace, not to the user's standard error, which works as before afterwards."""
    from tests.triton_oracle import triton_missing

    need(triton_missing())
    import passviz
    from tests.triton_kernels import add_kernel

    before = {name: os.environ.get(name) for name in ("MLIR_ENABLE_DUMP", "TRITON_CACHE_DIR")}
    trace = passviz.capture_triton(add_kernel, parse_signature(SIGNATURE), {"BLOCK_SIZE": 1024})
    assert len(trace.steps) > 20 and trace.status == "ok"
    print("still here", file=sys.stderr)
    os.write(2, b"fd 2 too\n")
    err = capfd.readouterr().err
    assert "IR Dump" not in err and "still here" in err and "fd 2 too" in err
    assert {name: os.environ.get(name) for name in before} == before
    # A second capture of the same kernel compiles again (a cache hit would dump nothing).
    assert len(
        passviz.capture_triton(add_kernel, parse_signature(SIGNATURE), {"BLOCK_SIZE": 1024}).steps
    ) == len(trace.steps)


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
        plan += [{"goto": step}, {"inspect": f"step{step}"}]
    plan += [
        {"shot": "capture-matmul-ttgir-last-layout-step"},
        {"text": ".pv-steps", "as": "timeline"},
        {"click": ".pv-output:nth-of-type(2)"},
        {"inspect": "ptx"},
        {"shot": "capture-matmul-ptx"},
    ]
    results = drive(trace, "capture-matmul", plan, artifacts)
    problems = [p for step in layout for p in check_change_on_screen(results[f"step{step}"], step)]
    assert problems == [], "\n".join(problems[:20])
    timeline = results["timeline"] or ""
    assert all(stage in timeline for stage in ("ttir", "ttgir", "llir")), timeline[:300]
    assert ".target sm_90a" in results["ptx"]["irText"]
