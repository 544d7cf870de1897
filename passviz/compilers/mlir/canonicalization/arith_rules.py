"""arith's DRR canonicalization patterns (``ArithCanonicalization.td``) as a table of rules.

Most of the .td file's patterns take one of four shapes: two constants that meet
through a pair of ops fold into one (``ConstantChain``), a cast of a cast becomes
one cast or none (``CastChain``), an op of two values made the same way works on
what they were made from (``BothOperands``), and an extended op whose second
result is unused becomes the plain op (``PlainExtended``).  Each row of the
table below is one pattern: its name in MLIR and the rule as the .td file's
comments write it (``addi(addi(x, c0), c1) -> addi(x, c)``), read into its
shape; ``drr`` makes each rule a class named as MLIR names the pattern, since
trace steps are named after pattern classes.  The patterns of other shapes are
classes of their own (``arith_patterns``).
"""

from __future__ import annotations

import operator
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar, Literal, TypeVar

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


_RuleT = TypeVar("_RuleT", bound=Rule)


class RulePattern(RewritePattern):
    """A pattern of the table: its rule matches and rewrites."""

    rule: ClassVar[Rule]
    since: ClassVar[Snapshot | None] = None

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.rule.rewrite(op, rewriter)


def drr(*rules: Rule) -> tuple[type[RulePattern], ...]:
    """Each rule as a pattern class named after it: a trace names each step after the
    class of the pattern that made it (``passviz.recording.interface.pattern_name``)."""
    return tuple(_pattern_class(rule) for rule in rules)


def _pattern_class(rule: Rule) -> type[RulePattern]:
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
# Rules as the .td file's comments write them


@dataclass(frozen=True)
class _Term:
    """An op of the notation (its mnemonic and operands), or a value (its name)."""

    head: str
    args: tuple[_Term, ...] = ()


def _term(tokens: list[str]) -> _Term:
    head = tokens.pop(0)
    if tokens[:1] != ["("]:
        return _Term(head)
    del tokens[0]
    return _Term(head, _terms(tokens, ")"))


def _terms(tokens: list[str], close: str) -> tuple[_Term, ...]:
    """Terms separated by commas, up to ``close``."""
    terms = [_term(tokens)]
    while (separator := tokens.pop(0)) == ",":
        terms.append(_term(tokens))
    if separator != close:
        raise ValueError(f"{close!r} expected, not {separator!r}")
    return tuple(terms)


def _parse(drr: str) -> tuple[_Term, tuple[_Term, ...]]:
    """``source -> result``, or ``source -> [result, ...]`` for several values."""
    tokens: list[str] = re.findall(r"->|\w+|\S", drr)
    source = _term(tokens)
    if tokens[:1] != ["->"]:
        raise ValueError(f"'->' expected in {drr!r}")
    del tokens[0]
    if tokens[:1] == ["["]:
        del tokens[0]
        results = _terms(tokens, "]")
    else:
        results = (_term(tokens),)
    if tokens:
        raise ValueError(f"{drr!r} goes on after its result")
    return source, results


_OPS: Mapping[str, type[Operation]] = MappingProxyType(
    {_mnemonic(op): op for op in (*arith.Arith.operations, IndexCastUIOp)}
)
"""The op classes rules match, by mnemonic: xDSL's (subclasses match too), and passviz's
for the one xDSL lacks."""


def _op(term: _Term) -> type[Operation]:
    return _OPS[term.head]


def _read_back(rule: _RuleT, drr: str) -> _RuleT:
    """``rule``, once it describes itself as ``drr`` does (so nothing was misread)."""
    if rule.describe() != drr:
        raise ValueError(f"{rule.name}: {drr!r} reads as {rule.describe()!r}")
    return rule


_FOLDS: Mapping[str, Callable[[int, int], int]] = MappingProxyType(
    {
        "+": operator.add,
        "-": operator.sub,
        "*": operator.mul,
        "^": operator.xor,
        "&": operator.and_,
        "|": operator.or_,
    }
)


def _fold(expr: str) -> Callable[[int, int], int]:
    """``c0`` and ``c1`` joined by an operator, in either order (``"c1 - c0"``)."""
    lhs, symbol, rhs = expr.split()
    fold = _FOLDS[symbol]
    if (lhs, rhs) == ("c0", "c1"):
        return fold
    if (lhs, rhs) == ("c1", "c0"):
        return lambda c0, c1: fold(c1, c0)
    raise ValueError(f"{expr!r}: c0 and c1 expected")


