"""``passviz run --gpu`` on an imported trace: the cubin a ``passviz triton`` capture kept,
launched as Triton built it (the dump's IR, read without dialects, is not run)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from passviz.cli.common import CliError
from passviz.cli.run_inputs import run_inputs
from passviz.ir.terminal import one_line
from passviz.trace.model import CompiledKernel, Trace

if TYPE_CHECKING:
    from passviz.run.gpu_compile import GpuKernel


def run_imported(args: argparse.Namespace, trace: Trace) -> int:
    """``passviz run`` on an imported trace (``args`` as the ``run`` command reads them): its IR is
    the dump's text, read without dialects, so the CPU interpreter cannot run it; with ``--gpu``,
    the cubin a ``passviz triton`` capture kept is launched as Triton built it, no compile."""
    kept = trace.meta.get("imported", {}).get("kernel")
    if not args.gpu:
        offer = (
            "run --gpu launches the cubin the compile built"
            if kept is not None
            else "view it (passviz view), or capture a Triton kernel with passviz triton to run its cubin"
        )
        raise CliError(
            f"{args.trace}: an imported trace (a compiler's IR dump, read without dialects) has no IR "
            f"the CPU interpreter can run; {offer}"
        )
    if kept is None:
        raise CliError(f"--gpu: {args.trace} keeps no GPU binary (passviz triton captures keep one)")
    if args.step not in ("-1", str(len(trace.steps) - 1)):
        raise CliError(
            f"--step {args.step}: the cubin is what the whole compile built; run it without --step"
        )
    if args.record:
        raise CliError("--record: runs of a captured cubin are not recorded yet")
    from passviz.interpret.values import DEFAULT_TIMEOUT
    from passviz.run.gpu import describe_gpu_run
    from passviz.run.gpu_compile import GpuError
    from passviz.run.gpu_launch import probe, pycuda_missing, run_on_gpu
    from passviz.run.report import save_outputs

    kernel = gpu_kernel(kept)
    timeout = args.timeout or DEFAULT_TIMEOUT
    try:
        if (missing := pycuda_missing()) is not None:
            raise GpuError(missing)
        device = probe(timeout)
        if device.capability != kernel.capability:
            raise GpuError(
                f"the cubin is for sm_{kernel.capability} ({kept['target']}), this GPU ({device.name}) is "
                f"sm_{device.capability}: capture again with --target cuda:{device.capability}"
            )
        arguments, grid = run_inputs(args, lambda: kept_specs(kept))
        print(
            one_line(
                f"{kernel.name} as Triton {kernel.triton_version} built it for {kept['target']}: grid "
                f"{'x'.join(map(str, grid))}, block {kernel.block} ({kernel.num_warps} warps), "
                f"{kernel.shared} B shared memory"
            )
        )
        gpu = run_on_gpu(kernel, arguments, grid, timeout=timeout)
    except GpuError as exc:
        raise CliError(f"--gpu: {exc}") from None
    print(one_line(describe_gpu_run(gpu)))
    if gpu.error is not None:
        return 1
    for name in sorted(gpu.changed):
        print(one_line(f"{name}: written"))
    if args.save is not None:
        save_outputs(args.save, {name: gpu.buffers[name] for name in sorted(gpu.changed)})
        print(f"saved the buffers the GPU wrote to {args.save}")
    return 0


def gpu_kernel(kept: CompiledKernel) -> GpuKernel:
    """The kept cubin and launch metadata as the GPU launch takes them."""
    import base64

    from passviz.compilers.triton.capture import parse_target
    from passviz.run.gpu_compile import GpuKernel, Scratch

    _, arch, _ = parse_target(kept["target"])
    return GpuKernel(
        name=kept["name"],
        cubin=base64.b64decode(kept["binary"]),
        ptx="",
        signature=tuple(kept["signature"].values()),
        capability=int(arch),
        num_warps=kept["num_warps"],
        num_ctas=kept["num_ctas"],
        shared=kept["shared"],
        global_scratch=Scratch(kept["global_scratch_size"], kept["global_scratch_align"]),
        profile_scratch=Scratch(kept["profile_scratch_size"], kept["profile_scratch_align"]),
        cooperative=kept["cooperative"],
        pdl=kept["pdl"],
        seconds=0.0,
        triton_version=kept["triton_version"],
    )


def kept_specs(kept: CompiledKernel, size: int = 64) -> list[str]:
    """``--arg`` specs for the kept kernel's arguments when none are given, as ``run`` makes them
    for other traces: each pointer a buffer of ``size * size`` random elements, each integer
    ``size``, each float 0.5."""
    from passviz.run.gpu_launch import element_of

    specs: list[str] = []
    for name, kind in kept["signature"].items():
        if kind.startswith("*"):
            # Triton's element types as the --arg specs spell them: fp32 is f32 (bf16 stays).
            specs.append(f"{name}={size * size}:{element_of(kind).replace('fp', 'f')}")
        elif kind.startswith(("fp", "bf")):
            specs.append(f"{name}=0.5")
        else:
            specs.append(f"{name}={size}")
    return specs
