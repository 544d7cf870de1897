"""triton-shared's ``tts`` (TritonStructured) dialect, printed as triton-shared prints it.

The ops:

- ``tts.make_tptr``: a structured tensor of pointers (or a block pointer) from
  a base pointer, sizes, strides, offsets, shape and order, in its custom
  syntax (``tts.make_tptr %arg0 to sizes: [4, 256], strides: [1, %c5], ...``);
- ``tts.make_unstructured_tptr``: a pointer (or tensor of pointers) from a
  base pointer and an offset (or tensor of offsets); generic syntax only, as
  its ODS defines no assembly format;
- ``tts.load`` / ``tts.store``: structured memory accesses, generic syntax only;
- ``tts.gather`` / ``tts.scatter``: unstructured accesses through a base
  pointer and offsets (``tts.gather %arg0[%4] mask = %5 : (<f32>, tensor<4xi32>)
  -> tensor<4xf32>``).

Inherent attributes are properties (the dialect sets
``usePropertiesForAttributes``), so the generic form prints them in ``<{...}>``,
sorted by name as MLIR does.

Reference: ``include/triton-shared/Dialect/TritonStructured/IR/
TritonStructuredDialect.td`` in microsoft/triton-shared; ``make_unstructured_tptr``
comes from the ``fold-unstructured-ptr`` branch of PR #210, which merged
without it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I32,
    I64,
    DenseArrayBase,
    IndexType,
    IntegerType,
    MemRefType,
    SignlessIntegerConstraint,
    TensorType,
    UnrankedMemRefType,
    i1,
    i32,
    i64,
)
from xdsl.dialects.utils.dynamic_index_list import (
    parse_dynamic_index_list_without_types,
    print_dynamic_index_list,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    BaseAttr,
    EqAttrConstraint,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from passviz.compilers.triton.dialects.tt import (
    PointerType,
    PtrLikeConstr,
    get_i1_same_shape,
    get_pointee_type,
)
from passviz.ir.hints import isa

__all__ = [
    "DYNAMIC",
    "TTS",
    "GatherOp",
    "LoadOp",
    "MakeTensorPtrOp",
    "MakeUnstructuredTensorPtrOp",
    "ScatterOp",
    "StoreOp",
    "ptr_offset_type",
]

DYNAMIC = -(2**63)
"""MLIR's ``ShapedType::kDynamic``: a static entry that stands for an SSA operand."""


# ===----------------------------------------------------------------------=== #
# Type constraints (TritonTypes.td)
# ===----------------------------------------------------------------------=== #

_TT_INT = SignlessIntegerConstraint
"""``TT_Int`` (a signless integer; Triton further limits the width to 1, 4, 8, 16, 32 or 64)."""

_TT_INT_LIKE = _TT_INT | TensorType.constr(_TT_INT)
"""``TT_IntLike``: ``TT_Int`` or a tensor of it."""

_I32_OR_I64 = EqAttrConstraint(i32) | EqAttrConstraint(i64)
_TT_I32_I64_LIKE = _I32_OR_I64 | TensorType.constr(_I32_OR_I64)
"""``AnyTypeOf<[TT_I64Like, TT_I32Like]>``: an i32/i64 offset or a tensor of them."""

_BOOL_LIKE = EqAttrConstraint(i1) | TensorType.constr(EqAttrConstraint(i1))
"""``TT_BoolLike``: ``i1`` or a tensor of it."""


def ptr_offset_type(ptr_type: Attribute, width: int) -> Attribute:
    """The offset type matching ``ptr_type``: ``iN``, or a tensor of ``iN`` of its shape.

    triton-shared's ``getPtrOffsetType``.
    """
    if isa(ptr_type, TensorType[Attribute]):
        return TensorType(IntegerType(width), ptr_type.get_shape(), ptr_type.encoding)
    return IntegerType(width)


def _shaped_like(type_: Attribute, element: Attribute) -> Attribute:
    """``element``, or a tensor of it shaped like ``type_`` if ``type_`` is a tensor."""
    if isa(type_, TensorType[Attribute]) and isinstance(element, TypeAttribute):
        return TensorType(element, type_.get_shape(), type_.encoding)
    return element


