"""``iree-dispatch-creation-elementwise-op-fusion``: IREE 3.13's ``ElementwiseOpFusionPass``
(``DispatchCreation/ElementwiseOpFusion.cpp``) on MLIR's linalg elementwise fusion.

A ``linalg.generic`` whose input is produced by an all-parallel generic takes
the producer's computation into its own body (``FuseElementwiseOps``): the
producer's inputs become the consumer's, their maps composed through the
producer's result map, and the producer's payload runs before the consumer's.
IREE's control function decides which producers fuse
(``areFusableAsElementwiseOps``): copies and ``i1`` producers always, others
only with one use, never a truncation into a consumer that needs more, nor
anything into a contraction or convolution.  MLIR's clean-up patterns of the
same set run with it: fills and splat constants folded into the payload,
``outs`` the payload does not read replaced by ``tensor.empty``, and dead or
duplicate operands dropped.

Once the fusion settles, each pair MLIR's pattern would fuse but IREE's control
function refuses is a ``NoFusion`` step naming the producer (by its payload), the
consumer's input it feeds, and the reason.

IREE's ``GatherFusionPattern`` runs first: a bit extension or transpose read
through ``tensor.extract`` inside a generic is computed in place of the extract.

Not modelled: a producer ``linalg.index`` whose loop is no plain dimension of
the fused op (MLIR's ``affine.apply`` that does not fold), fills of another element type folded into
a payload (``convertScalarToDtype``), and the second phase, which folds
transposes into ``iree_linalg_ext`` ops passviz does not have.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import BroadcastOp, FillOp, IndexOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from passviz.compilers.iree.dialects import flow
from passviz.compilers.iree.passes.detach_elementwise import is_contraction
from passviz.compilers.iree.passes.dispatch_common import record_no_fusion
from passviz.compilers.iree.passes.pattern_pass import IreePatternPass
from passviz.compilers.iree.structured import is_convolution
from passviz.compilers.mlir.canonicalization.builders import dim_ops
from passviz.compilers.mlir.dialects.linalg import GenericOp
from passviz.ir.hints import isa
from passviz.recording.interface import StepRecorder
from passviz.rewrite.greedy import GreedyConfig
from passviz.rewrite.matchers import int_or_float_width
from passviz.rewrite.patterns import RootedPattern

MAX_OPERANDS = 16
"""IREE's ``kIreeMaxOperandCount``: a fused op may not bind more operands (backend binding limits)."""

NO_LIMIT = GreedyConfig(max_iterations=1_000_000)
"""``GreedyRewriteConfig`` with ``kNoLimit`` iterations, as the pass sets it."""

# -- Structured-op queries (LinalgOp's interface methods) ------------------------------------


def _maps(op: GenericOp) -> list[AffineMap]:
    return [m.data for m in op.indexing_maps.data]


def _loops(op: GenericOp) -> int:
    return _maps(op)[0].num_dims


def _parallel_loops(op: LinalgStructuredOperation) -> int:
    return sum(1 for it in op.get_iterator_types().data if it.data == IteratorType.PARALLEL)


def _all_parallel(op: LinalgStructuredOperation) -> bool:
    return _parallel_loops(op) == len(op.get_iterator_types().data)


def _payload_uses(op: GenericOp, operand_number: int) -> bool:
    """``payloadUsesValueFromOperand``: the block argument of the operand has uses."""
    return bool(op.body.block.args[operand_number].uses)


def _concat(maps: Sequence[AffineMap], dims: int) -> AffineMap:
    return AffineMap(dims, 0, tuple(result for m in maps for result in m.results))


def _invertible(maps: Sequence[AffineMap], dims: int) -> bool:
    """``inversePermutation(concatAffineMaps(maps))`` is not null: every loop is some operand's dimension."""
    return _concat(maps, dims).inverse_permutation() is not None


def _is_permutation(map_: AffineMap) -> bool:
    return map_.is_projected_permutation() and len(map_.results) == map_.num_dims


def _tensor_type(value: SSAValue) -> TensorType[Attribute] | None:
    type_ = value.type
    return type_ if isa(type_, TensorType[Attribute]) else None


