"""Shape ops of the ``tt`` dialect.

``tt.splat``, ``tt.unsplat``, ``tt.expand_dims``, ``tt.reshape``,
``tt.broadcast``, ``tt.cat``, ``tt.join``, ``tt.split``, ``tt.trans`` and
``tt.gather``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I32,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    TensorType,
    UnitAttr,
    i32,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoMemoryEffect, Pure

from passviz.compilers.triton.dialects.tt.syntax import (
    PropertySyntax,
    SameOperandTypeSyntax,
    SrcToResultSyntax,
    parse_functional_type,
    parse_tensor_type,
    print_attr_dict_and_type,
    resolve,
)
from passviz.compilers.triton.dialects.tt.traits import (
    SameOperandsAndResultElementType,
    SameOperandsAndResultEncoding,
    SameTypeOperands,
    TensorSizeTrait,
    constant_value,
    fold_view_like,
    op_error,
    splat_of,
    splat_value,
    verify_inferred_types,
)
from passviz.compilers.triton.dialects.tt.types import (
    IntTensorConstr,
    LayoutInferenceError,
    TensorConstr,
    TritonTypeConstr,
    dims,
    element_type_or_self,
    encoding_of,
    inferred_encoding,
    with_element_type,
    with_shape,
)
from passviz.compilers.triton.version import triton_version
from passviz.ir.hints import isa


@irdl_op_definition
class SplatOp(SrcToResultSyntax, IRDLOperation, HasFolderInterface):
    """Fill a tensor with one value.

    ``%t = tt.splat %x : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>``
    """

    name = "tt.splat"

    src = operand_def(TritonTypeConstr)
    """The value to repeat."""

    result = result_def(TensorConstr)
    """The filled tensor."""

    traits = traits_def(
        Pure(), SameOperandsAndResultElementType(), SameOperandsAndResultEncoding(), TensorSizeTrait()
    )

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        # Only a scalar constant folds: a splat of a one-element tensor does not.
        value = constant_value(self.src)
        if value is None or isinstance(value, DenseIntOrFPElementsAttr):
            return None
        splat = splat_of(self.result.type, value)
        return None if splat is None else (splat,)


@irdl_op_definition
class UnsplatOp(IRDLOperation):
    """Read the one element of a one-element tensor.

    ``%x = tt.unsplat %t : tensor<1x1xf32>``
    """

    name = "tt.unsplat"

    src = operand_def(TensorConstr)
    """The tensor of one element."""

    result = result_def(TritonTypeConstr)
    """Its element."""

    traits = traits_def(Pure(), TensorSizeTrait())

    def __init__(self, src: SSAValue | Operation):
        super().__init__(operands=[src], result_types=[element_type_or_self(SSAValue.get(src).type)])

    def verify_(self) -> None:
        if math.prod(dims(self.src.type)) != 1:
            raise op_error(self, "source tensor must have exactly one element")
        verify_inferred_types(self, (element_type_or_self(self.src.type),))

    @classmethod
    def parse(cls, parser: Parser) -> UnsplatOp:
        src = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parse_tensor_type(parser)
        op = cls(parser.resolve_operand(src, src_type))
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        print_attr_dict_and_type(printer, self, self.src.type)


def _expand_dims_type(src_type: Attribute, axis: int) -> TensorType[Attribute]:
    """The type of ``src_type`` with a new dimension of size 1 at ``axis``.

    Raises ``LayoutInferenceError`` when the encoding cannot take the new dimension.
    """
    assert isa(src_type, TensorType[Attribute])
    shape = list(src_type.get_shape())
    shape.insert(axis, 1)
    encoding = inferred_encoding(src_type, lambda e: e.expand_dims_encoding(axis))
    return TensorType(src_type.get_element_type(), shape, encoding)


class _ShapeOp(SrcToResultSyntax, IRDLOperation, HasFolderInterface):
    """A shape op of ``src``'s elements: ``$src ... : type($src) -> type($result)``
    (``tt.expand_dims``, ``tt.reshape``, ``tt.broadcast``, ``tt.trans``)."""

    src = operand_def(TensorConstr)
    """The tensor to reshape."""

    result = result_def(TensorConstr)
    """The tensor of ``src``'s elements, in the new shape."""

    def _fold_splat(self) -> Sequence[SSAValue | Attribute] | None:
        """A splat constant ``src`` folded into the splat of the result type, if any."""
        element = splat_value(constant_value(self.src))
        if element is None:
            return None
        splat = splat_of(self.result.type, element)
        return None if splat is None else (splat,)


class _SameElementShapeOp(_ShapeOp):
    """A shape op whose traits are only ``Pure``, the element type kept and
    the tensor size checked (not ``tt.broadcast``, which keeps the encoding too)."""

    traits = traits_def(Pure(), SameOperandsAndResultElementType(), TensorSizeTrait())


