"""Custom op syntax that several dialects share.

``parse_function`` and ``print_function`` are the syntax of a function op
spelled like ``func.func``: ``[visibility] @name(%a: t) -> r [attributes {...}]
{body}`` (``tt.func``, ``util.func``, ``toy.func``), built on xDSL's
``parse_func_op_like``/``print_func_op_like`` with the visibility keyword
that every one of them writes before the name.

``parse_attr_dict_and_type`` and ``print_attr_dict_and_type`` are the tail
`` {attrs} : type`` of many ops' syntax (``attr-dict `:` type(...)``);
``parse_index_operands`` and ``print_operand_group`` a bracketed list of
operands that may be left out, such as IREE's dynamic dimensions ``{%d0, %d1}``;
``parse_operands`` a fixed number of comma-separated operands;
``print_operands_and_attr_dict`` an op's operands and attributes (``$operands attr-dict``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, IndexType, StringAttr
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import PunctuationSpelling

from passviz.ir.hints import isa


@dataclass(frozen=True)
class ParsedFunction:
    """What ``parse_function`` read."""

    visibility: StringAttr | None
    """The visibility keyword, if written."""

    name: str
    """The symbol name, without ``@``."""

    function_type: FunctionType
    """The signature."""

    body: Region
    """The body; empty for a declaration."""

    attributes: dict[str, Attribute]
    """The ``attributes {...}`` entries not reserved for the op."""

    arg_attrs: ArrayAttr[DictionaryAttr] | None
    """Per-argument attribute dictionaries, if any argument has one."""

    res_attrs: ArrayAttr[DictionaryAttr] | None
    """Per-result attribute dictionaries, if any result has one."""


def parse_function(parser: Parser, reserved_attr_names: Sequence[str]) -> ParsedFunction:
    """Parse ``[visibility] @name(args) -> results [attributes {...}] [{body}]``;
    ``reserved_attr_names`` may not be written in ``attributes {...}``."""
    visibility = parser.parse_optional_visibility_keyword()
    name, inputs, outputs, body, extra, arg_attrs, res_attrs = parse_func_op_like(
        parser, reserved_attr_names=reserved_attr_names
    )
    return ParsedFunction(
        visibility,
        name,
        FunctionType.from_lists(inputs, outputs),
        body,
        dict(extra.data) if extra is not None else {},
        arg_attrs,
        res_attrs,
    )


_AttrT = TypeVar("_AttrT", bound=Attribute)


def _field(op: Operation, name: str, kind: type[_AttrT]) -> _AttrT | None:
    """``op``'s property or attribute ``name``, if it is a ``kind``."""
    value = op.get_attr_or_prop(name)
    return value if isinstance(value, kind) else None


def print_function(
    printer: Printer,
    op: Operation,
    reserved_attr_names: Sequence[str],
    *,
    default_visibility: str | None = None,
    print_empty_outputs: bool = False,
) -> None:
    """Print ``op`` as ``parse_function`` reads it, from its ``sym_visibility``,
    ``sym_name``, ``function_type``, ``arg_attrs`` and ``res_attrs`` (properties
    or attributes, ``arg_attrs`` and ``res_attrs`` read only where reserved) and
    its first region. The visibility is printed where set,
    else ``default_visibility`` where given (IREE prints ``public``)."""
    visibility = _field(op, "sym_visibility", StringAttr)
    shown = visibility.data if visibility is not None else default_visibility
    if shown is not None:
        printer.print_string(f" {shown}")
    sym_name = _field(op, "sym_name", StringAttr)
    function_type = _field(op, "function_type", FunctionType)
    assert sym_name is not None and function_type is not None
    # A function op whose own fields (reserved names) leave out ``arg_attrs`` and
    # ``res_attrs`` prints entries of those names in ``attributes {...}``.
    arg_attrs = op.get_attr_or_prop("arg_attrs") if "arg_attrs" in reserved_attr_names else None
    res_attrs = op.get_attr_or_prop("res_attrs") if "res_attrs" in reserved_attr_names else None
    print_func_op_like(
        printer,
        sym_name,
        function_type,
        op.regions[0],
        op.attributes,
        arg_attrs=arg_attrs if isa(arg_attrs, ArrayAttr[DictionaryAttr]) else None,
        res_attrs=res_attrs if isa(res_attrs, ArrayAttr[DictionaryAttr]) else None,
        reserved_attr_names=reserved_attr_names,
        print_empty_outputs=print_empty_outputs,
    )


def parse_attr_dict_and_type(parser: Parser) -> tuple[dict[str, Attribute], Attribute]:
    """`` {attrs} : type`` (``attr-dict `:` type(...)``): the attributes, if written, and the type."""
    attributes = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    return attributes, parser.parse_type()


def print_attr_dict_and_type(printer: Printer, attributes: dict[str, Attribute], type_: Attribute) -> None:
    """Print what ``parse_attr_dict_and_type`` reads."""
    printer.print_op_attributes(attributes)
    printer.print_string(" : ")
    printer.print_attribute(type_)


def parse_index_operands(
    parser: Parser, opening: PunctuationSpelling, closing: PunctuationSpelling
) -> Sequence[SSAValue]:
    """``{%a, %b}`` (between ``opening`` and ``closing``) resolved as ``index`` values, or ``[]``
    where ``opening`` is not next."""
    if parser.parse_optional_punctuation(opening) is None:
        return []
    values = parser.parse_comma_separated_list(
        parser.Delimiter.NONE, lambda: parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
    )
    parser.parse_punctuation(closing)
    return values


def print_operand_group(printer: Printer, values: Sequence[SSAValue], opening: str, closing: str) -> None:
    """Print ``values`` as ``parse_index_operands`` reads them: nothing for none."""
    if not values:
        return
    printer.print_string(opening)
    printer.print_list(values, printer.print_operand)
    printer.print_string(closing)


def parse_operands(parser: Parser, count: int) -> list[UnresolvedOperand]:
    """``%a, %b, ...``: exactly ``count`` operands (MLIR's ``parseOperandList`` with a required count)."""
    operands = [parser.parse_unresolved_operand()]
    for _ in range(count - 1):
        parser.parse_punctuation(",")
        operands.append(parser.parse_unresolved_operand())
    return operands


def print_operands_and_attr_dict(printer: Printer, op: Operation) -> None:
    """`` %a, %b {attrs}``: ``op``'s operands and attributes (``$operands attr-dict``)."""
    printer.print_string(" ")
    printer.print_list(op.operands, printer.print_operand)
    printer.print_op_attributes(op.attributes)


def parse_result_types(parser: Parser) -> Sequence[Attribute]:
    """``-> t`` or ``-> (t0, t1)``; nothing for none."""
    if not parser.parse_optional_punctuation("->"):
        return []
    if parser.parse_optional_punctuation("(") is None:
        return [parser.parse_type()]
    types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return types
