"""Shared fixtures: where the peer test files are, and small helpers."""

from __future__ import annotations

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
