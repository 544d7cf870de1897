"""IREE's ``hal`` dialect, as far as Flow-level IR uses it (IREE 3.13's syntax).

The types ``!hal.buffer_view`` and ``!hal.device``, the affinity attribute
``#hal.device.affinity<@device>``, the ABI ops ``hal.tensor.import`` and
``hal.tensor.export`` that wrap a public function's tensors, and
``hal.buffer_view.dim`` that reads a dynamic dimension of one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self, cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure

from passviz.ir.op_syntax import parse_index_operands, print_attr_dict_and_type, print_operand_group


@irdl_attr_definition
class BufferViewType(ParametrizedAttribute, TypeAttribute):
    """``!hal.buffer_view``: a buffer with its shape and element type, the ABI's tensor."""

    name = "hal.buffer_view"


@irdl_attr_definition
class DeviceType(ParametrizedAttribute, TypeAttribute):
    """``!hal.device``: a device that util.globals name for affinities."""

    name = "hal.device"


@irdl_attr_definition
class DeviceAffinityAttr(ParametrizedAttribute):
    """``#hal.device.affinity<@device>`` (``<@device, [0, 1]>`` with a queue list)."""

    name = "hal.device.affinity"

    device: SymbolRefAttr
    """The ``util.global`` holding the device."""
    queues: ArrayAttr[IntegerAttr]
    """The queue ordinals; empty for any queue."""

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            device = parser.parse_attribute()
            if not isinstance(device, SymbolRefAttr):
                parser.raise_error("expected a device symbol such as @device")
            queues: list[IntegerAttr] = []
            if parser.parse_optional_punctuation(","):
                queues = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, lambda: IntegerAttr(parser.parse_integer(), 64)
                )
        return (device, ArrayAttr(queues))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.device)
            if self.queues.data:
                printer.print_string(", [")
                printer.print_list(self.queues.data, lambda q: printer.print_string(str(q.value.data)))
                printer.print_string("]")


def print_dims(printer: Printer, dims: Sequence[SSAValue]) -> None:
    """``{%d0, %d1}`` for a dynamic tensor's dimensions; nothing for none."""
    print_operand_group(printer, dims, "{", "}")


def parse_dims(parser: Parser) -> Sequence[SSAValue]:
    """``{%d0, %d1}`` resolved as ``index`` values, or ``[]`` where there is no brace."""
    return parse_index_operands(parser, "{", "}")


def parse_shaped_type(parser: Parser) -> tuple[Attribute, Sequence[SSAValue]]:
    """``tensor<?xf32>{%d}``: a type and the values of its dynamic dimensions."""
    return parser.parse_type(), parse_dims(parser)


def print_shaped_type(printer: Printer, type_: Attribute, dims: Sequence[SSAValue]) -> None:
    """Print what ``parse_shaped_type`` reads."""
    printer.print_attribute(type_)
    print_dims(printer, dims)


