"""Launching a ``GpuKernel`` on the GPU in a child process (``gpu_child.py``), and comparing with the CPU.

``run_on_gpu(kernel, arguments, grid)`` takes the same arguments as the CPU
interpreter's ``launch``: each array is converted to its pointer's element type
(``bf16`` as its bits), the kernel's parameters are listed as Triton's launcher
passes them (its arguments, then the global and profile scratch pointers), and a
child Python loads the cubin with pycuda, launches it once on fresh buffers and
times repeated launches with CUDA events.  An illegal address, a launch failure
or a hang past ``timeout`` seconds comes back as a flagged ``GpuRun`` (its
``error``): the calling process never touches the GPU.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from passviz.interpret.values import Array, bf16_bits, bf16_from_bits, round_bf16
from passviz.run.bisect import Comparison, Outcome, compare
from passviz.run.gpu_compile import GpuError, GpuKernel
from passviz.run.launch import Argument, normalize_grid

CHILD = Path(__file__).with_name("gpu_child.py")
"""The script the child process runs."""

INSTALL = (
    "pip install 'passviz[cuda]' on a machine with an NVIDIA GPU, its driver and the CUDA toolkit "
    "(pycuda builds against them); the CPU interpreter works without it"
)

ELEMENTS: dict[str, np.dtype[Any]] = {
    "i1": np.dtype(np.int8),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "u1": np.dtype(np.uint8),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "f16": np.dtype(np.uint16),
    "fp16": np.dtype(np.uint16),
    "bf16": np.dtype(np.uint16),
    "f32": np.dtype(np.float32),
    "fp32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "fp64": np.dtype(np.float64),
}
"""How the GPU holds each Triton element type; 16-bit floats as their bits (as Triton's launcher
packs an ``fp16`` scalar into a ``uint16_t``)."""


def pycuda_missing() -> str | None:
    """Why the GPU launch cannot run here, or None."""
    if importlib.util.find_spec("pycuda") is None:
        return f"running on the GPU needs pycuda: {INSTALL}"
    return None


@dataclass(frozen=True)
class Device:
    """The GPU the child process sees."""

    capability: int
    """Its compute capability (90 for an H100)."""
    name: str
    """What CUDA calls it."""


def probe(timeout: float = 60.0) -> Device:
    """The first GPU, asked in a child process; ``GpuError`` when pycuda or a GPU is missing."""
    if (missing := pycuda_missing()) is not None:
        raise GpuError(missing)
    done = _child(["probe"], timeout)
    if done is None:
        raise GpuError(f"asking CUDA for the GPU took over {timeout:g} s")
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise GpuError(f"asking CUDA for the GPU failed: {_last_line(done.stderr, done.returncode)}")
    answer = json.loads(lines[-1])
    if "error" in answer:
        raise GpuError(f"no GPU: {answer['error']}")
    return Device(int(answer["capability"]), str(answer["device"]))


@dataclass
class GpuRun:
    """What a launch on the GPU gave."""

    buffers: dict[str, Array] = field(default_factory=lambda: dict[str, Array]())
    """Every buffer argument after the first launch, flat, in the type the CPU interpreter gives it."""
    changed: set[str] = field(default_factory=lambda: set[str]())
    """The buffers whose contents the launch changed."""
    milliseconds: float | None = None
    """The mean kernel time over ``repeats`` launches (CUDA events)."""
    repeats: int = 0
    """How many launches were timed."""
    bytes_moved: int = 0
    """The bytes of every buffer argument: what a kernel that reads or writes each once moves."""
    device: str = ""
    """The GPU it ran on."""
    error: str | None = None
    """Why the run is flagged (an illegal address, a launch failure, a hang), one line; None if it ran."""

    @property
    def gbps(self) -> float | None:
        """``bytes_moved`` per kernel time, in GB/s."""
        if self.milliseconds is None or self.milliseconds <= 0:
            return None
        return self.bytes_moved / (self.milliseconds * 1e-3) / 1e9


def element_of(kind: str) -> str:
    """The element type of a Triton pointer type (``*f32``: ``f32``; ``*kf32``, a constant pointer, too)."""
    element = kind[1:]
    return element[1:] if element.startswith("k") and element[1:] in ELEMENTS else element


def to_device(value: Array | int | float, kind: str, name: str) -> Array:
    """``value`` as the GPU holds an argument of Triton type ``kind``: a flat array for a pointer,
    a 0-d array for a scalar."""
    pointer = kind.startswith("*")
    element = element_of(kind) if pointer else kind
    dtype = ELEMENTS.get(element)
    if dtype is None:
        raise GpuError(f"argument {name!r}: the GPU launch does not pass {kind} yet")
    if pointer != isinstance(value, np.ndarray) or (not pointer and np.ndim(value) > 0):
        raise GpuError(f"argument {name!r} is {kind}; give it {'an array' if pointer else 'a number'}")
    data = np.asarray(value).reshape(-1) if pointer else np.asarray(value)
    if element == "bf16":
        return np.where(np.isnan(data), np.uint16(0x7FC0), bf16_bits(round_bf16(data)))
    if element in ("f16", "fp16"):
        return data.astype(np.float16).view(np.uint16)
    return data.astype(dtype)


def from_device(data: Array, kind: str, like: Array) -> Array:
    """A buffer back from the GPU in the type the CPU interpreter holds ``like`` in."""
    element = element_of(kind)
    if element == "bf16":
        return bf16_from_bits(data).astype(like.dtype)
    if element in ("f16", "fp16"):
        return data.view(np.float16).astype(like.dtype)
    return data.astype(like.dtype)


def launch_parameters(
    kernel: GpuKernel, arguments: Sequence[Argument], grid: Sequence[int]
) -> tuple[list[dict[str, Any]], dict[str, Array]]:
    """The cubin's parameters as Triton's launcher passes them, for ``gpu_child.py``, and the arrays
    they name: each kernel argument (a buffer or a scalar), then the global and profile scratch
    pointers (``grid`` programs times their per-program size, a null pointer when 0)."""
    if len(arguments) != len(kernel.signature):
        raise GpuError(f"the kernel takes {len(kernel.signature)} arguments, not {len(arguments)}")
    parameters: list[dict[str, Any]] = []
    arrays: dict[str, Array] = {}
    for index, ((name, value), kind) in enumerate(zip(arguments, kernel.signature, strict=True)):
        key = f"arg{index}"
        arrays[key] = to_device(value, kind, name)
        parameters.append({"kind": "buffer" if kind.startswith("*") else "scalar", "key": key, "name": name})
    x, y, z = normalize_grid(grid)
    for name, scratch in (
        ("global_scratch", kernel.global_scratch),
        ("profile_scratch", kernel.profile_scratch),
    ):
        size = scratch.nbytes(x * y * z, kernel.num_ctas)
        parameters.append({"kind": "scratch", "name": name, "bytes": size, "align": scratch.align})
    return parameters, arrays


def run_on_gpu(
    kernel: GpuKernel,
    arguments: Sequence[Argument],
    grid: Sequence[int],
    timeout: float = 60.0,
    repeats: int | None = None,
) -> GpuRun:
    """Launch ``kernel`` over ``grid`` on ``arguments`` in a child process (see the module's docstring)."""
    if (missing := pycuda_missing()) is not None:
        raise GpuError(missing)
    if (why := kernel.unsupported()) is not None:
        raise GpuError(why)
    parameters, arrays = launch_parameters(kernel, arguments, grid)
    spec = {
        "name": kernel.name,
        "grid": list(normalize_grid(grid)),
        "block": kernel.block,
        "shared": kernel.shared,
        "parameters": parameters,
        "repeats": repeats,
    }
    moved = sum(arrays[p["key"]].nbytes for p in parameters if p["kind"] == "buffer")
    with tempfile.TemporaryDirectory(prefix="passviz-gpu-run-") as name:
        folder = Path(name)
        (folder / "launch.json").write_text(json.dumps(spec))
        (folder / "kernel.cubin").write_bytes(kernel.cubin)
        np.savez(folder / "inputs.npz", **arrays)  # pyright: ignore[reportArgumentType]
        done = _child(["run", str(folder)], timeout)
        if done is None:
            return GpuRun(
                bytes_moved=moved, error=f"no result within {timeout:g} s (a hang?): the child was killed"
            )
        result_path = folder / "result.json"
        if not result_path.exists():
            return GpuRun(
                bytes_moved=moved, error=f"the child process died: {_last_line(done.stderr, done.returncode)}"
            )
        result = json.loads(result_path.read_text())
        if not result["ok"]:
            return GpuRun(bytes_moved=moved, error=str(result["error"]))
        saved = np.load(folder / "outputs.npz")
        buffers: dict[str, Array] = {}
        changed: set[str] = set()
        for parameter, (name, value) in zip(parameters, arguments, strict=False):
            if parameter["kind"] != "buffer":
                continue
            key = parameter["key"]
            kind = kernel.signature[int(key.removeprefix("arg"))]
            buffers[name] = from_device(saved[key], kind, np.asarray(value))
            if saved[key].tobytes() != arrays[key].tobytes():
                changed.add(name)
    return GpuRun(
        buffers,
        changed,
        float(result["milliseconds"]),
        int(result["repeats"]),
        moved,
        str(result["device"]),
    )


def compare_with_cpu(
    cpu: Outcome, gpu: GpuRun, tolerance: tuple[float, float] | None = None, limit: int = 10
) -> Comparison:
    """How the GPU's buffers differ from the CPU interpreter's outputs, with bisect's tolerances: the
    buffers the CPU wrote, and any other the GPU changed (a write the CPU did not make)."""
    names = [*cpu.outputs, *sorted(gpu.changed - set(cpu.outputs))]
    outcome = Outcome(cpu.step, {name: gpu.buffers[name] for name in names}, cpu.elements)
    return compare(cpu, outcome, limit=limit, tolerance=tolerance)


def _child(arguments: list[str], timeout: float) -> subprocess.CompletedProcess[str] | None:
    """Run ``gpu_child.py`` with ``arguments``; None when it ran past ``timeout`` seconds (killed)."""
    try:
        return subprocess.run(
            [sys.executable, str(CHILD), *arguments],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None


def _last_line(stderr: str, code: int) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    exit = f"signal {-code}" if code < 0 else f"exit status {code}"
    return f"{lines[-1].strip()} ({exit})" if lines else exit
