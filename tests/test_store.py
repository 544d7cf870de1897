"""Trace files: streaming NDJSON, schema validation, truncation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from passviz.pipelines import load_trace, record
from passviz.trace.store import TraceFormatError, read_trace, schema_errors, trace_schema
from tests.test_replay import CF_INPUT


@pytest.fixture
def trace_file(tmp_path: Path) -> Path:
    path = tmp_path / "t.passviz.json"
    run = record(CF_INPUT, "wrap-func-body-with-single-block,canonicalize", output=path)
    assert run.trace.status == "ok"
    return path


def test_file_round_trips(trace_file: Path) -> None:
    run = record(CF_INPUT, "wrap-func-body-with-single-block,canonicalize")
    loaded = load_trace(trace_file)
    assert loaded.status == "ok" and not loaded.warnings
    assert [s.kind for s in loaded.steps] == [s.kind for s in run.trace.steps]
    assert [s.delta for s in loaded.steps] == [s.delta for s in run.trace.steps]
    assert loaded.ir_at(-1) == run.trace.ir_at(-1)
    assert loaded.meta["pipeline"] == "wrap-func-body-with-single-block,canonicalize"
    assert loaded.meta["xdsl_version"] == "0.74.0"


def test_every_record_matches_the_schema(trace_file: Path) -> None:
    lines = trace_file.read_text().splitlines()
    kinds = [json.loads(line).get("record", "step") for line in lines]
    assert kinds[0] == "header" and kinds[-1] == "end" and set(kinds[1:-1]) == {"step"}
    for line in lines:
        assert schema_errors(json.loads(line)) == []
    assert trace_schema()["$defs"]["step"]["properties"]["kind"]["enum"]


def test_cut_at_any_byte_keeps_completed_steps(trace_file: Path, tmp_path: Path) -> None:
    data = trace_file.read_bytes()
    line_ends = [i for i, b in enumerate(data) if b == ord("\n")]
    cut_path = tmp_path / "cut.json"
    step_every = max(1, len(data) // 400)  # a few hundred cut points, all kinds of places
    cuts = sorted(set(range(1, len(data), step_every)) | {e for e in line_ends} | {e + 1 for e in line_ends})
    for cut in cuts:
        if cut >= len(data) - 1:  # only the last newline missing: nothing is lost
            continue
        cut_path.write_bytes(data[:cut])
        complete_lines = sum(1 for e in line_ends if e < cut)
        # A final line without its newline is still complete if it parses.
        trace = read_trace(cut_path)
        expected_steps = max(0, complete_lines - 1)
        assert len(trace.steps) in (expected_steps, expected_steps + 1), cut
        assert trace.warnings, f"no warning for a cut at byte {cut}"
        assert trace.status == "incomplete"


def test_gzip_trace_reads_like_plain_and_survives_cuts(tmp_path: Path) -> None:
    plain, packed = tmp_path / "t.passviz.json", tmp_path / "t.passviz.json.gz"
    record(CF_INPUT, "canonicalize,cse", output=plain)
    record(CF_INPUT, "canonicalize,cse", output=packed)
    assert packed.read_bytes()[:2] == b"\x1f\x8b"
    a, b = load_trace(plain), load_trace(packed)
    assert [s.delta for s in a.steps] == [s.delta for s in b.steps] and b.status == "ok"
    data = packed.read_bytes()
    cut = tmp_path / "cut.json.gz"
    seen_counts: set[int] = set()
    for end in range(len(data) // 3, len(data), max(1, len(data) // 50)):
        cut.write_bytes(data[:end])
        trace = read_trace(cut)
        complete = trace.status == "ok" and len(trace.steps) == len(a.steps)
        assert complete or trace.warnings  # a cut in the gzip trailer loses nothing
        assert len(trace.steps) <= len(a.steps)
        seen_counts.add(len(trace.steps))
    assert len(seen_counts) > 1


def test_steps_inside_a_pass_inherit_it(trace_file: Path) -> None:
    lines = [json.loads(line) for line in trace_file.read_text().splitlines()]
    rewrites = [r for r in lines if r.get("kind") == "rewrite"]
    assert rewrites and all("pass" not in r for r in rewrites)
    trace = load_trace(trace_file)
    assert {s.pass_name for s in trace.steps if s.kind == "rewrite"} == {"canonicalize"}


def test_killed_run_opens_with_a_warning(trace_file: Path, tmp_path: Path) -> None:
    lines = trace_file.read_text().splitlines(keepends=True)
    partial = tmp_path / "killed.json"
    partial.write_text("".join(lines[:4]))  # header and three steps, no end record
    trace = load_trace(partial)
    assert len(trace.steps) == 3
    assert any("did not finish" in w for w in trace.warnings)
    assert trace.ir_at(-1)


def test_tampered_record_is_rejected_with_its_line(trace_file: Path, tmp_path: Path) -> None:
    lines = trace_file.read_text().splitlines()
    record_ = json.loads(lines[2])
    record_["kind"] = "<script>alert(1)</script>"
    lines[2] = json.dumps(record_)
    bad = tmp_path / "bad.json"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceFormatError, match=r"bad\.json:3: invalid trace record"):
        read_trace(bad)


@pytest.mark.parametrize("content", ["", "hello\nworld\n", '{"record":"step","index":0,"kind":"rewrite"}\n'])
def test_not_a_trace(tmp_path: Path, content: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(content)
    with pytest.raises(TraceFormatError):
        read_trace(path)


def test_trace_layer_never_unpickles() -> None:
    root = Path(__file__).resolve().parents[1] / "passviz"
    for source in root.rglob("*.py"):
        assert "pickle" not in source.read_text(), source


def test_traces_are_deterministic(tmp_path: Path) -> None:
    """The same run gives the same bytes, whatever Python's hash seed."""
    import os
    import subprocess
    import sys

    from tests.irgen import arith_module

    source = tmp_path / "in.mlir"
    source.write_text(arith_module(150, seed=3))
    outputs: list[bytes] = []
    for seed in ("1", "2"):
        out = tmp_path / f"t{seed}.json"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        command = [
            sys.executable,
            "-m",
            "passviz.cli",
            "trace",
            str(source),
            "-p",
            "canonicalize,cse,dce",
            "-o",
            str(out),
        ]
        subprocess.run(command, check=True, env=env, capture_output=True, timeout=120)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
