"""The checks of MLIR's verifier that xDSL's ``Operation.verify`` does not make.

- every block of a region whose op needs terminators holds at least one op (MLIR: "empty block:
  expect at least a terminator"; xDSL checks this only for single-block regions);
- every operand dominates its use (MLIR's ``verifyDominance``; xDSL has none).

Each failure is an ``OpVerifyError`` naming the op it is about, so that the caller can locate it
(``file:line:col`` of that op in the input).  Messages are MLIR's.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue
from xdsl.traits import NoTerminator
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


def check_dominance(root: Operation) -> None:
    """Raise ``OpVerifyError`` at the first use, in walk order, of an operand that does not dominate it.

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
                    for index, operand in enumerate(inner.operands):
                        if (
                            operand in available
                            or _in_any(operand, chain)
                            or checker.dominates_use(operand, inner)
                        ):
                            continue
                        raise OpVerifyError(inner, f"operand #{index} does not dominate this use")
                    if inner.regions:
                        visit(inner)
                    available.update(inner.results)
                chain.pop()

    visit(root)


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
