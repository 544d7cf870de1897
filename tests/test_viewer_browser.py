"""The trace viewer end to end in real headless Chromium (Debian's, via playwright-core).

- The standalone page from ``passviz export --html``, loaded from ``file://``
  with every other request blocked.
- JupyterLab, started headless on 127.0.0.1 with a token: the notebook that
  traces seed 000 is run, its ``display(trace)`` viewer and its
  ``TraceWidget`` (driven from Python) are checked, and a ``.passviz.json``
  trace file is opened from the file browser.

Both check the same things: the graph at step K holds the expected boxes and
nodes with the statuses passviz's Python graphs give, and → moves to step K+1
with the changed nodes drawn in their status colours.  Screenshots go to
``tests/artifacts/``.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from passviz.cli import main
from passviz.pipelines import record
from passviz.recording.initial import ensure_initial
from passviz.trace.model import Trace
from passviz.trace.store import write_trace
from passviz.view.graph import step_graph
from passviz.view.state import TraceStates
from tests.conftest import BROWSER, artifacts_folder, browser_missing, need
from tests.long_traces import big_trace
from tests.test_browser import PAYLOAD_IR
from tests.viewer_checks import check_view

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SEED = ROOT / "examples" / "wrap_multi_block.mlir"
STEP = 2
"""Seed 000: step 2 inserts the scf.execute_region; step 3 splices the blocks into it."""

COLOURS = {"added": "#1a7f37", "modified": "#bf8700", "erased": "#cf222e"}
"""The viewer's border colours (the same hues as passviz's other graphs)."""


def _browser_missing() -> str | None:
    if not (ROOT / "passviz" / "static" / "viewer.js").exists():
        return "the viewer bundle is not built (pip install -e .)"
    return browser_missing()


@pytest.fixture(scope="module")
def artifacts() -> Path:
    need(_browser_missing())
    return artifacts_folder()


@pytest.fixture(scope="module")
def seed_trace() -> Trace:
    return record(SEED.read_text(), "wrap-func-body-with-single-block,canonicalize", filename=SEED.name).trace


def _drive(plan: dict[str, Any], folder: Path, timeout: float = 240) -> dict[str, Any]:
    path = folder / f"plan-{plan['mode']}.json"
    path.write_text(json.dumps({**plan, "artifacts": str(folder)}))
    done = subprocess.run(
        ["node", str(BROWSER / "viewer_e2e.mjs"), str(path)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    if "failure" in report:
        log = folder / "jupyterlab.log"
        server = log.read_text()[-3000:] if plan["mode"] == "lab" and log.exists() else ""
        diagnosis = json.dumps(report.get("diagnosis"), indent=1)
        pytest.fail(
            f"{report['failure']}\n\npage: {diagnosis}\nscreenshot: {folder / (plan['mode'] + '-failure.png')}"
            f"\n\nJupyterLab log (tail):\n{server}"
        )
    return report


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r},{g},{b})"


def _python_statuses(trace: Trace, step: int) -> dict[str, str]:
    """Ops, boxes and blocks at ``step`` with their statuses, ghosts included, from passviz.view."""
    graph = step_graph(TraceStates(trace), step, "nesting")
    return {n: str(a["status"]) for n, a in graph.nodes(data=True) if a["kind"] in ("op", "box", "block")}


def _check_graph(trace: Trace, drawn: dict[str, Any], step: int) -> None:
    assert drawn["step"] == step
    nodes = {n["id"]: n for n in drawn["nodes"]}
    python = _python_statuses(trace, step)
    viewer = {i: n["status"] for i, n in nodes.items() if n["kind"] in ("op", "box", "block")}
    assert viewer == python
    state = TraceStates(trace).at(step)
    live = [state.ops[o] for o in state.walk_ops()]
    boxes = {i for i, n in nodes.items() if n["kind"] == "box" and n["status"] != "erased"}
    assert boxes == {op.id for op in live if op.regions}
    for block in (state.blocks[b] for op in live for r in op.regions for b in state.regions[r].blocks):
        parent = nodes[block.id]["parent"]
        region = state.regions[block.region] if block.region else None
        assert region is not None and parent in (region.op, region.id)
    for op in live:
        assert nodes[op.id]["parent"] == op.block
    for node in drawn["nodes"]:
        if node["status"] in COLOURS and node["kind"] in ("op", "block", "box"):
            assert node["border"].replace(" ", "") == _rgb(COLOURS[node["status"]]), node


def _check_step_through(trace: Trace, report: dict[str, Any]) -> None:
    _check_graph(trace, report["atK"], STEP)
    boxes = {n["id"]: n for n in report["atK"]["nodes"] if n["kind"] == "box"}
    region_op = next(i for i, n in boxes.items() if n["label"] == "scf.execute_region")
    assert boxes[region_op]["status"] == "added"
    _check_graph(trace, report["next"], STEP + 1)
    changed = {n["id"]: n["status"] for n in report["next"]["nodes"] if n["status"] != "unchanged"}
    assert changed and set(changed.values()) <= {"added", "modified", "erased"}
    # the blocks spliced into the execute_region now sit in its box
    moved = [n for n in report["next"]["nodes"] if n["kind"] == "block" and n["parent"] == region_op]
    assert len(moved) == 3 and all(n["status"] == "modified" for n in moved)
    assert report["searchFocused"] is True
    canonicalize = sum(
        1 for s in trace.steps if s.pass_name == "canonicalize" or (s.name or "") == "Canonicalize"
    )
    assert 0 < report["visibleRows"] <= canonicalize + 1
    assert report["errors"] == [] and report["dialogs"] == []


def test_standalone_page_offline(seed_trace: Trace, artifacts: Path, tmp_path: Path) -> None:
    trace_file = tmp_path / "seed.passviz.json"
    write_trace(seed_trace, trace_file)
    page = artifacts / "standalone.html"
    assert main(["export", str(trace_file), "--html", str(page)]) == 0
    report = _drive(
        {"mode": "standalone", "url": page.as_uri(), "step": STEP, "select_line": True}, artifacts
    )
    _check_step_through(seed_trace, report)
    assert report["blocked"] == []
    assert report["hash"] == f"#step={STEP + 1}"
    assert "lineage" in report["details"] and "selected:" in report["details"]


OP_NAME_PAYLOAD = "<img src=q onerror=\"window.__pwned='opname'\">"


def _payload_trace() -> Trace:
    trace = record(PAYLOAD_IR, "canonicalize").trace
    trace.meta["input"] = "<script>window.__pwned='input'</script>.mlir"
    trace.meta["pipeline"] = "<img src=x onerror=\"window.__pwned='pipeline'\">"
    for step in trace.steps:
        step.name = "<img src=y onerror=\"window.__pwned='name'\">"
        step.pass_name = "<svg onload=\"window.__pwned='pass'\">"
    initial = ensure_initial(trace)
    for info in initial["delta"].get("ops_created", []):
        if info["name"] == "arith.constant":
            info["name"] = OP_NAME_PAYLOAD
    return trace


def test_untrusted_trace_never_runs_in_the_viewer(artifacts: Path, tmp_path: Path) -> None:
    trace = _payload_trace()
    trace_file = tmp_path / "payload.passviz.json"
    write_trace(trace, trace_file)
    page = artifacts / "standalone-payloads.html"
    assert main(["export", str(trace_file), "--html", str(page)]) == 0
    initial = ensure_initial(trace)
    constant = next(i["id"] for i in initial["delta"].get("ops_created", []) if i["name"] == OP_NAME_PAYLOAD)
    plan = {"mode": "standalone", "url": page.as_uri(), "step": 0, "select_line": True, "select_op": constant}
    report = _drive(plan, artifacts)
    assert report["pwned"] is None
    labels = {n["id"]: n["label"] for n in report["atK"]["nodes"]}
    assert OP_NAME_PAYLOAD[:30] in labels[constant]  # drawn as a label, as it is (cut to fit)
    assert report["dialogs"] == [] and report["errors"] == [] and report["blocked"] == []
    text = report["text"] + report["details"]
    for shown in (
        "__pwned='opname'",
        "__pwned='pass'",
        "__pwned='name'",
        "__pwned='attr'",
        "</script><script>",
    ):
        assert shown in text, shown  # shown as text, never run


# -- JupyterLab ------------------------------------------------------------------------


GZIP_TRACE = "seed.passviz.json.gz"
"""The trace file `passviz trace` writes for seed 000 by default, opened from JupyterLab's file browser."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _lab_missing() -> str | None:
    if shutil.which("jupyter") is None:
        return "jupyter is not installed"
    listing = subprocess.run(
        [sys.executable, "-m", "jupyter", "labextension", "list"], capture_output=True, text=True, check=False
    )
    if "passviz" not in listing.stdout + listing.stderr:
        return (
            "the passviz labextension is not installed (pip install -e . && jupyter labextension develop .)"
        )
    return None


