"""TTIR to a cubin with the installed Triton's own back end, and what a launch of it needs.

``compile_ttir(text, capability=90)`` writes the module as Triton reads it to a
``.ttir`` file and hands it to ``triton.compile``, which starts at the stage
after ``make_ttir`` for an IR file: ``make_ttgir``, ``make_llir``, ``make_ptx``
and ``make_cubin`` (``ptxas`` comes with the Triton wheel, so no GPU or driver
is needed). The result, a ``GpuKernel``, holds the cubin and the launch
parameters from Triton's compile metadata: warps (a block is 32 threads per
warp), dynamic shared memory, and the two scratch buffers that Triton 3.6's
launcher passes after the kernel's own arguments (``global_scratch`` and
``profile_scratch``, a null pointer when their size is 0).
"""

from __future__ import annotations

import importlib
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class GpuError(Exception):
    """The GPU path cannot go on (no Triton, no pycuda, no GPU, a compile that failed): one line."""


WARP_SIZE = 32
"""Threads per warp on NVIDIA GPUs."""

SCRATCH_PARAMETERS = ("global_scratch", "profile_scratch")
"""The pointers Triton's CUDA launcher passes after the kernel's arguments (Triton 3.6)."""


@dataclass(frozen=True)
class Scratch:
    """A scratch buffer Triton's launcher allocates per launch: ``size`` bytes per program."""

    size: int
    """Bytes per program (and per CTA); 0 passes a null pointer."""
    align: int
    """The allocation's alignment in bytes."""

    def nbytes(self, programs: int, ctas: int = 1) -> int:
        """The bytes to allocate for a grid of ``programs`` programs (0: none, a null pointer)."""
        return programs * ctas * self.size


@dataclass(frozen=True)
class GpuKernel:
    """A cubin and what launching it needs, from Triton's compile metadata."""

    name: str
    """The kernel's symbol in the cubin."""
    cubin: bytes
    """The CUDA binary."""
    ptx: str
    """The PTX it was assembled from (its ``.entry`` lists the parameters)."""
    signature: tuple[str, ...]
    """Triton's type of each kernel argument: ``*f32`` for a pointer, ``i32``, ``f32``..."""
    capability: int
    """The compute capability compiled for (90: sm_90)."""
    num_warps: int
    """Warps per program."""
    num_ctas: int
    """CTAs per program (a cluster when above 1)."""
    shared: int
    """Dynamic shared memory per program, in bytes."""
    global_scratch: Scratch
    """Triton's global scratch buffer."""
    profile_scratch: Scratch
    """Triton's profiler scratch buffer."""
    cooperative: bool
    """Whether the launch must be cooperative (``launch_cooperative_grid``)."""
    pdl: bool
    """Whether the launch uses programmatic dependent launch (``launch_pdl``)."""
    seconds: float
    """How long ``triton.compile`` took, TTIR to cubin."""
    triton_version: str
    """The Triton that compiled it."""

    @property
    def block(self) -> int:
        """Threads per program."""
        return WARP_SIZE * self.num_warps

    @property
    def parameters(self) -> list[str]:
        """The cubin's parameter list: the kernel's arguments, then Triton's scratch pointers."""
        return [*self.signature, *SCRATCH_PARAMETERS]

    def unsupported(self) -> str | None:
        """Why pycuda's launch (``cuLaunchKernel``, no launch attributes) cannot run this kernel, or None."""
        if self.num_ctas != 1:
            return f"the kernel needs clusters of {self.num_ctas} CTAs, which pycuda's launch does not make"
        if self.cooperative:
            return "the kernel needs a cooperative launch, which pycuda's launch does not make"
        if self.pdl:
            return "the kernel needs programmatic dependent launch, which pycuda's launch does not make"
        if any(kind.startswith(("tensordesc", "nvTmaDesc")) for kind in self.signature):
            return "the kernel takes tensor descriptors, which the GPU launch does not build yet"
        return None

    def describe(self, grid: tuple[int, ...]) -> str:
        """One line: the kernel, its target and its launch parameters."""
        programs = grid[0] * (grid[1] if len(grid) > 1 else 1) * (grid[2] if len(grid) > 2 else 1)
        scratch = self.global_scratch.nbytes(programs, self.num_ctas)
        return (
            f"{self.name} for sm_{self.capability} by Triton {self.triton_version} in {self.seconds:.2f} s: "
            f"grid {'x'.join(map(str, grid))}, block {self.block} ({self.num_warps} warps), "
            f"{self.shared} B shared memory, {scratch} B global scratch"
        )


def triton_missing() -> str | None:
    """Why Triton's back end cannot compile here, or None."""
    try:
        importlib.import_module("triton.compiler.compiler")
    except ImportError as exc:
        return f"compiling for the GPU needs Triton: pip install 'passviz[triton]' ({exc})"
    return None


def compile_ttir(
    text: str, capability: int, num_warps: int = 4, num_stages: int = 3, name: str = "kernel"
) -> GpuKernel:
    """Compile the TTIR ``text`` to a cubin for compute capability ``capability`` with Triton's back end
    (Triton's defaults: 4 warps, 3 stages), in a fresh cache directory so that nothing is read
    from or left in the user's Triton cache, and the time measured is a compile's."""
    if (missing := triton_missing()) is not None:
        raise GpuError(missing)
    triton: Any = importlib.import_module("triton")
    backends: Any = importlib.import_module("triton.backends.compiler")
    with tempfile.TemporaryDirectory(prefix="passviz-gpu-") as folder:
        path = Path(folder, f"{name}.ttir")
        path.write_text(text)
        previous = os.environ.get("TRITON_CACHE_DIR")
        os.environ["TRITON_CACHE_DIR"] = str(Path(folder, "cache"))
        start = time.perf_counter()
        try:
            compiled = triton.compile(
                str(path),
                target=backends.GPUTarget("cuda", capability, WARP_SIZE),
                options={"num_warps": num_warps, "num_stages": num_stages},
            )
        except Exception as exc:  # Triton raises bare RuntimeErrors and MLIR's diagnostics
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise GpuError(f"Triton could not compile the TTIR for sm_{capability}: {first}") from None
        finally:
            if previous is None:
                del os.environ["TRITON_CACHE_DIR"]
            else:
                os.environ["TRITON_CACHE_DIR"] = previous
        seconds = time.perf_counter() - start
    meta = compiled.metadata
    return GpuKernel(
        name=str(meta.name),
        cubin=bytes(compiled.asm["cubin"]),
        ptx=str(compiled.asm["ptx"]),
        signature=tuple(str(kind) for kind in compiled.src.signature.values()),
        capability=capability,
        num_warps=int(meta.num_warps),
        num_ctas=int(meta.num_ctas),
        shared=int(meta.shared),
        global_scratch=Scratch(int(meta.global_scratch_size), int(meta.global_scratch_align)),
        profile_scratch=Scratch(int(meta.profile_scratch_size), int(meta.profile_scratch_align)),
        cooperative=bool(meta.launch_cooperative_grid),
        pdl=bool(meta.launch_pdl),
        seconds=seconds,
        triton_version=str(triton.__version__),
    )
