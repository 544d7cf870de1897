"""``iree-dispatch-creation-fuse-multi-use-elementwise-producer``: IREE 3.13's
``FuseMultiUseElementwiseProducerPass`` (``DispatchCreation/FuseMultiUseElementwiseProducer.cpp``).

Elementwise fusion leaves a producer with several users alone.  This pass
fuses such a producer into the first of its users when that user dominates
all the others: the fused op also yields the producer's result, which the
later users read instead.  Walking the function from the end, each all-parallel
generic (not a bit extension) picks its first fusable generic producer with
the same loops that is no bit extension or truncation; then every group is
fused, and MLIR's dead-operand clean-up runs.  The whole sequence repeats
twice (the pass's ``num-iterations``).

Each fusion is one step, ``doMultiUseFusion``, rooted at the consumer; each
multi-use producer its first user may not take is a ``NoFusion`` step saying why.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Operation, Use
from xdsl.rewriter import InsertPoint

from passviz.compilers.iree.passes.dispatch_common import record_no_fusion
from passviz.compilers.iree.passes.elementwise_op_fusion import (
    DeduplicateAndRemoveDeadOperandsAndResults,
    RemoveUnusedCycleInGenericOp,
    are_elementwise_ops_fusable,
    bit_width_change,
    fuse_elementwise_ops,
    outside_dispatch,
    payload_label,
)
from passviz.compilers.mlir.dialects.linalg import GenericOp
from passviz.compilers.mlir.passes.canonicalize import apply_patterns_greedily
from passviz.compilers.mlir.version import behaves_as_iree
from passviz.ir.dominance import properly_dominates
from passviz.recording.interface import StepRecorder, TracedPass
from passviz.rewrite.patterns import PatternTable

ITERATIONS = 2
"""The pass's default ``num-iterations``."""


def _reverse_post_order(op: Operation) -> Iterator[Operation]:
    """``walk<PostOrder, ReverseIterator>``: nested ops first, everything last to first."""
    for region in reversed(op.regions):
        for block in reversed(list(region.blocks)):
            for child in reversed(list(block.ops)):
                yield from _reverse_post_order(child)
    yield op


def _dominates(source: Operation, target: Operation) -> bool:
    """``properlyDominates(source, target, enclosingOpOk=false)`` for ops with results."""
    block = source.parent
    if block is not None and block is target.parent:
        return block.get_operation_index(source) < block.get_operation_index(target)
    return bool(source.results) and properly_dominates(source.results[0], target)


def _fusable_use_owner(producer: GenericOp) -> Operation | None:
    """IREE's ``getFusableUse``: the user of ``producer`` that dominates all its other users."""
    users = [use.operation for result in producer.res for use in result.uses]
    for source in users:
        if all(source is target or _dominates(source, target) for target in users):
            return source
    return None


def _all_parallel(op: GenericOp) -> bool:
    return all(it.data == IteratorType.PARALLEL for it in op.iterator_types.data)


def _loops(op: GenericOp) -> int:
    return op.indexing_maps.data[0].data.num_dims


def _refusal(consumer: GenericOp, number: int, producer: GenericOp) -> str | None:
    """Why ``consumer`` may not fuse ``producer`` with all its uses (IREE's checks 2 to 9),
    or None where it may; ``NOT_THIS_USER`` where another user of ``producer`` dominates."""
    owner = _fusable_use_owner(producer)
    if owner is None:
        return "no user of the producer dominates the others"
    if owner is not consumer:
        return NOT_THIS_USER
    if producer.parent is not consumer.parent:
        return "the producer is in another block"
    if not are_elementwise_ops_fusable(consumer, number):
        return "MLIR's elementwise fusion cannot fuse them"
    if not _all_parallel(producer):
        return "the producer has a reduction loop"
    if _loops(consumer) != _loops(producer):
        return "they have different numbers of loops"
    change = bit_width_change(producer)
    if change is not None:
        return f"the producer is a bit {'extension' if change == 'extend' else 'truncation'}"
    uses = [i for i, v in enumerate(consumer.operands) if v.owner is producer]
    if not all(are_elementwise_ops_fusable(consumer, i) for i in uses):
        return "another of the consumer's operands reads the producer where it cannot fuse"
    return None


