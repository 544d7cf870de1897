"""``triton-loop-unroll``: Triton's LoopUnroll pass over MLIR's ``loopUnrollByFactor``.

Every ``scf.for`` carrying an integer ``tt.loop_unroll_factor`` above 1 loses
the attribute and is unrolled by that factor (innermost loops first), as
``mlir/lib/Dialect/SCF/Utils/Utils.cpp`` does in the LLVM Triton 3.6 builds
against:

- the new upper bound (the last multiple of the unrolled step) and step are
  constants when the bounds are, else ``arith`` ops computing them, built
  right before the loop;
- a remainder (epilogue) loop, a clone of the loop from the new upper bound,
  follows the main loop unless the static trip count divides evenly; Triton
  marks it ``tt.num_stages = 1`` so that it is not pipelined;
- the body is copied ``factor - 1`` times before the ``scf.yield``, each copy
  fed the previous copy's yielded values and ``iv + i * step``;
- a loop left with zero iterations is erased, one with a single iteration is
  inlined (``promoteIfSingleIteration``), the epilogue first.

Behaving as Triton 3.9, whose LLVM is newer, the static trip count reads
``ub - lb`` unsigned and knows no count for a non-positive step (3.6's counted
no trip), and a main loop that never runs gets no unrolled step constant.

Each part is one trace step.  Only signed loops are handled: xDSL's
``scf.for`` has no ``unsigned`` comparison to parse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp, i32
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from passviz.compilers.mlir.canonicalization.scf import trip_count_3_9
from passviz.compilers.triton.version import triton_version
from passviz.recording.interface import StepRecorder, TracedPass
from passviz.rewrite.matchers import int_width
from passviz.rewrite.patterns import replace_all_uses

UNROLL_FACTOR = "tt.loop_unroll_factor"
"""The attribute asking for a loop to be unrolled."""

NUM_STAGES = "tt.num_stages"
"""The attribute Triton puts on the epilogue loop: 1, so that it is not pipelined."""


@dataclass(frozen=True)
class TritonLoopUnroll(TracedPass):
    """Unroll the ``scf.for`` loops that ask for it with ``tt.loop_unroll_factor``."""

    name = "triton-loop-unroll"
    announces_every_edit = True

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        loops = [o for o in op.walk(region_first=True) if isinstance(o, scf.ForOp) and unroll_factor(o) > 1]
        for loop in loops:
            factor = unroll_factor(loop)
            with recorder.step("drop-unroll-factor", root=loop):
                del loop.attributes[UNROLL_FACTOR]
                recorder.rewriter(InsertPoint.before(loop)).notify_op_modified(loop)
            epilogue = loop_unroll_by_factor(loop, factor, recorder)
            if epilogue is not None:
                with recorder.step("epilogue-num-stages", root=epilogue):
                    epilogue.attributes[NUM_STAGES] = IntegerAttr(1, i32)
                    recorder.rewriter(InsertPoint.before(epilogue)).notify_op_modified(epilogue)


def unroll_factor(loop: scf.ForOp) -> int:
    """The loop's ``tt.loop_unroll_factor``, or 1 (do not unroll)."""
    factor = loop.attributes.get(UNROLL_FACTOR)
    return factor.value.data if isinstance(factor, IntegerAttr) else 1


