"""Launching a kernel: every program of a grid, over buffers made from numpy arrays.

``launch(module, [("x", array), ("n", 1024), ...], grid=(4,))`` copies each
array into a buffer, passes pointer arguments as pointers to their buffer's
start and scalars as values of the argument's type, runs programs (0, 0, 0),
(1, 0, 0), ... one after another, and returns the buffers: the ones the kernel
stored into are its outputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Operation
from xdsl.traits import SymbolTable

from passviz.compilers.iree.dialects.hal import BufferViewType
from passviz.interpret.values import (
    Array,
    Buffer,
    DeclarationCallError,
    KernelAssertionError,
    LaunchError,
    Memory,
    NoKernelError,
    Pointer,
    RunError,
    RunLimits,
    UnsupportedOpError,
    as_type,
    function_attribute,
    integer_width,
    is_function,
    pointee_type,
)
from passviz.ir.traits import has_trait
from passviz.run.interpreters import new_interpreter

Argument = tuple[str, "Array | int | float"]
"""A kernel argument: its name, and an array (for a pointer) or a number (for a scalar)."""


@dataclass
class LaunchResult:
    """The buffers after a launch."""

    buffers: list[Buffer]
    """Every buffer argument, in argument order."""

    @property
    def outputs(self) -> dict[str, Array]:
        """The buffers the kernel stored into, by argument name."""
        return {buffer.name: buffer.data for buffer in self.buffers if buffer.written}

    @property
    def elements(self) -> dict[str, str]:
        """The element type the kernel stored into each output as (``bf16`` buffers hold float32)."""
        return {buffer.name: buffer.element or "" for buffer in self.buffers if buffer.written}


def kernel_function(module: ModuleOp, name: str | None = None) -> Operation:
    """The kernel to launch: the function named ``name``, else the module's first public function."""
    for op in module.walk():
        if not is_function(op) or _in_executable(op):
            continue
        sym = getattr(function_attribute(op, "sym_name"), "data", None)
        visibility = getattr(function_attribute(op, "sym_visibility"), "data", "public")
        if (name is None and visibility == "public") or sym == name:
            return op
    if any(op.name == "llvm.func" for op in module.walk()):
        raise NoKernelError(
            "the IR here is in the llvm dialect, which the CPU interpreter does not run: "
            "choose a step before the lowering to LLVM"
        )
    raise NoKernelError(
        f"the module has no function named @{name}" if name else "the module has no public function"
    )


def _in_executable(op: Operation) -> bool:
    """Whether ``op`` lies in a symbol table other than a module (IREE's ``flow.executable``):
    an outlined dispatch function, which only the op dispatching to it runs."""
    parent = op.parent_op()
    while parent is not None:
        if not isinstance(parent, ModuleOp) and has_trait(parent, SymbolTable, value_if_unregistered=False):
            return True
        parent = parent.parent_op()
    return False


def takes_array(type_: Attribute) -> bool:
    """Whether an argument of ``type_`` is given as an array passed by value: a tensor, or an
    IREE ``!hal.buffer_view`` (its function imports it as a tensor)."""
    return isinstance(type_, TensorType | BufferViewType)


def normalize_grid(grid: Sequence[int]) -> tuple[int, int, int]:
    """``grid`` as three axes; it must have one to three positive sizes."""
    if not 1 <= len(grid) <= 3 or any(size < 1 for size in grid):
        raise LaunchError(f"a grid is one to three positive sizes, not {tuple(grid)}")
    return (*grid, *(1,) * (3 - len(grid)))  # pyright: ignore[reportReturnType]


def launch(
    module: ModuleOp,
    arguments: Sequence[Argument],
    grid: Sequence[int],
    kernel: str | None = None,
    limits: RunLimits | None = None,
) -> LaunchResult:
    """Run every program of ``grid`` of the kernel in ``module`` on ``arguments``, all of them
    within ``limits`` (the default ``RunLimits``: a minute, 50 million ops)."""
    function = kernel_function(module, kernel)
    entry = function.regions[0].blocks.first if function.regions else None
    types = list(entry.arg_types) if entry is not None else []
    if len(types) != len(arguments):
        raise LaunchError(f"the kernel takes {len(types)} arguments, not {len(arguments)}", function)
    memory = Memory()
    values: list[object] = []
    for (name, value), type_ in zip(arguments, types, strict=True):
        if pointee_type(type_) is not None:
            if not isinstance(value, np.ndarray):
                raise LaunchError(f"argument {name!r} is a pointer ({type_}); give it an array", function)
            memory.buffers.append(Buffer(name, np.ascontiguousarray(value).reshape(-1).copy()))
            values.append(Pointer(len(memory.buffers) - 1, 0))
            continue
        if takes_array(type_):
            if not isinstance(value, np.ndarray):
                raise LaunchError(f"argument {name!r} is a {type_}; give it an array", function)
            values.append(value.copy())
            continue
        if isinstance(value, np.ndarray) and value.ndim > 0:
            raise LaunchError(f"argument {name!r} is a scalar ({type_}); give it a number", function)
        width = integer_width(type_)
        if width is not None and width > 1:
            if not float(value).is_integer() or not -(2 ** (width - 1)) <= int(value) < 2**width:
                raise LaunchError(
                    f"argument {name!r} is {type_}; {value} is no {width}-bit integer", function
                )
        values.append(as_type(value, type_, function))
    axes = normalize_grid(grid)
    interpreter = new_interpreter(module)
    interpreter.grid = axes
    interpreter.memory = memory
    interpreter.limits = limits or RunLimits()
    interpreter.start_clock()
    results: tuple[object, ...] = ()
    with np.errstate(all="ignore"):  # integers wrap and floats overflow as on the GPU
        for z in range(axes[2]):
            for y in range(axes[1]):
                for x in range(axes[0]):
                    interpreter.program_id = (x, y, z)
                    try:
                        results = interpreter.call(function, tuple(values))
                    except (UnsupportedOpError, KernelAssertionError, DeclarationCallError):
                        raise
                    except RunError as exc:
                        raise RunError(f"{exc.message} (in program {(x, y, z)})", exc.op) from None
    # A function that returns tensors (IREE's) has them as its outputs (the last program's).
    returned = [
        Buffer(f"result #{index}", np.array(cast(Array, value)).reshape(-1), written=True)
        for index, value in enumerate(results)
        if isinstance(value, np.ndarray)
    ]
    # A Toy program's output is what it prints: each print is an output, compared as a buffer is.
    printed = [
        Buffer(f"print #{index}", np.asarray(value, dtype=np.float64).reshape(-1).copy(), written=True)
        for index, value in enumerate(interpreter.printed, 1)
    ]
    return LaunchResult([*memory.buffers, *returned, *printed])
