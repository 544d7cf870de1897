"""arith's DRR patterns as a table of rules (``passviz.compilers.mlir.canonicalization.arith_rules``):
each rule is a pattern class named as MLIR names it, importable from ``arith`` as before, and
each op's patterns keep the order MLIR's applicator tries them in."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith as xarith

from passviz.compilers.mlir.canonicalization import arith, arith_rules
from passviz.compilers.mlir.canonicalization.arith_rules import ConstantChain, RulePattern

ORDER: dict[str, list[str]] = {
    "arith.addi": [
        "AddIAddConstant",
        "AddISubConstantRHS",
        "AddISubConstantLHS",
        "AddIMulNegativeOneRhs",
        "AddIMulNegativeOneLhs",
    ],
    "arith.subi": [
        "SubIRHSAddConstant",
        "SubILHSAddConstant",
        "SubIRHSSubConstantRHS",
        "SubIRHSSubConstantLHS",
        "SubILHSSubConstantRHS",
        "SubILHSSubConstantLHS",
        "SubISubILHSRHSLHS",
    ],
    "arith.muli": ["MulIMulIConstant"],
    "arith.addui_extended": ["AddUIExtendedToAddI"],
    "arith.mulsi_extended": ["MulSIExtendedToMulI", "MulSIExtendedRHSOne"],
    "arith.mului_extended": ["MulUIExtendedToMulI"],
    "arith.xori": ["XOrIOfExtUI", "XOrIOfExtSI", "XOrINotCmpI", "XOrIXOrIConstant"],
    "arith.andi": ["AndOfExtUI", "AndOfExtSI", "AndIAndIConstant"],
    "arith.ori": ["OrOfExtUI", "OrOfExtSI", "OrIOrIConstant"],
    "arith.cmpi": ["CmpIExtSI", "CmpIExtUI"],
    "arith.cmpf": ["CmpFIntToFPConst"],
    "arith.select": [
        "RedundantSelectFalse",
        "RedundantSelectTrue",
        "SelectNotCond",
        "SelectI1ToNot",
        "SelectToExtUI",
        "SelectToMinMax",
    ],
    "arith.index_cast": ["IndexCastOfIndexCast", "IndexCastOfExtSI"],
    "arith.index_castui": ["IndexCastUIOfIndexCastUI", "IndexCastUIOfExtUI"],
    "arith.bitcast": ["BitcastOfBitcast"],
    "arith.extsi": ["ExtSIOfExtUI"],
    "arith.trunci": ["TruncIExtSIToExtSI", "TruncIExtUIToExtUI", "TruncIShrSIToTrunciShrUI"],
    "arith.truncf": ["TruncFSIToFPToSIToFP", "TruncFUIToFPToUIToFP"],
    "arith.mulf": ["MulFOfNegF"],
    "arith.divf": ["DivFOfNegF"],
}
"""Each op's patterns by name, benefit first, then registration order (as before the table)."""


def test_each_op_s_patterns_keep_their_order() -> None:
    assert {op: [type(p).__name__ for p in ps] for op, ps in arith.PATTERNS.items()} == ORDER


def test_every_pattern_is_importable_from_arith_under_its_name() -> None:
    for patterns in arith.PATTERNS.values():
        for pattern in patterns:
            assert getattr(arith, type(pattern).__name__) is type(pattern)


def test_every_rule_is_bound_to_the_name_of_its_pattern() -> None:
    rules = {name: value for name, value in vars(arith_rules).items() if isinstance(value, type)}
    generated = {name: value for name, value in rules.items() if issubclass(value, RulePattern)}
    generated.pop("RulePattern")
    assert len(generated) == 36
    for name, pattern in generated.items():
        assert pattern.__name__ == pattern.rule.name == name


def test_rules_read_as_the_td_file_s_comments() -> None:
    assert arith.AddIAddConstant.__doc__ == "addi(addi(x, c0), c1) -> addi(x, c)"
    assert arith.SubILHSSubConstantLHS.__doc__ == "subi(c1, subi(c0, x)) -> addi(x, c)"
    assert arith.IndexCastOfIndexCast.__doc__ == "index_cast(index_cast(x)) -> x"
    assert arith.XOrIOfExtSI.__doc__ == "xori(extsi(x), extsi(y)) -> extsi(xori(x, y))"
    assert arith.MulUIExtendedToMulI.__doc__ == "mului_extended(x, y) -> [muli(x, y), x]"


def test_only_the_newer_llvm_s_rules_name_a_release() -> None:
    newer = {type(p).__name__ for ps in arith.PATTERNS.values() for p in ps if getattr(p, "since", None)}
    assert newer == {"XOrIXOrIConstant", "AndIAndIConstant", "OrIOrIConstant", "SelectToMinMax"}


@pytest.mark.parametrize(
    ("match", "build"),
    [
        ((xarith.AddiOp, "c1", "c1"), (xarith.AddiOp, "x", "c")),
        ((xarith.AddiOp, (xarith.AddiOp, "x", "x"), "c1"), (xarith.AddiOp, "x", "c")),
        ((xarith.AddiOp, (xarith.AddiOp, "x", "c0"), "c1"), (xarith.AddiOp, "c", "c")),
    ],
    ids=["no inner op", "no c0", "no x built"],
)
def test_a_malformed_constant_chain_is_refused(match: object, build: object) -> None:
    with pytest.raises(ValueError):
        ConstantChain("Bad", match=match, build=build, fold=lambda c0, c1: c0, overflow=None)  # pyright: ignore[reportArgumentType]
