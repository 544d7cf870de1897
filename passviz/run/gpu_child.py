"""The child process that loads a cubin with pycuda and launches it (``gpu_launch`` starts it).

Run as a script, not imported: it needs numpy and pycuda only, so it starts fast, and
whatever the kernel does to its CUDA context (an illegal address, a launch
failure, a hang the parent kills) ends here, not in the Python that asked.

``python gpu_child.py probe`` prints ``{"capability": 90, "device": "..."}``.
``python gpu_child.py run DIR`` reads ``DIR/launch.json``, ``DIR/kernel.cubin`` and
``DIR/inputs.npz``, launches the kernel once on fresh buffers, saves them to
``DIR/outputs.npz``, then times repeated launches with CUDA events; it writes
``DIR/result.json``: ``{"ok": true, "milliseconds": ..., "repeats": ...}`` or
``{"ok": false, "error": "..."}``.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

TIMED_MILLISECONDS = 200.0
"""About how long the timed launches run together, when no repeat count is given."""

MAX_REPEATS = 10_000
"""The most launches timed."""


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"


def _write(path: Path, result: dict[str, Any]) -> None:
    partial = path.with_suffix(".part")
    partial.write_text(json.dumps(result))
    partial.replace(path)


def probe() -> dict[str, Any]:
    """The first GPU's compute capability and name."""
    cuda: Any = importlib.import_module("pycuda.driver")

    cuda.init()
    if cuda.Device.count() == 0:
        return {"error": "CUDA sees no GPU"}
    device = cuda.Device(0)
    major, minor = device.compute_capability()
    return {"capability": major * 10 + minor, "device": device.name()}


def run(folder: Path) -> dict[str, Any]:
    """Launch the kernel that ``folder`` describes; its buffers go to ``outputs.npz``."""
    cuda: Any = importlib.import_module("pycuda.driver")

    spec = json.loads((folder / "launch.json").read_text())
    inputs = np.load(folder / "inputs.npz")
    cuda.init()
    device = cuda.Device(0)
    context = device.make_context()
    module = cuda.module_from_buffer((folder / "kernel.cubin").read_bytes())
    function = module.get_function(spec["name"])
    shared = int(spec["shared"])
    if shared > 49152:  # as Triton's load_binary: opt in to more than 48 KiB of dynamic shared memory
        optin = device.get_attribute(cuda.device_attribute.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        if optin > 49152:
            function.set_cache_config(cuda.func_cache.PREFER_SHARED)
            static = function.get_attribute(cuda.function_attribute.SHARED_SIZE_BYTES)
            function.set_attribute(cuda.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, optin - static)
    buffers: dict[str, Any] = {}
    values: list[Any] = []
    kinds: list[str] = []
    pointer = np.dtype(np.uintp).char
    for parameter in spec["parameters"]:
        if parameter["kind"] == "buffer":
            host = np.ascontiguousarray(inputs[parameter["key"]])
            memory = cuda.mem_alloc(max(host.nbytes, 1))
            cuda.memcpy_htod(memory, host)
            buffers[parameter["key"]] = (memory, host)
            values.append(int(memory))
            kinds.append(pointer)
        elif parameter["kind"] == "scratch":
            size = int(parameter["bytes"])
            scratch = cuda.mem_alloc(size) if size > 0 else None
            buffers[f"scratch{len(values)}"] = (scratch, None)  # kept alive while the kernel runs
            values.append(int(scratch) if scratch is not None else 0)
            kinds.append(pointer)
        else:
            scalar = inputs[parameter["key"]][()]
            values.append(scalar)
            kinds.append(scalar.dtype.char)
    function.prepare(kinds)
    grid, block = tuple(spec["grid"]), (int(spec["block"]), 1, 1)

    def launch() -> None:
        function.prepared_async_call(grid, block, None, *values, shared_size=shared)

    launch()
    context.synchronize()
    outputs: dict[str, Any] = {}
    for key, (memory, host) in buffers.items():
        if host is None:
            continue
        result = np.empty_like(host)
        cuda.memcpy_dtoh(result, memory)
        outputs[key] = result
    np.savez(folder / "outputs.npz", **outputs)
    for _ in range(2):  # warm up
        launch()
    start, end = cuda.Event(), cuda.Event()
    start.record()
    launch()
    end.record()
    end.synchronize()
    once = max(start.time_till(end), 1e-3)
    repeats = spec.get("repeats") or int(min(MAX_REPEATS, max(3, TIMED_MILLISECONDS / once)))
    start.record()
    for _ in range(repeats):
        launch()
    end.record()
    end.synchronize()
    return {
        "ok": True,
        "milliseconds": start.time_till(end) / repeats,
        "repeats": repeats,
        "device": device.name(),
    }


def main(argv: list[str]) -> int:
    """``probe`` or ``run DIR``; the result is JSON on stdout (probe) or in ``DIR/result.json`` (run)."""
    if argv[:1] == ["probe"]:
        try:
            result = probe()
        except Exception as exc:
            result = {"error": _one_line(exc)}
        print(json.dumps(result), flush=True)
        return 0
    folder = Path(argv[1])
    try:
        result = run(folder)
    except Exception as exc:  # pycuda's errors: an illegal address, a launch failure, out of memory
        result = {"ok": False, "error": _one_line(exc)}
    _write(folder / "result.json", result)
    sys.stdout.flush()
    # A faulted context cannot be torn down cleanly: pycuda's clean-up would abort with a
    # second error after the result is written, so leave without it.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
