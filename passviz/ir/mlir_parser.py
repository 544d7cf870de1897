"""xDSL's parser, where xDSL 0.74 misreads what MLIR's printer writes or is slow on bad input.

- A hex literal in a float ``dense<...>`` is the element's bit pattern:
  MLIR prints ``-inf`` as ``dense<0xFF800000> : tensor<4xf32>``, which xDSL
  reads as the integer 4286578688 turned into a float.
- A string literal without its closing quote takes time exponential in
  its length to reject (``passviz.ir.string_lexer`` lexes it in linear time).
- Location aliases may be defined after their first use: ``triton.compile``'s
  TTIR (and any ``mlir-opt --mlir-print-debuginfo`` output) writes
  ``loc(#loc3)`` in the ops and ``#loc3 = loc("k.py":12:5)`` after the module.
  Each is resolved once and shared, and what each op's location then stands
  for is counted against the alias expansion bound below.
- Hostile input has bounds, each a located error: nesting deeper than
  ``passviz.ir.deep.MAX_NESTING``, integer literals past
  ``passviz.ir.literals.MAX_INTEGER_DIGITS``, dense literals past
  ``passviz.ir.literals.MAX_DENSE_ELEMENTS``, integer types wider than
  ``passviz.ir.literals.MAX_INTEGER_WIDTH`` bits, affine maps of more than
  ``passviz.ir.affine_text.MAX_AFFINE_TERMS`` terms, aliases standing for more than
  ``passviz.ir.aliases.AliasExpansion`` allows.
- A splat ``dense<1.0> : tensor<128x64xf32>`` is packed once and its bytes
  repeated, as MLIR stores it; xDSL 0.74 repeats the parsed element into a
  Python list of every element and normalises and packs each one (half of
  parsing a Triton kernel).  Its check of the literal's type builds an IRDL
  constraint on every call; it is built once here.
- Speed, no change in meaning: ``loc(#alias)``, ``loc("file":1:2)`` and
  ``loc("name"(#alias))`` (every op and location alias of Triton's IR) are
  read in one step, and a type as simple as ``i32`` or
  ``tensor<128x64x!tt.ptr<f16>>``, or a number as simple as ``128 : i32``, is
  parsed once per text and reused.
- An exception other than ``ParseError`` raised while parsing an attribute,
  type or op (an attribute's own ``VerifyException``, say) becomes a
  ``ParseError`` located at what was being parsed; xDSL lets it escape.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from xdsl.context import Context
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyDenseElement,
    AnyFloat,
    ArrayAttr,
    BytesAttr,
    CallSiteLoc,
    ComplexType,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    FloatAttr,
    FusedLoc,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    LocationAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    RankedStructure,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, AttributeInvT, Operation, Region, SSAValue, TypeAttribute
from xdsl.ir.affine import AffineMap, AffineSet
from xdsl.irdl import (
    AttrConstraint,
    BaseAttr,
    EqAttrConstraint,
    IRDLOperation,
    RangeLengthConstraint,
    RangeOf,
    VarConstraint,
    base,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.parser.attribute_parser import AttrParser
from xdsl.traits import CallableOpInterface
from xdsl.utils.exceptions import MultipleSpansParseError, ParseError, VerifyException
from xdsl.utils.lexer import Input, Position, Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from passviz.ir.affine_text import BoundedAffineParser
from passviz.ir.aliases import AliasExpansion
from passviz.ir.deep import MAX_NESTING
from passviz.ir.literals import BoundedLexer, dense_size_problem, integer_width_problem
from passviz.ir.parse_errors import MlirErrorPositions, before_wrong_token
from passviz.ir.terminal import first_line
from passviz.ir.xdsl_compat import (
    TensorLiteralElement,
    consume_token,
    current_token,
    parse_tensor_literal_element,
    parser_state,
    resume_from,
    use_lexer,
)

_AttributeT = TypeVar("_AttributeT", bound=Attribute)


@dataclass
class _BitPatternAwareElement(TensorLiteralElement):
    """A tensor literal element that reads ``0x...`` under a float type as raw bits."""

    def to_type(self, parser: AttrParser, type: AnyFloat | IntegerType | IndexType | ComplexType):
        if not isinstance(type, AnyFloat) or not isinstance(self.value, int) or isinstance(self.value, bool):
            return super().to_type(parser, type)
        if not _is_hex(self.span):
            parser.raise_error(_DECIMAL_FOR_FLOAT, at_position=self.span)
        if self.is_negative:
            parser.raise_error("a hex float literal cannot be negated", at_position=self.span)
        try:
            raw = self.value.to_bytes(type.compile_time_size, "little")
        except OverflowError:
            parser.raise_error(f"hex literal does not fit in {type}", at_position=self.span)
        return next(type.iter_unpack(raw))


def _is_hex(span: Span) -> bool:
    return span.text.lstrip("-")[:2] in ("0x", "0X")


_DECIMAL_FOR_FLOAT = "unexpected decimal integer literal for a floating point value"
"""MLIR's refusal of ``1 : f32`` (a float is written ``1.0``; ``0x3F800000`` gives its bits)."""

_DECIMAL_INTEGER = re.compile(r"-?[ \t\r\n]*[0-9]+(?![0-9.xXa-zA-Z_])")
"""A decimal integer literal (after its sign, if any): no float, no hex."""