def _count(uses: Iterable[object]) -> int:
    """How many uses (xDSL's ``IRUses`` has no ``len``)."""
    return sum(1 for _ in uses)


def outside_dispatch(op: Operation) -> bool:
    """``isNonNullAndOutsideDispatch``: no dispatch region or workgroups op encloses ``op``."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, flow.DispatchRegionOp | flow.DispatchWorkgroupsOp):
            return False
        parent = parent.parent_op()
    return True


# -- IREE's op classification (LinalgExt/Utils) ----------------------------------------------


def bit_width_change(op: Operation) -> str | None:
    """IREE's ``isBitExtendOrTruncateOp``: ``"extend"``, ``"truncate"`` or None."""
    if not isinstance(op, GenericOp) or len(op.outputs) != 1 or not _all_parallel(op):
        return None
    ranked = [(len(t.get_shape()), t) for v in op.inputs if (t := _tensor_type(v)) is not None]
    top = max((rank for rank, _ in ranked), default=0)
    if top == 0:
        return None
    widest: int | None = None
    for rank, type_ in ranked:
        if rank != top:
            continue
        width = int_or_float_width(type_.element_type)
        if width is None:
            return None
        widest = width if widest is None else max(widest, width)
    result = _tensor_type(op.res[0]) if op.res else None
    out_width = int_or_float_width(result.element_type) if result is not None else None
    if widest is None or result is None or out_width is None:
        return None
    if widest < out_width:
        if any(o.dialect_name() == "math" for o in op.body.block.ops):
            return None
        return "extend"
    if out_width < widest and top == len(result.get_shape()):
        return "truncate"
    return None


def _is_broadcasting(op: Operation) -> bool:
    """IREE's ``isBroadcastingOp``: ``linalg.broadcast`` or a one-in, one-out copy that adds dimensions."""
    if isinstance(op, BroadcastOp):
        return True
    if not isinstance(op, GenericOp) or len(op.inputs) != 1 or len(op.outputs) != 1 or not _all_parallel(op):
        return False
    in_map, out_map = _maps(op)
    if len(in_map.results) >= len(out_map.results):
        return False
    if not in_map.is_projected_permutation() or out_map != AffineMap.identity(out_map.num_dims):
        return False
    return len(op.body.block.ops) == 1


def fusion_refusal(producer: Operation, consumer: Operation, operand_number: int) -> str | None:
    """Why IREE's control function refuses to fuse ``producer`` into ``consumer``
    through operand ``operand_number``, or None where it fuses."""
    if not outside_dispatch(producer) or not outside_dispatch(consumer):
        return "inside a dispatch region"
    operands = set(producer.operands)
    operands.update(v for i, v in enumerate(consumer.operands) if i != operand_number)
    if len(operands) >= MAX_OPERANDS:
        return f"the fused op would bind {len(operands)} operands (IREE's limit is {MAX_OPERANDS})"
    return _not_fusable_as_elementwise(producer, consumer, operand_number)


def _i1(type_: Attribute) -> bool:
    element = type_.element_type if isa(type_, TensorType[Attribute]) else type_
    return isa(element, IntegerType) and element.width.data == 1


def _not_fusable_as_elementwise(producer: Operation, consumer: Operation, operand_number: int) -> str | None:
    """IREE's ``areFusableAsElementwiseOps`` (the pass's default options), as a refusal reason."""
    if all(_i1(r.type) for r in producer.results):
        return None
    body = producer.regions[0].block
    if body.first_op is not None and body.first_op is body.last_op:
        return None  # just a copy
    if not isinstance(consumer, LinalgStructuredOperation):
        return "the consumer is not a linalg op"
    if _all_parallel(consumer) and all(not arg.uses for arg in body.args):
        return None
    if sum(_count(r.uses) for r in producer.results) != 1:
        return "the producer has other users"
    if _is_broadcasting(consumer):
        return "the consumer broadcasts"
    if bit_width_change(consumer) == "extend" and sum(_count(r.uses) for r in consumer.results) != 1:
        return "the consumer is a bit extension with several users"
    if bit_width_change(producer) == "truncate":
        if bit_width_change(consumer) == "extend":
            return "a truncation never fuses into an extension"
        unary = _all_parallel(consumer) and len(consumer.inputs) == 1
        if bit_width_change(consumer) != "truncate" and not unary:
            return "a truncation fuses only into a unary elementwise op or another truncation"
    if not _all_parallel(consumer):
        maps = [m.data for m in consumer.get_indexing_maps().data]
        if not _is_permutation(maps[operand_number]):
            return "the reduction consumer reads the producer through a broadcast"
        if is_contraction(consumer) or is_convolution(consumer):
            return "the consumer is a contraction or convolution"
    return None


