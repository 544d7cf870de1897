"""``affine-scalrep``: MLIR's affine scalar replacement, one step per forwarded load or erased op.

As MLIR's ``affineScalarReplace`` on each function: every ``affine.load``
takes the value of the store to the same element that dominates it with no
write in between (store-to-load forwarding), or else of an earlier load of
the same element with no write in between (load CSE); then a store that a
later store to the same element overwrites with no read in between is
erased; then each memref a load was forwarded from, if it is an alloc's
used only by stores and deallocs, is erased with them.

Two accesses are to the same element when their memrefs are the same value
and their maps and operands are equal (canonical maps, as Toy's lowering
gives after canonicalize); the ops between them are those of their block,
so accesses in different blocks are left alone.  Distinct allocations do not
alias; an op with unknown effects may write anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.rewriter import InsertPoint
from xdsl.traits import MemoryEffectKind, RecursiveMemoryEffect, get_effects

from passviz.compilers.mlir.dialects.affine import LoadOp, StoreOp, constant_index
from passviz.recording.interface import StepRecorder, TracedPass

Access = LoadOp | StoreOp
AccessT = TypeVar("AccessT", LoadOp, StoreOp)


def same_element(a: Access, b: Access) -> bool:
    """Whether two accesses reach the same element: MLIR's ``MemRefAccess ==``, whose map
    difference folds constant operands (``%c0`` is ``0``) but knows nothing of loop bounds."""
    if a.memref != b.memref:
        return False
    table: dict[SSAValue, int] = {}
    return _subscripts(a, table) == _subscripts(b, table)


def _subscripts(access: Access, table: dict[SSAValue, int]) -> tuple[AffineExpr, ...]:
    """The access's subscripts over constants and the non-constant operands (numbered by ``table``)."""
    replacements: list[AffineExpr] = []
    for operand in access.indices:
        constant = constant_index(operand)
        if constant is None:
            replacements.append(AffineExpr.dimension(table.setdefault(operand, len(table))))
        else:
            replacements.append(AffineExpr.constant(constant))
    map_ = access.map.data
    dims, symbols = replacements[: map_.num_dims], replacements[map_.num_dims :]
    size = len(access.indices) + 64  # room for every value the table may number
    return tuple(expr.replace_dims_and_symbols(dims, symbols).simplify(size, 0) for expr in map_.results)


def may_alias(a: SSAValue, b: SSAValue) -> bool:
    """Distinct allocations never alias; anything else may."""
    if a == b:
        return True
    allocs = (memref.AllocOp, memref.AllocaOp)
    return not (isinstance(a.owner, allocs) and isinstance(b.owner, allocs))


def _effects_on(op: Operation, kind: MemoryEffectKind, value: SSAValue) -> bool:
    """Whether ``op`` (or an op nested in it) may have a ``kind`` effect on ``value``."""
    for inner in op.walk():
        if isinstance(inner, LoadOp | StoreOp):
            writes = isinstance(inner, StoreOp)
            if (kind is MemoryEffectKind.WRITE) == writes and may_alias(inner.memref, value):
                return True
            continue
        effects = get_effects(inner)
        if effects is None:
            if inner.has_trait(RecursiveMemoryEffect):
                continue
            return True
        if any(effect.kind is kind for effect in effects):
            return True
    return False


def no_intervening_effect(start: Operation, end: Operation, kind: MemoryEffectKind, value: SSAValue) -> bool:
    """Whether no op strictly between ``start`` and ``end`` (one block) has a ``kind`` effect on ``value``."""
    op = start.next_op
    while op is not None and op is not end:
        if _effects_on(op, kind, value):
            return False
        op = op.next_op
    return op is end


def _loads(root: Operation) -> Iterable[LoadOp]:
    return [op for op in root.walk() if isinstance(op, LoadOp)]


@dataclass(frozen=True)
class AffineScalarReplacement(TracedPass):
    """Forward stored values to loads, drop redundant loads and stores, and erase memrefs left unread."""

    name = "affine-scalrep"

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        for function in [child for child in op.walk() if isinstance(child, func.FuncOp)]:
            _replace(function, recorder)


def _same_element(access: Access, kind: type[AccessT]) -> Iterator[AccessT]:
    """The other ``kind`` accesses of the element ``access`` reaches."""
    for use in access.memref.uses:
        other = use.operation
        if isinstance(other, kind) and other is not access and same_element(other, access):
            yield other


def _forwarding_store(load: LoadOp) -> StoreOp | None:
    return next(
        (
            store
            for store in _same_element(load, StoreOp)
            if store.is_before_in_block(load)
            and no_intervening_effect(store, load, MemoryEffectKind.WRITE, load.memref)
        ),
        None,
    )


def _earlier_load(load: LoadOp) -> LoadOp | None:
    candidates: list[LoadOp] = []
    for other in _same_element(load, LoadOp):
        if not other.is_before_in_block(load):
            continue
        if not no_intervening_effect(other, load, MemoryEffectKind.WRITE, load.memref):
            continue
        if other.result.type != load.result.type:
            continue
        candidates.append(other)
    for option in candidates:
        if all(c is option or option.is_before_in_block(c) for c in candidates):
            return option
    return None


def _replace(function: func.FuncOp, recorder: StepRecorder) -> None:
    forwarded: dict[SSAValue, None] = {}
    for load in _loads(function):
        store = _forwarding_store(load)
        if store is not None and store.value.type == load.result.type:
            with recorder.step("forward store to load", root=load):
                rewriter = recorder.rewriter(InsertPoint.before(load))
                rewriter.replace_all_uses_with(load.result, store.value)
                rewriter.erase(load)
            forwarded[load.memref] = None
            continue
        earlier = _earlier_load(load)
        if earlier is not None:
            with recorder.step("load CSE", root=load):
                rewriter = recorder.rewriter(InsertPoint.before(load))
                rewriter.replace_all_uses_with(load.result, earlier.result)
                rewriter.erase(load)
    for store in [op for op in function.walk() if isinstance(op, StoreOp)]:
        if _overwritten(store):
            with recorder.step("erase unused store", root=store):
                recorder.rewriter(InsertPoint.before(store)).erase(store)
    for value in forwarded:
        owner = value.owner
        if not isinstance(owner, memref.AllocOp | memref.AllocaOp):
            continue
        users = [use.operation for use in value.uses]
        if any(not isinstance(user, StoreOp | memref.DeallocOp) for user in users):
            continue
        with recorder.step("erase dead memref", root=owner):
            rewriter = recorder.rewriter(InsertPoint.before(owner))
            for user in dict.fromkeys(users):
                rewriter.erase(user)
            rewriter.erase(owner)


def _overwritten(store: StoreOp) -> bool:
    """MLIR's ``findUnusedStore``: a later store to the same element, with no read in between."""
    return any(
        store.is_before_in_block(other)
        and no_intervening_effect(store, other, MemoryEffectKind.READ, store.memref)
        for other in _same_element(store, StoreOp)
    )
