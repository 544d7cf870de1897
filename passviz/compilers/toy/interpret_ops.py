"""Toy's ops, and the affine and memref ops its lowering makes, in the interpreter.

A Toy tensor and a memref are both numpy arrays of float64 (a memref is the
array its buffer holds), so the IR between two steps of
``toy-lower-to-affine`` runs too: an ``unrealized_conversion_cast`` between
them passes the array on.  ``toy.print`` writes as ``passviz.compilers.toy.interpret``
does (the tutorial's ``printf`` lowering): the interpreter's ``printed`` keeps each array.
xDSL's affine functions run ``affine.for``, ``affine.yield`` and
``affine.apply``; loads and stores evaluate their map on dimensions and
symbols, and index numpy arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import affine, memref
from xdsl.dialects.builtin import MemRefType, TensorType, UnrealizedConversionCastOp
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.ir import Operation

from passviz.compilers.toy import dialect as toy
from passviz.interpret.core import does_nothing, kernel_state, returns_operands
from passviz.interpret.values import DeclarationCallError, RunError


def _array(value: Any) -> np.ndarray[Any, np.dtype[np.float64]]:
    return np.asarray(value, dtype=np.float64)


def _element(op: Operation, buffer: np.ndarray[Any, Any], indices: Sequence[Any]) -> tuple[int, ...]:
    """Where ``op`` (a ``memref`` or ``affine`` load or store) reads or writes ``buffer``: its indices,
    or its map of them (dimensions, then symbols); an error if that lies outside ``buffer``."""
    where = tuple(int(i) for i in indices)
    if isinstance(op, affine.LoadOp | affine.StoreOp):
        map_ = op.map.data
        where = tuple(map_.eval(list(where[: map_.num_dims]), list(where[map_.num_dims :])))
    if len(where) != buffer.ndim or any(not 0 <= i < n for i, n in zip(where, buffer.shape, strict=True)):
        raise RunError(f"index {list(where)} out of bounds of {list(buffer.shape)}", op)
    return where


def _load(
    functions: InterpreterFunctions, interpreter: Interpreter, op: Operation, args: PythonValues
) -> PythonValues:
    """A ``memref`` or ``affine`` load: the element of its buffer it reads."""
    buffer, *indices = args
    return (np.float64(buffer[_element(op, buffer, indices)]),)


def _store(
    functions: InterpreterFunctions, interpreter: Interpreter, op: Operation, args: PythonValues
) -> PythonValues:
    """A ``memref`` or ``affine`` store: writes its value into its buffer."""
    value, buffer, *indices = args
    buffer[_element(op, buffer, indices)] = value
    return ()


@register_impls
class ToyFunctions(InterpreterFunctions):
    """``toy`` ops on numpy arrays, and the casts its lowering leaves between steps."""

    @impl(toy.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: toy.ConstantOp, args: PythonValues) -> PythonValues:
        shape = op.value.get_shape() or ()
        return (np.array(op.float_values(), dtype=np.float64).reshape(shape),)

    @impl(toy.AddOp)
    def run_add(self, interpreter: Interpreter, op: toy.AddOp, args: PythonValues) -> PythonValues:
        return (_array(args[0]) + _array(args[1]),)

    @impl(toy.MulOp)
    def run_mul(self, interpreter: Interpreter, op: toy.MulOp, args: PythonValues) -> PythonValues:
        return (_array(args[0]) * _array(args[1]),)

    @impl(toy.TransposeOp)
    def run_transpose(
        self, interpreter: Interpreter, op: toy.TransposeOp, args: PythonValues
    ) -> PythonValues:
        return (np.transpose(_array(args[0])),)

    @impl(toy.ReshapeOp)
    def run_reshape(self, interpreter: Interpreter, op: toy.ReshapeOp, args: PythonValues) -> PythonValues:
        output = op.output.type
        assert isinstance(output, TensorType)
        shape = tuple(output.get_shape())
        value = _array(args[0])
        if value.size == 1:
            return (np.full(shape, value.reshape(())),)
        return (value.reshape(shape),)

    @impl(toy.CastOp)
    def run_cast(self, interpreter: Interpreter, op: toy.CastOp, args: PythonValues) -> PythonValues:
        return (args[0],)

    @impl(toy.PrintOp)
    def run_print(self, interpreter: Interpreter, op: toy.PrintOp, args: PythonValues) -> PythonValues:
        kernel_state(interpreter).printed.append(_array(args[0]).copy())
        return ()

    @impl(toy.GenericCallOp)
    def run_call(self, interpreter: Interpreter, op: toy.GenericCallOp, args: PythonValues) -> PythonValues:
        state = kernel_state(interpreter)
        callee = state.function(op.callee.string_value(), op)
        block = callee.regions[0].blocks.first
        if block is None or block.first_op is None:
            # toy.func's parser gives a declaration an empty block (as between two edits of inlining)
            message = f"@{op.callee.string_value()} has no body here: a declaration cannot be run"
            raise DeclarationCallError(message, op)
        return state.call(callee, args, op)

    run_return = returns_operands(toy.ReturnOp)

    @impl(UnrealizedConversionCastOp)
    def run_unrealized_cast(
        self, interpreter: Interpreter, op: UnrealizedConversionCastOp, args: PythonValues
    ) -> PythonValues:
        return args


@register_impls
class BufferFunctions(InterpreterFunctions):
    """``memref`` buffers as numpy arrays, and ``affine`` loads and stores into them."""

    @impl(memref.AllocOp)
    def run_alloc(self, interpreter: Interpreter, op: memref.AllocOp, args: PythonValues) -> PythonValues:
        type_ = op.memref.type
        assert isinstance(type_, MemRefType)
        if args:
            raise RunError("dynamic sizes are not supported", op)
        return (np.zeros(tuple(type_.get_shape()), dtype=np.float64),)

    run_dealloc = does_nothing(memref.DeallocOp)
    run_memref_load = impl(memref.LoadOp)(_load)
    run_memref_store = impl(memref.StoreOp)(_store)
    run_load = impl(affine.LoadOp)(_load)
    run_store = impl(affine.StoreOp)(_store)
