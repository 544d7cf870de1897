"""Trace files: streaming NDJSON, schema validation, truncation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from passviz.ir.printer import print_module
from passviz.pipelines import load_trace, parse_ir, record
from passviz.trace.store import TraceFormatError, TraceWriter, read_trace, schema_errors, trace_schema
from tests.irgen import arith_module
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


def test_header_holds_the_initial_ir_once(trace_file: Path) -> None:
    header = json.loads(trace_file.read_text().splitlines()[0])
    assert header["version"] == 2 and "initial_ir" not in header
    assert header["initial"]["delta"]["ops_created"]
    # Replay builds the initial IR from the structured delta, as passviz prints the input.
    assert load_trace(trace_file).ir_before(0) == print_module(parse_ir(CF_INPUT))


def test_version_1_files_still_open(trace_file: Path, tmp_path: Path) -> None:
    lines = trace_file.read_text().splitlines()
    header = json.loads(lines[0])
    header.update(version=1, initial_ir=CF_INPUT)
    old = tmp_path / "v1.passviz.json"
    for keep_initial in (True, False):
        if not keep_initial:
            del header["initial"]
        old.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
        assert schema_errors(header) == []
        trace, new = load_trace(old), load_trace(trace_file)
        assert trace.initial_ir == CF_INPUT and not trace.warnings
        assert [trace.ir_at(i) for i in range(len(trace.steps))] == [
            new.ir_at(i) for i in range(len(new.steps))
        ]


@pytest.mark.parametrize(
    "header",
    [
        {"version": 2, "initial_ir": "builtin.module {}"},  # version 2 stores the IR once
        {"version": 3},
        {"version": 2, "initial": None},
    ],
)
def test_header_versions_are_checked(trace_file: Path, tmp_path: Path, header: dict[str, object]) -> None:
    lines = trace_file.read_text().splitlines()
    record_ = {**json.loads(lines[0]), **header}
    record_ = {k: v for k, v in record_.items() if v is not None}
    bad = tmp_path / "bad.passviz.json"
    bad.write_text("\n".join([json.dumps(record_), *lines[1:]]) + "\n")
    assert schema_errors(record_)
    with pytest.raises(TraceFormatError, match=r"bad.passviz.json:1: invalid trace record: .*header"):
        read_trace(bad)


def test_gzip_is_flushed_at_pass_boundaries_not_every_record(tmp_path: Path) -> None:
    trace = record(arith_module(200, seed=3), "canonicalize,cse").trace
    path = tmp_path / "t.passviz.json.gz"
    writer = TraceWriter.to_path(path)
    writer.write_header(trace)
    first_end = next(s.index for s in trace.steps if s.kind == "pass-end")
    sizes: list[int] = []
    for step in trace.steps[: first_end + 1]:
        writer.write_step(step)
        sizes.append(path.stat().st_size)
    # Mid-pass records wait in the compressor; the pass end puts them all on disk.
    assert len(set(sizes)) < len(sizes) // 4
    assert len(read_trace(path).steps) == first_end + 1
    for step in trace.steps[first_end + 1 :]:
        writer.write_step(step)
    writer.write_end(trace)
    assert load_trace(path).steps == trace.steps


def test_traces_are_byte_identical_from_run_to_run(tmp_path: Path) -> None:
    text = arith_module(300, seed=5)
    first, second = tmp_path / "a.passviz.json.gz", tmp_path / "b.passviz.json.gz"
    record(text, "canonicalize,cse,canonicalize,cse", output=first)
    record(text, "canonicalize,cse,canonicalize,cse", output=second)
    assert first.read_bytes() == second.read_bytes()


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
        # numpy's loader may appear only with pickles refused (``.npy`` run inputs).
        text = source.read_text().replace("allow_pickle=False", "")
        assert "pickle" not in text, source


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
