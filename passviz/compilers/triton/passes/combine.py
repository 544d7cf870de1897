"""``triton-combine``: Triton's ``CombineOpsPass``, pattern by pattern, as 3.6 or 3.9 has it.

The patterns of ``lib/Dialect/Triton/Transforms/Combine.cpp`` and
``Combine.td`` (triton-lang/triton at the 3.6 branch point), registered in
the same order and run by MLIR's greedy driver with folding on, as
``applyPatternsGreedily`` does.  Each class is named after Triton's, so a
trace says which one fired.

Behaving as Triton 3.9 (``passviz.compilers.triton.version``), the pass has
3.9's changes: ``dot_scaled(a, b, 0) + d`` folds as ``dot`` does, the masked
load of a select takes the select's other value in place (only when the
select is its one use and that value is defined before the load), and
mul-reduce becomes a ``dot`` of reshaped operands, in IEEE precision.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    TensorType,
    UnitAttr,
    f32,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.utils.type import get_element_type_or_self

from passviz.compilers.mlir.passes.canonicalize import GreedyPatternPass
from passviz.compilers.triton.dialects.tt import (
    AddPtrOp,
    BroadcastOp,
    DescriptorLoadOp,
    DotOp,
    DotScaledOp,
    ExpandDimsOp,
    InputPrecision,
    LoadOp,
    ReduceOp,
    ReshapeOp,
    SplatOp,
)
from passviz.compilers.triton.version import triton_version
from passviz.ir.dominance import properly_dominates
from passviz.ir.hints import isa
from passviz.rewrite.matchers import (
    APInt,
    constant_attr,
    defining,
    has_one_use,
    int_or_float_width,
    int_value,
    is_zero,
)
from passviz.rewrite.patterns import RootedPattern

# ===----------------------------------------------------------------------=== #
# dot(a, b, 0) + d -> dot(a, b, d)
# ===----------------------------------------------------------------------=== #


class _CombineDotAddPattern(RootedPattern):
    """``add(dot(a, b, 0), d)`` or ``add(d, dot(a, b, 0))`` -> ``dot(a, b, d)``,
    when the dot has no other use (``CombineDotAddPattern<DotOpTy, AddOpTy>``)."""

    add_type: type[arith.AddiOp] | type[arith.AddfOp]

    def dot_of(self, value: SSAValue) -> DotOp | DotScaledOp | None:
        """The dot defining ``value``, of the kind this pattern folds."""
        return defining(value, DotOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, self.add_type):
            return
        # Triton looks at the right operand first.
        dot, accumulator = self.dot_of(op.rhs), op.lhs
        if dot is None:
            dot, accumulator = self.dot_of(op.lhs), op.rhs
        if dot is None or not has_one_use(dot):
            return
        if not is_zero(dot.c):
            return
        if isinstance(dot, DotOp) and isinstance(op, arith.AddfOp) and dot.max_num_imprecise_acc_value != 0:
            return
        # Triton sets the accumulator and moves the dot in place, then forwards the add's uses.
        dot.operands[2] = accumulator
        dot.detach()
        rewriter.insert(dot, InsertPoint.before(op))
        rewriter.notify_op_modified(dot)
        rewriter.replace_all_uses_with(op.result, dot.d)


class CombineDotAddIPattern(_CombineDotAddPattern):
    """``addi(dot(a, b, 0), d) -> dot(a, b, d)`` (either operand order)."""

    root = "arith.addi"
    add_type = arith.AddiOp


class CombineDotAddFPattern(_CombineDotAddPattern):
    """``addf(dot(a, b, 0), d) -> dot(a, b, d)`` (either operand order), only
    when the dot accumulates precisely (``maxNumImpreciseAcc == 0``)."""

    root = "arith.addf"
    add_type = arith.AddfOp


class CombineDotScaledAddFPattern(_CombineDotAddPattern):
    """``addf(dot_scaled(a, b, 0), d) -> dot_scaled(a, b, d)`` (either operand
    order); Triton 3.9 has it, 3.6 does not."""

    root = "arith.addf"
    add_type = arith.AddfOp

    def dot_of(self, value: SSAValue) -> DotOp | DotScaledOp | None:
        return defining(value, DotScaledOp)


# ===----------------------------------------------------------------------=== #
# select(cond, load(ptrs, splat(cond), ?), other) -> load(ptrs, splat(cond), other)
# ===----------------------------------------------------------------------=== #


class CombineSelectMaskedLoadPattern(RootedPattern):
    """``select(cond, load(ptrs, splat(cond), ?), other)``
    -> ``load(ptrs, splat(cond), other)``."""

    root = "arith.select"
    benefit = 3

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.SelectOp):
            return
        load = defining(op.lhs, LoadOp)
        if load is None or load.mask is None:
            return
        splat = defining(load.mask, SplatOp)
        if splat is None or splat.src != op.cond:
            return
        if triton_version() >= (3, 9):
            # 3.9 gives the load its new other value in place, so it must be the
            # select's alone and the value must be there before it.
            if not has_one_use(load) or not properly_dominates(op.rhs, load):
                return
            load.operands = (load.ptr, load.mask, op.rhs)
            load.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, (1, 1, 1))
            rewriter.notify_op_modified(load)
            rewriter.replace(op, [], [load.result])
            return
        new_load = LoadOp(load.ptr, load.mask, op.rhs)
        for name in ("boundaryCheck", "padding", "cache", "evict", "isVolatile"):
            prop = load.properties.get(name)
            if prop is not None:
                new_load.properties[name] = prop
        rewriter.replace(op, new_load)


# ===----------------------------------------------------------------------=== #
# addptr(addptr(ptr, i0), i1) -> addptr(ptr, i0 + i1)
# ===----------------------------------------------------------------------=== #

_KEPT_DISCARDABLE_ATTRS = ("tt.divisibility", "tt.contiguity", "tt.constancy")
"""The hints ``CombineAddPtrPattern`` copies to the new ``addptr``."""


def _offset_constant(value: SSAValue) -> APInt | None:
    """Combine.cpp's ``GetConstantIntValue``: the integer behind a splat or a constant."""
    source = value.owner
    if isinstance(source, SplatOp):
        value = source.src
    return int_value(constant_attr(value))


