"""arith's DRR canonicalization patterns (``ArithCanonicalization.td``) as a table of rules.

Most of the .td file's patterns take one of four shapes: two constants that meet
through a pair of ops fold into one (``ConstantChain``), a cast of a cast becomes
one cast or none (``CastChain``), an op of two values made the same way works on
what they were made from (``BothOperands``), and an extended op whose second
result is unused becomes the plain op (``PlainExtended``).  Each rule of the
table below is one pattern; ``drr`` makes it a class named as MLIR names the
pattern, since trace steps are named after pattern classes.  The patterns of
other shapes are classes of their own (``arith_patterns``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from xdsl.dialects import arith
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from passviz.compilers.mlir.canonicalization.arith_common import (
    EQ,
    NE,
    cmp_predicate,
    element_width,
    int_constant,
    overflow_flags,
    replace,
)
from passviz.compilers.mlir.canonicalization.builders import binary, constant, registered, unary
from passviz.compilers.mlir.dialects.arith import IndexCastUIOp
from passviz.compilers.mlir.version import Snapshot
from passviz.rewrite.matchers import defining, int_attr

# ---------------------------------------------------------------------------
# The shapes of rules


@dataclass(frozen=True)
class Rule(ABC):
    """One DRR pattern: what it matches and what it builds instead."""

    name: str
    """The pattern's name in MLIR, which its class and trace steps take."""
    since: Snapshot | None = field(default=None, kw_only=True)
    """The Triton release whose LLVM has the pattern (``patterns_for`` leaves it out
    before); None: every modelled release's has it."""

    @abstractmethod
    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        """Replace ``op`` if the rule matches it."""

    @abstractmethod
    def describe(self) -> str:
        """The rule as the .td file's comments write it."""


class RulePattern(RewritePattern):
    """A pattern of the table: its rule matches and rewrites."""

    rule: ClassVar[Rule]
    since: ClassVar[Snapshot | None] = None

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.rule.rewrite(op, rewriter)


def drr(rule: Rule) -> type[RulePattern]:
    """``rule`` as a pattern class named after it: a trace names each step after the
    class of the pattern that made it (``passviz.recording.recorder.pattern_name``)."""
    namespace = {
        "rule": rule,
        "since": rule.since,
        "__doc__": rule.describe(),
        "__module__": __name__,
        "__qualname__": rule.name,
    }
    return type(rule.name, (RulePattern,), namespace)


def _mnemonic(kind: type[Operation]) -> str:
    return kind.name.removeprefix("arith.")


def _call(kind: type[Operation], operands: Sequence[str]) -> str:
    return f"{_mnemonic(kind)}({', '.join(operands)})"


InnerLeaf = Literal["x", "c0"]
"""An operand of a constant chain's inner op: the value kept, or the inner constant."""
Inner = tuple[type[Operation], InnerLeaf, InnerLeaf]
"""A constant chain's inner op: its kind, then its operands."""
BuiltLeaf = Literal["x", "c"]
"""An operand of the op a constant chain builds: the value kept, or the folded constant."""


@dataclass(frozen=True, kw_only=True)
class ConstantChain(Rule):
    """``op(inner(x, c0), c1) -> build(x, c)`` with ``c = fold(c0, c1)``, each op's
    operands in either order: two integer constants that meet through ``inner``
    fold into one."""

    match: tuple[type[Operation], Inner | Literal["c1"], Inner | Literal["c1"]]
    """The matched op's kind, then its operands: ``inner`` on one side, ``"c1"`` on the other."""
    build: tuple[type[Operation], BuiltLeaf, BuiltLeaf]
    """The new op's kind, then its operands."""
    fold: Callable[[int, int], int]
    """The new constant, of ``c0`` and ``c1``."""
    overflow: Literal["both", "none"] | None
    """The new op's overflow flags: those both matched ops have, none, or (None) no such property."""
    same_type: bool = False
    """Whether constants of a type other than the result's do not match."""

    def __post_init__(self) -> None:
        _, lhs, rhs = self.match
        inner = lhs if isinstance(lhs, tuple) else rhs
        if not isinstance(inner, tuple) or {lhs, rhs} != {inner, "c1"} or set(inner[1:]) != {"x", "c0"}:
            raise ValueError(f"{self.name}: match one op of x and c0, and c1")
        if set(self.build[1:]) != {"x", "c"}:
            raise ValueError(f"{self.name}: build one op of x and c")

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        kind, lhs, rhs = self.match
        if not isinstance(op, kind):
            return
        inner_at, inner_match = (0, lhs) if isinstance(lhs, tuple) else (1, rhs)
        assert isinstance(inner_match, tuple)
        inner_kind, inner_lhs, _ = inner_match
        x_at = 0 if inner_lhs == "x" else 1
        inner = defining(op.operands[inner_at], inner_kind)
        if inner is None:
            return
        c0, c1 = int_constant(inner.operands[1 - x_at]), int_constant(op.operands[1 - inner_at])
        if c0 is None or c1 is None:
            return
        result_type = op.results[0].type
        if self.same_type and (c0.type != result_type or c1.type != result_type):
            return
        value = int_attr(self.fold(c0.value.data, c1.value.data), result_type)
        assert value is not None
        const = constant(value)
        x = inner.operands[x_at]
        build, first, _ = self.build
        operands = (x, const.result) if first == "x" else (const.result, x)
        new = binary(build, *operands, self._flags(inner, op))
        replace(rewriter, op, [const, new], [new.results[0]])

    def _flags(self, inner: Operation, op: Operation) -> frozenset[str] | None:
        if self.overflow == "both":
            return overflow_flags(inner) & overflow_flags(op)
        return frozenset() if self.overflow == "none" else None

    def describe(self) -> str:
        kind, *operands = self.match
        shown = [o if isinstance(o, str) else _call(o[0], o[1:]) for o in operands]
        return f"{_call(kind, shown)} -> {_call(self.build[0], self.build[1:])}"


