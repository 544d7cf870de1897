"""Traces carry the source files their locations name, for the viewer's source pane."""

from __future__ import annotations

from pathlib import Path

from passviz.pipelines import record
from passviz.trace.recorder import RecordOptions
from passviz.trace.sources import MAX_FILE, located_files
from passviz.trace.store import read_trace, schema_errors, write_trace
from tests import long_traces
from tests.conftest import need
from tests.triton_oracle import triton_missing


def _located_ir(path: Path) -> str:
    return f"""
func.func @f(%a: i32) -> i32 {{
  %b = arith.addi %a, %a : i32 loc("{path}":2:8)
  func.return %b : i32 loc(callsite("{path}":3:4 at "missing.py":9:1))
}}
"""


def test_the_header_carries_the_located_files(tmp_path: Path) -> None:
    source = tmp_path / "kernel.py"
    source.write_text("def f(a):\n    b = a + a\n    return b\n", encoding="utf-8")
    trace = record(_located_ir(source), "canonicalize").trace
    assert trace.sources == {str(source): source.read_text(encoding="utf-8")}  # missing.py is left out
    path = tmp_path / "t.passviz.json"
    write_trace(trace, path)
    header = path.read_text(encoding="utf-8").splitlines()[0]
    assert '"sources"' in header
    again = read_trace(path)
    assert again.sources == trace.sources


def test_sources_can_be_left_out_and_big_files_are(tmp_path: Path) -> None:
    source = tmp_path / "kernel.py"
    source.write_text("x" * (MAX_FILE + 1), encoding="utf-8")
    assert record(_located_ir(source), "canonicalize").trace.sources == {}
    source.write_text("small\n", encoding="utf-8")
    options = RecordOptions(embed_sources=False)
    assert record(_located_ir(source), "canonicalize", options=options).trace.sources == {}


def test_located_files_reads_fused_and_call_site_locations() -> None:
    texts = ['loc("a.py":1:2)', 'loc(callsite("b.py":3:4 at "a.py":5:6))', 'loc(fused["c.py":1:1, unknown])']
    assert located_files(texts) == ["a.py", "b.py", "c.py"]


def test_a_triton_kernel_trace_carries_its_python_source(tmp_path: Path) -> None:
    need(triton_missing())
    trace = long_traces.dot_trace(tmp_path)
    kernel = tmp_path / "matmul_by_sum.py"
    assert trace.sources[str(kernel)] == kernel.read_text(encoding="utf-8")
    path = tmp_path / "dot.passviz.json"
    write_trace(trace, path)
    import json

    assert schema_errors(json.loads(path.read_text(encoding="utf-8").splitlines()[0])) == []
