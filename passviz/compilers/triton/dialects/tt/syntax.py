"""Parse/print helpers shared by the custom syntax of the ``tt`` ops.

Printing follows MLIR's generated printers: an attr-dict is sorted by name
and leaves out properties at their ``DefaultValuedAttr`` default (a load's
``{cache = 1 : i32}`` prints as nothing, ``{cache = 2 : i32}`` as
``cacheModifier = ca``); a type the op's format names by class is printed
stripped of its dialect prefix (``tt.advance ... : <tensor<8xf32>>``), and
parsed with or without it. Properties written at their default are dropped
when parsing or building, as MLIR gives such an op the same properties as
one that leaves them out.

``PropertySyntax`` parses and prints the ``oilist(...) attr-dict`` of an op
with properties; ``SrcToResultSyntax``, ``SameOperandTypeSyntax`` and
``SameTypeSyntax`` are the whole syntax of families of ops.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from typing import ClassVar, Self, TypeVar, cast

from xdsl.dialects.builtin import I32, IntegerAttr, TensorType, UnitAttr
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer

from passviz.compilers.triton.dialects.tt.types import EnumT, TritonI32Enum, is_ptr_like
from passviz.ir import op_syntax
from passviz.ir.hints import isa
from passviz.ir.op_syntax import parse_attr_dict_and_type, parse_operands


def parse_attr_dict_into_properties(
    parser: Parser,
    property_names: Sequence[str],
    properties: dict[str, Attribute],
) -> dict[str, Attribute]:
    """Parse an optional ``{...}`` attr-dict, as MLIR does for inherent attributes.

    Entries named in ``property_names`` go into ``properties`` (an entry already
    set there, e.g. by an ``oilist`` keyword, is an error); the rest are
    returned as discardable attributes.
    """
    attributes: dict[str, Attribute] = {}
    for name, value in parser.parse_optional_attr_dict().items():
        if name not in property_names:
            attributes[name] = value
        elif name in properties:
            parser.raise_error(f"'{name}' is given twice")
        else:
            properties[name] = value
    return attributes


def print_attr_dict_with_properties(
    printer: Printer,
    op: Operation,
    property_names: Sequence[str],
    elided: Set[str] = frozenset(),
    defaults: Mapping[str, Attribute] | None = None,
) -> None:
    """Print ``op``'s attr-dict: the named properties plus discardable attributes.

    Like MLIR's, the dictionary is sorted by name; ``elided`` names are left
    out, and so are properties equal to their entry in ``defaults``.
    """
    defaults = defaults or {}
    entries: dict[str, Attribute] = {
        name: value
        for name in property_names
        if name not in elided
        and (value := op.properties.get(name)) is not None
        and defaults.get(name) != value
    }
    entries |= {k: v for k, v in op.attributes.items() if k not in entries}
    printer.print_op_attributes(dict(sorted(entries.items())))


def print_attr_dict_and_type(printer: Printer, op: Operation, type_: Attribute) -> None:
    """Print `` {...} : type``: ``attr-dict `:` type($x)``, the attr-dict sorted
    by name as MLIR's (``op``'s discardable attributes)."""
    op_syntax.print_attr_dict_and_type(printer, dict(sorted(op.attributes.items())), type_)


def without_defaults(
    properties: Mapping[str, Attribute | None], defaults: Mapping[str, Attribute]
) -> dict[str, Attribute]:
    """``properties`` less the absent ones and those at their default.

    MLIR fills a ``DefaultValuedAttr`` left out with its default, so an op
    spelling the default and one leaving it out are the same op; passviz keeps
    both without the property.
    """
    return {
        name: value for name, value in properties.items() if value is not None and defaults.get(name) != value
    }


def parse_enum(parser: Parser, enum: type[EnumT], what: str) -> EnumT:
    """A member of ``enum`` written as its keyword or as a string (MLIR's enum syntax)."""
    pos = parser.pos
    word = parser.parse_optional_identifier_or_str_literal()
    member = None if word is None else enum.from_mnemonic(word)
    if member is None:
        allowed = ", ".join(m.mnemonic for m in enum)
        got = "nothing" if word is None else f"'{word}'"
        parser.raise_error(
            f"expected one of {allowed} for '{what}', got {got}", pos, max(parser.pos, pos + 1)
        )
    return member


def parse_oilist_enums(
    parser: Parser,
    clauses: Mapping[str, tuple[str, type[TritonI32Enum]]],
    properties: dict[str, Attribute],
) -> None:
    """Parse an ``oilist`` of ``keyword = mnemonic`` clauses, in any order.

    ``clauses`` maps each keyword (``cacheModifier``) to the property it sets
    (``cache``) and the enum spelling its values.
    """
    while (keyword := parser.parse_optional_keyword_in(clauses.keys())) is not None:
        prop, enum = clauses[keyword]
        if prop in properties:
            parser.raise_error(f"'{keyword}' is given twice")
        parser.parse_punctuation("=")
        properties[prop] = parse_enum(parser, enum, keyword).to_attr()


def print_oilist_enums(
    printer: Printer,
    op: Operation,
    clauses: Mapping[str, tuple[str, type[TritonI32Enum]]],
) -> set[str]:
    """Print the ``oilist`` clauses whose properties hold non-default values.

    The first member of each enum is its default, which Triton never prints
    (in the clause nor in the attr-dict). Returns the names of the properties
    handled here, which the attr-dict leaves out.
    """
    handled: set[str] = set()
    for keyword, (prop, enum) in clauses.items():
        value = op.properties.get(prop)
        if not isa(value, IntegerAttr[I32]):
            continue
        member = enum.from_attr(value)
        if member is None:
            continue
        handled.add(prop)
        if member != enum.default():
            printer.print_string(f" {keyword} = {member.mnemonic}")
    return handled


def in_order(properties: Mapping[str, Attribute], order: Sequence[str]) -> dict[str, Attribute]:
    """``properties`` ordered as ``order`` lists them (for a stable generic form)."""
    return {name: properties[name] for name in order if name in properties}


def ptr_like_type_or_error(parser: Parser, pos: int, type_: Attribute) -> None:
    """Raise a parse error at ``pos`` unless ``type_`` is pointer-like."""
    if not is_ptr_like(type_):
        parser.raise_error(f"expected !tt.ptr or a tensor of !tt.ptr, got {type_}", pos)


_TypeT = TypeVar("_TypeT", bound=ParametrizedAttribute)


def parse_type_of(parser: Parser, type_cls: type[_TypeT], what: str) -> _TypeT:
    """A type of class ``type_cls``, written in full (``!tt.ptr<f32>``) or stripped
    of its dialect prefix (``<f32>``), as MLIR prints a type an op format names by class."""
    pos = parser.pos
    type_ = parser.parse_optional_type()
    if type_ is None:
        type_ = type_cls.new(type_cls.parse_parameters(parser))
    if not isinstance(type_, type_cls):
        parser.raise_error(f"expected {what}, got {type_}", pos, parser.pos)
    return type_


def print_stripped_type(printer: Printer, type_: Attribute) -> None:
    """Print a dialect type without its ``!dialect.name`` prefix (``<tensor<8xf32>>``)."""
    if isinstance(type_, ParametrizedAttribute) and not type_.name.startswith("builtin."):
        type_.print_parameters(printer)
        return
    printer.print_attribute(type_)


def parse_tensor_type(parser: Parser, what: str = "a ranked tensor type") -> TensorType[Attribute]:
    """A ranked tensor type, or a parse error at it."""
    pos = parser.pos
    type_ = parser.parse_type()
    if not isa(type_, TensorType[Attribute]):
        parser.raise_error(f"expected {what}, got {type_}", pos, parser.pos)
    return type_


def parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    """Zero or more comma-separated operands, undelimited (a variadic ``$operands``)."""
    operands = parser.parse_optional_undelimited_comma_separated_list(
        parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
    )
    return operands or []


def parse_bracketed_operands(parser: Parser) -> list[UnresolvedOperand]:
    """``[%a, %b]``: a variadic operand group in square brackets."""
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)


