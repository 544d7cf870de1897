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
from passviz.trace.store import write_trace

if TYPE_CHECKING:
    from passviz.cli.common import Subparsers


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


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"import": _cmd_import, "triton": _cmd_triton}