def _parse_stripped_ptr_type(parser: Parser) -> PointerType:
    """A ``!tt.ptr`` written without its prefix, as MLIR prints a ``TT_Ptr`` operand: ``<f32>``."""
    pointee, address_space = PointerType.parse_parameters(parser)
    return PointerType(pointee, address_space)


def _print_stripped_ptr_type(printer: Printer, type_: Attribute) -> None:
    if isinstance(type_, PointerType):
        type_.print_parameters(printer)
        return
    printer.print_attribute(type_)


def _count_dynamic(static: DenseArrayBase[IntegerType]) -> int:
    return sum(1 for value in static.get_values() if value == DYNAMIC)


def _verify_dynamic_list(op_name: str, field: str, static: DenseArrayBase[IntegerType], dynamic: int) -> None:
    """Check that a mixed static/dynamic list has one operand per dynamic entry."""
    expected = _count_dynamic(static)
    if expected != dynamic:
        raise VerifyException(
            f"'{op_name}' expects {expected} dynamic {field} operand(s) for static_{field}, got {dynamic}"
        )


def _sorted_properties(properties: Mapping[str, Attribute]) -> dict[str, Attribute]:
    """Properties sorted by name, as MLIR prints them in the generic form."""
    return dict(sorted(properties.items()))


# ===----------------------------------------------------------------------=== #
# Pointer construction
# ===----------------------------------------------------------------------=== #


