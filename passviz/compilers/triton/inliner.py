"""Triton's inliner interface (``TritonInlinerInterface`` in ``lib/Dialect/Triton/IR/Dialect.cpp``;
``passviz.rewrite.inliner``), which the triton family attaches to the ``tt`` dialect.

A ``tt.call`` may be inlined unless its callee is a ``tt.func`` marked ``noinline``; every
``tt`` op may be inlined and take inlined bodies; a ``tt.return`` of an inlined multi-block
body branches on.  ``tt.reduce`` and ``tt.scan`` have MLIR's ``SingleBlock`` trait.
"""

from __future__ import annotations

from xdsl.dialects.builtin import BoolAttr
from xdsl.ir import Operation

from passviz.compilers.triton.dialects.tt import FuncOp, ReduceOp, ReturnOp, ScanOp
from passviz.ir.hints import isa
from passviz.rewrite.inliner import FunctionDialectInliner


class TritonInliner(FunctionDialectInliner):
    """The ``tt`` dialect's answers to the inliner."""

    return_op = ReturnOp

    def is_legal_to_inline_call(self, call: Operation, callable: Operation, would_be_cloned: bool) -> bool:
        if not isinstance(callable, FuncOp):
            return True
        noinline = callable.attributes.get("noinline")
        return not (isa(noinline, BoolAttr) and noinline.value.data)

    def has_single_block(self, op: Operation) -> bool:
        return isinstance(op, ReduceOp | ScanOp)