def _inner_leaf(term: _Term) -> InnerLeaf:
    if term.head in ("x", "c0") and not term.args:
        return term.head
    raise ValueError(f"x or c0 expected, not {term.head!r}")


def _built_leaf(term: _Term) -> BuiltLeaf:
    if term.head in ("x", "c") and not term.args:
        return term.head
    raise ValueError(f"x or c expected, not {term.head!r}")


def _chain_operand(term: _Term) -> Inner | Literal["c1"]:
    if term.head == "c1" and not term.args:
        return "c1"
    lhs, rhs = term.args
    return (_op(term), _inner_leaf(lhs), _inner_leaf(rhs))


def chain(
    name: str,
    drr: str,
    fold: str,
    overflow: Literal["both", "none"] | None,
    *,
    same_type: bool = False,
    since: Snapshot | None = None,
) -> ConstantChain:
    """The ``ConstantChain`` that ``drr`` writes, with ``c = fold``."""
    source, (result,) = _parse(drr)
    lhs, rhs = source.args
    built_lhs, built_rhs = result.args
    rule = ConstantChain(
        name,
        match=(_op(source), _chain_operand(lhs), _chain_operand(rhs)),
        build=(_op(result), _built_leaf(built_lhs), _built_leaf(built_rhs)),
        fold=_fold(fold),
        overflow=overflow,
        same_type=same_type,
        since=since,
    )
    return _read_back(rule, drr)


def cast_chain(name: str, drr: str, when: Callable[[Operation, Operation], bool] | None = None) -> CastChain:
    """The ``CastChain`` that ``drr`` writes (``op(inner(x)) -> x`` builds nothing)."""
    source, (result,) = _parse(drr)
    (inner,) = source.args
    build = _op(result) if result.args else None
    return _read_back(CastChain(name, op=_op(source), inner=_op(inner), build=build, when=when), drr)


def both_operands(
    name: str, drr: str, keep: str | None = None, when: Callable[[Operation], bool] | None = None
) -> BothOperands:
    """The ``BothOperands`` that ``drr`` writes (it sinks when the result's outer op is the inner one)."""
    source, (result,) = _parse(drr)
    inner = _op(source.args[0])
    rule = BothOperands(name, op=_op(source), inner=inner, sink=_op(result) is inner, keep=keep, when=when)
    return _read_back(rule, drr)


def plain_extended(name: str, drr: str) -> PlainExtended:
    """The ``PlainExtended`` that ``drr`` writes."""
    source, (result, _) = _parse(drr)
    return _read_back(PlainExtended(name, op=_op(source), build=_op(result)), drr)


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

(
    AddIAddConstant,
    AddISubConstantRHS,
    AddISubConstantLHS,
    MulIMulIConstant,
    SubIRHSAddConstant,
    SubILHSAddConstant,
    SubIRHSSubConstantRHS,
    SubIRHSSubConstantLHS,
    SubILHSSubConstantRHS,
    SubILHSSubConstantLHS,
    XOrIXOrIConstant,
    AndIAndIConstant,
    OrIOrIConstant,
) = drr(
    chain("AddIAddConstant", "addi(addi(x, c0), c1) -> addi(x, c)", "c0 + c1", "both"),
    chain("AddISubConstantRHS", "addi(subi(x, c0), c1) -> addi(x, c)", "c1 - c0", "both"),
    chain("AddISubConstantLHS", "addi(subi(c0, x), c1) -> subi(c, x)", "c0 + c1", "both"),
    chain("MulIMulIConstant", "muli(muli(x, c0), c1) -> muli(x, c)", "c0 * c1", "both", same_type=True),
    chain("SubIRHSAddConstant", "subi(addi(x, c0), c1) -> addi(x, c)", "c0 - c1", "none"),
    chain("SubILHSAddConstant", "subi(c1, addi(x, c0)) -> subi(c, x)", "c1 - c0", "both"),
    chain("SubIRHSSubConstantRHS", "subi(subi(x, c0), c1) -> subi(x, c)", "c0 + c1", "both"),
    chain("SubIRHSSubConstantLHS", "subi(subi(c0, x), c1) -> subi(c, x)", "c0 - c1", "both"),
    chain("SubILHSSubConstantRHS", "subi(c1, subi(x, c0)) -> subi(c, x)", "c0 + c1", "both"),
    chain("SubILHSSubConstantLHS", "subi(c1, subi(c0, x)) -> addi(x, c)", "c1 - c0", "both"),
    chain("XOrIXOrIConstant", "xori(xori(x, c0), c1) -> xori(x, c)", "c0 ^ c1", None, since=(3, 9)),
    chain("AndIAndIConstant", "andi(andi(x, c0), c1) -> andi(x, c)", "c0 & c1", None, since=(3, 9)),
    chain("OrIOrIConstant", "ori(ori(x, c0), c1) -> ori(x, c)", "c0 | c1", None, since=(3, 9)),
)