# -- MLIR's elementwise fusion ---------------------------------------------------------------


def _producer_operand_map(
    producer: GenericOp, operand_number: int, result_map: AffineMap, consumer_map: AffineMap
) -> AffineMap:
    """``getIndexingMapOfProducerOperandsInCoordinatesOfFusedOp``."""
    inverse = result_map.inverse_permutation()
    assert inverse is not None
    return _maps(producer)[operand_number].compose(inverse).compose(consumer_map)


def are_elementwise_ops_fusable(consumer: GenericOp, operand_number: int) -> bool:
    """MLIR's ``areElementwiseOpsFusable``."""
    value = consumer.operands[operand_number]
    producer = value.owner
    if not isinstance(producer, GenericOp) or not isinstance(value, OpResult):
        return False
    if any(_tensor_type(v) is None for v in producer.outputs) or _tensor_type(value) is None:
        return False
    if not _all_parallel(producer) or operand_number >= len(consumer.inputs):
        return False
    consumer_map = _maps(consumer)[operand_number]
    if len(consumer_map.results) != _loops(producer):
        return False
    result_map = _maps(producer)[len(producer.inputs) + value.index]
    if not _is_permutation(result_map):
        return False
    if _all_parallel(consumer):
        return True
    covered: set[int] = set()
    for index, map_ in enumerate(_maps(consumer)):
        if consumer.operands[index] != value:
            covered.update(r.position for r in map_.results if isinstance(r, AffineDimExpr))
    for index in range(len(producer.inputs)):
        map_ = _producer_operand_map(producer, index, result_map, consumer_map)
        covered.update(r.position for r in map_.results if isinstance(r, AffineDimExpr))
    return covered == set(range(_loops(consumer)))


def _preserved_results(producer: GenericOp, consumer: GenericOp, operand_number: int) -> list[int]:
    """``getPreservedProducerResults``: the producer results the fused op must still yield."""
    ignored: set[tuple[int, int]] = {(1, operand_number)}
    preserved: list[int] = []
    for index, result in enumerate(producer.res):
        out_number = len(producer.inputs) + index
        ignored.add((0, out_number))
        maps = [
            m
            for side, op in enumerate((producer, consumer))
            for number, m in enumerate(_maps(op))
            if (side, number) not in ignored
        ]
        droppable = _invertible(maps, _loops(consumer)) if maps else _loops(consumer) == 0
        other_users = any(use.operation is not consumer for use in result.uses)
        if _payload_uses(producer, out_number) or not droppable or other_users:
            preserved.append(index)
            ignored.discard((0, out_number))
    return preserved


@dataclass(frozen=True)
class FusionResult:
    """MLIR's ``ElementwiseOpFusionResult``."""

    fused: GenericOp
    """The fused op, inserted before the consumer."""
    replacements: dict[SSAValue, SSAValue]
    """Each preserved producer result and each consumer result, with the fused op's result replacing it."""


