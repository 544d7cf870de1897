"""The ``tt`` dialect on numpy arrays: the grid, tensor shapes, pointers and memory, dot, reduce and scan.

Loads and stores touch only the elements their mask lets through, and those
must lie inside the buffer (an out-of-bounds access is an error naming the
buffer, never a silent read of garbage).  Atomics apply element by element in
index order, as one program's atomics are seen by the next.  Reductions and
scans run their combine region on whole slices at once (a tree of pairwise
combines for ``tt.reduce``, Hillis-Steele steps for ``tt.scan``), so a
1024-wide reduction costs ten region runs, not 1023.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.ir import Attribute, Operation, Region

from passviz.compilers.mlir.interpret import BINARY, UNARY, bitcast, fma, reciprocal, unsigned, wide_product
from passviz.compilers.triton.dialects import tt, ttg
from passviz.interpret.core import calls_callee, does_nothing, kernel_state, returns_operands
from passviz.interpret.values import (
    Array,
    BlockPointer,
    KernelAssertionError,
    Pointer,
    PointerTensor,
    RunError,
    TensorDescriptor,
    UnsupportedOpError,
    as_type,
    element_type,
    make_pointer,
    pointer_parts,
    round_tf32,
    shape_of,
    storage_dtype,
)


def _pointee(ptr_type: Attribute, op: Operation) -> Attribute:
    """The element type a (tensor of) ``!tt.ptr`` points to; block pointers are not supported."""
    ptr = element_type(ptr_type)
    if not isinstance(ptr, tt.PointerType):
        raise UnsupportedOpError(op, f"pointer of type {ptr_type}")
    pointee = ptr.pointee_type
    if shape_of(pointee):
        raise UnsupportedOpError(op, "block pointers")
    return pointee


def _is_pointer(value: Any) -> bool:
    return isinstance(value, Pointer | PointerTensor)


def _reshape(value: Any, function: Callable[[Array], Array]) -> Any:
    """``function`` applied to a tensor, or to the offsets of a tensor of pointers."""
    if isinstance(value, Pointer):
        return make_pointer(value.buffer, np.asarray(function(np.asarray(value.offset, dtype=np.int64))))
    if isinstance(value, PointerTensor):
        return make_pointer(value.buffer, np.asarray(function(value.offsets)))
    return function(np.asarray(value))


def _mask(mask: Any, shape: tuple[int, ...]) -> Array:
    if mask is None:
        return np.ones(shape, dtype=bool)
    return np.broadcast_to(np.asarray(mask, dtype=bool), shape)


def _optional(op: Operation, args: PythonValues) -> dict[str, Any]:
    """The operands of ``op`` by their definition's name (``ptr``, ``mask``, ``other``...)."""
    found: dict[str, Any] = {}
    for operand, value in zip(op.operands, args, strict=True):
        for field in ("ptr", "mask", "other", "value", "val", "cmp"):
            if getattr(op, field, None) is operand:
                found[field] = value
    return found


def access(interpreter: Interpreter, op: Operation, ptr: Any, mask: Any) -> tuple[Array, Array, Array, int]:
    """The buffer's elements, the offsets, the mask, and the buffer's index of a memory op."""
    state = kernel_state(interpreter)
    buffer, offsets = pointer_parts(ptr, op)
    pointee = _pointee(op.operands[0].type, op)
    data = state.memory.view(ptr, pointee, op)
    active = _mask(mask, offsets.shape)
    state.memory.check_bounds(ptr, offsets[active], data.size, op)
    return data, offsets, active, buffer


def masked_load(
    interpreter: Interpreter, op: Operation, ptr: Any, mask: Any, other: Any, result_type: Attribute
) -> PythonValues:
    """A masked load through ``ptr``: its elements where ``mask`` holds, ``other`` (else zero)
    elsewhere, as ``result_type``."""
    data, offsets, active, _ = access(interpreter, op, ptr, mask)
    out = np.zeros(offsets.shape, dtype=storage_dtype(result_type, op))
    if other is not None:
        out[...] = np.broadcast_to(np.asarray(other), offsets.shape)
    out[active] = data[offsets[active]]
    return (as_type(out, result_type, op),)


