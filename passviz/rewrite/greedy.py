"""MLIR's greedy pattern rewrite driver, step by step, with every action traced.

This follows ``mlir/lib/Transforms/Utils/GreedyPatternRewriteDriver.cpp``
(``RegionPatternRewriteDriver``) so that passviz's output matches MLIR's, op
order included:

- each iteration starts from an empty LIFO worklist filled by a walk of the
  region: post-order (bottom-up, the default) or pre-order reversed (top-down,
  what ``canonicalize`` uses);
- while filling it, constants are made unique per isolated-from-above region
  and hoisted to the front of its entry block (``OperationFolder::
  insertKnownConstant``), in the order MLIR moves them;
- an op taken from the worklist is erased if trivially dead, else folded
  (constants materialized right before it), else the first matching pattern
  rewrites it;
- inserted and modified ops and their ancestors are pushed; so are the
  defining ops of an erased op's operands that have at most one other user;
- after the worklist empties, the regions are simplified (dead blocks, dead
  ops and block arguments);
- iterations repeat while anything changed, at most ``max_iterations`` times
  (or the recorder's limit: ``passviz trace --max-iterations``).

Every action that changes the IR is one trace step, named after the pattern
that fired, or ``fold``, ``erase-dead-op``, ``unique-constant``,
``hoist-constant`` and ``simplify-regions``.  A plain pass that drives the
driver with a ``NullRecorder`` is recorded too, while passviz records it
(``passviz.ir.rewrite_hooks``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from xdsl.context import Context
from xdsl.dialect_interfaces.constant_materialization import ConstantMaterializationInterface
from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue, TypeAttribute
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriterListener, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import ConstantLike, IsolatedFromAbove
from xdsl.transforms.dead_code_elimination import is_trivially_dead, region_dce

from passviz.ir.dominance import immediate_dominators
from passviz.ir.rewrite_hooks import active_observer
from passviz.ir.traits import has_trait
from passviz.recording.interface import NullRecorder, StepRecorder
from passviz.rewrite.matchers import constant_attr

FoldResult = Sequence[SSAValue | Attribute]
"""What a folder gives: one value or constant attribute per result; empty: folded in place."""

PatternSource = Callable[[Operation], Sequence[RewritePattern]]
"""The patterns to try on an op, in the order MLIR's applicator tries them."""

Folder = Callable[[Operation], FoldResult | None]
"""An op's folder: None when it does not fold."""

Materializer = Callable[[Attribute, TypeAttribute], Operation | None]
"""Makes a constant op for a folded attribute (``Dialect::materializeConstant``)."""


@dataclass(frozen=True)
class GreedyConfig:
    """``GreedyRewriteConfig``: how the driver walks and what it may do."""

    top_down: bool = False
    """Fill the worklist in pre-order so ops are processed first to last
    (``useTopDownTraversal``); the default processes them bottom-up."""
    fold: bool = True
    """Try each op's folder before its patterns."""
    max_iterations: int = 10
    """Iterations over the whole region before the driver gives up (a recorder
    may set another limit: ``StepRecorder.iteration_limit``)."""
    region_simplification: Literal["disabled", "normal"] = "normal"
    """Simplify regions after each iteration: erase unreachable blocks, dead ops
    and block arguments.  MLIR's ``aggressive`` (its default) also merges
    identical blocks; passviz does not implement it, so it cannot be asked for."""

    def __post_init__(self) -> None:
        if self.region_simplification not in ("disabled", "normal"):
            raise ValueError(
                f"region_simplification={self.region_simplification!r}: passviz's greedy driver "
                "does 'normal' or 'disabled' ('aggressive' block merging is not implemented)"
            )


DEFAULT = GreedyConfig()
"""``GreedyRewriteConfig``'s defaults but for region simplification: bottom-up,
folding, ``normal`` region simplification (MLIR's default is ``aggressive``)."""

CANONICALIZE = GreedyConfig(top_down=True, region_simplification="normal")
"""MLIR's ``canonicalize`` pass: top-down, regions simplified without block merging."""


class Worklist:
    """MLIR's LIFO worklist with set semantics and O(1) removal."""

    def __init__(self) -> None:
        self._ops: list[Operation | None] = []
        self._index: dict[Operation, int] = {}

    def __bool__(self) -> bool:
        while self._ops and self._ops[-1] is None:
            self._ops.pop()
        return bool(self._ops)

    def push(self, op: Operation) -> None:
        """Append ``op`` unless it is already in the list."""
        if op in self._index:
            return
        self._index[op] = len(self._ops)
        self._ops.append(op)

    def pop(self) -> Operation:
        """The last op not removed (the list must not be empty)."""
        while (op := self._ops.pop()) is None:
            pass
        del self._index[op]
        return op

    def remove(self, op: Operation) -> None:
        index = self._index.pop(op, None)
        if index is not None:
            self._ops[index] = None

    def reverse(self) -> None:
        self._ops.reverse()
        self._index = {op: i for i, op in enumerate(self._ops) if op is not None}