def fuse_elementwise_ops(
    rewriter: PatternRewriter, consumer: GenericOp, operand_number: int
) -> FusionResult | None:
    """MLIR's ``fuseElementwiseOps``; None where the fused maps cannot give the loop bounds
    or the producer reads ``linalg.index`` (not modelled)."""
    value = consumer.operands[operand_number]
    producer = value.owner
    assert isinstance(producer, GenericOp) and isinstance(value, OpResult)
    preserved = _preserved_results(producer, consumer, operand_number)
    consumer_maps, producer_maps = _maps(consumer), _maps(producer)
    consumer_map = consumer_maps[operand_number]
    result_map = producer_maps[len(producer.inputs) + value.index]
    inputs: list[SSAValue] = [*consumer.inputs[:operand_number]]
    maps: list[AffineMap] = [*consumer_maps[:operand_number]]
    for index, operand in enumerate(producer.inputs):
        inputs.append(operand)
        maps.append(_producer_operand_map(producer, index, result_map, consumer_map))
    rest = range(operand_number + 1, len(consumer.inputs))
    inputs += [consumer.inputs[i] for i in rest]
    maps += [consumer_maps[i] for i in rest]
    outputs: list[SSAValue] = []
    result_types: list[Attribute] = []
    for index in preserved:
        output = producer.outputs[index]
        outputs.append(output)
        maps.append(_producer_operand_map(producer, len(producer.inputs) + index, result_map, consumer_map))
        result_types.append(output.type)
    for index, output in enumerate(consumer.outputs):
        outputs.append(output)
        maps.append(consumer_maps[len(consumer.inputs) + index])
        result_types.append(output.type)
    if not _invertible(maps, _loops(consumer)):
        return None
    inverse = result_map.inverse_permutation()
    assert inverse is not None
    fused_block = _fused_block(
        producer, consumer, operand_number, value.index, preserved, inverse.compose(consumer_map)
    )
    if fused_block is None:
        return None
    fused = GenericOp(
        inputs,
        outputs,
        Region(fused_block),
        [AffineMapAttr(m) for m in maps],
        consumer.iterator_types.data,
        result_types,
    )
    rewriter.insert(fused, InsertPoint.before(consumer))
    originals = [producer.res[i] for i in preserved] + list(consumer.res)
    return FusionResult(fused, dict(zip(originals, fused.res, strict=True)))


def _fused_block(
    producer: GenericOp,
    consumer: GenericOp,
    operand_number: int,
    result_number: int,
    preserved: Sequence[int],
    consumer_to_producer: AffineMap,
) -> Block | None:
    """``generateFusedElementwiseOpRegion``: the producer's payload, then the consumer's.

    A producer's ``linalg.index`` becomes the fused op's index of the loop it maps to.  MLIR
    makes an index op per loop and an ``affine.apply`` per producer index, which its greedy
    driver folds to exactly that; None where the loop is no plain dimension (not modelled).
    """
    producer_block, consumer_block = producer.body.block, consumer.body.block
    mapper: dict[SSAValue, SSAValue] = {}
    block = Block()
    producer_indices = [o for o in producer_block.ops if isinstance(o, IndexOp)]
    loops: dict[IndexOp, int] = {}
    for index_op in producer_indices:
        loop = consumer_to_producer.results[index_op.dim.value.data]
        if not isinstance(loop, AffineDimExpr):
            return None
        loops[index_op] = loop.position
    fused_indices = {position: IndexOp(position) for position in sorted(set(loops.values()))}
    for index_op in fused_indices.values():
        block.add_op(index_op)
    for index_op, position in loops.items():
        mapper[index_op.result] = fused_indices[position].result

    def add(arg: SSAValue) -> None:
        mapper[arg] = block.insert_arg(arg.type, len(block.args))

    for arg in consumer_block.args[:operand_number]:
        add(arg)
    for arg in producer_block.args[: len(producer.inputs)]:
        add(arg)
    for arg in consumer_block.args[operand_number + 1 : len(consumer.inputs)]:
        add(arg)
    producer_outputs = producer_block.args[len(producer.inputs) :]
    for index in preserved:
        add(producer_outputs[index])
    for arg in consumer_block.args[len(consumer.inputs) :]:
        add(arg)
    for op in producer_block.ops:
        if op is producer_block.last_op or isinstance(op, IndexOp):
            continue
        block.add_op(op.clone(mapper))
    producer_yield = producer_block.last_op
    assert isinstance(producer_yield, YieldOp)
    yielded = producer_yield.operands[result_number]
    mapper[consumer_block.args[operand_number]] = mapper.get(yielded, yielded)
    for op in consumer_block.ops:
        if op is consumer_block.last_op:
            continue
        block.add_op(op.clone(mapper))
    consumer_yield = consumer_block.last_op
    assert isinstance(consumer_yield, YieldOp)
    values = [producer_yield.operands[i] for i in preserved] + list(consumer_yield.operands)
    block.add_op(YieldOp(*(mapper.get(v, v) for v in values)))
    return block