def parse_operand_and_groups(
    parser: Parser, count: int
) -> tuple[UnresolvedOperand, list[list[UnresolvedOperand]]]:
    """``$x (`,` `[` $group `]`)`` repeated ``count`` times (``%base, [%a, %b], [%c]``)."""
    first = parser.parse_unresolved_operand()
    groups: list[list[UnresolvedOperand]] = []
    for _ in range(count):
        parser.parse_punctuation(",")
        groups.append(parse_bracketed_operands(parser))
    return first, groups


def resolve_operand_and_groups(
    parser: Parser,
    first: UnresolvedOperand,
    first_type: Attribute,
    groups: Sequence[Sequence[UnresolvedOperand]],
    group_types: Sequence[Attribute],
) -> list[SSAValue | list[SSAValue]]:
    """What ``parse_operand_and_groups`` read, resolved as ``build`` takes it:
    ``first`` of ``first_type``, and each group's operands of its type."""
    resolved: list[SSAValue | list[SSAValue]] = [parser.resolve_operand(first, first_type)]
    for group, type_ in zip(groups, group_types, strict=True):
        resolved.append([parser.resolve_operand(u, type_) for u in group])
    return resolved


def print_operand_and_groups(printer: Printer, first: SSAValue, groups: Iterable[Iterable[SSAValue]]) -> None:
    """Print `` %base, [%a, %b], [%c]``, what ``parse_operand_and_groups`` reads."""
    printer.print_string(" ")
    printer.print_operand(first)
    for group in groups:
        printer.print_string(", ")
        with printer.in_square_brackets():
            print_operands(printer, group)


