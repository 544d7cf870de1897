"""Kernel arguments from the command line: ``name=shape:dtype[:random|zeros|arange]`` or ``name=number``.

``x=1024:f32`` is a buffer of 1024 random floats (standard normal, from a
seed fixed per run, drawn in argument order, so the same specs give the same
arrays); ``a=64x32:f16:zeros`` a 64x32 buffer of zeros; ``n=1024`` and
``eps=1e-5`` scalars, ``w=weights.npy`` a buffer read from a file.
Arguments are passed in the order given, which must be the kernel's.
Without any, ``derive_specs`` makes some from the kernel's signature;
``read_inputs_file`` reads them, with a grid and a seed, from a JSON file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, BlockArgument

from passviz.compilers.iree.dialects.hal import TensorImportOp
from passviz.interpret.values import Array, LaunchError, is_float, pointee_type, round_bf16
from passviz.ir.terminal import one_line
from passviz.pipelines import parse_ir
from passviz.run.launch import Argument, kernel_function
from passviz.trace.model import Trace

DTYPES: dict[str, np.dtype[np.generic]] = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(np.float32),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
}
"""The element types a buffer argument may have, by their MLIR names (bf16 is kept as float32
rounded to bf16, as the interpreter computes it)."""

FILLS = ("random", "zeros", "arange")
"""How a buffer's elements are made."""

_SPEC = re.compile(r"(?P<name>[A-Za-z_][\w.]*)=(?P<value>.*)")
_SHAPE = re.compile(r"\d+(x\d+)*")


class InputSpecError(ValueError):
    """An argument spec that cannot be read."""


@dataclass(frozen=True)
class ArgSpec:
    """One kernel argument as the command line describes it."""

    name: str
    """The argument's name (for output only: arguments are positional)."""
    shape: tuple[int, ...] | None = None
    """A buffer's shape; None for a scalar."""
    dtype: str = "f32"
    """A buffer's element type (a key of ``DTYPES``)."""
    fill: str = "random"
    """How a buffer is filled (one of ``FILLS``)."""
    scalar: int | float = 0
    """A scalar's value."""
    path: str | None = None
    """A ``.npy`` file holding the buffer (its shape and type are the file's)."""

    def __str__(self) -> str:
        if self.path is not None:
            return f"{self.name}={self.path}"
        if self.shape is None:
            return f"{self.name}={self.scalar}"
        return f"{self.name}={'x'.join(map(str, self.shape))}:{self.dtype}:{self.fill}"


def parse_arg(text: str) -> ArgSpec:
    """Read ``name=shape:dtype[:fill]`` or ``name=number``."""
    match = _SPEC.fullmatch(text.strip())
    if match is None:
        raise InputSpecError(f"--arg {text!r}: expected name=shape:dtype[:{'|'.join(FILLS)}] or name=number")
    name, value = match["name"], match["value"]
    if value.endswith(".npy"):
        return ArgSpec(name, path=value)
    if ":" not in value:
        try:
            number: int | float = int(value)
        except ValueError:
            try:
                number = float(value)
            except ValueError:
                raise InputSpecError(
                    f"--arg {text!r}: {value!r} is neither a number nor shape:dtype"
                ) from None
        return ArgSpec(name, scalar=number)
    parts = value.split(":")
    if len(parts) > 3 or not _SHAPE.fullmatch(parts[0]):
        raise InputSpecError(
            f"--arg {text!r}: expected shape:dtype[:fill] with a shape such as 1024 or 64x32"
        )
    if parts[1] not in DTYPES:
        raise InputSpecError(
            f"--arg {text!r}: unknown element type {parts[1]!r} (one of {', '.join(DTYPES)})"
        )
    fill = parts[2] if len(parts) == 3 else "random"
    if fill not in FILLS:
        raise InputSpecError(f"--arg {text!r}: unknown fill {fill!r} (one of {', '.join(FILLS)})")
    shape = tuple(int(size) for size in parts[0].split("x"))
    return ArgSpec(name, shape, parts[1], fill)


def trace_specs(trace: Trace, filename: str) -> list[ArgSpec]:
    """``derive_specs`` on the first IR of ``trace`` that holds a kernel: the initial IR, or, where a
    frontend builds the module inside the trace (Toy's MLIRGen), the IR after the first pass."""
    texts = [trace.ir_at(-1)] if not trace.steps else [trace.ir_before(0)]
    first_end = next((i for i, step in enumerate(trace.steps) if step.kind == "pass-end"), None)
    if first_end is not None:
        texts.append(trace.ir_at(first_end))
    missing: LaunchError | None = None
    for text in texts:
        try:
            with trace.syntax():
                return derive_specs(parse_ir(text, filename))
        except LaunchError as exc:
            missing = missing or exc
    assert missing is not None
    raise missing