class FuseElementwiseOps(RootedPattern):
    """MLIR's ``FuseElementwiseOps`` with IREE's control function: the first input whose
    producing generic may fuse is fused; the consumer is replaced by the fused op."""

    root = "linalg.generic"

    def __init__(self, control: Callable[[GenericOp, int], bool]) -> None:
        self.control = control

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, GenericOp):
            return
        for number in range(len(op.operands)):
            if not are_elementwise_ops_fusable(op, number) or not self.control(op, number):
                continue
            result = fuse_elementwise_ops(rewriter, op, number)
            if result is None:
                return
            # Only the consumer's results are replaced; the producer keeps its other users.
            for old in op.res:
                rewriter.replace_all_uses_with(old, result.replacements[old])
            rewriter.erase(op)
            return


def _is_elementwise(op: GenericOp) -> bool:
    """MLIR's ``linalg::isElementwise``: all parallel, projected-permutation maps, permuted
    outputs, and a payload of scalar elementwise ops only."""
    if not _all_parallel(op) or not all(m.is_projected_permutation() for m in _maps(op)):
        return False
    if not all(_is_permutation(m) for m in _maps(op)[len(op.inputs) :]):
        return False
    return all(
        isinstance(o, IndexOp | YieldOp) or o.dialect_name() in ("arith", "math") for o in op.body.block.ops
    )


def _is_transpose(op: GenericOp) -> bool:
    """IREE's ``isaTransposeOpInterface``: one input, one init, all parallel, a payload of
    just the yield, and permutation maps that differ."""
    if len(op.inputs) != 1 or len(op.outputs) != 1 or not _all_parallel(op):
        return False
    block = op.body.block
    if block.first_op is not block.last_op:
        return False
    in_map, out_map = _maps(op)
    return _is_permutation(in_map) and _is_permutation(out_map) and in_map != out_map


class GatherFusionPattern(RootedPattern):
    """IREE's ``GatherFusionPattern``: a ``tensor.extract`` in a generic that reads an
    elementwise bit-extension or transpose reads the producer's inputs instead, and the
    producer's payload runs in place of the extract."""

    root = "tensor.extract"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, tensor.ExtractOp):
            return
        consumer = op.parent_op()
        producer = op.tensor.owner
        if not isinstance(consumer, GenericOp) or not isinstance(producer, GenericOp):
            return
        extend = bit_width_change(producer) == "extend"
        if len(producer.res) != 1 or not _is_elementwise(producer) or not (extend or _is_transpose(producer)):
            return
        maps = _maps(producer)
        result_map = maps[len(producer.inputs)]
        inverse = result_map.inverse_permutation()
        assert inverse is not None
        indices = list(op.indices)
        values: list[SSAValue] = []
        for number, operand in enumerate(producer.operands):
            type_ = _tensor_type(operand)
            if type_ is None:
                values.append(operand)
                continue
            composed = maps[number].compose(inverse)
            permuted = [indices[r.position] for r in composed.results if isinstance(r, AffineDimExpr)]
            extract = tensor.ExtractOp(operand, permuted, type_.element_type)
            rewriter.insert(extract, InsertPoint.before(op))
            values.append(extract.result)
        loop_indices = [indices[r.position] for r in result_map.results if isinstance(r, AffineDimExpr)]
        block = producer.body.block
        mapper: dict[SSAValue, SSAValue] = dict(zip(block.args, values, strict=True))
        point = InsertPoint.after(op)
        for child in block.ops:
            if isinstance(child, IndexOp):
                mapper[child.result] = loop_indices[child.dim.value.data]
                continue
            if isinstance(child, YieldOp):
                yielded = child.operands[0]
                rewriter.replace_all_uses_with(op.result, mapper.get(yielded, yielded))
                continue
            clone = child.clone(mapper)
            rewriter.insert(clone, point)
            point = InsertPoint.after(clone)
        rewriter.erase(op)


