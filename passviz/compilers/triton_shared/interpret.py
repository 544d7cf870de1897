"""triton-shared's ``tts`` dialect on numpy arrays: unstructured pointers, gather and scatter, and
structured tensors of pointers (``tts.make_tptr`` without an ``order``) read and written under
``mask_dims``.

A structured pointer's element at ``(k_0, k_1, ...)`` is ``base + sum(offset_d) + sum(k_d *
stride_d)``: triton-shared's pointer analysis scales offsets along with strides, so offsets add
as they are.  Wrap-around dimensions (a non-zero ``shape``) and block pointers (an ``order``)
are not interpreted: they are errors naming the op.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from passviz.compilers.triton.interpret import access, masked_load, masked_store
from passviz.compilers.triton_shared import dialect as tts
from passviz.interpret.values import (
    Array,
    Pointer,
    PointerTensor,
    RunError,
    UnsupportedOpError,
    make_pointer,
    pointer_parts,
    shape_of,
)


def _values(static: DenseArrayBase[Any], dynamic: Sequence[Any]) -> list[int]:
    """A static list with its ``DYNAMIC`` entries taken, in order, from ``dynamic``."""
    given = iter(dynamic)
    return [int(next(given)) if value == tts.DYNAMIC else int(value) for value in static.get_values()]


def _mask_dims(
    op: Operation, static: DenseArrayBase[Any], dynamic: Sequence[Any], shape: tuple[int, ...]
) -> Array:
    """Which elements of a tile ``mask_dims`` lets through: the first ``mask_dims[d]`` along each ``d``."""
    bounds = _values(static, dynamic)
    if not bounds:
        return np.ones(shape, dtype=bool)
    if len(bounds) != len(shape):
        raise RunError(f"{len(bounds)} mask dimensions for a tile of rank {len(shape)}", op)
    grids = np.meshgrid(*(np.arange(size) for size in shape), indexing="ij")
    inside = np.ones(shape, dtype=bool)
    for coords, bound in zip(grids, bounds, strict=True):
        inside &= coords < bound
    return inside


def _other(interpreter: Interpreter, op: tts.LoadOp | tts.GatherOp) -> Any:
    """What a masked load reads where its mask is off: its ``other`` operand, or None (zero)."""
    return interpreter.get_values([op.other])[0] if op.other is not None else None


@register_impls
class StructuredFunctions(InterpreterFunctions):
    """``tts`` ops on numpy arrays and pointers."""

    @impl(tts.MakeUnstructuredTensorPtrOp)
    def run_make_unstructured(
        self, interpreter: Interpreter, op: tts.MakeUnstructuredTensorPtrOp, args: PythonValues
    ) -> PythonValues:
        buffer, base = pointer_parts(args[0], op)
        return (make_pointer(buffer, base + np.asarray(args[1]).astype(np.int64)),)

    @impl(tts.MakeTensorPtrOp)
    def run_make_tptr(
        self, interpreter: Interpreter, op: tts.MakeTensorPtrOp, args: PythonValues
    ) -> PythonValues:
        if op.order.get_values():
            raise UnsupportedOpError(op, "structured block pointers (an order)")
        base = args[0]
        if not isinstance(base, Pointer):
            raise RunError("expected a scalar base pointer", op)
        strides = _values(op.static_strides, [interpreter.get_values([v])[0] for v in op.strides])
        offsets = _values(op.static_offsets, [interpreter.get_values([v])[0] for v in op.offsets])
        shape = _values(op.static_shape, [interpreter.get_values([v])[0] for v in op.shape])
        if any(shape):
            raise UnsupportedOpError(op, "wrap-around dimensions (a non-zero shape)")
        sizes = tuple(int(v) for v in op.sizes.get_values())
        grids = np.meshgrid(*(np.arange(size) for size in sizes), indexing="ij")
        elements = np.full(sizes, base.offset + sum(offsets), dtype=np.int64)
        for coords, stride in zip(grids, strides, strict=True):
            elements += coords.astype(np.int64) * stride
        return (PointerTensor(base.buffer, elements),)

    @impl(tts.LoadOp)
    def run_load(self, interpreter: Interpreter, op: tts.LoadOp, args: PythonValues) -> PythonValues:
        ptr = args[0]
        result_type = op.result.type
        mask = _mask_dims(
            op, op.static_mask_dims, interpreter.get_values(op.mask_dims), shape_of(result_type)
        )
        return masked_load(interpreter, op, ptr, mask, _other(interpreter, op), result_type)

    @impl(tts.StoreOp)
    def run_store(self, interpreter: Interpreter, op: tts.StoreOp, args: PythonValues) -> PythonValues:
        ptr, value = args[0], args[1]
        shape = tuple(np.shape(value))
        mask = _mask_dims(op, op.static_mask_dims, interpreter.get_values(op.mask_dims), shape)
        return masked_store(interpreter, access(interpreter, op, ptr, mask), value)

    @impl(tts.GatherOp)
    def run_gather(self, interpreter: Interpreter, op: tts.GatherOp, args: PythonValues) -> PythonValues:
        buffer, base = pointer_parts(args[0], op)
        offset = np.asarray(interpreter.get_values([op.offset])[0]).astype(np.int64)
        mask = interpreter.get_values([op.mask])[0] if op.mask is not None else None
        pointer = make_pointer(buffer, base + offset)
        return masked_load(interpreter, op, pointer, mask, _other(interpreter, op), op.result.type)

    @impl(tts.ScatterOp)
    def run_scatter(self, interpreter: Interpreter, op: tts.ScatterOp, args: PythonValues) -> PythonValues:
        buffer, base = pointer_parts(args[0], op)
        offset = np.asarray(interpreter.get_values([op.offset])[0]).astype(np.int64)
        value = interpreter.get_values([op.value])[0]
        mask = interpreter.get_values([op.mask])[0] if op.mask is not None else None
        return masked_store(
            interpreter, access(interpreter, op, make_pointer(buffer, base + offset), mask), value
        )
