"""Random compositions of linalg ops, as users' models are made, for checking passviz's IREE
passes against ``iree-opt`` (issue 26): elementwise and reduction generics, the named
contractions (matmul, its transposed-operand form by ``indexing_maps``, batch_matmul,
batch_reduce_matmul, matvec, batch_matvec, vecmat, batch_vecmat, dot, mmt4d, batch_mmt4d,
quantized_matmul, quantized_batch_matmul, ``linalg.contract``), reduce, broadcast, map,
transpose, fill, copy, ``fill_rng_2d``, softmax, ``linalg.elementwise``, every convolution and
pooling (one kind per row of linalg_named's ``NAMED`` that no hand-written kind emits, built
from the row's dimensions), pads,
reshapes and slices, on static or dynamic shapes of f32, f16, i8 and i32 with the casts models
use (i8 into i32 and f16 into f32 accumulators, as the named ops cast their inputs).

A composition is made from a seed alone (``compose(seed)``), so a failure names the seed that
remakes it.  Each op kind is one entry of ``OP_KINDS``: when it applies to a value, and what it
emits.  Values keep dimension 0 as the batch: in a dynamic composition that dimension is ``?``
in every type, and no op changes it."""

from __future__ import annotations

import difflib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from passviz.compilers.iree.family import IREE_FLOW
from passviz.compilers.mlir.dialects.linalg import Linalg
from passviz.compilers.mlir.dialects.linalg_named import NAMED, NamedSpec
from passviz.ir.printer import print_module
from passviz.pipelines import record
from tests.iree_support import run_iree_opt_batch
from tests.test_iree_pipeline import FUNCTION_PASSES, nested_pipeline

FLOATS = ("f32", "f16")
INTS = ("i8", "i32")
ELEMENTS = (*FLOATS, *INTS)
SIZES = (2, 3, 4, 6, 8)
"""Dimension sizes a composition draws from (small: iree-opt and passviz run fast)."""


@dataclass(frozen=True)
class Value:
    """A tensor the composition made: its SSA name, static shape (dimension 0 stands for the
    batch when the composition is dynamic), element type and whether dimension 0 is ``?``."""

    name: str
    shape: tuple[int, ...]
    element: str
    dynamic: bool = False

    @property
    def type(self) -> str:
        return tensor_type(self.shape, self.element, self.dynamic)

    @property
    def is_float(self) -> bool:
        return self.element in FLOATS


def tensor_type(shape: Sequence[int], element: str, dynamic: bool) -> str:
    """``tensor<?x4xf32>``: ``shape`` with dimension 0 dynamic where ``dynamic``."""
    dims = ["?" if dynamic and index == 0 else str(size) for index, size in enumerate(shape)]
    return f"tensor<{'x'.join([*dims, element])}>"


@dataclass
class Builder:
    """A function being composed: its arguments, body lines and the values made so far."""

    rng: random.Random
    dynamic: bool
    batch: int
    arguments: list[Value] = field(default_factory=list[Value])
    lines: list[str] = field(default_factory=list[str])
    values: list[Value] = field(default_factory=list[Value])
    used: set[str] = field(default_factory=set[str])
    constants: dict[str, str] = field(default_factory=dict[str, str])
    count: int = 0

    def fresh(self) -> str:
        self.count += 1
        return f"%v{self.count}"

    def emit(self, line: str) -> None:
        self.lines.append(f"  {line}")

    def use(self, *values: Value) -> None:
        self.used.update(v.name for v in values)

    def argument(self, shape: Sequence[int], element: str, dynamic: bool | None = None) -> Value:
        """A new function argument (a weight, a second operand)."""
        value = Value(
            f"%arg{len(self.arguments)}", tuple(shape), element, self.dynamic if dynamic is None else dynamic
        )
        self.arguments.append(value)
        return value

    def constant(self, element: str, number: int = 0) -> str:
        """A scalar constant, made once at the function's top."""
        key = f"{element}:{number}"
        if key not in self.constants:
            literal = f"{number}.0" if element.startswith("f") else str(number)
            name = f"%c{element}_{number}".replace("-", "m")
            self.constants[key] = name
            self.lines.insert(0, f"  {name} = arith.constant {literal} : {element}")
        return self.constants[key]

    def batch_size(self) -> str:
        """The dynamic batch size (``tensor.dim`` of the first argument), made once."""
        if "batch" not in self.constants:
            self.constants["batch"] = "%batch"
            self.lines.insert(0, "  %batch = tensor.dim %arg0, %c0 : " + self.arguments[0].type)
            self.lines.insert(0, "  %c0 = arith.constant 0 : index")
        return self.constants["batch"]

    def empty(self, shape: Sequence[int], element: str, dynamic: bool) -> str:
        name = self.fresh()
        sizes = f"({self.batch_size()})" if dynamic else "()"
        self.emit(f"{name} = tensor.empty{sizes} : {tensor_type(shape, element, dynamic)}")
        return name

    def filled(self, shape: Sequence[int], element: str, dynamic: bool, number: int = 0) -> str:
        """A tensor filled with ``number`` (an accumulator's init)."""
        empty = self.empty(shape, element, dynamic)
        name = self.fresh()
        type_ = tensor_type(shape, element, dynamic)
        self.emit(
            f"{name} = linalg.fill ins({self.constant(element, number)} : {element}) outs({empty} : {type_}) -> {type_}"
        )
        return name

    def result(self, name: str, shape: Sequence[int], element: str, dynamic: bool) -> Value:
        value = Value(name, tuple(shape), element, dynamic)
        self.values.append(value)
        return value

    def size(self) -> int:
        return self.rng.choice(SIZES)


# ===----------------------------------------------------------------------=== #
# Op kinds: when each applies, and what it emits
# ===----------------------------------------------------------------------=== #


def _dims(rank: int) -> str:
    return ", ".join(f"d{i}" for i in range(rank))


def _map(rank: int, results: Sequence[int]) -> str:
    return f"affine_map<({_dims(rank)}) -> ({', '.join(f'd{i}' for i in results)})>"


def _parallel(rank: int) -> str:
    return ", ".join(['"parallel"'] * rank)


def _binary(element: str) -> list[str]:
    return (
        ["arith.addf", "arith.mulf", "arith.maximumf", "arith.subf"]
        if element in FLOATS
        else [
            "arith.addi",
            "arith.muli",
            "arith.maxsi",
        ]
    )


def _add(element: str) -> str:
    return "arith.addf" if element in FLOATS else "arith.addi"


def _same_typed(b: Builder, x: Value) -> Value:
    """A second operand of ``x``'s type: a value made before (``x`` itself maybe), or a new argument."""
    made = [v for v in b.values if v.type == x.type]
    if b.rng.random() < 0.5:
        return b.rng.choice(made)
    return b.argument(x.shape, x.element, x.dynamic)


