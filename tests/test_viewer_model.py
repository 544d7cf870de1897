"""The TypeScript viewer's model agrees with passviz's Python graphs.

``extension/scripts/replay.ts`` replays a trace file with the viewer's own
step model (bundled for node with esbuild) and prints every step's op and
block statuses and op texts; these must equal what passviz.view computes
(``passviz.view.graph.step_graph``, the same graph and statuses), at every
step of real recorded traces.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from passviz.ir.placeholder import REGION_PATTERN
from passviz.pipelines import record
from passviz.trace.model import Trace
from passviz.trace.store import write_trace
from passviz.view.graph import step_graph
from passviz.view.state import TraceStates
from tests.conftest import need
from tests.passes_for_tests import FoldAddiChainPass

ROOT = Path(__file__).resolve().parents[1]
EXTENSION = ROOT / "extension"
ESBUILD = EXTENSION / "node_modules" / "esbuild" / "bin" / "esbuild"
SEED = ROOT / "examples" / "wrap_multi_block.mlir"

CHAIN = """
func.func @f(%a: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %0 = arith.addi %a, %c1 : i32
  %1 = arith.addi %0, %c1 : i32
  %2 = arith.addi %1, %c1 : i32
  %3 = arith.muli %2, %2 : i32
  %4 = arith.muli %3, %3 : i32
  func.return %2 : i32
}
"""


@pytest.fixture(scope="module")
def replay_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    missing = None
    if shutil.which("node") is None:
        missing = "node is not installed"
    elif not ESBUILD.exists():
        missing = "extension/node_modules is missing (pip install -e . installs it)"
    need(missing)
    out = tmp_path_factory.mktemp("replay") / "replay.cjs"
    subprocess.run(
        [
            str(ESBUILD),
            "scripts/replay.ts",
            "--bundle",
            "--platform=node",
            f"--outfile={out}",
            "--log-level=warning",
        ],
        cwd=EXTENSION,
        check=True,
    )
    return out


def _replay(script: Path, trace: Trace, tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "trace.passviz.json"
    write_trace(trace, path)
    done = subprocess.run(["node", str(script), str(path)], capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def _python_view(states: TraceStates, step: int) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    graph = step_graph(states, step, "nesting")
    ops = {n: str(a["status"]) for n, a in graph.nodes(data=True) if a["kind"] in ("op", "box")}
    blocks = {n: str(a["status"]) for n, a in graph.nodes(data=True) if a["kind"] == "block"}
    texts = {op.id: op.text for op in states.at(step).ops.values()}
    return ops, blocks, texts


def _check(script: Path, trace: Trace, tmp_path: Path) -> int:
    rows = _replay(script, trace, tmp_path)
    assert [row["step"] for row in rows] == list(range(-1, len(trace.steps)))
    states = TraceStates(trace)
    changed = 0
    for row in rows:
        step = row["step"]
        ops, blocks, texts = _python_view(states, step)
        viewer_ops = {i: s for i, (kind, s, _) in row["nodes"].items() if kind in ("op", "box")}
        assert viewer_ops == ops, f"step {step}: op statuses differ"
        viewer_blocks = {i: s for i, (kind, s, _) in row["nodes"].items() if kind == "block"}
        assert viewer_blocks == blocks, f"step {step}: block statuses differ"
        assert row["texts"] == texts, f"step {step}: op texts differ"
        changed += sum(1 for s in ops.values() if s != "unchanged")
    return changed


def test_seed_000_statuses_and_texts_match_python(replay_script: Path, tmp_path: Path) -> None:
    trace = record(
        SEED.read_text(), "wrap-func-body-with-single-block,canonicalize", filename=SEED.name
    ).trace
    assert trace.initial is not None
    assert _check(replay_script, trace, tmp_path) > 10


def test_folded_chain_statuses_and_texts_match_python(replay_script: Path, tmp_path: Path) -> None:
    trace = record(
        CHAIN,
        "test-fold-addi-chain,canonicalize,cse,dce",
        extra_passes={"test-fold-addi-chain": FoldAddiChainPass},
    ).trace
    assert _check(replay_script, trace, tmp_path) > 3


def test_viewer_lines_hold_every_op_text(replay_script: Path, tmp_path: Path) -> None:
    trace = record(
        SEED.read_text(), "wrap-func-body-with-single-block,canonicalize", filename=SEED.name
    ).trace
    rows = _replay(replay_script, trace, tmp_path)
    states = TraceStates(trace)
    for row in rows:
        text = "\n".join(row["lines"])
        for op in states.at(row["step"]).ops.values():
            head = REGION_PATTERN.split(op.text)[0]
            assert head in text, f"step {row['step']}: {op.id} missing from the IR pane"