_BLOCK_LABEL_NEXT = re.compile(r"(?:\s|//[^\n]*)*\^")
"""A block label right after a region's ``{`` (which MLIR refuses first where the region has
named arguments)."""

_EMPTY_BODY = re.compile(r"(?:\s|//[^\n]*)*\}")
"""What follows the ``{`` of a region with nothing in it."""


_DENSE_LITERAL_TYPE: AttrConstraint[RankedStructure[AnyDenseElement]] = base(RankedStructure[AnyDenseElement])
"""What a dense literal's type may be (a shaped type of integers, indices,
floats or complex numbers), built once: xDSL builds it on every literal."""

_NEXT_CHAR = re.compile(r"\s*(.)")
"""The next character that is not white space."""

_SPLAT_STARTS = frozenset("-0123456789tf(")
"""The characters a splat's one element may begin with (a number, ``true``,
``false``, a complex ``(re, im)``); a list begins with ``[``, hex data with ``"``."""

_HEX_DATA = re.compile(r"0x((?:[0-9a-fA-F]{2})*)")
"""A dense literal's hex data as MLIR reads it (``Token::getHexStringValue``):
``0x`` then whole bytes, nothing else; the group is the bytes."""

_WS = r"[ \t\r\n]*"
_ALIAS = r"(#(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*))"
_PLAIN_STRING = r'"([^"\\\n]*)"'
_LINE = r"([0-9]{1,18})"
_SIMPLE_LOCATION = re.compile(
    rf"{_WS}\({_WS}(?:{_ALIAS}|{_PLAIN_STRING}{_WS}(?::{_WS}{_LINE}{_WS}:{_WS}{_LINE}|\({_WS}{_ALIAS}{_WS}\))){_WS}\)"
)
"""What follows ``loc`` in nearly every location of Triton's IR, spelled as the
lexer reads it: ``(#alias)``, ``("file":line:col)`` or ``("name"(#alias))``,
with no escape in the string.  Groups: alias; or string, then line and
column, or the alias it names."""

_SCALAR = r"(?:[su]?i[0-9]+|bf16|f16|f32|f64|index)"
_SIMPLE_TYPE = re.compile(
    rf"(?:(?:tensor|vector)<(?:[0-9]+x)*(?:{_SCALAR}|!tt\.ptr<{_SCALAR}>)>|!tt\.ptr<{_SCALAR}>|{_SCALAR})"
    r"(?![a-zA-Z0-9_$.<])"
)
"""Types whose text alone says what they are (no alias, encoding or nested
attribute): one parse per distinct text is enough."""

_SIMPLE_NUMBER = re.compile(
    rf"-?[0-9]+(?:\.[0-9]+(?:[eE][+-]?[0-9]+)?)?[ \t]*:[ \t]*{_SCALAR}(?![a-zA-Z0-9_$.<])"
)
"""A typed number such as ``128 : i32`` or ``1.000000e+00 : f32`` (a third of
the attributes in Triton's IR): one parse per distinct text is enough."""

_TYPE_NAME = re.compile(r"![a-zA-Z_][a-zA-Z0-9_$.]*")
"""A dialect type's name (``!dialect.type``) in a ``_SIMPLE_TYPE``: an alias of that name would
make the text mean the alias."""

_SIMPLE_TYPE_DEPTH = 3
"""How many levels deep a ``_SIMPLE_TYPE`` nests (a tensor of pointers to scalars)."""

_DEFERRED = "\0passviz: location alias defined later: "
"""Marks the name of a placeholder ``NameLoc`` that stands for a late alias.

xDSL's location attributes are final and must nest only locations, so the
placeholder is a ``NameLoc`` whose name no MLIR text can spell unescaped."""


_TOO_DEEP = (
    f"nested more than {MAX_NESTING:,} levels deep (regions, attributes and types); passviz reads no deeper"
)
"""Why input nested deeper than ``MAX_NESTING`` is refused."""


class AtCurrentToken(ValueError):
    """A failure of an op's parser that is reported where the parser stopped (raised by code an
    op's parser calls, which has no parser to raise a located error with): as MLIR reports it."""