def _iree_control(consumer: GenericOp, operand_number: int) -> bool:
    producer = consumer.operands[operand_number].owner
    assert isinstance(producer, Operation)
    return fusion_refusal(producer, consumer, operand_number) is None


Scalar = IntegerAttr[IntegerType | IndexType] | FloatAttr[AnyFloat]
"""A scalar constant's value."""


def _scalar_of(attr: Attribute) -> Scalar | None:
    """The value of a scalar constant or the element of a splat one (int or float)."""
    if isa(attr, IntegerAttr[IntegerType | IndexType]) or isa(attr, FloatAttr[AnyFloat]):
        return attr
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return None
    element = cast(Attribute, attr.get_element_type())  # its element type is unknown to pyright
    values = attr.get_values()
    if not values or any(v != values[0] for v in values[1:]):
        return None
    if isa(element, IntegerType):
        return IntegerAttr(int(values[0]), element)
    if isinstance(element, AnyFloat):
        return FloatAttr(float(values[0]), element)
    return None


class FoldScalarOrSplatConstant(RootedPattern):
    """MLIR's ``FoldScalarOrSplatConstant``: a scalar or splat constant input becomes a scalar
    constant the payload reads directly."""

    root = "linalg.generic"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, GenericOp) or any(_tensor_type(v) is None for v in op.outputs):
            return
        maps = _maps(op)
        for number, value in enumerate(op.inputs):
            constant = value.owner
            if not isinstance(constant, arith.ConstantOp):
                continue
            scalar = _scalar_of(constant.value)
            if scalar is None:
                continue
            kept = [i for i in range(len(op.inputs)) if i != number]
            new_maps = [maps[i] for i in kept] + maps[len(op.inputs) :]
            if not _invertible(new_maps, _loops(op)):
                return
            scalar_op = arith.ConstantOp(scalar)
            body = op.body.clone()
            block = body.block
            block.args[number].replace_all_uses_with(scalar_op.result)
            block.erase_arg(block.args[number])
            fused = GenericOp(
                [op.inputs[i] for i in kept],
                op.outputs,
                body,
                [AffineMapAttr(m) for m in new_maps],
                op.iterator_types.data,
                op.res.types,
            )
            rewriter.insert([scalar_op, fused], InsertPoint.before(op))
            rewriter.replace(op, fused)
            return


class FoldFillWithGenericOp(RootedPattern):
    """MLIR's ``FoldFillWithGenericOp``: the payload reads a filled input's fill value instead."""

    root = "linalg.generic"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, GenericOp) or any(_tensor_type(v) is None for v in op.outputs):
            return
        found = False
        for number, value in enumerate(op.inputs):
            fill = value.owner
            if not _payload_uses(op, number) or not isinstance(fill, FillOp):
                continue
            result_type = _tensor_type(fill.res[0])
            if result_type is None or fill.inputs[0].type != result_type.element_type:
                continue  # convertScalarToDtype's casts are not modelled
            found = True
            rewriter.replace_all_uses_with(op.body.block.args[number], fill.inputs[0])
        if found:
            rewriter.notify_op_modified(op)


class RemoveOutsDependency(RootedPattern):
    """MLIR's ``RemoveOutsDependency``: an ``outs`` operand the payload does not read becomes
    a ``tensor.empty`` of its shape."""

    root = "linalg.generic"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, GenericOp):
            return
        modified = False
        for index, value in enumerate(op.outputs):
            number = len(op.inputs) + index
            type_ = _tensor_type(value)
            if _payload_uses(op, number) or type_ is None or isinstance(value.owner, tensor.EmptyOp):
                continue
            created, sizes = dim_ops(value)
            empty = tensor.EmptyOp(sizes, TensorType(type_.element_type, type_.get_shape()))
            rewriter.insert([*created, empty], InsertPoint.before(op))
            op.operands[number] = empty.tensor
            modified = True
        if modified:
            rewriter.notify_op_modified(op)


