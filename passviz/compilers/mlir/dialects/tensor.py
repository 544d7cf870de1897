"""xDSL's ``tensor`` dialect, with reshapes printed as MLIR prints them.

xDSL 0.74 prints a ``collapse_shape``/``expand_shape`` reassociation with
typed integers (``[[0 : i64, 1 : i64], [2 : i64]]``); MLIR prints
``[[0, 1], [2]]``, which IREE's tests check.  The ops here are subclasses of
xDSL's that print the plain form and read both.
"""

from __future__ import annotations

from typing import Self

from xdsl.dialects import tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.dialects.utils.dynamic_index_list import print_dynamic_index_list
from xdsl.dialects.utils.reshape_ops_utils import ContiguousArrayOfIntArray
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure

from passviz.compilers.mlir.dialects import replacing
from passviz.ir.hints import isa


def print_reassociation(printer: Printer, reassociation: ArrayAttr[ArrayAttr[IntegerAttr]]) -> None:
    """``[[0, 1], [2]]``: each group of dimensions, as plain integers."""
    groups = ("[" + ", ".join(str(d.value.data) for d in group.data) + "]" for group in reassociation.data)
    printer.print_string("[" + ", ".join(groups) + "]")


def _print_source_and_groups(printer: Printer, src: SSAValue, reassociation: Attribute) -> None:
    """`` %t [[0, 1], [2]]``, the head both reshapes print."""
    assert isa(reassociation, ArrayAttr[ArrayAttr[IntegerAttr]])
    printer.print_string(" ")
    printer.print_operand(src)
    printer.print_string(" ")
    print_reassociation(printer, reassociation)


@irdl_op_definition
class CollapseShapeOp(tensor.CollapseShapeOp):
    """``tensor.collapse_shape %t [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>``."""

    name = "tensor.collapse_shape"

    src = operand_def(TensorType[Attribute])
    result = result_def(TensorType[Attribute])
    reassociation = prop_def(ContiguousArrayOfIntArray())

    traits = traits_def(Pure())
    assembly_format = None

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        source = parser.parse_unresolved_operand()
        reassociation = parser.parse_attribute()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_keyword("into")
        result_type = parser.parse_type()
        op = cls.build(
            operands=[parser.resolve_operand(source, source_type)],
            result_types=[result_type],
            properties={"reassociation": reassociation},
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        _print_source_and_groups(printer, self.src, self.reassociation)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" into ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class ExpandShapeOp(tensor.ExpandShapeOp):
    """``tensor.expand_shape %t [[0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into ...``.

    xDSL's own parser reads it; only the print differs.
    """

    name = "tensor.expand_shape"

    src = operand_def(TensorType)
    dynamic_output_shape = var_operand_def(IndexType)
    reassociation = prop_def(ContiguousArrayOfIntArray())
    static_output_shape = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType[Attribute])

    traits = traits_def(Pure())

    def print(self, printer: Printer) -> None:
        _print_source_and_groups(printer, self.src, self.reassociation)
        printer.print_string(" output_shape ")
        print_dynamic_index_list(
            printer, DYNAMIC_INDEX, self.dynamic_output_shape, self.static_output_shape.get_values()
        )
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" into ")
        printer.print_attribute(self.result.type)


class YieldOp(tensor.YieldOp):
    """``tensor.yield %v : t``, read as MLIR reads it: one value (xDSL's takes a list)."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        value = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        op = cls(parser.resolve_operand(value, parser.parse_type()))
        op.attributes |= attrs
        return op


_REPLACED: dict[type[Operation], type[Operation]] = {
    tensor.CollapseShapeOp: CollapseShapeOp,
    tensor.ExpandShapeOp: ExpandShapeOp,
    tensor.YieldOp: YieldOp,
}

Tensor = replacing(tensor.Tensor, _REPLACED)
"""The tensor dialect as passviz registers it."""
