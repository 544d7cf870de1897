"""Triton's inliner interface (``TritonInlinerInterface`` in ``lib/Dialect/Triton/IR/Dialect.cpp``;
``passviz.rewrite.inliner``), which the triton family attaches to the ``tt`` dialect.

A ``tt.call`` may be inlined unless its callee is a ``tt.func`` marked ``noinline``; every
``tt`` op may be inlined and take inlined bodies; a ``tt.return`` of an inlined multi-block
body branches on.  ``tt.reduce`` and ``tt.scan`` have MLIR's ``SingleBlock`` trait.
"""

from __future__ import annotations

from xdsl.dialects.builtin import BoolAttr
from xdsl.ir import Block, Operation

from passviz.compilers.mlir.inliner import FuncInliner
from passviz.compilers.triton.dialects.tt import FuncOp, ReduceOp, ReturnOp, ScanOp
from passviz.ir.hints import isa
from passviz.rewrite.inliner import branch_to


class TritonInliner(FuncInliner):
    """The ``tt`` dialect's answers to the inliner: ``func``'s (every op may move, every region
    take inlined bodies), but for ``noinline`` callees and ``tt.return``."""

    def is_legal_to_inline_call(self, call: Operation, callable: Operation, would_be_cloned: bool) -> bool:
        if not isinstance(callable, FuncOp):
            return True
        noinline = callable.attributes.get("noinline")
        return not (isa(noinline, BoolAttr) and noinline.value.data)

    def handle_terminator(self, op: Operation, new_dest: Block) -> None:
        if isinstance(op, ReturnOp):
            branch_to(op, new_dest)

    def has_single_block(self, op: Operation) -> bool:
        return isinstance(op, ReduceOp | ScanOp)
