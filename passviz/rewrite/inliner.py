"""MLIR's ``DialectInlinerInterface`` (``mlir/Transforms/InliningUtils.h``): what a dialect
lets the inliner do with its ops.

The inliner asks the dialect of each op involved, as MLIR's ``InlinerInterface`` does: the
call's dialect whether the call may be inlined and how to convert a value of another type;
the dialect of the op around the call whether a body may go into its region; the dialect of
each op of the callee whether that op may move; the dialect of each terminator of an inlined
multi-block body how it branches on.  An op whose dialect has no such interface is never
inlined nor inlined into.  A dialect carries its interface (``Dialect``'s interfaces, as
``addInterfaces`` attaches it in MLIR), and the inliner finds it in the context.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialect_interfaces import DialectInterface
from xdsl.dialects import cf
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue


class DialectInlinerInterface(DialectInterface):
    """A dialect's answers to the inliner.  Every default is MLIR's: nothing is legal."""

    def is_legal_to_inline_call(self, call: Operation, callable: Operation, would_be_cloned: bool) -> bool:
        """``isLegalToInline(call, callable, wouldBeCloned)``: whether ``call`` (an op of this
        dialect) may be replaced by the body of ``callable``."""
        return False

    def is_legal_to_inline_region(self, dest: Region, src: Region, would_be_cloned: bool) -> bool:
        """``isLegalToInline(dest, src, wouldBeCloned, mapping)``: whether ``src`` may be
        inlined into ``dest``, a region of an op of this dialect."""
        return False

    def is_legal_to_inline_op(self, op: Operation, dest: Region, would_be_cloned: bool) -> bool:
        """``isLegalToInline(op, dest, wouldBeCloned, mapping)``: whether ``op``, an op of
        this dialect in the callee, may be inlined into ``dest``."""
        return False

    def handle_terminator(self, op: Operation, new_dest: Block) -> None:
        """``handleTerminator(op, newDest)``: ``op`` (of this dialect) ends a block of an
        inlined multi-block body; a return becomes a branch to ``new_dest`` (``branch_to``).
        Other terminators stay as they are (the default)."""

    def materialize_call_conversion(self, value: SSAValue, type: Attribute) -> Operation | None:
        """``materializeCallConversion``: an op (not inserted) converting ``value`` to ``type``,
        where a call of this dialect passes or expects a value of another type than its
        callee's; None if the dialect has none (the call is then not inlined)."""
        return None

    def has_single_block(self, op: Operation) -> bool:
        """Whether ``op`` (of this dialect) has MLIR's ``SingleBlock`` trait though its class
        does not say so (xDSL's ``SingleBlockImplicitTerminator`` says it for the others): a
        callee of several blocks is not inlined into its regions.  passviz's addition, since
        xDSL has no ``SingleBlock`` trait of its own."""
        return False


def branch_to(op: Operation, new_dest: Block) -> None:
    """Replace the return ``op`` by a ``cf.br`` to ``new_dest`` passing its operands (what
    ``handleTerminator`` does for a return, in every dialect that has one)."""
    block = op.parent_block()
    assert block is not None
    block.insert_op_before(cf.BranchOp(new_dest, *op.operands), op)
    block.erase_op(op)


class InlinerInterfaces:
    """MLIR's ``InlinerInterface``: each op's dialect's inliner interface, through the context."""

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._found: dict[str, DialectInlinerInterface | None] = {}

    def get(self, op: Operation) -> DialectInlinerInterface | None:
        """The inliner interface of ``op``'s dialect, or None if it has none."""
        name = op.dialect_name()
        if name not in self._found:
            dialect = self._ctx.get_optional_dialect(name)
            self._found[name] = dialect.get_interface(DialectInlinerInterface) if dialect else None
        return self._found[name]
