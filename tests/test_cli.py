"""The ``passviz`` command line, as a user runs it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from passviz.cli import main
from passviz.compilers.triton_linalg.wrap_func_body import CHECKPOINTS
from tests.irgen import arith_module
from tests.test_wrap_func_body import SEED_INPUT


def _run(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The installed ``passviz`` script (``python -m passviz.cli`` without one), output captured."""
    exe = shutil.which("passviz")
    command = [exe] if exe else [sys.executable, "-m", "passviz.cli"]
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=120, cwd=cwd, env=env)


@pytest.fixture
def seed_file(tmp_path: Path) -> Path:
    path = tmp_path / "seed.mlir"
    path.write_text(SEED_INPUT)
    return path


def test_trace_then_steps_lists_the_seed_sub_steps(seed_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "seed.passviz.json"
    traced = _run(
        "trace", str(seed_file), "-p", "wrap-func-body-with-single-block,canonicalize", "-o", str(out)
    )
    assert traced.returncode == 0, traced.stderr
    assert "recorded" in traced.stdout and out.exists()
    steps = _run("steps", str(out))
    assert steps.returncode == 0, steps.stderr
    lines = steps.stdout.splitlines()
    for name in CHECKPOINTS:
        assert any(
            "checkpoint  wrap-func-body-with-single-block" in line and name in line for line in lines
        ), name
    # MLIR's scf.execute_region canonicalization inlines the multi-block region.
    assert any("MultiBlockExecuteInliner" in line for line in lines)
    assert lines[1].split()[0] == "0"


def test_show_step_and_diff(seed_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.json"
    assert main(["trace", str(seed_file), "-p", "wrap-func-body-with-single-block", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["show", str(out), "--step", "-1"]) == 0
    final = capsys.readouterr().out
    assert "scf.execute_region -> i32" in final and "cf.br ^bb3" in final
    assert main(["show", str(out), "--step", "2", "--diff"]) == 0
    diff = capsys.readouterr().out
    assert diff.startswith("--- step 1\n+++ step 2\n")
    assert "+    %0 = scf.execute_region -> i32 {" in diff
    assert main(["show", str(out), "--step", "99"]) == 1
    assert "out of range" in capsys.readouterr().err


def test_dump_prints_ir_after_each_pass(
    seed_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t.json"
    main(["trace", str(seed_file), "-p", "wrap-func-body-with-single-block,canonicalize", "-o", str(out)])
    capsys.readouterr()
    assert main(["dump", str(out)]) == 0
    text = capsys.readouterr().out
    headers = [line for line in text.splitlines() if line.startswith("// -----// IR Dump After")]
    assert headers == [
        "// -----// IR Dump After WrapFuncBodyWithSingleBlock (wrap-func-body-with-single-block) //----- //",
        "// -----// IR Dump After Canonicalize (canonicalize) //----- //",
    ]


def test_validate(seed_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    _run("trace", str(seed_file), "-p", "canonicalize", "-o", str(out))
    ok = _run("validate", str(out))
    assert ok.returncode == 0 and "valid passviz trace" in ok.stdout
    out.write_text(out.read_text().replace('"record":"end"', '"record":"fin"'))
    bad = _run("validate", str(out))
    assert bad.returncode == 1
    assert "Traceback" not in bad.stderr and ":" in bad.stderr


def test_malformed_input_gets_file_line_col(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f() {\n  %0 = arith.constant : i32\n}\n")
    result = _run("trace", str(bad), "-p", "canonicalize", "-o", str(tmp_path / "t.json"))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    first = result.stderr.strip().splitlines()[0]
    assert first.startswith(f"passviz: error: {bad}:2:")


def test_unknown_pass_lists_the_known_ones(seed_file: Path, tmp_path: Path) -> None:
    result = _run("trace", str(seed_file), "-p", "canonicalise", "-o", str(tmp_path / "t.json"))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "unknown pass 'canonicalise'" in result.stderr
    assert "wrap-func-body-with-single-block" in result.stderr and "canonicalize" in result.stderr


def test_pass_options_use_xdsl_syntax(seed_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    ok = _run(
        "trace", str(seed_file), "-p", "wrap-func-body-with-single-block,cse,canonicalize", "-o", str(out)
    )
    assert ok.returncode == 0, ok.stderr
    bad = _run("trace", str(seed_file), "-p", "canonicalize{nonsense=1}", "-o", str(out))
    assert bad.returncode == 1 and "Traceback" not in bad.stderr


MULI_INPUT = "func.func @f(%a: i32) -> i32 {\n  %0 = arith.muli %a, %a : i32\n  func.return %0 : i32\n}\n"
TEST_PASSES = str(Path(__file__).with_name("passes_for_tests.py"))


def test_raising_pattern_exits_nonzero_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "in.mlir"
    path.write_text(MULI_INPUT)
    out = tmp_path / "t.json"
    result = _run("trace", str(path), "--passes-from", TEST_PASSES, "-p", "test-explode", "-o", str(out))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "pattern Explodes raised RuntimeError: boom" in result.stderr
    assert _run("validate", str(out)).returncode == 0  # the trace is still written
    steps = _run("steps", str(out)).stdout
    assert "failure" in steps and "!! exception" in steps


def test_verifier_failure_is_flagged(tmp_path: Path) -> None:
    path = tmp_path / "in.mlir"
    path.write_text("func.func @f() -> i32 {\n  %0 = arith.constant 1 : i32\n  func.return %0 : i32\n}\n")
    out = tmp_path / "t.json"
    args = ("trace", str(path), "--passes-from", TEST_PASSES, "-p", "test-invalidate", "-o", str(out))
    result = _run(*args, "--verify-each", "rewrite")
    assert result.returncode == 1 and "verifier:" in result.stderr
    assert "MakeInvalid" in _run("steps", str(out)).stdout


def test_passes_lists_traced_passes() -> None:
    result = _run("passes")
    assert result.returncode == 0
    assert "wrap-func-body-with-single-block" in result.stdout
    assert "canonicalize" in result.stdout and "cse" in result.stdout and "dce" in result.stdout


def test_input_that_does_not_verify_is_rejected_before_any_pass(tmp_path: Path) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text("func.func @f(%a: i32) -> i64 {\n  func.return %a : i32\n}\n")
    result = _run("trace", str(path), "-p", "canonicalize", "-o", str(tmp_path / "t.json"))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"passviz: error: {path}:2:3: the input does not verify:")
    assert not (tmp_path / "t.json").exists()


def test_trace_with_broken_initial_ir_gets_a_located_error(seed_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    assert _run("trace", str(seed_file), "-p", "canonicalize", "-o", str(out)).returncode == 0
    lines = out.read_text().splitlines()
    header = json.loads(lines[0])
    del header["initial"]
    header.update(version=1, initial_ir="func.func @f( {\n")  # a version 1 file: the IR as text
    out.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    result = _run("show", str(out))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "the trace's initial IR does not parse: 1:" in result.stderr


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ({"root": "o1"}, "its root is not a top-level builtin.module"),
        ({"type": "%bad"}, "the trace's initial IR cannot be built: "),
        ({"operand": "v999999"}, "the trace's initial IR cannot be built: unknown value v999999"),
    ],
)
def test_trace_with_broken_initial_delta_gets_a_one_line_error(
    seed_file: Path, tmp_path: Path, damage: dict[str, str], message: str
) -> None:
    out = tmp_path / "t.json"
    assert _run("trace", str(seed_file), "-p", "canonicalize", "-o", str(out)).returncode == 0
    lines = out.read_text().splitlines()
    header = json.loads(lines[0])
    initial = header["initial"]
    ops = initial["delta"]["ops_created"]
    if "root" in damage:
        initial["root"] = damage["root"]
    if "type" in damage:
        blocks = initial["delta"]["blocks_created"]
        next(b for b in blocks if b["args"])["args"][0]["type"] = damage["type"]
    if "operand" in damage:
        next(o for o in ops if o["operands"])["operands"][0] = damage["operand"]
    out.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    result = _run("show", str(out))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("passviz: error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1


def test_trace_writes_gzip_by_default(seed_file: Path, tmp_path: Path) -> None:
    done = _run("trace", str(seed_file), "-p", "canonicalize", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "seed.passviz.json.gz"
    assert done.stdout.strip().endswith(str(out.name)) and out.read_bytes()[:2] == b"\x1f\x8b"
    assert _run("steps", str(out)).stdout == _run("steps", str(_plain_copy(seed_file, tmp_path))).stdout
    assert _run("validate", str(out)).returncode == 0


def _plain_copy(seed_file: Path, tmp_path: Path) -> Path:
    plain = tmp_path / "plain.passviz.json"
    assert _run("trace", str(seed_file), "-p", "canonicalize", "-o", str(plain)).returncode == 0
    assert plain.read_bytes()[:1] == b"{"
    return plain


def test_traces_are_byte_identical_across_processes(tmp_path: Path) -> None:
    source = tmp_path / "in.mlir"
    source.write_text(arith_module(400, seed=7))
    outputs: list[bytes] = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"t{hash_seed}.passviz.json.gz"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = _run("trace", str(source), "-p", "canonicalize,cse,canonicalize,cse", "-o", str(out), env=env)
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]


def test_steps_columns_hold_with_long_pass_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in.mlir"
    source.write_text(
        "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  func.return %a : tensor<4xf32>\n}\n"
    )
    out = tmp_path / "t.json"
    pipeline = "iree-dispatch-creation-fuse-multi-use-elementwise-producer,cse"
    assert main(["trace", str(source), "-p", pipeline, "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["steps", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    # The pattern column and the counts start at one column on every line, the header's included.
    assert len({line.index("+") for line in lines}) == 1, lines
    assert len({line.index("CommonSubexpressionElimination") for line in lines if "cse " in line}) == 1


def test_passes_says_truly_how_each_kind_is_recorded(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["passes"]) == 0
    out = capsys.readouterr().out
    assert "recorded once per pass" not in out
    assert "other xDSL passes (each rewrite through xDSL's rewriters a step;" in out