def _result_dead(op: GenericOp, index: int) -> bool:
    """``isResultValueDead``."""
    if op.res[index].uses:
        return False
    number = len(op.inputs) + index
    if not _payload_uses(op, number):
        return True
    arg = op.body.block.args[number]
    if _count(arg.uses) != 1:
        return False
    user = next(iter(arg.uses)).operation
    return isinstance(user, YieldOp) and user.operands[index] == arg


class DeduplicateAndRemoveDeadOperandsAndResults(RootedPattern):
    """MLIR's ``DeduplicateAndRemoveDeadOperandsAndResults``: drops inputs the payload does not
    read, repeated inputs, and outputs whose results are dead, where the loop bounds allow."""

    root = "linalg.generic"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, GenericOp):
            return
        maps = _maps(op)
        dims = _loops(op)
        dropped: set[int] = set()

        def can_drop(numbers: set[int]) -> bool:
            kept = [m for i, m in enumerate(maps) if i not in numbers]
            return _invertible(kept, dims) if kept else dims == 0

        new_inputs: list[int] = []
        input_position: dict[int, int] = {}
        seen: dict[tuple[SSAValue, AffineMap], int] = {}
        for number, value in enumerate(op.inputs):
            if not _payload_uses(op, number) and can_drop(dropped | {number}):
                dropped.add(number)
                continue
            key = (value, maps[number])
            if key in seen:
                input_position[number] = seen[key]
                dropped.add(number)
                continue
            input_position[number] = seen[key] = len(new_inputs)
            new_inputs.append(number)
        new_outputs: list[int] = []
        output_position: dict[int, int] = {}
        terminator = op.body.block.last_op
        assert isinstance(terminator, YieldOp)
        seen_out: dict[tuple[SSAValue, AffineMap, SSAValue], int] = {}
        for index, value in enumerate(op.outputs):
            number = len(op.inputs) + index
            key = (value, maps[number], terminator.operands[index])
            if _result_dead(op, index) and can_drop(dropped | {number}):
                dropped.add(number)
                continue
            if not _payload_uses(op, number) and key in seen_out:
                output_position[index] = seen_out[key]
                dropped.add(number)
                continue
            output_position[index] = seen_out[key] = len(new_outputs)
            new_outputs.append(index)
        if len(new_inputs) + len(new_outputs) == len(op.operands):
            return
        body = op.body.clone()
        block = body.block
        yield_op = block.last_op
        assert isinstance(yield_op, YieldOp)
        if len(new_outputs) != len(op.outputs):
            values = [yield_op.operands[i] for i in new_outputs]
            yield_op.detach()
            yield_op.erase()
            block.add_op(YieldOp(*values))
        old_args = list(block.args)
        new_args: list[SSAValue] = []
        for number in new_inputs:
            new_args.append(old_args[number])
        for index in new_outputs:
            new_args.append(old_args[len(op.inputs) + index])
        replacement: dict[int, SSAValue] = {}
        for number, position in input_position.items():
            replacement[number] = new_args[position]
        for index, position in output_position.items():
            replacement[len(op.inputs) + index] = new_args[len(new_inputs) + position]
        for number, arg in enumerate(old_args):
            target = replacement.get(number)
            if target is not None and target is not arg:
                arg.replace_all_uses_with(target)
        for number in sorted(range(len(old_args)), reverse=True):
            arg = old_args[number]
            if arg not in new_args:
                block.erase_arg(arg, safe_erase=False)
        new_maps = [maps[i] for i in new_inputs] + [maps[len(op.inputs) + i] for i in new_outputs]
        new_op = GenericOp(
            [op.inputs[i] for i in new_inputs],
            [op.outputs[i] for i in new_outputs],
            body,
            [AffineMapAttr(m) for m in new_maps],
            op.iterator_types.data,
            [op.outputs[i].type for i in new_outputs],
            op.doc,
            op.library_call,
        )
        new_op.attributes |= op.attributes
        rewriter.insert(new_op, InsertPoint.before(op))
        results: list[SSAValue | None] = [None] * len(op.res)
        for index, position in output_position.items():
            results[index] = new_op.res[position]
        for old, new in zip(op.res, results, strict=True):
            if new is not None:
                rewriter.replace_all_uses_with(old, new)
        rewriter.erase(op, safe_erase=False)


