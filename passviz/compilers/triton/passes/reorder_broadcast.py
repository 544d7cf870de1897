"""``triton-reorder-broadcast``: Triton 3.6's ``ReorderBroadcastPass``.

Moves elementwise ops before the ``tt.splat``/``tt.broadcast`` that feed
them, so they compute on the smaller tensor
(``lib/Dialect/Triton/Transforms/ReorderBroadcast.cpp``, triton-lang/triton at
the 3.6 branch point).  The pass also registers the canonicalization patterns
of ``tt.broadcast`` and ``tt.expand_dims``; MLIR's greedy driver runs them all,
with folding on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.utils.type import get_element_type_or_self

from passviz.compilers.mlir.passes.canonicalize import GreedyPatternPass
from passviz.compilers.triton.canonicalization import (
    BroadcastBroadcastPattern,
    BroadcastSplatPattern,
    ElementwisePattern,
    ExpandDimsOpCanonicalize,
    ReshapeOfExpandDimsPattern,
    is_memory_effect_free,
)
from passviz.compilers.triton.dialects.tt import BroadcastOp, SplatOp
from passviz.compilers.triton.version import triton_version
from passviz.ir.hints import isa
from passviz.rewrite.matchers import constant_attr, dense, splat_element
from passviz.rewrite.patterns import RootedPattern


def _splat_constant(value: SSAValue) -> IntegerAttr | FloatAttr | None:
    """The element of the splat constant defining ``value`` (``isSplat``'s constant case)."""
    return splat_element(constant_attr(value))


def _is_splat(value: SSAValue) -> bool:
    """``isSplat``: defined by ``tt.splat`` or by a splat constant."""
    return isinstance(value.owner, SplatOp) or _splat_constant(value) is not None


def _clone_with(op: Operation, operands: Sequence[SSAValue], result_types: Sequence[Attribute]) -> Operation:
    """``cloneWithNewArgsAndResultTypes``: ``op`` with new operands and result
    types, keeping its properties and attributes."""
    return type(op).create(
        operands=operands,
        result_types=result_types,
        properties=dict(op.properties),
        attributes=dict(op.attributes),
    )


def _shape(type_: Attribute) -> tuple[int, ...] | None:
    return type_.get_shape() if isa(type_, TensorType[Attribute]) else None


def _move_after(
    op: Operation,
    rewriter: PatternRewriter,
    wrapper: type[SplatOp] | type[BroadcastOp],
    rebuild: Callable[[SSAValue], Operation],
    narrowed: Callable[[Attribute], Attribute],
) -> None:
    """Move ``op`` before the ``wrapper`` ops feeding it: the new op takes their sources, and
    ``rebuild``'s op for each other operand, and has result types ``narrowed`` from each
    result's element type; each of its results is wrapped back to the old result's type."""
    created: list[Operation] = []
    operands: list[SSAValue] = []
    for operand in op.operands:
        source = operand.owner
        if isinstance(source, wrapper):
            operands.append(source.src)
            continue
        new_op = rebuild(operand)
        created.append(new_op)
        operands.append(new_op.results[0])
    result_types = [narrowed(get_element_type_or_self(r.type)) for r in op.results]
    narrow_op = _clone_with(op, operands, result_types)
    results = [wrapper(new, old.type) for new, old in zip(narrow_op.results, op.results, strict=True)]
    rewriter.insert([*created, narrow_op, *results], InsertPoint.before(op))
    for old, wrapped in zip(op.results, results, strict=True):
        rewriter.replace_all_uses_with(old, wrapped.result)


class MoveSplatAfterElementwisePattern(ElementwisePattern):
    """``elementwise(splat(a), splat(b), ...) -> splat(elementwise(a, b, ...))``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not is_memory_effect_free(op) or not op.operands:
            return
        if not all(_is_splat(operand) for operand in op.operands):
            return

        def constant(operand: SSAValue) -> Operation:
            element = _splat_constant(operand)
            assert element is not None
            return arith.ConstantOp(element)

        _move_after(op, rewriter, SplatOp, constant, lambda element_type: element_type)


class MoveBroadcastAfterElementwisePattern(ElementwisePattern):
    """``elementwise(broadcast(a), splat(b), ...) -> broadcast(elementwise(a, b, ...))``,
    when every broadcast operand comes from the same shape."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not is_memory_effect_free(op):
            return
        broadcasts = [o.owner for o in op.operands if isinstance(o.owner, BroadcastOp)]
        if not broadcasts:
            return
        source_type = broadcasts[0].src.type
        assert isa(source_type, TensorType[Attribute])
        shape = source_type.get_shape()
        for operand in op.operands:
            source = operand.owner
            if isinstance(source, BroadcastOp):
                # Broadcasts from different shapes cannot be reordered.
                if _shape(source.src.type) != shape:
                    return
            elif not _is_splat(operand):
                return

        def narrowed(element_type: Attribute) -> TensorType[Attribute]:
            return TensorType(element_type, shape, source_type.encoding)

        def splat(operand: SSAValue) -> Operation:
            new_type = narrowed(get_element_type_or_self(operand.type))
            source = operand.owner
            if isinstance(source, SplatOp):
                return SplatOp(source.src, new_type)
            element = _splat_constant(operand)
            assert element is not None
            return arith.ConstantOp(_splat_of(new_type, element))

        _move_after(op, rewriter, BroadcastOp, splat, narrowed)


def _splat_of(type_: TensorType[Attribute], element: IntegerAttr | FloatAttr) -> DenseIntOrFPElementsAttr:
    """``SplatElementsAttr::get(type, element)``."""
    value = element.value.data
    return dense(type_, [value] if isinstance(value, int) else [float(value)])


def reorder_broadcast_patterns() -> tuple[RootedPattern, ...]:
    """``ReorderBroadcastPass``'s patterns, in its registration order."""
    expand_dims = (ExpandDimsOpCanonicalize(),)
    if triton_version() >= (3, 9):
        expand_dims += (ReshapeOfExpandDimsPattern(),)
    return (
        BroadcastSplatPattern(),
        BroadcastBroadcastPattern(),
        *expand_dims,
        MoveBroadcastAfterElementwisePattern(),
        MoveSplatAfterElementwisePattern(),
    )


@dataclass(frozen=True)
class TritonReorderBroadcast(GreedyPatternPass, patterns=reorder_broadcast_patterns):
    """Move elementwise ops before splats and broadcasts."""

    name = "triton-reorder-broadcast"


__all__ = [
    "MoveBroadcastAfterElementwisePattern",
    "MoveSplatAfterElementwisePattern",
    "TritonReorderBroadcast",
    "reorder_broadcast_patterns",
]
