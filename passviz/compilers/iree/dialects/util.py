"""IREE's ``util`` dialect as IREE 3.13 prints it: functions, returns, globals.

``util.func`` is IREE's function (``func.func`` with tied results); the Flow
passes run on it.  ``util.global`` with ``util.global.load``/``store`` holds
module state such as devices; ``util.optimization_barrier`` keeps values from
being folded away in tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from xdsl.dialects.builtin import (
    ArrayAttr,
    FunctionType,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Dialect, Region, SSAValue, TypedAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    CallableOpInterface,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from passviz.ir.function_like import FUNCTION_LIKE_FIELDS, FunctionLikeOp, verify_returned_values
from passviz.ir.op_syntax import parse_function, print_function


class _FuncCallable(CallableOpInterface):
    @classmethod
    def get_callable_region(cls, op: IRDLOperation) -> Region:  # pyright: ignore[reportIncompatibleMethodOverride]
        assert isinstance(op, FuncOp)
        return op.body

    @classmethod
    def get_argument_types(cls, op: IRDLOperation) -> tuple[Attribute, ...]:  # pyright: ignore[reportIncompatibleMethodOverride]
        assert isinstance(op, FuncOp)
        return op.function_type.inputs.data

    @classmethod
    def get_result_types(cls, op: IRDLOperation) -> tuple[Attribute, ...]:  # pyright: ignore[reportIncompatibleMethodOverride]
        assert isinstance(op, FuncOp)
        return op.function_type.outputs.data


def print_visibility(printer: Printer, visibility: StringAttr | None) -> None:
    """`` public`` / `` private`` / `` nested``: IREE prints a symbol's visibility always."""
    printer.print_string(f" {visibility.data if visibility is not None else 'public'}")


_RESERVED = (*FUNCTION_LIKE_FIELDS, "tied_operands")


@irdl_op_definition
class FuncOp(FunctionLikeOp):
    """``util.func public @f(%a: tensor<4xf32>) -> tensor<4xf32> { ... }``.

    IREE prints the visibility always (``public`` where none is set, as absent
    means); a function without body is a declaration.  Tied results (``-> %arg0``) are
    not read: Flow's inputs do not use them.
    """

    name = "util.func"

    tied_operands = opt_prop_def(ArrayAttr[IntegerAttr])
    """For each result the argument it is tied to, or -1 (IREE sets all -1 by default)."""

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), _FuncCallable())

    def __init__(
        self,
        name: str,
        function_type: FunctionType,
        region: Region | None = None,
        visibility: str | None = None,
    ) -> None:
        if region is None:
            region = Region(Block(arg_types=function_type.inputs))
        properties: dict[str, Attribute | None] = {
            "sym_name": StringAttr(name),
            "function_type": function_type,
            "sym_visibility": StringAttr(visibility) if visibility is not None else None,
        }
        super().__init__(properties=properties, regions=[region])

    @property
    def args(self) -> tuple[SSAValue, ...]:
        """The entry block's arguments."""
        block = self.body.blocks.first
        return () if block is None else tuple(block.args)

    def verify_(self) -> None:
        block = self.body.blocks.first
        if block is None:
            return
        if self.function_type.inputs.data != tuple(block.arg_types):
            raise VerifyException("entry block arguments must have the function's input types")

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        parsed = parse_function(parser, _RESERVED)
        op = cls(parsed.name, parsed.function_type, parsed.body, None)
        for name, value in (
            ("sym_visibility", parsed.visibility),
            ("arg_attrs", parsed.arg_attrs),
            ("res_attrs", parsed.res_attrs),
        ):
            if value is not None:
                op.properties[name] = value
        op.attributes |= parsed.attributes
        return op

    def print(self, printer: Printer) -> None:
        print_function(printer, self, _RESERVED, default_visibility="public")


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``util.return %a, %b : t0, t1``: a ``util.func``'s terminator."""

    name = "util.return"

    operands_ = var_operand_def()
    """The returned values."""

    traits = traits_def(IsTerminator(), HasParent(FuncOp))
    assembly_format = "attr-dict ($operands_^ `:` type($operands_))?"

    def __init__(self, *values: SSAValue) -> None:
        super().__init__(operands=[values])

    def verify_(self) -> None:
        # IREE's ReturnOp::verify: the enclosing function's results, in number and type.
        function = self.parent_op()
        if not isinstance(function, FuncOp):
            return  # HasParent says so
        verify_returned_values(
            function,
            self.operands_,
            "'util.return' op has {count} operands, but enclosing function-like op returns {expected}",
            "'util.return' op ",
        )