class RemoveUnusedCycleInGenericOp(RootedPattern):
    """MLIR's ``RemoveUnusedCycleInGenericOp``: a dead result's ``out`` argument that only feeds
    one op yielded in its place is yielded directly."""

    root = "linalg.generic"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, GenericOp) or any(_tensor_type(v) is None for v in op.outputs):
            return
        for index in range(len(op.outputs)):
            if op.res[index].uses:
                continue
            arg = op.body.block.args[len(op.inputs) + index]
            if _count(arg.uses) != 1:
                continue
            cycle = next(iter(arg.uses)).operation
            if len(cycle.results) != 1 or _count(cycle.results[0].uses) != 1:
                continue
            user = next(iter(cycle.results[0].uses)).operation
            if not isinstance(user, YieldOp) or user.operands[index] != cycle.results[0]:
                continue
            rewriter.replace(cycle, [], [arg])


def elementwise_fusion_patterns() -> tuple[RootedPattern, ...]:
    """The pass's first pattern set, in MLIR's registration order."""
    return (
        GatherFusionPattern(),
        FuseElementwiseOps(_iree_control),
        FoldFillWithGenericOp(),
        FoldScalarOrSplatConstant(),
        RemoveOutsDependency(),
        DeduplicateAndRemoveDeadOperandsAndResults(),
        RemoveUnusedCycleInGenericOp(),
    )


@dataclass(frozen=True)
class ElementwiseOpFusion(IreePatternPass, patterns=elementwise_fusion_patterns, config=NO_LIMIT):
    """Fuse elementwise linalg.generic producers into their consumers, as IREE's dispatch creation does."""

    name = "iree-dispatch-creation-elementwise-op-fusion"

    def settled(self, op: ModuleOp, recorder: StepRecorder) -> None:
        record_refusals(op, recorder)


def payload_label(op: Operation) -> str:
    """``op``'s name, with a generic's payload ops, so that two generics' names tell them apart."""
    if not isinstance(op, GenericOp):
        return op.name
    payload = [inner.name for inner in op.body.block.ops if not isinstance(inner, YieldOp | IndexOp)]
    shown = ", ".join(payload[:3]) + (", ..." if len(payload) > 3 else "")
    return f"{op.name} ({shown or 'a copy'})"


def record_refusals(module: Operation, recorder: StepRecorder) -> None:
    """One ``NoFusion`` step per producer and consumer that MLIR's pattern would fuse but IREE's
    control function refuses, as the greedy driver's last, converging iteration finds them."""
    consumers = [op for op in module.walk() if isinstance(op, GenericOp)]
    for consumer in consumers:
        for number, value in enumerate(consumer.inputs):
            producer = value.owner
            if not isinstance(producer, Operation) or not are_elementwise_ops_fusable(consumer, number):
                continue
            why = fusion_refusal(producer, consumer, number)
            if why is not None:
                where = f"input {number} of {payload_label(consumer)}"
                record_no_fusion(recorder, producer, where, why, payload_label(producer))


__all__ = [
    "DeduplicateAndRemoveDeadOperandsAndResults",
    "ElementwiseOpFusion",
    "FoldFillWithGenericOp",
    "FoldScalarOrSplatConstant",
    "FuseElementwiseOps",
    "FusionResult",
    "GatherFusionPattern",
    "RemoveOutsDependency",
    "RemoveUnusedCycleInGenericOp",
    "are_elementwise_ops_fusable",
    "bit_width_change",
    "elementwise_fusion_patterns",
    "fuse_elementwise_ops",
    "fusion_refusal",
    "outside_dispatch",
    "payload_label",
    "record_refusals",
]
