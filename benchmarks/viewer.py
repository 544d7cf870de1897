"""Viewer benchmark: the standalone page in headless Chromium, four figures side by side.

- Open: navigation to the first drawn step, for the trace of a 10,000-op
  module (target: at most 2 s).
- Step: p95 of pressing → to the next step drawn and painted, on a module
  whose graph has about 5,000 nodes (target: at most 50 ms).  Each press
  comes once the step before has settled (drawn, side panes filled, camera
  still), as when a person reads a step before the next; the viewer uses
  that time to build the next step's graph ahead.  The IR, details and
  source panes fill in right after the frame that shows the graph.
- Jump: p95 of a jump to a random step of a trace of 2,000+ steps, until
  the step is painted (the viewer's worker replays from its nearest
  checkpoint and builds the graph while the page paints; target: at most
  200 ms).
- Scrub: → held down (key repeat at 30 Hz) for 3 s on that trace: steps
  advanced per key press the page received and the p95 gap between painted
  frames (smooth: every press advances, frames stay under 50 ms apart).

The traces are recorded with ``canonicalize,cse`` on generated arith modules
and exported with ``passviz export --html``.  Each figure is printed with its
ratio to the target, measured in this one run; nothing is asserted.

``--busy N`` measures everything twice, side by side: on an idle machine and
with N other processes each keeping a core busy (users run the viewer beside a
compiler or a kernel).

    python benchmarks/viewer.py [--open-ops 10000] [--step-ops 5000] [--jump-ops 2000] [--steps 60] [--busy 1]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from busy import idle_and_busy  # noqa: E402  (this folder: the script's own)

from passviz.pipelines import record  # noqa: E402
from passviz.trace.store import write_trace  # noqa: E402
from passviz.widget.standalone import standalone_html  # noqa: E402
from tests.irgen import arith_module  # noqa: E402

OPEN_TARGET_S = 2.0
STEP_TARGET_MS = 50.0
JUMP_TARGET_MS = 200.0


def _page(ops: int, folder: Path) -> tuple[Path, int]:
    started = time.perf_counter()
    trace = record(arith_module(ops, seed=1), "canonicalize,cse").trace
    write_trace(trace, folder / f"m{ops}.passviz.json")
    page = folder / f"m{ops}.html"
    page.write_text(standalone_html(trace), encoding="utf-8")
    print(
        f"  recorded {ops} ops: {len(trace.steps)} steps, page {page.stat().st_size / 1e6:.1f} MB "
        f"({time.perf_counter() - started:.1f} s)"
    )
    return page, len(trace.steps)


def measure_page(page: Path, *mode: str) -> dict[str, Any]:
    """``viewer_page.mjs``'s figures for ``page`` in ``mode`` (open, step N, jump N, scrub S)."""
    done = subprocess.run(
        ["node", str(ROOT / "benchmarks" / "viewer_page.mjs"), str(page), *mode],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    return json.loads(done.stdout)


def p95(values: list[float]) -> float:
    """The 95th percentile of ``values`` (the nearest rank below)."""
    ordered = sorted(values)
    return ordered[int(0.95 * (len(ordered) - 1))]


SCRUB_GAP_TARGET_MS = 50.0
"""Frames while scrubbing: no gap longer than this (20 frames a second)."""


def _figures(args: argparse.Namespace, pages: dict[str, Path]) -> list[str]:
    """The four figures on ``pages``, one line each, with their ratios to the targets."""
    opened = measure_page(pages["open"], "open")
    stepped = measure_page(pages["step"], "step", str(args.steps))
    jumped = measure_page(pages["jump"], "jump", str(args.steps))
    scrubbed = measure_page(pages["jump"], "scrub", "3")
    step_p95 = p95(stepped["latencies"])
    jump_p95 = p95(jumped["latencies"])
    lines = [
        f"open     {args.open_ops} ops, {opened['nodes']} nodes drawn: {opened['open']:.2f} s "
        f"= {opened['open'] / OPEN_TARGET_S:.2f} x the {OPEN_TARGET_S:.0f} s target",
        f"step     {stepped['nodes']} nodes, {len(stepped['latencies'])} presses of →: "
        f"median {statistics.median(stepped['latencies']):.1f} ms, p95 {step_p95:.1f} ms "
        f"= {step_p95 / STEP_TARGET_MS:.2f} x the {STEP_TARGET_MS:.0f} ms target",
        f"jump     {jumped['steps']} steps, {len(jumped['latencies'])} random jumps: "
        f"median {statistics.median(jumped['latencies']):.1f} ms, p95 {jump_p95:.1f} ms "
        f"= {jump_p95 / JUMP_TARGET_MS:.2f} x the {JUMP_TARGET_MS:.0f} ms target",
        f"scrub    → held 3 s: {scrubbed['advanced']} steps for {scrubbed['pressed']} key repeats, "
        f"{scrubbed['frames']} frames, p95 frame gap {scrubbed['frameGapP95']:.1f} ms "
        f"= {scrubbed['frameGapP95'] / SCRUB_GAP_TARGET_MS:.2f} x the {SCRUB_GAP_TARGET_MS:.0f} ms target",
    ]
    lines += [f"page errors: {r['errors']}" for r in (opened, stepped, jumped, scrubbed) if r["errors"]]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--open-ops", type=int, default=10000)
    parser.add_argument("--step-ops", type=int, default=5000, help="module size whose graph has ~5,000 nodes")
    parser.add_argument("--jump-ops", type=int, default=2000, help="module size whose trace has 2,000+ steps")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument(
        "--busy",
        type=int,
        default=0,
        help="also measure with this many other processes keeping a core busy each",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pages = {
            "open": _page(args.open_ops, folder)[0],
            "step": _page(args.step_ops, folder)[0],
            "jump": _page(args.jump_ops, folder)[0],
        }
        idle_and_busy(args.busy, lambda: _figures(args, pages))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