def parse_type_list(parser: Parser) -> list[Attribute]:
    """One or more comma-separated types, undelimited."""
    return parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)


def resolve(
    parser: Parser, operands: Sequence[UnresolvedOperand], types: Sequence[Attribute], pos: int
) -> list[SSAValue]:
    """Resolve ``operands`` to ``types``; a count mismatch is a parse error at ``pos``."""
    return list(parser.resolve_operands(operands, types, pos))


def parse_functional_type(
    parser: Parser, operand_count: int, pos: int
) -> tuple[tuple[Attribute, ...], tuple[Attribute, ...]]:
    """``functional-type(operands, results)``: ``(a, b) -> r``, with ``operand_count`` inputs."""
    function_type = parser.parse_function_type()
    inputs, outputs = function_type.inputs.data, function_type.outputs.data
    if len(inputs) != operand_count:
        parser.raise_error(f"expected {operand_count} operand types, got {len(inputs)}", pos, parser.pos)
    return inputs, outputs


def parse_operands_with_types(parser: Parser, *, optional: bool = True) -> list[SSAValue]:
    """``$args `:` type($args)``: operands, then ``:`` and their types. Where
    ``optional``, no operands stand for the whole group (``($args^ ...)?``)."""
    pos = parser.pos
    unresolved = parse_operand_list(parser)
    if optional and not unresolved:
        return []
    parser.parse_punctuation(":")
    return resolve(parser, unresolved, parse_type_list(parser), pos)


def print_operands_with_types(printer: Printer, values: Sequence[SSAValue], before: str = " ") -> None:
    """Print ``before`` then ``%a, %b : t1, t2``, what ``parse_operands_with_types`` reads."""
    printer.print_string(before)
    print_operands(printer, values)
    printer.print_string(" : ")
    print_types(printer, (value.type for value in values))


def print_operands(printer: Printer, values: Iterable[SSAValue]) -> None:
    """Print ``%a, %b``."""
    printer.print_list(values, printer.print_operand)