def derive_specs(module: ModuleOp, size: int = 64) -> list[ArgSpec]:
    """Arguments for the kernel in ``module`` when none are given: every integer scalar is ``size``,
    every float scalar 0.5, every pointer a buffer of ``size * size`` random elements of its pointee
    type, enough for kernels whose sizes, strides and row counts all come from those scalars; every
    tensor (or buffer view a tensor is imported from) random elements of its static shape."""
    function = kernel_function(module)
    block = function.regions[0].blocks.first if function.regions else None
    specs: list[ArgSpec] = []
    for index, arg in enumerate(block.args if block is not None else ()):
        name = arg.name_hint or f"arg{index}"
        tensor = _tensor_type(arg)
        if tensor is not None:
            element, shape = str(tensor.get_element_type()), tuple(tensor.get_shape())
            if element not in DTYPES or any(size < 0 for size in shape):
                raise InputSpecError(f"argument {name!r} is a {tensor}; give its array with --arg")
            specs.append(ArgSpec(name, shape, element))
        elif (points_to := pointee_type(arg.type)) is not None:
            pointee = str(points_to)
            if pointee not in DTYPES:
                raise InputSpecError(f"argument {name!r} points to {pointee}; give its buffer with --arg")
            specs.append(ArgSpec(name, (size * size,), pointee))
        elif is_float(arg.type):
            specs.append(ArgSpec(name, scalar=0.5))
        else:
            specs.append(ArgSpec(name, scalar=size))
    return specs


def _tensor_type(arg: BlockArgument) -> TensorType[Attribute] | None:
    """The tensor an argument holds: its type, or for a ``!hal.buffer_view`` the tensor
    ``hal.tensor.import`` reads from it (None for pointers and scalars)."""
    type_: Attribute = arg.type
    if isinstance(type_, TensorType):
        return cast(TensorType[Attribute], type_)
    for use in arg.uses:
        if isinstance(use.operation, TensorImportOp):
            return use.operation.target.type
    return None


def make_array(spec: ArgSpec, rng: np.random.Generator) -> Array:
    """The buffer ``spec`` describes, drawn from ``rng`` when random."""
    assert spec.shape is not None
    dtype = DTYPES[spec.dtype]
    size = int(np.prod(spec.shape))
    if spec.fill == "zeros":
        return np.zeros(spec.shape, dtype=dtype)
    if spec.fill == "arange":
        return np.arange(size).astype(dtype).reshape(spec.shape)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=spec.shape).astype(bool)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 100, size=spec.shape).astype(dtype)
    values = rng.standard_normal(spec.shape).astype(dtype)
    return round_bf16(values) if spec.dtype == "bf16" else values


def make_arguments(specs: Sequence[ArgSpec], seed: int = 0) -> list[Argument]:
    """The kernel arguments ``specs`` describe, random buffers drawn from ``seed`` in order."""
    rng = np.random.default_rng(seed)
    arguments: list[Argument] = []
    for spec in specs:
        if spec.path is not None:
            arguments.append((spec.name, _load_npy(spec)))
        elif spec.shape is not None:
            arguments.append((spec.name, make_array(spec, rng)))
        else:
            arguments.append((spec.name, spec.scalar))
    return arguments


def _load_npy(spec: ArgSpec) -> Array:
    assert spec.path is not None
    try:
        data = np.load(spec.path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise InputSpecError(f"--arg {spec}: cannot read {spec.path}: {one_line(str(exc))}") from None
    if not isinstance(data, np.ndarray):
        raise InputSpecError(f"--arg {spec}: {spec.path} holds no single array")
    return cast(Array, data)


@dataclass(frozen=True)
class InputsFile:
    """A kernel's inputs saved for reuse: ``{"args": ["x=1024:f32", "n=1024"], "grid": [4], "seed": 0}``."""

    args: list[str]
    """The ``--arg`` specs, in the kernel's order (``.npy`` paths relative to the file)."""
    grid: str | None
    """The grid, as ``--grid`` spells it."""
    seed: int | None
    """The seed of the random buffers."""


def read_inputs_file(path: str) -> InputsFile:
    """Read an ``--inputs`` JSON file."""
    try:
        data: object = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputSpecError(f"--inputs {path}: {one_line(str(exc))}") from None
    if not isinstance(data, dict):
        raise InputSpecError(f'--inputs {path}: expected an object such as {{"args": [...], "grid": [4]}}')
    fields = cast("dict[str, object]", data)
    unknown = sorted(set(fields) - {"args", "grid", "seed"})
    if unknown:
        raise InputSpecError(f"--inputs {path}: unknown field {unknown[0]!r} (args, grid and seed are known)")
    args, grid, seed = fields.get("args", []), fields.get("grid"), fields.get("seed")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in cast("list[object]", args)):
        raise InputSpecError(f'--inputs {path}: args must be a list of strings such as "x=1024:f32"')
    if isinstance(grid, list):
        grid = ",".join(str(size) for size in cast("list[object]", grid))
    if grid is not None and not isinstance(grid, str | int):
        raise InputSpecError(f"--inputs {path}: grid must be a list of sizes such as [4, 2]")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise InputSpecError(f"--inputs {path}: seed must be an integer")
    folder = Path(path).parent
    specs = [_relative_npy(text, folder) for text in cast("list[str]", args)]
    return InputsFile(specs, None if grid is None else str(grid), seed)


def _relative_npy(text: str, folder: Path) -> str:
    """A spec naming a ``.npy`` file, with the file's path taken relative to ``folder``."""
    name, _, value = text.partition("=")
    if value.endswith(".npy") and not Path(value).is_absolute():
        return f"{name}={folder / value}"
    return text


def parse_grid(text: str) -> tuple[int, ...]:
    """``4`` or ``4,2`` or ``4x2``: programs along each axis."""
    try:
        grid = tuple(int(size) for size in re.split(r"[,x]", text.strip()))
    except ValueError:
        raise InputSpecError(f"--grid {text!r}: expected one to three sizes, such as 4 or 4,2") from None
    if not 1 <= len(grid) <= 3 or any(size < 1 for size in grid):
        raise InputSpecError(f"--grid {text!r}: expected one to three positive sizes")
    return grid