def masked_store(
    interpreter: Interpreter, found: tuple[Array, Array, Array, int], value: Any
) -> PythonValues:
    """A masked store of ``value`` where ``found`` (``access``'s elements, offsets, mask and buffer)
    says; the buffer is marked written."""
    data, offsets, active, buffer = found
    data[offsets[active]] = np.broadcast_to(np.asarray(value), offsets.shape)[active]
    kernel_state(interpreter).memory.buffers[buffer].written = True
    return ()


def _based(
    args: PythonValues, op: tt.MakeTensorPtrOp | tt.MakeTensorDescOp, what: str
) -> tuple[Pointer, int, list[int]]:
    """The base pointer of the block pointer or descriptor ``op`` makes, its rank, and the operands
    that follow the base (shape, strides, and a block pointer's offsets)."""
    base, *rest = args
    if not isinstance(base, Pointer):
        raise RunError(f"expected a pointer as the {what}'s base", op)
    return base, len(op.shape), [int(v) for v in rest]


def _block(
    interpreter: Interpreter, op: Operation, descriptor: Any, indices: list[Any]
) -> tuple[Array, Array, Array]:
    """The buffer's elements, the block's element offsets, and which lie inside the descriptor's view."""
    if not isinstance(descriptor, TensorDescriptor):
        raise RunError("expected a tensor descriptor", op)
    desc_type = op.operands[0].type
    assert isinstance(desc_type, tt.TensorDescType)
    block_type = desc_type.block_type
    offsets, inside = descriptor.block(tuple(int(i) for i in indices), shape_of(block_type))
    memory = kernel_state(interpreter).memory
    data = memory.view(Pointer(descriptor.buffer, descriptor.offset), block_type.element_type, op)
    memory.check_bounds(Pointer(descriptor.buffer, 0), offsets[inside], data.size, op)
    return data, offsets, inside


def _block_access(
    interpreter: Interpreter, op: Operation, pointer: BlockPointer, boundary_check: Any
) -> tuple[Array, Array, Array, int]:
    """A block pointer's buffer elements, block offsets, the mask of its ``boundaryCheck``, and buffer."""
    pointer_type = op.operands[0].type
    assert isinstance(pointer_type, tt.PointerType)
    block_type = pointer_type.pointee_type
    checked = tuple(boundary_check.get_values()) if boundary_check is not None else ()
    offsets, inside = pointer.block(shape_of(block_type), checked)
    memory = kernel_state(interpreter).memory
    data = memory.view(Pointer(pointer.buffer, 0), element_type(block_type), op)
    memory.check_bounds(Pointer(pointer.buffer, 0), offsets[inside], data.size, op)
    return data, offsets, inside, pointer.buffer


def _combine(interpreter: Interpreter, region: Region, left: list[Array], right: list[Array]) -> list[Array]:
    results = interpreter.run_ssacfg_region(region, (*left, *right), "combine")
    return [np.asarray(value) for value in results]


def reduce_along(interpreter: Interpreter, region: Region, values: list[Array], axis: int) -> list[Array]:
    """Reduce ``values`` (tensors of one shape) along ``axis`` with ``region``, pairing neighbours."""
    rows = [np.moveaxis(v, axis, -1) for v in values]
    while rows[0].shape[-1] > 1:
        n = rows[0].shape[-1]
        even = n - n % 2
        left = [r[..., 0:even:2] for r in rows]
        right = [r[..., 1:even:2] for r in rows]
        combined = [np.broadcast_to(c, left[0].shape) for c in _combine(interpreter, region, left, right)]
        if n % 2:
            combined = [
                np.concatenate([c, r[..., even:]], axis=-1) for c, r in zip(combined, rows, strict=True)
            ]
        rows = combined
    return [r[..., 0] for r in rows]


