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