def _elementwise(b: Builder, x: Value) -> Value:
    """A ``linalg.generic`` of one or two operands (the second maybe broadcast, as a bias)."""
    rank = len(x.shape)
    maps = [_map(rank, range(rank))]
    operands = [x]
    if b.rng.random() < 0.7:
        if rank > 1 and b.rng.random() < 0.4:
            kept = list(range(1, rank))  # a bias over all but the batch
            other = b.argument([x.shape[i] for i in kept], x.element, dynamic=False)
        else:
            kept = list(range(rank))
            other = _same_typed(b, x)
        operands.append(other)
        maps.append(_map(rank, kept))
    init = b.empty(x.shape, x.element, x.dynamic)
    maps.append(_map(rank, range(rank)))
    name = b.fresh()
    b.use(*operands)
    args = ", ".join(f"%in{i}: {x.element}" for i in range(len(operands)))
    op = b.rng.choice(_binary(x.element))
    second = "%in1" if len(operands) > 1 else "%in0"
    b.emit(
        f"{name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = "
        f"[{_parallel(rank)}]}} ins({', '.join(o.name for o in operands)} : "
        f"{', '.join(o.type for o in operands)}) outs({init} : {x.type}) {{"
    )
    b.emit(f"^bb0({args}, %out: {x.element}):")
    b.emit(f"  %r = {op} %in0, {second} : {x.element}")
    b.emit(f"  linalg.yield %r : {x.element}")
    b.emit(f"}} -> {x.type}")
    return b.result(name, x.shape, x.element, x.dynamic)


CASTS = {
    ("f32", "f16"): "arith.truncf",
    ("f16", "f32"): "arith.extf",
    ("i8", "i32"): "arith.extsi",
    ("i32", "i8"): "arith.trunci",
    ("i32", "f32"): "arith.sitofp",
    ("i8", "f32"): "arith.sitofp",
    ("f32", "i32"): "arith.fptosi",
}
"""The element casts models use (dequantizing, half precision and back), by (from, to)."""


def _cast(b: Builder, x: Value) -> Value:
    """An elementwise ``linalg.generic`` casting the element type (a bit extension where it widens)."""
    target = b.rng.choice([to for (from_, to) in CASTS if from_ == x.element])
    rank = len(x.shape)
    init = b.empty(x.shape, target, x.dynamic)
    name = b.fresh()
    b.use(x)
    out_type = tensor_type(x.shape, target, x.dynamic)
    b.emit(
        f"{name} = linalg.generic {{indexing_maps = [{_map(rank, range(rank))}, {_map(rank, range(rank))}], "
        f"iterator_types = [{_parallel(rank)}]}} ins({x.name} : {x.type}) "
        f"outs({init} : {out_type}) {{"
    )
    b.emit(f"^bb0(%in: {x.element}, %out: {target}):")
    b.emit(f"  %r = {CASTS[(x.element, target)]} %in : {x.element} to {target}")
    b.emit(f"  linalg.yield %r : {target}")
    b.emit(f"}} -> {out_type}")
    return b.result(name, x.shape, target, x.dynamic)


def _accumulator(b: Builder, element: str) -> str:
    """The element a contraction of ``element`` accumulates in: i8 x i8 -> i32, as int8 models
    do; f16 in f32 half the time, as mixed precision does (the named ops cast their inputs)."""
    if element == "i8":
        return "i32"
    if element == "f16" and b.rng.random() < 0.5:
        return "f32"
    return element


def _named(
    b: Builder,
    op: str,
    ins: Sequence[Value],
    shape: Sequence[int],
    element: str,
    attrs: str = "",
    *,
    dynamic: bool | None = None,
    scalars: Sequence[tuple[str, str]] = (),
    zeroed: bool = True,
) -> Value:
    """A named linalg op accumulating into a zero-filled init (an empty one unless ``zeroed``);
    its result's dimension 0 is dynamic as the first input's unless ``dynamic`` says (an op that
    reduces the batch away); ``scalars`` (name, type) follow the tensors among the inputs (a
    quantized op's zero points)."""
    dynamic = ins[0].dynamic if dynamic is None else dynamic
    init = b.filled(shape, element, dynamic) if zeroed else b.empty(shape, element, dynamic)
    out = tensor_type(shape, element, dynamic)
    name = b.fresh()
    b.use(*ins)
    names = [v.name for v in ins] + [n for n, _ in scalars]
    types = [v.type for v in ins] + [t for _, t in scalars]
    b.emit(f"{name} = {op}{attrs} ins({', '.join(names)} : {', '.join(types)}) outs({init} : {out}) -> {out}")
    return b.result(name, shape, element, dynamic)


def _matmul(b: Builder, x: Value) -> Value:
    n = b.size()
    weight = b.argument([x.shape[1], n], x.element, dynamic=False)
    return _named(b, "linalg.matmul", [x, weight], [x.shape[0], n], _accumulator(b, x.element))


def _batch_matmul(b: Builder, x: Value) -> Value:
    n = b.size()
    weight = b.argument([x.shape[0], x.shape[2], n], x.element, x.dynamic)
    return _named(
        b, "linalg.batch_matmul", [x, weight], [x.shape[0], x.shape[1], n], _accumulator(b, x.element)
    )


_WINDOW = "{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}"


def _conv(b: Builder, x: Value) -> Value:
    n, h, w, c = x.shape
    f = b.size()
    kernel = b.rng.choice([1, 2, 3])
    weight = b.argument([kernel, kernel, c, f], x.element, dynamic=False)
    shape = [n, h - kernel + 1, w - kernel + 1, f]
    return _named(
        b, "linalg.conv_2d_nhwc_hwcf", [x, weight], shape, _accumulator(b, x.element), " " + _WINDOW
    )


def _conv_nchw(b: Builder, x: Value) -> Value:
    n, c, h, w = x.shape
    f = b.size()
    kernel = b.rng.choice([1, 2, 3])
    weight = b.argument([f, c, kernel, kernel], x.element, dynamic=False)
    shape = [n, f, h - kernel + 1, w - kernel + 1]
    return _named(
        b, "linalg.conv_2d_nchw_fchw", [x, weight], shape, _accumulator(b, x.element), " " + _WINDOW
    )


def _conv_fhwc(b: Builder, x: Value) -> Value:
    n, h, w, c = x.shape
    f = b.size()
    kernel = b.rng.choice([1, 2, 3])
    weight = b.argument([f, kernel, kernel, c], x.element, dynamic=False)
    shape = [n, h - kernel + 1, w - kernel + 1, f]
    return _named(
        b, "linalg.conv_2d_nhwc_fhwc", [x, weight], shape, _accumulator(b, x.element), " " + _WINDOW
    )


def _matvec(b: Builder, x: Value) -> Value:
    vector = b.argument([x.shape[1]], x.element, dynamic=False)
    return _named(b, "linalg.matvec", [x, vector], [x.shape[0]], _accumulator(b, x.element))


def _depthwise(b: Builder, x: Value) -> Value:
    n, h, w, c = x.shape
    kernel = b.rng.choice([2, 3])
    weight = b.argument([kernel, kernel, c], x.element, dynamic=False)
    shape = [n, h - kernel + 1, w - kernel + 1, c]
    return _named(
        b, "linalg.depthwise_conv_2d_nhwc_hwc", [x, weight], shape, _accumulator(b, x.element), " " + _WINDOW
    )


