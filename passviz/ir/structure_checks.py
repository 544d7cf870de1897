"""MLIR's verifier: the checks xDSL's ``Operation.verify`` does not make, in MLIR's order.

- every block of a region whose op needs terminators holds at least one op (MLIR: "empty block:
  expect at least a terminator"; xDSL checks this only for single-block regions);
- every operand dominates its use (MLIR's ``verifyDominance``; xDSL has none);
- a branch passes each successor as many operands as the block has arguments, of their types;
- an op of an isolated-from-above region uses no value from outside it (xDSL checks it, but
  names the isolated op, where MLIR names the op that uses the value).

``verify_like_mlir`` verifies a whole module in the order MLIR's ``OperationVerifier`` visits it,
so that of several errors the one reported is MLIR's first: an op's own checks before its regions'
ops, the checks of its regions (region traits: the terminator an op's regions end with, isolation
from above, symbol tables) after them, the ops that are isolated from above after the other ops of
their block, each with the dominance of its regions.  Each failure is an ``OpVerifyError`` naming
the op MLIR reports it at, so that the caller can locate it (``file:line:col`` of that op in the
input).  Messages are MLIR's where these checks are passviz's own, xDSL's otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NoReturn

from xdsl.dialects import cf
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.traits import (
    CallableOpInterface,
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    OpTrait,
    SingleBlockImplicitTerminator,
    SymbolTable,
    SymbolUserOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from passviz.ir.dominance import DominanceChecker


class OpVerifyError(VerifyException):
    """A verifier failure about ``op``, whose location the caller reports."""

    def __init__(self, op: Operation, message: str) -> None:
        super().__init__(message)
        self.op = op


def check_terminated_blocks(root: Operation) -> None:
    """Raise ``OpVerifyError`` at the first op one of whose regions has an empty block where
    blocks end in terminators (MLIR reports it at that op)."""
    for op in root.walk():
        # Only a region of several blocks can hold an empty one that xDSL lets through.
        if not any(len(region.blocks) > 1 for region in op.regions) or op.has_trait(NoTerminator):
            continue
        for region in op.regions:
            if len(region.blocks) > 1 and any(block.first_op is None for block in region.blocks):
                raise OpVerifyError(op, "empty block: expect at least a terminator")


def check_dominance(root: Operation, *, into_isolated: bool = True) -> None:
    """Raise ``OpVerifyError`` at the first use, in walk order, of an operand that does not dominate it.

    ``into_isolated=False`` leaves out the regions of the ops isolated from above that ``root``
    holds (MLIR checks each of those on its own, after verifying its ops).

    Most operands are defined earlier in the user's block, or are available at an op enclosing
    it: those are found in the sets of values defined so far in each enclosing block (nested
    regions are visited before their block goes on, so the sets hold exactly what is defined
    before the op), and only the others ask the dominator tree."""
    checker = DominanceChecker()
    chain: list[set[SSAValue]] = []

    def visit(op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                available: set[SSAValue] = set(block.args)
                chain.append(available)
                for inner in block.ops:
                    for operand in inner.operands:
                        if (
                            operand in available
                            or _in_any(operand, chain)
                            or checker.dominates_use(operand, inner)
                        ):
                            continue
                        _raise_first_undominated(root, checker, into_isolated)
                    if inner.regions and (into_isolated or not inner.has_trait(IsolatedFromAbove)):
                        visit(inner)
                    available.update(inner.results)
                chain.pop()

    visit(root)


def _raise_first_undominated(root: Operation, checker: DominanceChecker, into_isolated: bool) -> NoReturn:
    """Raise at the use MLIR's ``verifyDominanceOfContainedRegions`` reports first: it checks the
    ops of an op's regions, then (last found, first checked) the regions of those ops."""
    worklist = [root]
    while worklist:
        op = worklist.pop()
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    for index, operand in enumerate(inner.operands):
                        if not checker.dominates_use(operand, inner):
                            raise OpVerifyError(inner, f"operand #{index} does not dominate this use")
                    if inner.regions and (into_isolated or not inner.has_trait(IsolatedFromAbove)):
                        worklist.append(inner)
    raise AssertionError("an operand that does not dominate its use was found, and then not")


def _in_any(value: SSAValue, chain: list[set[SSAValue]]) -> bool:
    """Whether a block enclosing the use defines ``value`` before it (the innermost is tried first)."""
    for values in chain:
        if value in values:
            return True
    return False


def check_structure(root: Operation) -> None:
    """Both checks, as MLIR's verifier orders them: blocks before dominance."""
    check_terminated_blocks(root)
    check_dominance(root)


# -- the whole verifier, in MLIR's order ------------------------------------------------------

_REGION_TRAITS = (SingleBlockImplicitTerminator, IsolatedFromAbove, SymbolTable)
"""xDSL's traits whose MLIR counterparts are region traits, verified after the op's regions."""

