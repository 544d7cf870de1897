"""What the IREE tests share: iree-opt run on a text, and outputs compared without resource handles."""

from __future__ import annotations

import re
import subprocess

from tests.conftest import iree_opt


def run_iree_opt(text: str, *flags: str) -> str:
    """iree-opt's output for ``text`` under ``flags``, failing the test on its error."""
    done = subprocess.run([iree_opt(), *flags, "-"], input=text, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def without_resource_handles(text: str) -> str:
    """``text`` without ``dense_resource`` handles, which xDSL renames on every parse in a
    process (tests/test_iree_dialects.py says why)."""
    return re.sub(r"dense_resource<[^>]*>", "dense_resource<>", text)
