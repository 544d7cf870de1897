"""``symbol-dce``: MLIR's dead symbol elimination, one step per erased symbol.

This follows ``mlir/lib/Transforms/SymbolDCE.cpp``: the symbols that cannot
be discarded (public ones, or any in a symbol table visible from outside) and
every op that is not a symbol are live; whatever a live op references becomes
live in turn.  The dead symbols are then erased symbol table by symbol table,
innermost first (a post-order walk), each in block order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint
from xdsl.traits import SymbolTable
from xdsl.utils.symbol_table import SymbolTable as Symbols
from xdsl.utils.symbol_table import SymbolTableCollection, Visibility

from passviz.recording.interface import StepRecorder, TracedPass
from passviz.rewrite.symbols import is_private, is_symbol, op_symbol_refs


@dataclass(frozen=True)
class SymbolDCE(TracedPass):
    """Erase the symbols that are not public and that nothing live references."""

    name = "symbol-dce"
    announces_every_edit = True

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        # A symbol table with no parent is hidden: nothing outside can see it.
        hidden = op.parent_op() is None or not is_symbol(op) or is_private(op)
        live: set[Operation] = set()
        _compute_liveness(op, SymbolTableCollection(), hidden, live)
        tables = [o for o in op.walk(region_first=True) if o.has_trait(SymbolTable)]
        for table in tables:
            for block in table.regions[0].blocks:
                for symbol in list(block.ops):
                    if is_symbol(symbol) and symbol not in live:
                        with recorder.step("erase-dead-symbol", root=symbol):
                            recorder.rewriter(InsertPoint.before(symbol)).erase(symbol, safe_erase=False)


def _can_discard_on_use_empty(op: Operation) -> bool:
    """MLIR's default ``canDiscardOnUseEmpty``: any symbol that is not public."""
    return Symbols.get_symbol_visibility(op) is not Visibility.PUBLIC


def _compute_liveness(
    table: Operation, symbols: SymbolTableCollection, hidden: bool, live: set[Operation]
) -> None:
    """Add the live symbols of ``table`` (and of the live tables nested in it) to ``live``."""
    worklist: list[Operation] = []
    for block in table.regions[0].blocks:
        for op in block.ops:
            if not is_symbol(op):
                worklist.append(op)
                continue
            discardable = (hidden or is_private(op)) and _can_discard_on_use_empty(op)
            if not discardable and op not in live:
                live.add(op)
                worklist.append(op)

    while worklist:
        op = worklist.pop()
        if op.has_trait(SymbolTable):
            nested_hidden = hidden or not is_symbol(op) or is_private(op)
            _compute_liveness(op, symbols, nested_hidden, live)
        else:
            # Uses inside a non-table op count as if they were at the top level.
            worklist.extend(
                o for region in op.regions for block in region.blocks for o in block.ops if o.regions
            )
        parent = op.parent_op()
        if parent is None or not parent.has_trait(SymbolTable):
            continue
        for ref in symbol_uses(op):
            for resolved in symbols.lookup_symbol_in(parent, ref, all_symbols=True) or ():
                if resolved not in live:
                    live.add(resolved)
                    worklist.append(resolved)


def symbol_uses(op: Operation) -> Iterator[SymbolRefAttr]:
    """The symbol references held by ``op`` and the ops nested in it, not
    looking into nested symbol tables (``SymbolTable::getSymbolUses``)."""
    yield from op_symbol_refs(op)
    if op.has_trait(SymbolTable):
        return
    for region in op.regions:
        for block in region.blocks:
            for nested in block.ops:
                yield from symbol_uses(nested)
