"""The inliner interfaces of the upstream dialects passviz inlines (MLIR's
``DialectInlinerInterface`` of each; ``passviz.rewrite.inliner``).

Every op of ``arith``, ``math``, ``cf``, ``gpu``, ``ub`` and ``tensor`` may be inlined;
``scf`` ops take inlined bodies into their regions too; ``func.call`` may be inlined, and a
``func.return`` of an inlined multi-block body branches on.  The mlir family attaches them to
the dialects (``passviz.compilers.mlir.family``).
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Block, Operation, Region

from passviz.rewrite.inliner import DialectInlinerInterface, branch_to


class OpsInliner(DialectInlinerInterface):
    """Any op of the dialect may be inlined (``arith``, ``math``, ``cf``, ``gpu``, ``ub``,
    ``tensor``)."""

    def is_legal_to_inline_op(self, op: Operation, dest: Region, would_be_cloned: bool) -> bool:
        return True


class ScfInliner(OpsInliner):
    """``SCFInlinerInterface``: ``scf`` ops may be inlined, and take inlined bodies."""

    def is_legal_to_inline_region(self, dest: Region, src: Region, would_be_cloned: bool) -> bool:
        return True

    def has_single_block(self, op: Operation) -> bool:
        # MLIR's SingleBlock trait; xDSL's classes mark the others SingleBlockImplicitTerminator.
        return op.name in ("scf.while", "scf.forall")


class FuncInliner(OpsInliner):
    """``FuncInlinerInterface``: every ``func.call`` may be inlined, bodies go into ``func``
    ops, and a ``func.return`` branches to the code after the call."""

    def is_legal_to_inline_call(self, call: Operation, callable: Operation, would_be_cloned: bool) -> bool:
        return True

    def is_legal_to_inline_region(self, dest: Region, src: Region, would_be_cloned: bool) -> bool:
        return True

    def handle_terminator(self, op: Operation, new_dest: Block) -> None:
        if isinstance(op, func.ReturnOp):
            branch_to(op, new_dest)
