"""The ``import`` and ``triton`` commands: a compiler's IR dump (any MLIR IR printing) as a trace,
and a real Triton compile of a user's kernel captured as one; and what ``passviz run`` does on such
a trace (``run_imported``): launch the cubin a capture kept, as Triton built it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from passviz.cli.common import CliError
from passviz.compilers.triton.capture import (
    DEFAULT_TARGET,
    capture_triton,
    load_kernel,
    parse_constexpr,
    parse_signature,
)
from passviz.importer import TextReplayer, import_path, import_text
from passviz.importer.reader import ReadError
from passviz.ir.terminal import one_line, printable
from passviz.trace.model import CompiledKernel, Trace
from passviz.trace.store import write_trace

if TYPE_CHECKING:
    from passviz.cli.common import Subparsers
    from passviz.run.gpu_compile import GpuKernel
    from passviz.run.launch import Argument


def add_parsers(sub: Subparsers) -> None:
    """The ``import`` command."""
    command = sub.add_parser(
        "import",
        help="make a trace of a compiler's IR dump (--mlir-print-ir-after-all, MLIR_ENABLE_DUMP, ...)",
    )
    command.add_argument(
        "dump",
        help="the dump: a file of MLIR IR printing (any dialect), an --mlir-print-ir-tree-dir "
        "folder, or - for standard input",
    )
    command.add_argument(
        "-o",
        "--output",
        help="the trace file to write (default: DUMP's name with .passviz.json.gz, in the current directory)",
    )
    command.add_argument(
        "--input",
        metavar="IN.mlir",
        help="the IR before the first pass, for a dump printed after each pass (which lacks it)",
    )

    triton = sub.add_parser(
        "triton",
        help="capture triton.compile of a @triton.jit kernel, pass by pass (ttir, ttgir, llir), "
        "then its LLVM IR, PTX and SASS; no GPU needed",
    )
    triton.add_argument("kernel", metavar="FILE.py:KERNEL", help="the file defining the kernel, and its name")
    triton.add_argument(
        "--signature",
        required=True,
        help="each argument's Triton type, as name=type pairs: 'x_ptr=*fp16,n=i32,BLOCK=constexpr'",
    )
    triton.add_argument(
        "--constexpr",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a tl.constexpr argument's value (repeat for each)",
    )
    triton.add_argument(
        "--target",
        default=DEFAULT_TARGET,
        help=f"the GPU, backend:arch (default {DEFAULT_TARGET}; cuda:100 ...)",
    )
    triton.add_argument("--num-warps", type=int, help="Triton's num_warps (default: Triton's)")
    triton.add_argument("--num-stages", type=int, help="Triton's num_stages (default: Triton's)")
    triton.add_argument(
        "--llvm-passes",
        action="store_true",
        help="also keep LLVM's IR after each of its own passes (Triton's LLVM_IR_ENABLE_DUMP: "
        "make_llir's optimizations, make_ptx's code generation), each one that changed it",
    )
    triton.add_argument(
        "--rewrites",
        metavar="PASS[,PASS]",
        default="",
        help="record these passes rewrite by rewrite from Triton's pattern log, each pattern application "
        "a step (e.g. tritongpu-remove-layout-conversions)",
    )
    triton.add_argument(
        "-o",
        "--output",
        help="the trace file to write (default: KERNEL.passviz.json.gz, in the current directory)",
    )


def _cmd_import(args: argparse.Namespace) -> int:
    input_ir = Path(args.input).read_text(encoding="utf-8") if args.input else None
    try:
        if args.dump == "-":
            report = import_text(sys.stdin.read(), name="<stdin>", input_ir=input_ir)
        else:
            report = import_path(args.dump, input_ir=input_ir)
    except ReadError as exc:
        raise CliError(f"{args.dump}: {exc}") from None
    trace = report.trace
    trace.replayer = TextReplayer
    stem = "stdin" if args.dump == "-" else Path(args.dump).name.split(".")[0] or "dump"
    output = Path(args.output) if args.output else Path(f"{stem}.passviz.json.gz")
    write_trace(trace, output)
    matched = sum(s.matched for s in report.stats)
    print(
        one_line(
            f"imported {len(trace.steps)} steps from {args.dump} to {printable(str(output))} "
            f"({matched} ops matched from snapshot to snapshot, "
            f"{sum(s.created for s in report.stats)} created, {sum(s.erased for s in report.stats)} erased)"
        )
    )
    for note in trace.meta.get("imported", {}).get("notes", []):
        print(one_line(f"note: {note}"))
    return 0


def _cmd_triton(args: argparse.Namespace) -> int:
    kernel = load_kernel(args.kernel)
    constexprs = dict(parse_constexpr(text) for text in args.constexpr)
    options = {
        name: value
        for name, value in (("num_warps", args.num_warps), ("num_stages", args.num_stages))
        if value is not None
    }
    trace = capture_triton(
        kernel,
        parse_signature(args.signature),
        constexprs,
        target=args.target,
        llvm_passes=args.llvm_passes,
        rewrites=[name.strip() for name in args.rewrites.split(",") if name.strip()],
        **options,
    )
    output = Path(args.output) if args.output else Path(f"{args.kernel.rpartition(':')[2]}.passviz.json.gz")
    write_trace(trace, output)
    passes = [step for step in trace.steps if step.kind != "rewrite"]
    stages = dict.fromkeys(step.pass_name for step in passes)
    counts = ", ".join(f"{stage} {sum(s.pass_name == stage for s in passes)}" for stage in stages)
    if len(passes) < len(trace.steps):
        counts += f"; {len(trace.steps) - len(passes)} pattern rewrites"
    imported = trace.meta.get("imported", {})
    stages = [o["stage"] for o in imported.get("outputs", [])]
    texts = ", ".join(stage for stage in stages if not stage.startswith("llvm"))
    llvm = sum(stage.startswith("llvm") for stage in stages)
    if llvm:
        texts += f", and LLVM's IR after {llvm} of its passes"
    if "kernel" in imported:
        texts += ", and the cubin"
    print(one_line(f"captured {len(passes)} passes ({counts}) and {texts} to {printable(str(output))}"))
    return 0


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
        arguments, grid = _kept_inputs(args, kept)
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


def _kept_inputs(args: argparse.Namespace, kept: CompiledKernel) -> tuple[list[Argument], tuple[int, ...]]:
    """The arguments and grid of ``run --gpu`` on a kept cubin: ``--arg``, ``--grid``, ``--seed`` and
    ``--inputs`` as for any trace, the arguments from the kept signature when none are given."""
    from passviz.interpret.values import RunError
    from passviz.run.inputs import (
        InputsFile,
        InputSpecError,
        make_arguments,
        parse_arg,
        parse_grid,
        read_inputs_file,
    )

    try:
        saved = read_inputs_file(args.inputs) if args.inputs else InputsFile([], None, None)
        texts = args.arg or saved.args
        if not texts:
            texts = kept_specs(kept)
            print(one_line(f"inputs from the kernel's signature: {' '.join(f'--arg {t}' for t in texts)}"))
        seed = args.seed if args.seed is not None else saved.seed or 0
        grid = parse_grid(args.grid or saved.grid or "1")
        return make_arguments([parse_arg(text) for text in texts], seed), grid
    except (InputSpecError, RunError) as exc:
        raise CliError(str(exc)) from None


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"import": _cmd_import, "triton": _cmd_triton}