@irdl_op_definition
class ExpandDimsOp(_SameElementShapeOp):
    """Insert a dimension of size 1.

    ``%y = tt.expand_dims %x {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>``
    """

    name = "tt.expand_dims"

    axis = prop_def(IntegerAttr[I32])
    """Where the new dimension goes."""

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("axis",)

    def __init__(self, src: SSAValue | Operation, axis: int, result_type: Attribute | None = None):
        if result_type is None:
            result_type = _expand_dims_type(SSAValue.get(src).type, axis)
        super().__init__(src, result_type, {"axis": IntegerAttr(axis, i32)})

    def verify_(self) -> None:
        rank = len(dims(self.src.type))
        axis = self.axis.value.data
        if not 0 <= axis <= rank:
            raise op_error(self, f"axis {axis} is out of bounds for a result of rank {rank + 1}")
        try:
            inferred = _expand_dims_type(self.src.type, axis)
        except LayoutInferenceError as exc:
            raise op_error(self, str(exc)) from None
        verify_inferred_types(self, (inferred,))

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        folded = fold_view_like(constant_value(self.src), self.result.type)
        return None if folded is None else (folded,)


@irdl_op_definition
class ReshapeOp(_SameElementShapeOp):
    """Reinterpret a tensor with another shape; with ``allow_reorder`` the
    compiler may also reorder its elements.

    ``%y = tt.reshape %x allow_reorder : tensor<4x16xf32> -> tensor<64xf32>``
    """

    name = "tt.reshape"

    allow_reorder = opt_prop_def(UnitAttr)
    """Whether the elements may be reordered."""

    efficient_layout = opt_prop_def(UnitAttr)
    """A hint that the result's layout is chosen for performance."""

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("allow_reorder", "efficient_layout")

    _UNIT_KEYWORDS: ClassVar[tuple[str, ...]] = ("allow_reorder", "efficient_layout")
    """``$src (`allow_reorder` $allow_reorder^)? (`efficient_layout` $efficient_layout^)?``."""

    def __init__(
        self,
        src: SSAValue | Operation,
        result_type: Attribute,
        *,
        allow_reorder: bool = False,
        efficient_layout: bool = False,
    ):
        super().__init__(
            src,
            result_type,
            {
                "allow_reorder": UnitAttr() if allow_reorder else None,
                "efficient_layout": UnitAttr() if efficient_layout else None,
            },
        )

    def verify_(self) -> None:
        src_count = math.prod(dims(self.src.type))
        result_count = math.prod(dims(self.result.type))
        if src_count != result_count:
            raise op_error(self, "number of src and dst elements of reshape must be the same")
        if (encoding_of(self.src.type) is None) != (encoding_of(self.result.type) is None):
            raise op_error(
                self, "Op requires that either (a) src and dst both have encodings, or (b) neither does."
            )

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        if self.result.type == self.src.type and self.allow_reorder is None:
            return (self.src,)
        folded = fold_view_like(constant_value(self.src), self.result.type)
        return None if folded is None else (folded,)


@irdl_op_definition
class BroadcastOp(_ShapeOp):
    """Stretch dimensions of size 1 to a larger size.

    ``%y = tt.broadcast %x : tensor<1x32xf32> -> tensor<8x32xf32>``
    """

    name = "tt.broadcast"

    traits = traits_def(
        Pure(), SameOperandsAndResultElementType(), SameOperandsAndResultEncoding(), TensorSizeTrait()
    )

    def verify_(self) -> None:
        src_shape, result_shape = dims(self.src.type), dims(self.result.type)
        if len(src_shape) != len(result_shape):
            raise op_error(self, "rank of source must be same as rank of result")
        for i, (src_dim, result_dim) in enumerate(zip(src_shape, result_shape, strict=True)):
            if src_dim not in (1, result_dim):
                raise op_error(
                    self,
                    f"Different dimensions at index {i} between source and result.  "
                    "Broadcast requires the source dimension to be 1.",
                )

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        if self.result.type == self.src.type:
            return (self.src,)
        return self._fold_splat()


@irdl_op_definition
class CatOp(SameOperandTypeSyntax, IRDLOperation):
    """Concatenate two tensors; the order of the elements is not kept.

    ``%y = tt.cat %a, %b : tensor<32xf32> -> tensor<64xf32>``
    """

    name = "tt.cat"

    lhs = operand_def(TensorConstr)
    """The first tensor."""

    rhs = operand_def(TensorConstr)
    """The second tensor, of the type of ``lhs``."""

    result = result_def(TensorConstr)
    """The concatenation."""

    # Not Pure: Triton does not let it be speculated, as it may reorder elements.
    traits = traits_def(
        NoMemoryEffect(), SameTypeOperands(), SameOperandsAndResultElementType(), TensorSizeTrait()
    )

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[lhs, rhs], result_types=[result_type])


