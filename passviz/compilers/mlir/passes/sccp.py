"""``sccp``: MLIR's sparse conditional constant propagation, one step per replacement.

This follows ``mlir/lib/Transforms/SCCP.cpp`` and the two data-flow analyses it
loads (``DeadCodeAnalysis``, ``SparseConstantPropagation``).  The analysis is
optimistic: a block is dead until an edge or a region branch reaches it, a
value is uninitialized until its definition is visited.  Constants flow
through ops by their folders (fed the constants known so far), through ``cf``
branches and ``scf`` region branches into block arguments and results, and
through calls of private functions (interprocedural, as MLIR's solver is by
default).  The result of a monotone analysis does not depend on the order
in which it visits ops, so passviz iterates over the module until nothing
changes instead of keeping MLIR's worklist.

The rewrite then walks the blocks as MLIR's does and replaces every value known
to be constant by a constant made by a fresh ``OperationFolder``: one per
(dialect, value, type) and isolated-from-above region, each created at the
start of that region's entry block (so the constants end up in the reverse
order of their creation).  An op whose results were all replaced is erased
if it would be trivially dead.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialect_interfaces.constant_materialization import ConstantMaterializationInterface
from xdsl.dialects import cf, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, i1
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue, TypeAttribute
from xdsl.rewriter import InsertPoint
from xdsl.traits import (
    CallableOpInterface,
    ConstantLike,
    IsTerminator,
    MemoryEffectKind,
    ReturnLike,
    SymbolTable,
)
from xdsl.utils.symbol_table import SymbolTable as Symbols
from xdsl.utils.symbol_table import SymbolTableCollection, Visibility

from passviz.compilers.mlir import canonicalization as mlir
from passviz.compilers.mlir.passes.canonicalize import CanonicalizationTables
from passviz.compilers.mlir.passes.licm import memory_effects
from passviz.compilers.mlir.version import llvm_snapshot
from passviz.ir.hints import isa
from passviz.recording.interface import StepRecorder, TracedPass
from passviz.rewrite.callgraph import callable_region
from passviz.rewrite.calls import call_callee, is_call
from passviz.rewrite.greedy import insertion_region
from passviz.rewrite.matchers import APInt, constant_attr
from passviz.rewrite.patterns import replace_all_uses
from passviz.rewrite.symbols import is_symbol, op_symbol_refs


@dataclass(frozen=True)
class ConstantValue:
    """MLIR's ``ConstantValue`` lattice: a constant with the dialect that made it,
    or unknown (``constant`` None).  A value with no entry is uninitialized."""

    constant: Attribute | None
    dialect: str | None = None


UNKNOWN = ConstantValue(None)
"""The pessimistic state: the value may be anything."""

_REGION_BRANCHES = (scf.ForOp, scf.IfOp, scf.WhileOp, scf.ExecuteRegionOp, scf.IndexSwitchOp)
"""The ops whose control flow between regions the analysis understands
(``RegionBranchOpInterface``)."""

Point = Block | Operation
"""A program point with predecessors: a region's entry block, or the point
after an op (a region branch op's results, a callable, a call)."""

Successor = Region | None
"""Where a region branch goes: into a region, or (None) back to the parent op."""


@dataclass
class Predecessors:
    """MLIR's ``PredecessorState``: who transfers control to a point, and what
    values (successor inputs) receive the transferred operands."""

    known: dict[Operation, tuple[SSAValue, ...]] = field(
        default_factory=dict[Operation, tuple[SSAValue, ...]]
    )
    all_known: bool = True


FoldResults = list[Attribute | SSAValue]
"""A fold: a constant or a value per result; empty when the op folds in place."""

_Fold = tuple[tuple[ConstantValue | None, ...], FoldResults | None]


@dataclass
class SCCPSolver:
    """The fixpoint of dead-code analysis and sparse constant propagation."""

    top: Operation
    """The op the pass runs on (the module)."""
    values: dict[SSAValue, ConstantValue] = field(default_factory=dict[SSAValue, ConstantValue])
    """The lattice of each value reached so far."""
    live_blocks: set[Block] = field(default_factory=set[Block])
    """The blocks known to be executable."""
    live_edges: set[tuple[Block, Block]] = field(default_factory=set[tuple[Block, Block]])
    """The CFG edges known to be taken."""
    predecessors: dict[Point, Predecessors] = field(default_factory=dict[Point, Predecessors])
    """The predecessors of region entries, region branch results, callables and calls."""
    symbols: SymbolTableCollection = field(default_factory=SymbolTableCollection)
    """Where calls find their callees."""
    tables: CanonicalizationTables = field(default_factory=CanonicalizationTables)
    """The folders (MLIR's, where passviz has them)."""
    folds: dict[Operation, _Fold] = field(default_factory=dict[Operation, _Fold])
    """Each op's last fold, with the operand states it was folded with."""
    changed: bool = False
    """Whether the current sweep changed any state."""

    # -- states -----------------------------------------------------------------

    def join(self, value: SSAValue, incoming: ConstantValue | None) -> None:
        """Join ``incoming`` (None: uninitialized) into the lattice of ``value``."""
        if incoming is None:
            return
        current = self.values.get(value)
        joined = incoming if current is None or current == incoming else UNKNOWN
        if joined != current:
            self.values[value] = joined
            self.changed = True

    def set_unknown(self, values: Sequence[SSAValue]) -> None:
        for value in values:
            self.join(value, UNKNOWN)

    def mark_live(self, block: Block) -> None:
        if block not in self.live_blocks:
            self.live_blocks.add(block)
            self.changed = True

    def mark_edge_live(self, source: Block, dest: Block) -> None:
        self.mark_live(dest)
        if (source, dest) not in self.live_edges:
            self.live_edges.add((source, dest))
            self.changed = True

    def _preds(self, point: Point) -> Predecessors:
        return self.predecessors.setdefault(point, Predecessors())

    def add_predecessor(self, point: Point, op: Operation, inputs: Sequence[SSAValue] = ()) -> None:
        state = self._preds(point)
        if op not in state.known:
            state.known[op] = tuple(inputs)
            self.changed = True

    def set_unknown_predecessors(self, point: Point) -> None:
        state = self._preds(point)
        if state.all_known:
            state.all_known = False
            self.changed = True

    def operand_values(self, op: Operation) -> list[Attribute | None] | None:
        """The constant of each operand (None: unknown), or None while one is uninitialized."""
        attrs: list[Attribute | None] = []
        for operand in op.operands:
            state = self.values.get(operand)
            if state is None:
                return None
            attrs.append(state.constant)
        return attrs

    def is_live(self, op: Operation) -> bool:
        block = op.parent_block()
        return block is None or block in self.live_blocks

    # -- driver -----------------------------------------------------------------

    def run(self) -> None:
        """Compute the fixpoint (``DataFlowSolver::initializeAndRun``)."""
        for region in self.top.regions:
            if region.first_block is not None:
                self.mark_live(region.first_block)
                self.set_unknown(region.first_block.args)
        self._initialize_symbol_callables()
        self.changed = True
        while self.changed:
            self.changed = False
            self._visit(self.top)

    def _visit(self, op: Operation) -> None:
        if not self.is_live(op):
            return
        self._visit_control_flow(op)
        self._visit_values(op)
        for region in op.regions:
            for block in region.blocks:
                if block not in self.live_blocks:
                    continue
                self._visit_block(block)
                for nested in block.ops:
                    self._visit(nested)

    # -- DeadCodeAnalysis -----------------------------------------------------------

    def _initialize_symbol_callables(self) -> None:
        """Public callables, and those with non-call uses, have unknown callers."""
        for table, all_uses_visible in _symbol_tables(self.top, not self.top.parent_block()):
            block = table.regions[0].first_block
            if block is None:
                continue
            found = False
            for callable_op in block.ops:
                if callable_region(callable_op) is None or not is_symbol(callable_op):
                    continue
                visibility = Symbols.get_symbol_visibility(callable_op)
                if visibility is Visibility.PUBLIC or (
                    not all_uses_visible and visibility is Visibility.NESTED
                ):
                    self.set_unknown_predecessors(callable_op)
                found = True
            if not found:
                continue
            for user in _users_in_table(table):
                if is_call(user):
                    continue
                for ref in op_symbol_refs(user):
                    symbol = self.symbols.lookup_symbol_in(self.top, ref)
                    if symbol is not None:
                        self.set_unknown_predecessors(symbol)

    def _visit_control_flow(self, op: Operation) -> None:
        """``DeadCodeAnalysis::visit`` of the point after ``op``."""
        if is_call(op):
            self._visit_call_site(op)
        if op.regions:
            if isinstance(op, _REGION_BRANCHES):
                self._visit_region_branch(op)
            elif callable_region(op) is not None:
                callers = self.predecessors.get(op, Predecessors())
                if not callers.all_known or callers.known:
                    self._mark_entry_blocks_live(op)
            else:
                self._mark_entry_blocks_live(op)
        parent = op.parent_op()
        if _is_region_or_callable_return(op) and parent is not None:
            if isinstance(parent, _REGION_BRANCHES):
                self._visit_region_terminator(op, parent)
            else:
                self._visit_callable_terminator(op, parent)
        if op.successors:
            self._visit_branch(op)

    def _mark_entry_blocks_live(self, op: Operation) -> None:
        for region in op.regions:
            if region.first_block is not None:
                self.mark_live(region.first_block)

    def _visit_branch(self, op: Operation) -> None:
        block = op.parent_block()
        assert block is not None
        if not _is_branch(op):
            for successor in op.successors:
                self.mark_edge_live(block, successor)
            return
        attrs = self.operand_values(op)
        if attrs is None:
            return
        taken = _successor_for_operands(op, attrs)
        for successor in (taken,) if taken is not None else op.successors:
            self.mark_edge_live(block, successor)

    def _visit_region_branch(self, op: Operation) -> None:
        attrs = self.operand_values(op)
        if attrs is None:
            return
        for successor, inputs in _entry_successors(op, attrs):
            point: Point = successor.blocks[0] if successor is not None else op
            if isinstance(point, Block):
                self.mark_live(point)
            self.add_predecessor(point, op, inputs)

    def _visit_region_terminator(self, op: Operation, branch: Operation) -> None:
        attrs = self.operand_values(op)
        if attrs is None:
            return
        for successor, inputs in _terminator_successors(op, branch, attrs):
            point: Point = branch
            if successor is not None:
                point = successor.blocks[0]
                self.mark_live(point)
            self.add_predecessor(point, op, inputs)

    def _visit_callable_terminator(self, op: Operation, callable_op: Operation) -> None:
        callers = self.predecessors.get(callable_op, Predecessors())
        for call in callers.known:
            if op.has_trait(ReturnLike):
                self.add_predecessor(call, op)
            else:
                self.set_unknown_predecessors(call)

    def _visit_call_site(self, call: Operation) -> None:
        callee = self._resolve_callee(call)
        if callee is not None and is_symbol(callee) and not self._is_external(callee):
            self.add_predecessor(callee, call)
        else:
            self.set_unknown_predecessors(call)

    def _resolve_callee(self, call: Operation) -> Operation | None:
        ref = call_callee(call)
        if ref is None:
            return None
        table = Symbols.get_nearest_symbol_table(call)
        return self.symbols.lookup_symbol_in(table, ref) if table is not None else None

    def _is_external(self, callee: Operation) -> bool:
        if not self.top.is_ancestor(callee):
            return True
        region = callable_region(callee)
        return callee.has_trait(CallableOpInterface) and region is None

    # -- SparseConstantPropagation ------------------------------------------------------

    def _visit_values(self, op: Operation) -> None:
        """``AbstractSparseForwardDataFlowAnalysis::visitOperation``."""
        if not op.results:
            return
        if isinstance(op, _REGION_BRANCHES):
            self._visit_region_successors(op, op, op.results)
            return
        if is_call(op):
            self._visit_call_results(op)
            return
        self._visit_folding(op)

    def _visit_call_results(self, call: Operation) -> None:
        callee = self._resolve_callee(call)
        if callee is not None and callee.has_trait(CallableOpInterface) and callable_region(callee) is None:
            self.set_unknown(call.results)
            return
        self._join_predecessor_operands(call, call.results)

    def _visit_folding(self, op: Operation) -> None:
        """``SparseConstantPropagation::visitOperation``: simulate the op's folder."""
        # Folding a region op is not guaranteed to be out of place.
        if op.regions:
            self.set_unknown(op.results)
            return
        states = tuple(self.values.get(operand) for operand in op.operands)
        if None in states:
            return
        cached = self.folds.get(op)
        if cached is not None and cached[0] == states:
            folded = cached[1]  # the same constants fold the same way
        else:
            folded = self._fold(op, [state.constant for state in states if state is not None])
            self.folds[op] = (states, folded)
        if not folded:
            self.set_unknown(op.results)
            return
        for result, value in zip(op.results, folded, strict=True):
            if isinstance(value, Attribute):
                self.join(result, ConstantValue(value, op.dialect_name()))
            else:
                self.join(result, self.values.get(value))

    def _fold(self, op: Operation, attrs: Sequence[Attribute | None]) -> FoldResults | None:
        """``op->fold(constantOperands)`` on a detached copy of ``op`` whose
        known-constant operands are constant ops: folders read constants from
        the IR, and an in-place fold must not touch the real op."""
        if op.has_trait(ConstantLike, value_if_unregistered=False):
            # Every constant op folds to its value (ub.poison has no folder in passviz).
            value = constant_attr(op.results[0]) if len(op.results) == 1 else None
            return [value] if value is not None else None
        temporaries: dict[SSAValue, SSAValue] = {}
        constants: list[Operation] = []
        mapper: dict[SSAValue, SSAValue] = {}
        for operand, attr in zip(op.operands, attrs, strict=True):
            if attr is None or operand in mapper or not isinstance(operand.type, TypeAttribute):
                continue
            constant = mlir.materialize_constant(attr, operand.type)
            if constant is None:
                continue
            constants.append(constant)
            mapper[operand] = constant.results[0]
            temporaries[constant.results[0]] = operand
        copy = op.clone(value_mapper=mapper)
        try:
            folded = self.tables.fold(copy)
        finally:
            copy.erase()
            for constant in constants:
                constant.erase()
        if folded is None:
            return None
        results: FoldResults = []
        for value in folded:
            if isinstance(value, Attribute):
                results.append(value)
            elif isinstance(value, OpResult) and value.op is copy:
                return []  # folded to its own result: in place
            else:
                results.append(temporaries.get(value, value))
        return results

    def _visit_block(self, block: Block) -> None:
        """``AbstractSparseForwardDataFlowAnalysis::visitBlock``."""
        if not block.args:
            return
        parent = block.parent_op()
        region = block.parent
        if region is not None and block is region.first_block:
            if parent is not None and callable_region(parent) is region:
                self._visit_callable_arguments(parent, block)
            elif isinstance(parent, _REGION_BRANCHES):
                self._visit_region_successors(block, parent, block.args)
            else:
                self.set_unknown(block.args)
            return
        for predecessor in _unique(p for p in block.predecessors()):
            if (predecessor, block) not in self.live_edges:
                continue
            terminator = predecessor.last_op
            assert terminator is not None
            if not _is_branch(terminator):
                self.set_unknown(block.args)
                return
            for index, successor in enumerate(terminator.successors):
                if successor is not block:
                    continue
                for arg, operand in zip(block.args, _successor_operands(terminator, index), strict=True):
                    self.join(arg, self.values.get(operand))

    def _visit_callable_arguments(self, callable_op: Operation, entry: Block) -> None:
        self._join_predecessor_operands(callable_op, entry.args)

    def _join_predecessor_operands(self, point: Operation, values: Sequence[SSAValue]) -> None:
        """Join into ``values`` the operands of each known predecessor of ``point`` (a call's
        returns, a callable's callers); all unknown when some predecessor is not known."""
        predecessors = self.predecessors.get(point, Predecessors())
        if not predecessors.all_known:
            self.set_unknown(values)
            return
        for predecessor in predecessors.known:
            for value, operand in zip(values, predecessor.operands, strict=True):
                self.join(value, self.values.get(operand))

    def _visit_region_successors(self, point: Point, branch: Operation, lattices: Sequence[SSAValue]) -> None:
        """Join into ``lattices`` what every known predecessor of ``point`` forwards."""
        state = self.predecessors.get(point, Predecessors())
        for predecessor, inputs in state.known.items():
            if predecessor is branch:
                operands = _entry_successor_operands(branch)
            elif predecessor.name in ("scf.yield", "scf.condition"):
                operands = _terminator_successor_operands(predecessor)
            else:
                self.set_unknown(lattices)
                return
            first = 0
            if len(inputs) != len(lattices):
                # Values the branch does not forward (an induction variable) are unknown.
                if inputs:
                    first = _position(inputs[0])
                self.set_unknown(lattices[:first])
                self.set_unknown(lattices[first + len(inputs) :])
            # As llvm::zip: values past the forwarded ones were set unknown above.
            for operand, lattice in zip(operands, lattices[first:], strict=False):
                self.join(lattice, self.values.get(operand))


# -- interfaces ---------------------------------------------------------------------


def _position(value: SSAValue) -> int:
    """A block argument's or an op result's index."""
    assert isinstance(value, BlockArgument | OpResult)
    return value.index


def _is_region_or_callable_return(op: Operation) -> bool:
    block = op.parent_block()
    parent = op.parent_op()
    if block is None or parent is None or op.successors or block.last_op is not op:
        return False
    if not op.has_trait(IsTerminator):
        return False
    return isinstance(parent, _REGION_BRANCHES) or callable_region(parent) is not None


def _is_branch(op: Operation) -> bool:
    """``BranchOpInterface``: the branches of ``cf``."""
    return isinstance(op, cf.BranchOp | cf.ConditionalBranchOp | cf.SwitchOp)


def _successor_operands(op: Operation, index: int) -> Sequence[SSAValue]:
    if isinstance(op, cf.BranchOp):
        return op.arguments
    if isinstance(op, cf.ConditionalBranchOp):
        return op.then_arguments if index == 0 else op.else_arguments
    assert isinstance(op, cf.SwitchOp)
    return op.default_operands if index == 0 else op.case_operand[index - 1]


def _successor_for_operands(op: Operation, attrs: Sequence[Attribute | None]) -> Block | None:
    """``BranchOpInterface::getSuccessorForOperands``: the one successor the
    constant operands select, or None."""
    if isinstance(op, cf.BranchOp):
        return op.successor
    flag = attrs[0]
    if not isinstance(flag, IntegerAttr):
        return None
    if isinstance(op, cf.ConditionalBranchOp):
        return op.then_block if flag.value.data & 1 else op.else_block
    if isinstance(op, cf.SwitchOp):
        cases = op.case_values.get_values() if op.case_values is not None else ()
        for case, block in zip(cases, op.case_blocks, strict=True):
            if case == flag.value.data:
                return block
        return op.default_block
    return None


def _bool(attr: Attribute | None) -> bool | None:
    """A ``BoolAttr`` (an ``i1`` integer attribute) as a bool, else None."""
    if isa(attr, IntegerAttr[IntegerType]) and attr.type == i1:
        return bool(attr.value.data & 1)
    return None


def _entry_successors(
    op: Operation, attrs: Sequence[Attribute | None]
) -> list[tuple[Successor, Sequence[SSAValue]]]:
    """``RegionBranchOpInterface::getEntrySuccessorRegions`` with constant operands."""
    if isinstance(op, scf.IfOp):
        cond = _bool(attrs[0])
        successors: list[tuple[Successor, Sequence[SSAValue]]] = []
        if cond is None or cond:
            successors.append((op.true_region, ()))
        if cond is None or not cond:
            successors.append((op.false_region, ()) if op.false_region.blocks else (None, op.results))
        return successors
    if isinstance(op, scf.ForOp):
        into_body: tuple[Successor, Sequence[SSAValue]] = (op.body, op.body.block.args[1:])
        past_loop: tuple[Successor, Sequence[SSAValue]] = (None, op.results)
        trips = _trip_count_3_9(op, attrs) if llvm_snapshot() >= (3, 9) else None
        if trips is None:
            return [into_body, past_loop]
        # Triton 3.9's LLVM enters a loop known to run, and skips one known not to.
        return [into_body] if trips else [past_loop]
    if isinstance(op, scf.WhileOp):
        return [(op.before_region, op.before_region.block.args)]
    if isinstance(op, scf.IndexSwitchOp):
        arg = attrs[0]
        if not isinstance(arg, IntegerAttr):
            return [*((r, ()) for r in op.case_regions), (op.default_region, ())]
        for case, region in zip(op.cases.get_values(), op.case_regions, strict=True):
            if case == arg.value.data:
                return [(region, ())]
        return [(op.default_region, ())]
    return [(op.regions[0], ())]


def _trip_count_3_9(op: scf.ForOp, attrs: Sequence[Attribute | None]) -> int | None:
    """How many times ``op`` runs, from its bounds' constant values (Triton 3.9); None if unknown."""
    if op.lb == op.ub:
        return 0
    bound_type: Attribute = op.lb.type
    width = bound_type.bitwidth if isinstance(bound_type, IntegerType) else 64

    def signed(attr: Attribute | None) -> int | None:
        return APInt.of(attr.value.data, width).signed if isinstance(attr, IntegerAttr) else None

    return mlir.scf.trip_count_3_9(signed(attrs[0]), signed(attrs[1]), signed(attrs[2]), width)


def _terminator_successors(
    op: Operation, branch: Operation, attrs: Sequence[Attribute | None]
) -> list[tuple[Successor, Sequence[SSAValue]]]:
    """Where a region terminator of ``branch`` may go, given its constant operands."""
    if isinstance(op, scf.ConditionOp) and isinstance(branch, scf.WhileOp):
        cond = _bool(attrs[0])
        successors: list[tuple[Successor, Sequence[SSAValue]]] = []
        if cond is None or cond:
            successors.append((branch.after_region, branch.after_region.block.args))
        if cond is None or not cond:
            successors.append((None, branch.results))
        return successors
    if isinstance(branch, scf.ForOp):
        return [(branch.body, branch.body.block.args[1:]), (None, branch.results)]
    if isinstance(branch, scf.WhileOp):
        return [(branch.before_region, branch.before_region.block.args)]
    return [(None, branch.results)]


def _entry_successor_operands(branch: Operation) -> Sequence[SSAValue]:
    if isinstance(branch, scf.ForOp):
        return branch.iter_args
    if isinstance(branch, scf.WhileOp):
        return branch.arguments
    return ()


def _terminator_successor_operands(op: Operation) -> Sequence[SSAValue]:
    if isinstance(op, scf.ConditionOp):
        return op.args
    return op.operands


def _symbol_tables(op: Operation, all_uses_visible: bool) -> Iterator[tuple[Operation, bool]]:
    """``SymbolTable::walkSymbolTables``: each table after those nested in it."""
    is_table = op.has_trait(SymbolTable)
    if is_table:
        all_uses_visible |= not is_symbol(op) or Symbols.get_symbol_visibility(op) is Visibility.PRIVATE
    else:
        all_uses_visible = True
    for region in op.regions:
        for block in region.blocks:
            for nested in block.ops:
                yield from _symbol_tables(nested, all_uses_visible)
    if is_table:
        yield op, all_uses_visible


def _users_in_table(table: Operation) -> Iterator[Operation]:
    """The ops whose references a table's region holds (``getSymbolUses(region)``):
    every op in it, nested symbol tables included but not their bodies."""
    stack = [op for block in table.regions[0].blocks for op in block.ops]
    stack.reverse()
    while stack:
        op = stack.pop()
        yield op
        if op.has_trait(SymbolTable):
            continue
        nested = [o for region in op.regions for block in region.blocks for o in block.ops]
        stack.extend(reversed(nested))


def _unique(blocks: Iterator[Block]) -> list[Block]:
    seen: list[Block] = []
    for block in blocks:
        if block not in seen:
            seen.append(block)
    return seen


# -- the rewrite ---------------------------------------------------------------------


@dataclass
class _Folder:
    """``OperationFolder::getOrCreateConstant``: constants unique per
    (region, dialect, value, type), created at the start of the region's entry block."""

    ctx: Context
    unique: dict[tuple[Region, str, Attribute, Attribute], Operation] = field(
        default_factory=dict[tuple[Region, str, Attribute, Attribute], Operation]
    )

    def get_or_create(
        self, block: Block, value: ConstantValue, type_: Attribute
    ) -> tuple[SSAValue, Operation | None] | None:
        """The constant for ``value`` in the region ``block`` puts constants in,
        and the op to insert at the start of its entry block if it is new."""
        assert value.constant is not None and value.dialect is not None
        region = insertion_region(block)
        key = (region, value.dialect, value.constant, type_)
        existing = self.unique.get(key)
        if existing is not None:
            return existing.results[0], None
        constant = self._materialize(value.dialect, value.constant, type_)
        if constant is None:
            return None
        # A constant made by another dialect is also that dialect's constant.
        made_by = (region, constant.dialect_name(), value.constant, type_)
        if made_by[1] != value.dialect:
            existing = self.unique.get(made_by)
            if existing is not None:
                self.unique[key] = existing
                return existing.results[0], None
            self.unique[made_by] = constant
        self.unique[key] = constant
        return constant.results[0], constant

    def _materialize(self, dialect_name: str, value: Attribute, type_: Attribute) -> Operation | None:
        """``Dialect::materializeConstant`` of the dialect that made the constant."""
        if not isinstance(type_, TypeAttribute):
            return None
        # xDSL's arith interface would wrap any attribute (a poison) in arith.constant.
        if dialect_name not in ("arith", "ub"):
            dialect = self.ctx.get_optional_dialect(dialect_name)
            interface = dialect.get_interface(ConstantMaterializationInterface) if dialect else None
            if interface is not None:
                return interface.materialize_constant(value, type_)
        return mlir.materialize_constant(value, type_)


def would_be_trivially_dead(op: Operation) -> bool:
    """MLIR's ``wouldOpBeTriviallyDead``: no effects beyond reads (nested ops too)."""
    if op.has_trait(IsTerminator) or is_symbol(op):
        return False
    kinds = memory_effects(op)
    return kinds is not None and kinds <= {MemoryEffectKind.READ, MemoryEffectKind.ALLOC}


def rewrite(solver: SCCPSolver, ctx: Context, regions: Sequence[Region], recorder: StepRecorder) -> None:
    """``SCCP.cpp``'s ``rewrite``: replace the values known constant, erase what died."""
    folder = _Folder(ctx)
    worklist: list[Block] = []

    def add(regions: Sequence[Region]) -> None:
        for region in regions:
            worklist.extend(reversed(region.blocks))

    def replace(value: SSAValue, block: Block) -> bool:
        state = solver.values.get(value)
        if state is None or state.constant is None:
            return False
        made = folder.get_or_create(block, state, value.type)
        if made is None:
            return False
        constant, new_op = made
        root = value.op if isinstance(value, OpResult) else block.parent_op()
        with recorder.step("replace-with-constant", root=root):
            rewriter = recorder.rewriter(InsertPoint.at_start(block))
            if new_op is not None:
                rewriter.insert(new_op, InsertPoint.at_start(insertion_region(block).blocks[0]))
            replace_all_uses(rewriter, value, constant)
        return True

    add(regions)
    while worklist:
        block = worklist.pop()
        for op in list(block.ops):
            replaced_all = bool(op.results)
            for result in op.results:
                replaced_all &= replace(result, block)
            if replaced_all and would_be_trivially_dead(op):
                with recorder.step("erase-dead-op", root=op):
                    recorder.rewriter(InsertPoint.before(op)).erase(op, safe_erase=False)
                continue
            add(op.regions)
        for arg in block.args:
            replace(arg, block)


@dataclass(frozen=True)
class SCCP(TracedPass):
    """Sparse conditional constant propagation."""

    name = "sccp"
    announces_every_edit = True

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        solver = SCCPSolver(op, tables=CanonicalizationTables(ctx))
        solver.run()
        rewrite(solver, ctx, op.regions, recorder)