def print_types(printer: Printer, types: Iterable[Attribute]) -> None:
    """Print ``t1, t2``."""
    printer.print_list(types, printer.print_attribute)


class PropertySyntax:
    """``oilist(...) attr-dict``: the properties an op's syntax writes as
    ``keyword = mnemonic`` clauses (``_OILIST``) or in its attr-dict
    (``_ATTR_DICT_PROPERTIES``), left out at their ``_PROPERTY_DEFAULTS``."""

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ()
    """Properties that may be written in the attr-dict, sorted by name."""

    _PROPERTY_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {}
    """Properties left out of the attr-dict at these values (``DefaultValuedAttr``)."""

    _OILIST: ClassVar[Mapping[str, tuple[str, type[TritonI32Enum]]]] = {}
    """The ``oilist`` clauses: keyword to (property, enum)."""

    @classmethod
    def parse_properties(
        cls,
        parser: Parser,
        properties: dict[str, Attribute] | None = None,
        order: Sequence[str] | None = None,
    ) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
        """Parse ``oilist(...) attr-dict`` into the properties to store (in
        ``order``, else ``_ATTR_DICT_PROPERTIES``'s, less defaults) and the
        discardable attributes; ``properties`` holds those parsed before."""
        properties = {} if properties is None else properties
        parse_oilist_enums(parser, cls._OILIST, properties)
        attributes = parse_attr_dict_into_properties(parser, cls._ATTR_DICT_PROPERTIES, properties)
        order = cls._ATTR_DICT_PROPERTIES if order is None else order
        return without_defaults(in_order(properties, order), cls._PROPERTY_DEFAULTS), attributes

    def print_properties(self, printer: Printer, elided: Set[str] = frozenset()) -> None:
        """Print ``oilist(...) attr-dict``; ``elided`` properties were printed before."""
        op = cast(Operation, self)
        in_oilist = print_oilist_enums(printer, op, self._OILIST)
        print_attr_dict_with_properties(
            printer, op, self._ATTR_DICT_PROPERTIES, elided | in_oilist, defaults=self._PROPERTY_DEFAULTS
        )


def _enum_member(op: Operation, prop: str, enum: type[EnumT]) -> EnumT | None:
    """The member of ``enum`` that ``op``'s property ``prop`` holds, if any."""
    value = op.properties.get(prop)
    return enum.from_attr(value) if isa(value, IntegerAttr[I32]) else None