NOT_THIS_USER = "another user of the producer comes first"
"""The refusal of a user that is not the one the producer would fuse into: no decision to show."""


def _fusable_producer(
    consumer: GenericOp, grouped: set[Operation], recorder: StepRecorder, told: set[tuple[int, int, str]]
) -> GenericOp | None:
    """The first producer ``consumer`` may fuse with all its uses; each multi-use producer
    refused on the way is a ``NoFusion`` step (once per pass run)."""
    for number, operand in enumerate(consumer.operands):
        producer = operand.owner
        if not isinstance(producer, GenericOp) or producer in grouped:
            continue
        why = _refusal(consumer, number, producer)
        if why is None:
            return producer
        users = sum(1 for result in producer.res for _ in result.uses)
        key = (id(producer), id(consumer), why)
        if why == NOT_THIS_USER or users < 2 or key in told:
            continue
        told.add(key)
        record_no_fusion(recorder, producer, payload_label(consumer), why, payload_label(producer))
    return None


def _fuse_groups(module: ModuleOp, recorder: StepRecorder, told: set[tuple[int, int, str]]) -> int:
    """IREE's ``fuseMultiUseProducers``: the number of groups fused."""
    groups: dict[GenericOp, GenericOp] = {}
    grouped: set[Operation] = set()
    for op in _reverse_post_order(module):
        if not isinstance(op, GenericOp) or not outside_dispatch(op):
            continue
        if not _all_parallel(op) or bit_width_change(op) == "extend":
            continue
        producer = _fusable_producer(op, grouped, recorder, told)
        if producer is None:
            continue
        groups[op] = producer
        grouped.add(producer)
    for root, producer in reversed(groups.items()):
        with recorder.step("doMultiUseFusion", root=root, full=True) as step:
            # A root whose producer an earlier group already fused away fuses nothing (as in IREE).
            if not _do_multi_use_fusion(root, producer, recorder):
                step.cancel()
    return len(groups)


def _do_multi_use_fusion(root: GenericOp, producer: GenericOp, recorder: StepRecorder) -> bool:
    """IREE's ``doMultiUseFusion`` for one producer: fuse every use of it in the consumer.
    False where nothing was fused."""
    consumer = root
    fused_any = False
    while True:
        number = next((i for i, v in enumerate(consumer.operands) if v.owner is producer), None)
        if number is None:
            return fused_any
        rewriter = recorder.rewriter(InsertPoint.before(consumer))
        result = fuse_elementwise_ops(rewriter, consumer, number)
        if result is None:
            return fused_any
        fused_any = True
        fused = result.fused

        def elsewhere(use: Use, fused: Operation = fused) -> bool:
            return use.operation is not fused and use.operation is not producer

        for old, new in result.replacements.items():
            rewriter.replace_uses_with_if(old, new, elsewhere)
        consumer = fused


@dataclass(frozen=True)
class FuseMultiUseElementwiseProducer(TracedPass):
    """Fuse an elementwise producer with several users into the user that dominates the others."""

    name = "iree-dispatch-creation-fuse-multi-use-elementwise-producer"
    announces_every_edit = True

    @behaves_as_iree
    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        clean_up = PatternTable(
            [DeduplicateAndRemoveDeadOperandsAndResults(), RemoveUnusedCycleInGenericOp()]
        )
        told: set[tuple[int, int, str]] = set()
        for _ in range(ITERATIONS):
            if _fuse_groups(op, recorder, told) == 0:
                return
            apply_patterns_greedily(ctx, op, recorder, clean_up)


__all__ = ["FuseMultiUseElementwiseProducer"]