class MLIRParser(MlirErrorPositions, Parser):
    """xDSL's ``Parser``, reading hex float literals and late location aliases as MLIR does."""

    _TensorLiteralElement = _BitPatternAwareElement

    _late_alias_uses: dict[str, Span] | None
    """Where each alias used before its definition is first used, for errors;
    None outside ``parse_module`` (a lone location or attribute has no later
    definitions to wait for)."""

    _first_forward_uses: dict[str, Span]
    """Where each value used before its definition is first used, for errors."""

    _nesting: int
    """How many regions, attributes and types the parser is inside now."""

    _expansion: AliasExpansion
    """What the alias uses read so far stand for."""

    op_starts: dict[Operation, Span]
    """Where each op parsed begins, to locate the verifier's errors."""

    _placeholders: dict[str, NameLoc]
    """The placeholder of each late alias (one per alias, shared by its uses)."""

    _simple_types: dict[str, TypeAttribute]
    """Each ``_SIMPLE_TYPE`` text parsed so far, with its type."""

    _simple_numbers: dict[str, Attribute]
    """Each ``_SIMPLE_NUMBER`` text parsed so far, with its attribute."""

    _strings: dict[str, StringAttr]
    """The string attributes of locations read so far, by text."""

    _resource_keys: dict[tuple[str, str], str]
    """Each resource handle read so far (dialect, text), with the key it was declared under."""

    _balanced: tuple[int, int]
    """The last dialect attribute or type body found balanced: where it begins and ends."""

    _empty_bodies: dict[Region, Span]
    """Each region read as ``{}`` without arguments, with its brace: a function may not have one."""

    def __init__(self, ctx: Context, input: str, name: str = "<unknown>") -> None:
        super().__init__(ctx, "", name)
        self._late_alias_uses = None
        self._first_forward_uses = {}
        self._nesting = 0
        self._expansion = AliasExpansion(len(input))
        self.op_starts = {}
        self._placeholders = {}
        self._simple_types = {}
        self._strings = {}
        self._simple_numbers = {}
        self._resource_keys = {}
        self._empty_bodies = {}
        self._balanced = (0, 0)
        # xDSL's Parser lexes its first token at once: the lexer is swapped in
        # before any token of the input is read.  It may raise ParseError.
        # MLIR's lexer skips a NUL character as white space (one at the end is the end).
        use_lexer(self, BoundedLexer(Input(input.replace("\0", " "), name)))

    def _parse_dialect_resource_handle(self, dialect_name: str, interface: OpAsmDialectInterface) -> str:
        """A resource handle, declared once per parse: every use of one handle names the same
        resource, as in MLIR (xDSL's declares a handle it renamed, ``__elided___0`` for an
        ``__elided__`` of an earlier parse, again at each use, so the uses fall apart)."""
        key = self.parse_identifier(" for resource handle")
        declared = self._resource_keys.get((dialect_name, key))
        if declared is None:
            declared = self._resource_keys[(dialect_name, key)] = interface.declare_resource(key)
            self.dialect_resources.add((dialect_name, declared))
        return declared

    # -- bounds and located failures -------------------------------------------------

    def _enter(self) -> None:
        """Go one level deeper, refusing to go past ``MAX_NESTING``."""
        self._nesting += 1
        if self._nesting > MAX_NESTING:
            self.raise_error(_TOO_DEEP)

    def _relocate(self, exc: Exception, start: Position, what: str) -> ParseError:
        """``exc``, raised while parsing ``what`` from ``start``, as a located ``ParseError``."""
        if isinstance(exc, RecursionError):
            message = (
                "nested too deeply for the Python stack here (the passviz command line reads "
                f"{MAX_NESTING:,} levels)"
            )
        elif isinstance(exc, VerifyException | AtCurrentToken):
            # the op's own words, as MLIR says them (an AtCurrentToken is MLIR's message)
            message = first_line(str(exc)) or f"invalid {what}"
        else:
            message = f"invalid {what}: {type(exc).__name__}: {first_line(str(exc))}"
        return ParseError(Span(start, max(start, self.pos), self.lexer.input), message)

    def parse_optional_region(self, arguments: Iterable[Parser.Argument] | None = None) -> Region | None:
        brace = current_token(self)
        if (
            arguments is not None
            and brace.kind is MLIRTokenKind.L_BRACE
            and not _BLOCK_LABEL_NEXT.match(self.lexer.input.content, brace.span.end)
        ):
            arguments = list(arguments)
            for argument in arguments:
                # MLIR's parser keeps one scope of names per region isolated from above, where a
                # nested region may not shadow a name, nor take one used before its definition.
                name = argument.name.text[1:]
                if name in self.ssa_values or name in self.forward_ssa_references:
                    self.raise_error(
                        f"region entry argument '{argument.name.text}' is already in use",
                        at_position=argument.name,
                    )
        self._enter()
        try:
            region = super().parse_optional_region(arguments)
        except MultipleSpansParseError as exc:
            if not exc.msg.startswith("region ends with missing block declarations"):
                raise
            # MLIR reports the first reference, where xDSL reports the region's end.
            first = min((span for span, _ in exc.refs), key=lambda span: span.start)
            raise ParseError(first, "reference to an undefined block") from None
        finally:
            self._nesting -= 1
        if (
            region is not None
            and not arguments
            and _EMPTY_BODY.match(self.lexer.input.content, brace.span.end)
        ):
            self._empty_bodies[region] = brace.span
        return region

    def parse_region_with_own_names(self, arguments: Iterable[Parser.Argument] | None = None) -> Region:
        """A region whose values are a scope of names of their own, as MLIR's ``parseRegion`` with
        ``enableNameShadowing`` reads it (for an op isolated from above): its arguments and ops
        may take the names of values outside, and no name outside is visible in it."""
        values, forward = self.ssa_values, self.forward_ssa_references
        self.ssa_values, self.forward_ssa_references = {}, {}
        try:
            region = self.parse_region(arguments)
            if self.forward_ssa_references:
                self._raise_undefined_use()
        finally:
            self.ssa_values, self.forward_ssa_references = values, forward
        return region

    def parse_optional_attribute(self) -> Attribute | None:
        self._check_pretty_body()
        return self._parse_reused(
            _SIMPLE_NUMBER, self._simple_numbers, super().parse_optional_attribute, "attribute"
        )

    def parse_optional_type(self) -> TypeAttribute | None:
        self._check_pretty_body()
        return self._parse_reused(
            _SIMPLE_TYPE,
            self._simple_types,
            super().parse_optional_type,
            "type",
        )

    def _check_pretty_body(self) -> None:
        """MLIR's first look at a dialect attribute or type (``#ttg.slice<...>``): the extent of
        its body, up to the ``>`` that balances its ``<``, ``(``, ``[`` and ``{`` (strings
        skipped), refused as MLIR refuses it where the punctuation does not balance."""
        token = current_token(self)
        if (
            token.kind not in (MLIRTokenKind.HASH_IDENT, MLIRTokenKind.EXCLAMATION_IDENT)
            or "." not in token.text
        ):
            return
        content = self.lexer.input.content
        start = token.span.end
        if content[start : start + 1] != "<" or self._balanced[0] <= start < self._balanced[1]:
            return  # no body, or one inside a body found balanced (whose brackets all balance)
        problem = unbalanced_body(content, start)
        if isinstance(problem, int):
            self._balanced = (start, problem)
            return
        if problem is not None:
            at, message = problem
            raise ParseError(Span(at, at + 1, self.lexer.input), message)

    def _parse_reused(
        self,
        pattern: re.Pattern[str],
        known: dict[str, _AttributeT],
        parse: Callable[[], _AttributeT | None],
        what: str,
    ) -> _AttributeT | None:
        """``_parse_nested(parse, what)``, once per distinct text ``pattern`` matches here:
        the value is kept in ``known`` and read back instead of parsed, unless the text names a
        dialect type that is also an alias here (``!d.t = ...``: the text no longer says alone
        what it is)."""
        simple = pattern.match(self.lexer.input.content, current_token(self).span.start)
        if simple is None or self._nesting + _SIMPLE_TYPE_DEPTH > MAX_NESTING:
            return self._parse_nested(parse, what)
        text = simple[0]
        value = known.get(text)
        if value is not None and not self._names_an_alias(text):
            resume_from(self, simple.end())
            return value
        value = self._parse_nested(parse, what)
        # Keep it only if the parse read exactly the text matched.
        if value is not None and not self.lexer.input.content[simple.end() : self.pos].strip():
            known[text] = value
        return value

    def _names_an_alias(self, text: str) -> bool:
        """Whether the simple type or number ``text`` names a dialect type that is an alias here."""
        return "!" in text and any(name in self.attribute_aliases for name in _TYPE_NAME.findall(text))

    def _parse_nested(self, parse: Callable[[], _AttributeT | None], what: str) -> _AttributeT | None:
        """``parse()`` one level deeper, its failures located, its alias use counted."""
        token = current_token(self)
        self._enter()
        try:
            value = parse()
        except (ParseError, MemoryError):
            raise
        except Exception as exc:
            raise self._relocate(exc, token.span.start, what) from None
        finally:
            self._nesting -= 1
        self._count_alias_use(token.kind, token.span, value)
        return value

    def _count_alias_use(self, kind: MLIRTokenKind, span: Span, value: Attribute | None) -> None:
        """Count ``value`` against the alias expansion limit if ``span`` is a use of an alias of it."""
        if kind not in (MLIRTokenKind.HASH_IDENT, MLIRTokenKind.EXCLAMATION_IDENT) or value is None:
            return
        if self.attribute_aliases.get(span.text) is not value or self._expansion.use(value):
            return
        self.raise_error(self._expansion.refusal(), at_position=span)

    def _parse_optional_integer_or_float_type(self) -> TypeAttribute | None:
        token = current_token(self)
        if token.kind is MLIRTokenKind.BARE_IDENT and (problem := integer_width_problem(token.text)):
            self.raise_error(problem, at_position=token.span)
        return super()._parse_optional_integer_or_float_type()

    def parse_affine_map(self) -> AffineMap:
        self._check_affine_space()
        return BoundedAffineParser(parser_state(self)).parse_affine_map()

    def parse_affine_set(self) -> AffineSet:
        self._check_affine_space()
        return BoundedAffineParser(parser_state(self)).parse_affine_set()

    def _check_affine_space(self) -> None:
        """MLIR's refusal of a dimension or symbol named twice (``(d0, d0) -> ...``), which xDSL
        reads as two dimensions of which the last is used."""
        content = self.lexer.input.content
        space = _AFFINE_SPACE.match(content, current_token(self).span.start)
        if space is None:
            return
        seen: set[str] = set()
        for name in _BARE_ID.finditer(content, space.start(), space.end()):
            if name[0] in seen:
                self.raise_error(f"redefinition of identifier '{name[0]}'", at_position=name.start())
            seen.add(name[0])

    def parse_affine_map_of_ssa_ids(self) -> tuple[AffineMap, Sequence[SSAValue[IndexType]]]:
        """xDSL's, reading the map with ``BoundedAffineParser``."""
        affine_map, spans = BoundedAffineParser(parser_state(self)).parse_affine_map_of_ssa_ids()
        operands = [self.resolve_operand(UnresolvedOperand(span, 0), IndexType()) for span in spans]
        return affine_map, operands

    def parse_operation(self) -> Operation:
        start = current_token(self).span
        try:
            op = super().parse_operation()
        except (ParseError, MemoryError):
            raise
        except Exception as exc:
            where = self.pos if isinstance(exc, AtCurrentToken) else start.start
            raise self._relocate(exc, where, "operation") from None
        if self._empty_bodies and op.regions and op.regions[0] in self._empty_bodies and _is_function(op):
            # MLIR's ``parseFunctionOp``: ``{}`` is no body (a declaration has no braces).
            self.raise_error(
                "expected non-empty function body", at_position=self._empty_bodies[op.regions[0]]
            )
        if isinstance(op, IRDLOperation) and not _GENERIC_OP.match(self.lexer.input.content, start.start):
            if (problem := _result_kind_problem(op)) is not None:
                self.raise_error(problem, at_position=start)
        # MLIR locates an op at its name, past the results it defines (``%0 = linalg.matmul``).
        results = _RESULT_LIST.match(self.lexer.input.content, start.start)
        at = start.start if results is None else results.end()
        self.op_starts[op] = Span(at, at, self.lexer.input)
        return op

    def parse_shape_dimension(self, allow_dynamic: bool = True) -> int:
        token = current_token(self)
        if token.kind is MLIRTokenKind.INTEGER_LIT and _literal_value(token.text) > _INT64_MAX:
            self.raise_error("invalid dimension", at_position=token.span)  # MLIR's: past int64
        return super().parse_shape_dimension(allow_dynamic)

    def _get_op_by_name(self, name: str) -> type[Operation]:
        try:
            if "." not in name and not _INTEGER_TYPE.fullmatch(name):
                # MLIR finds a name without its dialect in one dialect only: the default dialect
                # of the op around it (builtin.module's and the top level's builtin, func.func's
                # func, none elsewhere); xDSL tries every dialect of the ops around it.
                stack = parser_state(self).dialect_stack
                default = stack[-1] if stack and stack[-1] in ("builtin", "func") else ""
                if not default or self.ctx.get_optional_op(f"{default}.{name}") is None:
                    self.raise_error(f"custom op '{name}' is unknown")
            return super()._get_op_by_name(name)
        except ParseError as exc:
            # xDSL blames the token after the name; MLIR blames the name, and does not take an
            # integer type (``i32``) for an op name at all.
            content = self.lexer.input.content
            at = content.rfind(name, 0, current_token(self).span.start)
            if at < 0:
                raise
            if _INTEGER_TYPE.fullmatch(name):
                where = before_wrong_token(content, at, False)
                raise ParseError(
                    Span(where, where, self.lexer.input), "expected operation name in quotes"
                ) from None
            raise ParseError(Span(at, at + len(name), self.lexer.input), exc.msg) from None

    def parse_optional_builtin_int_or_float_attr(self) -> IntegerAttr | FloatAttr | None:
        token = current_token(self)
        attr = super().parse_optional_builtin_int_or_float_attr()
        if isinstance(attr, FloatAttr) and _DECIMAL_INTEGER.match(self.lexer.input.content, token.span.start):
            self.raise_error(_DECIMAL_FOR_FLOAT, at_position=token.span)
        if isinstance(attr, IntegerAttr) and token.kind in (MLIRTokenKind.INTEGER_LIT, MLIRTokenKind.MINUS):
            value = attr.value.data
            if not _fits(value, attr.type):
                self.raise_error("integer constant out of range for attribute", at_position=token.span)
        return attr

    def _parse_dense_literal_type(self) -> RankedStructure[AnyDenseElement]:
        start = self.pos
        type = self.expect(self.parse_optional_type, "Dense attribute must be typed!")
        if not _DENSE_LITERAL_TYPE.verifies(type):
            self.raise_error(
                "Expected memref, vector or tensor type of integer, index, float, or complex type"
            )
        shape = type.get_shape()
        if DYNAMIC_INDEX in shape:
            self.raise_error("Dense literal attribute should have a static shape.")
        self._check_dense_size(shape, start)
        return type

    def parse_dense_int_or_fp_elements_attr(
        self, type: RankedStructure[AnyDenseElement] | None
    ) -> DenseIntOrFPElementsAttr:
        if type is not None:
            self._check_dense_size(type.get_shape(), self.pos)
        token = current_token(self)
        after = _NEXT_CHAR.match(self.lexer.input.content, token.span.end)
        if token.kind is not MLIRTokenKind.LESS or after is None:
            return super().parse_dense_int_or_fp_elements_attr(type)
        if after[1] == '"':
            return self._parse_dense_hex(type)
        if after[1] not in _SPLAT_STARTS:
            return super().parse_dense_int_or_fp_elements_attr(type)
        return self._parse_dense_splat(type)

    def _parse_dense_hex(self, type: RankedStructure[AnyDenseElement] | None) -> DenseIntOrFPElementsAttr:
        """``<"0x...">`` then the type if not given: data of one element (a splat) or of every
        element, as MLIR takes it.  xDSL takes any length and fails where the data is printed
        (``Buffer length 3 not product of f32 element size 4 and num 0``)."""
        self.parse_punctuation("<", " in dense attribute")
        where = current_token(self).span
        hex_data = _HEX_DATA.fullmatch(self.parse_str_literal())
        self.parse_punctuation(">", " in dense attribute")
        if hex_data is None:
            self.raise_error("expected string containing hex digits starting with `0x`", at_position=where)
        if type is None:
            self.parse_punctuation(":", " in dense attribute")
            type = self._parse_dense_literal_type()
        data = bytes.fromhex(hex_data[1])
        element_size = type.get_element_type().compile_time_size
        count = math.prod(type.get_shape())
        if len(data) == element_size:  # a splat, even of no elements, as in MLIR
            data *= count
        elif len(data) != element_size * count:
            self.raise_error(
                f"elements hex data size is invalid for provided type: {type}", at_position=where
            )
        return DenseIntOrFPElementsAttr(type, BytesAttr(data))

    def _parse_dense_splat(self, type: RankedStructure[AnyDenseElement] | None) -> DenseIntOrFPElementsAttr:
        """``<element>`` then the type if not given: the element packed once, its bytes repeated."""
        self.parse_punctuation("<", " in dense attribute")
        element = parse_tensor_literal_element(self)
        self.parse_punctuation(">", " in dense attribute")
        if type is None:
            self.parse_punctuation(":", " in dense attribute")
            type = self._parse_dense_literal_type()
        value = element.to_type(self, type.get_element_type())
        # from_list packs a one-element list once and repeats its bytes.
        return DenseIntOrFPElementsAttr.from_list(cast(Any, type), cast(Any, [value]))

    def _check_dense_size(self, shape: Sequence[int], at: Position) -> None:
        if (problem := dense_size_problem(shape)) is not None:
            self.raise_error(problem, at, max(at, self.pos))

    # -- MLIR's syntax -----------------------------------------------------------------

    def resolve_operand(self, operand: UnresolvedOperand, type: AttributeInvT) -> SSAValue[AttributeInvT]:
        if operand.operand_name not in self.ssa_values:
            self._first_forward_uses.setdefault(operand.operand_name, operand.span)
        return super().resolve_operand(operand, type)

    def resolve_operands(
        self, args: Sequence[UnresolvedOperand], input_types: Sequence[Attribute], error_pos: Position
    ) -> Sequence[SSAValue]:
        if args and len(args) != len(input_types):
            # MLIR blames the operand list (xDSL's declarative formats name where the types end).
            error_pos = args[0].span.start
        return super().resolve_operands(args, input_types, error_pos)

    def _raise_undefined_use(self) -> None:
        """Report the first use of a value never defined where it is, not at the end of the input
        (xDSL says ``values used but not defined`` at the end)."""
        uses = [self._first_forward_uses[name] for name in self.forward_ssa_references]
        first = min(uses, key=lambda span: span.start)
        self.raise_error(f"use of undefined value {first.text}", at_position=first)

    def parse_optional_location(self) -> LocationAttr | None:
        token = current_token(self)
        if token.text != "loc":
            return None
        content = self.lexer.input.content
        simple = _SIMPLE_LOCATION.match(content, token.span.end)
        if simple is None or self._nesting >= MAX_NESTING:
            return super().parse_optional_location()
        alias, string, line, column, named = simple.groups()
        if string is None:
            location = self._alias_location(alias, simple.span(1))
        elif line is not None:
            location = FileLineColLoc(self._string_attr(string), IntAttr(int(line)), IntAttr(int(column)))
        else:
            inner = self._alias_location(named, simple.span(5))
            location = None if inner is None else NameLoc(self._string_attr(string), inner)
        if location is None:  # xDSL's path says what is wrong
            return super().parse_optional_location()
        resume_from(self, simple.end())
        return location

    def _alias_location(self, alias: str, where: tuple[int, int]) -> LocationAttr | None:
        """The location a use of ``alias`` at ``where`` stands for, a placeholder if
        it is defined later; None if it is not a location."""
        span = Span(where[0], where[1], self.lexer.input)
        value = self.attribute_aliases.get(alias)
        if value is None and self._late_alias_uses is not None:
            self._late_alias_uses.setdefault(alias, span)
            return self._placeholder(alias)
        if not _is_location(value):
            return None
        self._count_alias_use(MLIRTokenKind.HASH_IDENT, span, value)
        return cast(LocationAttr, value)

    def _string_attr(self, text: str) -> StringAttr:
        """``StringAttr(text)``, one per distinct text (file names repeat in every location)."""
        attr = self._strings.get(text)
        if attr is None:
            attr = self._strings[text] = StringAttr(text)
        return attr

    def _parse_location(self) -> LocationAttr:
        token = current_token(self)
        late = self._late_alias_uses
        if late is None or token.kind != MLIRTokenKind.HASH_IDENT or token.text in self.attribute_aliases:
            return super()._parse_location()
        consume_token(self, MLIRTokenKind.HASH_IDENT)
        late.setdefault(token.text, token.span)
        return self._placeholder(token.text)

    def _placeholder(self, alias: str) -> NameLoc:
        """The location standing for ``alias`` until its definition is read."""
        placeholder = self._placeholders.get(alias)
        if placeholder is None:
            placeholder = self._placeholders[alias] = NameLoc(StringAttr(_DEFERRED + alias), NoneAttr())
        return placeholder

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        late: dict[str, Span] = {}
        self._late_alias_uses = late
        try:
            module = super().parse_module(allow_implicit_module)
        except ParseError as exc:
            at_end = current_token(self).kind is MLIRTokenKind.EOF
            if self.forward_ssa_references and at_end and exc.msg.startswith("values used but not defined"):
                self._raise_undefined_use()
            if not (at_end and allow_implicit_module and exc.msg == "Could not parse entire input!"):
                raise
            # Nothing but aliases and comments: MLIR reads an empty module (xDSL refuses it).
            module = ModuleOp([])
        finally:
            self._late_alias_uses = None
        if not late:
            return module
        locations = _LateLocations(self.attribute_aliases, late)
        for op in module.walk():
            op.location = self._resolved(op.location, locations)
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.args:
                        arg.location = self._resolved(arg.location, locations)
        return module

    def _resolved(self, location: LocationAttr, locations: _LateLocations) -> LocationAttr:
        """``location`` with its late aliases replaced, counted against the alias expansion
        limit: what it stands for is printed in full wherever it is."""
        resolved = locations.resolve(location)
        if resolved is not location and not self._expansion.use(resolved):
            raise ParseError(locations.first_use(location), self._expansion.refusal())
        return resolved