@irdl_op_definition
class JoinOp(SameOperandTypeSyntax, IRDLOperation, HasFolderInterface):
    """Join two tensors along a new minor dimension of size 2.

    ``%y = tt.join %a, %b : tensor<4x8xf32> -> tensor<4x8x2xf32>``
    """

    name = "tt.join"

    lhs = operand_def(TensorConstr)
    """Becomes ``result[..., 0]``."""

    rhs = operand_def(TensorConstr)
    """Becomes ``result[..., 1]``."""

    result = result_def(TensorConstr)
    """The joined tensor."""

    traits = traits_def(Pure(), SameTypeOperands(), TensorSizeTrait())

    def __init__(self, lhs: SSAValue | Operation, rhs: SSAValue | Operation):
        lhs_type = SSAValue.get(lhs).type
        assert isa(lhs_type, TensorType[Attribute])
        result_type = with_shape(lhs_type, (*lhs_type.get_shape(), 2))
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def verify_(self) -> None:
        expected = (*(dims(self.lhs.type)), 2)
        actual = dims(self.result.type)
        if actual != expected:
            raise op_error(
                self,
                f"result shape must be ({', '.join(map(str, expected))}), "
                f"but got {', '.join(map(str, actual))}",
            )
        if element_type_or_self(self.result.type) != element_type_or_self(self.lhs.type):
            raise op_error(self, "result element type must match the input element type")
        if encoding_of(self.result.type) is None and encoding_of(self.lhs.type) is not None:
            raise op_error(self, "result encoding must be specified")

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        # Triton 3.9 folds join(split(x)) to x; 3.6 has no folder.
        if triton_version() < (3, 9):
            return None
        lhs, rhs = self.lhs, self.rhs
        if not isinstance(lhs, OpResult) or not isinstance(rhs, OpResult) or lhs.op is not rhs.op:
            return None
        split = lhs.op
        if not isinstance(split, SplitOp) or (lhs.index, rhs.index) != (0, 1):
            return None
        if split.src.type != self.result.type:
            return None
        return (split.src,)


@irdl_op_definition
class SplitOp(SrcToResultSyntax, IRDLOperation, HasFolderInterface):
    """Split a tensor along its last dimension, of size 2.

    ``%a, %b = tt.split %x : tensor<4x8x2xf32> -> tensor<4x8xf32>``
    """

    name = "tt.split"

    src = operand_def(TensorConstr)
    """The tensor to split."""

    out_lhs = result_def(TensorConstr)
    """``src[..., 0]`` (Triton's ``outLHS``)."""

    out_rhs = result_def(TensorConstr)
    """``src[..., 1]`` (Triton's ``outRHS``)."""

    traits = traits_def(Pure(), TensorSizeTrait())

    def __init__(self, src: SSAValue | Operation):
        src_type = SSAValue.get(src).type
        assert isa(src_type, TensorType[Attribute])
        half = with_shape(src_type, src_type.get_shape()[:-1])
        IRDLOperation.__init__(self, operands=[src], result_types=[half, half])

    def verify_(self) -> None:
        shape = dims(self.src.type)
        if not shape or shape[-1] != 2:
            raise op_error(self, "last dimension of input tensor must be 2")
        assert isa(self.src.type, TensorType[Attribute])
        half = with_shape(self.src.type, shape[:-1])
        verify_inferred_types(self, (half, half))

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        # Triton 3.9 folds split(join(a, b)) to a, b; 3.6 has no folder.
        if triton_version() < (3, 9):
            return None
        join = self.src.owner
        if not isinstance(join, JoinOp) or join.lhs.type != self.out_lhs.type:
            return None
        return (join.lhs, join.rhs)

    @classmethod
    def _result_types(cls, result_type: Attribute) -> Sequence[Attribute]:
        # The syntax writes the type of ``out_lhs``, which ``out_rhs`` shares.
        return [result_type, result_type]


def _permuted(values: Sequence[int], order: Sequence[int]) -> tuple[int, ...]:
    """``applyPermutation``: ``values[order[0]], values[order[1]], ...``."""
    return tuple(values[i] for i in order)


