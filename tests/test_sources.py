"""Traces carry the source files their locations name, for the viewer's source pane, and only those
a user would expect: source files under the input's folder, the current directory or ``--sources``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from passviz.cli import main
from passviz.pipelines import record
from passviz.recording.recorder import RecordOptions
from passviz.trace.sources import MAX_FILE, MAX_FILES, SourcePolicy, located_files
from passviz.trace.store import read_trace, schema_errors, write_trace
from tests import long_traces
from tests.conftest import need
from tests.triton_oracle import triton_missing


def _located_ir(*paths: Path | str) -> str:
    """A function with one op located in each of ``paths``, and one through a call site."""
    ops = [f'  %v{i + 1} = arith.addi %v{i}, %v{i} : i32 loc("{path}":2:8)' for i, path in enumerate(paths)]
    last = f"%v{len(paths)}"
    return (
        "func.func @f(%v0: i32) -> i32 {\n" + "\n".join(ops) + "\n"
        f'  func.return {last} : i32 loc(callsite("{paths[0]}":3:4 at "missing.py":9:1))\n}}\n'
    )


def _allowing(folder: Path) -> RecordOptions:
    return RecordOptions(source_dirs=(str(folder),))


def test_the_header_carries_the_located_files(tmp_path: Path) -> None:
    source = tmp_path / "kernel.py"
    source.write_text("def f(a):\n    b = a + a\n    return b\n", encoding="utf-8")
    trace = record(_located_ir(source), "canonicalize", options=_allowing(tmp_path)).trace
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
    assert record(_located_ir(source), "canonicalize", options=_allowing(tmp_path)).trace.sources == {}
    source.write_text("small\n", encoding="utf-8")
    options = RecordOptions(embed_sources=False, source_dirs=(str(tmp_path),))
    assert record(_located_ir(source), "canonicalize", options=options).trace.sources == {}


def test_located_files_reads_fused_and_call_site_locations() -> None:
    texts = ['loc("a.py":1:2)', 'loc(callsite("b.py":3:4 at "a.py":5:6))', 'loc(fused["c.py":1:1, unknown])']
    assert located_files(texts) == ["a.py", "b.py", "c.py"]


SECRET = "passviz-test-secret-3f9c1e"
"""A marker that must never reach a trace or a page: it stands for the user's private data."""


def _hostile_module(folder: Path) -> Path:
    """An input (in ``folder``) whose locations name system files, and source-named links to them
    and to a private file, beside one honest kernel file."""
    private = folder.parent / f"{folder.name}-private" / "notes.py"
    private.parent.mkdir()
    private.write_text(f"token = '{SECRET}'\n", encoding="utf-8")
    (folder / "environ.py").symlink_to("/proc/self/environ")
    (folder / "hostname.py").symlink_to("/etc/hostname")
    (folder / "notes.py").symlink_to(private)
    (folder / "notes.txt").write_text(f"{SECRET}\n", encoding="utf-8")  # not a source kind
    hidden = folder / ".config" / "keys.py"
    hidden.parent.mkdir()
    hidden.write_text(f"key = '{SECRET}'\n", encoding="utf-8")
    (folder / "kernel.py").write_text("def kernel():\n    pass\n", encoding="utf-8")
    names = [
        "/proc/self/environ", "/etc/hostname", "/proc/self/cmdline", "/dev/stdin", "/sys/kernel/uevent_seqnum",
        folder / "environ.py", folder / "hostname.py", folder / "notes.py", folder / "notes.txt", hidden,
        private, folder / "kernel.py",
    ]  # fmt: skip
    module = folder / "reproducer.mlir"
    module.write_text(_located_ir(*names), encoding="utf-8")
    return module


