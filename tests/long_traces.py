"""Long real traces for the viewer's browser tests and benchmark.

- ``matmul``: Triton's tutorial matmul through ``make-ttir``, from what
  Triton's frontend makes of it (a few hundred steps; needs triton);
- ``big``: a generated 2,000-op arith module through ``canonicalize,cse``
  (a couple of thousand steps);
- ``seed``: seed 000, ``wrap-func-body-with-single-block,canonicalize`` on
  ``examples/wrap_multi_block.mlir``.

Each is recorded once per process and written where the caller asks.
"""

from __future__ import annotations

import functools
from pathlib import Path

from passviz.pipelines import record
from passviz.recording.recorder import RecordOptions
from passviz.trace.model import Trace
from tests.conftest import PEER
from tests.irgen import arith_module

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "examples" / "wrap_multi_block.mlir"


@functools.cache
def seed_trace() -> Trace:
    """Seed 000: the wrap pass, then canonicalize."""
    return record(SEED.read_text(encoding="utf-8"), "wrap-func-body-with-single-block,canonicalize").trace


@functools.cache
def big_trace(ops: int = 2000) -> Trace:
    """``canonicalize,cse`` on a generated arith module of ``ops`` ops."""
    return record(arith_module(ops, seed=1), "canonicalize,cse").trace


@functools.cache
def matmul_trace() -> Trace:
    """``make-ttir`` on the tutorial matmul as Triton's frontend emits it (import only with triton)."""
    from tests.triton_oracle import frontend_ir

    return record(frontend_ir("matmul"), "make-ttir").trace


def first_step(trace: Trace, *, name: str | None = None, creates: str | None = None) -> int:
    """The first step named ``name``, or the first whose delta creates an op called ``creates``."""
    for step in trace.steps:
        if name is not None and step.name == name:
            return step.index
        if creates is not None and any(op["name"] == creates for op in step.delta.get("ops_created", ())):
            return step.index
    raise LookupError(f"no step named {name!r} or creating {creates!r}")


MATMUL_BY_SUM = """
import triton
import triton.language as tl


@triton.jit
def matmul_by_sum(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :])
    b = tl.load(b_ptr + r[:, None] * BLOCK + r[None, :])
    c = tl.sum(a[:, :, None] * b[None, :, :], axis=1)
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], c)
"""
"""A matmul written as a broadcast-multiply-reduce, which make-ttir's combine turns into a ``tt.dot``."""


@functools.cache
def dot_trace(folder: Path) -> Trace:
    """``make-ttir`` on ``MATMUL_BY_SUM`` (written to ``folder``, so its source can be read back)."""
    import importlib.util

    from passviz.compilers.triton.frontend import triton_frontend_ir

    path = folder / "matmul_by_sum.py"
    path.write_text(MATMUL_BY_SUM, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("passviz_matmul_by_sum", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    signature = {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "BLOCK": "constexpr"}
    text = triton_frontend_ir(module.matmul_by_sum, signature, {"BLOCK": 16})
    # The kernel's folder is no input's folder: the recording is told it may embed its files.
    return record(text, "make-ttir", options=RecordOptions(source_dirs=(str(folder),))).trace


PERSISTENT_MATMUL = """
import triton
import triton.language as tl


@triton.jit
def _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M: tl.constexpr):
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def matmul_kernel_persistent(a_ptr, b_ptr, c_ptr, M, N, K,
                             stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                             BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                             GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    tile_id_c = start_pid - NUM_SMS
    offs_k_for_mask = tl.arange(0, BLOCK_SIZE_K)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS):
        pid_m, pid_n = _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        start_m = pid_m * BLOCK_SIZE_M
        start_n = pid_n * BLOCK_SIZE_N
        offs_am = start_m + tl.arange(0, BLOCK_SIZE_M)
        offs_bn = start_n + tl.arange(0, BLOCK_SIZE_N)
        offs_am = tl.where(offs_am < M, offs_am, 0)
        offs_bn = tl.where(offs_bn < N, offs_bn, 0)
        offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_SIZE_M), BLOCK_SIZE_M)
        offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_SIZE_N), BLOCK_SIZE_N)
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
            a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
            b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
            a = tl.load(a_ptrs, mask=offs_k_for_mask[None, :] < K - ki * BLOCK_SIZE_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k_for_mask[:, None] < K - ki * BLOCK_SIZE_K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
        tile_id_c += NUM_SMS
        pid_m, pid_n = _compute_pid(tile_id_c, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        c = accumulator.to(tl.float16)
        tl.store(c_ptrs, c, mask=c_mask)
"""
"""Triton's persistent matmul tutorial kernel (09-persistent-matmul), whose ``_compute_pid`` make-ttir inlines."""


@functools.cache
def persistent_trace(folder: Path) -> Trace:
    """``make-ttir`` on ``PERSISTENT_MATMUL`` (written to ``folder``, so its source can be read back)."""
    import importlib.util

    from passviz.compilers.triton.frontend import triton_frontend_ir

    path = folder / "persistent_matmul.py"
    path.write_text(PERSISTENT_MATMUL, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("passviz_persistent_matmul", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    signature = {
        "a_ptr": "*fp16",
        "b_ptr": "*fp16",
        "c_ptr": "*fp16",
        "M": "i32",
        "N": "i32",
        "K": "i32",
        **{f"stride_{s}": "i32" for s in ("am", "ak", "bk", "bn", "cm", "cn")},
        **{
            k: "constexpr"
            for k in ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M", "NUM_SMS")
        },
    }
    constants = {
        "BLOCK_SIZE_M": 128,
        "BLOCK_SIZE_N": 128,
        "BLOCK_SIZE_K": 64,
        "GROUP_SIZE_M": 8,
        "NUM_SMS": 132,
    }
    text = triton_frontend_ir(module.matmul_kernel_persistent, signature, constants)
    return record(text, "make-ttir", options=RecordOptions(source_dirs=(str(folder),))).trace


@functools.cache
def iree_trace(model: str) -> Trace:
    """The seed's ``matmul_bias`` (``model="matmul_bias"``) or a convolution (``"img2col"``) through ``iree-flow``."""
    from tests.iree_support import SEED_EXAMPLES, SEED_MATMUL

    text = SEED_MATMUL if model == "matmul_bias" else SEED_EXAMPLES[model]
    return record(text, "iree-flow").trace


TOY_PROGRAM = "llvm-project/mlir/test/Examples/Toy/Ch6/codegen.toy"
"""The Toy program lowered to LLVM: the tutorial's chapter 6 codegen test (in the peer checkout)."""


@functools.cache
def toy_trace() -> Trace:
    """``toyc-ch6 codegen.toy -emit=mlir-llvm -opt`` (the ``toy-ch6`` pipeline), MLIRGen included."""
    from passviz.cli.toyc import run_toy

    result = run_toy(str(PEER / TOY_PROGRAM), "mlir-llvm", chapter=6, opt=True)
    assert result.run is not None
    return result.run.trace
