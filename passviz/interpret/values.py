"""What the interpreter computes with: numpy arrays for scalars and tensors, pointers into buffers.

A scalar of an integer or float type is a 0-d numpy array (or a numpy scalar),
a tensor an n-d one, of the numpy dtype that ``storage_dtype`` gives for its
MLIR element type. MLIR integers are signless: they are stored as signed numpy
integers of their width (``i1`` as ``bool``) and the ops that read them as
unsigned view them so. ``bf16`` has no numpy type: its values are float32
rounded to bf16 after every op (``round_bf16``).

A pointer is a ``Pointer`` (buffer number, element offset); a tensor of
pointers a ``PointerTensor`` (buffer number, numpy array of element offsets).
Offsets count elements of the pointee type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation
from xdsl.traits import CallableOpInterface, SymbolOpInterface

from passviz.ir.locations import source_position
from passviz.ir.traits import has_trait

Array = np.ndarray[Any, Any]
"""A numpy array of any shape and dtype."""


class RunError(Exception):
    """An error while running a kernel, located at the op that raised it."""

    def __init__(self, message: str, op: Operation | None = None) -> None:
        self.message = message
        self.op = op
        super().__init__(f"{describe_op(op)}: {message}" if op is not None else message)


DEFAULT_TIMEOUT = 60.0
"""Seconds a run on the CPU may take, as a GPU launch may (``passviz run --timeout``)."""

DEFAULT_MAX_OPS = 50_000_000
"""Ops a run on the CPU may interpret, all programs together: a bound that does not depend on
the machine's speed (``--max-ops``)."""


@dataclass(frozen=True)
class RunLimits:
    """When a run on the CPU is stopped: a kernel whose ``scf.while`` never ends must not hang."""

    timeout: float | None = DEFAULT_TIMEOUT
    """Seconds the run may take (None: no limit)."""
    max_ops: int | None = DEFAULT_MAX_OPS
    """Ops it may interpret (None: no limit)."""


class RunLimitError(RunError):
    """A run stopped at one of its ``RunLimits``, located at the op it was about to run."""


class UnsupportedOpError(RunError):
    """An op the interpreter does not implement: an error, never a wrong answer."""

    def __init__(self, op: Operation, detail: str = "") -> None:
        suffix = f" ({detail})" if detail else ""
        super().__init__(f"the interpreter does not support {op.name}{suffix}", op)


class DeclarationCallError(RunError):
    """A call of a function without a body: the IR between an inliner's two steps, not a result."""


class LaunchError(RunError):
    """Arguments or a grid that do not fit the kernel: no program ran."""


class NoKernelError(LaunchError):
    """IR without a function the interpreter runs: an empty module before a frontend builds it, or
    IR already lowered to the ``llvm`` dialect.  Neither right nor wrong: bisect steps around it."""


class KernelAssertionError(RunError):
    """A ``tt.assert`` that failed in some program of the grid."""


def is_function(op: Operation) -> bool:
    """Whether ``op`` defines a function: a symbol that can be called (``func.func``, and each
    family's function op with xDSL's ``CallableOpInterface``; not ``llvm.func``, which the
    interpreter does not run)."""
    return has_trait(op, CallableOpInterface, value_if_unregistered=False) and has_trait(
        op, SymbolOpInterface, value_if_unregistered=False
    )


def function_attribute(function: Operation, name: str) -> Attribute | None:
    """A function op's ``sym_name`` or ``sym_visibility``: a property (``func.func``, ``tt.func``)
    or an attribute (``toy.func``)."""
    return function.properties.get(name) or function.attributes.get(name)


def describe_location(op: Operation, op_id: str | None = None) -> str:
    """Where ``op`` is: the source line its location names, else its place in its function, by
    ``op_id`` (the trace's id, the one the viewer shows) when given, else by its walk index."""
    found = source_position(op.location)
    if found is not None:
        return found
    func: Operation | None = op
    while func is not None and not is_function(func):
        func = func.parent_op()
    if func is None:
        return "(no location)"
    name = getattr(function_attribute(func, "sym_name"), "data", "?")
    if func is op:
        return f"@{name}"
    if op_id is not None:
        return f"@{name}, op {op_id}"
    index = next(i for i, other in enumerate(func.walk()) if other is op)
    return f"@{name}, op #{index}"


def describe_op(op: Operation, op_id: str | None = None) -> str:
    """``op``'s name and location, as errors print them."""
    return f"{describe_location(op, op_id)}: {op.name}"


# -- types -------------------------------------------------------------------------


def element_type(type_: Attribute) -> Attribute:
    """The element type of a tensor type, or ``type_`` itself."""
    return cast(Attribute, type_.element_type) if isinstance(type_, TensorType) else type_  # pyright: ignore[reportUnknownMemberType]


def shape_of(type_: Attribute) -> tuple[int, ...]:
    """The static shape of a tensor type; ``()`` for a scalar."""
    return tuple(type_.get_shape()) if isinstance(type_, TensorType) else ()


