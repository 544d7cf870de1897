"""xDSL's parser, where xDSL 0.74 misreads what MLIR's printer writes or is slow on bad input.

- A hex literal in a float ``dense<...>`` is the element's bit pattern:
  MLIR prints ``-inf`` as ``dense<0xFF800000> : tensor<4xf32>``, which xDSL
  reads as the integer 4286578688 turned into a float.
- A string literal without its closing quote takes time exponential in
  its length to reject (``passviz.ir.string_lexer`` lexes it in linear time).
- Location aliases may be defined after their first use: ``triton.compile``'s
  TTIR (and any ``mlir-opt --mlir-print-debuginfo`` output) writes
  ``loc(#loc3)`` in the ops and ``#loc3 = loc("k.py":12:5)`` after the module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    CallSiteLoc,
    ComplexType,
    FileLineColLoc,
    FusedLoc,
    IndexType,
    IntegerType,
    LocationAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, AttributeInvT, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.parser.attribute_parser import AttrParser
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from passviz.ir.string_lexer import use_linear_string_lexer


@dataclass
class _BitPatternAwareElement(AttrParser._TensorLiteralElement):  # pyright: ignore[reportPrivateUsage]
    """A tensor literal element that reads ``0x...`` under a float type as raw bits."""

    def to_type(self, parser: AttrParser, type: AnyFloat | IntegerType | IndexType | ComplexType):
        if not isinstance(type, AnyFloat) or not _is_hex(self.span) or not isinstance(self.value, int):
            return super().to_type(parser, type)
        if self.is_negative:
            parser.raise_error("a hex float literal cannot be negated", at_position=self.span)
        try:
            raw = self.value.to_bytes(type.compile_time_size, "little")
        except OverflowError:
            parser.raise_error(f"hex literal does not fit in {type}", at_position=self.span)
        return next(type.iter_unpack(raw))


def _is_hex(span: Span) -> bool:
    return span.text.lstrip("-")[:2] in ("0x", "0X")


_DEFERRED = "\0passviz: location alias defined later: "
"""Marks the name of a placeholder ``NameLoc`` that stands for a late alias.

xDSL's location attributes are final and must nest only locations, so the
placeholder is a ``NameLoc`` whose name no MLIR text can spell unescaped."""


class MLIRParser(Parser):
    """xDSL's ``Parser``, reading hex float literals and late location aliases as MLIR does."""

    _TensorLiteralElement = _BitPatternAwareElement

    _late_alias_uses: dict[str, Span] | None
    """Where each alias used before its definition is first used, for errors;
    None outside ``parse_module`` (a lone location or attribute has no later
    definitions to wait for)."""

    _first_forward_uses: dict[str, Span]
    """Where each value used before its definition is first used, for errors."""

    def __init__(self, ctx: Context, input: str, name: str = "<unknown>") -> None:
        super().__init__(ctx, "", name)
        use_linear_string_lexer(self, input, name)
        self._late_alias_uses = None
        self._first_forward_uses = {}

    def resolve_operand(self, operand: UnresolvedOperand, type: AttributeInvT) -> SSAValue[AttributeInvT]:
        if operand.operand_name not in self.ssa_values:
            self._first_forward_uses.setdefault(operand.operand_name, operand.span)
        return super().resolve_operand(operand, type)

    def _raise_undefined_use(self) -> None:
        """Report the first use of a value never defined where it is, not at the end of the input
        (xDSL says ``values used but not defined`` at the end)."""
        uses = [self._first_forward_uses[name] for name in self.forward_ssa_references]
        first = min(uses, key=lambda span: span.start)
        self.raise_error(f"use of undefined value {first.text}", at_position=first)

    def _parse_location(self) -> LocationAttr:
        token = self._current_token
        late = self._late_alias_uses
        if late is None or token.kind != MLIRTokenKind.HASH_IDENT or token.text in self.attribute_aliases:
            return super()._parse_location()
        self._consume_token(MLIRTokenKind.HASH_IDENT)
        late.setdefault(token.text, token.span)
        return NameLoc(StringAttr(_DEFERRED + token.text), NoneAttr())

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        late: dict[str, Span] = {}
        self._late_alias_uses = late
        try:
            module = super().parse_module(allow_implicit_module)
        except ParseError:
            if self.forward_ssa_references and self._current_token.kind is MLIRTokenKind.EOF:
                self._raise_undefined_use()
            raise
        finally:
            self._late_alias_uses = None
        if not late:
            return module
        for op in module.walk():
            op.location = self._resolved(op.location, late, frozenset())
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.args:
                        arg.location = self._resolved(arg.location, late, frozenset())
        return module

    def _resolved(self, location: LocationAttr, late: dict[str, Span], seen: frozenset[str]) -> LocationAttr:
        """``location`` with every late alias (first used where ``late`` says) replaced by its definition."""
        match location:
            case NameLoc(desc=StringAttr(data=desc)) if desc.startswith(_DEFERRED):
                alias = desc.removeprefix(_DEFERRED)
                value = self.attribute_aliases.get(alias)
                if alias in seen or not _is_location(value):
                    self.raise_error(
                        f"location alias {alias} is never defined as a location, or only in terms of itself",
                        at_position=late[alias],
                    )
                return self._resolved(cast(LocationAttr, value), late, seen | {alias})
            case NameLoc(desc=desc, location=child) if _is_location(child):
                return NameLoc(desc, self._resolved(cast(LocationAttr, child), late, seen))
            case CallSiteLoc(callee=callee, caller=caller):
                return CallSiteLoc(
                    self._resolved(cast(LocationAttr, callee), late, seen),
                    self._resolved(cast(LocationAttr, caller), late, seen),
                )
            case FusedLoc():
                parts = cast(ArrayAttr[Attribute], location.locations).data
                resolved = tuple(self._resolved(cast(LocationAttr, part), late, seen) for part in parts)
                return FusedLoc(resolved, location.metadata)
            case _:
                return location


def _is_location(attr: Attribute | None) -> bool:
    return isinstance(attr, UnknownLoc | FileLineColLoc | CallSiteLoc | NameLoc | FusedLoc)