def scan_along(
    interpreter: Interpreter, region: Region, values: list[Array], axis: int, reverse: bool
) -> list[Array]:
    """Inclusive scan of ``values`` along ``axis`` with ``region``, in log2(n) combine steps."""
    rows = [np.moveaxis(v, axis, -1) for v in values]
    if reverse:
        rows = [r[..., ::-1] for r in rows]
    n = rows[0].shape[-1]
    distance = 1
    while distance < n:
        left = [r[..., : n - distance] for r in rows]
        right = [r[..., distance:] for r in rows]
        combined = [np.broadcast_to(c, left[0].shape) for c in _combine(interpreter, region, left, right)]
        rows = [np.concatenate([r[..., :distance], c], axis=-1) for r, c in zip(rows, combined, strict=True)]
        distance *= 2
    if reverse:
        rows = [r[..., ::-1] for r in rows]
    return [np.moveaxis(r, -1, axis) for r in rows]


def _libdevice(symbol: str, op: Operation) -> Callable[..., Array]:
    """The numpy function for a libdevice symbol (``__nv_expf``, ``__nv_fast_powf``, ``__nv_isnanf``)."""
    name = symbol.removeprefix("__nv_").removeprefix("fast_")
    for candidate in (name, name.removesuffix("f")):
        if candidate in UNARY:
            return UNARY[candidate]
        if candidate in BINARY:
            return BINARY[candidate]
    extra: dict[str, Callable[..., Array]] = {
        "isnan": np.isnan,
        "isinf": np.isinf,
        "isfinite": np.isfinite,
        "signbit": np.signbit,
        "fma": fma,
        "div_rn": np.divide,
        "fdiv_rn": np.divide,
        "sqrt_rn": np.sqrt,
        "rcp_rn": reciprocal,
        "frcp_rn": reciprocal,
        "fabs": np.abs,
        "abs": np.abs,
        "llabs": np.abs,
        "max": np.maximum,
        "min": np.minimum,
        "umax": np.maximum,
        "umin": np.minimum,
        "powi": np.power,
    }
    for candidate in (name, name.removesuffix("f")):
        if candidate in extra:
            return extra[candidate]
    raise UnsupportedOpError(op, f"libdevice function {symbol}")


_ATOMIC: dict[int, Callable[[Any, Any], Any]] = {
    1: lambda old, val: old & val,
    2: lambda old, val: old | val,
    3: lambda old, val: old ^ val,
    4: lambda old, val: old + val,
    5: lambda old, val: old + val,
    6: max,
    7: min,
    8: max,
    9: min,
    10: lambda old, val: val,
}
"""``tt.atomic_rmw``'s operations by ``RMWOp`` value: the new value from the old one and the operand."""


