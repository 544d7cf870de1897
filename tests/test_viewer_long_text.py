"""A trace holding a very long string opens at once: the viewer shows a line's worth, the rest on demand."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from passviz.pipelines import record
from passviz.recording.initial import ensure_initial
from passviz.widget.standalone import standalone_html
from tests.conftest import BROWSER
from tests.test_viewer_browser import artifacts  # noqa: F401 - fixture

LENGTH = 400_000


@pytest.mark.browser
def test_long_string_is_clipped_with_the_rest_on_demand(artifacts: Path) -> None:  # noqa: F811
    note = "ab" * (LENGTH // 2)
    ir = f"""func.func @f(%x: i32) -> i32 {{
  %0 = arith.constant {{note = "{note}"}} 1 : i32
  %1 = arith.addi %x, %0 : i32
  func.return %1 : i32
}}"""
    trace = record(ir, "canonicalize").trace
    created = ensure_initial(trace)["delta"]["ops_created"]
    constant = next(info["id"] for info in created if info["name"] == "arith.constant")
    page = artifacts / "long-string.html"
    page.write_text(standalone_html(trace), encoding="utf-8")
    command = [
        "node",
        str(BROWSER / "long_text.mjs"),
        str(page),
        constant,
        str(artifacts / "long-string.png"),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["errors"] == []
    # The IR pane and the details show a line's worth of the string, each with a button for the rest.
    assert report["before_select"]["ir"] < 5_000 and report["before_select"]["buttons"] >= 1
    assert report["selected"]["details"] < 10_000 and report["selected"]["buttons"] >= 2
    # "show all" puts the whole string in the details pane, and only that one button goes.
    assert report["shown_all"]["details"] > LENGTH
    assert report["shown_all"]["buttons"] == report["selected"]["buttons"] - 1
