"""Pointer ops of the ``tt`` dialect.

``tt.addptr``; the block pointers' ``tt.make_tensor_ptr`` and ``tt.advance``;
``tt.make_tensor_descriptor``; the casts ``tt.int_to_ptr``, ``tt.ptr_to_int``
and ``tt.bitcast``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar, cast

from xdsl.dialects.builtin import I32, DenseArrayBase, IntegerAttr, TensorType, i32, i64
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute
from xdsl.irdl import (
    EqAttrConstraint,
    IRDLOperation,
    SameVariadicOperandSize,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure

from passviz.compilers.triton.dialects.tt.syntax import (
    PropertySyntax,
    SrcToResultSyntax,
    parse_operand_and_groups,
    parse_type_of,
    print_attr_dict_with_properties,
    print_operand_and_groups,
    print_operands,
    print_stripped_type,
    print_types,
    ptr_like_type_or_error,
    resolve_operand_and_groups,
)
from passviz.compilers.triton.dialects.tt.traits import (
    Elementwise,
    SameOperandsAndResultEncoding,
    SameOperandsAndResultShape,
    TensorSizeTrait,
    constant_value,
    elementwise_cast_traits,
    int_value,
    op_error,
)
from passviz.compilers.triton.dialects.tt.types import (
    I64LikeConstr,
    IntLikeConstr,
    PaddingOption,
    PointerType,
    PtrConstr,
    PtrLikeConstr,
    TensorDescType,
    TritonTypeConstr,
    bit_width,
    element_type_or_self,
    is_tensor_pointer_type,
    optional_enum_attr,
    scalar_or_tensor,
    verify_enum_attr,
)
from passviz.compilers.triton.version import triton_version
from passviz.ir.hints import isa


@irdl_op_definition
class AddPtrOp(IRDLOperation, HasFolderInterface):
    """Offset a pointer, or a tensor of pointers, by a number of elements.

    ``%p = tt.addptr %ptr, %offset : tensor<128x!tt.ptr<f32>>, tensor<128xi32>``;
    the result has the type of ``ptr``.
    """

    name = "tt.addptr"

    ptr = operand_def(PtrLikeConstr)
    """The pointer(s) to offset."""

    offset = operand_def(IntLikeConstr)
    """The offset, in elements of the pointee type."""

    result = result_def(PtrLikeConstr)
    """The offset pointer(s)."""

    traits = traits_def(
        Pure(),
        Elementwise(),
        SameOperandsAndResultShape(),
        SameOperandsAndResultEncoding(),
        TensorSizeTrait(),
    )

    def __init__(
        self,
        ptr: SSAValue | Operation,
        offset: SSAValue | Operation,
        *,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        super().__init__(operands=[ptr, offset], result_types=[SSAValue.get(ptr).type], attributes=attributes)

    def verify_(self) -> None:
        if self.result.type != self.ptr.type:
            raise op_error(
                self,
                f"failed to verify that result type matches ptr type: {self.result.type} vs {self.ptr.type}",
            )

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        # addptr(ptr, 0) -> ptr
        if int_value(constant_value(self.offset)) == 0:
            return (self.ptr,)
        return None

    @classmethod
    def parse(cls, parser: Parser) -> AddPtrOp:
        # $ptr `,` $offset attr-dict `:` type($result) `,` type($offset)
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offset = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        result_type = parser.parse_type()
        ptr_like_type_or_error(parser, pos, result_type)
        parser.parse_punctuation(",")
        offset_type = parser.parse_type()
        return cls(
            parser.resolve_operand(ptr, result_type),
            parser.resolve_operand(offset, offset_type),
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_operands(printer, (self.ptr, self.offset))
        print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        print_types(printer, (self.result.type, self.offset.type))


def _verify_tensor_pointer(op: Operation, type_: Attribute, role: str) -> None:
    """Raise unless ``type_`` is a block pointer (``TT_TensorPtr``, whose summary is ``ptr``)."""
    if not is_tensor_pointer_type(type_):
        raise op_error(op, f"{role} must be ptr, but got '{type_}' (not a pointer to a tensor)")


@irdl_op_definition
class AdvanceOp(IRDLOperation, HasFolderInterface):
    """Move a block pointer by an offset in each dimension.

    ``%q = tt.advance %p, [%i, %j] : <tensor<128x64xf16>>`` (Triton prints the
    pointer type without its ``!tt.ptr`` prefix).
    """

    name = "tt.advance"

    ptr = operand_def(PtrConstr)
    """The block pointer."""

    offsets = var_operand_def(EqAttrConstraint(i32))
    """The offset in each dimension."""

    result = result_def(PtrConstr)
    """The moved block pointer, of the type of ``ptr``."""

    traits = traits_def(Pure(), TensorSizeTrait())

    def __init__(
        self,
        ptr: SSAValue | Operation,
        offsets: Sequence[SSAValue | Operation],
        *,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[ptr, offsets], result_types=[SSAValue.get(ptr).type], attributes=attributes
        )

    def verify_(self) -> None:
        _verify_tensor_pointer(self, self.ptr.type, "operand #0")
        if self.result.type != self.ptr.type:
            raise op_error(self, "failed to verify that result type matches ptr type")

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        # advance(ptr, 0, 0) -> ptr
        if all(int_value(constant_value(offset)) == 0 for offset in self.offsets):
            return (self.ptr,)
        return None

    @classmethod
    def parse(cls, parser: Parser) -> AdvanceOp:
        # $ptr `,` `[` $offsets `]` attr-dict `:` type($result)
        ptr, (offsets,) = parse_operand_and_groups(parser, 1)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result_type = parse_type_of(parser, PointerType, "a !tt.ptr")
        return cls(
            parser.resolve_operand(ptr, result_type),
            [parser.resolve_operand(offset, i32) for offset in offsets],
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        print_operand_and_groups(printer, self.ptr, (self.offsets,))
        print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        print_stripped_type(printer, self.result.type)


@irdl_op_definition
class MakeTensorPtrOp(PropertySyntax, IRDLOperation):
    """Make a block pointer into a tensor in memory.

    ``%p = tt.make_tensor_ptr %base, [%d0, %d1], [%s0, %s1], [%o0, %o1]
    {order = array<i32: 1, 0>} : <tensor<128x64xf16>>``: the parent tensor's
    shape and strides (``i64``), the block's offsets (``i32``) and the block's
    dimension order, fastest-varying first.
    """

    name = "tt.make_tensor_ptr"

    base = operand_def(PtrConstr)
    """The parent tensor's address (a scalar pointer)."""

    shape = var_operand_def(EqAttrConstraint(i64))
    """The parent tensor's shape."""

    strides = var_operand_def(EqAttrConstraint(i64))
    """The parent tensor's strides, in elements."""

    offsets = var_operand_def(EqAttrConstraint(i32))
    """Where the block starts."""

    result = result_def(PtrConstr)
    """The block pointer ``!tt.ptr<tensor<...>>``."""

    order = prop_def(DenseArrayBase[I32])
    """The block's dimension order."""

    irdl_options = (SameVariadicOperandSize(),)

    traits = traits_def(Pure(), TensorSizeTrait())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("order",)

    def __init__(
        self,
        base: SSAValue | Operation,
        shape: Sequence[SSAValue | Operation],
        strides: Sequence[SSAValue | Operation],
        offsets: Sequence[SSAValue | Operation],
        tensor_shape: Sequence[int],
        order: Sequence[int],
        *,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        base_type = SSAValue.get(base).type
        assert isinstance(base_type, PointerType)
        block = TensorType(base_type.pointee_type, tensor_shape)
        super().__init__(
            operands=[base, shape, strides, offsets],
            result_types=[PointerType(block, base_type.address_space)],
            properties={"order": DenseArrayBase.from_list(i32, order)},
            attributes=attributes,
        )

    def verify_(self) -> None:
        _verify_tensor_pointer(self, self.result.type, "result #0")
        result_type = self.result.type
        assert isinstance(result_type, PointerType)
        block = cast(TensorType[Attribute], result_type.pointee_type)
        element = block.get_element_type()
        assert isinstance(element, TypeAttribute)
        expected = PointerType(element, result_type.address_space)
        if self.base.type != expected:
            raise op_error(
                self,
                f"failed to verify that infer pointer type from the result type: base is {self.base.type}, "
                f"expected {expected}",
            )

    @classmethod
    def parse(cls, parser: Parser) -> MakeTensorPtrOp:
        # $base `,` `[` $shape `]` `,` `[` $strides `]` `,` `[` $offsets `]` attr-dict `:` type($result)
        base, groups = parse_operand_and_groups(parser, 3)
        properties, attributes = cls.parse_properties(parser)
        parser.parse_punctuation(":")
        pos = parser.pos
        result_type = parse_type_of(parser, PointerType, "a !tt.ptr")
        if not isa(result_type.pointee_type, TensorType[Attribute]):
            parser.raise_error(f"expected a pointer to a tensor, got {result_type}", pos, parser.pos)
        element = cast(TypeAttribute, result_type.pointee_type.get_element_type())
        base_type = PointerType(element, result_type.address_space)
        return cls.build(
            operands=resolve_operand_and_groups(parser, base, base_type, groups, (i64, i64, i32)),
            result_types=[result_type],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        print_operand_and_groups(printer, self.base, (self.shape, self.strides, self.offsets))
        self.print_properties(printer)
        printer.print_string(" : ")
        print_stripped_type(printer, self.result.type)


@irdl_op_definition
class MakeTensorDescOp(PropertySyntax, IRDLOperation):
    """Make a tensor descriptor for a tensor in memory.

    ``%d = tt.make_tensor_descriptor %base, [%d0, %d1], [%s0, %s1]
    : <f16>, <tensor<16x16xf16>>``: the parent tensor's shape (``i32``) and
    strides (``i64``); the block shape is the result type's.
    """

    name = "tt.make_tensor_descriptor"

    base = operand_def(PtrConstr)
    """The parent tensor's address."""

    shape = var_operand_def(EqAttrConstraint(i32))
    """The parent tensor's shape."""

    strides = var_operand_def(EqAttrConstraint(i64))
    """The parent tensor's strides, in elements."""

    result = result_def(TensorDescType)
    """The descriptor."""

    padding = opt_prop_def(IntegerAttr[I32])
    """How out-of-bounds elements read (``PaddingOption``); absent means ``zero``."""

    irdl_options = (SameVariadicOperandSize(),)

    traits = traits_def(Pure(), TensorSizeTrait())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("padding",)

    _PROPERTY_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {"padding": PaddingOption.PAD_ZERO.to_attr()}
    """Triton's ``DefaultValuedAttr`` defaults, never printed nor stored."""

    def __init__(
        self,
        base: SSAValue | Operation,
        shape: Sequence[SSAValue | Operation],
        strides: Sequence[SSAValue | Operation],
        result_type: TensorDescType,
        *,
        padding: PaddingOption | None = None,
    ):
        super().__init__(
            operands=[base, shape, strides],
            result_types=[result_type],
            properties={"padding": optional_enum_attr(padding, PaddingOption.PAD_ZERO)},
        )

    def verify_(self) -> None:
        verify_enum_attr(self.padding, PaddingOption, "padding")

    @classmethod
    def parse(cls, parser: Parser) -> MakeTensorDescOp:
        # $base `,` `[` $shape `]` `,` `[` $strides `]` attr-dict `:` type($base) `,` type($result)
        base, groups = parse_operand_and_groups(parser, 2)
        properties, attributes = cls.parse_properties(parser)
        parser.parse_punctuation(":")
        base_type = parse_type_of(parser, PointerType, "a !tt.ptr")
        parser.parse_punctuation(",")
        result_type = parse_type_of(parser, TensorDescType, "a !tt.tensordesc")
        return cls.build(
            operands=resolve_operand_and_groups(parser, base, base_type, groups, (i32, i64)),
            result_types=[result_type],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        print_operand_and_groups(printer, self.base, (self.shape, self.strides))
        self.print_properties(printer)
        printer.print_string(" : ")
        print_stripped_type(printer, self.base.type)
        printer.print_string(", ")
        print_stripped_type(printer, self.result.type)


@irdl_op_definition
class IntToPtrOp(SrcToResultSyntax, IRDLOperation):
    """Cast an ``i64`` (or a tensor of them) to a pointer.

    ``%p = tt.int_to_ptr %x : i64 -> !tt.ptr<f32>``
    """

    name = "tt.int_to_ptr"

    src = operand_def(I64LikeConstr)
    """The address."""

    result = result_def(PtrLikeConstr)
    """The pointer."""

    traits = elementwise_cast_traits()


@irdl_op_definition
class PtrToIntOp(SrcToResultSyntax, IRDLOperation):
    """Cast a pointer (or a tensor of them) to ``i64``.

    ``%x = tt.ptr_to_int %p : !tt.ptr<f32> -> i64``
    """

    name = "tt.ptr_to_int"

    src = operand_def(PtrLikeConstr)
    """The pointer."""

    result = result_def(I64LikeConstr)
    """The address."""

    traits = elementwise_cast_traits()

    def __init__(self, src: SSAValue | Operation, result_type: Attribute | None = None):
        if result_type is None:
            result_type = scalar_or_tensor(SSAValue.get(src).type, i64)
        super().__init__(src, result_type)


@irdl_op_definition
class BitcastOp(SrcToResultSyntax, IRDLOperation, HasFolderInterface):
    """Reinterpret bits as another type of the same width (pointers included).

    ``%y = tt.bitcast %x : tensor<16xf32> -> tensor<16xi32>``
    """

    name = "tt.bitcast"

    src = operand_def(TritonTypeConstr)
    """The value to reinterpret."""

    result = result_def(TritonTypeConstr)
    """The reinterpreted value."""

    traits = elementwise_cast_traits()

    def verify_(self) -> None:
        src, dst = element_type_or_self(self.src.type), element_type_or_self(self.result.type)
        if isinstance(src, PointerType) or isinstance(dst, PointerType):
            if not isinstance(src, PointerType) or not isinstance(dst, PointerType):
                raise op_error(self, "Cannot bitcast pointer to non-pointer type")
            if src.address_space != dst.address_space:
                raise op_error(self, "Cannot bitcast pointer between different address spaces")
            return
        if bit_width(src) != bit_width(dst):
            raise op_error(
                self,
                f"Cannot bitcast data-type of size {bit_width(src)} to data-type of size {bit_width(dst)}",
            )

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        # Triton 3.9 folds a bitcast to the same type; 3.6 has no folder.
        if triton_version() < (3, 9) or self.src.type != self.result.type:
            return None
        return (self.src,)
