"""The checks of MLIR's verifier that xDSL's ``Operation.verify`` does not make.

- every block of a region whose op needs terminators holds at least one op (MLIR: "empty block:
  expect at least a terminator"; xDSL checks this only for single-block regions);
- every operand dominates its use (MLIR's ``verifyDominance``; xDSL has none).

Each failure is an ``OpVerifyError`` naming the op it is about, so that the caller can locate it
(``file:line:col`` of that op in the input).  Messages are MLIR's.
"""

from __future__ import annotations

from xdsl.ir import Operation
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
        if op.has_trait(NoTerminator):
            continue
        for region in op.regions:
            if len(region.blocks) > 1 and any(block.first_op is None for block in region.blocks):
                raise OpVerifyError(op, "empty block: expect at least a terminator")


def check_dominance(root: Operation) -> None:
    """Raise ``OpVerifyError`` at the first use, in walk order, of an operand that does not dominate it."""
    checker = DominanceChecker()
    for op in root.walk():
        for index, operand in enumerate(op.operands):
            if not checker.dominates_use(operand, op):
                raise OpVerifyError(op, f"operand #{index} does not dominate this use")


def check_structure(root: Operation) -> None:
    """Both checks, as MLIR's verifier orders them: blocks before dominance."""
    check_terminated_blocks(root)
    check_dominance(root)
