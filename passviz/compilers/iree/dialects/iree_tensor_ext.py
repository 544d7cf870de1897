"""IREE's ``iree_tensor_ext`` dialect (IREE 3.13): the tensors a dispatch reads and writes.

In IREE 3.13 the dispatch-tensor type and its load/store, once Flow's, live
here: ``!iree_tensor_ext.dispatch.tensor<readonly:tensor<8x4xf32>>`` is a
``flow.dispatch.workgroups`` argument, read by ``dispatch.tensor.load`` and
written by ``dispatch.tensor.store`` with offsets, sizes and strides.
``dispatch.workgroup_count_from_slice`` is the count region's default (3.13
has no ``workgroup_count_from_dag_root``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IndexType,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.dialects.utils.dynamic_index_list import (
    parse_dynamic_index_list_without_types,
    print_dynamic_index_list,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer

from passviz.compilers.iree.dialects.hal import parse_dims, parse_shaped_type, print_dims, print_shaped_type
from passviz.ir.op_syntax import parse_attr_dict_and_type, parse_operands, print_attr_dict_and_type

ACCESS = ("readonly", "writeonly", "readwrite")
"""How a dispatch may use a dispatch tensor."""


@irdl_attr_definition
class DispatchTensorType(ParametrizedAttribute, TypeAttribute):
    """``!iree_tensor_ext.dispatch.tensor<readonly:tensor<8x4xf32>>``."""

    name = "iree_tensor_ext.dispatch.tensor"

    access: StringAttr
    """``readonly``, ``writeonly`` or ``readwrite``."""
    bound_type: Attribute
    """The tensor type (or scalar type) it holds."""

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            access = parser.parse_identifier()
            if access not in ACCESS:
                parser.raise_error(f"expected one of {', '.join(ACCESS)}, not {access}")
            parser.parse_punctuation(":")
            bound = parser.parse_type()
        return (StringAttr(access), bound)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.access.data}:")
        printer.print_attribute(self.bound_type)
        printer.print_string(">")

    @property
    def shape(self) -> tuple[int, ...]:
        """The held tensor's shape (``()`` for a scalar)."""
        bound = self.bound_type
        return tuple(bound.get_shape()) if isinstance(bound, TensorType) else ()


def _parse_slice(
    parser: Parser, count: int
) -> tuple[list[UnresolvedOperand], list[Sequence[SSAValue]], list[Sequence[int]]]:
    """``%a, %b, offsets = [..], sizes = [..], strides = [..]``: ``count`` operands, then the
    slice, its dynamic values resolved as ``index``."""
    operands = parse_operands(parser, count)
    parser.parse_punctuation(",")
    dynamic: list[Sequence[SSAValue]] = []
    static: list[Sequence[int]] = []
    for index, key in enumerate(("offsets", "sizes", "strides")):
        if index:
            parser.parse_punctuation(",")
        parser.parse_keyword(key)
        parser.parse_punctuation("=")
        values, integers = parse_dynamic_index_list_without_types(parser, DYNAMIC_INDEX)
        dynamic.append([parser.resolve_operand(v, IndexType()) for v in values])
        static.append(integers)
    return operands, dynamic, static


def _slice_properties(static: Sequence[Sequence[int]]) -> dict[str, Attribute]:
    """The static offsets, sizes and strides as properties."""
    keys = ("static_offsets", "static_sizes", "static_strides")
    return {key: DenseArrayBase.from_list(i64, values) for key, values in zip(keys, static, strict=True)}