@irdl_op_definition
class MakeTensorPtrOp(IRDLOperation):
    """``tts.make_tptr``: a structured tensor of pointers, or a block pointer.

    ``tts.make_tptr %base to sizes: [4, 256], strides: [1, %s], offsets: [%o, 0],
    shape: [0, 0], order: [] : <bf16> to tensor<4x256x!tt.ptr<bf16>>``.  With an
    ``order`` it yields a block pointer (``!tt.ptr<tensor<...>>``) and ``shape``
    is the parent tensor's; without, a tensor of pointers whose ``shape`` gives
    the wrap-around boundary per dimension (0: none).
    """

    name = "tts.make_tptr"

    base = operand_def(BaseAttr(PointerType))
    """The base pointer."""
    strides = var_operand_def(IndexType)
    """The dynamic strides (one per ``DYNAMIC`` entry of ``static_strides``)."""
    offsets = var_operand_def(IndexType)
    """The dynamic offsets (one per ``DYNAMIC`` entry of ``static_offsets``)."""
    shape = var_operand_def(IndexType)
    """The dynamic shape entries (one per ``DYNAMIC`` entry of ``static_shape``)."""

    sizes = prop_def(DenseArrayBase[I64])
    """The size of the tile along each dimension."""
    static_strides = prop_def(DenseArrayBase[I64])
    """The strides, ``DYNAMIC`` where an operand gives them."""
    static_offsets = prop_def(DenseArrayBase[I64])
    """The offsets, ``DYNAMIC`` where an operand gives them."""
    static_shape = prop_def(DenseArrayBase[I64])
    """The shape, ``DYNAMIC`` where an operand gives it."""
    order = prop_def(DenseArrayBase[I32])
    """The block pointer's dimension order; empty for a tensor of pointers."""

    result = result_def(PtrLikeConstr)
    """A tensor of pointers, or a block pointer when ``order`` is set."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    def __init__(
        self,
        base: SSAValue | Operation,
        sizes: Sequence[int],
        strides: Sequence[int | SSAValue],
        offsets: Sequence[int | SSAValue],
        shape: Sequence[int | SSAValue],
        order: Sequence[int],
    ):
        """Build from mixed static/dynamic lists; the result type follows ``order``."""
        base_type = SSAValue.get(base).type
        if not isinstance(base_type, PointerType):
            raise ValueError(f"tts.make_tptr needs a !tt.ptr base, got {base_type}")
        result_type = _make_tptr_result_type(base_type, sizes, order)
        lists = [_split_mixed(values) for values in (strides, offsets, shape)]
        super().__init__(
            operands=[base, *(dynamic for _, dynamic in lists)],
            result_types=[result_type],
            properties=_sorted_properties(
                {
                    "sizes": DenseArrayBase.from_list(i64, sizes),
                    "static_strides": DenseArrayBase.from_list(i64, lists[0][0]),
                    "static_offsets": DenseArrayBase.from_list(i64, lists[1][0]),
                    "static_shape": DenseArrayBase.from_list(i64, lists[2][0]),
                    "order": DenseArrayBase.from_list(i32, order),
                }
            ),
        )

    @property
    def is_block_ptr(self) -> bool:
        """Whether the op yields a block pointer (it has an ``order``)."""
        return bool(self.order.get_values())

    def verify_(self) -> None:
        rank = len(self.sizes.get_values())
        for field, static, dynamic in (
            ("strides", self.static_strides, self.strides),
            ("offsets", self.static_offsets, self.offsets),
            ("shape", self.static_shape, self.shape),
        ):
            if len(static.get_values()) != rank:
                raise VerifyException(
                    f"'{self.name}' expects {rank} {field} (one per size), got {len(static.get_values())}"
                )
            _verify_dynamic_list(self.name, field, static, len(dynamic))
        order = self.order.get_values()
        if order and len(order) != rank:
            raise VerifyException(f"'{self.name}' expects an empty order or {rank} entries, got {len(order)}")
        base_type = self.base.type
        assert isinstance(base_type, PointerType)
        expected = _make_tptr_result_type(base_type, self.sizes.get_values(), order)
        if self.result.type != expected:
            raise VerifyException(f"'{self.name}' result type {self.result.type} should be {expected}")

    @classmethod
    def parse(cls, parser: Parser) -> MakeTensorPtrOp:
        # $base `to` `sizes` `:` $sizes `,` `strides` `:` custom<DynamicIndexList>(...)
        # `,` `offsets` `:` ... `,` `shape` `:` ... `,` `order` `:` $order
        # attr-dict `:` type($base) `to` type($result)
        unresolved_base = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        parser.parse_keyword("sizes")
        parser.parse_punctuation(":")
        sizes = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)
        mixed: list[tuple[Sequence[UnresolvedOperand], Sequence[int]]] = []
        for keyword in ("strides", "offsets", "shape"):
            parser.parse_punctuation(",")
            parser.parse_keyword(keyword)
            parser.parse_punctuation(":")
            mixed.append(parse_dynamic_index_list_without_types(parser, DYNAMIC))
        parser.parse_punctuation(",")
        parser.parse_keyword("order")
        parser.parse_punctuation(":")
        order = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        base_type = _parse_stripped_ptr_type(parser)
        parser.parse_keyword("to")
        result_type = parser.parse_type()
        base = parser.resolve_operand(unresolved_base, base_type)
        index = IndexType()
        dynamic = [[parser.resolve_operand(u, index) for u in operands] for operands, _ in mixed]
        op = cls.create(
            operands=[base, *dynamic[0], *dynamic[1], *dynamic[2]],
            result_types=[result_type],
            properties=_sorted_properties(
                {
                    "operandSegmentSizes": DenseArrayBase.from_list(i32, [1, *(len(d) for d in dynamic)]),
                    "sizes": DenseArrayBase.from_list(i64, sizes),
                    "static_strides": DenseArrayBase.from_list(i64, mixed[0][1]),
                    "static_offsets": DenseArrayBase.from_list(i64, mixed[1][1]),
                    "static_shape": DenseArrayBase.from_list(i64, mixed[2][1]),
                    "order": DenseArrayBase.from_list(i32, order),
                }
            ),
            attributes=attributes,
        )
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.base)
        printer.print_string(" to sizes: ")
        _print_int_list(printer, self.sizes.get_values())
        for keyword, static, dynamic in (
            ("strides", self.static_strides, self.strides),
            ("offsets", self.static_offsets, self.offsets),
            ("shape", self.static_shape, self.shape),
        ):
            printer.print_string(f", {keyword}: ")
            print_dynamic_index_list(printer, DYNAMIC, dynamic, static.get_values())
        printer.print_string(", order: ")
        _print_int_list(printer, self.order.get_values())
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        _print_stripped_ptr_type(printer, self.base.type)
        printer.print_string(" to ")
        printer.print_attribute(self.result.type)


def _print_int_list(printer: Printer, values: Sequence[int]) -> None:
    printer.print_string("[" + ", ".join(str(v) for v in values) + "]")


def _split_mixed(values: Sequence[int | SSAValue]) -> tuple[list[int], list[SSAValue]]:
    static = [v if isinstance(v, int) else DYNAMIC for v in values]
    dynamic = [v for v in values if isinstance(v, SSAValue)]
    return static, dynamic


def _make_tptr_result_type(base: PointerType, sizes: Sequence[int], order: Sequence[int]) -> Attribute:
    """What ``tts.make_tptr``'s builder infers: a tensor of pointers, or a block pointer."""
    if not order:
        return TensorType(base, sizes)
    pointee = base.pointee_type
    return PointerType(TensorType(pointee, sizes), base.address_space)