@irdl_op_definition
class TensorImportOp(IRDLOperation):
    """``hal.tensor.import %view ("name")? : !hal.buffer_view -> tensor<?xf32>{%d}``."""

    name = "hal.tensor.import"

    source = operand_def()
    """The buffer view (or buffer) being imported."""
    target_encoding_dims = var_operand_def(IndexType)
    """The dynamic dimensions of the imported tensor."""
    wait_fence = var_operand_def()
    """A fence to wait on before the import (unused at Flow level)."""
    affinity_operands = var_operand_def()
    """Reserved: IREE's fourth operand group."""
    target = result_def(TensorType)
    """The imported tensor."""
    target_encoding = prop_def(TensorType)
    """The tensor type the buffer holds."""
    name_ = opt_prop_def(StringAttr, prop_name="name")
    """A name for the tensor in runtime errors."""
    affinity = opt_prop_def(Attribute)
    """Where the tensor lives (``on(#hal.device.affinity<...>)``)."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self, source: SSAValue, result: TensorType[Attribute], dims: Sequence[SSAValue] = ()
    ) -> None:
        super().__init__(
            operands=[source, dims, [], []], result_types=[result], properties={"target_encoding": result}
        )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        affinity, source, label, source_type = _parse_source(parser)
        parser.parse_punctuation("->")
        result = parser.parse_type()
        if not isinstance(result, TensorType):
            parser.raise_error("hal.tensor.import yields a tensor")
        dims = parse_dims(parser)
        attrs = parser.parse_optional_attr_dict()
        op = cls(parser.resolve_operand(source, source_type), cast(TensorType[Attribute], result), dims)
        _set_label_and_affinity(op, label, affinity)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        _print_source(printer, self.affinity, self.source, self.name_)
        printer.print_string(" -> ")
        printer.print_attribute(self.target.type)
        print_dims(printer, self.target_encoding_dims)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class TensorExportOp(IRDLOperation):
    """``hal.tensor.export %t ("name")? : tensor<?xf32>{%d} -> !hal.buffer_view``."""

    name = "hal.tensor.export"

    source = operand_def(TensorType)
    """The tensor being exported."""
    source_dims = var_operand_def(IndexType)
    """Its dynamic dimensions."""
    target = result_def()
    """The buffer view."""
    source_encoding = prop_def(TensorType)
    """The tensor type the buffer holds."""
    name_ = opt_prop_def(StringAttr, prop_name="name")
    """A name for the tensor in runtime errors."""
    affinity = opt_prop_def(Attribute)
    """Where the tensor lives."""

    traits = traits_def(Pure())

    def __init__(self, source: SSAValue, result: Attribute, dims: Sequence[SSAValue] = ()) -> None:
        super().__init__(
            operands=[source, dims], result_types=[result], properties={"source_encoding": source.type}
        )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        affinity, source, label, source_type = _parse_source(parser)
        dims = parse_dims(parser)
        parser.parse_punctuation("->")
        result = parser.parse_type()
        attrs = parser.parse_optional_attr_dict()
        op = cls(parser.resolve_operand(source, source_type), result, dims)
        _set_label_and_affinity(op, label, affinity)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        _print_source(printer, self.affinity, self.source, self.name_)
        print_dims(printer, self.source_dims)
        printer.print_string(" -> ")
        printer.print_attribute(self.target.type)
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class BufferViewDimOp(IRDLOperation):
    """``%d = hal.buffer_view.dim<%view : !hal.buffer_view>[0] : index``: a dynamic dimension."""

    name = "hal.buffer_view.dim"

    buffer_view = operand_def(BufferViewType)
    """The buffer view."""
    index = prop_def(IntegerAttr[IndexType])
    """Which dimension."""
    result = result_def(IndexType)
    """Its size."""

    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        with parser.in_angle_brackets():
            view = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            view_type = parser.parse_type()
        with parser.in_square_brackets():
            index = parser.parse_integer()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_pos = parser.pos
        if not isinstance(result_type := parser.parse_type(), IndexType):
            parser.raise_error(
                f"invalid kind of type specified: expected builtin.index, but found '{result_type}'",
                type_pos,
                parser.pos,
            )
        return cls(
            operands=[parser.resolve_operand(view, view_type)],
            result_types=[IndexType()],
            properties={"index": IntegerAttr(index, IndexType())},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_operand(self.buffer_view)
            printer.print_string(" : ")
            printer.print_attribute(self.buffer_view.type)
        printer.print_string(f"[{self.index.value.data}]")
        print_attr_dict_and_type(printer, self.attributes, self.result.type)


def _parse_affinity(parser: Parser) -> Attribute | None:
    """``on(#hal.device.affinity<@dev>)`` before the operands, or None."""
    if parser.parse_optional_keyword("on") is None:
        return None
    with parser.in_parens():
        return parser.parse_attribute()


def _parse_source(parser: Parser) -> tuple[Attribute | None, UnresolvedOperand, str | None, Attribute]:
    """``on(...)? %source ("name")? : type``, the head hal.tensor.import and export share."""
    affinity = _parse_affinity(parser)
    source = parser.parse_unresolved_operand()
    label = parser.parse_optional_str_literal()
    parser.parse_punctuation(":")
    return affinity, source, label, parser.parse_type()


def _set_label_and_affinity(op: IRDLOperation, label: str | None, affinity: Attribute | None) -> None:
    """Store what ``_parse_source`` read besides the operand."""
    if label is not None:
        op.properties["name"] = StringAttr(label)
    if affinity is not None:
        op.properties["affinity"] = affinity


def _print_source(
    printer: Printer, affinity: Attribute | None, source: SSAValue, label: StringAttr | None
) -> None:
    """Print what ``_parse_source`` reads."""
    _print_affinity(printer, affinity)
    printer.print_string(" ")
    printer.print_operand(source)
    if label is not None:
        printer.print_string(" ")
        printer.print_attribute(label)
    printer.print_string(" : ")
    printer.print_attribute(source.type)


def _print_affinity(printer: Printer, affinity: Attribute | None) -> None:
    if affinity is None:
        return
    printer.print_string(" on(")
    printer.print_attribute(affinity)
    printer.print_string(")")


HAL = Dialect(
    "hal",
    [TensorImportOp, TensorExportOp, BufferViewDimOp],
    [BufferViewType, DeviceType, DeviceAffinityAttr],
)
"""IREE's hal dialect, the part Flow-level IR uses."""