@dataclass
class _ConstantScopes:
    """``OperationFolder``'s unique constants, per insertion region."""

    owned: set[Operation] = field(default_factory=set[Operation])
    """Constants the folder owns (kept as the unique one of their value)."""
    unique: dict[tuple[Region, str, Attribute, Attribute], Operation] = field(
        default_factory=dict[tuple[Region, str, Attribute, Attribute], Operation]
    )
    """The constant kept for (region, dialect, value, type)."""
    regions: dict[Block, Region] = field(default_factory=dict[Block, Region])
    """``insertion_region`` of each block seen, so that a block of constants climbs once."""


def constant_value(op: Operation) -> Attribute | None:
    """The value of a ``ConstantLike`` op (``m_Constant`` on its result), or None; ``unit`` for
    a constant op that holds no ``value`` (it is still uniqued by its name)."""
    if len(op.results) != 1:
        return None
    found = constant_attr(op.results[0])
    if found is not None:
        return found
    return UnitAttr() if has_trait(op, ConstantLike, value_if_unregistered=False) else None


def insertion_region(block: Block) -> Region:
    """Where the folder puts constants: the nearest isolated-from-above region."""
    region = block.parent
    assert region is not None
    while True:
        parent = region.parent
        if parent is None or has_trait(parent, IsolatedFromAbove):
            return region
        above = parent.parent_region()
        if above is None:
            return region
        region = above


