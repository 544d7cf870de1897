"""The GPU the tests in tests/gpu launch on: the ``device`` fixture, which skips the test with the
reason where there is none (no Triton, no pycuda, no driver or GPU)."""

from __future__ import annotations

import functools

import pytest

from passviz.run.gpu_compile import GpuError, triton_missing
from passviz.run.gpu_launch import Device, probe


@functools.cache
def _device() -> Device | str:
    if (missing := triton_missing()) is not None:
        return missing
    try:
        return probe()
    except GpuError as exc:
        return str(exc)


@pytest.fixture
def device() -> Device:
    """The GPU, probed once a test run."""
    found = _device()
    if isinstance(found, str):
        pytest.skip(found)
    return found