@dataclass(frozen=True, kw_only=True)
class CastChain(Rule):
    """``op(inner(x)) -> build(x)``, of ``op``'s type; without ``build``, ``x`` itself."""

    op: type[Operation]
    inner: type[Operation]
    build: type[Operation] | None
    when: Callable[[Operation, Operation], bool] | None = None
    """What else ``op`` and ``inner`` must satisfy."""

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, self.op) or (inner := defining(op.operands[0], self.inner)) is None:
            return
        if self.when is not None and not self.when(op, inner):
            return
        if self.build is None:
            replace(rewriter, op, [], [inner.operands[0]])
            return
        new = unary(self.build, inner.operands[0], op.results[0].type)
        replace(rewriter, op, [new], [new.results[0]])

    def describe(self) -> str:
        result = "x" if self.build is None else f"{_mnemonic(self.build)}(x)"
        return f"{_mnemonic(self.op)}({_mnemonic(self.inner)}(x)) -> {result}"


@dataclass(frozen=True, kw_only=True)
class BothOperands(Rule):
    """``op(inner(x), inner(y)) -> op(x, y)`` when ``x`` and ``y`` have one type;
    with ``sink``, ``inner(op(x, y))``."""

    op: type[Operation]
    inner: type[Operation]
    sink: bool = False
    """Whether ``inner`` moves below ``op`` rather than go."""
    keep: str | None = None
    """The property of ``op`` that the new op keeps."""
    when: Callable[[Operation], bool] | None = None
    """What else ``op`` must satisfy."""

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, self.op):
            return
        lhs, rhs = (defining(operand, self.inner) for operand in op.operands)
        if lhs is None or rhs is None or lhs.operands[0].type != rhs.operands[0].type:
            return
        if self.when is not None and not self.when(op):
            return
        x, y = lhs.operands[0], rhs.operands[0]
        if self.sink:
            inner = binary(self.op, x, y)
            outer = unary(self.inner, inner.results[0], op.results[0].type)
            replace(rewriter, op, [inner, outer], [outer.results[0]])
            return
        # Through the op's accessor, which gives a property's default where the op has none.
        properties: dict[str, Attribute] = {} if self.keep is None else {self.keep: getattr(op, self.keep)}
        new = registered(self.op).create(
            operands=[x, y], result_types=[op.results[0].type], properties=properties
        )
        replace(rewriter, op, [new], [new.results[0]])

    def describe(self) -> str:
        op, inner = _mnemonic(self.op), _mnemonic(self.inner)
        result = f"{inner}({op}(x, y))" if self.sink else f"{op}(x, y)"
        return f"{op}({inner}(x), {inner}(y)) -> {result}"


@dataclass(frozen=True, kw_only=True)
class PlainExtended(Rule):
    """``op(x, y) -> [build(x, y), x]`` when ``op``'s second result (overflow or high
    half) is unused."""

    op: type[Operation]
    build: type[Operation]

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, self.op) or op.results[1].uses:
            return
        x, y = op.operands
        new = binary(self.build, x, y, frozenset())
        replace(rewriter, op, [new], [new.results[0], x])

    def describe(self) -> str:
        return f"{_mnemonic(self.op)}(x, y) -> [{_mnemonic(self.build)}(x, y), x]"


# ---------------------------------------------------------------------------
# Conditions


def _same_type(op: Operation, inner: Operation) -> bool:
    """The cast of a cast gives back the first one's operand type."""
    return inner.operands[0].type == op.results[0].type