def is_add_ptr_offset_combinable(first: SSAValue, second: SSAValue) -> bool:
    """Whether ``first + second`` can be one offset: 64-bit offsets, or two
    constants whose signed sum does not overflow."""
    if first.type != second.type:
        return False
    if int_or_float_width(first.type) == 64:
        return True
    first_value, second_value = _offset_constant(first), _offset_constant(second)
    if first_value is None or second_value is None:
        return False
    # APInt::sadd_ov: the signed sum must fit the width.
    total = first_value.signed + second_value.signed
    return APInt.of(total, first_value.width).signed == total


class CombineAddPtrPattern(RootedPattern):
    """``addptr(addptr(ptr, i0), i1) -> addptr(ptr, addi(i0, i1))`` (Combine.td),
    keeping the outer op's ``tt.divisibility``/``contiguity``/``constancy``."""

    root = "tt.addptr"
    benefit = 2
    """A table-driven pattern: one per op it matches."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, AddPtrOp):
            return
        inner = defining(op.ptr, AddPtrOp)
        if inner is None:
            return
        if not is_add_ptr_offset_combinable(inner.offset, op.offset):
            return
        offset = arith.AddiOp(inner.offset, op.offset)
        add_ptr = AddPtrOp(inner.ptr, offset.result)
        for name in _KEPT_DISCARDABLE_ATTRS:
            attr = op.attributes.get(name)
            if attr is not None:
                add_ptr.attributes[name] = attr
        rewriter.replace(op, [offset, add_ptr])


# ===----------------------------------------------------------------------=== #
# sum(x[:, :, None] * y[None, :, :], 1) -> dot(x, y)
# ===----------------------------------------------------------------------=== #


def _is_add_f32(op: Operation | None) -> bool:
    """An ``arith.addf`` of 32 bits or fewer."""
    if not isinstance(op, arith.AddfOp):
        return False
    width = int_or_float_width(op.result.type)
    return width is not None and width <= 32


def _broadcasts_along(op: BroadcastOp, axis: int) -> bool:
    """Whether ``op`` broadcasts along ``axis`` and no other dimension (``isBroadcastAlongAxis``)."""
    source, result = op.src.type, op.result.type
    assert isa(source, TensorType[Attribute]) and isa(result, TensorType[Attribute])
    pairs = zip(source.get_shape(), result.get_shape(), strict=True)
    return all((before != after) == (index == axis) for index, (before, after) in enumerate(pairs))


class CombineBroadcastMulReducePattern(RootedPattern):
    """``reduce_add(broadcast(expand_dims(x, 2)) * broadcast(expand_dims(y, 0)))``
    -> ``dot(x, y, splat(0.0))``.

    As in Triton 3.6, both size checks read the left broadcast's shape and the
    reduced axis is not checked.  Triton 3.9 instead asks for a rank-3
    reduction along axis 1 of a product of broadcasts along axes 2 and 0, of
    any sources, and reshapes those sources to the dot's operands.
    """

    root = "tt.reduce"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, ReduceOp):
            return
        if triton_version() >= (3, 9):
            self._rewrite_3_9(op, rewriter)
            return
        blocks = list(op.combine_op.blocks)
        if len(blocks) != 1 or len(list(blocks[0].ops)) != 2 or not _is_add_f32(blocks[0].first_op):
            return
        mul = defining(op.operands[0], arith.MulfOp)
        if mul is None:
            return
        lhs, rhs = defining(mul.lhs, BroadcastOp), defining(mul.rhs, BroadcastOp)
        if lhs is None or rhs is None:
            return
        lhs_expand, rhs_expand = defining(lhs.src, ExpandDimsOp), defining(rhs.src, ExpandDimsOp)
        if lhs_expand is None or rhs_expand is None:
            return
        if lhs_expand.axis.value.data != 2 or rhs_expand.axis.value.data != 0:
            return
        shape = lhs.result.type.get_shape()
        # Triton 3.6 reads the right-hand shape from the left broadcast too.
        if shape[2] < 16 or shape[0] < 16:
            return
        accumulator_type = TensorType(get_element_type_or_self(lhs.src.type), [shape[0], shape[2]])
        zero = arith.ConstantOp(FloatAttr(0.0, f32))
        accumulator = SplatOp(zero.result, accumulator_type)
        dot = DotOp(lhs_expand.src, rhs_expand.src, accumulator.result, input_precision=InputPrecision.TF32)
        rewriter.replace(op, [zero, accumulator, dot], [dot.d])

    @staticmethod
    def _rewrite_3_9(op: ReduceOp, rewriter: PatternRewriter) -> None:
        """Triton 3.9's version of the pattern."""
        source_type = op.operands[0].type
        if not isa(source_type, TensorType[Attribute]) or len(source_type.get_shape()) != 3:
            return
        if op.axis.value.data != 1 or not _is_add_f32(op.get_single_combiner()):
            return
        mul = defining(op.operands[0], arith.MulfOp)
        if mul is None:
            return
        lhs, rhs = defining(mul.lhs, BroadcastOp), defining(mul.rhs, BroadcastOp)
        if lhs is None or rhs is None or not _broadcasts_along(lhs, 2) or not _broadcasts_along(rhs, 0):
            return
        lhs_shape, rhs_shape = lhs.result.type.get_shape(), rhs.result.type.get_shape()
        if lhs_shape[2] < 16 or rhs_shape[0] < 16:
            return
        lhs_source, rhs_source = lhs.src.type, rhs.src.type
        assert isa(lhs_source, TensorType[Attribute]) and isa(rhs_source, TensorType[Attribute])
        element = lhs_source.get_element_type()
        # Triton creates the reshapes, then the zero, the splat and the dot.
        lhs_matrix = ReshapeOp(lhs.src, TensorType(element, lhs_source.get_shape()[:-1]))
        rhs_matrix = ReshapeOp(rhs.src, TensorType(rhs_source.get_element_type(), rhs_source.get_shape()[1:]))
        zero = arith.ConstantOp(FloatAttr(0.0, f32))
        accumulator = SplatOp(zero.result, TensorType(element, [lhs_shape[0], rhs_shape[2]]))
        dot = DotOp(lhs_matrix.result, rhs_matrix.result, accumulator.result)
        rewriter.replace(op, [lhs_matrix, rhs_matrix, zero, accumulator, dot], [dot.d])


