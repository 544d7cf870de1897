"""Viewer benchmark: the standalone page in headless Chromium.

- Open: the time from navigation to the first drawn step for the trace of a
  10,000-op module (target: at most 2 s).
- Step: the p95 time from pressing → to the next step drawn and painted, on a
  module whose graph has about 5,000 nodes (target: at most 50 ms).

The traces are recorded with ``canonicalize,cse`` on generated arith
modules and exported with ``passviz export --html``.  Figures are printed
with their ratio to the target, measured in this one run; nothing is
asserted.

    python benchmarks/viewer.py [--open-ops 10000] [--step-ops 4000] [--steps 60]
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from passviz.pipelines import record  # noqa: E402
from passviz.trace.store import write_trace  # noqa: E402
from passviz.widget.standalone import standalone_html  # noqa: E402
from tests.irgen import arith_module  # noqa: E402

OPEN_TARGET_S = 2.0
STEP_TARGET_MS = 50.0


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


def _measure(page: Path, steps: int) -> dict[str, object]:
    done = subprocess.run(
        ["node", str(ROOT / "benchmarks" / "viewer_page.mjs"), str(page), str(steps)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--open-ops", type=int, default=10000)
    parser.add_argument("--step-ops", type=int, default=4000, help="module size whose graph has ~5,000 nodes")
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print("open:")
        page, _ = _page(args.open_ops, folder)
        opened = _measure(page, 0)
        ratio = float(opened["open"]) / OPEN_TARGET_S
        print(
            f"  {args.open_ops} ops, {opened['nodes']} nodes drawn: open {opened['open']:.2f} s "
            f"= {ratio:.2f} x the {OPEN_TARGET_S:.0f} s target"
        )
        print("step:")
        page, count = _page(args.step_ops, folder)
        stepped = _measure(page, min(args.steps, count))
        latencies = sorted(float(x) for x in stepped["latencies"])  # type: ignore[union-attr]
        p95 = latencies[int(0.95 * (len(latencies) - 1))]
        print(
            f"  {stepped['nodes']} nodes drawn, {len(latencies)} steps: "
            f"median {statistics.median(latencies):.1f} ms, "
            f"p95 {p95:.1f} ms = {p95 / STEP_TARGET_MS:.2f} x the {STEP_TARGET_MS:.0f} ms target"
        )
        for report in (opened, stepped):
            if report["errors"]:
                print("  page errors:", report["errors"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
