"""On a GPU: the tutorial kernels run from passviz's final TTIR (compiled by Triton's back end,
launched by pycuda in a child process) match the CPU interpreter and numpy; a kernel that faults
or hangs is a flagged run and the calling process goes on.  Skips without a GPU or pycuda."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from passviz.ir.printer import print_module
from passviz.pipelines import parse_ir
from passviz.run.bisect import INITIAL, Outcome
from passviz.run.gpu import run_step_on_gpu, ttir_at
from passviz.run.gpu_compile import compile_ttir
from passviz.run.gpu_launch import Device, compare_with_cpu, run_on_gpu
from passviz.run.launch import launch

pytestmark = [pytest.mark.gpu, pytest.mark.triton]


NAMES = ("vector_add", "fused_softmax", "matmul", "layer_norm")


@pytest.mark.parametrize("name", NAMES)
def test_tutorial_kernel_on_the_gpu_matches_the_cpu_and_numpy(name: str, device: Device) -> None:
    from tests.gpu_cases import CASES, final_ttir

    case = CASES[name]()
    text = final_ttir(name)
    kernel = compile_ttir(text, device.capability)
    gpu = run_on_gpu(kernel, case.arguments, case.grid)
    assert gpu.error is None, gpu.error
    assert gpu.milliseconds is not None and gpu.milliseconds > 0 and gpu.repeats >= 3
    cpu = launch(parse_ir(text), case.arguments, case.grid)
    comparison = compare_with_cpu(Outcome(INITIAL, cpu.outputs, cpu.elements), gpu)
    assert comparison.same, (comparison.reason, comparison.count, comparison.differences)
    assert gpu.changed == set(cpu.outputs)
    case.check({name: gpu.buffers[name] for name in cpu.outputs})


def test_run_step_on_gpu_reports_the_match_and_the_bandwidth(device: Device) -> None:
    from tests.gpu_cases import make_ttir_trace, vector_add

    trace = make_ttir_trace("vector_add")
    case = vector_add(1 << 20)
    found = run_step_on_gpu(trace, len(trace.steps) - 1, case.arguments, case.grid)
    assert found.same, found.lines
    assert any("GB/s" in line for line in found.lines)
    assert any("matches the CPU" in line for line in found.lines)
    assert found.gpu.changed == {"out"}
    case.check({"out": found.gpu.buffers["out"]})
    assert ttir_at(trace, len(trace.steps) - 1) == print_module(parse_ir(trace.ir_at(-1)))


FAULT = """
tt.func public @fault(%out: !tt.ptr<f32>) {
  %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  %wide = arith.extsi %r : tensor<128xi32> to tensor<128xi64>
  %far = arith.constant dense<1099511627776> : tensor<128xi64>
  %offsets = arith.addi %wide, %far : tensor<128xi64>
  %base = tt.splat %out : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
  %pointers = tt.addptr %base, %offsets : tensor<128x!tt.ptr<f32>>, tensor<128xi64>
  %ones = arith.constant dense<1.0> : tensor<128xf32>
  tt.store %pointers, %ones : tensor<128x!tt.ptr<f32>>
  tt.return
}
"""
"""Stores 4 TiB past a 512-byte buffer, with no mask."""

SPIN = """
tt.func public @spin(%flag: !tt.ptr<i32>) {
  %zero = arith.constant 0 : i32
  scf.while : () -> () {
    %v = tt.load %flag {isVolatile = true} : !tt.ptr<i32>
    %go = arith.cmpi eq, %v, %zero : i32
    scf.condition(%go)
  } do {
    scf.yield
  }
  tt.return
}
"""
"""Spins while its flag is 0, which nothing changes."""


def test_a_faulting_kernel_is_flagged_and_the_caller_goes_on(device: Device) -> None:
    from tests.gpu_cases import CASES, final_ttir

    kernel = compile_ttir(print_module(parse_ir(FAULT)), device.capability)
    gpu = run_on_gpu(kernel, [("out", np.zeros(128, np.float32))], (1,))
    assert gpu.error is not None and "\n" not in gpu.error
    assert "illegal" in gpu.error.lower() or "launch" in gpu.error.lower(), gpu.error
    assert gpu.buffers == {}
    # This process never touched the GPU: the next launch runs as if nothing happened.
    case = CASES["vector_add"]()
    again = run_on_gpu(compile_ttir(final_ttir("vector_add"), device.capability), case.arguments, case.grid)
    assert again.error is None, again.error
    case.check({"out": again.buffers["out"]})
    assert os.getpid() > 0


def test_a_hanging_kernel_is_flagged_after_the_timeout(device: Device) -> None:
    kernel = compile_ttir(print_module(parse_ir(SPIN)), device.capability)
    gpu = run_on_gpu(kernel, [("flag", np.zeros(1, np.int32))], (1,), timeout=10)
    assert gpu.error is not None and "no result within 10 s" in gpu.error


def test_run_gpu_record_appends_a_gpu_run_record(device: Device, tmp_path: Path) -> None:
    from passviz.cli import main
    from passviz.pipelines import load_trace
    from passviz.trace.store import write_trace
    from tests.gpu_cases import make_ttir_trace

    path = tmp_path / "vector_add.passviz.json"
    write_trace(make_ttir_trace("vector_add"), path)
    args = ["--arg", "x=4096:f32", "--arg", "y=4096:f32", "--arg", "out=4096:f32:zeros", "--arg", "n=4096"]
    assert main(["run", str(path), "--gpu", "--record", "--grid", "4", *args]) == 0
    [run] = load_trace(path).runs
    assert run["backend"] == "gpu" and run["verdict"] == "same", run
    assert run["step"] == len(load_trace(path).steps) - 1
    assert run.get("device") and run.get("time_ms", 0) > 0 and run.get("gbps", 0) > 0