# ===----------------------------------------------------------------------=== #
# Reshapes feeding reductions, rank-reducing descriptor loads
# ===----------------------------------------------------------------------=== #


class CombineReshapeReducePatterns(RootedPattern):
    """A 1-D reshape used only by reductions and histograms may reorder elements."""

    root = "tt.reshape"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, ReshapeOp) or op.allow_reorder is not None:
            return
        if len(op.result.type.get_shape()) != 1:
            return
        if any(use.operation.name not in ("tt.reduce", "tt.histogram") for use in op.result.uses):
            return
        op.properties["allow_reorder"] = UnitAttr()
        rewriter.notify_op_modified(op)


class RankedReduceDescriptorLoads(RootedPattern):
    """``reshape(descriptor_load)`` dropping leading unit dims -> a descriptor
    load of the reshaped type."""

    root = "tt.reshape"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, ReshapeOp):
            return
        load = defining(op.src, DescriptorLoadOp)
        if load is None or not has_one_use(load):
            return
        load_type, reshape_type = load.result.type, op.result.type
        assert isa(load_type, TensorType[Attribute])
        load_shape, reshape_shape = load_type.get_shape(), reshape_type.get_shape()
        dropped = len(load_shape) - len(reshape_shape)
        if dropped <= 0 or any(size != 1 for size in load_shape[:dropped]):
            return
        if load_shape[dropped:] != reshape_shape:
            return
        result = rewriter.replace_value_with_new_type(load.result, reshape_type)
        rewriter.replace(op, [], [result])