def _drops_extension_bits(op: Operation, inner: Operation) -> bool:
    """The truncation drops only bits that the extension added (and not all of them)."""
    truncated, extended, source = (
        element_width(op.results[0]),
        element_width(inner.results[0]),
        element_width(inner.operands[0]),
    )
    return extended > truncated > 0 and truncated > source > 0


def _default_rounding(op: Operation, inner: Operation) -> bool:
    """The truncation has no rounding mode."""
    return "roundingmode" not in op.properties and "roundingmode" not in op.attributes


def _equality(op: Operation) -> bool:
    """The comparison is ``eq`` or ``ne``."""
    return isinstance(op, arith.CmpiOp) and cmp_predicate(op) in (EQ, NE)


# ---------------------------------------------------------------------------
# The table, by shape; ``arith.PATTERNS`` orders each op's patterns as MLIR tries them.

AddIAddConstant = drr(
    ConstantChain(
        "AddIAddConstant",
        match=(arith.AddiOp, (arith.AddiOp, "x", "c0"), "c1"),
        build=(arith.AddiOp, "x", "c"),
        fold=lambda c0, c1: c0 + c1,
        overflow="both",
    )
)
AddISubConstantRHS = drr(
    ConstantChain(
        "AddISubConstantRHS",
        match=(arith.AddiOp, (arith.SubiOp, "x", "c0"), "c1"),
        build=(arith.AddiOp, "x", "c"),
        fold=lambda c0, c1: c1 - c0,
        overflow="both",
    )
)
AddISubConstantLHS = drr(
    ConstantChain(
        "AddISubConstantLHS",
        match=(arith.AddiOp, (arith.SubiOp, "c0", "x"), "c1"),
        build=(arith.SubiOp, "c", "x"),
        fold=lambda c0, c1: c0 + c1,
        overflow="both",
    )
)
MulIMulIConstant = drr(
    ConstantChain(
        "MulIMulIConstant",
        match=(arith.MuliOp, (arith.MuliOp, "x", "c0"), "c1"),
        build=(arith.MuliOp, "x", "c"),
        fold=lambda c0, c1: c0 * c1,
        overflow="both",
        same_type=True,
    )
)
SubIRHSAddConstant = drr(
    ConstantChain(
        "SubIRHSAddConstant",
        match=(arith.SubiOp, (arith.AddiOp, "x", "c0"), "c1"),
        build=(arith.AddiOp, "x", "c"),
        fold=lambda c0, c1: c0 - c1,
        overflow="none",
    )
)
SubILHSAddConstant = drr(
    ConstantChain(
        "SubILHSAddConstant",
        match=(arith.SubiOp, "c1", (arith.AddiOp, "x", "c0")),
        build=(arith.SubiOp, "c", "x"),
        fold=lambda c0, c1: c1 - c0,
        overflow="both",
    )
)
SubIRHSSubConstantRHS = drr(
    ConstantChain(
        "SubIRHSSubConstantRHS",
        match=(arith.SubiOp, (arith.SubiOp, "x", "c0"), "c1"),
        build=(arith.SubiOp, "x", "c"),
        fold=lambda c0, c1: c0 + c1,
        overflow="both",
    )
)
SubIRHSSubConstantLHS = drr(
    ConstantChain(
        "SubIRHSSubConstantLHS",
        match=(arith.SubiOp, (arith.SubiOp, "c0", "x"), "c1"),
        build=(arith.SubiOp, "c", "x"),
        fold=lambda c0, c1: c0 - c1,
        overflow="both",
    )
)
SubILHSSubConstantRHS = drr(
    ConstantChain(
        "SubILHSSubConstantRHS",
        match=(arith.SubiOp, "c1", (arith.SubiOp, "x", "c0")),
        build=(arith.SubiOp, "c", "x"),
        fold=lambda c0, c1: c0 + c1,
        overflow="both",
    )
)
SubILHSSubConstantLHS = drr(
    ConstantChain(
        "SubILHSSubConstantLHS",
        match=(arith.SubiOp, "c1", (arith.SubiOp, "c0", "x")),
        build=(arith.AddiOp, "x", "c"),
        fold=lambda c0, c1: c1 - c0,
        overflow="both",
    )
)
XOrIXOrIConstant = drr(
    ConstantChain(
        "XOrIXOrIConstant",
        match=(arith.XOrIOp, (arith.XOrIOp, "x", "c0"), "c1"),
        build=(arith.XOrIOp, "x", "c"),
        fold=lambda c0, c1: c0 ^ c1,
        overflow=None,
        since=(3, 9),
    )
)
AndIAndIConstant = drr(
    ConstantChain(
        "AndIAndIConstant",
        match=(arith.AndIOp, (arith.AndIOp, "x", "c0"), "c1"),
        build=(arith.AndIOp, "x", "c"),
        fold=lambda c0, c1: c0 & c1,
        overflow=None,
        since=(3, 9),
    )
)
OrIOrIConstant = drr(
    ConstantChain(
        "OrIOrIConstant",
        match=(arith.OrIOp, (arith.OrIOp, "x", "c0"), "c1"),
        build=(arith.OrIOp, "x", "c"),
        fold=lambda c0, c1: c0 | c1,
        overflow=None,
        since=(3, 9),
    )
)