@irdl_op_definition
class MakeUnstructuredTensorPtrOp(IRDLOperation):
    """``tts.make_unstructured_tptr``: a pointer from a base and an offset.

    ``"tts.make_unstructured_tptr"(%arg0, %off) : (!tt.ptr<f32>, tensor<16xi32>)
    -> tensor<16x!tt.ptr<f32>>``: a tensor of offsets gives a tensor of
    pointers of its shape, a scalar offset a scalar pointer.
    """

    name = "tts.make_unstructured_tptr"

    base = operand_def(PtrLikeConstr | BaseAttr(MemRefType) | BaseAttr(UnrankedMemRefType))
    """The base pointer (a kernel argument)."""
    offset = operand_def(_TT_I32_I64_LIKE)
    """The element offset(s) from the base."""
    ptr = result_def(PtrLikeConstr)
    """The pointer(s) at ``base + offset``."""

    traits = traits_def(Pure())

    def __init__(self, base: SSAValue | Operation, offset: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[base, offset], result_types=[result_type])

    @classmethod
    def for_offset(
        cls, base: SSAValue | Operation, offset: SSAValue | Operation
    ) -> MakeUnstructuredTensorPtrOp:
        """The op whose result is shaped like ``offset`` (a scalar ``base`` pointer)."""
        base_type = SSAValue.get(base).type
        return cls(base, offset, _shaped_like(SSAValue.get(offset).type, base_type))

    def verify_(self) -> None:
        # Stricter than the ODS (which only constrains each type on its own):
        # a scalar base pointer yields pointers shaped like the offsets.
        base_type = self.base.type
        if not isinstance(base_type, PointerType):
            return
        expected = _shaped_like(self.offset.type, base_type)
        if self.ptr.type != expected:
            raise VerifyException(
                f"'{self.name}' result type {self.ptr.type} does not match base {base_type} "
                f"and offset {self.offset.type}: expected {expected}"
            )


# ===----------------------------------------------------------------------=== #
# Structured memory ops (generic syntax)
# ===----------------------------------------------------------------------=== #


def _loaded_type(ptr_type: Attribute) -> Attribute | None:
    """What ``tts.load``'s builder infers: the tensor a tensor of pointers or block pointer reads."""
    if isa(ptr_type, TensorType[Attribute]):
        element = ptr_type.get_element_type()
        if isinstance(element, PointerType):
            return TensorType(element.pointee_type, ptr_type.get_shape())
        return None
    if isinstance(ptr_type, PointerType) and isa(ptr_type.pointee_type, TensorType[Attribute]):
        tensor = ptr_type.pointee_type
        return TensorType(tensor.get_element_type(), tensor.get_shape())
    return None


def _verify_mask_dims(
    op_name: str, static: DenseArrayBase[IntegerType], dynamic: int, rank: int | None
) -> None:
    _verify_dynamic_list(op_name, "mask_dims", static, dynamic)
    count = len(static.get_values())
    if count and rank is not None and count != rank:
        raise VerifyException(f"'{op_name}' expects no mask dims or {rank}, got {count}")


def _rank(type_: Attribute) -> int | None:
    return len(type_.get_shape()) if isa(type_, TensorType[Attribute]) else None


