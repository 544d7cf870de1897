"""The tutorial kernels as the GPU tests and ``benchmarks/run_panel.py`` run them: passviz's final
``make-ttir`` TTIR of each, inputs, a grid, and numpy's answer.

Import only where Triton is installed (``tests.triton_oracle.triton_missing``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from passviz.pipelines import record
from passviz.run.gpu import ttir_at
from passviz.run.launch import Argument
from passviz.trace.model import Trace
from tests.triton_oracle import KERNEL_NAMES, frontend_ir

NAMES = KERNEL_NAMES
"""vector add, fused softmax, matmul, layer norm."""


@functools.cache
def make_ttir_trace(name: str) -> Trace:
    """passviz's ``make-ttir`` trace of a tutorial kernel, from Triton's frontend IR."""
    run = record(frontend_ir(name), "make-ttir", filename=f"{name}.ttir")
    assert run.trace.status == "ok"
    return run.trace


@functools.cache
def final_ttir(name: str) -> str:
    """passviz's final ``make-ttir`` TTIR of a tutorial kernel, printed as ``passviz run --gpu`` gives
    it to Triton."""
    trace = make_ttir_trace(name)
    return ttir_at(trace, len(trace.steps) - 1)


@dataclass(frozen=True)
class Case:
    """A kernel's inputs, grid, and a check of its outputs against numpy."""

    arguments: list[Argument]
    """The kernel's arguments, in order."""
    grid: tuple[int, ...]
    """Programs along each axis."""
    check: Callable[[dict[str, np.ndarray]], None]
    """Asserts that the written buffers (flat, by argument name) are numpy's answer."""


def vector_add(n: int = 3000) -> Case:
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)

    def check(outputs: dict[str, np.ndarray]) -> None:
        np.testing.assert_array_equal(outputs["out"], x + y)

    out = np.full(n, 7.0, dtype=np.float32)
    return Case([("x", x), ("y", y), ("out", out), ("n", n)], (-(-n // 1024),), check)


def fused_softmax() -> Case:
    rng = np.random.default_rng(1)
    rows, cols = 6, 1000
    a = rng.standard_normal((rows, cols), dtype=np.float32) * 4
    e = np.exp(a - a.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)

    def check(outputs: dict[str, np.ndarray]) -> None:
        np.testing.assert_allclose(outputs["out"].reshape(rows, cols), want, rtol=1e-5, atol=1e-7)

    arguments: list[Argument] = [
        ("out", np.zeros_like(a)),
        ("in", a),
        ("in_stride", cols),
        ("out_stride", cols),
        ("rows", rows),
        ("cols", cols),
    ]
    return Case(arguments, (4,), check)


def matmul() -> Case:
    rng = np.random.default_rng(2)
    m, n, k = 200, 136, 100  # not multiples of the 128x128x64 blocks: masks and % wrap are exercised
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)

    def check(outputs: dict[str, np.ndarray]) -> None:
        got = outputs["c"].reshape(m, n).astype(np.float32)
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)

    strides = zip(("sam", "sak", "sbk", "sbn", "scm", "scn"), (k, 1, n, 1, n, 1), strict=True)
    arguments: list[Argument] = [
        ("a", a),
        ("b", b),
        ("c", np.zeros((m, n), dtype=np.float16)),
        ("M", m),
        ("N", n),
        ("K", k),
        *strides,
    ]
    return Case(arguments, (-(-m // 128) * -(-n // 128),), check)


def layer_norm() -> Case:
    rng = np.random.default_rng(3)
    rows, cols, eps = 3, 1500, 1e-5  # two BLOCK_SIZE chunks per row, the second masked
    x = rng.standard_normal((rows, cols)).astype(np.float16)
    w = rng.standard_normal(cols).astype(np.float16)
    b = rng.standard_normal(cols).astype(np.float16)
    x32 = x.astype(np.float32)
    mean = x32.mean(axis=1)
    rstd = 1 / np.sqrt(((x32 - mean[:, None]) ** 2).mean(axis=1) + eps)
    y = ((x32 - mean[:, None]) * rstd[:, None] * w + b).astype(np.float16)

    def check(outputs: dict[str, np.ndarray]) -> None:
        np.testing.assert_allclose(outputs["Mean"], mean, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(outputs["Rstd"], rstd, rtol=1e-4)
        got = outputs["Y"].reshape(rows, cols).astype(np.float32)
        np.testing.assert_allclose(got, y, rtol=1e-2, atol=1e-2)

    arguments: list[Argument] = [
        ("X", x),
        ("Y", np.zeros_like(x)),
        ("W", w),
        ("B", b),
        ("Mean", np.zeros(rows, np.float32)),
        ("Rstd", np.zeros(rows, np.float32)),
        ("stride", cols),
        ("N", cols),
        ("eps", eps),
    ]
    return Case(arguments, (rows,), check)


CASES: dict[str, Callable[[], Case]] = {
    "vector_add": vector_add,
    "fused_softmax": fused_softmax,
    "matmul": matmul,
    "layer_norm": layer_norm,
}
"""Each tutorial kernel's case, by name."""
