"""ruff's lint rules and formatting (pyproject.toml's [tool.ruff]) hold over the code and its tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
"""The checkout: ruff reads its settings from pyproject.toml there."""

CHECKED = ["passviz", "tests", "benchmarks"]
"""The folders ruff checks."""


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["check", "format"])
def test_ruff(command: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", *command, "--no-cache", *CHECKED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    if done.returncode != 0:
        pytest.fail(f"ruff {' '.join(command)} found:\n{done.stdout}{done.stderr}", pytrace=False)
