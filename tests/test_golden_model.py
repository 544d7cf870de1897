"""The viewer's TypeScript model against Python's meaning of every recorded trace.

``tests/golden.py`` writes, for each trace the suite records, what passviz's
pure-data reference says every step means; jest replays the same traces with
the viewer's model (``extension/test/golden.test.ts``) and compares.  Cut
copies of each trace must open in both readers with the same steps (or be
refused by both).  The pure-data reference itself is checked against the live
xDSL replay here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from passviz.recording.initial import ensure_initial
from passviz.recording.replay import Replayer
from passviz.trace.apply import apply_delta, initial_state
from passviz.trace.store import read_trace
from tests import golden, long_traces
from tests.conftest import need

EXTENSION = Path(__file__).resolve().parents[1] / "extension"


def _jest_missing() -> str | None:
    if shutil.which("jlpm") is None:
        return "jlpm is missing (pip install -e '.[test]' installs jupyterlab)"
    if not (EXTENSION / "node_modules" / ".bin" / "jest").exists():
        return "extension/node_modules is missing (pip install -e . or cd extension && jlpm install)"
    return None


def test_the_pure_data_state_is_the_live_replay() -> None:
    """At every step of seed 000, apply_delta places the ops and blocks where the xDSL replay does."""
    trace = long_traces.seed_trace()
    state = initial_state(ensure_initial(trace))
    replayer = Replayer(trace)
    for index in range(-1, len(trace.steps)):
        if index >= 0:
            apply_delta(state, trace.steps[index].delta)
            replayer.advance_to(index)
        op_ids = {op: op_id for op_id, op in replayer.ops.items()}
        block_ids = {block: block_id for block_id, block in replayer.blocks.items()}
        assert list(state.walk_ops()) == [op_ids[op] for op in replayer.module.walk()], index
        live_blocks = {
            block_ids[block]: [op_ids[child] for child in block.ops]
            for op in replayer.module.walk()
            for region in op.regions
            for block in region.blocks
        }
        assert {b: d.ops for b, d in state.blocks.items() if b in live_blocks} == live_blocks, index
        assert set(live_blocks) <= set(state.blocks), index


@pytest.mark.slow
def test_typescript_model_matches_the_golden_fixtures(tmp_path: Path) -> None:
    need(_jest_missing())
    names = golden.write_fixtures(tmp_path, golden.recorded_traces())
    assert "seed000" in names and len(names) >= 6
    for cut in tmp_path.glob("*.steps"):
        steps = int(cut.read_text())
        path = cut.with_suffix(".passviz.json")
        if steps < 0:
            # Cut inside its header: Python opens an empty trace (nothing completed
            # before the cut); the viewer, with no initial IR to draw, says so and stops.
            empty = read_trace(path)
            assert (empty.status, empty.steps, empty.initial) == ("incomplete", [], None)
            continue
        trace = read_trace(path)
        assert (trace.status, len(trace.steps)) == ("incomplete", steps), cut.name
        assert trace.warnings
    done = subprocess.run(
        ["jlpm", "jest", "--ci", "test/golden.test.ts"],
        cwd=EXTENSION,
        env={**os.environ, "PASSVIZ_GOLDEN": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    # Every test ran and passed, none skipped: one per fixture, one per cut file, and the presence check.
    summary = re.search(r"^Tests:\s+(\d+) passed, (\d+) total", done.stderr, re.MULTILINE)
    assert summary is not None, done.stderr[-4000:]
    cuts = len(list(tmp_path.glob("*.steps")))
    assert int(summary.group(1)) == int(summary.group(2)) >= len(names) + cuts + 1, summary.group(0)
