"""``triton-licm``: MLIR's LICM (``passviz.compilers.mlir.passes.licm``) that also hoists
``tt.load`` out of loops that only read memory, one step per hoisted op."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, TensorType, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.traits import MemoryEffectKind

from passviz.compilers.mlir.passes.licm import (
    hoistable,
    loops_innermost_first,
    memory_effects,
    move_before,
    move_loop_invariant_code,
)
from passviz.compilers.triton.dialects.tt import LoadOp, SplatOp, get_i1_same_shape
from passviz.ir.hints import isa
from passviz.recording.interface import StepRecorder, TracedPass


@dataclass(frozen=True)
class TritonLoopInvariantCodeMotion(TracedPass):
    """Triton's ``triton-licm``: MLIR's LICM that also hoists ``tt.load`` out of
    ``scf.for`` loops that only read memory, masked by ``lb < ub`` so that the
    hoisted load does not run when the loop would not."""

    name = "triton-licm"
    announces_every_edit = True

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        for loop in loops_innermost_first(op):
            move_loop_invariant_code(loop, recorder, _triton_should_move, _move_masked_load)


def _triton_should_move(op: Operation, loop: Operation) -> bool:
    """A load may leave a loop whose ops at most read memory; other ops as in MLIR.

    Triton computes the loop's answer once, at its first load; what LICM has
    hoisted by then has no effects, so asking again gives the same answer.
    """
    if not isinstance(op, LoadOp):
        return hoistable(op, loop)
    return _only_reads(op) and _only_reads(loop)


def _only_reads(op: Operation) -> bool:
    """Whether the known effects of ``op`` and its nested ops are all reads."""
    kinds = memory_effects(op)
    return kinds is not None and kinds <= {MemoryEffectKind.READ}


def _move_masked_load(op: Operation, loop: Operation, recorder: StepRecorder) -> None:
    """Triton's ``moveOutOfRegion``: a load leaving an ``scf.for`` is masked by
    the loop running at least once; one leaving another loop stays (Triton
    does not support those yet) although it counts as moved."""
    if isinstance(op, LoadOp):
        if not isinstance(loop, scf.ForOp):
            return
        rewriter = recorder.rewriter(InsertPoint.before(loop))
        cond = rewriter.insert(arith.CmpiOp(loop.lb, loop.ub, "slt")).result
        mask = get_pred_mask(rewriter, op.ptr.type, op.mask, cond)
        other = (op.other,) if op.other is not None else ()
        op.operands = (op.ptr, mask, *other)
        op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, [1, 1, len(other)])
        rewriter.notify_op_modified(op)
    move_before(op, loop, recorder)


def get_pred_mask(
    rewriter: PatternRewriter, type_like: Attribute, mask: SSAValue | None, pred: SSAValue
) -> SSAValue:
    """Triton's ``getPredMask``: ``pred`` splat to the shape of ``type_like``,
    and-ed with ``mask`` when there is one."""
    mask_type = get_i1_same_shape(type_like)
    new_mask = pred
    if isa(mask_type, TensorType[Attribute]):
        new_mask = rewriter.insert(SplatOp(pred, mask_type)).results[0]
    if mask is not None:
        new_mask = rewriter.insert(arith.AndIOp(new_mask, mask)).result
    return new_mask
