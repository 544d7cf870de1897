"""Triton kernels, compiled by real Triton to TTIR.

Five tutorial kernels: vector add, fused softmax, matmul, layer norm
(forward) and flash attention (forward) in the shape of Triton's tutorials 01,
02, 03, 05 and 06 (06's with pointers where it builds tensor descriptors, and
small blocks).  Then one
small kernel for each construct that once broke ``make-ttir``: dropout
(``tl.rand``), a spin lock (``scf.while`` without operands), ``tl.assume``,
``tl.debug_barrier`` and an early ``return`` (a function of several blocks). ``ttir(name)`` compiles one for an
H100 (``GPUTarget("cuda", 90, 32)``) with ``triton.compile``, which needs no
GPU (the CUDA backend bundles ptxas), and returns ``asm["ttir"]``.

Import this module only where Triton is installed (``tests.triton_oracle.triton_missing``).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import Any

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

TARGET = GPUTarget("cuda", 90, 32)
"""An H100: CUDA compute capability 9.0, 32 threads per warp."""


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)


@triton.jit
def softmax_kernel(
    output_ptr,
    input_ptr,
    input_row_stride,
    output_row_stride,
    n_rows,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
    num_stages: tl.constexpr,
):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        input_ptrs = row_start_ptr + col_offsets
        mask = col_offsets < n_cols
        row = tl.load(input_ptrs, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        output_ptrs = output_row_start_ptr + col_offsets
        tl.store(output_ptrs, softmax_output, mask=mask)


@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@triton.jit
def layer_norm_fwd_kernel(
    X,
    Y,
    W,
    B,
    Mean,
    Rstd,
    stride,
    N,
    eps,
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    mean = 0
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


@triton.jit
def dropout_kernel(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    keep = tl.rand(seed, offsets) > p
    tl.store(output_ptr + offsets, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def spin_lock_kernel(lock_ptr, sum_ptr, x_ptr, BLOCK_SIZE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK_SIZE))
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    tl.store(sum_ptr, tl.load(sum_ptr) + tl.sum(x, axis=0))
    tl.atomic_xchg(lock_ptr, 0)


@triton.jit
def assume_kernel(x_ptr, output_ptr, n_elements, stride, BLOCK_SIZE: tl.constexpr):
    tl.assume(stride > 0)
    tl.assume(n_elements % 16 == 0)
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets * stride, mask=offsets < n_elements)
    tl.store(output_ptr + offsets, x, mask=offsets < n_elements)


@triton.jit
def debug_barrier_kernel(x_ptr, output_ptr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets)
    tl.store(output_ptr + offsets, x * 2)
    tl.debug_barrier()
    reversed_x = tl.load(output_ptr + BLOCK_SIZE - 1 - offsets)
    tl.store(output_ptr + offsets, reversed_x + x)


@triton.jit
def early_return_kernel(x_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    if pid * BLOCK_SIZE >= n_elements:
        return
    # Both halves recompute the offsets: cse must reuse what the entry block computed.
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements)
    tl.store(output_ptr + offsets, x + 1, mask=offsets < n_elements)
    offsets_again = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    y = tl.load(x_ptr + offsets_again, mask=offsets_again < n_elements)
    tl.store(output_ptr + offsets_again, y * 3, mask=offsets_again < n_elements)


@triton.jit
def tensordesc_kernel(a_ptr, output_ptr, M, N, BLOCK: tl.constexpr):
    a = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    out = tl.make_tensor_descriptor(output_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK, BLOCK])
    row = tl.program_id(0) * BLOCK
    out.store([row, 0], a.load([row, 0]) * 2)


@triton.jit
def const_pointer_kernel(x_ptr, output_ptr, BLOCK_SIZE: tl.constexpr):
    # x_ptr is a tl.const pointer (signature *kfp32): Triton 3.9 types it !tt.ptr<f32, "constant">.
    offsets = tl.arange(0, BLOCK_SIZE)
    tl.store(output_ptr + offsets, tl.load(x_ptr + offsets) * 2)


@triton.jit
def _attn_fwd_inner(
    acc,
    l_i,
    m_i,
    q,
    K,
    V,
    offset_y,
    start_m,
    qk_scale,
    BLOCK_M: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    BLOCK_N: tl.constexpr,
    STAGE: tl.constexpr,
    offs_m: tl.constexpr,
    offs_n: tl.constexpr,
    N_CTX: tl.constexpr,
):
    # The keys and values this stage visits: below the diagonal (1), on it (2), or all (3).
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    offs_d = tl.arange(0, HEAD_DIM)
    for start_n in tl.range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        rows = offset_y + start_n + offs_n
        k = tl.load(K + rows[None, :] * HEAD_DIM + offs_d[:, None])
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_ij = tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(V + rows[:, None] * HEAD_DIM + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        l_i = l_i * alpha + l_ij
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def attn_fwd_kernel(
    sm_scale,
    M,
    Q,
    K,
    V,
    Out,
    H,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    N_CTX: tl.constexpr,
    STAGE: tl.constexpr,
):
    # Tutorial 06's forward, with pointers for its descriptors: Q, K, V and Out are
    # [Z * H * N_CTX, HEAD_DIM] row-major.
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offset_y = off_z * (N_CTX * H) + off_h * N_CTX
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale
    qk_scale *= 1.44269504  # 1/log(2)
    q = tl.load(Q + (offset_y + offs_m)[:, None] * HEAD_DIM + offs_d[None, :])
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(
            acc, l_i, m_i, q, K, V, offset_y, start_m, qk_scale,
            BLOCK_M, HEAD_DIM, BLOCK_N, 4 - STAGE, offs_m, offs_n, N_CTX,
        )  # fmt: skip
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(
            acc, l_i, m_i, q, K, V, offset_y, start_m, qk_scale,
            BLOCK_M, HEAD_DIM, BLOCK_N, 2, offs_m, offs_n, N_CTX,
        )  # fmt: skip
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(M + off_hz * N_CTX + offs_m, m_i)
    tl.store(Out + (offset_y + offs_m)[:, None] * HEAD_DIM + offs_d[None, :], acc.to(tl.float16))


@dataclass(frozen=True)
class Kernel:
    """A kernel and the specialization it is compiled for."""

    fn: Any
    """The ``@triton.jit`` function."""

    signature: dict[str, str]
    """Triton's type of each argument (``*fp32``, ``i32``, ``constexpr``)."""

    constexprs: dict[str, int]
    """The values of the ``tl.constexpr`` arguments."""