# ===----------------------------------------------------------------------=== #
# The pass
# ===----------------------------------------------------------------------=== #


def combine_patterns() -> tuple[RootedPattern, ...]:
    """``CombineOpsPass``'s patterns, in its registration order, as the Triton
    passviz behaves as has them."""
    scaled = (CombineDotScaledAddFPattern(),) if triton_version() >= (3, 9) else ()
    return (
        CombineDotAddIPattern(),
        CombineDotAddFPattern(),
        *scaled,
        CombineSelectMaskedLoadPattern(),
        CombineAddPtrPattern(),
        CombineBroadcastMulReducePattern(),
        CombineReshapeReducePatterns(),
        RankedReduceDescriptorLoads(),
    )


@dataclass(frozen=True)
class TritonCombine(GreedyPatternPass, patterns=combine_patterns):
    """Combine Triton ops: dot+add, addptr chains, masked-load selects, mul-reduce -> dot."""

    name = "triton-combine"


__all__ = [
    "CombineAddPtrPattern",
    "CombineBroadcastMulReducePattern",
    "CombineDotAddFPattern",
    "CombineDotAddIPattern",
    "CombineDotScaledAddFPattern",
    "CombineReshapeReducePatterns",
    "CombineSelectMaskedLoadPattern",
    "RankedReduceDescriptorLoads",
    "TritonCombine",
    "combine_patterns",
    "is_add_ptr_offset_combinable",
]
