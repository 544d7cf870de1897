"""``loop-invariant-code-motion`` (MLIR's LICM), one step per hoisted op.

This follows ``moveLoopInvariantCode`` (mlir/lib/Transforms/Utils/
LoopInvariantCodeMotionUtils.cpp) over the loops of ``scf``: every loop, the
innermost first, moves out of its regions the ops that use only values
defined outside the loop and that are memory-effect free and speculatable.
A hoisted op lands right before the loop, so ops keep their relative order.

Whether an op is free of memory effects and speculatable is decided as MLIR
decides it (``isMemoryEffectFree``, ``isSpeculatable``); for ``arith`` and
``scf`` ops, whose xDSL traits differ from MLIR's in places, the answer comes
from MLIR's op definitions.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, auto

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
)
from xdsl.ir import Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsTerminator, MemoryEffectKind, get_effects
from xdsl.traits import is_speculatable as xdsl_is_speculatable

from passviz.compilers.mlir.version import llvm_snapshot
from passviz.ir.hints import isa
from passviz.recording.interface import StepRecorder, TracedPass
from passviz.rewrite.matchers import INDEX_WIDTH, constant_attr, int_width


class Speculation(Enum):
    """MLIR's ``Speculation::Speculatability``."""

    NOT_SPECULATABLE = auto()
    SPECULATABLE = auto()
    RECURSIVELY_SPECULATABLE = auto()


_CONDITIONAL_DIVISIONS = {"arith.divui", "arith.ceildivui", "arith.divsi", "arith.ceildivsi"}
"""Arith ops that are speculatable only for some divisors; every other arith op is Pure."""

_REMAINDERS = {"arith.remui", "arith.remsi"}
"""Arith ops that Triton 3.9's LLVM speculates only for a nonzero constant divisor (3.6's always)."""

_RECURSIVE_EFFECTS = {
    "scf.execute_region",
    "scf.for",
    "scf.if",
    "scf.while",
    "scf.parallel",
    "scf.index_switch",
    "scf.forall",
    "scf.reduce",
}
"""scf ops with ``RecursiveMemoryEffects``; the other scf ops (yield, condition,
reduce.return) are Pure.  ``scf.execute_region`` has them in Triton 3.9's LLVM;
in 3.6's it declares no effects at all (so its effects are unknown)."""


_PURE = ("scf.yield", "scf.condition", "scf.reduce.return", "ub.poison")
"""Pure ops outside arith and math whose xDSL traits say otherwise or nothing
(every arith and math op is memory-effect free in MLIR)."""


def memory_effects(op: Operation) -> set[MemoryEffectKind] | None:
    """The kinds of memory effect of ``op`` and the ops nested in it, or None
    when they are unknown (MLIR's ``getEffectsRecursively``)."""
    name = op.name
    if name == "scf.execute_region" and llvm_snapshot() < (3, 9):
        return None  # 3.9's LLVM gives it RecursiveMemoryEffects
    if name.startswith(("arith.", "math.")) or name in _PURE:
        return set()
    if name not in _RECURSIVE_EFFECTS:
        effects = get_effects(op)
        return None if effects is None else {e.kind for e in effects}
    kinds: set[MemoryEffectKind] = set()
    for nested in (o for r in op.regions for b in r.blocks for o in b.ops):
        nested_kinds = memory_effects(nested)
        if nested_kinds is None:
            return None
        kinds |= nested_kinds
    return kinds


def is_memory_effect_free(op: Operation) -> bool:
    """MLIR's ``isMemoryEffectFree``: no effects, nested ops included."""
    return memory_effects(op) == set()


def speculatability(op: Operation) -> Speculation:
    """MLIR's ``getSpeculatability`` of ``op`` (not speculatable without the interface)."""
    name = op.name
    if name in _CONDITIONAL_DIVISIONS:
        return _division_speculatability(op)
    if name in _REMAINDERS and llvm_snapshot() >= (3, 9):
        # Triton 3.9's LLVM traps on a remainder by zero as on a division; 3.6's did not.
        return _division_speculatability(op)
    if name.startswith(("arith.", "math.")) or name in _PURE:
        return Speculation.SPECULATABLE
    if name == "scf.if":
        return Speculation.RECURSIVELY_SPECULATABLE
    if isinstance(op, scf.ForOp):
        # Only a unit step is known to terminate for all bounds.
        step = _constant_ints(op.step)
        return Speculation.RECURSIVELY_SPECULATABLE if step == [1] else Speculation.NOT_SPECULATABLE
    if name.startswith("scf."):
        return Speculation.NOT_SPECULATABLE
    if not xdsl_is_speculatable(op):
        return Speculation.NOT_SPECULATABLE
    return Speculation.SPECULATABLE


def is_speculatable(op: Operation) -> bool:
    """MLIR's ``isSpeculatable``."""
    match speculatability(op):
        case Speculation.NOT_SPECULATABLE:
            return False
        case Speculation.SPECULATABLE:
            return True
        case Speculation.RECURSIVELY_SPECULATABLE:
            return all(is_speculatable(o) for r in op.regions for b in r.blocks for o in b.ops)