def loop_unroll_by_factor(loop: scf.ForOp, factor: int, recorder: StepRecorder) -> scf.ForOp | None:
    """MLIR's ``loopUnrollByFactor``; returns the epilogue loop, if one is left."""
    body = loop.body.block
    if body.first_op is body.last_op:
        return None  # nothing but the terminator
    rewriter = recorder.rewriter(InsertPoint.before(loop))
    step = loop.step
    width = _bound_width(loop.lb.type)
    bounds = [_constant_int(v, width) for v in (loop.lb, loop.ub, step)]
    trip_count = static_trip_count(loop)
    with recorder.step("unroll-bounds", root=loop):
        if trip_count is not None and None not in bounds:
            lb, ub, step_value = (b for b in bounds if b is not None)
            even = trip_count - trip_count % factor
            upper_unrolled_value = lb + even * step_value
            epilogue_needed = upper_unrolled_value < ub
            upper_unrolled = (
                _constant(rewriter, upper_unrolled_value, loop.ub.type) if epilogue_needed else loop.ub
            )
            if even == 0 and triton_version() >= (3, 9):
                # 3.9's LLVM makes no unrolled step for a main loop that never runs (it is erased).
                step_unrolled = step
            else:
                step_unrolled = _constant(rewriter, step_value * factor, step.type)
        else:
            epilogue_needed = True
            upper_unrolled, step_unrolled = _dynamic_bounds(rewriter, loop, factor)

    epilogue: scf.ForOp | None = None
    if epilogue_needed:
        with recorder.step("epilogue-loop", root=loop):
            epilogue = loop.clone()
            rewriter.insert(epilogue, InsertPoint.after(loop))
            epilogue.operands = (upper_unrolled, *epilogue.operands[1:])
            for result, replacement in zip(loop.results, epilogue.results, strict=True):
                replace_all_uses(rewriter, result, replacement)
            epilogue.operands = (*epilogue.operands[:3], *loop.results)
            rewriter.notify_op_modified(epilogue)
        if promote_if_single_iteration(epilogue, recorder):
            epilogue = None

    with recorder.step("unroll-body", root=loop):
        loop.operands = (loop.lb, upper_unrolled, step_unrolled, *loop.iter_args)
        rewriter.notify_op_modified(loop)
        _generate_unrolled_loop(loop, factor, step, rewriter)
    promote_if_single_iteration(loop, recorder)
    return epilogue


def _generate_unrolled_loop(loop: scf.ForOp, factor: int, step: SSAValue, rewriter: PatternRewriter) -> None:
    """MLIR's ``generateUnrolledLoop``: ``factor - 1`` more copies of the body,
    each before the ``scf.yield``, chained through the yielded values."""
    body = loop.body.block
    terminator = body.last_op
    assert terminator is not None
    originals = [o for o in body.ops if o is not terminator]
    iv, *iter_args = body.args
    yielded = list(terminator.operands)
    last_yielded = list(yielded)
    at_yield = InsertPoint.before(terminator)
    for i in range(1, factor):
        mapping: dict[SSAValue, SSAValue] = dict(zip(iter_args, last_yielded, strict=True))
        if iv.uses:
            # iv' = iv + step * i
            index = _constant(rewriter, i, iv.type, at_yield)
            stride = rewriter.insert(arith.MuliOp(step, index), at_yield)
            mapping[iv] = rewriter.insert(arith.AddiOp(iv, stride), at_yield).result
        for original in originals:
            rewriter.insert(original.clone(value_mapper=mapping), at_yield)
        last_yielded = [mapping.get(v, v) for v in yielded]
    terminator.operands = last_yielded
    rewriter.notify_op_modified(terminator)


def _dynamic_bounds(rewriter: PatternRewriter, loop: scf.ForOp, factor: int) -> tuple[SSAValue, SSAValue]:
    """The unrolled upper bound and step as ops: ``lb + (tc - tc % f) * step``
    and ``step * f``, with ``tc = (ub - lb + step - 1) / step`` (unsigned)."""
    lb, ub, step = loop.lb, loop.ub, loop.step
    type_ = lb.type
    diff = rewriter.insert(arith.SubiOp(ub, lb)).result
    one = _constant(rewriter, 1, type_)
    step_minus_one = rewriter.insert(arith.SubiOp(step, one)).result
    total = rewriter.insert(arith.AddiOp(diff, step_minus_one)).result
    trip_count = rewriter.insert(arith.DivUIOp(total, step)).result
    factor_value = _constant(rewriter, factor, type_)
    remainder = rewriter.insert(arith.RemSIOp(trip_count, factor_value)).result
    even = rewriter.insert(arith.SubiOp(trip_count, remainder)).result
    span = rewriter.insert(arith.MuliOp(even, step)).result
    upper = rewriter.insert(arith.AddiOp(lb, span)).result
    step_unrolled = rewriter.insert(arith.MuliOp(step, factor_value)).result
    return upper, step_unrolled


