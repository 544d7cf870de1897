"""Shared fixtures: where the peer test files are, and small helpers."""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _pytest.mark import ParameterSet
from filecheck.matcher import Matcher
from filecheck.options import Options

from passviz.pipelines import InputError, TraceRun, parse_ir
from tests import markers

PEER = Path(__file__).resolve().parents[2] / "shared" / "peer"
"""The peer projects' test files (``../shared/peer`` beside the checkout)."""

WRAP_TEST = PEER / "triton-linalg/test/Dialect/Triton/wrap-func-body-with-single-block.mlir"


def split_chunks(text: str) -> list[str]:
    """Split an MLIR test file on ``// -----`` like ``-split-input-file``."""
    return [chunk for chunk in text.split("// -----")]


def split_functions(text: str) -> dict[str, str]:
    """The top-level ``tt.func``s of ``text`` by name: from a line starting
    ``tt.func`` to the next line that is just ``}``."""
    functions: dict[str, str] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("tt.func"):
            current = [line]
        elif current is not None:
            current.append(line)
            if line == "}":
                match = re.match(r"tt\.func (?:\w+ )?@(\w+)", current[0])
                assert match is not None, current[0]
                functions[match.group(1)] = "\n".join(current) + "\n"
                current = None
    return functions


def peer_cases(exclude: Path | None = None) -> list[ParameterSet]:
    """Triton's TTIR tests, one test id per ``// -----`` chunk; a chunk of several
    top-level functions (combine.mlir) is split into one case per function."""
    folder = PEER / "triton/test/Triton"
    if not folder.is_dir():
        return []
    cases: list[ParameterSet] = []
    for path in sorted(folder.glob("*.mlir")):
        if path == exclude:
            continue
        for index, chunk in enumerate(split_chunks(path.read_text())):
            functions = split_functions(chunk)
            if len(functions) < 2 or re.search(r"^module", chunk, flags=re.MULTILINE):
                cases.append(pytest.param(chunk, id=f"{path.stem}-{index}"))
                continue
            cases.extend(pytest.param(text, id=f"{path.stem}-{name}") for name, text in functions.items())
    return cases


def filecheck(output: str, checks: str, prefix: str = "CHECK") -> None:
    """Fail unless ``output`` satisfies the ``prefix`` FileCheck directives in ``checks``
    (LLVM FileCheck's semantics, by the ``filecheck`` package)."""
    with tempfile.TemporaryDirectory() as folder:
        check_file, input_file = Path(folder, "checks.mlir"), Path(folder, "output.mlir")
        check_file.write_text(checks)
        input_file.write_text(output)
        errors = io.StringIO()
        with contextlib.redirect_stderr(errors):
            options = Options(str(check_file), input_file=str(input_file), check_prefixes=[prefix])
            status = Matcher.from_opts(options).run()
    if status != 0:
        pytest.fail(f"FileCheck --check-prefix={prefix} failed:\n{errors.getvalue()}", pytrace=False)


def parse_or_skip(text: str) -> None:
    """Skip a peer case that Triton 3.6 cannot parse either (syntax newer than 3.6);
    one that Triton reads and passviz does not fails."""
    from tests.triton_oracle import TritonError, triton_missing, triton_normalize

    try:
        parse_ir(text)
    except InputError as exc:
        if triton_missing() is not None:
            pytest.skip(f"passviz cannot parse this case ({exc}), and triton is not here to tell why")
        try:
            triton_normalize(text)
        except TritonError:
            pytest.skip(f"Triton 3.6 cannot parse this case either (syntax newer than 3.6): {exc}")
        pytest.fail(f"Triton 3.6 parses this case and passviz does not: {exc}")


def triton_39_python() -> Path:
    """The Python of the Triton 3.9 virtualenv (``.venv-triton39``); skip the test without it."""
    python = Path(__file__).resolve().parents[1] / ".venv-triton39" / "bin" / "python"
    if not python.exists():
        pytest.skip(
            "no Triton 3.9 venv at .venv-triton39 (python -m venv .venv-triton39 && "
            ".venv-triton39/bin/pip install -e '.[test]' 'triton==3.9.*')"
        )
    if Path(sys.prefix).resolve() == python.parents[1].resolve():
        # CI's second stage: the installed Triton is 3.9, and this test's own variant runs on it.
        pytest.skip("running in .venv-triton39 already: the installed-Triton variant covers 3.9")
    return python


