"""xDSL's ``gpu`` dialect, with ``gpu.barrier`` in MLIR's syntax (Triton's ``tl.debug_barrier``).

xDSL 0.74's ``gpu.barrier`` has only the generic syntax; MLIR (and so
Triton 3.6's frontend) prints it as the bare ``gpu.barrier``.
"""

from __future__ import annotations

from typing import Self

from xdsl.dialects import gpu
from xdsl.parser import Parser
from xdsl.printer import Printer

from passviz.compilers.mlir.dialects import replacing


class BarrierOp(gpu.BarrierOp):
    """``gpu.barrier`` read and printed as ``gpu.barrier {attrs}``."""

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        op = cls()
        attrs = parser.parse_optional_attr_dict()
        op.attributes |= attrs
        return op


GPU = replacing(gpu.GPU, {gpu.BarrierOp: BarrierOp})
"""The gpu dialect as passviz registers it."""
