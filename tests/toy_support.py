"""What the Toy tests share: the tutorial's peer tests and ``passviz toy`` run in-process."""

from __future__ import annotations

import pytest

from passviz.cli import main
from tests.conftest import PEER

TOY = PEER / "llvm-project/mlir/test/Examples/Toy"
"""The tutorial's tests, one folder per chapter."""


def needs_toy_peer() -> None:
    """Skip the test if the peer Toy tests are missing."""
    if not TOY.is_dir():
        pytest.skip("the peer Toy tests (../shared/peer/llvm-project) are not here")


def toy_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``passviz toy argv...``: its exit status, stdout and stderr."""
    status = main(["toy", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err
