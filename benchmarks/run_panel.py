"""The GPU run panel's figures, measured in one run on a GPU.

- vector add, passviz's final ``make-ttir`` TTIR compiled by Triton's back end and
  launched by ``passviz.run.gpu_launch`` (pycuda, in a child process): GB/s ÷ the
  same cubin launched by Triton's own launcher (goal ≥ 0.95), ÷ Triton's JIT
  launch of the kernel from Python (its own specialization: 16-byte aligned
  pointers, so wider loads), and ÷ the GPU's peak DRAM bandwidth (named);
- source → cubin for each tutorial kernel: Triton's frontend, passviz's traced
  ``make-ttir`` and Triton's back end, against Triton's own ``triton.compile``
  of the Python source (goal ≤ 2 s), each in a fresh cache.

Each launch is timed with CUDA events over ``--repeats`` launches after two
warm-ups; bytes moved are the three vectors' bytes.

    python benchmarks/run_panel.py [--elements 33554432] [--repeats 200]

Needs a GPU, pycuda, Triton and torch (for Triton's own launches). The figures are
printed, never asserted; the script exits 0, or 1 with one line when something is missing.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from passviz.compilers.triton.frontend import triton_frontend_ir  # noqa: E402
from passviz.pipelines import record  # noqa: E402
from passviz.run.gpu import ttir_at  # noqa: E402
from passviz.run.gpu_compile import GpuError, compile_ttir, triton_missing  # noqa: E402
from passviz.run.gpu_launch import probe, run_on_gpu  # noqa: E402

PEAKS: tuple[tuple[str, float, str], ...] = (
    ("H200", 4.8e12, "H200's datasheet: 4.8 TB/s"),
    ("H100 PCIe", 2.0e12, "H100 PCIe's datasheet: 2.0 TB/s"),
    ("H100 NVL", 3.9e12, "H100 NVL's datasheet: 3.9 TB/s"),
    ("H100", 3.35e12, "H100 SXM's datasheet: 3.35 TB/s"),
    ("A100", 2.0e12, "A100 80GB SXM's datasheet: 2.0 TB/s"),
)
"""Peak DRAM bandwidth by a part of the GPU's name, first match wins."""


def peak_bandwidth(device: str) -> tuple[float, str] | None:
    """The peak DRAM bandwidth of ``device`` in B/s, and where the figure comes from."""
    for part, peak, source in PEAKS:
        if part in device:
            return peak, source
    return None


@contextlib.contextmanager
def fresh_cache() -> Iterator[str]:
    """A new, empty cache folder that ``TRITON_CACHE_DIR`` points to inside the
    ``with``; afterwards the variable is as it was (no folder that is gone)."""
    before = os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="run-panel-cache-") as folder:
        os.environ["TRITON_CACHE_DIR"] = folder
        try:
            yield folder
        finally:
            if before is None:
                os.environ.pop("TRITON_CACHE_DIR", None)
            else:
                os.environ["TRITON_CACHE_DIR"] = before


def final_ttir(name: str) -> tuple[str, float]:
    """passviz's final TTIR of a tutorial kernel, and the seconds from Python source to it."""
    from tests.triton_kernels import KERNELS

    kernel = KERNELS[name]
    start = time.perf_counter()
    frontend = triton_frontend_ir(kernel.fn, kernel.signature, kernel.constexprs)
    trace = record(frontend, "make-ttir", filename=f"{name}.ttir").trace
    text = ttir_at(trace, len(trace.steps) - 1)
    return text, time.perf_counter() - start


def time_launches(launch: Any, repeats: int) -> float:
    """Milliseconds per launch of ``launch()`` by CUDA events (torch's), after two warm-ups."""
    import torch

    for _ in range(2):
        launch()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeats):
        launch()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / repeats


