"""``passviz toy``: the MLIR Toy tutorial's ``toyc`` (the driver is ``passviz.cli.toyc``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from passviz.cli.common import Subparsers


def add_parsers(sub: Subparsers) -> None:
    """``toy``: the MLIR Toy tutorial's ``toyc``, recording MLIRGen as a trace."""
    toy = sub.add_parser("toy", help="compile a Toy file as the MLIR tutorial's toyc does")
    toy.add_argument("input", help="a .toy file (or a .mlir file of toy IR)")
    # passviz.cli.toyc's EMITS and CHAPTERS, spelled out so that startup imports no Toy code
    toy.add_argument(
        "-emit",
        choices=("ast", "mlir", "mlir-affine", "mlir-llvm", "llvm", "jit"),
        default="mlir",
        help="what to print: the AST, MLIR (toy, affine, llvm dialect), LLVM IR, or the program's output when"
        " JIT-run (default mlir)",
    )
    toy.add_argument(
        "--chapter", type=int, choices=(2, 3, 4, 5, 6), default=6, help="behave as toyc-chN (default 6)"
    )
    toy.add_argument(
        "-opt",
        action="store_true",
        help="run toyc's optimizations (chapter 4 on: inliner, shape inference; 5 on: loop fusion;"
        " 6: LLVM's -O3)",
    )
    toy.add_argument("-o", "--output", help="also write the trace (MLIRGen onward) here")


def _cmd_toy(args: argparse.Namespace) -> int:
    from passviz.cli.toyc import run_toy

    result = run_toy(args.input, args.emit, chapter=args.chapter, opt=args.opt, output=args.output)
    sys.stdout.write(result.text)
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"toy": _cmd_toy}
