"""The GPU path as far as it goes without a GPU: passviz's final TTIR of the tutorial kernels becomes
a cubin for sm_90 by Triton's own back end (its bundled ptxas, no driver), the launch parameters
are Triton's, and a missing pycuda is one line."""

from __future__ import annotations

import importlib.util
import re
from types import ModuleType

import numpy as np
import pytest

from passviz.cli import main
from passviz.pipelines import record
from passviz.run.gpu_compile import GpuError, GpuKernel, compile_ttir
from passviz.run.gpu_launch import from_device, launch_parameters, run_on_gpu, to_device
from passviz.trace.store import write_trace
from tests.conftest import need
from tests.triton_oracle import KERNEL_NAMES, triton_missing


def _gpu_cases() -> ModuleType:
    need(triton_missing())
    from tests import gpu_cases

    return gpu_cases


def _tritons_own(name: str) -> object:
    """Triton's own compile of the tutorial kernel from its Python source, for sm_90."""
    import os
    import tempfile

    import triton
    from triton.compiler import ASTSource

    from tests.triton_kernels import KERNELS, TARGET

    kernel = KERNELS[name]
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TRITON_CACHE_DIR"] = cache
        try:
            return triton.compile(
                ASTSource(kernel.fn, signature=kernel.signature, constexprs=kernel.constexprs), target=TARGET
            )
        finally:
            del os.environ["TRITON_CACHE_DIR"]


PTX_PARAM = re.compile(r"\.param \.(\w+)(?: \.ptr \.global \.align \d+)? \w+_param_(\d+)")


def _entry_params(kernel: GpuKernel) -> list[str]:
    """The PTX types of the kernel entry's parameters, in order."""
    entry = re.search(r"\.entry \w+\((.*?)\)", kernel.ptx, flags=re.DOTALL)
    assert entry is not None
    return [match[1] for match in PTX_PARAM.finditer(entry[1])]


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_final_ttir_compiles_to_an_sm90_cubin_with_tritons_launch_parameters(name: str) -> None:
    kernel = compile_ttir(_gpu_cases().final_ttir(name), capability=90)
    assert kernel.cubin[:4] == b"\x7fELF"
    assert ".target sm_90" in kernel.ptx
    own = _tritons_own(name).metadata  # type: ignore[attr-defined]
    assert kernel.name == own.name
    assert (kernel.num_warps, kernel.block, kernel.num_ctas) == (own.num_warps, 32 * own.num_warps, 1)
    assert kernel.shared == own.shared
    assert kernel.global_scratch.size == own.global_scratch_size
    assert kernel.profile_scratch.size == own.profile_scratch_size
    assert kernel.unsupported() is None


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_launch_parameters_are_the_entrys_with_the_scratch_pointers(name: str) -> None:
    cases = _gpu_cases()
    kernel = compile_ttir(cases.final_ttir(name), capability=90)
    case = cases.CASES[name]()
    parameters, arrays = launch_parameters(kernel, case.arguments, case.grid)
    ptx = _entry_params(kernel)
    assert len(ptx) == len(parameters) == len(case.arguments) + 2
    assert [p["name"] for p in parameters[-2:]] == ["global_scratch", "profile_scratch"]
    assert all(p["bytes"] == 0 for p in parameters[-2:])  # null pointers: no scratch in these kernels
    for parameter, kind in zip(parameters, ptx, strict=True):
        if parameter["kind"] == "scalar":
            value = arrays[parameter["key"]]
            assert value.ndim == 0
            assert kind == {"i": "u32", "f": "f32"}[value.dtype.kind] and value.itemsize == 4
        else:
            assert kind == "u64"
    for parameter, (_, value) in zip(parameters, case.arguments, strict=False):
        if parameter["kind"] == "buffer":
            assert arrays[parameter["key"]].nbytes == value.nbytes


def test_the_matmul_uses_shared_memory_and_the_vector_add_none() -> None:
    cases = _gpu_cases()
    assert compile_ttir(cases.final_ttir("vector_add"), capability=90).shared == 0
    assert compile_ttir(cases.final_ttir("matmul"), capability=90).shared > 0


def test_num_warps_sets_the_block() -> None:
    kernel = compile_ttir(_gpu_cases().final_ttir("vector_add"), capability=90, num_warps=8)
    assert (kernel.num_warps, kernel.block) == (8, 256)
    assert ".reqntid 256" in kernel.ptx


def test_ttir_triton_cannot_compile_is_one_line() -> None:
    need(triton_missing())
    with pytest.raises(GpuError, match=r"^Triton could not compile the TTIR for sm_90: [^\n]*$"):
        compile_ttir("tt.func public @k() {\n  tt.bogus\n}\n", capability=90)


def test_16_bit_floats_travel_as_their_bits() -> None:
    values = np.array([1.5, -2.25, 65504.0, np.inf], dtype=np.float16)
    bits = to_device(values, "*f16", "x")
    assert bits.dtype == np.uint16 and bits.tolist() == values.view(np.uint16).tolist()
    assert from_device(bits, "*f16", values).tolist() == values.tolist()
    bf16 = np.array([1.0, -3.5, 1 / 3, np.nan], dtype=np.float32)
    back = from_device(to_device(bf16, "*bf16", "x"), "*bf16", bf16)
    assert back[:2].tolist() == [1.0, -3.5] and abs(back[2] - 1 / 3) < 2e-3 and np.isnan(back[3])
    assert to_device(np.float16(0.5), "f16", "s").dtype == np.uint16  # a scalar, as Triton packs fp16
    with pytest.raises(GpuError, match="give it an array"):
        to_device(3, "*f32", "x")


ADD_ONE = """
tt.func public @add_one(%x: !tt.ptr<f32>) {
  %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
  %p = tt.addptr %xs, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
  %v = tt.load %p : tensor<4x!tt.ptr<f32>>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %w = arith.addf %v, %one : tensor<4xf32>
  tt.store %p, %w : tensor<4x!tt.ptr<f32>>
  tt.return
}
"""


def _no_pycuda(monkeypatch: pytest.MonkeyPatch) -> None:
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pycuda" else find_spec(name, *a)
    )


def test_without_pycuda_the_gpu_run_is_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    _no_pycuda(monkeypatch)
    path = f"{tmp_path}/t.passviz.json"
    write_trace(record(ADD_ONE, "canonicalize").trace, path)
    assert main(["run", path, "--gpu", "--arg", "x=4:f32"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "needs pycuda" in err[0] and "passviz[cuda]" in err[0]
    assert main(["run", path, "--arg", "x=4:f32"]) == 0  # the CPU path still works
    fake = GpuKernel("k", b"", "", ("*f32",), 90, 4, 1, 0, *(_scratch(),) * 2, False, False, 0.0, "3.6.0")
    with pytest.raises(GpuError, match="needs pycuda"):
        run_on_gpu(fake, [("x", np.zeros(4, np.float32))], (1,))


def _scratch() -> object:
    from passviz.run.gpu_compile import Scratch

    return Scratch(0, 1)