def _division_speculatability(op: Operation) -> Speculation:
    """A division is speculatable if its divisor is a constant that cannot trap.

    MLIR asks the divisor's defining op for its integer range with every
    operand unknown, which in practice only pins down constants.
    """
    divisor = _constant_ints(op.operands[1])
    if divisor is None or 0 in divisor:
        return Speculation.NOT_SPECULATABLE
    signed = op.name in ("arith.divsi", "arith.ceildivsi")
    width = int_width(op.operands[1].type)
    width = INDEX_WIDTH if width is None else width  # not an integer: MLIR's index width
    if signed and any(_signed(v, width) == -1 for v in divisor):
        return Speculation.NOT_SPECULATABLE
    return Speculation.SPECULATABLE


def _constant_ints(value: SSAValue) -> list[int] | None:
    """The values of an integer ``arith.constant`` (each element of a dense one)."""
    if not isinstance(value.owner, arith.ConstantOp):
        return None
    attr = constant_attr(value)
    if isinstance(attr, IntegerAttr):
        return [attr.value.data]
    if isa(attr, DenseIntOrFPElementsAttr[IntegerType]) or isa(attr, DenseIntOrFPElementsAttr[IndexType]):
        return list(attr.get_values())
    return None


def _signed(value: int, width: int) -> int:
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def loop_regions(op: Operation) -> tuple[Region, ...] | None:
    """``LoopLikeOpInterface::getLoopRegions``, or None for ops that are not loops."""
    if isinstance(op, scf.ForOp | scf.ParallelOp):
        return (op.body,)
    if isinstance(op, scf.WhileOp):
        return (op.before_region, op.after_region)
    return None


def _parent_op_of_region(value: SSAValue) -> Operation | None:
    """``value.getParentRegion()->getParentOp()``."""
    region = value.owner.parent_region() if isinstance(value.owner, Operation) else value.owner.parent
    return region.parent if region is not None else None


def is_defined_outside(value: SSAValue, loop: Operation) -> bool:
    """``isDefinedOutsideOfLoop``: the value's region does not lie in the loop."""
    parent = _parent_op_of_region(value)
    return parent is None or not loop.is_ancestor(parent)


def can_be_hoisted(op: Operation, loop: Operation) -> bool:
    """MLIR's ``canBeHoisted``: not a terminator, and every value used by ``op``
    or the ops nested in it is defined either in ``op`` or outside the loop."""
    if op.has_trait(IsTerminator):
        return False
    for child in op.walk():
        for operand in child.operands:
            region = (
                operand.owner.parent_region()
                if isinstance(operand.owner, Operation)
                else operand.owner.parent
            )
            defining_parent = region.parent if region is not None else None
            if defining_parent is not None and op.is_ancestor(defining_parent):
                continue
            if not is_defined_outside(operand, loop):
                return False
    return True


ShouldMove = Callable[[Operation, Operation], bool]
"""Whether an op (first) may leave a loop (second), its operands aside."""

MoveOut = Callable[[Operation, Operation, StepRecorder], None]
"""Move an op (first) out of a loop (second)."""


def hoistable(op: Operation, loop: Operation) -> bool:
    """MLIR's LICM criterion: memory-effect free and speculatable."""
    return is_memory_effect_free(op) and is_speculatable(op)


def move_before(op: Operation, loop: Operation, recorder: StepRecorder) -> None:
    """``LoopLikeOpInterface::moveOutOfLoop``: move ``op`` right before ``loop``."""
    op.detach()
    recorder.rewriter(InsertPoint.before(loop)).insert(op)


@dataclass(frozen=True)
class LoopInvariantCodeMotion(TracedPass):
    """Hoist loop-invariant, side-effect free, speculatable ops out of loops."""

    name = "loop-invariant-code-motion"
    announces_every_edit = True

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        for loop in loops_innermost_first(op):
            move_loop_invariant_code(loop, recorder)


def loops_innermost_first(op: Operation) -> list[Operation]:
    """The loops nested in ``op`` in post-order, so that what an inner loop
    hoists lands in the enclosing loop, which may hoist it further."""
    return [o for o in op.walk(region_first=True) if loop_regions(o) is not None]


def move_loop_invariant_code(
    loop: Operation,
    recorder: StepRecorder,
    should_move: ShouldMove = hoistable,
    move_out: MoveOut = move_before,
) -> int:
    """Hoist what can be hoisted out of ``loop``'s regions; return how many ops moved."""
    moved = 0
    for region in loop_regions(loop) or ():
        worklist = deque(o for block in region.blocks for o in block.ops)
        while worklist:
            op = worklist.popleft()
            # Skip ops already moved.
            if op.parent_region() is not region:
                continue
            if not can_be_hoisted(op, loop) or not should_move(op, loop):
                continue
            with recorder.step("hoist", root=op):
                move_out(op, loop, recorder)
            moved += 1
            # Its users at the top level of the region may be invariant now.
            worklist.extend(
                use.operation for r in op.results for use in r.uses if use.operation.parent_region() is region
            )
    return moved