IndexCastOfIndexCast = drr(
    CastChain(
        "IndexCastOfIndexCast", op=arith.IndexCastOp, inner=arith.IndexCastOp, build=None, when=_same_type
    )
)
IndexCastOfExtSI = drr(
    CastChain("IndexCastOfExtSI", op=arith.IndexCastOp, inner=arith.ExtSIOp, build=arith.IndexCastOp)
)
IndexCastUIOfIndexCastUI = drr(
    CastChain("IndexCastUIOfIndexCastUI", op=IndexCastUIOp, inner=IndexCastUIOp, build=None, when=_same_type)
)
IndexCastUIOfExtUI = drr(
    CastChain("IndexCastUIOfExtUI", op=IndexCastUIOp, inner=arith.ExtUIOp, build=IndexCastUIOp)
)
BitcastOfBitcast = drr(
    CastChain("BitcastOfBitcast", op=arith.BitcastOp, inner=arith.BitcastOp, build=arith.BitcastOp)
)
ExtSIOfExtUI = drr(CastChain("ExtSIOfExtUI", op=arith.ExtSIOp, inner=arith.ExtUIOp, build=arith.ExtUIOp))
TruncIExtSIToExtSI = drr(
    CastChain(
        "TruncIExtSIToExtSI",
        op=arith.TruncIOp,
        inner=arith.ExtSIOp,
        build=arith.ExtSIOp,
        when=_drops_extension_bits,
    )
)
TruncIExtUIToExtUI = drr(
    CastChain(
        "TruncIExtUIToExtUI",
        op=arith.TruncIOp,
        inner=arith.ExtUIOp,
        build=arith.ExtUIOp,
        when=_drops_extension_bits,
    )
)
TruncFSIToFPToSIToFP = drr(
    CastChain(
        "TruncFSIToFPToSIToFP",
        op=arith.TruncFOp,
        inner=arith.SIToFPOp,
        build=arith.SIToFPOp,
        when=_default_rounding,
    )
)
TruncFUIToFPToUIToFP = drr(
    CastChain(
        "TruncFUIToFPToUIToFP",
        op=arith.TruncFOp,
        inner=arith.UIToFPOp,
        build=arith.UIToFPOp,
        when=_default_rounding,
    )
)

AndOfExtUI = drr(BothOperands("AndOfExtUI", op=arith.AndIOp, inner=arith.ExtUIOp, sink=True))
AndOfExtSI = drr(BothOperands("AndOfExtSI", op=arith.AndIOp, inner=arith.ExtSIOp, sink=True))
OrOfExtUI = drr(BothOperands("OrOfExtUI", op=arith.OrIOp, inner=arith.ExtUIOp, sink=True))
OrOfExtSI = drr(BothOperands("OrOfExtSI", op=arith.OrIOp, inner=arith.ExtSIOp, sink=True))
XOrIOfExtUI = drr(BothOperands("XOrIOfExtUI", op=arith.XOrIOp, inner=arith.ExtUIOp, sink=True))
XOrIOfExtSI = drr(BothOperands("XOrIOfExtSI", op=arith.XOrIOp, inner=arith.ExtSIOp, sink=True))
CmpIExtSI = drr(
    BothOperands("CmpIExtSI", op=arith.CmpiOp, inner=arith.ExtSIOp, keep="predicate", when=_equality)
)
CmpIExtUI = drr(
    BothOperands("CmpIExtUI", op=arith.CmpiOp, inner=arith.ExtUIOp, keep="predicate", when=_equality)
)
MulFOfNegF = drr(BothOperands("MulFOfNegF", op=arith.MulfOp, inner=arith.NegfOp, keep="fastmath"))
DivFOfNegF = drr(BothOperands("DivFOfNegF", op=arith.DivfOp, inner=arith.NegfOp, keep="fastmath"))

AddUIExtendedToAddI = drr(PlainExtended("AddUIExtendedToAddI", op=arith.AddUIExtendedOp, build=arith.AddiOp))
MulSIExtendedToMulI = drr(PlainExtended("MulSIExtendedToMulI", op=arith.MulSIExtendedOp, build=arith.MuliOp))
MulUIExtendedToMulI = drr(PlainExtended("MulUIExtendedToMulI", op=arith.MulUIExtendedOp, build=arith.MuliOp))