@irdl_op_definition
class LoadOp(IRDLOperation):
    """``tts.load``: read a tile through a structured pointer, optionally masked to ``mask_dims``.

    Printed generically: ``"tts.load"(%ptr) <{operandSegmentSizes = array<i32: 1, 0, 0>,
    static_mask_dims = array<i64>}> : (tensor<4x!tt.ptr<f32>>) -> tensor<4xf32>``.
    """

    name = "tts.load"

    ptr = operand_def(PtrLikeConstr)
    """A tensor of pointers or a block pointer (from ``tts.make_tptr``)."""
    mask_dims = var_operand_def(IndexType)
    """The dynamic mask bounds (one per ``DYNAMIC`` entry of ``static_mask_dims``)."""
    other = opt_operand_def(AnyAttr())
    """The scalar that masked-off elements take."""
    static_mask_dims = prop_def(DenseArrayBase[I64])
    """How many elements to read along each dimension; empty: no mask."""
    result = result_def(TensorType)
    """The tile read."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect())

    def __init__(
        self,
        ptr: SSAValue | Operation,
        mask_dims: Sequence[int | SSAValue] = (),
        other: SSAValue | Operation | None = None,
    ):
        """Build as triton-shared's builder does: the result type follows ``ptr``."""
        result_type = _loaded_type(SSAValue.get(ptr).type)
        if result_type is None:
            raise ValueError(f"tts.load cannot load through {SSAValue.get(ptr).type}")
        static, dynamic = _split_mixed(mask_dims)
        super().__init__(
            operands=[ptr, dynamic, other],
            result_types=[result_type],
            properties={"static_mask_dims": DenseArrayBase.from_list(i64, static)},
        )
        self.properties = _sorted_properties(self.properties)

    def verify_(self) -> None:
        expected = _loaded_type(self.ptr.type)
        if expected is not None and self.result.type != expected:
            raise VerifyException(f"'{self.name}' result type {self.result.type} should be {expected}")
        _verify_mask_dims(self.name, self.static_mask_dims, len(self.mask_dims), _rank(self.result.type))
        result_type = self.result.type
        if self.other is not None and isa(result_type, TensorType[Attribute]):
            if self.other.type != result_type.get_element_type():
                raise VerifyException(
                    f"'{self.name}' other type {self.other.type} should be {result_type.get_element_type()}"
                )


@irdl_op_definition
class StoreOp(IRDLOperation):
    """``tts.store``: write a tile through a structured pointer, optionally masked.

    Printed generically: ``"tts.store"(%ptr, %value) <{static_mask_dims = array<i64>}>
    : (tensor<4x!tt.ptr<f32>>, tensor<4xf32>) -> ()``.
    """

    name = "tts.store"

    ptr = operand_def(PtrLikeConstr)
    """A tensor of pointers or a block pointer (from ``tts.make_tptr``)."""
    value = operand_def(TensorType)
    """The tile written."""
    mask_dims = var_operand_def(IndexType)
    """The dynamic mask bounds (one per ``DYNAMIC`` entry of ``static_mask_dims``)."""
    static_mask_dims = prop_def(DenseArrayBase[I64])
    """How many elements to write along each dimension; empty: no mask."""

    traits = traits_def(MemoryWriteEffect())

    def __init__(
        self,
        ptr: SSAValue | Operation,
        value: SSAValue | Operation,
        mask_dims: Sequence[int | SSAValue] = (),
    ):
        static, dynamic = _split_mixed(mask_dims)
        super().__init__(
            operands=[ptr, value, dynamic],
            properties={"static_mask_dims": DenseArrayBase.from_list(i64, static)},
        )

    def verify_(self) -> None:
        expected = _loaded_type(self.ptr.type)
        if expected is not None and self.value.type != expected:
            raise VerifyException(f"'{self.name}' value type {self.value.type} should be {expected}")
        _verify_mask_dims(self.name, self.static_mask_dims, len(self.mask_dims), _rank(self.value.type))


# ===----------------------------------------------------------------------=== #
# Unstructured memory ops
# ===----------------------------------------------------------------------=== #