(
    IndexCastOfIndexCast,
    IndexCastOfExtSI,
    IndexCastUIOfIndexCastUI,
    IndexCastUIOfExtUI,
    BitcastOfBitcast,
    ExtSIOfExtUI,
    TruncIExtSIToExtSI,
    TruncIExtUIToExtUI,
    TruncFSIToFPToSIToFP,
    TruncFUIToFPToUIToFP,
) = drr(
    cast_chain("IndexCastOfIndexCast", "index_cast(index_cast(x)) -> x", when=_same_type),
    cast_chain("IndexCastOfExtSI", "index_cast(extsi(x)) -> index_cast(x)"),
    cast_chain("IndexCastUIOfIndexCastUI", "index_castui(index_castui(x)) -> x", when=_same_type),
    cast_chain("IndexCastUIOfExtUI", "index_castui(extui(x)) -> index_castui(x)"),
    cast_chain("BitcastOfBitcast", "bitcast(bitcast(x)) -> bitcast(x)"),
    cast_chain("ExtSIOfExtUI", "extsi(extui(x)) -> extui(x)"),
    cast_chain("TruncIExtSIToExtSI", "trunci(extsi(x)) -> extsi(x)", when=_drops_extension_bits),
    cast_chain("TruncIExtUIToExtUI", "trunci(extui(x)) -> extui(x)", when=_drops_extension_bits),
    cast_chain("TruncFSIToFPToSIToFP", "truncf(sitofp(x)) -> sitofp(x)", when=_default_rounding),
    cast_chain("TruncFUIToFPToUIToFP", "truncf(uitofp(x)) -> uitofp(x)", when=_default_rounding),
)

(
    AndOfExtUI,
    AndOfExtSI,
    OrOfExtUI,
    OrOfExtSI,
    XOrIOfExtUI,
    XOrIOfExtSI,
    CmpIExtSI,
    CmpIExtUI,
    MulFOfNegF,
    DivFOfNegF,
) = drr(
    both_operands("AndOfExtUI", "andi(extui(x), extui(y)) -> extui(andi(x, y))"),
    both_operands("AndOfExtSI", "andi(extsi(x), extsi(y)) -> extsi(andi(x, y))"),
    both_operands("OrOfExtUI", "ori(extui(x), extui(y)) -> extui(ori(x, y))"),
    both_operands("OrOfExtSI", "ori(extsi(x), extsi(y)) -> extsi(ori(x, y))"),
    both_operands("XOrIOfExtUI", "xori(extui(x), extui(y)) -> extui(xori(x, y))"),
    both_operands("XOrIOfExtSI", "xori(extsi(x), extsi(y)) -> extsi(xori(x, y))"),
    both_operands("CmpIExtSI", "cmpi(extsi(x), extsi(y)) -> cmpi(x, y)", keep="predicate", when=_equality),
    both_operands("CmpIExtUI", "cmpi(extui(x), extui(y)) -> cmpi(x, y)", keep="predicate", when=_equality),
    both_operands("MulFOfNegF", "mulf(negf(x), negf(y)) -> mulf(x, y)", keep="fastmath"),
    both_operands("DivFOfNegF", "divf(negf(x), negf(y)) -> divf(x, y)", keep="fastmath"),
)

AddUIExtendedToAddI, MulSIExtendedToMulI, MulUIExtendedToMulI = drr(
    plain_extended("AddUIExtendedToAddI", "addui_extended(x, y) -> [addi(x, y), x]"),
    plain_extended("MulSIExtendedToMulI", "mulsi_extended(x, y) -> [muli(x, y), x]"),
    plain_extended("MulUIExtendedToMulI", "mului_extended(x, y) -> [muli(x, y), x]"),
)