def storage_dtype(type_: Attribute, op: Operation | None = None) -> np.dtype[Any]:
    """The numpy dtype that holds values of the scalar (or tensor element) type ``type_``."""
    type_ = element_type(type_)
    match type_:
        case IntegerType():
            width = cast(int, type_.width.data)  # pyright: ignore[reportUnknownMemberType]
            if width == 1:
                return np.dtype(np.bool_)
            if width in (8, 16, 32, 64):
                return np.dtype(f"int{width}")
        case IndexType():
            return np.dtype(np.int64)
        case Float16Type():
            return np.dtype(np.float16)
        case BFloat16Type() | Float32Type():
            return np.dtype(np.float32)
        case Float64Type():
            return np.dtype(np.float64)
        case _ if pointee_type(type_) is not None:
            return np.dtype(np.int64)
        case _:
            pass
    raise RunError(f"values of type {type_} are not supported by the interpreter", op)


def pointee_type(type_: Attribute) -> Attribute | None:
    """What a pointer type points to (a type that names its ``pointee_type``, as Triton's
    ``!tt.ptr<f32>`` does); None for any other type.  Its values are ``Pointer`` and
    ``PointerTensor``, whose offsets count elements of the pointee."""
    pointee: object = getattr(type_, "pointee_type", None)
    return pointee if isinstance(pointee, Attribute) else None


def is_bf16(type_: Attribute) -> bool:
    """Whether ``type_`` (or its element type) is bf16, which is kept as rounded float32."""
    return isinstance(element_type(type_), BFloat16Type)


def is_float(type_: Attribute) -> bool:
    """Whether ``type_`` (or its element type) is a float type."""
    return isinstance(element_type(type_), AnyFloat)


def int_width(type_: Attribute) -> int:
    """The width of an integer (or index) element type."""
    type_ = element_type(type_)
    if isinstance(type_, IndexType):
        return 64
    assert isinstance(type_, IntegerType)
    return cast(int, type_.width.data)  # pyright: ignore[reportUnknownMemberType]


def integer_width(type_: Attribute) -> int | None:
    """The width of an integer type; None for any other type."""
    if not isinstance(type_, IntegerType):
        return None
    return cast(int, type_.width.data)  # pyright: ignore[reportUnknownMemberType]


def unsigned_dtype(width: int) -> np.dtype[Any]:
    """The unsigned numpy dtype of ``width`` bits (``bool`` for 1)."""
    return np.dtype(np.bool_) if width == 1 else np.dtype(f"uint{width}")


def round_bf16(values: Any) -> Array:
    """float32 values rounded to the nearest bf16 (ties to even), kept as float32."""
    x = np.asarray(values, dtype=np.float32)
    bits = x.view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    out = rounded.view(np.float32)
    return np.where(np.isnan(x), x, out)


def bf16_bits(values: Any) -> Array:
    """The upper 16 bits of float32 values as ``uint16``: bf16's bits, for values rounded to bf16."""
    return (np.asarray(values, dtype=np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)


def bf16_from_bits(bits: Any) -> Array:
    """bf16 bits (``uint16``) as the float32 values they stand for."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)


def round_tf32(values: Any) -> Array:
    """float32 values rounded to tf32 (10 mantissa bits, ties to even), kept as float32."""
    x = np.asarray(values, dtype=np.float32)
    bits = x.view(np.uint32)
    rounded = (bits + np.uint32(0xFFF) + ((bits >> np.uint32(13)) & np.uint32(1))) & np.uint32(0xFFFFE000)
    return np.where(np.isnan(x), x, rounded.view(np.float32))


def as_type(values: Any, type_: Attribute, op: Operation | None = None) -> Array:
    """``values`` as an array of ``type_``'s storage dtype, rounded for bf16, broadcast to its shape."""
    out = np.asarray(values).astype(storage_dtype(type_, op), copy=False)
    if is_bf16(type_):
        out = round_bf16(out)
    shape = shape_of(type_)
    # More dimensions than the type has are lanes: a combine region run on whole rows at once.
    if out.shape != shape and out.ndim <= len(shape):
        out = np.broadcast_to(out, shape)
    return out


def zeros(type_: Attribute, op: Operation | None = None) -> Any:
    """A value of ``type_`` with every element zero (also what ``ub.poison`` stands for)."""
    if pointee_type(element_type(type_)) is not None:
        raise RunError("a poison pointer cannot be interpreted", op)
    return np.zeros(shape_of(type_), dtype=storage_dtype(type_, op))


# -- memory ------------------------------------------------------------------------


@dataclass
class Buffer:
    """A kernel argument's memory: a flat numpy array."""

    name: str
    """The argument it was passed as."""
    data: Array
    """The elements, flat."""
    written: bool = False
    """Whether the kernel stored into it (its outputs)."""
    element: str | None = None
    """The element type the kernel accessed it as (``f32``, ``bf16``...), once it has."""


@dataclass(frozen=True)
class BufferRef:
    """What points into one buffer of a launch: a pointer, a tensor of pointers, a tensor
    descriptor or a block pointer."""

    buffer: int
    """The buffer's index in ``Memory.buffers``."""


@dataclass(frozen=True)
class Pointer(BufferRef):
    """A scalar pointer: an element offset into a buffer."""

    offset: int
    """Elements of the pointee type from the buffer's start."""


@dataclass(frozen=True)
class PointerTensor(BufferRef):
    """A tensor of pointers into one buffer."""

    offsets: Array
    """Elements of the pointee type from the buffer's start, one per tensor element."""

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.offsets.shape)


