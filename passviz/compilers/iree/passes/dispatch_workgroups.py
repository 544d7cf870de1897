"""``iree-dispatch-creation-convert-dispatch-regions-to-workgroups``: IREE 3.13's
``ConvertDispatchRegionsToWorkgroupsPass`` (``rewriteFlowDispatchRegionToFlowDispatchWorkgroups``
in ``Flow/Transforms/ConvertRegionToWorkgroups.cpp``).

Each ``flow.dispatch.region`` becomes a ``flow.dispatch.workgroups``, isolated
from above: every value the region used from outside becomes an argument
(tensors first seen first, then the tensors' dynamic dimensions, then the
dimensions of the results that write no argument in place); a tensor argument
arrives as an ``!iree_tensor_ext.dispatch.tensor`` the body loads whole, and
each result leaves through a store into its output argument.  A result that is
an argument written in place (followed through linalg ``outs`` and
``tensor.insert_slice``) is *tied*: the argument becomes ``readwrite`` and no
output argument is made.  A count region moves over, its constants cloned in.

One step per region, ``ConvertDispatchRegionToWorkgroups``, rooted at the
region; its ``dispatch`` field lists every dispatch op's members afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from passviz.compilers.iree.dialects import flow
from passviz.compilers.iree.dialects.iree_tensor_ext import (
    DispatchTensorLoadOp,
    DispatchTensorStoreOp,
    DispatchTensorType,
)
from passviz.compilers.iree.passes.dispatch_common import (
    dispatch_regions,
    dps_inits,
    dynamic_count,
    find_dynamic_dims,
    is_inside,
    replace_uses_within,
    tied_operand,
    used_values_defined_above,
)
from passviz.compilers.iree.passes.pattern_pass import IreePatternPass
from passviz.compilers.mlir.canonicalization.builders import dim_ops
from passviz.compilers.mlir.passes.canonicalize import CanonicalizationTables
from passviz.compilers.mlir.version import behaves_as_iree
from passviz.ir.hints import isa
from passviz.ir.locations import located
from passviz.recording.interface import StepRecorder, TracedPass
from passviz.rewrite.greedy import CANONICALIZE, PatternSource

STEP = "ConvertDispatchRegionToWorkgroups"
"""The step that turns one dispatch region into workgroups."""


@dataclass(frozen=True)
class ConvertDispatchRegionsToWorkgroups(TracedPass):
    """Turn each ``flow.dispatch.region`` into an isolated ``flow.dispatch.workgroups``."""

    name = "iree-dispatch-creation-convert-dispatch-regions-to-workgroups"

    @behaves_as_iree
    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        regions = [inner for inner in op.walk() if isinstance(inner, flow.DispatchRegionOp)]
        for region in regions:
            if not region.body.blocks:
                raise PassFailedException(
                    located(region, "failed to convert dispatch.region op to dispatch.workgroup op")
                )
            with recorder.step(STEP, region, full=True, dispatch=lambda: dispatch_regions(op)):
                convert_region(region)


def append_dynamic_dims(value: SSAValue, before: Operation, dims: list[SSAValue]) -> None:
    """IREE's ``appendDynamicDims``: ``value``'s dynamic dimensions from a shape-aware
    producer, else new ``tensor.dim`` ops (each after its index constant) before ``before``."""
    found = find_dynamic_dims(value)
    if found is not None:
        dims.extend(found)
        return
    ops, sizes = dim_ops(value)
    Rewriter.insert_op(ops, InsertPoint.before(before))
    dims.extend(sizes)


def dims_in_list(
    index: int, arguments: Sequence[SSAValue], argument_dims: Sequence[SSAValue]
) -> list[SSAValue]:
    """IREE's ``findDynamicDimsInList``: the dimensions of ``arguments[index]`` among ``argument_dims``."""
    start = sum(dynamic_count(a.type) for a in arguments[:index])
    return list(argument_dims[start : start + dynamic_count(arguments[index].type)])


def _tied_outside(region: flow.DispatchRegionOp, value: SSAValue) -> SSAValue | None:
    """The first value outside ``region`` that ``value`` writes in place, following ties."""
    current: SSAValue | None = value
    while current is not None and is_inside(current, region):
        current = tied_operand(current)
    return current


def _make_count_isolated(count: Region) -> None:
    """MLIR's ``makeRegionIsolatedFromAbove`` for constants: clone the constants the region uses into it."""
    block = count.blocks.first
    if block is None:
        return
    holder = count.parent_op()
    assert holder is not None
    for value in used_values_defined_above(count, holder):
        if not isinstance(value.owner, arith.ConstantOp):
            continue
        clone = value.owner.clone()
        first = block.first_op
        if first is None:
            block.add_op(clone)
        else:
            block.insert_op_before(clone, first)
        replace_uses_within(value, clone.result, holder)