def peer_file(relative: str) -> Path:
    """A peer test file; skip the test if the shared folder is missing."""
    path = PEER / relative
    if not path.exists():
        pytest.skip(f"peer file {path} is not available")
    return path


ROOT = Path(__file__).resolve().parents[1]
"""The checkout: where the command-line tests run ``passviz``."""


def run_passviz(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``python -m passviz.cli args`` in ``cwd``, its output captured as text."""
    command = [sys.executable, "-m", "passviz.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd)


def trace_text(tmp_path: Path, text: str, *args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``passviz trace`` on ``text`` with ``args``; the run and the trace file it names."""
    source = tmp_path / "in.mlir"
    source.write_text(text)
    out = tmp_path / "t.passviz.json"
    return run_passviz("trace", str(source), "-o", str(out), *args), out


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The one ``passviz: error:`` line a failed run prints, without a traceback."""
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("passviz: error: ")
    return lines[0]


CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
"""Debian's Chromium, which the browser tests drive (never a downloaded browser)."""

BROWSER = Path(__file__).resolve().parent / "browser"
"""The browser tests' node scripts and their pinned playwright-core."""


def need(missing: str | None) -> None:
    """Skip the test when ``missing`` names what it lacks; under CI (``CI`` set), fail instead."""
    if missing is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"this test must run in CI: {missing}")
    pytest.skip(missing)


def artifacts_folder() -> Path:
    """Where browser tests save screenshots and pages: ``$PASSVIZ_ARTIFACTS`` or ``tests/artifacts``."""
    folder = Path(os.environ.get("PASSVIZ_ARTIFACTS", Path(__file__).parent / "artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def artifacts() -> Path:
    """The artifacts folder, for a test that drives Chromium (skipped, or failed under CI, without it)."""
    need(browser_missing())
    return artifacts_folder()


def browser_missing() -> str | None:
    """What the browser tests lack on this machine, or None."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    if not (BROWSER / "node_modules" / "playwright-core").exists():
        return "playwright-core is not installed (npm ci --prefix tests/browser)"
    return None


def iree_opt() -> str:
    """The path of ``iree-opt`` (the ``[iree]`` extra), beside this Python first; needs ``need(iree_opt_missing())``."""
    beside = Path(sys.executable).parent / "iree-opt"
    return str(beside) if beside.exists() else shutil.which("iree-opt") or "iree-opt"


def iree_opt_missing() -> str | None:
    """What the tests that compare with ``iree-opt`` lack on this machine, or None."""
    if (Path(sys.executable).parent / "iree-opt").exists() or shutil.which("iree-opt"):
        return None
    return "iree-opt is not installed (pip install -e '.[iree]')"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark tests by what they need (``tests/markers.py``); each test skips itself where what it
    needs is missing (``need``), so a test that uses Triton only in part still runs the rest."""
    markers.apply(items)


@pytest.fixture(autouse=True)
def _triton_tests_are_marked(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that reaches Triton without the ``triton`` marker fails (``markers.guard_triton``)."""
    markers.guard_triton(request.node, monkeypatch)


@pytest.fixture(scope="session")
def _checked_traces() -> set[str]:
    """The digests of the traces checked so far in this session (``tests/printed_check.py``)."""
    return set()


@pytest.fixture(autouse=True)
def _pane_text_is_the_cli_text(monkeypatch: pytest.MonkeyPatch, _checked_traces: set[str]) -> Iterator[None]:
    """Every trace a test records through ``passviz.pipelines.record`` reads at every step as the
    CLI prints it, from the pure data as from live IR (``tests/printed_check.py``)."""
    from tests.printed_check import text_mismatch, trace_digest

    # The module, not the function ``passviz.pipelines`` exports under the same name.
    recording = importlib.import_module("passviz.pipelines.record")

    mismatches: list[str] = []
    original = recording._record  # pyright: ignore[reportPrivateUsage]

    def keep(*args: Any, **kwargs: Any) -> TraceRun:
        run = original(*args, **kwargs)
        # Checked as recorded, before the test can change it (hostile-input tests do).
        digest = trace_digest(run.trace)
        if digest not in _checked_traces:
            _checked_traces.add(digest)
            if (mismatch := text_mismatch(run.trace)) is not None:
                mismatches.append(mismatch)
        return run

    monkeypatch.setattr(recording, "_record", keep)
    yield
    assert not mismatches, mismatches[0]