@pytest.fixture(scope="module")
def lab(artifacts: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    need(_lab_missing())
    root = tmp_path_factory.mktemp("lab")
    (root / "notebooks").mkdir()
    (root / "examples").mkdir()
    shutil.copy(ROOT / "notebooks" / "02-trace-viewer.ipynb", root / "notebooks")
    shutil.copy(SEED, root / "examples")
    # what `passviz trace` writes by default: a gzip trace, for the file browser to open
    pipeline = "wrap-func-body-with-single-block,canonicalize"
    assert main(["trace", "-p", pipeline, str(SEED), "-o", str(root / "notebooks" / GZIP_TRACE)]) == 0
    token = secrets.token_hex(16)
    port = _free_port()
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(root / ".jupyter-config"),
        "JUPYTER_RUNTIME_DIR": str(root / ".rt"),
    }
    log = (artifacts / "jupyterlab.log").open("w")
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter",
            "lab",
            "--no-browser",
            "--allow-root",
            "--ip=127.0.0.1",
            f"--port={port}",
            f"--ServerApp.token={token}",
            f"--ServerApp.root_dir={root}",
            f"--LabApp.workspaces_dir={root / '.ws'}",
            f"--LabApp.user_settings_dir={root / '.settings'}",
            "--LabApp.news_url=None",
            # window.jupyterapp lets the driver wait on the notebook's kernel itself.
            "--LabApp.expose_app_in_browser=True",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=root,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            assert server.poll() is None, f"JupyterLab exited; see {artifacts / 'jupyterlab.log'}"
            assert time.monotonic() < deadline, "JupyterLab did not start within 2 minutes"
            time.sleep(0.5)
        yield {"base": base, "token": token, "root": str(root)}
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def test_jupyterlab_renderer_widget_and_document(
    seed_trace: Trace, lab: dict[str, str], artifacts: Path
) -> None:
    url = f"{lab['base']}/lab/tree/notebooks/02-trace-viewer.ipynb?token={lab['token']}&reset"
    long_trace = big_trace(2000)
    erases = [s.index for s in long_trace.steps if s.delta.get("ops_erased")]
    long_steps = [1, erases[len(erases) // 2], len(long_trace.steps) - 2]
    long_cell = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); from tests.irgen import arith_module; "
        "from passviz.pipelines import record; "
        'big = record(arith_module(2000, seed=1), "canonicalize,cse").trace; display(big)'
    )
    plan = {
        "mode": "lab",
        "url": url,
        "step": STEP,
        "trace_file": "demo.passviz.json",
        "gzip_file": GZIP_TRACE,
        "long_cell": long_cell,
        "long_steps": long_steps,
    }
    report = _drive(plan, artifacts, timeout=580)
    # one viewer per trace: the MIME renderer's and the widget's, no fallback frame
    assert (report["viewers"], report["frames"]) == (2, 0)
    # display(trace) in the notebook: the MIME renderer's viewer
    _check_step_through(seed_trace, report)
    # the widget follows Python, and Python reads back what the person did
    assert report["widget_after_python"] == 9
    step, selected = report["python_reads"].split()
    assert step == "10" and selected == report["clicked_op"]
    # the trace file the notebook wrote, opened from the file browser
    assert report["document"]["step"] == -1 and report["document_next"] == 0
    document_ops = {n["id"] for n in report["document"]["nodes"] if n["kind"] in ("op", "box")}
    assert document_ops == set(TraceStates(seed_trace).at(-1).walk_ops())
    # the same trace written gzip-compressed by `passviz trace`, opened from the file browser
    gzip_ops = {n["id"] for n in report["gzip_document"]["nodes"] if n["kind"] in ("op", "box")}
    assert report["gzip_document"]["step"] == -1 and gzip_ops == document_ops
    assert report["errors"] == [], report["errors"]
    # a 2,000-op module's trace (thousands of steps), displayed in the notebook
    for step in long_steps:
        check_view(report["long"][str(step)], step, fills_window=False)
    # ...its steps built and laid out by the viewer's worker thread, inside JupyterLab too
    assert report["long"][str(long_steps[-1])]["laidAhead"] > 0