@dataclass
class Memory:
    """The buffers a launch passes to a kernel."""

    buffers: list[Buffer] = field(default_factory=lambda: list[Buffer]())

    def view(self, pointer: Pointer | PointerTensor, pointee: Attribute, op: Operation) -> Array:
        """The buffer ``pointer`` points into, seen as elements of ``pointee``."""
        buffer = self.buffers[pointer.buffer]
        dtype = storage_dtype(pointee, op)
        buffer.element = str(pointee)
        data = buffer.data
        if data.dtype == dtype:
            return data
        if data.dtype.itemsize == dtype.itemsize:
            return data.view(dtype)
        raise RunError(
            f"buffer {buffer.name!r} holds {data.dtype} elements; it cannot be accessed as {pointee}", op
        )

    def check_bounds(
        self, pointer: Pointer | PointerTensor, offsets: Array, size: int, op: Operation
    ) -> None:
        """Raise unless every offset in ``offsets`` lies inside the buffer (of ``size`` elements)."""
        if offsets.size == 0:
            return
        low, high = int(offsets.min()), int(offsets.max())
        if low < 0 or high >= size:
            bad = low if low < 0 else high
            name = self.buffers[pointer.buffer].name
            raise RunError(f"out-of-bounds access: element {bad} of {name!r}, which has {size} elements", op)


@dataclass(frozen=True)
class TensorDescriptor(BufferRef):
    """A ``tt.make_tensor_descriptor``: a strided n-d view of a buffer, read and written in blocks."""

    offset: int
    """The view's first element, from the buffer's start."""
    shape: tuple[int, ...]
    """The view's size along each dimension: blocks are cut to it."""
    strides: tuple[int, ...]
    """Elements between neighbours along each dimension."""
    nan_padding: bool
    """Whether a block's elements outside the view read as NaN (else zero)."""

    def block(self, indices: tuple[int, ...], block_shape: tuple[int, ...]) -> tuple[Array, Array]:
        """The element offsets of the block at ``indices``, and which of them lie inside the view."""
        checked = tuple(range(len(self.shape)))
        return block_offsets(self.offset, indices, block_shape, self.shape, self.strides, checked)


@dataclass(frozen=True)
class BlockPointer(BufferRef):
    """A ``tt.make_tensor_ptr``: a block at ``offsets`` in a strided n-d view of a buffer."""

    base: int
    """The view's first element, from the buffer's start."""
    shape: tuple[int, ...]
    """The view's size along each dimension (checked only along a load's or store's ``boundaryCheck``)."""
    strides: tuple[int, ...]
    """Elements between neighbours along each dimension."""
    offsets: tuple[int, ...]
    """The block's first element along each dimension (advancing the block pointer moves it)."""

    def block(self, block_shape: tuple[int, ...], checked: tuple[int, ...]) -> tuple[Array, Array]:
        """The block's element offsets, and which lie inside the view along the ``checked`` dimensions."""
        return block_offsets(self.base, self.offsets, block_shape, self.shape, self.strides, checked)


def block_offsets(
    base: int,
    indices: tuple[int, ...],
    block_shape: tuple[int, ...],
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    checked: tuple[int, ...],
) -> tuple[Array, Array]:
    """The element offsets of a block at ``indices`` of a strided view at ``base``, and which of them
    lie inside the view's ``shape`` along the ``checked`` dimensions."""
    ranges = [index + np.arange(size) for index, size in zip(indices, block_shape, strict=True)]
    grids = np.meshgrid(*ranges, indexing="ij")
    inside = np.ones(block_shape, dtype=bool)
    offsets = np.full(block_shape, base, dtype=np.int64)
    for dim, (coords, size, stride) in enumerate(zip(grids, shape, strides, strict=True)):
        if dim in checked:
            inside &= (coords >= 0) & (coords < size)
        offsets += coords.astype(np.int64) * stride
    return offsets, inside


def pointer_parts(value: Any, op: Operation) -> tuple[int, Array]:
    """The buffer and the offsets (an array, 0-d for a scalar) of a pointer value."""
    if isinstance(value, Pointer):
        return value.buffer, np.asarray(value.offset, dtype=np.int64)
    if isinstance(value, PointerTensor):
        return value.buffer, value.offsets
    raise RunError(f"expected a pointer, got {type(value).__name__}", op)


def make_pointer(buffer: int, offsets: Array) -> Pointer | PointerTensor:
    """A scalar pointer for 0-d offsets, a pointer tensor otherwise."""
    if offsets.ndim == 0:
        return Pointer(buffer, int(offsets))
    return PointerTensor(buffer, offsets)
