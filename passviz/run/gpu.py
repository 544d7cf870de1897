"""The IR at a step on the GPU: ``passviz run --gpu``.

The TTIR after the step, printed by passviz as Triton reads it, is compiled by
the installed Triton's back end for the GPU's compute capability
(``gpu_compile``), launched by pycuda in a child process (``gpu_launch``), and
compared with the CPU interpreter's run of the same step on the same inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from passviz.interpret.values import RunError
from passviz.ir.printer import print_module
from passviz.run.bisect import Comparison, Outcome, StepTexts, run_step
from passviz.run.gpu_compile import GpuError, GpuKernel, compile_ttir, triton_missing
from passviz.run.gpu_launch import GpuRun, compare_with_cpu, probe, pycuda_missing, run_on_gpu
from passviz.run.launch import Argument
from passviz.run.report import step_name
from passviz.trace.model import Trace


def ttir_at(trace: Trace, step: int, texts: StepTexts | None = None) -> str:
    """The IR after ``step`` (``INITIAL``: before the first), printed as Triton's parser reads it."""
    try:
        return print_module((texts or StepTexts(trace)).module(step))
    except RunError as exc:
        raise GpuError(str(exc)) from None


def gpu_missing() -> str | None:
    """Why the GPU path cannot run here (pycuda or Triton missing), or None; it launches nothing."""
    return pycuda_missing() or triton_missing()


def describe_gpu_run(gpu: GpuRun) -> str:
    """One line: the kernel time and the bandwidth it gives, or why the run is flagged."""
    if gpu.error is not None:
        return f"flagged: {gpu.error}"
    megabytes = gpu.bytes_moved / 1e6
    return (
        f"GPU time {gpu.milliseconds:.4g} ms (mean of {gpu.repeats} launches, CUDA events) on {gpu.device}; "
        f"{megabytes:.4g} MB of buffers: {gpu.gbps:.4g} GB/s"
    )


@dataclass(frozen=True)
class GpuStepRun:
    """What ``run_step_on_gpu`` found."""

    lines: list[str]
    """What ``passviz run --gpu`` prints."""
    same: bool
    """Whether the GPU's buffers match the CPU interpreter's (False when flagged or unchecked)."""
    gpu: GpuRun
    """The GPU's run: its buffers, time and bandwidth, or why it is flagged."""
    comparison: Comparison | None = None
    """The GPU's buffers against the CPU interpreter's (None when flagged or unchecked)."""


def run_step_on_gpu(
    trace: Trace,
    step: int,
    arguments: Sequence[Argument],
    grid: tuple[int, ...],
    num_warps: int = 4,
    timeout: float = 60.0,
    tolerance: tuple[float, float] | None = None,
) -> GpuStepRun:
    """Compile and run the step on the GPU and on the CPU, and compare."""
    if (missing := gpu_missing()) is not None:
        raise GpuError(missing)
    texts = StepTexts(trace)  # the CPU's run below reuses the replay to the step
    text = ttir_at(trace, step, texts)
    device = probe(timeout)
    kernel: GpuKernel = compile_ttir(text, device.capability, num_warps=num_warps)
    lines = [f"{step_name(step)} compiled: {kernel.describe(grid)}"]
    try:
        cpu: Outcome | None = run_step(trace, step, arguments, grid, texts)
    except RunError as exc:
        lines.append(f"the CPU interpreter cannot run it ({exc}): the GPU's buffers are not checked")
        cpu = None
    gpu = run_on_gpu(kernel, arguments, grid, timeout=timeout)
    lines.append(describe_gpu_run(gpu))
    if gpu.error is not None or cpu is None:
        return GpuStepRun(lines, False, gpu)
    comparison = compare_with_cpu(cpu, gpu, tolerance)
    if comparison.same:
        written = len(cpu.outputs)
        lines.append(f"the GPU matches the CPU interpreter on {written} buffer{'s' * (written != 1)}")
        return GpuStepRun(lines, True, gpu, comparison)
    how = comparison.reason or f"{comparison.count} elements, max error {comparison.max_error:.6g}"
    lines.append(f"the GPU differs from the CPU interpreter: {how}")
    lines.extend(f"  {d.buffer}[{d.index}]: CPU {d.expected}, GPU {d.got}" for d in comparison.differences)
    return GpuStepRun(lines, False, gpu, comparison)
