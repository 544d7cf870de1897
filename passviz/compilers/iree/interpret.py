"""IREE's Flow-level IR in the interpreter: linalg and tensor ops on numpy arrays, and
the ``util``, ``hal`` and ``flow`` ops around them.

A tensor is a numpy array of its element type's storage dtype.  Every linalg
structured op (``linalg.generic`` and the named ops, each with its indexing
maps and payload) runs one way: the payload runs once per point of the
reduction loops, on arrays that hold every point of the parallel loops at
once, so a matmul's payload runs K times, not M*N*K.  ``linalg.index`` gives
the loop's coordinates, as arrays over the parallel loops.

``flow.dispatch.region`` runs its body inline; ``iree_encoding`` ops and
``util.optimization_barrier`` pass their tensors on, and IREE's ``check`` ops fail
the run as a failed assertion does.  ``flow.dispatch.workgroups``
and ``flow.dispatch`` (the outlined executable's function) get each tensor
argument as a ``DispatchTensor`` (a copy, or a fresh output for a result that
writes no argument in place) which ``iree_tensor_ext.dispatch.tensor.load``
reads and ``.store`` writes; a result is its output's array afterwards.
xDSL's own linalg interpreter runs the payload once per element and knows
only some named ops, hence this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any, cast

import numpy as np
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, StringAttr, TensorType
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import IndexOp, YieldOp
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from passviz.compilers.iree.dialects import check, flow, hal, util
from passviz.compilers.iree.dialects.iree_encoding import SetEncodingOp, UnsetEncodingOp
from passviz.compilers.iree.dialects.iree_tensor_ext import DispatchTensorLoadOp, DispatchTensorStoreOp
from passviz.compilers.mlir.dialects import linalg
from passviz.interpret.core import kernel_state, returns_operands, runs_first_region
from passviz.interpret.values import Array, KernelAssertionError, RunError, as_type, storage_dtype

Coordinate = Any
"""A loop's coordinate: an int, or an array over the parallel loops."""


@dataclass
class DispatchTensor:
    """An ``!iree_tensor_ext.dispatch.tensor``: the array a dispatch loads from and stores into."""

    data: Array
    """Its elements, written in place by stores."""


def _array(value: Any, type_: Attribute, op: Operation) -> Array:
    """``value`` as a tensor of ``type_`` (its dtype; its shape when static)."""
    if not isinstance(value, np.ndarray):
        raise RunError(f"expected a tensor, got {type(value).__name__}", op)
    return cast(Array, value).astype(storage_dtype(type_, op), copy=False)


def _subscript(map_: AffineMap, coords: Sequence[Coordinate]) -> tuple[Coordinate, ...]:
    """``map_``'s results at ``coords``: xDSL evaluates an affine expression with ``+``, ``*``,
    ``%`` and ``//`` alone, so coordinates may be arrays that broadcast together."""
    return tuple(expr.eval(coords, ()) for expr in map_.results)


def _read(value: Array, map_: AffineMap, coords: Sequence[Coordinate], parallel: Sequence[int]) -> Array:
    """An input's elements at every parallel point of the current reduction point.

    Where each of the map's results is a distinct loop, that is a view of the input (the
    reduction loops' coordinates picked, the rest transposed into loop order and broadcast
    along the loops it does not use); otherwise a gather.
    """
    dims = [expr.position if isinstance(expr, AffineDimExpr) else -1 for expr in map_.results]
    if -1 in dims or len(set(dims)) != len(dims):
        return value[_subscript(map_, coords)]
    kept = [d for d in dims if d in parallel]
    view = value[tuple(slice(None) if d in parallel else coords[d] for d in dims)]
    view = view.transpose(sorted(range(len(kept)), key=lambda axis: parallel.index(kept[axis])))
    missing = tuple(axis for axis, d in enumerate(parallel) if d not in kept)
    return np.expand_dims(view, missing) if missing else view