def _pooling(op: str, channels_last: bool) -> Callable[[Builder, Value], Value]:
    """A pooling op over a 2x2 window (a window-shaped empty tensor, as MLIR takes it)."""

    def build(b: Builder, x: Value) -> Value:
        window = b.empty([2, 2], x.element, False)
        window_value = Value(window, (2, 2), x.element)
        if channels_last:
            n, h, w, c = x.shape
            shape = [n, h - 1, w - 1, c]
        else:
            n, c, h, w = x.shape
            shape = [n, c, h - 1, w - 1]
        return _named(b, op, [x, window_value], shape, x.element, " " + _WINDOW)

    return build


def _reduce(b: Builder, x: Value) -> Value:
    """``linalg.reduce`` over one dimension (not the batch) into a zero-filled init."""
    dim = b.rng.randrange(1, len(x.shape))
    shape = [s for i, s in enumerate(x.shape) if i != dim]
    init = b.filled(shape, x.element, x.dynamic)
    name = b.fresh()
    b.use(x)
    b.emit(
        f"{name} = linalg.reduce ins({x.name} : {x.type}) outs({init} : {tensor_type(shape, x.element, x.dynamic)}) "
        f"dimensions = [{dim}]"
    )
    b.emit(f"  (%in: {x.element}, %init: {x.element}) {{")
    b.emit(f"    %r = {_add(x.element)} %in, %init : {x.element}")
    b.emit(f"    linalg.yield %r : {x.element}")
    b.emit("  }")
    return b.result(name, shape, x.element, x.dynamic)


def _generic_reduce(b: Builder, x: Value) -> Value:
    """A ``linalg.generic`` reducing the innermost dimension (a row sum or max)."""
    rank = len(x.shape)
    shape = list(x.shape[:-1])
    init = b.filled(shape, x.element, x.dynamic)
    name = b.fresh()
    b.use(x)
    iterators = ", ".join(['"parallel"'] * (rank - 1) + ['"reduction"'])
    op = b.rng.choice([_add(x.element), "arith.maximumf" if x.is_float else "arith.maxsi"])
    out = tensor_type(shape, x.element, x.dynamic)
    b.emit(
        f"{name} = linalg.generic {{indexing_maps = [{_map(rank, range(rank))}, {_map(rank, range(rank - 1))}], "
        f"iterator_types = [{iterators}]}} ins({x.name} : {x.type}) outs({init} : {out}) {{"
    )
    b.emit(f"^bb0(%in: {x.element}, %out: {x.element}):")
    b.emit(f"  %r = {op} %in, %out : {x.element}")
    b.emit(f"  linalg.yield %r : {x.element}")
    b.emit(f"}} -> {out}")
    return b.result(name, shape, x.element, x.dynamic)


def _broadcast(b: Builder, x: Value) -> Value:
    """``linalg.broadcast`` adding one dimension (after the batch when that is dynamic)."""
    dim = b.rng.randrange(1 if x.dynamic else 0, len(x.shape) + 1)
    shape = list(x.shape)
    shape.insert(dim, b.size())
    init = b.empty(shape, x.element, x.dynamic)
    name = b.fresh()
    b.use(x)
    out = tensor_type(shape, x.element, x.dynamic)
    b.emit(f"{name} = linalg.broadcast ins({x.name} : {x.type}) outs({init} : {out}) dimensions = [{dim}]")
    return b.result(name, shape, x.element, x.dynamic)


def _map_op(b: Builder, x: Value) -> Value:
    """``linalg.map`` of two operands, in its short form."""
    other = _same_typed(b, x)
    init = b.empty(x.shape, x.element, x.dynamic)
    name = b.fresh()
    b.use(x, other)
    op = b.rng.choice(_binary(x.element))
    b.emit(
        f"{name} = linalg.map {{ {op} }} ins({x.name}, {other.name} : {x.type}, {other.type}) outs({init} : {x.type})"
    )
    return b.result(name, x.shape, x.element, x.dynamic)


def _transpose(b: Builder, x: Value) -> Value:
    """``linalg.transpose`` (the batch stays first when dynamic)."""
    start = 1 if x.dynamic else 0
    rest = list(range(start, len(x.shape)))
    while rest == sorted(rest):
        b.rng.shuffle(rest)
    permutation = list(range(start)) + rest
    shape = [x.shape[p] for p in permutation]
    init = b.empty(shape, x.element, x.dynamic)
    name = b.fresh()
    b.use(x)
    out = tensor_type(shape, x.element, x.dynamic)
    b.emit(
        f"{name} = linalg.transpose ins({x.name} : {x.type}) outs({init} : {out}) "
        f"permutation = [{', '.join(map(str, permutation))}]"
    )
    return b.result(name, shape, x.element, x.dynamic)


def _fill(b: Builder, x: Value) -> Value:
    """A ``linalg.fill`` of ``x``'s shape, summed with ``x`` (a constant operand made by a fill)."""
    filled = Value(b.filled(x.shape, x.element, x.dynamic, number=1), x.shape, x.element, x.dynamic)
    b.values.append(filled)
    init = b.empty(x.shape, x.element, x.dynamic)
    name = b.fresh()
    b.use(x, filled)
    b.emit(
        f"{name} = linalg.map {{ {_add(x.element)} }} ins({x.name}, {filled.name} : {x.type}, {x.type}) "
        f"outs({init} : {x.type})"
    )
    return b.result(name, x.shape, x.element, x.dynamic)


def _softmax(b: Builder, x: Value) -> Value:
    """``linalg.softmax`` over the innermost dimension, its init a fresh empty tensor."""
    init = b.empty(x.shape, x.element, x.dynamic)
    name = b.fresh()
    b.use(x)
    b.emit(
        f"{name} = linalg.softmax dimension({len(x.shape) - 1}) ins({x.name} : {x.type}) "
        f"outs({init} : {x.type}) -> {x.type}"
    )
    return b.result(name, x.shape, x.element, x.dynamic)


def _pad(b: Builder, x: Value) -> Value:
    """``tensor.pad`` of the inner dimensions with zeros."""
    low = [0 if i == 0 else b.rng.randrange(0, 2) for i in range(len(x.shape))]
    high = [0 if i == 0 else b.rng.randrange(0, 2) for i in range(len(x.shape))]
    if not any(low + high):
        high[-1] = 1
    shape = [s + lo + hi for s, lo, hi in zip(x.shape, low, high, strict=True)]
    name = b.fresh()
    b.use(x)
    out = tensor_type(shape, x.element, x.dynamic)
    zero = b.constant(x.element)
    b.emit(
        f"{name} = tensor.pad {x.name} low[{', '.join(map(str, low))}] high[{', '.join(map(str, high))}] {{"
    )
    b.emit(f"^bb0({', '.join(f'%i{i}: index' for i in range(len(x.shape)))}):")
    b.emit(f"  tensor.yield {zero} : {x.element}")
    b.emit(f"}} : {x.type} to {out}")
    return b.result(name, shape, x.element, x.dynamic)


