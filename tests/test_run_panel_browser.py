"""Run records and the run panel in headless Chromium.

- The offline page of a trace that ``passviz bisect --record`` ran on shows its Runs section and
  the ⚑ on the found step's row, goes to that step on a click, and has no run panel (no kernel).
- JupyterLab: a notebook shows a ``TraceWidget`` of the bisect demo; the panel gets inputs from
  the kernel, bisects on the CPU, links to the step it found, runs that step, and the kernel's
  Python holds the run records; its Run on GPU button says why it is disabled without pycuda.

Screenshots go to ``tests/artifacts/`` (``offline-runs.png``, ``lab-run-panel-bisect.png``,
``lab-run-panel.png``)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import nbformat

from passviz.cli import main
from passviz.pipelines import load_trace
from tests.conftest import BROWSER
from tests.test_bisect import ARGS, EXAMPLES
from tests.test_viewer_browser import ROOT, artifacts, lab  # noqa: F401 - fixtures
from tests.viewer_checks import drive

NOTEBOOK = "run-panel.ipynb"
INPUTS = "\n".join([*(f"--arg {spec}" for spec in ARGS), "--grid 4", "--seed 0"])


def _notebook(folder: Path) -> None:
    for name in ("bisect_demo.mlir", "bisect_demo.py"):
        shutil.copy(ROOT / "examples" / name, folder / name)
    cells = [
        "from passviz.pipelines import load_pass_module, record\nfrom passviz.notebook import TraceWidget",
        'passes = load_pass_module("bisect_demo.py")\n'
        'trace = record(open("bisect_demo.mlir").read(), "demo-rewrites,canonicalize", extra_passes=passes).trace',
        'w = TraceWidget(trace, height="900px")\nw',
    ]
    book = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(book, folder / NOTEBOOK)


def test_the_offline_page_shows_the_recorded_runs(artifacts: Path, tmp_path: Path) -> None:  # noqa: F811
    path = tmp_path / "demo.passviz.json"
    demo = ["trace", str(EXAMPLES / "bisect_demo.mlir"), "-p", "demo-rewrites,canonicalize"]
    assert main([*demo, "--passes-from", str(EXAMPLES / "bisect_demo.py"), "-o", str(path)]) == 0
    assert main(["bisect", str(path), "--grid", "4", *(f"--arg={a}" for a in ARGS), "--record"]) == 0
    actions = [
        {"text": ".pv-runs-title", "as": "title"},
        {"text": ".pv-step[data-step='3'] .pv-row-run", "as": "mark"},
        {"text": ".pv-step[data-step='1'] .pv-row-run", "as": "same"},
        {"text": ".pv-runpanel", "as": "panel"},
        {"click": ".pv-run-found"},
        {"inspect": "after"},
        {"shot": "offline-runs"},
    ]
    results = drive(load_trace(path), "offline-runs", actions, artifacts)
    assert results["title"] == "Runs (5)⚑ first differing: step 3"
    assert (results["mark"], results["same"], results["panel"]) == ("⚑", "✓", None)
    assert results["after"]["step"] == 3


def test_the_run_panel_bisects_and_runs_on_the_cpu(
    lab: dict[str, str],  # noqa: F811
    artifacts: Path,  # noqa: F811
) -> None:
    folder = Path(lab["root"]) / "notebooks"
    _notebook(folder)
    plan = {
        "url": f"{lab['base']}/lab/tree/notebooks/{NOTEBOOK}?token={lab['token']}&reset",
        "artifacts": str(artifacts),
        "inputs": INPUTS,
    }
    path = artifacts / "plan-run-panel.json"
    path.write_text(json.dumps(plan))
    done = subprocess.run(
        ["node", str(BROWSER / "run_panel.mjs"), str(path)],
        capture_output=True,
        text=True,
        timeout=580,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    assert "failure" not in report, (
        f"{report['failure']}\nscreenshot: {artifacts / 'lab-run-panel-failure.png'}"
    )
    assert report["panels"] == 1
    # Inputs derived by the kernel from the kernel's signature, one option a line.
    assert report["derived_inputs"].splitlines()[0] == "--arg x=4096:f32:random"
    assert report["busy_seen"] == 1
    # Run on GPU: present; without pycuda in the kernel's Python, disabled, saying why.
    gpu = report["gpu"]
    assert gpu["text"] == "Run on GPU at this step"
    if importlib.util.find_spec("pycuda") is None:
        assert gpu["disabled"], gpu
        assert gpu["title"].startswith("unavailable: running on the GPU needs pycuda"), gpu
    # Bisect names the demo's wrong rewrite, step 3, and links to it.
    bisect = report["bisect"]
    assert bisect["verdict"] == "✗ differs" and bisect["goto"] == "3", bisect
    assert bisect["differences"].startswith("out[0]: expected ")
    assert report["step_after_link"] == 3
    # Run on CPU at step 3: the verdict against the initial IR, the max error and the elements.
    run = report["run"]
    assert run["verdict"] == "✗ differs" and "step 3" in run["line"] and "max error" in run["line"], run
    assert run["differences"].startswith("out[0]: expected ")
    # The viewer shows the new run records: a Runs section, ⚑ on step 3's row.
    assert report["runs_listed"] >= 3
    assert ["3", "⚑"] in report["row_marks"]
    # The kernel's Python holds them too, and the step the link went to.
    count, step, verdict, shown = report["python_runs"].split()
    assert int(count) >= 4 and (step, verdict, shown) == ("3", "differs", "3")
    assert report["errors"] == []