def _parse_global_value(parser: Parser) -> tuple[Attribute | None, Attribute | None]:
    """IREE's ``custom<TypeOrAttr>``: ``: type``, ``= typed-attr`` or ``: type = attr``."""
    if parser.parse_optional_punctuation(":") is not None:
        type_ = parser.parse_type()
        value = parser.parse_attribute() if parser.parse_optional_punctuation("=") is not None else None
        return type_, value
    if parser.parse_optional_punctuation("=") is not None:
        value = parser.parse_attribute()
        if not isinstance(value, TypedAttribute):
            parser.raise_error("expected a typed initial value or ': type'")
        return value.get_type(), value
    parser.raise_error("expected ': type' or '= value' after the global's name")


@irdl_op_definition
class GlobalOp(IRDLOperation):
    """``util.global private mutable @g = 1 : i32`` / ``util.global private @device : !hal.device``."""

    name = "util.global"

    sym_name = prop_def(SymbolNameConstraint())
    """The global's name."""
    sym_visibility = opt_prop_def(StringAttr)
    """Its visibility (public where absent)."""
    type = prop_def(Attribute)
    """The type of its value."""
    is_mutable = opt_prop_def(UnitAttr)
    """Present when ``util.global.store`` may change it."""
    initial_value = opt_prop_def(Attribute)
    """Its value at start, if any."""

    traits = traits_def(SymbolOpInterface())

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        visibility = parser.parse_optional_visibility_keyword()
        mutable = parser.parse_optional_keyword("mutable") is not None
        name = parser.parse_symbol_name()
        attrs = parser.parse_optional_attr_dict()
        type_, value = _parse_global_value(parser)
        props: dict[str, Attribute | None] = {
            "sym_name": name,
            "sym_visibility": visibility,
            "type": type_,
            "is_mutable": UnitAttr() if mutable else None,
            "initial_value": value,
        }
        op = cls(properties=props)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        print_visibility(printer, self.sym_visibility)
        if self.is_mutable is not None:
            printer.print_string(" mutable")
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_op_attributes(self.attributes)
        value = self.initial_value
        if value is not None and isinstance(value, TypedAttribute) and value.get_type() == self.type:
            printer.print_string(" = ")
            printer.print_attribute(value)
            return
        printer.print_string(" : ")
        printer.print_attribute(self.type)
        if value is not None:
            printer.print_string(" = ")
            printer.print_attribute(value)


@irdl_op_definition
class GlobalLoadOp(IRDLOperation):
    """``util.global.load (immutable)? @g : i32``."""

    name = "util.global.load"

    global_ = prop_def(SymbolRefAttr, prop_name="global")
    """The global read."""
    is_immutable = opt_prop_def(UnitAttr)
    """Present when the global is known never to change."""
    result = result_def()
    """Its value."""

    assembly_format = "(`immutable` $is_immutable^)? $global attr-dict `:` type($result)"


@irdl_op_definition
class GlobalStoreOp(IRDLOperation):
    """``util.global.store %v, @g : i32``."""

    name = "util.global.store"

    value = operand_def()
    """The value stored."""
    global_ = prop_def(SymbolRefAttr, prop_name="global")
    """The global written."""

    assembly_format = "$value `,` $global attr-dict `:` type($value)"


@irdl_op_definition
class OptimizationBarrierOp(IRDLOperation):
    """``util.optimization_barrier %a : tensor<4xf32>``: its results are its operands, opaquely."""

    name = "util.optimization_barrier"

    operands_ = var_operand_def()
    """The values passed through."""
    results_ = var_result_def()
    """The same values, which no pass may see through."""

    def __init__(self, values: Sequence[SSAValue]) -> None:
        super().__init__(operands=[values], result_types=[[v.type for v in values]])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        operands = (
            parser.parse_optional_undelimited_comma_separated_list(
                parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
            )
            or []
        )
        attrs = parser.parse_optional_attr_dict()
        types: list[Attribute] = []
        if operands:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        op = cls(parser.resolve_operands(operands, types, parser.pos))
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        if self.operands_:
            printer.print_string(" ")
            printer.print_list(self.operands_, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        if self.operands_:
            printer.print_string(" : ")
            printer.print_list((v.type for v in self.operands_), printer.print_attribute)


Util = Dialect(
    "util",
    [FuncOp, ReturnOp, GlobalOp, GlobalLoadOp, GlobalStoreOp, OptimizationBarrierOp],
    [],
)
"""IREE's util dialect, the part Flow-level IR uses."""