KERNELS: dict[str, Kernel] = {
    "vector_add": Kernel(
        add_kernel,
        {
            "x_ptr": "*fp32",
            "y_ptr": "*fp32",
            "output_ptr": "*fp32",
            "n_elements": "i32",
            "BLOCK_SIZE": "constexpr",
        },
        {"BLOCK_SIZE": 1024},
    ),
    "fused_softmax": Kernel(
        softmax_kernel,
        {
            "output_ptr": "*fp32",
            "input_ptr": "*fp32",
            "input_row_stride": "i32",
            "output_row_stride": "i32",
            "n_rows": "i32",
            "n_cols": "i32",
            "BLOCK_SIZE": "constexpr",
            "num_stages": "constexpr",
        },
        {"BLOCK_SIZE": 1024, "num_stages": 4},
    ),
    "matmul": Kernel(
        matmul_kernel,
        {
            **{name: "*fp16" for name in ("a_ptr", "b_ptr", "c_ptr")},
            **{
                name: "i32"
                for name in (
                    "M",
                    "N",
                    "K",
                    "stride_am",
                    "stride_ak",
                    "stride_bk",
                    "stride_bn",
                    "stride_cm",
                    "stride_cn",
                )
            },
            **{
                name: "constexpr" for name in ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M")
            },
        },
        {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8},
    ),
    "layer_norm": Kernel(
        layer_norm_fwd_kernel,
        {
            "X": "*fp16",
            "Y": "*fp16",
            "W": "*fp16",
            "B": "*fp16",
            "Mean": "*fp32",
            "Rstd": "*fp32",
            "stride": "i32",
            "N": "i32",
            "eps": "fp32",
            "BLOCK_SIZE": "constexpr",
        },
        {"BLOCK_SIZE": 1024},
    ),
    "flash_attention": Kernel(
        attn_fwd_kernel,
        {
            "sm_scale": "fp32",
            "M": "*fp32",
            "Q": "*fp16",
            "K": "*fp16",
            "V": "*fp16",
            "Out": "*fp16",
            "H": "i32",
            **{name: "constexpr" for name in ("HEAD_DIM", "BLOCK_M", "BLOCK_N", "N_CTX", "STAGE")},
        },
        {"HEAD_DIM": 64, "BLOCK_M": 64, "BLOCK_N": 32, "N_CTX": 128, "STAGE": 3},
    ),
    "dropout": Kernel(
        dropout_kernel,
        {
            "x_ptr": "*fp32",
            "output_ptr": "*fp32",
            "n_elements": "i32",
            "p": "fp32",
            "seed": "i32",
            "BLOCK_SIZE": "constexpr",
        },
        {"BLOCK_SIZE": 1024},
    ),
    "spin_lock": Kernel(
        spin_lock_kernel,
        {"lock_ptr": "*i32", "sum_ptr": "*fp32", "x_ptr": "*fp32", "BLOCK_SIZE": "constexpr"},
        {"BLOCK_SIZE": 128},
    ),
    "assume": Kernel(
        assume_kernel,
        {
            "x_ptr": "*fp32",
            "output_ptr": "*fp32",
            "n_elements": "i32",
            "stride": "i32",
            "BLOCK_SIZE": "constexpr",
        },
        {"BLOCK_SIZE": 1024},
    ),
    "debug_barrier": Kernel(
        debug_barrier_kernel,
        {"x_ptr": "*fp32", "output_ptr": "*fp32", "BLOCK_SIZE": "constexpr"},
        {"BLOCK_SIZE": 128},
    ),
    "early_return": Kernel(
        early_return_kernel,
        {"x_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32", "BLOCK_SIZE": "constexpr"},
        {"BLOCK_SIZE": 1024},
    ),
    "const_pointer": Kernel(
        const_pointer_kernel,
        {"x_ptr": "*kfp32", "output_ptr": "*fp32", "BLOCK_SIZE": "constexpr"},
        {"BLOCK_SIZE": 128},
    ),
    "tensordesc": Kernel(
        tensordesc_kernel,
        {"a_ptr": "*fp32", "output_ptr": "*fp32", "M": "i32", "N": "i32", "BLOCK": "constexpr"},
        {"BLOCK": 64},
    ),
}
"""The kernels by name: the tutorials' with their tutorials' specializations, then the small ones."""


def ttir(name: str) -> str:
    """``asm["ttir"]`` of ``KERNELS[name]`` compiled for ``TARGET`` (locations included).

    Compiles into a fresh cache directory, so that nothing is read from or
    left in the user's Triton cache.
    """
    kernel = KERNELS[name]
    source = ASTSource(kernel.fn, signature=kernel.signature, constexprs=kernel.constexprs)
    with tempfile.TemporaryDirectory() as cache:
        previous = os.environ.get("TRITON_CACHE_DIR")
        os.environ["TRITON_CACHE_DIR"] = cache
        try:
            compiled = triton.compile(source, target=TARGET)
        finally:
            if previous is None:
                del os.environ["TRITON_CACHE_DIR"]
            else:
                os.environ["TRITON_CACHE_DIR"] = previous
    return compiled.asm["ttir"]