@register_impls
class TritonFunctions(InterpreterFunctions):
    """``tt`` ops on numpy arrays and pointers."""

    run_call = calls_callee(tt.CallOp)
    run_return = returns_operands(tt.ReturnOp)
    # Programs run one after another, each in one thread: a barrier has nothing to wait for.
    run_barrier = does_nothing(ttg.BarrierOp)

    @impl(tt.GetProgramIdOp)
    def run_program_id(
        self, interpreter: Interpreter, op: tt.GetProgramIdOp, args: PythonValues
    ) -> PythonValues:
        return (np.int32(kernel_state(interpreter).program_id[op.axis.value.data]),)

    @impl(tt.GetNumProgramsOp)
    def run_num_programs(
        self, interpreter: Interpreter, op: tt.GetNumProgramsOp, args: PythonValues
    ) -> PythonValues:
        return (np.int32(kernel_state(interpreter).grid[op.axis.value.data]),)

    @impl(tt.MakeRangeOp)
    def run_make_range(
        self, interpreter: Interpreter, op: tt.MakeRangeOp, args: PythonValues
    ) -> PythonValues:
        return (np.arange(op.start.value.data, op.end.value.data, dtype=np.int32),)

    @impl(tt.SplatOp)
    def run_splat(self, interpreter: Interpreter, op: tt.SplatOp, args: PythonValues) -> PythonValues:
        shape = shape_of(op.result.type)
        if isinstance(args[0], Pointer):
            return (PointerTensor(args[0].buffer, np.full(shape, args[0].offset, dtype=np.int64)),)
        return (as_type(np.full(shape, args[0]), op.result.type, op),)

    @impl(tt.UnsplatOp)
    def run_unsplat(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (_reshape(args[0], lambda x: x.reshape(())),)

    @impl(tt.BroadcastOp)
    def run_broadcast(self, interpreter: Interpreter, op: tt.BroadcastOp, args: PythonValues) -> PythonValues:
        shape = shape_of(op.result.type)
        return (_reshape(args[0], lambda x: np.broadcast_to(x, shape)),)

    @impl(tt.ExpandDimsOp)
    def run_expand_dims(
        self, interpreter: Interpreter, op: tt.ExpandDimsOp, args: PythonValues
    ) -> PythonValues:
        axis = op.axis.value.data
        return (_reshape(args[0], lambda x: np.expand_dims(x, axis)),)

    @impl(tt.ReshapeOp)
    def run_reshape(self, interpreter: Interpreter, op: tt.ReshapeOp, args: PythonValues) -> PythonValues:
        shape = shape_of(op.result.type)
        return (_reshape(args[0], lambda x: np.reshape(x, shape)),)

    @impl(tt.TransOp)
    def run_trans(self, interpreter: Interpreter, op: tt.TransOp, args: PythonValues) -> PythonValues:
        order = tuple(op.order.get_values())
        return (_reshape(args[0], lambda x: np.transpose(x, order)),)

    @impl(tt.JoinOp)
    def run_join(self, interpreter: Interpreter, op: tt.JoinOp, args: PythonValues) -> PythonValues:
        if _is_pointer(args[0]):
            raise UnsupportedOpError(op, "joining pointers")
        return (np.stack([np.asarray(args[0]), np.asarray(args[1])], axis=-1),)

    @impl(tt.SplitOp)
    def run_split(self, interpreter: Interpreter, op: tt.SplitOp, args: PythonValues) -> PythonValues:
        value = np.asarray(args[0])
        return (value[..., 0], value[..., 1])

    @impl(tt.CatOp)
    def run_cat(self, interpreter: Interpreter, op: tt.CatOp, args: PythonValues) -> PythonValues:
        if _is_pointer(args[0]):
            raise UnsupportedOpError(op, "concatenating pointers")
        return (np.concatenate([np.asarray(args[0]), np.asarray(args[1])], axis=0),)

    @impl(tt.AddPtrOp)
    def run_addptr(self, interpreter: Interpreter, op: tt.AddPtrOp, args: PythonValues) -> PythonValues:
        buffer, offsets = pointer_parts(args[0], op)
        shape = shape_of(op.result.type)
        moved = np.broadcast_to(offsets + np.asarray(args[1]).astype(np.int64), shape)
        return (make_pointer(buffer, moved),)

    @impl(tt.LoadOp)
    def run_load(self, interpreter: Interpreter, op: tt.LoadOp, args: PythonValues) -> PythonValues:
        operands = _optional(op, args)
        result_type = op.result.type
        if isinstance(operands["ptr"], BlockPointer):
            data, offsets, active, _ = _block_access(interpreter, op, operands["ptr"], op.boundary_check)
            nan = op.padding is not None and op.padding.value.data == 2
            out = np.full(offsets.shape, np.nan if nan else 0, dtype=storage_dtype(result_type, op))
            out[active] = data[offsets[active]]
            return (as_type(out, result_type, op),)
        return masked_load(
            interpreter, op, operands["ptr"], operands.get("mask"), operands.get("other"), result_type
        )

    @impl(tt.StoreOp)
    def run_store(self, interpreter: Interpreter, op: tt.StoreOp, args: PythonValues) -> PythonValues:
        operands = _optional(op, args)
        if isinstance(operands["ptr"], BlockPointer):
            found = _block_access(interpreter, op, operands["ptr"], op.boundary_check)
        else:
            found = access(interpreter, op, operands["ptr"], operands.get("mask"))
        return masked_store(interpreter, found, operands["value"])

    @impl(tt.MakeTensorPtrOp)
    def run_make_tensor_ptr(
        self, interpreter: Interpreter, op: tt.MakeTensorPtrOp, args: PythonValues
    ) -> PythonValues:
        base, rank, rest = _based(args, op, "block pointer")
        shape, strides, offsets = (tuple(rest[i * rank : (i + 1) * rank]) for i in range(3))
        return (BlockPointer(base.buffer, base.offset, shape, strides, offsets),)

    @impl(tt.AdvanceOp)
    def run_advance(self, interpreter: Interpreter, op: tt.AdvanceOp, args: PythonValues) -> PythonValues:
        pointer, *deltas = args
        if not isinstance(pointer, BlockPointer):
            raise RunError("expected a block pointer", op)
        moved = tuple(offset + int(delta) for offset, delta in zip(pointer.offsets, deltas, strict=True))
        return (replace(pointer, offsets=moved),)

    @impl(tt.MakeTensorDescOp)
    def run_make_descriptor(
        self, interpreter: Interpreter, op: tt.MakeTensorDescOp, args: PythonValues
    ) -> PythonValues:
        base, rank, rest = _based(args, op, "descriptor")
        padding = op.padding.value.data if op.padding is not None else 1
        shape, strides = tuple(rest[:rank]), tuple(rest[rank:])
        return (TensorDescriptor(base.buffer, base.offset, shape, strides, nan_padding=padding == 2),)

    @impl(tt.DescriptorLoadOp)
    def run_descriptor_load(
        self, interpreter: Interpreter, op: tt.DescriptorLoadOp, args: PythonValues
    ) -> PythonValues:
        descriptor, *indices = args
        data, offsets, inside = _block(interpreter, op, descriptor, indices)
        result_type = op.result.type
        out = np.full(
            offsets.shape, np.nan if descriptor.nan_padding else 0, dtype=storage_dtype(result_type, op)
        )
        out[inside] = data[offsets[inside]]
        return (as_type(out.reshape(shape_of(result_type)), result_type, op),)

    @impl(tt.DescriptorStoreOp)
    def run_descriptor_store(
        self, interpreter: Interpreter, op: tt.DescriptorStoreOp, args: PythonValues
    ) -> PythonValues:
        descriptor, value, *indices = args
        data, offsets, inside = _block(interpreter, op, descriptor, indices)
        data[offsets[inside]] = np.asarray(value).reshape(offsets.shape)[inside]
        kernel_state(interpreter).memory.buffers[descriptor.buffer].written = True
        return ()

    @impl(tt.AtomicRMWOp)
    def run_atomic_rmw(
        self, interpreter: Interpreter, op: tt.AtomicRMWOp, args: PythonValues
    ) -> PythonValues:
        operands = _optional(op, args)
        data, offsets, active, buffer = access(interpreter, op, operands["ptr"], operands.get("mask"))
        kind = op.atomic_rmw_op.value.data
        update = _ATOMIC.get(kind)
        if update is None:
            raise UnsupportedOpError(op, f"atomic operation {kind}")
        view = data.view(np.dtype(f"uint{data.dtype.itemsize * 8}")) if kind in (8, 9) else data
        values = np.broadcast_to(np.asarray(operands["val"]).astype(data.dtype), offsets.shape)
        if kind in (8, 9):
            values = values.view(view.dtype)
        old = np.zeros(offsets.shape, dtype=data.dtype)
        old_view = old.view(view.dtype)
        for index in np.ndindex(offsets.shape):
            if not active[index]:
                continue
            where = int(offsets[index])
            old_view[index] = view[where]
            view[where] = update(view[where], values[index])
        kernel_state(interpreter).memory.buffers[buffer].written = True
        return (as_type(old, op.result.type, op),)

    @impl(tt.AtomicCASOp)
    def run_atomic_cas(
        self, interpreter: Interpreter, op: tt.AtomicCASOp, args: PythonValues
    ) -> PythonValues:
        operands = _optional(op, args)
        data, offsets, _, buffer = access(interpreter, op, operands["ptr"], None)
        compare = np.broadcast_to(np.asarray(operands["cmp"]).astype(data.dtype), offsets.shape)
        values = np.broadcast_to(np.asarray(operands["val"]).astype(data.dtype), offsets.shape)
        old = np.zeros(offsets.shape, dtype=data.dtype)
        for index in np.ndindex(offsets.shape):
            where = int(offsets[index])
            old[index] = data[where]
            if data[where] == compare[index]:
                data[where] = values[index]
        kernel_state(interpreter).memory.buffers[buffer].written = True
        return (as_type(old, op.result.type, op),)

    @impl(tt.DotOp)
    def run_dot(self, interpreter: Interpreter, op: tt.DotOp, args: PythonValues) -> PythonValues:
        a, b, c = (np.asarray(x) for x in args)
        if np.issubdtype(a.dtype, np.integer):
            product = a.astype(np.int64) @ b.astype(np.int64)
            return (as_type(product + c, op.d.type, op),)
        precision = op.input_precision.value.data if op.input_precision is not None else 2
        if a.dtype == np.float32 and precision == 0:
            # tf32 tensor cores keep 10 mantissa bits of each f32 input.
            a, b = round_tf32(a), round_tf32(b)
        product = a.astype(np.float32) @ b.astype(np.float32)
        return (as_type(product + c.astype(np.float32), op.d.type, op),)

    @impl(tt.ReduceOp)
    def run_reduce(self, interpreter: Interpreter, op: tt.ReduceOp, args: PythonValues) -> PythonValues:
        values = [np.asarray(a) for a in args]
        reduced = reduce_along(interpreter, op.combine_op, values, op.axis.value.data)
        return tuple(as_type(r, result.type, op) for r, result in zip(reduced, op.results, strict=True))

    @impl(tt.ScanOp)
    def run_scan(self, interpreter: Interpreter, op: tt.ScanOp, args: PythonValues) -> PythonValues:
        values = [np.asarray(a) for a in args]
        scanned = scan_along(
            interpreter, op.combine_op, values, op.axis.value.data, bool(op.reverse.value.data)
        )
        return tuple(as_type(r, result.type, op) for r, result in zip(scanned, op.results, strict=True))

    run_reduce_return = returns_operands(tt.ReduceReturnOp)

    @impl(tt.MapElementwiseOp)
    def run_map_elementwise(
        self, interpreter: Interpreter, op: tt.MapElementwiseOp, args: PythonValues
    ) -> PythonValues:
        # The region runs once, on every pack at once: each argument is one lane of the packs.
        pack = op.pack.value.data
        lanes = [np.asarray(a).reshape(-1, pack) for a in args]
        inputs = [lane[:, k] for lane in lanes for k in range(pack)]
        results = interpreter.run_ssacfg_region(op.scalar_op, tuple(inputs), "map_elementwise")
        outputs: list[Array] = []
        for index, result in enumerate(op.results):
            group = [
                np.broadcast_to(np.asarray(r), lanes[0].shape[:1])
                for r in results[index * pack : (index + 1) * pack]
            ]
            outputs.append(as_type(np.stack(group, axis=-1).reshape(shape_of(result.type)), result.type, op))
        return tuple(outputs)

    run_map_return = returns_operands(tt.MapElementwiseReturnOp)

    run_scan_return = returns_operands(tt.ScanReturnOp)

    @impl(tt.BitcastOp)
    def run_bitcast(self, interpreter: Interpreter, op: tt.BitcastOp, args: PythonValues) -> PythonValues:
        if _is_pointer(args[0]):
            source = _pointee(op.operands[0].type, op)
            target = _pointee(op.results[0].type, op)
            if storage_dtype(source, op).itemsize != storage_dtype(target, op).itemsize:
                raise UnsupportedOpError(op, "a pointer cast between element types of different sizes")
            return (args[0],)
        return (as_type(bitcast(op, np.asarray(args[0])), op.results[0].type, op),)

    @impl(tt.FpToFpOp)
    def run_fp_to_fp(self, interpreter: Interpreter, op: tt.FpToFpOp, args: PythonValues) -> PythonValues:
        if op.rounding is not None and op.rounding.value.data == 0:
            raise UnsupportedOpError(op, "round-toward-zero conversion")
        return (as_type(np.asarray(args[0]), op.result.type, op),)

    @impl(tt.ClampFOp)
    def run_clampf(self, interpreter: Interpreter, op: tt.ClampFOp, args: PythonValues) -> PythonValues:
        x, low, high = (np.asarray(a) for a in args)
        clamped = np.fmin(np.fmax(x, low), high)
        if op.propagate_nan.value.data:
            clamped = np.where(np.isnan(x), x, clamped)
        return (as_type(clamped, op.result.type, op),)

    @impl(tt.PreciseSqrtOp)
    def run_precise_sqrt(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (as_type(np.sqrt(np.asarray(args[0])), op.results[0].type, op),)

    @impl(tt.PreciseDivFOp)
    def run_precise_divf(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (as_type(np.asarray(args[0]) / np.asarray(args[1]), op.results[0].type, op),)

    @impl(tt.MulhiUIOp)
    def run_mulhiui(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (wide_product(op, [unsigned(a, op.operands[0].type) for a in args])[1],)

    @impl(tt.ExternElementwiseOp)
    def run_extern(
        self, interpreter: Interpreter, op: tt.ExternElementwiseOp, args: PythonValues
    ) -> PythonValues:
        function = _libdevice(op.symbol.data, op)
        return (as_type(function(*(np.asarray(a) for a in args)), op.result.type, op),)

    @impl(tt.GatherOp)
    def run_gather(self, interpreter: Interpreter, op: tt.GatherOp, args: PythonValues) -> PythonValues:
        axis = op.axis.value.data
        return (np.take_along_axis(np.asarray(args[0]), np.asarray(args[1]).astype(np.int64), axis),)

    @impl(tt.HistogramOp)
    def run_histogram(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        bins = shape_of(op.results[0].type)[0]
        values = np.asarray(args[0]).ravel()
        counts = np.bincount(values[(values >= 0) & (values < bins)], minlength=bins)
        return (as_type(counts, op.results[0].type, op),)

    @impl(tt.PrintOp)
    def run_print(self, interpreter: Interpreter, op: tt.PrintOp, args: PythonValues) -> PythonValues:
        state = kernel_state(interpreter)
        shown = " ".join(str(np.asarray(a).tolist()) if not _is_pointer(a) else repr(a) for a in args)
        interpreter.print(f"pid {state.program_id} {op.prefix.data}{shown}")
        return ()

    @impl(tt.AssertOp)
    def run_assert(self, interpreter: Interpreter, op: tt.AssertOp, args: PythonValues) -> PythonValues:
        if not np.all(np.asarray(args[0])):
            state = kernel_state(interpreter)
            raise KernelAssertionError(
                f"assertion failed in program {state.program_id}: {op.message.data}", op
            )
        return ()