class _LateLocations:
    """Locations with every late alias replaced by its definition, each alias resolved once.

    ``#l0 = loc(fused[#l1, #l1])`` and so on 40 deep stands for 2^40 locations
    but resolves to 40 shared ones; their size is for ``AliasExpansion`` to
    count.  Resolution is recursive, so the locations are refused past
    ``MAX_NESTING`` levels deep, as parsed ones are."""

    def __init__(self, aliases: Mapping[str, Attribute], late: Mapping[str, Span]) -> None:
        self._aliases = aliases
        """Every alias defined in the input, with its value."""
        self._late = late
        """Where each alias used before its definition is first used."""
        self._done: dict[int, tuple[LocationAttr, LocationAttr, int]] = {}
        """Each location resolved, by ``id`` (kept so that the id stays its), with its
        resolved location and how many levels deep that is."""
        self._path: list[str] = []
        """The aliases being resolved now, outermost first."""
        self._level = 0
        """How many locations deep resolution is now."""
        self._top: LocationAttr | None = None
        """The location ``resolve`` was last given."""

    def resolve(self, location: LocationAttr) -> LocationAttr:
        """``location`` with its late aliases replaced (``location`` itself if it has none)."""
        self._top = location
        return self._resolve(location)[0]

    def first_use(self, location: LocationAttr) -> Span:
        """Where the first late alias in ``location`` is first used."""
        seen: set[int] = set()
        stack: list[Attribute] = [location]
        while stack:
            attr = stack.pop()
            if id(attr) in seen:
                continue
            seen.add(id(attr))
            if (alias := _deferred_alias(attr)) is not None:
                return self._late[alias]
            stack.extend(reversed(_location_children(attr)))
        return min(self._late.values(), key=lambda span: span.start)

    def _resolve(self, location: LocationAttr) -> tuple[LocationAttr, int]:
        known = self._done.get(id(location))
        if known is not None:
            return known[1], known[2]
        # Each level is a few Python frames: bounded as parsing is.
        self._level += 1
        try:
            if self._level > MAX_NESTING:
                raise ParseError(self._blamed(), _TOO_DEEP)
            resolved, depth = self._resolve_new(location)
        finally:
            self._level -= 1
        if depth > MAX_NESTING:
            raise ParseError(self._blamed(), _TOO_DEEP)
        self._done[id(location)] = (location, resolved, depth)
        return resolved, depth

    def _blamed(self) -> Span:
        """Where to say the location being resolved goes wrong: the innermost alias's first use."""
        if self._path:
            return self._late[self._path[-1]]
        assert self._top is not None
        return self.first_use(self._top)

    def _resolve_new(self, location: LocationAttr) -> tuple[LocationAttr, int]:
        alias = _deferred_alias(location)
        if alias is not None:
            return self._resolve_alias(alias)
        children = _location_children(location)
        if not children:
            return location, 1
        resolved = [self._resolve(child) for child in children]
        depth = 1 + max(depth for _, depth in resolved)
        if all(new is old for (new, _), old in zip(resolved, children, strict=True)):
            return location, depth  # nothing late inside: shared as it is
        return _with_children(location, [new for new, _ in resolved]), depth

    def _resolve_alias(self, alias: str) -> tuple[LocationAttr, int]:
        value = self._aliases.get(alias)
        if alias in self._path or not _is_location(value):
            raise ParseError(
                self._late[alias],
                f"location alias {alias} is never defined as a location, or only in terms of itself",
            )
        self._path.append(alias)
        try:
            return self._resolve(cast(LocationAttr, value))
        finally:
            self._path.pop()