@irdl_op_definition
class TransOp(_SameElementShapeOp):
    """Permute the dimensions of a tensor (``tl.trans`` and ``tl.permute``):
    dimension ``i`` of the result is ``src``'s ``order[i]``.

    ``%y = tt.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>``
    """

    name = "tt.trans"

    order = prop_def(DenseArrayBase[I32])
    """The permutation."""

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("order",)

    def __init__(self, src: SSAValue | Operation, order: Sequence[int]):
        src_type = SSAValue.get(src).type
        assert isa(src_type, TensorType[Attribute])
        result_type = with_shape(src_type, _permuted(src_type.get_shape(), order))
        super().__init__(src, result_type, {"order": DenseArrayBase.from_list(i32, order)})

    @property
    def order_values(self) -> tuple[int, ...]:
        """The permutation as numbers."""
        return self.order.get_values()

    def verify_(self) -> None:
        order = self.order_values
        shape = dims(self.src.type)
        if len(order) != len(shape):
            raise op_error(self, "order must have the same size as the rank of the operand and result")
        if sorted(order) != list(range(len(order))):
            raise op_error(self, "order must be a permutation of [0, ..., rank - 1]")
        if _permuted(shape, order) != (dims(self.result.type)):
            raise op_error(self, "result shape must match the permutation of the source shape")

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        # trans(x, order=[0, 1, ...]) -> x
        if self.order_values == tuple(range(len(self.order_values))) and self.src.type == self.result.type:
            return (self.src,)
        # MLIR's fold also rewrites trans(trans(x)) in place into one trans
        # (see ``fold_in_place``): an xDSL folder may not change the op.
        return self._fold_splat()

    def fold_in_place(self) -> tuple[SSAValue, tuple[int, ...]] | None:
        """What Triton's in-place fold makes of ``trans(trans(x))``: the new
        source ``x`` and order (the inner order permuted by this one), or None.

        MLIR's ``TransOp::fold`` sets them on the op and reports it folded in
        place; a driver that models that applies them through its rewriter.
        """
        inner = self.src.owner
        if not isinstance(inner, TransOp):
            return None
        return inner.src, _permuted(inner.order_values, self.order_values)


@irdl_op_definition
class GatherOp(PropertySyntax, IRDLOperation):
    """Gather elements of a tensor along one axis, at the given indices.

    ``%y = tt.gather %src[%idx] {axis = 0 : i32} : (tensor<16xf32>, tensor<16xi32>) -> tensor<16xf32>``
    """

    name = "tt.gather"

    src = operand_def(TensorConstr)
    """The tensor to read."""

    indices = operand_def(IntTensorConstr)
    """Where to read along ``axis``; the result has its shape."""

    result = result_def(TensorConstr)
    """The gathered elements."""

    axis = prop_def(IntegerAttr[I32])
    """The axis the indices index."""

    efficient_layout = opt_prop_def(UnitAttr)
    """Set when the compiler chose the layout for performance."""

    traits = traits_def(Pure(), TensorSizeTrait())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("axis", "efficient_layout")

    def __init__(self, src: SSAValue | Operation, indices: SSAValue | Operation, axis: int):
        indices_type = SSAValue.get(indices).type
        assert isa(indices_type, TensorType[Attribute])
        result_type = with_element_type(indices_type, element_type_or_self(SSAValue.get(src).type))
        super().__init__(
            operands=[src, indices], result_types=[result_type], properties={"axis": IntegerAttr(axis, i32)}
        )

    def verify_(self) -> None:
        src_shape, indices_shape = dims(self.src.type), dims(self.indices.type)
        axis = self.axis.value.data
        if indices_shape != (dims(self.result.type)):
            raise op_error(self, "indices and output shapes must match")
        if encoding_of(self.indices.type) != encoding_of(self.result.type):
            raise op_error(self, "indices and output encodings must match")
        if element_type_or_self(self.src.type) != element_type_or_self(self.result.type):
            raise op_error(self, "input and output element types must match")
        if len(src_shape) != len(indices_shape):
            raise op_error(self, "input and indices ranks must match")
        if axis >= len(src_shape):
            raise op_error(self, "gather dimension must be less than the input rank")
        for dim, (index_dim, src_dim) in enumerate(zip(indices_shape, src_shape, strict=True)):
            if dim != axis and index_dim != src_dim:
                raise op_error(self, f"indices dimension {dim} must match the corresponding input dimension")

    @classmethod
    def parse(cls, parser: Parser) -> GatherOp:
        # $src `[` $indices `]` attr-dict `:` functional-type(operands, results)
        pos = parser.pos
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        indices = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        properties, attributes = cls.parse_properties(parser)
        parser.parse_punctuation(":")
        inputs, outputs = parse_functional_type(parser, 2, pos)
        return cls.build(
            operands=resolve(parser, [src, indices], inputs, pos),
            result_types=[outputs[0] if len(outputs) == 1 else list(outputs)],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        with printer.in_square_brackets():
            printer.print_operand(self.indices)
        self.print_properties(printer)
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)
