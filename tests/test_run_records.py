"""Run records: ``passviz run|bisect --record`` append them to the trace, every reader takes them,
``passviz steps`` shows their verdicts, and a file cut anywhere still opens with its steps."""

from __future__ import annotations

import copy
import gzip
import importlib.util
from pathlib import Path
from typing import Any

import pytest

from passviz.cli import main
from passviz.pipelines import load_trace
from passviz.trace.envelope import run_problem
from passviz.trace.records import trace_records
from passviz.trace.store import TraceFormatError, append_runs, read_trace, schema_errors
from tests.test_bisect import ARGS, DEMO, EXAMPLES

COMMON = ["--grid", "4", *(f"--arg={spec}" for spec in ARGS)]


def _trace(tmp_path: Path, name: str = "demo.passviz.json") -> Path:
    out = tmp_path / name
    mlir = tmp_path / "demo.mlir"
    mlir.write_text(DEMO)
    argv = ["trace", str(mlir), "-p", "demo-rewrites", "--passes-from", str(EXAMPLES / "bisect_demo.py")]
    assert main([*argv, "-o", str(out)]) == 0
    return out


def test_bisect_and_run_record_into_the_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _trace(tmp_path)
    steps = len(load_trace(path).steps)
    capsys.readouterr()
    assert main(["bisect", str(path), *COMMON, "--record"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1].startswith("recorded ") and printed[-1].endswith(f"run records in {path}")
    trace = load_trace(path)
    assert len(trace.steps) == steps and trace.status == "ok" and not trace.warnings
    runs = trace.runs
    assert runs[0]["step"] == -1 and runs[0]["verdict"] == "same"
    first = [run for run in runs if run.get("first")]
    assert len(first) == 1 and first[0]["step"] == 3 and first[0]["verdict"] == "differs"
    assert first[0]["count"] == 1000 and first[0]["max_error"] > 0
    assert first[0]["differences"][0]["buffer"] == "out"
    assert first[0]["spec"] == (
        "--arg x=1000:f32:random --arg y=1000:f32:random --arg out=1000:f32:zeros --arg n=1000 --grid 4 --seed 0"
    )
    assert {run["inputs"] for run in runs} == {runs[0]["inputs"]}
    assert all(run["backend"] == "cpu" and run["origin"] == "bisect" for run in runs)
    # Same outputs, same digest: the step before the wrong rewrite matches the initial IR.
    before = next(run for run in runs if run["step"] == 2)
    assert before["verdict"] == "same" and before["outputs"] == runs[0]["outputs"]
    # Every record still passes the schema, and the file as a whole validates.
    for record in trace_records(trace):
        assert schema_errors(record) == []
    assert main(["validate", str(path)]) == 0
    capsys.readouterr()
    # run --record compares the step with the initial IR and adds one record.
    assert main(["run", str(path), *COMMON, "--step", "3", "--record"]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith("recorded: step 3: differs, cpu, max error ")
    assert len(load_trace(path).runs) == len(runs) + 1
    # passviz steps: each step's latest verdict ends its line, then every run.
    assert main(["steps", str(path)]) == 0
    printed = capsys.readouterr().out.splitlines()
    step3 = next(line for line in printed if line.split()[:1] == ["3"])
    assert step3.endswith("run: differs")
    step2 = next(line for line in printed if line.split()[:1] == ["2"])
    assert step2.endswith("run: same")
    assert printed.index(f"runs ({len(runs) + 1}):") > printed.index(step3)
    assert any("the first differing step bisect found" in line for line in printed)


def test_a_gzip_trace_takes_run_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _trace(tmp_path, "demo.passviz.json.gz")
    assert main(["run", str(path), *COMMON, "--step", "initial", "--record"]) == 0
    assert gzip.decompress(path.read_bytes()).decode().splitlines()[-1].startswith('{"record":"run"')
    trace = read_trace(path)
    assert [(run["step"], run["verdict"]) for run in trace.runs] == [(-1, "same")]
    assert "max_error" not in trace.runs[0]


def test_cut_files_open_with_their_steps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _trace(tmp_path)
    assert main(["bisect", str(path), *COMMON, "--record"]) == 0
    whole = load_trace(path)
    text = path.read_text()
    cut = tmp_path / "cut.passviz.json"
    cut.write_text(text[: len(text) - 20])  # inside the last run record
    trace = read_trace(cut)
    assert len(trace.steps) == len(whole.steps) and trace.status == "ok"
    assert trace.runs == whole.runs[:-1] and "cut off" in trace.warnings[0]
    with pytest.raises(TraceFormatError, match="cut off mid-line"):
        append_runs(cut, whole.runs[:1])


def test_run_records_out_of_place_are_located_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _trace(tmp_path)
    assert main(["run", str(path), *COMMON, "--step", "0", "--record"]) == 0
    lines = path.read_text().splitlines(keepends=True)
    # A step after a run record.
    moved = tmp_path / "moved.passviz.json"
    moved.write_text("".join([*lines[:-3], lines[-1], lines[-3], lines[-2]]))
    with pytest.raises(TraceFormatError, match=r"moved.passviz.json:\d+: unexpected step record"):
        read_trace(moved)
    # A run of a step the trace does not have.
    far = tmp_path / "far.passviz.json"
    far.write_text("".join([*lines[:-1], lines[-1].replace('"step":', '"step":9', 1)]))
    with pytest.raises(TraceFormatError, match="a run record for step 90"):
        read_trace(far)
    assert main(["steps", str(far)]) == 1
    assert "a run record for step 90" in capsys.readouterr().err


GOOD: dict[str, Any] = {
    "record": "run",
    "step": 3,
    "backend": "gpu",
    "origin": "run",
    "reference": "cpu",
    "inputs": "0123456789abcdef",
    "outputs": "fedcba9876543210",
    "verdict": "differs",
    "max_error": 2.5,
    "count": 3,
    "differences": [{"buffer": "out", "index": 0, "expected": 1.0, "got": "nan"}],
    "device": "NVIDIA H100",
    "time_ms": 0.012,
    "gbps": 2400.0,
    "message": "3 elements differ",
}

BAD: list[tuple[str, Any]] = [
    ("step", -2),
    ("step", "3"),
    ("backend", "tpu"),
    ("verdict", "maybe"),
    ("origin", "guess"),
    ("reference", "gpu"),
    ("first", 1),
    ("inputs", 7),
    ("max_error", -1),
    ("time_ms", "fast"),
    ("count", 1.5),
    ("differences", {"out": 1}),
    ("differences", [{"buffer": "out", "index": -1, "expected": 1, "got": 2}]),
    ("differences", [{"buffer": "out", "index": 0, "expected": 1}]),
    ("surprise", 1),
]


def test_a_gpu_run_record_passes_both_checks() -> None:
    assert schema_errors(GOOD) == [] and run_problem(GOOD) is None


@pytest.mark.parametrize(("field", "value"), BAD, ids=[f"{f}={v!r}" for f, v in BAD])
def test_bad_run_records_fail_both(field: str, value: Any) -> None:
    run = copy.deepcopy(GOOD)
    run[field] = value
    assert schema_errors(run), "the schema accepts it: the case is not bad"
    assert run_problem(run) is not None


def test_a_gpu_run_becomes_a_run_record_against_the_cpu() -> None:
    import numpy as np

    from passviz.run.bisect import Comparison, Difference
    from passviz.run.gpu_launch import GpuRun
    from passviz.run.record import gpu_run_record

    out = np.arange(4, dtype=np.float32)
    ran = GpuRun({"out": out, "x": out}, {"out"}, 0.0123456789012, 10, 32, "NVIDIA H100 80GB HBM3")
    same = gpu_run_record(3, ran, Comparison([], 0, 0.0), "0123456789abcdef", spec="--grid 1")
    assert (same["backend"], same["reference"], same["verdict"], same["step"]) == ("gpu", "cpu", "same", 3)
    assert same["device"] == "NVIDIA H100 80GB HBM3" and same["time_ms"] == 0.012345678901
    assert same["gbps"] == pytest.approx(32 / 0.0123456789012e-3 / 1e9, rel=1e-9)
    differs = gpu_run_record(3, ran, Comparison([Difference("out", 1, 1.0, float("nan"))], 1, 0.0), "0" * 16)
    assert differs["verdict"] == "differs" and differs["differences"][0]["got"] == "nan"
    flagged = gpu_run_record(3, GpuRun(device="H100", error="an illegal memory access"), None, "0" * 16)
    assert flagged["verdict"] == "error" and flagged["message"] == "an illegal memory access"
    assert "outputs" not in flagged and "time_ms" not in flagged
    unchecked = gpu_run_record(3, ran, None, "0" * 16)
    assert unchecked["verdict"] == "same"
    assert unchecked["message"] == "not checked: the CPU interpreter cannot run this step"
    for record in (same, differs, flagged, unchecked):
        assert schema_errors(dict(record)) == [] and run_problem(dict(record)) is None


def test_record_with_gpu_where_it_cannot_run_leaves_the_trace_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("triton")
    if importlib.util.find_spec("pycuda") is not None:
        pytest.skip("pycuda is installed: tests/gpu records a GPU run")
    path = _trace(tmp_path)
    before = path.read_bytes()
    assert main(["run", str(path), *COMMON, "--gpu", "--record"]) == 1
    error = capsys.readouterr().err.strip()
    assert error.startswith("passviz: error: --gpu: running on the GPU needs pycuda") and "\n" not in error
    assert path.read_bytes() == before