_AFFINE_SPACE = re.compile(r"\(\s*[\w$.\s,]*\)(?:\s*\[\s*[\w$.\s,]*\])?")
"""An affine map's or set's dimensions and symbols: ``(d0, d1)[s0]``."""

_BARE_ID = re.compile(r"[A-Za-z_][\w$.]*")
"""A bare identifier (a dimension's or symbol's name)."""

_INT64_MAX = 2**63 - 1
"""The largest dimension of a shape."""


def _literal_value(text: str) -> int:
    """An integer literal's value (decimal, or hexadecimal after ``0x``)."""
    return int(text, 16) if text[:2] in ("0x", "0X") else int(text)


_INTEGER_TYPE = re.compile(r"[su]?i[0-9]+")
"""What MLIR's lexer reads as an integer type, never as an identifier."""

_RESULT_LIST = re.compile(r"%[\w$.\-]+(?::\d+)?(?:\s*,\s*%[\w$.\-]+(?::\d+)?)*\s*=\s*")
"""The results an op statement defines, up to its name (``%a, %b:2 = ``)."""

_GENERIC_OP = re.compile(r'(?:%[\w$.\-:#, \t]*=[ \t\r\n]*)?"')
"""The start of an op in the generic form (``%r = "dialect.op"(...)``)."""

