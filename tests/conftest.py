"""Shared fixtures: where the peer test files are, and small helpers."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

PEER = Path(__file__).resolve().parents[2] / "shared" / "peer"
"""The peer projects' test files (``../shared/peer`` beside the checkout)."""

WRAP_TEST = PEER / "triton-linalg/test/Dialect/Triton/wrap-func-body-with-single-block.mlir"


def split_chunks(text: str) -> list[str]:
    """Split an MLIR test file on ``// -----`` like ``-split-input-file``."""
    return [chunk for chunk in text.split("// -----")]


def peer_file(relative: str) -> Path:
    """A peer test file; skip the test if the shared folder is missing."""
    path = PEER / relative
    if not path.exists():
        pytest.skip(f"peer file {path} is not available")
    return path


CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
"""Debian's Chromium, which the browser tests drive (never a downloaded browser)."""

BROWSER = Path(__file__).resolve().parent / "browser"
"""The browser tests' node scripts and their pinned playwright-core."""


def need(missing: str | None) -> None:
    """Skip the test when ``missing`` names what it lacks; under CI (``CI`` set), fail instead."""
    if missing is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"this test must run in CI: {missing}")
    pytest.skip(missing)


def browser_missing() -> str | None:
    """What the browser tests lack on this machine, or None."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    if not (BROWSER / "node_modules" / "playwright-core").exists():
        return "playwright-core is not installed (npm ci --prefix tests/browser)"
    return None