def _loop_sizes(op: Operation, maps: Sequence[AffineMap], operands: Sequence[Any]) -> list[int]:
    """Each loop's trip count, from the first operand dimension indexed by that loop alone."""
    sizes: list[int | None] = [None] * maps[0].num_dims
    for value, map_ in zip(operands, maps, strict=True):
        if not isinstance(value, np.ndarray):
            continue
        for position, expr in enumerate(map_.results):
            if isinstance(expr, AffineDimExpr) and sizes[expr.position] is None:
                sizes[expr.position] = int(cast(Array, value).shape[position])
    if any(size is None for size in sizes):
        raise RunError("a loop's trip count is not the size of any operand dimension", op)
    return cast(list[int], sizes)


@register_impls
class LinalgFunctions(InterpreterFunctions):
    """linalg, tensor, util, hal and flow ops, as IREE's Flow pipeline leaves them at any step."""

    def __init__(self) -> None:
        super().__init__()
        self.loops: list[list[Coordinate]] = []
        """The coordinates of the structured ops running, innermost last (``linalg.index`` reads them)."""

    # -- linalg -----------------------------------------------------------------

    def run_structured(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        """Any linalg structured op: its payload over its loops, vectorized over the parallel ones."""
        structured = cast(Any, op)
        count = len(structured.inputs)
        maps: list[AffineMap] = [m.data for m in structured.get_indexing_maps().data]
        iterators = cast(ArrayAttr[IteratorTypeAttr], structured.get_iterator_types())
        parallel = [d for d, it in enumerate(iterators.data) if it.data == IteratorType.PARALLEL]
        reduction = [d for d, it in enumerate(iterators.data) if it.data != IteratorType.PARALLEL]
        sizes = _loop_sizes(op, maps, args)
        grids: Sequence[Array] = list(np.indices([sizes[d] for d in parallel])) if parallel else []
        coords: list[Coordinate] = [0] * len(sizes)
        for grid, d in zip(grids, parallel, strict=True):
            coords[d] = grid
        outputs = [
            np.array(_array(value, init.type, op), copy=True)
            for value, init in zip(args[count:], structured.outputs, strict=True)
        ]
        out_maps = maps[count:]
        shape = tuple(sizes[d] for d in parallel)
        accumulators: list[Any] = [
            out[_subscript(m, coords)] for out, m in zip(outputs, out_maps, strict=True)
        ]
        body = structured.body
        self.loops.append(coords)
        try:
            for point in product(*(range(sizes[d]) for d in reduction)):
                for d, value in zip(reduction, point, strict=True):
                    coords[d] = value
                ins = [
                    _read(cast(Array, value), m, coords, parallel) if isinstance(value, np.ndarray) else value
                    for value, m in zip(args[:count], maps[:count], strict=True)
                ]
                yielded = interpreter.run_ssacfg_region(body, (*ins, *accumulators), op.name)
                accumulators = [
                    np.broadcast_to(np.asarray(v).astype(out.dtype, copy=False), shape)
                    for v, out in zip(yielded, outputs, strict=True)
                ]
        finally:
            self.loops.pop()
        for out, m, value in zip(outputs, out_maps, accumulators, strict=True):
            out[_subscript(m, coords)] = value
        return tuple(outputs) if op.results else ()

    @impl(linalg.GenericOp)
    def run_generic(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return self.run_structured(interpreter, op, args)

    run_matmul = impl(linalg.MatmulOp)(run_structured)
    run_batch_matmul = impl(linalg.BatchMatmulOp)(run_structured)
    run_batch_matvec = impl(linalg.BatchMatvecOp)(run_structured)
    run_conv_nhwc = impl(linalg.Conv2DNhwcHwcfOp)(run_structured)
    run_conv_nchw = impl(linalg.Conv2DNchwFchwOp)(run_structured)
    run_depthwise = impl(linalg.DepthwiseConv2DNhwcHwcOp)(run_structured)
    run_depthwise_q = impl(linalg.DepthwiseConv2DNhwcHwcQOp)(run_structured)
    run_transpose = impl(linalg.TransposeOp)(run_structured)

    @impl(linalg.FillOp)
    def run_fill(self, interpreter: Interpreter, op: linalg.FillOp, args: PythonValues) -> PythonValues:
        init = op.outputs[0]
        out = _array(args[1], init.type, op)
        return (np.full(out.shape, np.asarray(args[0]).astype(out.dtype)),) if op.results else ()

    run_yield = returns_operands(YieldOp)

    @impl(IndexOp)
    def run_index(self, interpreter: Interpreter, op: IndexOp, args: PythonValues) -> PythonValues:
        if not self.loops:
            raise RunError("linalg.index outside a structured op", op)
        return (self.loops[-1][op.dim.value.data],)

    # -- tensor -----------------------------------------------------------------

    @impl(tensor.EmptyOp)
    def run_empty(self, interpreter: Interpreter, op: tensor.EmptyOp, args: PythonValues) -> PythonValues:
        type_ = op.tensor.type
        dynamic = iter(int(a) for a in args)
        shape = [next(dynamic) if size == DYNAMIC_INDEX else size for size in type_.get_shape()]
        return (np.zeros(shape, dtype=storage_dtype(type_, op)),)

    @impl(tensor.DimOp)
    def run_dim(self, interpreter: Interpreter, op: tensor.DimOp, args: PythonValues) -> PythonValues:
        return (np.asarray(args[0]).shape[int(args[1])],)

    @impl(tensor.CastOp)
    def run_cast(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (args[0],)

    @impl(tensor.ExtractOp)
    def run_extract(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        # Inside a payload the indices are arrays over the parallel loops: one gather reads them all.
        source = np.asarray(args[0])
        indices = tuple(np.asarray(i).astype(np.int64) for i in args[1:])
        for index, size in zip(indices, source.shape, strict=True):
            if np.any((index < 0) | (index >= size)):
                raise RunError(f"index out of bounds of {list(source.shape)}", op)
        return (source[indices],)

    @impl(tensor.CollapseShapeOp)
    def run_collapse(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (self._reshape(op, args[0]),)

    @impl(tensor.ExpandShapeOp)
    def run_expand(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (self._reshape(op, args[0]),)

    def _reshape(self, op: Operation, value: Any) -> Array:
        """A collapse or expand: the same elements in row-major order, in the result's shape."""
        type_ = cast(TensorType[Attribute], op.results[0].type)
        shape = [-1 if size == DYNAMIC_INDEX else size for size in type_.get_shape()]
        if shape.count(-1) > 1:
            raise RunError("a reshape with more than one dynamic dimension is not modelled", op)
        return np.asarray(value).reshape(shape)

    @impl(tensor.ExtractSliceOp)
    def run_extract_slice(
        self, interpreter: Interpreter, op: tensor.ExtractSliceOp, args: PythonValues
    ) -> PythonValues:
        return _extract(interpreter, op, args[0])

    @impl(tensor.InsertSliceOp)
    def run_insert_slice(
        self, interpreter: Interpreter, op: tensor.InsertSliceOp, args: PythonValues
    ) -> PythonValues:
        dest = np.array(args[1], copy=True)
        _insert(interpreter, op, args[0], dest)
        return (dest,)

    @impl(tensor.PadOp)
    def run_pad(self, interpreter: Interpreter, op: tensor.PadOp, args: PythonValues) -> PythonValues:
        low = _mixed(interpreter, op.static_low, op.low)
        high = _mixed(interpreter, op.static_high, op.high)
        source = np.asarray(args[0])
        block = op.region.blocks.first
        if block is None:
            raise RunError("tensor.pad without a body", op)
        (value,) = interpreter.run_ssacfg_region(op.region, tuple(0 for _ in block.args), "tensor.pad")
        if np.ndim(value) != 0:
            raise RunError("tensor.pad with a padding value that depends on the position is not modelled", op)
        pad_width = list(zip(low, high, strict=True))
        return (np.pad(source, pad_width, constant_values=np.asarray(value).astype(source.dtype)),)

    run_tensor_yield = returns_operands(tensor.YieldOp)

    # -- util, hal --------------------------------------------------------------

    run_util_return = returns_operands(util.ReturnOp)

    @impl(hal.TensorImportOp)
    def run_import(
        self, interpreter: Interpreter, op: hal.TensorImportOp, args: PythonValues
    ) -> PythonValues:
        type_ = op.target.type
        value = _array(args[0], type_, op)
        if DYNAMIC_INDEX not in type_.get_shape() and value.shape != tuple(type_.get_shape()):
            raise RunError(f"the buffer view holds {list(value.shape)}, not {list(type_.get_shape())}", op)
        return (value,)

    @impl(util.OptimizationBarrierOp)
    def run_barrier(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return args

    @impl(SetEncodingOp)
    def run_set_encoding(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        # An encoding says how a later phase may lay the tensor out; its elements stay the same.
        return (args[0],)

    @impl(UnsetEncodingOp)
    def run_unset_encoding(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (np.asarray(args[0]).reshape(_static_shape(op)),)

    @impl(check.ExpectEqOp)
    def run_expect_eq(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        if not np.array_equal(np.asarray(args[0]), np.asarray(args[1])):
            raise KernelAssertionError("check.expect_eq failed: the tensors differ", op)
        return ()

    @impl(check.ExpectAlmostEqOp)
    def run_expect_almost_eq(
        self, interpreter: Interpreter, op: check.ExpectAlmostEqOp, args: PythonValues
    ) -> PythonValues:
        # IREE's defaults: atol 1e-4, rtol 0.
        atol = op.atol.value.data if op.atol is not None else 1e-4
        rtol = op.rtol.value.data if op.rtol is not None else 0.0
        if not np.allclose(np.asarray(args[1]), np.asarray(args[0]), rtol=rtol, atol=atol):
            raise KernelAssertionError("check.expect_almost_eq failed: the tensors differ", op)
        return ()

    @impl(hal.TensorExportOp)
    def run_export(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (args[0],)

    # -- flow -------------------------------------------------------------------

    run_flow_return = returns_operands(flow.ReturnOp)

    run_region = runs_first_region(flow.DispatchRegionOp)

    @impl(flow.DispatchWorkgroupsOp)
    def run_workgroups(
        self, interpreter: Interpreter, op: flow.DispatchWorkgroupsOp, args: PythonValues
    ) -> PythonValues:
        holders, outputs = _dispatch_arguments(interpreter, op, op.arguments, op.tied_operands)
        interpreter.run_ssacfg_region(op.workgroup_body, tuple(holders), "flow.dispatch.workgroups")
        return _dispatch_results(op, holders, outputs, op.tied_operands)

    @impl(flow.DispatchOp)
    def run_dispatch(self, interpreter: Interpreter, op: flow.DispatchOp, args: PythonValues) -> PythonValues:
        function = _export_function(interpreter, op)
        holders, outputs = _dispatch_arguments(interpreter, op, op.arguments, op.tied_operands)
        kernel_state(interpreter).call(function, tuple(holders), op)
        return _dispatch_results(op, holders, outputs, op.tied_operands)

    @impl(DispatchTensorLoadOp)
    def run_load(
        self, interpreter: Interpreter, op: DispatchTensorLoadOp, args: PythonValues
    ) -> PythonValues:
        return _extract(interpreter, op, _dispatch_tensor(args[0], op, "loads from").data)

    @impl(DispatchTensorStoreOp)
    def run_store(
        self, interpreter: Interpreter, op: DispatchTensorStoreOp, args: PythonValues
    ) -> PythonValues:
        _insert(interpreter, op, args[0], _dispatch_tensor(args[1], op, "stores into").data)
        return ()


def _static_shape(op: Operation) -> tuple[int, ...]:
    """The shape of ``op``'s first result, which must be static."""
    type_ = op.results[0].type
    if not isinstance(type_, TensorType) or DYNAMIC_INDEX in type_.get_shape():
        raise RunError("a result of dynamic shape is not modelled here", op)
    return tuple(type_.get_shape())


def _mixed(interpreter: Interpreter, static: Any, dynamic: Sequence[SSAValue]) -> list[int]:
    """Static values with ``DYNAMIC_INDEX`` taken in order from ``dynamic``'s runtime values."""
    values = iter(int(v) for v in interpreter.get_values(tuple(dynamic)))
    return [next(values) if value == DYNAMIC_INDEX else int(value) for value in static.get_values()]


def _slices(interpreter: Interpreter, op: Any) -> tuple[slice, ...]:
    """The numpy index of an op's offsets, sizes and strides (static, or its dynamic operands)."""
    starts = _mixed(interpreter, op.static_offsets, op.offsets)
    counts = _mixed(interpreter, op.static_sizes, op.sizes)
    steps = _mixed(interpreter, op.static_strides, op.strides)
    return tuple(
        slice(start, start + count * step, step)
        for start, count, step in zip(starts, counts, steps, strict=True)
    )


def _extract(interpreter: Interpreter, op: Operation, source: Any) -> PythonValues:
    """The window of ``source`` that ``op``'s offsets, sizes and strides cut, in the shape of
    ``op``'s result: ``tensor.extract_slice``, ``iree_tensor_ext.dispatch.tensor.load``."""
    result = cast(TensorType[Attribute], op.results[0].type)
    return (np.array(np.asarray(source)[_slices(interpreter, op)]).reshape(result.get_shape()),)


def _insert(interpreter: Interpreter, op: Operation, value: Any, dest: Array) -> None:
    """Write ``value`` into the window of ``dest`` that ``op``'s offsets, sizes and strides cut:
    ``tensor.insert_slice``, ``iree_tensor_ext.dispatch.tensor.store``."""
    index = _slices(interpreter, op)
    dest[index] = np.asarray(value).reshape(dest[index].shape)


def _dispatch_tensor(holder: Any, op: Operation, verb: str) -> DispatchTensor:
    """``holder``, the dispatch tensor ``op`` loads from or stores into."""
    if not isinstance(holder, DispatchTensor):
        raise RunError(f"{verb} something that is not a dispatch tensor", op)
    return holder


def _dispatch_arguments(
    interpreter: Interpreter, op: Operation, arguments: Sequence[SSAValue], tied: ArrayAttr[Any] | None
) -> tuple[list[Any], list[DispatchTensor]]:
    """A dispatch's block (or function) arguments: each tensor copied into a ``DispatchTensor``,
    other values as they are, then a fresh output for each result written to no argument."""
    holders: list[Any] = []
    for value, runtime in zip(arguments, interpreter.get_values(tuple(arguments)), strict=True):
        type_: Attribute = value.type
        if isinstance(type_, TensorType):
            holders.append(DispatchTensor(np.array(_array(runtime, value.type, op), copy=True)))
        else:
            holders.append(runtime)
    outputs: list[DispatchTensor] = []
    for index, result in enumerate(op.results):
        if _tied(tied, index) >= 0:
            continue
        type_ = cast(TensorType[Attribute], result.type)
        if DYNAMIC_INDEX in type_.get_shape():
            raise RunError("a dispatch result of dynamic shape is not modelled", op)
        outputs.append(DispatchTensor(np.zeros(type_.get_shape(), dtype=storage_dtype(type_, op))))
    holders.extend(outputs)
    return holders, outputs


def _tied(tied: ArrayAttr[Any] | None, index: int) -> int:
    return -1 if tied is None else int(tied.data[index].value.data)


def _dispatch_results(
    op: Operation, holders: Sequence[Any], outputs: Sequence[DispatchTensor], tied: ArrayAttr[Any] | None
) -> PythonValues:
    fresh = iter(outputs)
    results: list[Array] = []
    for index, result in enumerate(op.results):
        source = _tied(tied, index)
        holder = holders[source] if source >= 0 else next(fresh)
        results.append(as_type(holder.data, result.type, op))
    return tuple(results)


def _export_function(interpreter: Interpreter, op: flow.DispatchOp) -> Operation:
    """The function ``op`` dispatches: the export's function in its executable's inner module."""
    entry = op.entry_points.data[0]
    executable_name = entry.root_reference.data
    export = entry.nested_references.data[-1].data if entry.nested_references.data else executable_name
    for candidate in interpreter.module.ops:
        if not isinstance(candidate, flow.ExecutableOp) or candidate.sym_name.data != executable_name:
            continue
        exports = [e for e in candidate.walk() if isinstance(e, flow.ExecutableExportOp)]
        function = next(
            (e.function_ref.root_reference.data for e in exports if e.sym_name.data == export), export
        )
        for inner in candidate.walk():
            name = inner.properties.get("sym_name") or inner.attributes.get("sym_name")
            if inner.name == "func.func" and isinstance(name, StringAttr) and name.data == function:
                return inner
    raise RunError(f"no function @{export} in flow.executable @{executable_name}", op)