_KINDS: dict[type[Attribute], str] = {IntegerType: "builtin.integer", IndexType: "builtin.index"}
"""The builtin types an op's custom syntax reads as a kind of their own where the op's result is
one (MLIR's ``parseCustomTypeWithFallback`` for ``I32`` or ``Index``), and their names."""


def _result_kind_problem(op: IRDLOperation) -> str | None:
    """MLIR's refusal, while reading an op's custom syntax, of a result type of the wrong kind
    where the op's definition names one (``tt.get_program_id`` gives an ``i32``): the verifier
    would say it later, after the parse errors further on."""
    definitions = type(op).get_irdl_definition().results
    if len(definitions) != len(op.results):
        return None
    for (_, definition), result in zip(definitions, op.results, strict=True):
        constraint = definition.constr
        if isinstance(constraint, RangeLengthConstraint) and isinstance(constraint.constraint, RangeOf):
            constraint = constraint.constraint.constr
        elif isinstance(constraint, RangeOf | RangeLengthConstraint):
            continue
        if isinstance(constraint, VarConstraint):
            constraint = constraint.constraint
        kind = (
            type(constraint.attr)
            if isinstance(constraint, EqAttrConstraint)
            else constraint.attr
            if isinstance(constraint, BaseAttr)
            else None
        )
        if kind in _KINDS and not isinstance(result.type, kind):
            return f"invalid kind of type specified: expected {_KINDS[kind]}, but found '{result.type}'"
    return None


