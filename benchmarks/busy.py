"""Other processes keeping cores busy while a benchmark measures (``--busy N``): users run
passviz beside a compiler or a kernel."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator


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