class SrcToResultSyntax(PropertySyntax):
    """``$src attr-dict : type($src) -> type($result)``, the syntax of most of
    Triton's one-operand ops; ``_ATTR_DICT_PROPERTIES`` names the properties
    written in the attr-dict (``axis``, ``order``, ...). Unit properties may be
    written as keywords after ``$src`` (``_UNIT_KEYWORDS``) and enum properties
    as `` `,` keyword `=` mnemonic`` after the attr-dict (``_TRAILING_ENUMS``)."""

    _UNIT_KEYWORDS: ClassVar[tuple[str, ...]] = ()
    """Unit properties written as keywords after ``$src``, in this order."""

    _TRAILING_ENUMS: ClassVar[Mapping[str, tuple[str, type[TritonI32Enum]]]] = {}
    """Clauses after the attr-dict: keyword to (property, enum), in this order."""

    def __init__(
        self,
        src: SSAValue | Operation,
        result_type: Attribute,
        properties: Mapping[str, Attribute | None] | None = None,
    ):
        IRDLOperation.__init__(
            cast(IRDLOperation, self), operands=[src], result_types=[result_type], properties=properties
        )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        unresolved = parser.parse_unresolved_operand()
        properties: dict[str, Attribute] = {}
        for keyword in cls._UNIT_KEYWORDS:
            if parser.parse_optional_keyword(keyword) is not None:
                properties[keyword] = UnitAttr()
        properties, attributes = cls.parse_properties(parser, properties)
        for keyword, (prop, enum) in cls._TRAILING_ENUMS.items():
            if parser.parse_optional_punctuation(",") is None:
                break
            parser.parse_keyword(keyword)
            parser.parse_punctuation("=")
            if prop in properties:
                parser.raise_error(f"'{prop}' is given twice")
            properties[prop] = parse_enum(parser, enum, keyword).to_attr()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        src = parser.resolve_operand(unresolved, src_type)
        op_cls = cast(type[IRDLOperation], cls)
        op = op_cls.build(
            operands=[src],
            result_types=cls._result_types(result_type),
            properties=properties,
            attributes=attributes,
        )
        return cast(Self, op)

    @classmethod
    def _result_types(cls, result_type: Attribute) -> Sequence[Attribute]:
        """The result types of an op whose syntax writes ``result_type``
        (the first result's): one result, of that type."""
        return [result_type]

    def print(self, printer: Printer) -> None:
        op = cast(IRDLOperation, self)
        src, result = op.operands[0], op.results[0]
        printer.print_string(" ")
        printer.print_operand(src)
        for keyword in self._UNIT_KEYWORDS:
            if keyword in op.properties:
                printer.print_string(f" {keyword}")
        trailing = {
            keyword: (prop, member)
            for keyword, (prop, enum) in self._TRAILING_ENUMS.items()
            if (member := _enum_member(op, prop, enum)) is not None
        }
        self.print_properties(printer, {*self._UNIT_KEYWORDS, *(prop for prop, _ in trailing.values())})
        for keyword, (_, member) in trailing.items():
            printer.print_string(f", {keyword} = {member.mnemonic}")
        printer.print_string(" : ")
        printer.print_attribute(src.type)
        printer.print_string(" -> ")
        printer.print_attribute(result.type)


class SameOperandTypeSyntax:
    """``$lhs, $rhs attr-dict : type($lhs) -> type($result)``: ops whose operands
    share one type (``tt.cat``, ``tt.join``); ``SameTypeSyntax`` leaves out the
    result type, the operands'."""

    _OPERAND_COUNT: ClassVar[int | None] = 2
    """How many operands the syntax writes; None: any number."""

    _RESULT_TYPE_WRITTEN: ClassVar[bool] = True
    """Whether ``-> type($result)`` is written (else the result has the operands' type)."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        if cls._OPERAND_COUNT is None:
            unresolved = parse_operand_list(parser)
        else:
            unresolved = parse_operands(parser, cls._OPERAND_COUNT)
        attributes, type_ = parse_attr_dict_and_type(parser)
        result_type = type_
        if cls._RESULT_TYPE_WRITTEN:
            parser.parse_punctuation("->")
            result_type = parser.parse_type()
        operands = [parser.resolve_operand(u, type_) for u in unresolved]
        op = cast(type[IRDLOperation], cls).build(
            operands=operands, result_types=[result_type], attributes=attributes
        )
        return cast(Self, op)

    def print(self, printer: Printer) -> None:
        op = cast(IRDLOperation, self)
        printer.print_string(" ")
        print_operands(printer, op.operands)
        print_attr_dict_with_properties(printer, op, ())
        printer.print_string(" : ")
        printer.print_attribute(op.operands[0].type)
        if self._RESULT_TYPE_WRITTEN:
            printer.print_string(" -> ")
            printer.print_attribute(op.results[0].type)


class SameTypeSyntax(SameOperandTypeSyntax):
    """``$x (, $y)* attr-dict : type($x)``: ops whose operands and result share one type."""

    _OPERAND_COUNT: ClassVar[int | None] = None
    _RESULT_TYPE_WRITTEN: ClassVar[bool] = False

    def __init__(self, *operands: SSAValue | Operation):
        IRDLOperation.__init__(
            cast(IRDLOperation, self), operands=operands, result_types=[SSAValue.get(operands[0]).type]
        )


# Property values of ``DefaultValuedAttr`` defaults.
FALSE = IntegerAttr.from_bool(False)
TRUE = IntegerAttr.from_bool(True)