_CLOSERS = {">": "<", "]": "[", ")": "(", "}": "{"}


def unbalanced_body(content: str, start: int) -> tuple[int, str] | int | None:
    """Where and why MLIR's ``parseDialectSymbolBody`` refuses the body that begins with the
    ``<`` at ``start``; else where the body ends (None where a string in it does not end, which
    the lexer refuses).  It blames the ``<``, or the last string it skipped (its lexer's current
    token)."""
    stack: list[str] = []
    blamed = start
    at = start
    end = len(content)
    while True:
        if at >= end:
            return blamed, f"unbalanced '{stack[-1]}' character in pretty dialect name"
        char = content[at]
        at += 1
        if char in "<[({":
            stack.append(char)
        elif char == "-" and content[at : at + 1] == ">":
            at += 1  # ``->`` is a token of its own
        elif char in _CLOSERS:
            if stack[-1] != _CLOSERS[char]:
                return blamed, f"unbalanced '{stack[-1]}' character in pretty dialect name"
            stack.pop()
            if not stack:
                return at
        elif char == '"':
            blamed = at - 1
            closing = _STRING_END.match(content, at)
            if closing is None:
                return None  # the lexer's own error for the string comes first
            at = closing.end()


_STRING_END = re.compile(r'(?:[^"\\\n]|\\.)*"')
"""The rest of a string literal, up to its closing quote, on its line."""


