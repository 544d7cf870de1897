"""MLIR's ``arith`` folders and canonicalization patterns: the tables.

Folders follow ``mlir/lib/Dialect/Arith/IR/ArithOps.cpp`` (``arith_folds``,
``arith_casts``, ``arith_compare``); patterns follow the DRR patterns of
``ArithCanonicalization.td`` (a table of rules, ``arith_rules``, and the few of
other shapes, ``arith_patterns``) and the C++ ones of ``ArithOps.cpp``
(``SelectToExtUI``, ``CmpFIntToFPConst``), as of the LLVM that Triton 3.6 builds
against; behaving as Triton 3.9, the folds and patterns its newer LLVM adds come
too.  Inside IREE's passes they behave as IREE 3.13's LLVM
(``passviz.compilers.mlir.version``).  A DRR pattern's benefit is the number of ops
it matches, so ``PATTERNS`` lists an op's patterns sorted by it as MLIR's
applicator tries them.
"""

from __future__ import annotations

from xdsl.dialects import arith, ub
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import RewritePattern
from xdsl.utils.type import get_element_type_or_self

from passviz.compilers.mlir.canonicalization import arith_casts, arith_compare, arith_folds
from passviz.compilers.mlir.canonicalization.arith_patterns import (
    AddIMulNegativeOneLhs,
    AddIMulNegativeOneRhs,
    CmpFIntToFPConst,
    MulSIExtendedRHSOne,
    RedundantSelectFalse,
    RedundantSelectTrue,
    SelectI1ToNot,
    SelectNotCond,
    SelectToExtUI,
    SelectToMinMax,
    SubISubILHSRHSLHS,
    TruncIShrSIToTrunciShrUI,
    XOrINotCmpI,
)
from passviz.compilers.mlir.canonicalization.arith_rules import (
    AddIAddConstant,
    AddISubConstantLHS,
    AddISubConstantRHS,
    AddUIExtendedToAddI,
    AndIAndIConstant,
    AndOfExtSI,
    AndOfExtUI,
    BitcastOfBitcast,
    CmpIExtSI,
    CmpIExtUI,
    DivFOfNegF,
    ExtSIOfExtUI,
    IndexCastOfExtSI,
    IndexCastOfIndexCast,
    IndexCastUIOfExtUI,
    IndexCastUIOfIndexCastUI,
    MulFOfNegF,
    MulIMulIConstant,
    MulSIExtendedToMulI,
    MulUIExtendedToMulI,
    OrIOrIConstant,
    OrOfExtSI,
    OrOfExtUI,
    SubILHSAddConstant,
    SubILHSSubConstantLHS,
    SubILHSSubConstantRHS,
    SubIRHSAddConstant,
    SubIRHSSubConstantLHS,
    SubIRHSSubConstantRHS,
    TruncFSIToFPToSIToFP,
    TruncFUIToFPToUIToFP,
    TruncIExtSIToExtSI,
    TruncIExtUIToExtUI,
    XOrIOfExtSI,
    XOrIOfExtUI,
    XOrIXOrIConstant,
)
from passviz.compilers.mlir.canonicalization.builders import ARITH_OP_NAMES
from passviz.ir.hints import isa
from passviz.rewrite.greedy import Folder, FoldResult


def _fold_constant(op: Operation) -> FoldResult | None:
    assert isinstance(op, arith.ConstantOp)
    return [op.value]


FOLDERS: dict[str, Folder] = {
    arith.ConstantOp.name: _fold_constant,
    **arith_folds.FOLDERS,
    **arith_compare.FOLDERS,
    **arith_casts.FOLDERS,
}
"""MLIR's folder of each arith op that has one (trait folders included)."""

PATTERNS: dict[str, tuple[RewritePattern, ...]] = {
    arith.AddiOp.name: (
        AddIAddConstant(),
        AddISubConstantRHS(),
        AddISubConstantLHS(),
        AddIMulNegativeOneRhs(),
        AddIMulNegativeOneLhs(),
    ),
    arith.SubiOp.name: (
        SubIRHSAddConstant(),
        SubILHSAddConstant(),
        SubIRHSSubConstantRHS(),
        SubIRHSSubConstantLHS(),
        SubILHSSubConstantRHS(),
        SubILHSSubConstantLHS(),
        SubISubILHSRHSLHS(),
    ),
    arith.MuliOp.name: (MulIMulIConstant(),),
    arith.AddUIExtendedOp.name: (AddUIExtendedToAddI(),),
    arith.MulSIExtendedOp.name: (MulSIExtendedToMulI(), MulSIExtendedRHSOne()),
    arith.MulUIExtendedOp.name: (MulUIExtendedToMulI(),),
    # Benefit 3 (three ops matched) before XOrINotCmpI's 2.
    arith.XOrIOp.name: (XOrIOfExtUI(), XOrIOfExtSI(), XOrINotCmpI(), XOrIXOrIConstant()),
    arith.AndIOp.name: (AndOfExtUI(), AndOfExtSI(), AndIAndIConstant()),
    arith.OrIOp.name: (OrOfExtUI(), OrOfExtSI(), OrIOrIConstant()),
    arith.CmpiOp.name: (CmpIExtSI(), CmpIExtUI()),
    arith.CmpfOp.name: (CmpFIntToFPConst(),),
    # Benefit 2 (two selects, or select and xori), then 1, each in registration order.
    arith.SelectOp.name: (
        RedundantSelectFalse(),
        RedundantSelectTrue(),
        SelectNotCond(),
        SelectI1ToNot(),
        SelectToExtUI(),
        SelectToMinMax(),
    ),
    arith.IndexCastOp.name: (IndexCastOfIndexCast(), IndexCastOfExtSI()),
    "arith.index_castui": (IndexCastUIOfIndexCastUI(), IndexCastUIOfExtUI()),
    arith.BitcastOp.name: (BitcastOfBitcast(),),
    arith.ExtSIOp.name: (ExtSIOfExtUI(),),
    arith.TruncIOp.name: (TruncIExtSIToExtSI(), TruncIExtUIToExtUI(), TruncIShrSIToTrunciShrUI()),
    arith.TruncFOp.name: (TruncFSIToFPToSIToFP(), TruncFUIToFPToUIToFP()),
    arith.MulfOp.name: (MulFOfNegF(),),
    arith.DivfOp.name: (DivFOfNegF(),),
}
"""MLIR's canonicalization patterns of each arith op, in the order MLIR tries them."""

OP_NAMES: frozenset[str] = ARITH_OP_NAMES
"""The arith ops whose tables these are (ops without patterns or folder have none in MLIR)."""


def materialize_constant(value: Attribute, type: Attribute) -> Operation | None:
    """``ArithDialect::materializeConstant``: ``ub.poison`` or a buildable ``arith.constant``."""
    if isinstance(value, ub.PoisonAttr):
        return ub.PoisonOp(type, value)
    if not isinstance(value, IntegerAttr | FloatAttr | DenseIntOrFPElementsAttr):
        return None
    if value.get_type() != type:
        return None
    element = get_element_type_or_self(type)
    if isa(element, IntegerType) and element != IntegerType(element.bitwidth):
        return None
    properties: dict[str, Attribute] = {"value": value}
    return arith.ConstantOp.create(result_types=[type], properties=properties)