def _passviz(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The passviz command line in a child process, with the secret in its environment."""
    env = {**os.environ, "PASSVIZ_TEST_SECRET": SECRET}
    return subprocess.run(
        [sys.executable, "-m", "passviz.cli", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_crafted_input_embeds_no_system_or_private_file(tmp_path: Path) -> None:
    folder = tmp_path / "download"
    folder.mkdir()
    module = _hostile_module(folder)
    trace_path, page = tmp_path / "t.passviz.json", tmp_path / "t.html"
    # Run where a user reads a downloaded reproducer: in its folder; the private file lies beside it.
    done = _passviz("trace", str(module), "-p", "canonicalize", "-o", str(trace_path), cwd=folder)
    assert done.returncode == 0, done.stderr
    header = json.loads(trace_path.read_text(encoding="utf-8").splitlines()[0])
    assert header["sources"] == {str(folder / "kernel.py"): "def kernel():\n    pass\n"}
    done = _passviz("export", str(trace_path), "--html", str(page), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    hostname = Path("/etc/hostname").read_text(encoding="utf-8").strip()
    for path in (trace_path, page):
        text = path.read_text(encoding="utf-8")
        assert SECRET not in text
        assert "PASSVIZ_TEST_SECRET" not in text  # nothing of the environment
        # the host name, as the value of an embedded source (it is too short to look for alone)
        assert f'"{hostname}\\n"' not in text
    steps = _passviz("steps", str(trace_path), cwd=tmp_path).stdout
    assert f"embedded sources (1):\n  {folder / 'kernel.py'} (23 bytes)" in steps


def test_sources_come_from_the_input_folder_the_current_directory_and_named_folders(tmp_path: Path) -> None:
    input_folder, cwd, named, other = (tmp_path / name for name in ("input", "cwd", "named", "other"))
    for folder in (input_folder, cwd, named, other):
        folder.mkdir()
        (folder / "k.py").write_text(f"# {folder.name}\n", encoding="utf-8")
    module = input_folder / "in.mlir"
    module.write_text(
        _located_ir(*(folder / "k.py" for folder in (input_folder, cwd, named, other))), "utf-8"
    )
    (cwd / "relative.py").write_text("# relative\n", encoding="utf-8")
    out = tmp_path / "t.passviz.json"
    done = _passviz("trace", str(module), "-p", "cse", "-o", str(out), "--sources", str(named), cwd=cwd)
    assert done.returncode == 0, done.stderr
    assert set(read_trace(out).sources) == {str(f / "k.py") for f in (input_folder, cwd, named)}
    done = _passviz("trace", str(module), "-p", "cse", "-o", str(out), "--no-sources", cwd=cwd)
    assert done.returncode == 0, done.stderr
    assert read_trace(out).sources == {}
    validate = _passviz("validate", str(out), cwd=cwd)
    assert validate.stdout.splitlines()[-1] == "embedded sources: none"


def test_the_policy_refuses_what_is_no_source(tmp_path: Path) -> None:
    policy = SourcePolicy.for_input(None, [tmp_path, "/proc", "/dev"])
    assert policy.folders == (Path.cwd().resolve(), tmp_path.resolve())  # system folders are never roots
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "loop.py").symlink_to(tmp_path / "loop.py")
    os.mkfifo(tmp_path / "fifo.py")
    assert policy.admits(str(tmp_path / "a.py")) == (tmp_path / "a.py").resolve()
    for name in ("/proc/self/environ", str(tmp_path / "loop.py"), str(tmp_path / "nope.py"), "a\0.py"):
        assert policy.admits(name) is None
    # A FIFO passes the name checks, but it is no regular file: reading skips it without blocking.
    trace = record(
        _located_ir(tmp_path / "fifo.py", tmp_path / "a.py"), "cse", options=_allowing(tmp_path)
    ).trace
    assert list(trace.sources) == [str(tmp_path / "a.py")]


def test_at_most_max_files_are_embedded(tmp_path: Path) -> None:
    paths = [tmp_path / f"k{i}.py" for i in range(MAX_FILES + 3)]
    for path in paths:
        path.write_text("pass\n", encoding="utf-8")
    trace = record(_located_ir(*paths), "cse", options=_allowing(tmp_path)).trace
    assert list(trace.sources) == [str(path) for path in paths[:MAX_FILES]]


@pytest.mark.parametrize("name", ["nul", "newline"])
def test_odd_file_names_in_locations_are_harmless(tmp_path: Path, name: str) -> None:
    text = _located_ir("a\\00.py" if name == "nul" else "a\\0A.py")
    module = tmp_path / "in.mlir"
    module.write_text(text, encoding="utf-8")
    assert main(["trace", str(module), "-p", "cse", "-o", str(tmp_path / "t.json")]) == 0


def test_a_triton_kernel_trace_carries_its_python_source(tmp_path: Path) -> None:
    need(triton_missing())
    trace = long_traces.dot_trace(tmp_path)
    kernel = tmp_path / "matmul_by_sum.py"
    assert trace.sources[str(kernel)] == kernel.read_text(encoding="utf-8")
    path = tmp_path / "dot.passviz.json"
    write_trace(trace, path)
    assert schema_errors(json.loads(path.read_text(encoding="utf-8").splitlines()[0])) == []