def _fits(value: int, type: IntegerType | IndexType) -> bool:
    """Whether MLIR's ``buildAttributeAPInt`` takes ``value`` for ``type``: a signless integer of
    N bits holds -2^(N-1) to 2^N - 1, a signed one or an index (64 bits) -2^(N-1) to 2^(N-1) - 1,
    an unsigned one 0 to 2^N - 1."""
    if isinstance(type, IndexType):
        width, signedness = 64, "signed"
    else:
        width, signedness = type.width.data, type.signedness.data.name.lower()
    if width == 0:
        return value == 0
    if value < 0:
        return signedness != "unsigned" and -value <= 1 << (width - 1)
    if signedness == "signed" or isinstance(type, IndexType):
        return value < 1 << (width - 1)
    return value < 1 << width


def _is_function(op: Operation) -> bool:
    """Whether ``op`` is a function (``func.func`` and the like): callable, with a type."""
    return op.has_trait(CallableOpInterface) and op.get_attr_or_prop("function_type") is not None


def _deferred_alias(attr: Attribute) -> str | None:
    """The alias ``attr`` is the placeholder of, or None if it is none."""
    if (
        isinstance(attr, NameLoc)
        and isinstance(attr.location, NoneAttr)
        and attr.desc.data.startswith(_DEFERRED)
    ):
        return attr.desc.data.removeprefix(_DEFERRED)
    return None


def _location_children(location: Attribute) -> list[LocationAttr]:
    """The locations ``location`` is made of: a name's, a call site's two, a fusion's parts."""
    match location:
        case NameLoc(location=child) if _is_location(child):
            return [cast(LocationAttr, child)]
        case CallSiteLoc(callee=callee, caller=caller):
            return [cast(LocationAttr, callee), cast(LocationAttr, caller)]
        case FusedLoc():
            return [cast(LocationAttr, part) for part in cast(ArrayAttr[Attribute], location.locations).data]
        case _:
            return []


def _with_children(location: LocationAttr, children: Sequence[LocationAttr]) -> LocationAttr:
    """``location`` (one ``_location_children`` takes apart) made of ``children`` instead."""
    match location:
        case NameLoc():
            return NameLoc(location.desc, children[0])
        case CallSiteLoc():
            return CallSiteLoc(children[0], children[1])
        case _:
            return FusedLoc(tuple(children), cast(FusedLoc, location).metadata)


def _is_location(attr: Attribute | None) -> bool:
    return isinstance(attr, UnknownLoc | FileLineColLoc | CallSiteLoc | NameLoc | FusedLoc)