class _SliceOp(IRDLOperation):
    """What the dispatch tensor load and store share: ``offsets = [..], sizes = [..], strides = [..]``
    after their own operands."""

    offsets = var_operand_def(IndexType)
    """Dynamic offsets."""
    sizes = var_operand_def(IndexType)
    """Dynamic sizes."""
    strides = var_operand_def(IndexType)
    """Dynamic strides."""
    static_offsets = prop_def(DenseArrayBase.constr(i64))
    """Offsets, ``DYNAMIC_INDEX`` where dynamic."""
    static_sizes = prop_def(DenseArrayBase.constr(i64))
    """Sizes, ``DYNAMIC_INDEX`` where dynamic."""
    static_strides = prop_def(DenseArrayBase.constr(i64))
    """Strides, ``DYNAMIC_INDEX`` where dynamic."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def print_slice(self, printer: Printer, operands: Sequence[SSAValue]) -> None:
        """Print the ``operands`` and the slice as ``_parse_slice`` reads them."""
        printer.print_string(" ")
        printer.print_list(operands, printer.print_operand)
        printer.print_string(", ")
        parts = (
            ("offsets", self.offsets, self.static_offsets),
            ("sizes", self.sizes, self.static_sizes),
            ("strides", self.strides, self.static_strides),
        )
        for index, (key, values, integers) in enumerate(parts):
            printer.print_string(", " if index else "")
            printer.print_string(f"{key} = ")
            print_dynamic_index_list(printer, DYNAMIC_INDEX, values, integers.get_values())


@irdl_op_definition
class DispatchTensorLoadOp(_SliceOp):
    """``%t = iree_tensor_ext.dispatch.tensor.load %src, offsets = [0], sizes = [%n], strides = [1]
    : !iree_tensor_ext.dispatch.tensor<readonly:tensor<?xf32>>{%n} -> tensor<?xf32>``."""

    name = "iree_tensor_ext.dispatch.tensor.load"

    source = operand_def(DispatchTensorType)
    """The dispatch tensor read."""
    source_dims = var_operand_def(IndexType)
    """Its dynamic dimensions."""
    result = result_def()
    """The tensor read."""

    def __init__(
        self,
        source: SSAValue,
        source_dims: Sequence[SSAValue],
        dynamic: Sequence[Sequence[SSAValue]],
        static: Sequence[Sequence[int]],
        result: Attribute,
    ) -> None:
        super().__init__(
            operands=[source, source_dims, *dynamic],
            result_types=[result],
            properties=_slice_properties(static),
        )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        (source,), dynamic, static = _parse_slice(parser, 1)
        attrs, source_type = parse_attr_dict_and_type(parser)
        dims = parse_dims(parser)
        parser.parse_punctuation("->")
        result = parser.parse_type()
        op = cls(parser.resolve_operand(source, source_type), dims, dynamic, static, result)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        self.print_slice(printer, (self.source,))
        print_attr_dict_and_type(printer, self.attributes, self.source.type)
        print_dims(printer, self.source_dims)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class DispatchTensorStoreOp(_SliceOp):
    """``iree_tensor_ext.dispatch.tensor.store %v, %dst, offsets = [..], sizes = [..], strides = [..]
    : tensor<4xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4xf32>>``."""

    name = "iree_tensor_ext.dispatch.tensor.store"

    value = operand_def()
    """The tensor written."""
    target = operand_def(DispatchTensorType)
    """The dispatch tensor written to."""
    target_dims = var_operand_def(IndexType)
    """Its dynamic dimensions."""

    def __init__(
        self,
        value: SSAValue,
        target: SSAValue,
        target_dims: Sequence[SSAValue],
        dynamic: Sequence[Sequence[SSAValue]],
        static: Sequence[Sequence[int]],
    ) -> None:
        super().__init__(
            operands=[value, target, target_dims, *dynamic],
            properties=_slice_properties(static),
        )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        (value, target), dynamic, static = _parse_slice(parser, 2)
        attrs, value_type = parse_attr_dict_and_type(parser)
        parser.parse_punctuation("->")
        target_type, dims = parse_shaped_type(parser)
        op = cls(
            parser.resolve_operand(value, value_type),
            parser.resolve_operand(target, target_type),
            dims,
            dynamic,
            static,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        self.print_slice(printer, (self.value, self.target))
        print_attr_dict_and_type(printer, self.attributes, self.value.type)
        printer.print_string(" -> ")
        print_shaped_type(printer, self.target.type, self.target_dims)


@irdl_op_definition
class DispatchWorkgroupCountFromSliceOp(IRDLOperation):
    """``%x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice(%w0, %w1)``:
    the count region's default, resolved once the dispatch is tiled."""

    name = "iree_tensor_ext.dispatch.workgroup_count_from_slice"

    operands_ = var_operand_def(IndexType)
    """The workload."""
    x = result_def(IndexType)
    """Workgroups along x."""
    y = result_def(IndexType)
    """Workgroups along y."""
    z = result_def(IndexType)
    """Workgroups along z."""

    assembly_format = "`(` $operands_ `)` attr-dict"

    def __init__(self, workload: Sequence[SSAValue]) -> None:
        index = IndexType()
        super().__init__(operands=[workload], result_types=[index, index, index])


IREETensorExt = Dialect(
    "iree_tensor_ext",
    [DispatchTensorLoadOp, DispatchTensorStoreOp, DispatchWorkgroupCountFromSliceOp],
    [DispatchTensorType],
)
"""IREE's iree_tensor_ext dialect, the part Flow-level IR uses."""
