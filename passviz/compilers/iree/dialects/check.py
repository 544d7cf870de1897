"""IREE's ``check`` dialect: the runtime expectations of IREE's end-to-end tests
(``check.expect_eq``, ``check.expect_almost_eq``), read and printed as IREE 3.13 does."""

from __future__ import annotations

from typing import Self

from xdsl.dialects.builtin import Float32Type, FloatAttr, f32
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, opt_prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer

from passviz.ir.op_syntax import parse_attr_dict_and_type, parse_operands, print_attr_dict_and_type


@irdl_op_definition
class ExpectEqOp(IRDLOperation):
    """``check.expect_eq(%a, %b) : tensor<4xf32>``: the two values are equal at run time."""

    name = "check.expect_eq"

    lhs = operand_def()
    """The value computed."""
    rhs = operand_def()
    """The value expected."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        with parser.in_parens():
            lhs, rhs = parse_operands(parser, 2)
        attrs, type_ = parse_attr_dict_and_type(parser)
        op = cls(operands=parser.resolve_operands([lhs, rhs], [type_, type_], parser.pos))
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list((self.lhs, self.rhs), printer.print_operand)
        printer.print_string(")")
        print_attr_dict_and_type(printer, self.attributes, self.lhs.type)


@irdl_op_definition
class ExpectAlmostEqOp(IRDLOperation):
    """``check.expect_almost_eq(%a, %b, atol 1.0e-04, rtol 0.0) : tensor<4xf32>``: equal within tolerances."""

    name = "check.expect_almost_eq"

    lhs = operand_def()
    """The value computed."""
    rhs = operand_def()
    """The value expected."""
    atol = opt_prop_def(FloatAttr[Float32Type])
    """Absolute tolerance (IREE's default 1e-4 where absent)."""
    rtol = opt_prop_def(FloatAttr[Float32Type])
    """Relative tolerance (IREE's default 0 where absent)."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        tolerances: dict[str, FloatAttr[Float32Type]] = {}
        with parser.in_parens():
            lhs, rhs = parse_operands(parser, 2)
            while parser.parse_optional_punctuation(",") is not None:
                key = parser.parse_identifier()
                if key not in ("atol", "rtol") or key in tolerances:
                    parser.raise_error(f"expected atol or rtol, not {key}")
                tolerances[key] = FloatAttr(parser.parse_float(), f32)
        attrs, type_ = parse_attr_dict_and_type(parser)
        lhs_value, rhs_value = parser.resolve_operands([lhs, rhs], [type_, type_], parser.pos)
        op = cls(operands=[lhs_value, rhs_value], properties=dict(tolerances))
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list((self.lhs, self.rhs), printer.print_operand)
        for key, value in (("atol", self.atol), ("rtol", self.rtol)):
            if value is not None:
                printer.print_string(f", {key} {value.value.data!r}")
        printer.print_string(")")
        print_attr_dict_and_type(printer, self.attributes, self.lhs.type)


Check = Dialect("check", [ExpectEqOp, ExpectAlmostEqOp], [])
"""IREE's check dialect, the ops IREE's tests use."""
