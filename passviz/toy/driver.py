"""``passviz toy``: the tutorial's ``toyc`` driver, recording a trace from MLIRGen on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from xdsl.dialects.builtin import ModuleOp

from passviz.pipelines import (
    InputError,
    RecordOptions,
    TraceRun,
    decode_input,
    parse_pipeline,
    record,
)
from passviz.toy.ast import dump
from passviz.toy.mlirgen import ToyMLIRGen, mlirgen
from passviz.toy.parser import parse_toy
from passviz.trace.irtext import print_module

Emit = Literal["ast", "mlir"]
"""What ``-emit=`` may ask for (so far)."""

EMITS: tuple[Emit, ...] = ("ast", "mlir")
CHAPTERS = (2, 3, 4, 5, 6)


@dataclass
class ToyResult:
    """What ``passviz toy`` prints, and the trace it recorded."""

    text: str
    """The output, as ``toyc`` prints it."""
    run: TraceRun | None
    """The recorded run (none for ``-emit=ast``)."""


CH4_OPT = "inline,toy-shape-inference,canonicalize,cse"
"""``toyc-ch4``'s ``-opt``: the inliner on the module, then shape inference,
canonicalize and CSE nested on each ``toy.func`` (chapters 5 and 6 run the
same for ``-emit=mlir``; their lowerings are not here)."""

OPT_PIPELINES = {2: "", 3: "canonicalize", 4: CH4_OPT, 5: CH4_OPT, 6: CH4_OPT}
"""What ``-opt`` runs after MLIRGen, by chapter (``toyc-chN``'s pass manager)."""


def run_toy(
    path: str, emit: Emit, *, chapter: int = 6, opt: bool = False, output: str | Path | None = None
) -> ToyResult:
    """``toyc-ch<chapter> path -emit=<emit> [-opt]``; a ``.mlir`` input is read as toy IR, as toyc reads it.

    ``-emit=mlir`` records MLIRGen (one step per function; none for a ``.mlir``
    input) and then ``-opt``'s passes, rewrite by rewrite, to ``output`` if given."""
    text = decode_input(Path(path).read_bytes(), path)
    passes = parse_pipeline(OPT_PIPELINES[chapter]) if opt and OPT_PIPELINES[chapter] else ()
    if path.endswith(".mlir"):
        if emit == "ast":
            raise InputError(f"{path}: -emit=ast needs a .toy file")
        # toyc reads toy IR as it is, then runs -opt's passes on it
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
    return ToyResult(mlir_text(run.module), run)


def mlir_text(module: ModuleOp) -> str:
    """``module`` as MLIR prints it: the top module is ``module {``."""
    text = print_module(module)
    prefix = "builtin.module"
    return "module" + text[len(prefix) :] if text.startswith(prefix) else text