def _accessed_type(ptr_type: Attribute, offset_type: Attribute) -> Attribute:
    """The type a gather reads (or a scatter writes): the pointee, shaped like the offsets."""
    return _shaped_like(offset_type, get_pointee_type(ptr_type))


def _parse_optional_named_operand(parser: Parser, keyword: str) -> UnresolvedOperand | None:
    """``(keyword `=` $operand^)?``."""
    if parser.parse_optional_keyword(keyword) is None:
        return None
    parser.parse_punctuation("=")
    return parser.parse_unresolved_operand()


def _print_optional_named_operand(printer: Printer, keyword: str, value: SSAValue | None) -> None:
    """Print `` keyword = %value`` where ``value`` is given (what ``_parse_optional_named_operand`` reads)."""
    if value is not None:
        printer.print_string(f" {keyword} = ")
        printer.print_operand(value)


def _parse_ptr_and_offset(parser: Parser) -> tuple[UnresolvedOperand, UnresolvedOperand]:
    """``%ptr[%offset]``."""
    ptr = parser.parse_unresolved_operand()
    parser.parse_punctuation("[")
    offset = parser.parse_unresolved_operand()
    parser.parse_punctuation("]")
    return ptr, offset


def _parse_types_of_ptr_and_offset(parser: Parser) -> tuple[PointerType, Attribute]:
    """``(<f32>, tensor<4xi32>)``."""
    parser.parse_punctuation("(")
    ptr_type = _parse_stripped_ptr_type(parser)
    parser.parse_punctuation(",")
    offset_type = parser.parse_type()
    parser.parse_punctuation(")")
    return ptr_type, offset_type


def _print_ptr_and_offset(printer: Printer, ptr: SSAValue, offset: SSAValue) -> None:
    printer.print_operand(ptr)
    printer.print_string("[")
    printer.print_operand(offset)
    printer.print_string("]")


def _print_types_of_ptr_and_offset(printer: Printer, ptr: SSAValue, offset: SSAValue) -> None:
    printer.print_string("(")
    _print_stripped_ptr_type(printer, ptr.type)
    printer.print_string(", ")
    printer.print_attribute(offset.type)
    printer.print_string(")")


