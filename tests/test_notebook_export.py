"""A notebook exported to static HTML still steps: the trace's HTML is the viewer in a sandboxed frame.

This is how a trace shows wherever the passviz JupyterLab extension is
absent (VS Code, Notebook 7 without it, nbviewer, an HTML export).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter

from tests.conftest import BROWSER, browser_missing, need

pytestmark = [pytest.mark.browser, pytest.mark.jupyter]

ROOT = Path(__file__).resolve().parents[1]

CELL = f"""
from pathlib import Path
from passviz.pipelines import record
from passviz.notebook import Stepper

seed = Path({str(ROOT / "examples" / "wrap_multi_block.mlir")!r})
trace = record(seed.read_text(), "wrap-func-body-with-single-block,canonicalize").trace
Stepper(trace, step=2)
"""


def test_exported_notebook_steps_in_its_frame(tmp_path: Path) -> None:
    if not (ROOT / "passviz" / "static" / "viewer.js").exists():
        pytest.skip("the viewer bundle is not built (pip install -e .)")
    need(browser_missing())
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELL)])
    NotebookClient(notebook, timeout=300, kernel_name="python3").execute()
    body, _ = HTMLExporter().from_notebook_node(notebook)
    page = tmp_path / "exported.html"
    page.write_text(body, encoding="utf-8")
    folder = Path(os.environ.get("PASSVIZ_ARTIFACTS", ROOT / "tests" / "artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["node", str(BROWSER / "frame_step.mjs"), str(page), str(folder / "notebook-export.png")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["errors"] == [] and report["blocked"] == []
    assert report["frames"] == 1
    assert report["sandbox"] == "allow-scripts"
    assert (report["before"], report["after"]) == (2, 3)