def _expand(b: Builder, x: Value) -> Value:
    """``tensor.expand_shape`` splitting an even inner dimension in two."""
    dim = b.rng.choice([i for i, s in enumerate(x.shape) if i > 0 and s % 2 == 0])
    shape = list(x.shape[:dim]) + [2, x.shape[dim] // 2] + list(x.shape[dim + 1 :])
    groups: list[list[int]] = []
    position = 0
    for i in range(len(x.shape)):
        width = 2 if i == dim else 1
        groups.append(list(range(position, position + width)))
        position += width
    sizes = [b.batch_size() if x.dynamic and i == 0 else str(s) for i, s in enumerate(shape)]
    name = b.fresh()
    b.use(x)
    b.emit(
        f"{name} = tensor.expand_shape {x.name} {groups} output_shape [{', '.join(sizes)}] : "
        f"{x.type} into {tensor_type(shape, x.element, x.dynamic)}"
    )
    return b.result(name, shape, x.element, x.dynamic)


def _collapse(b: Builder, x: Value) -> Value:
    """``tensor.collapse_shape`` merging two adjacent inner dimensions."""
    dim = b.rng.randrange(1, len(x.shape) - 1)
    shape = list(x.shape[:dim]) + [x.shape[dim] * x.shape[dim + 1]] + list(x.shape[dim + 2 :])
    groups = [[i] for i in range(dim)] + [[dim, dim + 1]] + [[i] for i in range(dim + 2, len(x.shape))]
    name = b.fresh()
    b.use(x)
    b.emit(
        f"{name} = tensor.collapse_shape {x.name} {groups} : {x.type} into {tensor_type(shape, x.element, x.dynamic)}"
    )
    return b.result(name, shape, x.element, x.dynamic)


def _slice(b: Builder, x: Value) -> Value:
    """``tensor.extract_slice`` of an inner dimension's tail."""
    dim = b.rng.choice([i for i, s in enumerate(x.shape) if i > 0 and s > 2])
    offsets = [1 if i == dim else 0 for i in range(len(x.shape))]
    shape = [s - 1 if i == dim else s for i, s in enumerate(x.shape)]
    sizes = [b.batch_size() if x.dynamic and i == 0 else str(s) for i, s in enumerate(shape)]
    name = b.fresh()
    b.use(x)
    b.emit(
        f"{name} = tensor.extract_slice {x.name}[{', '.join(map(str, offsets))}] [{', '.join(sizes)}] "
        f"[{', '.join(['1'] * len(x.shape))}] : {x.type} to {tensor_type(shape, x.element, x.dynamic)}"
    )
    return b.result(name, shape, x.element, x.dynamic)


# -- the rest of the named ops: 1-D, 3-D and grouped convolutions, quantized ones, the
# matmul relatives, the contraction with maps, ``linalg.elementwise`` -----------------


def _window(rank: int, stride: int = 1) -> str:
    """A convolution's ``dilations`` and ``strides`` over ``rank`` windowed dimensions."""
    return f" {{dilations = dense<1> : tensor<{rank}xi64>, strides = dense<{stride}> : tensor<{rank}xi64>}}"


def _kernel(b: Builder, *extents: int) -> int:
    """A window size that fits every windowed extent (1 to 3)."""
    return b.rng.choice([k for k in (1, 2, 3) if k <= min(extents)])


def _zero_points(b: Builder) -> list[tuple[str, str]]:
    """A quantized op's input and filter zero points: i32 scalars, as MLIR's ``_q`` ops take."""
    return [
        (b.constant("i32", b.rng.choice([0, 3])), "i32"),
        (b.constant("i32", b.rng.choice([0, -2])), "i32"),
    ]


def _conv_1d(b: Builder, x: Value) -> Value:
    n, w, c = x.shape
    f, kernel = b.size(), _kernel(b, w)
    weight = b.argument([kernel, c, f], x.element, dynamic=False)
    shape = [n, w - kernel + 1, f]
    return _named(b, "linalg.conv_1d_nwc_wcf", [x, weight], shape, _accumulator(b, x.element), _window(1))


def _conv_3d(b: Builder, x: Value) -> Value:
    n, d, h, w, c = x.shape
    f, kernel = b.size(), _kernel(b, d, h, w)
    weight = b.argument([kernel, kernel, kernel, c, f], x.element, dynamic=False)
    shape = [n, d - kernel + 1, h - kernel + 1, w - kernel + 1, f]
    return _named(b, "linalg.conv_3d_ndhwc_dhwcf", [x, weight], shape, _accumulator(b, x.element), _window(3))


def _conv_grouped_nhwgc(b: Builder, x: Value) -> Value:
    n, h, w, g, c = x.shape
    fg, kernel = b.size(), _kernel(b, h, w)
    weight = b.argument([g, fg, kernel, kernel, c], x.element, dynamic=False)
    shape = [n, h - kernel + 1, w - kernel + 1, g, fg]
    return _named(b, "linalg.conv_2d_nhwgc_gfhwc", [x, weight], shape, _accumulator(b, x.element), _window(2))


def _conv_grouped_ngchw(b: Builder, x: Value) -> Value:
    n, g, c, h, w = x.shape
    fg, kernel = b.size(), _kernel(b, h, w)
    weight = b.argument([fg, g, c, kernel, kernel], x.element, dynamic=False)
    shape = [n, g, fg, h - kernel + 1, w - kernel + 1]
    return _named(b, "linalg.conv_2d_ngchw_fgchw", [x, weight], shape, _accumulator(b, x.element), _window(2))


def _conv_q(b: Builder, x: Value) -> Value:
    """``conv_2d_nhwc_hwcf_q``: i8 image and filter, i32 zero points and accumulator."""
    n, h, w, c = x.shape
    f, kernel = b.size(), _kernel(b, h, w)
    weight = b.argument([kernel, kernel, c, f], x.element, dynamic=False)
    shape = [n, h - kernel + 1, w - kernel + 1, f]
    zps = _zero_points(b)
    return _named(b, "linalg.conv_2d_nhwc_hwcf_q", [x, weight], shape, "i32", _window(2), scalars=zps)


def _depthwise_multiplier(b: Builder, x: Value) -> Value:
    """``depthwise_conv_2d_nhwc_hwcm``: each channel times a multiplier (a rank-5 result)."""
    n, h, w, c = x.shape
    m, kernel = b.rng.choice([1, 2, 3]), _kernel(b, h, w)
    weight = b.argument([kernel, kernel, c, m], x.element, dynamic=False)
    shape = [n, h - kernel + 1, w - kernel + 1, c, m]
    return _named(
        b, "linalg.depthwise_conv_2d_nhwc_hwcm", [x, weight], shape, _accumulator(b, x.element), _window(2)
    )


def _batch_matvec(b: Builder, x: Value) -> Value:
    vector = b.argument([x.shape[0], x.shape[2]], x.element, x.dynamic)
    return _named(b, "linalg.batch_matvec", [x, vector], [x.shape[0], x.shape[1]], _accumulator(b, x.element))


def _vecmat(b: Builder, x: Value) -> Value:
    """``vecmat`` of a vector (its length the batch when dynamic): the result is static."""
    n = b.size()
    matrix = b.argument([x.shape[0], n], x.element, x.dynamic)
    return _named(b, "linalg.vecmat", [x, matrix], [n], _accumulator(b, x.element), dynamic=False)


def _dot(b: Builder, x: Value) -> Value:
    """``dot`` of two vectors: a rank-0 result."""
    other = b.argument(x.shape, x.element, x.dynamic)
    return _named(b, "linalg.dot", [x, other], [], _accumulator(b, x.element), dynamic=False)


def _mmt4d(b: Builder, x: Value) -> Value:
    """``mmt4d`` of a packed ``M x K x M0 x K0`` operand and a packed transposed weight."""
    m, k, m0, k0 = x.shape
    n, n0 = b.size(), b.rng.choice([1, 2, 4])
    weight = b.argument([n, k, n0, k0], x.element, dynamic=False)
    return _named(b, "linalg.mmt4d", [x, weight], [m, n, m0, n0], _accumulator(b, x.element))


def _quantized_matmul(b: Builder, x: Value) -> Value:
    n = b.size()
    weight = b.argument([x.shape[1], n], x.element, dynamic=False)
    zps = _zero_points(b)
    return _named(b, "linalg.quantized_matmul", [x, weight], [x.shape[0], n], "i32", scalars=zps)


def _batch_reduce_matmul(b: Builder, x: Value) -> Value:
    """``batch_reduce_matmul``: the batch summed away, so the result is static."""
    n = b.size()
    weight = b.argument([x.shape[0], x.shape[2], n], x.element, x.dynamic)
    shape = [x.shape[1], n]
    return _named(
        b, "linalg.batch_reduce_matmul", [x, weight], shape, _accumulator(b, x.element), dynamic=False
    )


_MATMUL_TRANSPOSED_B = (
    " indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, "
    "affine_map<(d0, d1, d2) -> (d0, d1)>]"
)


def _matmul_transposed(b: Builder, x: Value) -> Value:
    """``linalg.matmul`` whose weight is given transposed (``N x K``), by its maps."""
    n = b.size()
    weight = b.argument([n, x.shape[1]], x.element, dynamic=False)
    return _named(
        b, "linalg.matmul", [x, weight], [x.shape[0], n], _accumulator(b, x.element), _MATMUL_TRANSPOSED_B
    )


_CONTRACT_MAPS = (
    " indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, "
    "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]"
)


def _contract(b: Builder, x: Value) -> Value:
    """``linalg.contract`` of a batch of matrices with one weight (a linear layer on a sequence)."""
    n = b.size()
    weight = b.argument([x.shape[2], n], x.element, dynamic=False)
    shape = [x.shape[0], x.shape[1], n]
    return _named(b, "linalg.contract", [x, weight], shape, _accumulator(b, x.element), _CONTRACT_MAPS)


_ELEMENTWISE_KINDS = {
    "float": ("add", "sub", "mul", "max_signed", "exp", "negf", "abs", "tanh"),
    "int": ("add", "sub", "mul", "max_signed", "min_signed"),
}
"""``linalg.elementwise``'s kinds a model's layers use, by element (MLIR's names)."""


def _elementwise_named(b: Builder, x: Value) -> Value:
    """``linalg.elementwise <kind>`` of one or two operands of ``x``'s type."""
    kind = b.rng.choice(_ELEMENTWISE_KINDS["float" if x.is_float else "int"])
    unary = kind in ("exp", "negf", "abs", "tanh")
    operands = [x] if unary else [x, _same_typed(b, x)]
    init = b.empty(x.shape, x.element, x.dynamic)
    name = b.fresh()
    b.use(*operands)
    b.emit(
        f"{name} = linalg.elementwise <{kind}> ins({', '.join(o.name for o in operands)} : "
        f"{', '.join(o.type for o in operands)}) outs({init} : {x.type}) -> {x.type}"
    )
    return b.result(name, x.shape, x.element, x.dynamic)


def _pooling_3d(op: str) -> Callable[[Builder, Value], Value]:
    """A 3-D pooling op over a 2x2x2 window."""

    def build(b: Builder, x: Value) -> Value:
        window = b.empty([2, 2, 2], x.element, False)
        n, d, h, w, c = x.shape
        shape = [n, d - 1, h - 1, w - 1, c]
        return _named(b, op, [x, Value(window, (2, 2, 2), x.element)], shape, x.element, _window(3))

    return build


def _batch_vecmat(b: Builder, x: Value) -> Value:
    n = b.size()
    matrix = b.argument([x.shape[0], x.shape[1], n], x.element, x.dynamic)
    return _named(b, "linalg.batch_vecmat", [x, matrix], [x.shape[0], n], _accumulator(b, x.element))


def _batch_mmt4d(b: Builder, x: Value) -> Value:
    """``batch_mmt4d`` of a batch of packed operands with a batch of packed transposed weights."""
    batch, m, k, m0, k0 = x.shape
    n, n0 = b.size(), b.rng.choice([1, 2, 4])
    weight = b.argument([batch, n, k, n0, k0], x.element, x.dynamic)
    return _named(b, "linalg.batch_mmt4d", [x, weight], [batch, m, n, m0, n0], _accumulator(b, x.element))


def _quantized_batch_matmul(b: Builder, x: Value) -> Value:
    n = b.size()
    weight = b.argument([x.shape[0], x.shape[2], n], x.element, x.dynamic)
    shape = [x.shape[0], x.shape[1], n]
    return _named(b, "linalg.quantized_batch_matmul", [x, weight], shape, "i32", scalars=_zero_points(b))


def _conv_nchw_q(b: Builder, x: Value) -> Value:
    n, c, h, w = x.shape
    f, kernel = b.size(), _kernel(b, h, w)
    weight = b.argument([f, c, kernel, kernel], x.element, dynamic=False)
    shape = [n, f, h - kernel + 1, w - kernel + 1]
    zps = _zero_points(b)
    return _named(b, "linalg.conv_2d_nchw_fchw_q", [x, weight], shape, "i32", _window(2), scalars=zps)


def _conv_1d_ncw(b: Builder, x: Value) -> Value:
    n, c, w = x.shape
    f, kernel = b.size(), _kernel(b, w)
    weight = b.argument([f, c, kernel], x.element, dynamic=False)
    shape = [n, f, w - kernel + 1]
    return _named(b, "linalg.conv_1d_ncw_fcw", [x, weight], shape, _accumulator(b, x.element), _window(1))


def _depthwise_1d(b: Builder, x: Value) -> Value:
    n, w, c = x.shape
    kernel = _kernel(b, w)
    weight = b.argument([kernel, c], x.element, dynamic=False)
    shape = [n, w - kernel + 1, c]
    return _named(
        b, "linalg.depthwise_conv_1d_nwc_wc", [x, weight], shape, _accumulator(b, x.element), _window(1)
    )


def _depthwise_3d(b: Builder, x: Value) -> Value:
    n, d, h, w, c = x.shape
    kernel = _kernel(b, d, h, w)
    weight = b.argument([kernel, kernel, kernel, c], x.element, dynamic=False)
    shape = [n, d - kernel + 1, h - kernel + 1, w - kernel + 1, c]
    return _named(
        b, "linalg.depthwise_conv_3d_ndhwc_dhwc", [x, weight], shape, _accumulator(b, x.element), _window(3)
    )


def _conv_grouped_gfchw(b: Builder, x: Value) -> Value:
    n, g, c, h, w = x.shape
    fg, kernel = b.size(), _kernel(b, h, w)
    weight = b.argument([g, fg, c, kernel, kernel], x.element, dynamic=False)
    shape = [n, g, fg, h - kernel + 1, w - kernel + 1]
    return _named(b, "linalg.conv_2d_ngchw_gfchw", [x, weight], shape, _accumulator(b, x.element), _window(2))


def _pooling_1d(op: str) -> Callable[[Builder, Value], Value]:
    """A 1-D pooling op over a window of 2 (channels last)."""

    def build(b: Builder, x: Value) -> Value:
        window = b.empty([2], x.element, False)
        n, w, c = x.shape
        return _named(b, op, [x, Value(window, (2,), x.element)], [n, w - 1, c], x.element, _window(1))

    return build


@dataclass(frozen=True)
class OpKind:
    """One kind of op a composition may use: when it applies to a value, and how it is emitted."""

    applies: Callable[[Value], bool]
    build: Callable[[Builder, Value], Value]
    op: str = ""
    """The op it needs passviz to have (the kind is left out until it does)."""


def _rank(*ranks: int) -> Callable[[Value], bool]:
    return lambda v: len(v.shape) in ranks


_WINDOWED = ("D", "H", "W")
"""A named op's windowed input dimensions (``NamedSpec.operands``)."""

_DEPTHWISE_HWC_Q = NamedSpec(
    "depthwise_conv_2d_nhwc_hwc_q", "n oh ow c kh kw", ("n H W c", "kh kw c", "", "", "n oh ow c"), "mac_q"
)
"""linalg.py's quantized depthwise convolution, in ``NAMED``'s terms."""


def _windowed_applies(spec: NamedSpec) -> Callable[[Value], bool]:
    """Whether ``spec`` takes a value as its input: its rank, every window at least 2 wide, an
        unbatched op's first dimension static, integers for a quantized op (i8, or i32 as a requantized
    value is) and for an unsigned pooling."""
    dims = spec.operands[0].split()
    windowed = [i for i, d in enumerate(dims) if d in _WINDOWED]

    def applies(v: Value) -> bool:
        if len(v.shape) != len(dims) or (v.dynamic and 0 in windowed):
            return False
        if (spec.payload == "mac_q" and v.element not in INTS) or (
            spec.payload.endswith("_unsigned") and v.is_float
        ):
            return False
        return all(v.shape[i] >= 2 for i in windowed)

    return applies


def _windowed_build(spec: NamedSpec) -> Callable[[Builder, Value], Value]:
    """A convolution or pooling of ``spec``'s row, stride 1: its sizes from the input's, one
    window size for every windowed dimension, a new size for each loop the input lacks (the
    filters ``f``, ``fg``, a multiplier ``m``); a pooling's window is an empty tensor, as MLIR takes it."""

    def build(b: Builder, x: Value) -> Value:
        dims = spec.operands[0].split()
        sizes = dict(zip(dims, x.shape, strict=True))
        window = [d for d in dims if d in _WINDOWED]
        kernel = _kernel(b, *(sizes[d] for d in window))
        for d in window:
            sizes[f"k{d.lower()}"], sizes[f"o{d.lower()}"] = kernel, sizes[d] - kernel + 1
        for loop in spec.loops.split():
            if loop not in sizes:
                sizes[loop] = b.rng.choice([1, 2, 3]) if loop == "m" else b.size()
        second = [sizes[d] for d in spec.operands[1].split()]
        out = [sizes[d] for d in spec.operands[-1].split()]
        quantized, pooling = spec.payload == "mac_q", not spec.payload.startswith("mac")
        if pooling:
            other = Value(b.empty(second, x.element, False), tuple(second), x.element)
            element = x.element
        else:
            other = b.argument(second, x.element, dynamic=False)
            element = "i32" if quantized else _accumulator(b, x.element)
        attrs = _window(len(window)) if spec.strided else ""
        scalars = _zero_points(b) if quantized else ()
        return _named(b, f"linalg.{spec.name}", [x, other], out, element, attrs, scalars=scalars)

    return build


def _windowed_kinds(taken: dict[str, OpKind]) -> dict[str, OpKind]:
    """A kind for each convolution and pooling of ``NAMED`` (and the quantized 2-D depthwise)
    that no kind of ``taken`` emits."""
    ops = {kind.op for kind in taken.values()}
    return {
        spec.name: OpKind(_windowed_applies(spec), _windowed_build(spec), f"linalg.{spec.name}")
        for spec in (*NAMED, _DEPTHWISE_HWC_Q)
        if spec.window and spec.name not in taken and f"linalg.{spec.name}" not in ops
    }


def _copy(b: Builder, x: Value) -> Value:
    """``linalg.copy`` into an empty tensor, widening i8 and f16 half the time (zero-extending
    i8 by ``cast_unsigned`` half of those), as the op's payload casts."""
    element, attrs = x.element, ""
    if b.rng.random() < 0.5 and x.element in ("i8", "f16"):
        element = "i32" if x.element == "i8" else "f32"
        if x.element == "i8" and b.rng.random() < 0.5:
            attrs = " {cast = #linalg.type_fn<cast_unsigned>}"
    return _named(b, "linalg.copy", [x], x.shape, element, attrs, zeroed=False)


def _fill_rng(b: Builder, x: Value) -> Value:
    """``linalg.fill_rng_2d`` of ``x``'s shape (a dropout mask's noise) between -1 and 1."""
    scalars = [
        (b.constant("f64", -1), "f64"),
        (b.constant("f64", 1), "f64"),
        (b.constant("i32", b.rng.choice([0, 42])), "i32"),
    ]
    return _named(
        b, "linalg.fill_rng_2d", [], x.shape, x.element, dynamic=x.dynamic, scalars=scalars, zeroed=False
    )


_HAND_KINDS: dict[str, OpKind] = {
    "elementwise": OpKind(lambda v: True, _elementwise),
    "cast": OpKind(lambda v: any(f == v.element for f, _ in CASTS), _cast),
    "matmul": OpKind(_rank(2), _matmul),
    "batch_matmul": OpKind(_rank(3), _batch_matmul),
    "reduce": OpKind(lambda v: len(v.shape) >= 2, _reduce),
    "generic_reduce": OpKind(lambda v: len(v.shape) >= 2, _generic_reduce),
    "broadcast": OpKind(lambda v: len(v.shape) <= 3, _broadcast),
    "map": OpKind(lambda v: True, _map_op),
    "transpose": OpKind(lambda v: len(v.shape) >= (3 if v.dynamic else 2), _transpose),
    "fill": OpKind(lambda v: True, _fill),
    "softmax": OpKind(lambda v: v.is_float and len(v.shape) >= 1, _softmax),
    "conv_2d_nhwc_hwcf": OpKind(lambda v: len(v.shape) == 4 and min(v.shape[1:3]) >= 3, _conv),
    "depthwise_conv_2d_nhwc_hwc": OpKind(lambda v: len(v.shape) == 4 and min(v.shape[1:3]) >= 3, _depthwise),
    "pooling_nhwc_sum": OpKind(
        lambda v: len(v.shape) == 4 and min(v.shape[1:3]) >= 2,
        _pooling("linalg.pooling_nhwc_sum", True),
        "linalg.pooling_nhwc_sum",
    ),
    "pooling_nhwc_max": OpKind(
        lambda v: len(v.shape) == 4 and v.is_float and min(v.shape[1:3]) >= 2,
        _pooling("linalg.pooling_nhwc_max", True),
        "linalg.pooling_nhwc_max",
    ),
    "pooling_nchw_max": OpKind(
        lambda v: len(v.shape) == 4 and v.is_float and min(v.shape[2:4]) >= 2,
        _pooling("linalg.pooling_nchw_max", False),
        "linalg.pooling_nchw_max",
    ),
    "conv_2d_nchw_fchw": OpKind(
        lambda v: len(v.shape) == 4 and min(v.shape[2:4]) >= 3, _conv_nchw, "linalg.conv_2d_nchw_fchw"
    ),
    "conv_2d_nhwc_fhwc": OpKind(
        lambda v: len(v.shape) == 4 and min(v.shape[1:3]) >= 3, _conv_fhwc, "linalg.conv_2d_nhwc_fhwc"
    ),
    "matvec": OpKind(_rank(2), _matvec, "linalg.matvec"),
    "pooling_nhwc_min": OpKind(
        lambda v: len(v.shape) == 4 and v.is_float and min(v.shape[1:3]) >= 2,
        _pooling("linalg.pooling_nhwc_min", True),
        "linalg.pooling_nhwc_min",
    ),
    "pad": OpKind(lambda v: len(v.shape) >= 2, _pad),
    "expand_shape": OpKind(
        lambda v: 1 <= len(v.shape) <= 4 and any(s % 2 == 0 for s in v.shape[1:]), _expand
    ),
    "collapse_shape": OpKind(lambda v: len(v.shape) >= 3, _collapse),
    "extract_slice": OpKind(lambda v: any(s > 2 for s in v.shape[1:]), _slice),
    "conv_1d_nwc_wcf": OpKind(
        lambda v: len(v.shape) == 3 and v.shape[1] >= 2, _conv_1d, "linalg.conv_1d_nwc_wcf"
    ),
    "conv_3d_ndhwc_dhwcf": OpKind(
        lambda v: len(v.shape) == 5 and min(v.shape[1:4]) >= 2, _conv_3d, "linalg.conv_3d_ndhwc_dhwcf"
    ),
    "conv_2d_nhwgc_gfhwc": OpKind(
        lambda v: len(v.shape) == 5 and min(v.shape[1:3]) >= 2,
        _conv_grouped_nhwgc,
        "linalg.conv_2d_nhwgc_gfhwc",
    ),
    "conv_2d_ngchw_fgchw": OpKind(
        lambda v: len(v.shape) == 5 and min(v.shape[3:5]) >= 2,
        _conv_grouped_ngchw,
        "linalg.conv_2d_ngchw_fgchw",
    ),
    "conv_2d_nhwc_hwcf_q": OpKind(
        lambda v: len(v.shape) == 4 and v.element == "i8" and min(v.shape[1:3]) >= 2,
        _conv_q,
        "linalg.conv_2d_nhwc_hwcf_q",
    ),
    "depthwise_conv_2d_nhwc_hwcm": OpKind(
        lambda v: len(v.shape) == 4 and min(v.shape[1:3]) >= 2,
        _depthwise_multiplier,
        "linalg.depthwise_conv_2d_nhwc_hwcm",
    ),
    "batch_matvec": OpKind(_rank(3), _batch_matvec, "linalg.batch_matvec"),
    "vecmat": OpKind(_rank(1), _vecmat, "linalg.vecmat"),
    "dot": OpKind(_rank(1), _dot, "linalg.dot"),
    "mmt4d": OpKind(_rank(4), _mmt4d, "linalg.mmt4d"),
    "quantized_matmul": OpKind(
        lambda v: len(v.shape) == 2 and v.element == "i8", _quantized_matmul, "linalg.quantized_matmul"
    ),
    "batch_reduce_matmul": OpKind(_rank(3), _batch_reduce_matmul, "linalg.batch_reduce_matmul"),
    "matmul_transposed": OpKind(_rank(2), _matmul_transposed),
    "contract": OpKind(_rank(3), _contract, "linalg.contract"),
    "elementwise_named": OpKind(lambda v: True, _elementwise_named, "linalg.elementwise"),
    "pooling_ndhwc_sum": OpKind(
        lambda v: len(v.shape) == 5 and min(v.shape[1:4]) >= 2,
        _pooling_3d("linalg.pooling_ndhwc_sum"),
        "linalg.pooling_ndhwc_sum",
    ),
    "batch_vecmat": OpKind(_rank(2), _batch_vecmat, "linalg.batch_vecmat"),
    "batch_mmt4d": OpKind(_rank(5), _batch_mmt4d, "linalg.batch_mmt4d"),
    "quantized_batch_matmul": OpKind(
        lambda v: len(v.shape) == 3 and v.element == "i8",
        _quantized_batch_matmul,
        "linalg.quantized_batch_matmul",
    ),
    "conv_2d_nchw_fchw_q": OpKind(
        lambda v: len(v.shape) == 4 and v.element == "i8", _conv_nchw_q, "linalg.conv_2d_nchw_fchw_q"
    ),
    "conv_1d_ncw_fcw": OpKind(_rank(3), _conv_1d_ncw, "linalg.conv_1d_ncw_fcw"),
    "depthwise_conv_1d_nwc_wc": OpKind(_rank(3), _depthwise_1d, "linalg.depthwise_conv_1d_nwc_wc"),
    "depthwise_conv_3d_ndhwc_dhwc": OpKind(_rank(5), _depthwise_3d, "linalg.depthwise_conv_3d_ndhwc_dhwc"),
    "conv_2d_ngchw_gfchw": OpKind(_rank(5), _conv_grouped_gfchw, "linalg.conv_2d_ngchw_gfchw"),
    "pooling_nwc_max": OpKind(
        lambda v: len(v.shape) == 3 and v.is_float and v.shape[1] >= 2,
        _pooling_1d("linalg.pooling_nwc_max"),
        "linalg.pooling_nwc_max",
    ),
}
"""The kinds written out one by one."""

OP_KINDS: dict[str, OpKind] = (
    _HAND_KINDS
    | _windowed_kinds(_HAND_KINDS)
    | {
        "copy": OpKind(lambda v: True, _copy, "linalg.copy"),
        "fill_rng_2d": OpKind(lambda v: len(v.shape) == 2 and v.is_float, _fill_rng, "linalg.fill_rng_2d"),
    }
)
"""Every op kind, by name: the hand-written ones, one per convolution and pooling of ``NAMED``
left, ``copy`` and ``fill_rng_2d``.  xDSL's per-function elementwise ops (``linalg.add``,
``linalg.exp``, ``linalg.select``, ...) have none: iree-opt 3.13 knows them no more
(``custom op 'linalg.add' is unknown``), so a composition using one is only refused."""


def available_kinds() -> dict[str, OpKind]:
    """The kinds whose op passviz has (a pooling op lands with its linalg definition)."""
    names = {op.name for op in Linalg.operations}
    return {name: kind for name, kind in OP_KINDS.items() if not kind.op or kind.op in names}


def compose(seed: int, length: int | None = None) -> str:
    """The composition of seed ``seed``: a function of 2 to 6 ops (``length`` to force it)."""
    rng = random.Random(seed)
    element = rng.choice(ELEMENTS)
    rank = rng.choice([2, 2, 3, 4, 4, 5])
    b = Builder(rng, dynamic=rng.random() < 0.3, batch=rng.choice(SIZES))
    shape = [b.batch] + [rng.choice((4, 6, 8)) for _ in range(rank - 1)]
    b.values.append(b.argument(shape, element))
    kinds = available_kinds()
    for _ in range(length if length is not None else rng.randrange(2, 7)):
        x = b.values[-1] if rng.random() < 0.75 else rng.choice(b.values)
        fitting = sorted(name for name, kind in kinds.items() if kind.applies(x))
        kinds[rng.choice(fitting)].build(b, x)
    results = [v for v in b.values if v.name not in b.used] or [b.values[-1]]
    signature = ", ".join(f"{v.name}: {v.type}" for v in b.arguments)
    returns = ", ".join(v.type for v in results)
    return (
        f"func.func @composition_{seed}({signature}) -> ({returns}) {{\n"
        + "\n".join(b.lines)
        + f"\n  return {', '.join(v.name for v in results)} : {returns}\n}}\n"
    )


# ===----------------------------------------------------------------------=== #
# Checking compositions against iree-opt
# ===----------------------------------------------------------------------=== #


@dataclass
class Outcome:
    """What came of one composition: why iree-opt refused it, or each way passviz differed."""

    seed: int | str
    """The seed that made the composition, or the name of a model checked alike."""
    text: str
    refused: str = ""
    differences: list[str] = field(default_factory=list[str])
    skipped: list[str] = field(default_factory=list[str])
    """The checks iree-opt could not make (it refused its own module), and why."""

    def report(self) -> str:
        return f"seed {self.seed} (tests.iree_generator.compose({self.seed})):\n{self.text}\n" + "\n".join(
            self.differences
        )


def _pass_pipeline(name: str) -> str:
    return f"builtin.module(func.func({name}))" if name in FUNCTION_PASSES else f"builtin.module({name})"


def _diff(ours: str, theirs: str) -> str:
    lines = difflib.unified_diff(
        theirs.splitlines(), ours.splitlines(), "iree-opt", "passviz", lineterm="", n=2
    )
    return "\n".join(list(lines)[:60])


def _ours(text: str, pipeline: str) -> tuple[str | None, str]:
    """passviz's output for ``text`` through ``pipeline``, or None and why it failed."""
    try:
        run = record(text, pipeline)
    except Exception as error:  # noqa: BLE001 - any failure is a difference to report
        return None, f"{type(error).__name__}: {error}"
    if run.trace.status != "ok":
        return None, str(run.trace.failed_steps)
    return print_module(run.module), ""


def _compare(
    outcomes: Sequence[Outcome], inputs: Sequence[str], pipeline: str, flags: str, what: str
) -> list[str | None]:
    """Run each input through passviz's ``pipeline`` and iree-opt's ``flags``; note each
    difference on its outcome; return iree-opt's outputs (None where it failed)."""
    theirs = run_iree_opt_batch(inputs, flags)
    ours = [_ours(text, pipeline) for text in inputs]
    printed = run_iree_opt_batch([o or "" for o, _ in ours])
    for outcome, their, (our, why), again in zip(outcomes, theirs, ours, printed, strict=True):
        if their.output is None:
            # iree-opt refuses its own module (a pass alone that needs a dialect loaded by an
            # earlier one): nothing to compare with, from here on.
            outcome.skipped.append(f"{what}: iree-opt refuses its own input: {their.error.splitlines()[0]}")
        elif our is None:
            outcome.differences.append(f"{what}: passviz failed: {why}")
        elif again.output is None:
            outcome.differences.append(f"{what}: iree-opt cannot read passviz's output: {again.error}")
        elif again.output != their.output:
            outcome.differences.append(f"{what} differs:\n{_diff(again.output, their.output)}")
    return [t.output for t in theirs]


def check_compositions(seeds: Sequence[int]) -> list[Outcome]:
    """Each seed's composition through ``iree-flow`` and through each of its passes alone (on the
    module iree-opt makes with the passes before it), compared with iree-opt, its runs batched."""
    return check_modules([Outcome(seed, compose(seed)) for seed in seeds])


def check_models(models: dict[str, str]) -> dict[str, Outcome]:
    """``check_compositions`` for models given by name."""
    return {str(o.seed): o for o in check_modules([Outcome(name, text) for name, text in models.items()])}


def check_modules(outcomes: list[Outcome]) -> list[Outcome]:
    """Each outcome's module checked as ``check_compositions`` says, the outcomes filled in."""
    parsed = run_iree_opt_batch([o.text for o in outcomes])
    for outcome, result in zip(outcomes, parsed, strict=True):
        if result.output is None:
            outcome.refused = result.error
    live = [o for o in outcomes if not o.refused]
    refusals = run_iree_opt_batch([o.text for o in live], f"--pass-pipeline={nested_pipeline('func.func')}")
    for outcome, result in zip(live, refusals, strict=True):
        if result.output is None:
            outcome.refused = f"iree-opt cannot run iree-flow on it: {result.error}"
    live = [o for o in live if not o.refused]
    _compare(
        live,
        [o.text for o in live],
        "iree-flow",
        f"--pass-pipeline={nested_pipeline('func.func')}",
        "iree-flow",
    )
    current: list[str | None] = [o.text for o in live]
    for name in IREE_FLOW.split(","):
        keep = [i for i, text in enumerate(current) if text is not None]
        outputs = _compare(
            [live[i] for i in keep],
            [current[i] or "" for i in keep],
            name,
            f"--pass-pipeline={_pass_pipeline(name)}",
            f"{name} alone",
        )
        current = [None] * len(live)
        for i, output in zip(keep, outputs, strict=True):
            current[i] = output
    return outcomes