_TERMINATOR_CHECKED_FIRST = frozenset({"scf.parallel"})
"""Ops whose own verifier in MLIR checks their regions' terminator before the regions' ops
(``scf.parallel``: "expects body to terminate with 'scf.reduce'")."""

_REGION_CHECKS = re.compile(
    r"control flow edge|combine operation must be terminated|terminates with operation"
    r"|block with no terminator"
    r"|region arguments as the number of input/output operands"
)
"""The messages of op verifiers that MLIR makes in ``verifyRegions``, a region interface or the
block checks (``RegionBranchOpInterface``'s types along control flow edges, a reduction's combine
region, a function's body without a terminator, linalg's structured-op interface, which MLIR
verifies with the regions), after verifying the regions' ops."""

IMPLICIT_TERMINATORS = frozenset(
    {"scf.for", "scf.if", "scf.forall", "scf.parallel", "affine.for", "affine.if", "affine.parallel"}
)
"""Ops whose parser in MLIR ends each region with the terminator it lacks (``ensureTerminator``):
an ``scf.yield`` without operands, say, which their region checks then find too short."""


def verify_like_mlir(root: Operation) -> None:
    """Verify ``root`` and all it holds as MLIR's verifier does, raising its first error.

    xDSL's ``Operation.verify`` checks an op's nested ops before the op itself, and names no op;
    this visits the ops as MLIR's ``OperationVerifier`` does, and each failure is an
    ``OpVerifyError`` at the op MLIR names."""
    uses: list[OpVerifyError] = []
    _verify_isolated(root, uses)
    if uses:
        raise uses[0]


def _verify_isolated(op: Operation, uses: list[OpVerifyError]) -> None:
    """MLIR's ``verifyOpAndDominance``: ``op`` and its regions, then their dominance."""
    _verify_operation(op, uses)
    check_dominance(op, into_isolated=False)


def _verify_operation(op: Operation, uses: list[OpVerifyError]) -> None:
    """``op``'s own checks, then its blocks and their ops (those isolated from above last), then
    the checks of its regions.

    ``uses`` collects the failures of symbol uses, which MLIR checks with the symbol table they
    are in (after its regions): an op that is a symbol table reports the first of its own."""
    table = op.has_trait(SymbolTable)
    if table:
        uses = []
    postponed = _verify_own(op, uses)
    isolated: list[Operation] = []
    for region in op.regions:
        for block in region.blocks:
            if block.parent is not region:
                raise ValueError("Parent pointer of block does not refer to containing region")
            _enter_block(block, op)
            for child in block.ops:
                if child.parent is not block:
                    raise ValueError("Parent pointer of operation does not refer to containing region")
                if child.regions and child.has_trait(IsolatedFromAbove):
                    isolated.append(child)
                else:
                    _verify_operation(child, uses)
            _exit_block(block)
    for child in isolated:
        _verify_isolated(child, uses)
    if postponed is not None:
        if op.has_trait(IsolatedFromAbove):
            check_isolation(op)
        raise postponed
    if table and uses:
        raise uses[0]


def _needs_terminator(block: Block) -> bool:
    """MLIR's ``!mayBeValidWithoutTerminator``: a block of a region of several blocks, or the one
    block of a region whose op has not ``NoTerminator``."""
    region = block.parent
    if region is None:
        return False
    if len(region.blocks) > 1:
        return True
    parent = region.parent
    return parent is not None and not parent.has_trait(NoTerminator)


def _enter_block(block: Block, op: Operation) -> None:
    """MLIR's checks of a block before its ops: it is not empty where a terminator is needed, and
    only its last op has successors."""
    last = block.last_op
    if last is None:
        if _needs_terminator(block):
            raise OpVerifyError(op, "empty block: expect at least a terminator")
        return
    for child in block.ops:
        if child.successors and child is not last:
            raise OpVerifyError(child, "operation with block successors must terminate its parent block")


def _exit_block(block: Block) -> None:
    """MLIR's check of a block after its ops (``verifyOnExit``): it ends with a terminator where
    it needs one.  After the ops, nested regions included, so that an op's own failure inside the
    last op (a misplaced return, say) comes first, as in MLIR."""
    last = block.last_op
    if last is None or not _needs_terminator(block) or last.has_trait(IsTerminator):
        return
    parent = block.parent_op()
    if parent is not None and parent.name in IMPLICIT_TERMINATORS:
        raise OpVerifyError(
            parent, f"'{parent.name}' op region control flow edge: the implicit terminator has no operands"
        )
    raise OpVerifyError(last, f"block with no terminator, has '{last.name}'")


_UNTERMINATED = re.compile(r"terminates block in (single|multi)-block region but is not a terminator")
"""xDSL's own check that a block ends with a terminator, made with the op's (MLIR makes it on
leaving the block: ``_exit_block``)."""


def _named(op: Operation, message: str) -> str:
    """``message`` naming ``op`` as MLIR's op errors do (``'toy.print' op ...``), unless it names
    an op already (xDSL's own messages mostly do not)."""
    return message if message.startswith(("'", "Operation ")) else f"'{op.name}' op {message}"