@dataclass(eq=False)
class GreedyDriver:
    """Applies patterns and folders to a region until nothing changes."""

    ctx: Context
    recorder: StepRecorder
    patterns: PatternSource
    folder: Folder
    materializer: Materializer | None = None
    config: GreedyConfig = DEFAULT
    worklist: Worklist = field(init=False, default_factory=Worklist)
    scope: Region | None = field(init=False, default=None)
    rewriter: PatternRewriter = field(init=False)

    def __post_init__(self) -> None:
        observer = active_observer()
        if isinstance(self.recorder, NullRecorder) and isinstance(observer, StepRecorder):
            self.recorder = observer  # a plain pass passviz is recording
        self.rewriter = self.recorder.rewriter(_nowhere())
        self.rewriter.extend_from_listener(
            PatternRewriterListener(
                operation_insertion_handler=[self._add],
                operation_modification_handler=[self._add],
                operation_removal_handler=[self._on_erase],
            )
        )

    # -- worklist ---------------------------------------------------------------

    def _add(self, op: Operation) -> None:
        """Push ``op`` and its ancestors up to the scope region (``addToWorklist``)."""
        ancestors: list[Operation] = []
        current: Operation | None = op
        while current is not None:
            ancestors.append(current)
            region = current.parent_region()
            if region is self.scope:
                for ancestor in ancestors:
                    self.worklist.push(ancestor)
                return
            if region is None:
                return
            current = region.parent

    def _on_erase(self, op: Operation) -> None:
        """``notifyOperationErased``: revisit operands' producers, forget ``op``."""
        for operand in op.operands:
            producer = operand.owner
            if not isinstance(producer, Operation):
                continue
            if _one_other_user(operand, op):
                self._add(producer)
        for nested in op.walk():
            self.worklist.remove(nested)

    def _fill(self, region: Region, constants: _ConstantScopes) -> None:
        """Fill the worklist for a new iteration, uniquing and hoisting constants."""
        ops = list(region.walk(region_first=not self.config.top_down))
        for op in ops:
            if op.parent is not None and not self._known_constant(op, constants):
                self._add(op)
        if self.config.top_down:
            # Pre-order, reversed: popping from the end goes first to last.
            self.worklist.reverse()

    def _known_constant(self, op: Operation, constants: _ConstantScopes) -> bool:
        """``insertKnownConstant``; True when ``op`` was replaced by an equal constant."""
        value = constant_value(op)
        block = op.parent
        if value is None or block is None:
            return False
        if op in constants.owned:
            return False
        region = constants.regions.get(block)
        if region is None:
            region = constants.regions[block] = insertion_region(block)
        key = (region, op.dialect_name(), value, op.results[0].type)
        kept = constants.unique.get(key)
        if kept is not None:
            with self.recorder.step("unique-constant", root=op):
                self.rewriter.replace(op, [], list(kept.results))
            return True
        entry = region.blocks.first
        assert entry is not None
        previous = op.prev_op
        if block is not entry or (entry.first_op is not op and previous not in constants.owned):
            with self.recorder.step("hoist-constant", root=op):
                op.detach()
                self.rewriter.insert(op, InsertPoint.at_start(entry))
        constants.unique[key] = op
        constants.owned.add(op)
        return False

    # -- running ----------------------------------------------------------------

    def simplify(self, region: Region) -> bool:
        """Rewrite inside ``region`` until a fixpoint; True if it converged."""
        self.scope = region
        iteration = 0
        changed = True
        limit = self.recorder.iteration_limit(self.config.max_iterations)
        while changed:
            iteration += 1
            if iteration > limit:
                # MLIR stops here silently; a trace flags it, since a pattern
                # set that never settles is what a person is looking for.
                self.recorder.not_converged(f"{limit} iterations")
                return False
            self.worklist = Worklist()
            self._fill(region, _ConstantScopes())
            changed = self._process()
            if self.config.region_simplification != "disabled":
                changed |= self._simplify_regions(region)
        return True

    def _process(self) -> bool:
        changed = False
        while self.worklist:
            op = self.worklist.pop()
            if op.parent is None:
                continue
            changed |= self._visit(op)
        return changed

    def _visit(self, op: Operation) -> bool:
        if is_trivially_dead(op):
            with self.recorder.step("erase-dead-op", root=op):
                self.rewriter.erase(op)
            return True
        if self.config.fold and not has_trait(op, ConstantLike):
            if self._fold(op):
                return True
        return self._apply_patterns(op)

    def _fold(self, op: Operation) -> bool:
        folded = self.folder(op)
        if folded is None:
            return False
        if not folded:
            with self.recorder.step("fold", root=op):
                self.rewriter.notify_op_modified(op)
            return True
        constants: list[Operation] = []
        values: list[SSAValue] = []
        for result, value in zip(op.results, folded, strict=True):
            if isinstance(value, SSAValue):
                values.append(value)
                continue
            constant = self._materialize(op, value, result.type)
            if constant is None:
                return False
            constants.append(constant)
            values.append(constant.results[0])
        with self.recorder.step("fold", root=op):
            self.rewriter.replace(op, constants, values)
        return True

    def _materialize(self, op: Operation, value: Attribute, type: Attribute) -> Operation | None:
        """``Dialect::materializeConstant``: passviz's MLIR table first (it makes
        ``ub.poison`` for poison, as MLIR does), then the op's dialect's own."""
        if not isinstance(type, TypeAttribute):
            return None
        if self.materializer is not None and (constant := self.materializer(value, type)) is not None:
            return constant
        dialect = self.ctx.get_optional_dialect(op.dialect_name())
        interface = dialect.get_interface(ConstantMaterializationInterface) if dialect else None
        return interface.materialize_constant(value, type) if interface is not None else None

    def _apply_patterns(self, op: Operation) -> bool:
        rewriter = self.rewriter
        # Patterns on region ops and branches move whole blocks (split, inline,
        # merge) without announcing each op: compare the whole module there.
        structural = bool(op.regions or op.successors)
        for pattern in self.patterns(op):
            rewriter.has_done_action = False
            rewriter.current_operation = op
            rewriter.insertion_point = InsertPoint.before(op)
            with self.recorder.step(type(pattern).__name__, root=op, full=structural) as step:
                pattern.match_and_rewrite(op, rewriter)
                if not rewriter.has_done_action:
                    step.cancel()
            if rewriter.has_done_action:
                return True
        return False

    def _simplify_regions(self, region: Region) -> bool:
        listener = PatternRewriterListener()
        listener.extend_from_listener(self.rewriter)
        with self.recorder.step("simplify-regions", full=True) as step:
            changed = _erase_unreachable_blocks(region, self.rewriter) | region_dce(region, listener)
            if not changed:
                step.cancel()
        return changed


def _one_other_user(value: SSAValue, op: Operation) -> bool:
    """Whether at most one op besides ``op`` uses ``value``; stops at the second
    (a constant with thousands of users must not make every erase walk them all)."""
    other: Operation | None = None
    for use in value.uses:
        user = use.operation
        if user is op or user is other:
            continue
        if other is not None:
            return False
        other = user
    return True


def _nowhere() -> InsertPoint:
    """A placeholder insertion point; every rewrite sets its own."""
    return InsertPoint.at_end(Block())


def _erase_unreachable_blocks(region: Region, rewriter: PatternRewriter) -> bool:
    """MLIR's ``eraseUnreachableBlocks`` for the regions under ``region``."""
    changed = False
    for op in [o for o in region.walk() if o.regions]:
        for inner in op.regions:
            changed |= _erase_unreachable_in(inner, rewriter)
    return _erase_unreachable_in(region, rewriter) | changed


def _erase_unreachable_in(region: Region, rewriter: PatternRewriter) -> bool:
    entry = region.blocks.first
    if entry is None or entry.next_block is None:
        return False
    reachable = immediate_dominators(region)  # the blocks the entry reaches
    dead = [block for block in region.blocks if block not in reachable]
    for block in dead:
        # Ops of dead blocks may use each other's results: drop them last to first.
        for op in reversed(list(block.ops)):
            rewriter.erase(op, safe_erase=False)
    for block in dead:
        region.detach_block(block)
        block.erase()
    return bool(dead)
