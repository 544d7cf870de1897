"""xDSL's ``llvm`` dialect plus ``llvm.intr.assume``, which Triton's ``tl.assume`` makes.

MLIR's op takes operand bundles too (``["align"(%p, %n : ...)]``); Triton
never makes them, so passviz reads and prints the op without them.  Like
MLIR's, the op declares no memory effects, so nothing erases it as dead.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import I1, I32, ArrayAttr, DenseArrayBase
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import IRDLOperation, ParsePropInAttrDict, irdl_op_definition, operand_def, opt_prop_def


@irdl_op_definition
class AssumeOp(IRDLOperation):
    """``llvm.intr.assume %cond : i1``: the optimizer may assume that ``cond`` holds."""

    name = "llvm.intr.assume"

    cond = operand_def(I1)
    """The condition assumed to hold."""
    op_bundle_sizes = opt_prop_def(DenseArrayBase[I32])
    """MLIR's operand bundle sizes (always empty here)."""
    op_bundle_tags = opt_prop_def(ArrayAttr[Attribute])
    """MLIR's operand bundle tags (absent here)."""

    assembly_format = "$cond `:` type($cond) attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, cond: SSAValue) -> None:
        super().__init__(operands=[cond])


LLVM = Dialect("llvm", [*llvm.LLVM.operations, AssumeOp], list(llvm.LLVM.attributes))
"""The llvm dialect as passviz registers it."""