def _verify_op(op: Operation) -> None:
    """xDSL's checks of ``op`` itself; for a block's last op that is no terminator, its custom
    verifier still runs (xDSL stops at the missing terminator, which ``_exit_block`` reports
    later, where MLIR does)."""
    try:
        op.verify(verify_nested_ops=False)
    except VerifyException as exc:
        if not _UNTERMINATED.search(str(exc)):
            raise
        try:
            op.verify_()
        except VerifyException as err:
            op.emit_error(f"Operation does not verify: {err}", err)


def _verify_own(op: Operation, uses: list[OpVerifyError]) -> OpVerifyError | None:
    """``op``'s own checks; raise their failure, or return it where it is one of its regions'
    (MLIR makes those after verifying the regions' ops)."""
    if op.successors:
        check_successor_operands(op)
    check_declaration(op)
    try:
        _verify_op(op)
    except VerifyException as exc:
        failure = exc if isinstance(exc, OpVerifyError) else OpVerifyError(op, _named(op, str(exc)))
        if _trait_fails(op, SymbolUserOpInterface):
            uses.append(failure)
            return None
        if (
            op.regions
            and op.name not in _TERMINATOR_CHECKED_FIRST
            and (_REGION_CHECKS.search(str(exc)) or _trait_fails(op, _REGION_TRAITS))
        ):
            return failure
        raise failure from None
    except (RecursionError, MemoryError):
        raise
    except Exception as exc:
        # A verifier that reads its regions' ops as valid (an index past a yield's operands, say)
        # fails on broken ones: the regions' ops are verified first, and tell what is wrong.
        failure = OpVerifyError(op, f"'{op.name}' op does not verify: {type(exc).__name__}: {exc}")
        if op.regions:
            return failure
        raise failure from None
    return None


def _trait_fails(op: Operation, kinds: type[OpTrait] | tuple[type[OpTrait], ...]) -> bool:
    """Whether one of ``op``'s traits of ``kinds`` fails on it: its check of the symbols it uses
    (``SymbolUserOpInterface``), its region traits (``_REGION_TRAITS``)."""
    for trait in type(op).traits:
        if isinstance(trait, kinds):
            try:
                trait.verify(op)
            except VerifyException:
                return True
    return False


def check_declaration(op: Operation) -> None:
    """MLIR's ``SymbolOpInterface`` check of a function without a body: a declaration is private
    or nested (``llvm.func``, whose external declarations are public, aside)."""
    if not op.regions or op.regions[0].blocks or op.name.startswith("llvm."):
        return
    if not op.has_trait(CallableOpInterface) or op.get_attr_or_prop("function_type") is None:
        return
    visibility = op.get_attr_or_prop("sym_visibility")
    if visibility is None or (isinstance(visibility, StringAttr) and visibility.data == "public"):
        raise OpVerifyError(op, f"'{op.name}' op symbol declaration cannot have public visibility")


def _successor_operands(op: Operation) -> Sequence[Sequence[SSAValue]] | None:
    """The operands ``op`` passes to each of its successors, for the branches of ``cf``."""
    if isinstance(op, cf.BranchOp):
        return [op.arguments]
    if isinstance(op, cf.ConditionalBranchOp):
        return [op.then_arguments, op.else_arguments]
    if isinstance(op, cf.SwitchOp):
        return [op.default_operands, *op.case_operand]
    return None


def check_successor_operands(op: Operation) -> None:
    """MLIR's ``verifyBranchSuccessorOperands``: a branch passes each successor one operand per
    block argument, of the argument's type."""
    groups = _successor_operands(op)
    if groups is None or len(groups) != len(op.successors):
        return
    for index, (block, operands) in enumerate(zip(op.successors, groups, strict=True)):
        if len(operands) != len(block.args):
            raise OpVerifyError(
                op,
                f"branch has {len(operands)} operands for successor #{index}, "
                f"but target block has {len(block.args)}",
            )
        for position, (operand, arg) in enumerate(zip(operands, block.args, strict=True)):
            if operand.type != arg.type:
                raise OpVerifyError(op, f"type mismatch for bb argument #{position} of successor #{index}")


def check_isolation(op: Operation) -> None:
    """MLIR's ``verifyIsIsolatedFromAbove``: raise at the first op of ``op``'s regions (theirs and
    their nested regions', those of ops isolated from above left out) that uses a value defined
    outside the region, in MLIR's order: a region's ops, then the regions they hold."""
    for region in op.regions:
        pending: list[Region] = [region]
        while pending:
            for block in pending.pop().blocks:
                for child in block.ops:
                    for operand in child.operands:
                        # Defined in the region or one nested in it: its owner (op or block) lies under it.
                        if not region.is_ancestor(operand.owner):
                            raise OpVerifyError(
                                child, f"'{child.name}' op using value defined outside the region"
                            )
                    if child.regions and not child.has_trait(IsolatedFromAbove):
                        pending.extend(child.regions)