def convert_region(region: flow.DispatchRegionOp) -> flow.DispatchWorkgroupsOp:
    """Rewrite ``region`` into a ``flow.dispatch.workgroups`` (the steps of IREE's rewrite, in its order)."""
    body = region.body
    captured = used_values_defined_above(body, region)
    argument_dims: list[SSAValue] = []
    for value in captured:
        if isa(value.type, TensorType[Attribute]):
            append_dynamic_dims(value, region, argument_dims)

    result_count = len(region.results)
    tied = [-1] * result_count
    terminators = [inner for inner in body.walk() if isinstance(inner, flow.ReturnOp)]
    if len(body.blocks) == 1 and terminators:
        seen: set[SSAValue] = set()
        for index, returned in enumerate(terminators[0].operands):
            outside = _tied_outside(region, returned)
            if outside is None or outside in seen or outside not in captured:
                continue
            seen.add(outside)
            tied[index] = captured.index(outside)

    for value in [*captured, *region.results]:
        if isa(value.type, TensorType[Attribute]) and isinstance(value.type.get_element_type(), IndexType):
            # IREE's verifier of flow.dispatch.workgroups refuses them: index widths are per device.
            raise PassFailedException(
                located(
                    region,
                    f"flow.dispatch.workgroups I/O type '{value.type}' is invalid: "
                    "index types must not cross the dispatch boundary",
                )
            )
    result_dims = list(region.result_dims)
    arguments = [*captured, *argument_dims]
    for index in range(result_count):
        if tied[index] < 0:
            arguments.extend(_result_dims(region, index))

    # The body: one argument per argument (a dispatch tensor for a tensor), one per untied result.
    arg_types: list[Attribute] = []
    for position, value in enumerate(arguments):
        if isa(value.type, TensorType[Attribute]):
            access = "readwrite" if position in tied else "readonly"
            arg_types.append(DispatchTensorType(StringAttr(access), value.type))
        else:
            arg_types.append(value.type)
    for index, result in enumerate(region.results):
        if tied[index] < 0:
            arg_types.append(DispatchTensorType(StringAttr("writeonly"), result.type))
    entry = Block(arg_types=arg_types)
    workgroups = flow.DispatchWorkgroupsOp(
        list(region.workload),
        arguments,
        argument_dims,
        list(region.result.types),
        result_dims,
        tied,
        Region(entry),
    )
    workgroups.attributes |= {k: v for k, v in region.attributes.items() if "." in k}
    Rewriter.insert_op(workgroups, InsertPoint.before(region))

    if region.workgroup_count.blocks:
        count = region.workgroup_count
        region.detach_region(count)
        workgroups.detach_region(workgroups.workgroup_count)
        workgroups.add_region(count)
        _make_count_isolated(count)

    # Later mappings win, as in IRMapping: a value passed twice maps to its last argument.
    mapping: dict[SSAValue, SSAValue] = {}
    for position, value in enumerate(arguments):
        mapping[value] = entry.args[position]
    for position, value in enumerate(arguments):
        if not isa(value.type, TensorType[Attribute]):
            continue
        dims = [mapping[d] for d in dims_in_list(position, arguments, argument_dims)]
        load = _full_load(entry.args[position], dims, value.type)
        entry.add_op(load)
        mapping[value] = load.result

    # Move the body in: the region's entry block merges into the new entry, after the loads.
    blocks = list(body.blocks)
    first = blocks[0]
    for inner in list(first.ops):
        inner.detach()
        entry.add_op(inner)
    for block in blocks[1:]:
        body.detach_block(block)
        workgroups.workgroup_body.add_block(block)
    body.detach_block(first)
    for value in arguments:
        target = mapping[value]
        replace_uses_within(value, target, workgroups)

    outputs = _output_args(workgroups, tied, len(captured) + len(argument_dims) + _untied_dims(region, tied))
    returns = [inner for inner in workgroups.workgroup_body.walk() if isinstance(inner, flow.ReturnOp)]
    for terminator in returns:
        block = terminator.parent_block()
        assert block is not None
        for index, returned in enumerate(terminator.operands):
            if tied[index] < 0:
                dims = [mapping[d] for d in _result_dims(region, index)]
            else:
                dims = [mapping[d] for d in dims_in_list(tied[index], arguments, argument_dims)]
            store = _full_store(returned, outputs[index], dims)
            block.insert_op_before(store, terminator)
        block.insert_op_before(flow.ReturnOp(), terminator)
        terminator.detach()
        terminator.erase()

    for old, new in zip(region.results, workgroups.results, strict=True):
        old.replace_all_uses_with(new)
    region.detach()
    region.erase()
    return workgroups