def promote_if_single_iteration(loop: scf.ForOp, recorder: StepRecorder) -> bool:
    """``ForOp::promoteIfSingleIteration``: erase a loop that never runs, inline
    the body of one that runs once.  True if the loop is gone."""
    trip_count = static_trip_count(loop)
    if trip_count is None:
        return False
    width = _bound_width(loop.lb.type)
    signed_count = _signed(trip_count, width)
    if signed_count > 1:
        return False
    rewriter = recorder.rewriter(InsertPoint.before(loop))
    if trip_count == 0:
        with recorder.step("erase-zero-trip-loop", root=loop):
            for result, init in zip(loop.results, loop.iter_args, strict=True):
                replace_all_uses(rewriter, result, init)
            rewriter.erase(loop)
        return True
    with recorder.step("promote-single-iteration", root=loop):
        body = loop.body.block
        terminator = body.last_op
        assert terminator is not None
        for result, value in zip(loop.results, terminator.operands, strict=True):
            replace_all_uses(rewriter, result, value)
        rewriter.erase(terminator)
        for arg, value in zip(body.args, (loop.lb, *loop.iter_args), strict=True):
            replace_all_uses(rewriter, arg, value)
        rewriter.inline_block(body, InsertPoint.before(loop))
        rewriter.erase(loop)
    return True


def static_trip_count(loop: scf.ForOp) -> int | None:
    """``ForOp::getStaticTripCount`` as Triton 3.6's LLVM computes it: an integer
    of the bounds' width (64 for ``index``), or None when not constant.

    The count is ``ceil((ub - lb) / step)`` with the difference taken modulo the
    width, so a difference that overflows the signed range counts as no trip.
    """
    lb, ub, step = loop.lb, loop.ub, loop.step
    if lb is ub:
        return 0
    width = _bound_width(lb.type)
    step_value = _constant_int(step, width)
    if triton_version() >= (3, 9):
        lb_value, ub_value = _constant_int(lb, width), _constant_int(ub, width)
        return trip_count_3_9(lb_value, ub_value, step_value, width)
    if step_value is not None:
        if step_value == 0:
            return None
        if step_value < 0:
            return 0
    lb_value = _constant_int(lb, width)
    ub_value = _constant_int(ub, width)
    if lb_value is None or ub_value is None or step_value is None:
        return None
    if ub_value <= lb_value:
        return 0
    diff = _signed(ub_value - lb_value, width)
    if diff < 0:
        return 0
    quotient, remainder = diff // step_value, diff % step_value
    return (quotient + (1 if remainder else 0)) % (1 << width)


def _bound_width(type_: Attribute) -> int:
    """The width of a loop bound's type (signless integer or index: 64)."""
    width = int_width(type_)
    assert width is not None, f"a loop bound of type {type_}"
    return width


def _signed(value: int, width: int) -> int:
    value %= 1 << width
    return value - (1 << width) if value >> (width - 1) else value


def _constant_int(value: SSAValue, width: int) -> int | None:
    """The signed value of an integer ``arith.constant`` defining ``value``."""
    owner = value.owner
    if not isinstance(owner, arith.ConstantOp) or not isinstance(owner.value, IntegerAttr):
        return None
    return _signed(owner.value.value.data, width)


def _constant(
    rewriter: PatternRewriter, value: int, type_: Attribute, at: InsertPoint | None = None
) -> SSAValue:
    """An ``arith.constant`` of ``value`` (truncated to the width of ``type_``)."""
    attr = IntegerAttr(_signed(value, _bound_width(type_)), cast(IntegerType | IndexType, type_))
    return rewriter.insert(arith.ConstantOp(attr), at).result
