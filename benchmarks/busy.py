"""Other processes keeping cores busy while a benchmark measures (``--busy N``): users run
passviz beside a compiler or a kernel."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def busy_cores(count: int) -> Iterator[None]:
    """``count`` other processes, each spinning on a core, for as long as the block runs."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        time.sleep(0.5 if count else 0)  # let them reach full speed
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def idle_and_busy(busy: int, figures: Callable[[], list[str]]) -> None:
    """Take ``figures`` with no other process busy, then (``busy`` > 0) with ``busy`` spinning, and
    print both runs' lines side by side, as every benchmark here reports."""
    runs: list[tuple[int, list[str]]] = []
    for count in sorted({0, busy}):
        with busy_cores(count):
            runs.append((count, figures()))
    print("figures (ratio to target; below 1 meets it):")
    for count, lines in runs:
        print(f"  with {count} other busy process{'es' if count != 1 else ''}:")
        for line in lines:
            print(f"    {line}")