@irdl_op_definition
class GatherOp(IRDLOperation):
    """``tts.gather``: read ``ptr[offset]`` elementwise, optionally masked.

    ``%v = tts.gather %arg0[%offsets] mask = %m default = %other
    : (<f32>, tensor<4xi32>) -> tensor<4xf32>``.
    """

    name = "tts.gather"

    ptr = operand_def(BaseAttr(PointerType))
    """The base pointer."""
    offset = operand_def(_TT_INT_LIKE)
    """The element offsets from ``ptr``."""
    mask = opt_operand_def(_BOOL_LIKE)
    """Which elements to read (``i1`` shaped like ``offset``)."""
    other = opt_operand_def(AnyAttr())
    """The scalar masked-off elements take (the pointee type)."""
    result = result_def()
    """The values read."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect())

    _KEYWORDS: ClassVar[tuple[str, str]] = ("mask", "default")

    def __init__(
        self,
        ptr: SSAValue | Operation,
        offset: SSAValue | Operation,
        mask: SSAValue | Operation | None = None,
        other: SSAValue | Operation | None = None,
        result_type: Attribute | None = None,
    ):
        if result_type is None:
            result_type = _accessed_type(SSAValue.get(ptr).type, SSAValue.get(offset).type)
        super().__init__(operands=[ptr, offset, mask, other], result_types=[result_type])

    def verify_(self) -> None:
        if self.mask is not None and self.mask.type != get_i1_same_shape(self.offset.type):
            raise VerifyException(f"'{self.name}' mask type {self.mask.type} does not match offset type")
        pointee = get_pointee_type(self.ptr.type)
        if self.other is not None and self.other.type != pointee:
            raise VerifyException(f"'{self.name}' other type {self.other.type} should be {pointee}")
        expected = _accessed_type(self.ptr.type, self.offset.type)
        if self.result.type != expected:
            raise VerifyException(f"'{self.name}' result type {self.result.type} should be {expected}")

    @classmethod
    def parse(cls, parser: Parser) -> GatherOp:
        # $ptr `[` $offset `]` (`mask` `=` $mask^)? (`default` `=` $other^)?
        # attr-dict `:` `(` type($ptr) `,` type($offset) `)` `->` type($result)
        ptr, offset = _parse_ptr_and_offset(parser)
        mask = _parse_optional_named_operand(parser, "mask")
        other = _parse_optional_named_operand(parser, "default")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type, offset_type = _parse_types_of_ptr_and_offset(parser)
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls(
            parser.resolve_operand(ptr, ptr_type),
            parser.resolve_operand(offset, offset_type),
            None if mask is None else parser.resolve_operand(mask, get_i1_same_shape(offset_type)),
            None if other is None else parser.resolve_operand(other, get_pointee_type(ptr_type)),
            result_type,
        )
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_ptr_and_offset(printer, self.ptr, self.offset)
        _print_optional_named_operand(printer, "mask", self.mask)
        _print_optional_named_operand(printer, "default", self.other)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        _print_types_of_ptr_and_offset(printer, self.ptr, self.offset)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class ScatterOp(IRDLOperation):
    """``tts.scatter``: write ``value`` to ``ptr[offset]`` elementwise, optionally masked.

    ``tts.scatter %v into %arg1[%offsets] mask = %m
    : tensor<4xf32> into (<f32>, tensor<4xi32>)``.
    """

    name = "tts.scatter"

    ptr = operand_def(BaseAttr(PointerType))
    """The base pointer."""
    offset = operand_def(_TT_INT_LIKE)
    """The element offsets from ``ptr``."""
    value = operand_def()
    """The values written."""
    mask = opt_operand_def(_BOOL_LIKE)
    """Which elements to write (``i1`` shaped like ``offset``)."""

    traits = traits_def(MemoryWriteEffect())

    def __init__(
        self,
        value: SSAValue | Operation,
        ptr: SSAValue | Operation,
        offset: SSAValue | Operation,
        mask: SSAValue | Operation | None = None,
    ):
        super().__init__(operands=[ptr, offset, value, mask])

    def verify_(self) -> None:
        if self.mask is not None and self.mask.type != get_i1_same_shape(self.offset.type):
            raise VerifyException(f"'{self.name}' mask type {self.mask.type} does not match offset type")
        expected = _accessed_type(self.ptr.type, self.offset.type)
        if self.value.type != expected:
            raise VerifyException(f"'{self.name}' value type {self.value.type} should be {expected}")

    @classmethod
    def parse(cls, parser: Parser) -> ScatterOp:
        # $value `into` $ptr `[` $offset `]` (`mask` `=` $mask^)?
        # attr-dict `:` type($value) `into` `(` type($ptr) `,` type($offset) `)`
        value = parser.parse_unresolved_operand()
        parser.parse_keyword("into")
        ptr, offset = _parse_ptr_and_offset(parser)
        mask = _parse_optional_named_operand(parser, "mask")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        value_type = parser.parse_type()
        parser.parse_keyword("into")
        ptr_type, offset_type = _parse_types_of_ptr_and_offset(parser)
        op = cls(
            parser.resolve_operand(value, value_type),
            parser.resolve_operand(ptr, ptr_type),
            parser.resolve_operand(offset, offset_type),
            None if mask is None else parser.resolve_operand(mask, get_i1_same_shape(offset_type)),
        )
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(" into ")
        _print_ptr_and_offset(printer, self.ptr, self.offset)
        _print_optional_named_operand(printer, "mask", self.mask)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        printer.print_string(" into ")
        _print_types_of_ptr_and_offset(printer, self.ptr, self.offset)


# ===----------------------------------------------------------------------=== #
# The dialect
# ===----------------------------------------------------------------------=== #

TTS = Dialect(
    "tts",
    [
        MakeTensorPtrOp,
        MakeUnstructuredTensorPtrOp,
        LoadOp,
        StoreOp,
        GatherOp,
        ScatterOp,
    ],
    [],
)
"""triton-shared's ``tts`` dialect (the ops passviz models)."""
