"""pyright in strict mode is clean on the package."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def test_pyright_strict_is_clean() -> None:
    pyright = shutil.which("pyright")
    if pyright is None:
        pytest.skip("pyright is not installed (pip install -e '.[test]')")
    root = Path(__file__).resolve().parents[1]
    result = subprocess.run([pyright, "passviz"], cwd=root, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-4000:]
    assert "0 errors" in result.stdout
