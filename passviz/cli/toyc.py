"""``passviz toy``: the tutorial's ``toyc`` driver, recording a trace from MLIRGen on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from xdsl.dialects.builtin import ModuleOp

from passviz.compilers.toy.ast import dump
from passviz.compilers.toy.family import TOY_AFFINE, TOY_AFFINE_OPT, TOY_OPT, TOY_PIPELINES
from passviz.compilers.toy.mlirgen import ToyMLIRGen, mlirgen
from passviz.compilers.toy.parser import parse_toy
from passviz.ir.printer import print_module
from passviz.pipelines import (
    InputError,
    RecordOptions,
    TraceRun,
    decode_input,
    parse_pipeline,
    record,
)

Emit = Literal["ast", "mlir", "mlir-affine", "mlir-llvm", "llvm", "jit"]
"""What ``-emit=`` may ask for, as ``toyc-ch6`` offers it."""

EMITS: tuple[Emit, ...] = ("ast", "mlir", "mlir-affine", "mlir-llvm", "llvm", "jit")
CHAPTERS = (2, 3, 4, 5, 6)

FIRST_CHAPTER: dict[Emit, int] = {"ast": 2, "mlir": 2, "mlir-affine": 5, "mlir-llvm": 6, "llvm": 6, "jit": 6}
"""The first ``toyc-chN`` that offers each ``-emit`` level."""

_TO_AFFINE: tuple[Emit, ...] = ("mlir-affine", "mlir-llvm", "llvm", "jit")
"""The levels that lower to affine (``isLoweringToAffine``)."""

_TO_LLVM: tuple[Emit, ...] = ("mlir-llvm", "llvm", "jit")
"""The levels that lower to the ``llvm`` dialect (``isLoweringToLLVM``)."""


@dataclass
class ToyResult:
    """What ``passviz toy`` prints, and the trace it recorded."""

    text: str
    """The output, as ``toyc`` prints it (for ``-emit=jit``, what the program printed)."""
    run: TraceRun | None
    """The recorded run (none for ``-emit=ast``)."""


def toy_pipeline(chapter: int, emit: Emit, opt: bool) -> str:
    """``toyc-ch<chapter> -emit=<emit> [-opt]``'s passes after MLIRGen, as a pipeline spec ('' for none).

    Chapter 3's ``-opt`` canonicalizes; from chapter 4 ``-opt`` inlines, infers
    shapes, canonicalizes and runs CSE, and from chapter 5 any lowering runs
    these first, with or without ``-opt`` (``enableOpt || isLoweringToAffine``).
    ``-opt`` adds loop fusion and scalar replacement to the affine cleanups."""
    if FIRST_CHAPTER[emit] > chapter:
        raise InputError(
            f"-emit={emit} needs --chapter {FIRST_CHAPTER[emit]} or later (toyc-ch{chapter} lacks it)"
        )
    stages: list[str] = []
    if chapter == 3 and opt:
        stages.append(TOY_PIPELINES["toy-ch3"])
    if chapter >= 4 and (opt or emit in _TO_AFFINE):
        stages.append(TOY_OPT)
    if emit in _TO_AFFINE:
        stages.append(TOY_AFFINE)
        if opt:
            stages.append(TOY_AFFINE_OPT)
    if emit in _TO_LLVM:
        stages.append("toy-lower-to-llvm")
    return ",".join(stages)


def run_toy(
    path: str, emit: Emit, *, chapter: int = 6, opt: bool = False, output: str | Path | None = None
) -> ToyResult:
    """``toyc-ch<chapter> path -emit=<emit> [-opt]``; a ``.mlir`` input is read as toy IR, as toyc reads it.

    Every level past ``ast`` records MLIRGen (one step per function; none for a
    ``.mlir`` input) and then ``toy_pipeline``'s passes, rewrite by rewrite, to
    ``output`` if given.  ``llvm`` prints the LLVM IR of the lowered module
    (optimized as ``-O3`` with ``-opt``) and ``jit`` what its ``main`` prints."""
    toy_pipeline(chapter, emit, opt)  # a level the chapter lacks, before reading the file
    text = decode_input(Path(path).read_bytes(), path)
    return run_toy_text(text, emit, filename=path, chapter=chapter, opt=opt, output=output)


def run_toy_text(
    text: str,
    emit: Emit,
    *,
    filename: str = "input.toy",
    chapter: int = 6,
    opt: bool = False,
    output: str | Path | None = None,
) -> ToyResult:
    """``run_toy`` on Toy source (or toy IR, if ``filename`` ends in ``.mlir``) given as text."""
    spec = toy_pipeline(chapter, emit, opt)
    path = filename
    passes = parse_pipeline(spec) if spec else ()
    if path.endswith(".mlir"):
        if emit == "ast":
            raise InputError(f"{path}: -emit=ast needs a .toy file")
        # toyc reads toy IR as it is, then runs the pipeline on it
        run = record(text, list(passes), filename=path, output=output, options=RecordOptions())
    else:
        module_ast = parse_toy(text, path)
        if emit == "ast":
            return ToyResult(dump(module_ast), None)
        generated = mlirgen(module_ast, chapter=chapter)
        initial = ModuleOp([])
        run = record(
            initial, [ToyMLIRGen(generated), *passes], filename=path, output=output, options=RecordOptions()
        )
    failed = run.trace.failed_steps
    if failed:
        step = failed[0]
        assert step.flag is not None
        written = f" (trace written to {output})" if output is not None else ""
        message = " ".join(str(step.flag["message"]).split())
        raise InputError(f"{path}: step {step.index} ({step.pass_name or 'pipeline'}): {message}{written}")
    if emit in ("llvm", "jit"):
        return ToyResult(_run_llvm(path, run.module, emit, opt), run)
    return ToyResult(mlir_text(run.module), run)


def _run_llvm(path: str, module: ModuleOp, emit: Emit, opt: bool) -> str:
    """The LLVM IR of ``module``, or what it prints when JIT-run."""
    from passviz.compilers.toy.jit import LLVMError, llvm_ir, run_jit

    try:
        return llvm_ir(module, opt=opt) if emit == "llvm" else run_jit(module, opt=opt)
    except LLVMError as exc:
        raise InputError(f"{path}: {exc}") from None


def mlir_text(module: ModuleOp) -> str:
    """``module`` as MLIR prints it: the top module is ``module {``."""
    text = print_module(module)
    prefix = "builtin.module"
    return "module" + text[len(prefix) :] if text.startswith(prefix) else text