def bandwidth(args: argparse.Namespace, capability: int, device: str) -> None:
    """The vector add's GB/s, launched by passviz and by Triton."""
    import torch
    import triton
    from triton.backends.compiler import GPUTarget

    from tests.triton_kernels import add_kernel

    n = args.elements
    text, _ = final_ttir("vector_add")
    kernel = compile_ttir(text, capability)
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    grid = (-(-n // 1024),)
    ours = run_on_gpu(
        kernel, [("x", x), ("y", y), ("out", np.zeros(n, np.float32)), ("n", n)], grid, repeats=args.repeats
    )
    if ours.error is not None or ours.milliseconds is None or ours.gbps is None:
        print(f"passviz's launch flagged: {ours.error}")
        return
    right = np.array_equal(ours.buffers["out"], x + y)
    moved, ours_gbps = ours.bytes_moved, ours.gbps
    print(f"vector add, {n} f32 elements ({moved / 1e6:.0f} MB moved), grid {grid[0]}, on {device}:")
    print(
        f"  passviz (pycuda, child process): {ours.milliseconds * 1e3:8.1f} us  {ours_gbps:7.1f} GB/s  "
        f"right: {right}"
    )

    tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    tout = torch.zeros_like(tx)
    with fresh_cache(), tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "add_kernel.ttir")
        path.write_text(text)
        same = triton.compile(str(path), target=GPUTarget("cuda", capability, 32), options={"num_warps": 4})
        runner = same[(grid[0], 1, 1)]
        same_ms = time_launches(lambda: runner(tx, ty, tout, n), args.repeats)
        same_right = torch.equal(tout, tx + ty)
        tout.zero_()
        jit_ms = time_launches(lambda: add_kernel[grid](tx, ty, tout, n, BLOCK_SIZE=1024), args.repeats)
        jit_right = torch.equal(tout, tx + ty)
    same_gbps = moved / (same_ms * 1e-3) / 1e9
    jit_gbps = moved / (jit_ms * 1e-3) / 1e9
    print(
        f"  Triton's launcher, same cubin:   {same_ms * 1e3:8.1f} us  {same_gbps:7.1f} GB/s  "
        f"right: {same_right}"
    )
    print(
        f"  Triton's JIT, from Python:       {jit_ms * 1e3:8.1f} us  {jit_gbps:7.1f} GB/s  right: {jit_right}"
    )
    print(f"  passviz ÷ Triton's launch of the same cubin: {ours_gbps / same_gbps:.3f} (goal >= 0.95)")
    print(f"  passviz ÷ Triton's JIT launch:               {ours_gbps / jit_gbps:.3f}")
    peak = peak_bandwidth(device)
    if peak is None:
        print(f"  peak DRAM bandwidth of {device!r} unknown: no fraction of it")
    else:
        print(f"  passviz ÷ peak DRAM bandwidth: {ours_gbps * 1e9 / peak[0]:.3f} (peak from {peak[1]})")


def compile_times(capability: int) -> None:
    """Source → cubin for each tutorial kernel, through passviz and by Triton alone."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from tests.triton_kernels import KERNELS

    print(f"source -> cubin for sm_{capability} (goal <= 2 s), fresh caches:")
    print(f"  {'kernel':<14} {'to TTIR':>8} {'to cubin':>9} {'passviz':>8} {'Triton':>8}")
    for name in ("vector_add", "fused_softmax", "matmul", "layer_norm"):
        text, to_ttir = final_ttir(name)
        to_cubin = compile_ttir(text, capability).seconds
        kernel = KERNELS[name]
        with fresh_cache():
            start = time.perf_counter()
            source = ASTSource(kernel.fn, signature=kernel.signature, constexprs=kernel.constexprs)
            triton.compile(source, target=GPUTarget("cuda", capability, 32))
            alone = time.perf_counter() - start
        total = to_ttir + to_cubin
        print(f"  {name:<14} {to_ttir:7.2f}s {to_cubin:8.2f}s {total:7.2f}s {alone:7.2f}s")


def main(argv: list[str] | None = None) -> int:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=1 << 25, help="vector length (default 2^25)")
    parser.add_argument("--repeats", type=int, default=200, help="launches timed (default 200)")
    args = parser.parse_args(argv)
    if (missing := triton_missing()) is not None:
        print(missing)
        return 1
    try:
        device = probe()
    except GpuError as exc:
        print(f"no GPU to measure on: {exc}")
        return 1
    print(f"GPU: {device.name} (sm_{device.capability})")
    bandwidth(args, device.capability, device.name)
    compile_times(device.capability)
    return 0


if __name__ == "__main__":
    sys.exit(main())
