"""xDSL's ``scf`` dialect, with ``scf.execute_region`` printed as MLIR prints it.

xDSL prints ``scf.execute_region -> (i32)`` and hides a result-less region's
``scf.yield``; MLIR prints ``-> i32`` and always shows the terminator.  The
trace shows IR the way the compilers it covers print it.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Dialect
from xdsl.printer import Printer


class ExecuteRegionOp(scf.ExecuteRegionOp):
    """``scf.execute_region``, printed in MLIR's syntax."""

    def print(self, printer: Printer) -> None:
        types = self.outs.types
        if len(types) == 1:
            printer.print_string(" -> ")
            printer.print_attribute(types[0])
        elif types:
            printer.print_string(" -> (")
            printer.print_list(types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(self.region, print_entry_block_args=False, print_block_terminators=True)
        if self.attributes:
            printer.print_attr_dict(self.attributes)


SCF = Dialect(
    "scf",
    [ExecuteRegionOp if op is scf.ExecuteRegionOp else op for op in scf.Scf.operations],
    list(scf.Scf.attributes),
)
"""The scf dialect as passviz registers it."""