def _untied_dims(region: flow.DispatchRegionOp, tied: Sequence[int]) -> int:
    return sum(len(_result_dims(region, index)) for index in range(len(tied)) if tied[index] < 0)


def _result_dims(region: flow.DispatchRegionOp, index: int) -> list[SSAValue]:
    """The dynamic dimensions of the region's result ``index``."""
    start = sum(dynamic_count(r.type) for r in region.results[:index])
    return list(region.result_dims[start : start + dynamic_count(region.results[index].type)])


def _output_args(workgroups: flow.DispatchWorkgroupsOp, tied: Sequence[int], inputs: int) -> list[SSAValue]:
    """IREE's ``getOutputBlockArgument`` per result: the tied input's argument, else the next output's."""
    entry = workgroups.workgroup_body.blocks.first
    assert entry is not None
    found: list[SSAValue] = []
    next_output = inputs
    for tie in tied:
        if tie >= 0:
            found.append(entry.args[tie])
        else:
            found.append(entry.args[next_output])
            next_output += 1
    return found


def _slice(shape: Sequence[int], dims: Sequence[SSAValue]) -> tuple[list[list[SSAValue]], list[list[int]]]:
    """A whole-tensor slice: zero offsets, the shape as sizes (``dims`` where dynamic), unit strides."""
    return [[], list(dims), []], [[0] * len(shape), list(shape), [1] * len(shape)]


def _full_load(
    source: SSAValue, dims: Sequence[SSAValue], type_: TensorType[Attribute]
) -> DispatchTensorLoadOp:
    shape = list(type_.get_shape())
    dynamic, static = _slice(shape, dims)
    return DispatchTensorLoadOp(source, dims, dynamic, static, type_)


def _full_store(value: SSAValue, target: SSAValue, dims: Sequence[SSAValue]) -> DispatchTensorStoreOp:
    assert isa(value.type, TensorType[Attribute])
    shape = list(value.type.get_shape())
    dynamic, static = _slice(shape, dims)
    return DispatchTensorStoreOp(value, target, dims, dynamic, static)


