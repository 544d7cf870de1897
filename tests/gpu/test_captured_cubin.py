"""On a GPU: the cubin ``passviz triton`` keeps (``meta.imported.kernel``) launched as Triton built
it, read back from the trace file, and through ``passviz run --gpu``'s path, computes the tutorial vector add
as numpy does.  Skips without a GPU or pycuda."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from passviz.cli import _parser  # pyright: ignore[reportPrivateUsage]
from passviz.cli.run_kept import gpu_kernel, run_imported
from passviz.run.gpu_launch import Device, run_on_gpu
from passviz.trace.store import read_trace, write_trace

pytestmark = [pytest.mark.gpu, pytest.mark.triton]


def test_the_kept_vector_add_cubin_adds_as_numpy_does(device: Device, tmp_path: Path) -> None:
    import passviz
    from tests.triton_kernels import KERNELS

    kernel = KERNELS["vector_add"]
    trace = passviz.capture_triton(
        kernel.fn, kernel.signature, dict(kernel.constexprs), target=f"cuda:{device.capability}"
    )
    path = tmp_path / "add.passviz.json"
    write_trace(trace, path)
    imported = read_trace(path, validate=True).meta.get("imported", {"dump": "", "printing": ""})
    assert "kernel" in imported
    kept = imported["kernel"]
    size = 1 << 20
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(size, dtype=np.float32), rng.standard_normal(size, dtype=np.float32)
    arguments = [("x_ptr", x), ("y_ptr", y), ("output_ptr", np.zeros(size, np.float32)), ("n_elements", size)]
    gpu = run_on_gpu(gpu_kernel(kept), arguments, (size // kernel.constexprs["BLOCK_SIZE"],))
    assert gpu.error is None, gpu.error
    assert gpu.changed == {"output_ptr"}
    np.testing.assert_array_equal(gpu.buffers["output_ptr"], x + y)
    # What passviz run --gpu does on the trace: the same cubin, inputs made from the kept signature.
    saved = tmp_path / "out.npz"
    args = _parser().parse_args(["run", str(path), "--gpu", "--grid", "4", "--save", str(saved)])
    assert run_imported(args, read_trace(path)) == 0
    assert set(np.load(saved)) == {"output_ptr"}
