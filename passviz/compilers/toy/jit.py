"""LLVM IR of a Toy program lowered to the ``llvm`` dialect, optimized and JIT-run with llvmlite.

``toyc-ch6 -emit=llvm`` translates the module to LLVM IR and runs LLVM's
optimizer at ``-O3`` with ``-opt`` (``-O0`` otherwise); ``-emit=jit`` runs
``main`` in LLVM's JIT.  Here xDSL's llvm → llvmlite converter makes the LLVM
IR, llvmlite's new pass manager optimizes it, and its MCJIT runs it; what the
program's ``printf`` calls write is captured from the process's stdout.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib
import os
import sys
import tempfile
from collections.abc import Callable
from functools import cache
from typing import Any

from xdsl.dialects.builtin import ModuleOp

llvm: Any = importlib.import_module("llvmlite.binding")
"""llvmlite's LLVM bindings (untyped, so reached through ``Any``)."""


class LLVMError(ValueError):
    """The module cannot become LLVM IR, or LLVM rejects it."""


@cache
def _initialized() -> None:
    """LLVM's native target, initialized once."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


def _target_machine() -> Any:
    """A new target machine for the host (an MCJIT engine owns, and frees, the one it gets)."""
    _initialized()
    return llvm.Target.from_default_triple().create_target_machine(codemodel="jitdefault")


def llvm_module(module: ModuleOp, *, opt: bool) -> Any:
    """``module`` (of ``llvm.func`` and ``llvm.mlir.global`` only) as a parsed LLVM module,
    optimized as ``-O3`` when ``opt`` (``makeOptimizingTransformer(3, 0)``)."""
    from xdsl.backend.llvm.convert import convert_module

    machine = _target_machine()
    try:
        converted = convert_module(module, fallback_target_triple=llvm.get_default_triple())
    except (NotImplementedError, ValueError, KeyError) as exc:
        raise LLVMError(f"cannot translate to LLVM IR: {exc}") from None
    converted.data_layout = str(machine.target_data)
    try:
        parsed = llvm.parse_assembly(str(converted))
        parsed.verify()
    except RuntimeError as exc:
        raise LLVMError(f"LLVM rejects the translated module: {' '.join(str(exc).split())}") from None
    parsed.name = "LLVMDialectModule"
    _drop_value_names(parsed)
    if opt:
        tuning = llvm.create_pipeline_tuning_options(speed_level=3)
        builder = llvm.create_pass_builder(machine, tuning)
        builder.getModulePassManager().run(parsed, builder)
    return parsed


def _drop_value_names(module: Any) -> None:
    """Unname ``module``'s values and blocks (llvmlite names them ``.1``, ``.2``, ...), so
    that LLVM numbers them ``%0``, ``%1``, ... as in MLIR's translation."""
    for function in module.functions:
        for argument in function.arguments:
            argument.name = ""
        for block in function.blocks:
            block.name = ""
            for instruction in block.instructions:
                instruction.name = ""


def llvm_ir(module: ModuleOp, *, opt: bool) -> str:
    """``toyc -emit=llvm [-opt]``: the LLVM IR of ``module``, as LLVM prints it."""
    return str(llvm_module(module, opt=opt))


def run_jit(module: ModuleOp, *, opt: bool) -> str:
    """``toyc -emit=jit``: run ``main`` of ``module`` in LLVM's JIT; what it prints."""
    compiled = llvm_module(module, opt=opt)
    engine = llvm.create_mcjit_compiler(compiled, _target_machine())
    engine.finalize_object()
    address = engine.get_function_address("main")
    if not address:
        raise LLVMError("the module has no function 'main' to run")
    return _stdout_of(ctypes.CFUNCTYPE(None)(address))


def _stdout_of(run: Callable[[], None]) -> str:
    """What ``run`` writes to file descriptor 1 (C code's ``printf``)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 1)
        try:
            run()
        finally:
            libc.fflush(None)  # printf's buffer, before fd 1 changes back
            os.dup2(saved, 1)
            os.close(saved)
        sink.seek(0)
        return sink.read().decode("utf-8", errors="replace")