class ClosureOptimization(RewritePattern):
    """IREE's ``ClosureOptimizationPattern<DispatchWorkgroupsOp>`` (constant inlining off, as
    IREE 3.13 sets it): drop arguments the body never uses, pass a value given twice once."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: flow.DispatchWorkgroupsOp, rewriter: PatternRewriter) -> None:
        entry = op.workgroup_body.blocks.first
        if entry is None:
            return
        kept: list[int] = []
        first_arg: dict[SSAValue, int] = {}
        replace: dict[int, int] = {}
        for position, value in enumerate(op.arguments):
            if not entry.args[position].uses:
                continue
            if value in first_arg:
                replace[position] = first_arg[value]
                continue
            first_arg[value] = position
            kept.append(position)
        if len(kept) == len(op.arguments):
            return
        for position, target in replace.items():
            rewriter.replace_all_uses_with(entry.args[position], entry.args[target])
        arguments = list(op.arguments)
        dims = list(op.argument_dims)
        new_arguments = [arguments[p] for p in kept]
        new_dims = [d for p in kept for d in dims_in_list(p, arguments, dims)]
        ties = op.tied_operands
        old_tied = [t.value.data for t in ties.data] if ties is not None else [-1] * len(op.results)
        tied = [kept.index(t) if t >= 0 else -1 for t in old_tied]
        for position in reversed(range(len(arguments))):
            if position not in kept:
                rewriter.erase_block_argument(entry.args[position])
        body = rewriter.move_region_contents_to_new_regions(op.workgroup_body)
        count = rewriter.move_region_contents_to_new_regions(op.workgroup_count)
        new = flow.DispatchWorkgroupsOp(
            list(op.workload),
            new_arguments,
            new_dims,
            list(op.result.types),
            list(op.result_dims),
            tied,
            body,
            count,
        )
        new.attributes |= op.attributes
        rewriter.replace(op, new)


class EraseDeadLinalgOp(RewritePattern):
    """A linalg op on tensors whose results no one uses goes: MLIR gives such ops no memory
    effects, so its greedy driver erases them as trivially dead (xDSL's ``linalg`` ops do not say so)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        inits = dps_inits(op)
        if inits is None or not op.results or any(result.uses for result in op.results):
            return
        if not all(isa(init.type, TensorType[Attribute]) for init in inits):
            return
        rewriter.erase(op)


def _mixed(static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[SSAValue | int]:
    """MLIR's ``getMixedValues``: each static entry, or the next dynamic value where it is ``?``."""
    values = iter(dynamic)
    return [next(values) if v == DYNAMIC_INDEX else v for v in static]


class MergeConsecutiveExtractSlice(RewritePattern):
    """MLIR's ``MergeConsecutiveExtractSlice`` (which IREE's flow canonicalizer adds): a slice of
    a slice reads the first slice's source at the summed offsets.  Only unit strides and
    static offsets, without rank reduction: other slices stay."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tensor.ExtractSliceOp):
            return
        producer = op.source.owner
        if not isinstance(producer, tensor.ExtractSliceOp):
            return
        slices = (producer, op)
        if any(s.offsets or s.strides or set(s.static_strides.get_values()) - {1} for s in slices):
            return
        source, middle = producer.source.type, producer.result.type
        if not isa(source, TensorType[Attribute]) or not isa(middle, TensorType[Attribute]):
            return
        if len(source.get_shape()) != len(middle.get_shape()):
            return
        offsets = [
            a + b
            for a, b in zip(producer.static_offsets.get_values(), op.static_offsets.get_values(), strict=True)
        ]
        sizes = _mixed(op.static_sizes.get_values(), op.sizes)
        merged = tensor.ExtractSliceOp(producer.source, offsets, sizes, [1] * len(offsets), op.result.type)
        rewriter.replace(op, merged)


def _usable_at(value: SSAValue, op: Operation) -> bool:
    """IREE's ``isValueUsableForOp``: ``value`` is defined where ``op`` may use it (a block
    argument of ``op``'s block or an enclosing one, or an op before ``op`` or before the op
    holding it in that block)."""
    holder: Operation | None = op
    while holder is not None:
        block = holder.parent_block()
        if block is None:
            return False
        if value.owner is block:
            return True
        defining = value.owner
        if isinstance(defining, Operation) and defining.parent_block() is block:
            return block.get_operation_index(defining) < block.get_operation_index(holder)
        holder = block.parent_op()
    return False


def _operand_dims(user: Operation, index: int) -> list[SSAValue] | None:
    """``ShapeAwareOpInterface::getOperandDynamicDims``: the dimensions a dispatch or a shape
    tie gives its operand ``index`` (None for other ops and other operands)."""
    if isinstance(user, flow.DispatchWorkgroupsOp | flow.DispatchOp):
        arguments = list(user.arguments)
        start = len(user.workload)
        if not start <= index < start + len(arguments):
            return None
        return dims_in_list(index - start, arguments, list(user.argument_dims))
    if isinstance(user, flow.TensorTieShapeOp) and index == 0:
        return list(user.dynamic_dims)
    return None


class ResolveShapedDim(RewritePattern):
    """IREE's ``ResolveShapedDim`` (a flow canonicalization of ``tensor.dim``): the dimension is
    one a shape-aware op already holds: up the value's tied chain, else one a dispatch or shape
    tie using the value was given, where it is usable."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tensor.DimOp) or not isinstance(op.index.owner, arith.ConstantOp):
            return
        index = op.index.owner.value
        source = op.source.type
        if not isinstance(index, IntegerAttr) or not isa(source, TensorType[Attribute]):
            return
        shape = source.get_shape()
        position = index.value.data
        if not 0 <= position < len(shape) or shape[position] != DYNAMIC_INDEX:
            return
        dims = find_dynamic_dims(op.source)
        if dims is None:
            for use in op.source.uses:
                found = _operand_dims(use.operation, use.index)
                if found is not None and all(_usable_at(d, op) for d in found):
                    dims = found
                    break
        if dims is None:
            return
        offset = sum(1 for size in shape[:position] if size == DYNAMIC_INDEX)
        rewriter.replace(op, [], [dims[offset]])


def flow_patterns(tables: CanonicalizationTables) -> Callable[[Operation], Sequence[RewritePattern]]:
    """The canonicalizer's patterns with IREE's closure optimization, its dimension resolution,
    MLIR's slice merging (which IREE's flow canonicalizer adds) and dead linalg ops erased."""
    closure = (ClosureOptimization(),)
    dead = (EraseDeadLinalgOp(),)
    resolve = (ResolveShapedDim(),)
    merge = (MergeConsecutiveExtractSlice(),)

    def patterns(inner: Operation) -> Sequence[RewritePattern]:
        if isinstance(inner, flow.DispatchWorkgroupsOp):
            return closure
        if isinstance(inner, tensor.ExtractSliceOp):
            return (*merge, *tables.patterns(inner))
        if isinstance(inner, tensor.DimOp):
            return (*resolve, *tables.patterns(inner))
        if dps_inits(inner) is not None:
            return (*dead, *tables.patterns(inner))
        return tables.patterns(inner)

    return patterns


@dataclass(frozen=True)
class FlowCanonicalize(IreePatternPass, config=CANONICALIZE):
    """IREE's ``iree-flow-canonicalize``: the canonicalizer with flow's own patterns."""

    name = "iree-flow-canonicalize"

    def patterns(self, ctx: Context) -> PatternSource:
        return flow_patterns(CanonicalizationTables())
