"""Types, attributes and enums of Triton's ``tt`` dialect, and the type helpers its ops share.

- enums stored as ``i32`` integer attributes (cache modifier, eviction policy,
  ...), which Triton's op syntax spells as keywords;
- the types ``!tt.ptr`` and ``!tt.tensordesc`` and the attribute
  ``#tt.cache_policy``, read and printed as the Triton passviz behaves as
  (``passviz.compilers.triton.version``);
- the type constraints of ``TritonTypes.td`` (``TT_PtrLike``, ...) and helpers
  on types (``get_pointee_type``, ``get_i1_same_shape``, ...);
- ``LayoutEncoding``: a tensor encoding that infers the encodings of results
  (``ttg`` implements it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import IntEnum
from typing import ClassVar, Self, TypeVar

from xdsl.dialects.builtin import (
    I32,
    AnyFloat,
    AnyFloatConstr,
    FixedBitwidthType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    StringAttr,
    TensorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import BaseAttr, EqAttrConstraint, irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from passviz.compilers.triton.version import triton_version
from passviz.ir.hints import isa
from passviz.ir.xdsl_compat import current_token

# ===----------------------------------------------------------------------=== #
# Enums stored as i32 integer attributes
# ===----------------------------------------------------------------------=== #


class TritonI32Enum(IntEnum):
    """Base of Triton's ``I32EnumAttr`` enums.

    Triton stores these as ``i32`` integer attributes (``cache = 1 : i32`` in an
    attribute dictionary) and spells them with a keyword where the op syntax
    names them (``cacheModifier = ca``). Subclasses map members to keywords in
    ``_mnemonics``.
    """

    @classmethod
    def _mnemonics(cls) -> Mapping[int, str]:
        """Keyword of each member value, as in Triton's ``I32EnumAttrCase``."""
        return {int(member): member.name.lower() for member in cls}

    @property
    def mnemonic(self) -> str:
        """The keyword Triton prints for this value."""
        return type(self)._mnemonics()[int(self)]

    @classmethod
    def from_mnemonic(cls, keyword: str) -> Self | None:
        """The member spelled ``keyword``, or None if there is none."""
        for member in cls:
            if member.mnemonic == keyword:
                return member
        return None

    def to_attr(self) -> IntegerAttr[I32]:
        """This value as the ``i32`` integer attribute Triton stores."""
        return IntegerAttr(int(self), i32)

    @classmethod
    def default(cls) -> Self:
        """The default value: the first member, which Triton leaves unprinted."""
        return next(iter(cls))

    @classmethod
    def from_attr(cls, attr: IntegerAttr[I32] | None) -> Self | None:
        """The member held by ``attr``; None if absent or not a member value."""
        if attr is None:
            return None
        for member in cls:
            if int(member) == attr.value.data:
                return member
        return None


class CacheModifier(TritonI32Enum):
    """Cache modifier of a load or store (``TT_CacheModifierAttr``)."""

    NONE = 1
    CA = 2
    CG = 3
    WB = 4
    CS = 5
    WT = 6
    CV = 7


class EvictionPolicy(TritonI32Enum):
    """Eviction policy of a load or store (``TT_EvictionPolicyAttr``)."""

    NORMAL = 1
    EVICT_FIRST = 2
    EVICT_LAST = 3

    @classmethod
    def _mnemonics(cls) -> Mapping[int, str]:
        return {1: "evict_normal", 2: "evict_first", 3: "evict_last"}


class PaddingOption(TritonI32Enum):
    """Padding of out-of-bounds block-pointer loads (``TT_PaddingOptionAttr``)."""

    PAD_ZERO = 1
    PAD_NAN = 2

    @classmethod
    def _mnemonics(cls) -> Mapping[int, str]:
        return {1: "zero", 2: "nan"}


class MemSemantic(TritonI32Enum):
    """Memory ordering of an atomic (``TT_MemSemanticAttr``)."""

    RELAXED = 1
    ACQUIRE = 2
    RELEASE = 3
    ACQUIRE_RELEASE = 4

    @classmethod
    def _mnemonics(cls) -> Mapping[int, str]:
        return {1: "relaxed", 2: "acquire", 3: "release", 4: "acq_rel"}


class RMWOp(TritonI32Enum):
    """The operation of a ``tt.atomic_rmw`` (``TT_AtomicRMWAttr``)."""

    AND = 1
    OR = 2
    XOR = 3
    ADD = 4
    FADD = 5
    MAX = 6
    MIN = 7
    UMAX = 8
    UMIN = 9
    XCHG = 10

    @classmethod
    def _mnemonics(cls) -> Mapping[int, str]:
        return {int(member): "exch" if member is RMWOp.XCHG else member.name.lower() for member in cls}


class DescriptorReduceKind(TritonI32Enum):
    """The reduction of a ``tt.descriptor_reduce`` (``TT_DescriptorReduceKindAttr``)."""

    ADD = 1
    MIN = 2
    MAX = 3
    INC = 4
    DEC = 5
    AND = 6
    OR = 7
    XOR = 8


class MemSyncScope(TritonI32Enum):
    """The synchronization scope of an atomic (``TT_MemSyncScopeAttr``)."""

    GPU = 1
    CTA = 2
    SYSTEM = 3

    @classmethod
    def _mnemonics(cls) -> Mapping[int, str]:
        return {1: "gpu", 2: "cta", 3: "sys"}


class ProgramIDDim(TritonI32Enum):
    """A grid axis of ``tt.get_program_id``/``tt.get_num_programs`` (``TT_ProgramDim``)."""

    X = 0
    Y = 1
    Z = 2


class RoundingMode(TritonI32Enum):
    """The rounding of a ``tt.fp_to_fp`` downcast (``TT_RoundingModeAttr``)."""

    RTZ = 0
    RTNE = 1


class PropagateNan(TritonI32Enum):
    """Whether ``tt.clampf`` propagates NaNs (``TT_PropagateNanAttr``)."""

    NONE = 0
    ALL = 0xFFFF


class InputPrecision(TritonI32Enum):
    """How ``tt.dot`` uses tensor cores on f32 inputs (``TT_InputPrecisionAttr``).

    The default of ``tt.dot`` is ``IEEE``, not the first member.
    """

    TF32 = 0
    TF32X3 = 1
    IEEE = 2
    BF16X3 = 3
    BF16X6 = 4


class ScaleDotElemType(TritonI32Enum):
    """The element type of a ``tt.dot_scaled`` operand (``TT_ScaleDotElemTypeAttr``)."""

    E4M3 = 0
    E5M2 = 1
    E2M3 = 2
    E3M2 = 3
    E2M1 = 4
    BF16 = 5
    FP16 = 6


def verify_enum_attr(attr: IntegerAttr[I32] | None, enum: type[TritonI32Enum], prop: str) -> None:
    """Raise unless ``attr`` is absent or holds a value of ``enum``."""
    if attr is not None and enum.from_attr(attr) is None:
        allowed = [int(member) for member in enum]
        raise VerifyException(
            f"property '{prop}' must be one of {allowed} ({enum.__name__}), got {attr.value.data}"
        )


EnumT = TypeVar("EnumT", bound=TritonI32Enum)


def enum_or_default(attr: IntegerAttr[I32] | None, default: EnumT) -> EnumT:
    """The member ``attr`` holds, or ``default`` when it is absent (or invalid)."""
    member = type(default).from_attr(attr)
    return default if member is None else member


def optional_enum_attr(
    value: TritonI32Enum | None, default: TritonI32Enum | None = None
) -> IntegerAttr | None:
    """``value`` as a property, or None when absent or at the property's default."""
    if value is None or value == default:
        return None
    return value.to_attr()


# ===----------------------------------------------------------------------=== #
# Types
# ===----------------------------------------------------------------------=== #


@irdl_attr_definition
class PointerType(ParametrizedAttribute, TypeAttribute):
    """A pointer into a Triton address space: ``!tt.ptr<f32>``, ``!tt.ptr<f16, 3>``.

    The pointee is a scalar type, or a ranked tensor for a block pointer
    (``!tt.ptr<tensor<128x64xf16>>``). The address space defaults to 1
    (global memory) and is only printed when it differs from it.

    Triton 3.9 names its address spaces instead: ``!tt.ptr<f32, "constant">``
    is the pointer a ``tl.const`` argument gets, which 3.6 typed as global.
    Behaving as 3.9 (``passviz.compilers.triton.version``), passviz reads and
    prints the names (the 3.6 numbers are read too); it keeps ``"constant"``
    as address space 4, the constant space's number in LLVM's NVPTX and
    AMDGPU targets, so that a module holds one kind of address space.
    """

    name = "tt.ptr"

    DEFAULT_ADDRESS_SPACE: ClassVar[int] = 1
    """The address space implied when none is written."""

    NAMED_ADDRESS_SPACES: ClassVar[Mapping[str, int]] = {"global": 1, "constant": 4}
    """Triton 3.9's address space names, and the numbers passviz keeps them as."""

    pointee_type: TypeAttribute
    """The type pointed to."""

    address_space: IntAttr
    """The address space number (1 is global memory)."""

    def __init__(
        self,
        pointee_type: TypeAttribute,
        address_space: int | IntAttr = DEFAULT_ADDRESS_SPACE,
    ):
        if isinstance(address_space, int):
            address_space = IntAttr(address_space)
        super().__init__(pointee_type, address_space)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[TypeAttribute, IntAttr]:
        with parser.in_angle_brackets():
            start = parser.pos
            pointee = parser.parse_type()
            scalar_or_tensor = isinstance(pointee, IntegerType | AnyFloat | TensorType)
            if triton_version() >= (3, 9) and not scalar_or_tensor:
                # Triton 3.9's PointerType::verify (block pointers, to tensors, are passviz's own).
                parser.raise_error(
                    "pointer types must point to integer or floating-point types", start, parser.pos
                )
            address_space = cls.DEFAULT_ADDRESS_SPACE
            if parser.parse_optional_punctuation(",") is not None:
                pos = parser.pos
                name = parser.parse_optional_str_literal() if triton_version() >= (3, 9) else None
                if name is None:
                    address_space = parser.parse_integer(allow_boolean=False, allow_negative=False)
                elif name in cls.NAMED_ADDRESS_SPACES:
                    address_space = cls.NAMED_ADDRESS_SPACES[name]
                else:
                    parser.raise_error(f"invalid pointer address space '{name}'", pos, parser.pos)
        return pointee, IntAttr(address_space)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.pointee_type)
            number = self.address_space.data
            if number == self.DEFAULT_ADDRESS_SPACE:
                return
            names = {value: name for name, value in self.NAMED_ADDRESS_SPACES.items()}
            if triton_version() >= (3, 9) and number in names:
                printer.print_string(f', "{names[number]}"')
                return
            # A number Triton 3.9 has no name for stays a number, as 3.6 writes it.
            printer.print_string(f", {number}")


@irdl_attr_definition
class TensorDescType(ParametrizedAttribute, TypeAttribute):
    """A tensor descriptor (a portable TMA descriptor): ``!tt.tensordesc<16x16xf16>``.

    Triton 3.6 spells it ``!tt.tensordesc<tensor<16x16xf16>>``, Triton 3.9
    ``!tt.tensordesc<16x16xf16>`` (and ``, #layout`` for a shared layout, kept
    here as the block type's encoding).  It is read and printed as the Triton
    passviz behaves as (``passviz.compilers.triton.version``) reads and prints
    it; behaving as 3.9, the 3.6 spelling is read too.  The
    block type may carry a signed or unsigned integer element type
    (``getSignlessBlockType`` drops it).
    """

    name = "tt.tensordesc"

    block_type: TensorType[Attribute]
    """The type of a block loaded or stored through the descriptor."""

    def __init__(self, block_type: TensorType[Attribute]):
        super().__init__(block_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[TensorType[Attribute]]:
        with parser.in_angle_brackets():
            pos = parser.pos
            if triton_version() < (3, 9) or current_token(parser).text == "tensor":
                block_type = parser.parse_type()
                if not isa(block_type, TensorType[Attribute]):
                    parser.raise_error(f"expected a ranked tensor type, got {block_type}", pos, parser.pos)
                return (block_type,)
            shape, element = parser.parse_ranked_shape()
            layout = parser.parse_attribute() if parser.parse_optional_punctuation(",") else NoneAttr()
        return (TensorType(element, shape, layout),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            if triton_version() < (3, 9):
                printer.print_attribute(self.block_type)
                return
            printer.print_list(self.block_type.get_shape(), lambda d: printer.print_string(str(d)), "x")
            printer.print_string("x")
            printer.print_attribute(self.block_type.get_element_type())
            if not isinstance(self.block_type.encoding, NoneAttr):
                printer.print_string(", ")
                printer.print_attribute(self.block_type.encoding)

    @property
    def signless_block_type(self) -> TensorType[Attribute]:
        """The block type with a signless integer element type (``getSignlessBlockType``)."""
        element = self.block_type.get_element_type()
        if not isinstance(element, IntegerType):
            return self.block_type
        signless = IntegerType(element.bitwidth)
        return with_element_type(self.block_type, signless)


@irdl_attr_definition
class CachePolicyAttr(ParametrizedAttribute):
    """Triton 3.9's cache hints of a load or store:
    ``#tt.cache_policy<cache_modifier = cg, eviction_policy = evict_last>``.

    Triton 3.9 puts it under ``cachePolicy`` in the op's attribute dictionary,
    where Triton 3.6 had the ``cache`` and ``evict`` enums.
    """

    name = "tt.cache_policy"

    cache_modifier: StringAttr
    """The cache modifier's keyword (``CacheModifier``): ``none``, ``ca``, ``cg``, ..."""
    eviction_policy: StringAttr
    """The eviction policy's keyword (``EvictionPolicy``): ``evict_normal``, ..."""

    def __init__(self, cache_modifier: CacheModifier, eviction_policy: EvictionPolicy):
        super().__init__(StringAttr(cache_modifier.mnemonic), StringAttr(eviction_policy.mnemonic))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[StringAttr, StringAttr]:
        enums: dict[str, type[TritonI32Enum]] = {
            "cache_modifier": CacheModifier,
            "eviction_policy": EvictionPolicy,
        }
        values: dict[str, str] = {}

        def parse_field() -> None:
            pos = parser.pos
            key = parser.parse_identifier()
            if key not in enums or key in values:
                expected = "expected cache_modifier or eviction_policy once"
                parser.raise_error(f"{expected}, got {key}", pos, parser.pos)
            parser.parse_punctuation("=")
            pos = parser.pos
            keyword = parser.parse_identifier()
            if enums[key].from_mnemonic(keyword) is None:
                parser.raise_error(f"{keyword} is not a {key}", pos, parser.pos)
            values[key] = keyword

        parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parse_field)
        missing = [key for key in enums if key not in values]
        if missing:
            parser.raise_error(f"#tt.cache_policy needs {missing[0]}")
        return StringAttr(values["cache_modifier"]), StringAttr(values["eviction_policy"])

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            f"<cache_modifier = {self.cache_modifier.data}, eviction_policy = {self.eviction_policy.data}>"
        )


FloatConstr = AnyFloatConstr
"""``TT_Float``: a floating-point scalar type."""

IntConstr = BaseAttr(IntegerType)
"""``TT_Int``: an integer scalar type."""

PtrConstr = BaseAttr(PointerType)
"""``TT_Ptr``: a ``!tt.ptr`` (block pointers included)."""

FloatLikeConstr = FloatConstr | TensorType.constr(FloatConstr)
"""``TT_FloatLike``: a float or a tensor of floats."""

IntLikeConstr = IntConstr | TensorType.constr(IntConstr)
"""``TT_IntLike``: an integer or a tensor of integers."""

PtrLikeConstr = PtrConstr | TensorType.constr(PtrConstr)
"""Constraint matching a pointer or a tensor of pointers (``TT_PtrLike``)."""

BoolLikeConstr = EqAttrConstraint(i1) | TensorType.constr(EqAttrConstraint(i1))
"""Constraint matching ``i1`` or a tensor of ``i1`` (``TT_BoolLike``)."""

I32LikeConstr = EqAttrConstraint(i32) | TensorType.constr(EqAttrConstraint(i32))
"""``TT_I32Like``: ``i32`` or a tensor of ``i32``."""

I64LikeConstr = EqAttrConstraint(i64) | TensorType.constr(EqAttrConstraint(i64))
"""``TT_I64Like``: ``i64`` or a tensor of ``i64``."""

TensorConstr = TensorType.constr(FloatConstr | IntConstr | PtrConstr)
"""``TT_Tensor``: a ranked tensor of floats, integers or pointers."""

FpIntTensorConstr = TensorType.constr(FloatConstr | IntConstr)
"""``TT_FpIntTensor``: a ranked tensor of floats or integers."""

IntTensorConstr = TensorType.constr(IntConstr)
"""``TT_IntTensor``: a ranked tensor of integers."""

TritonTypeConstr = FloatLikeConstr | IntLikeConstr | PtrLikeConstr
"""``TT_Type``: any type a Triton value may have (block pointers included)."""


def is_ptr_like(type_: Attribute) -> bool:
    """Whether ``type_`` is a ``!tt.ptr`` or a tensor of them."""
    return isinstance(type_, PointerType) or isa(type_, TensorType[PointerType])


def is_tensor_pointer_type(type_: Attribute) -> bool:
    """Whether ``type_`` is a block pointer ``!tt.ptr<tensor<...>>`` (``isTensorPointerType``)."""
    return isinstance(type_, PointerType) and isinstance(type_.pointee_type, TensorType)


def get_pointee_type(type_: Attribute) -> Attribute:
    """The type a load through ``type_`` yields (Triton's ``getPointeeType``).

    ``!tt.ptr<T>`` gives ``T``; a tensor of ``!tt.ptr<T>`` gives a tensor of
    ``T`` with the same shape and encoding. Any other type is returned as is.
    """
    if isinstance(type_, PointerType):
        return type_.pointee_type
    if isa(type_, TensorType[Attribute]):
        element = type_.get_element_type()
        if isinstance(element, PointerType):
            return TensorType(element.pointee_type, type_.get_shape(), type_.encoding)
    return type_


def get_i1_same_shape(type_: Attribute) -> Attribute:
    """``i1``, or a tensor of ``i1`` shaped like ``type_`` (``getI1SameShape``)."""
    if isa(type_, TensorType[Attribute]):
        return TensorType(i1, type_.get_shape(), type_.encoding)
    return i1


def get_pointer_type_same_shape(type_: Attribute) -> Attribute:
    """A global-memory pointer to ``type_``'s elements, shaped like it (``getPointerTypeSameShape``)."""
    if isa(type_, TensorType[Attribute]):
        element = type_.get_element_type()
        assert isinstance(element, TypeAttribute)
        return TensorType(PointerType(element), type_.get_shape(), type_.encoding)
    assert isinstance(type_, TypeAttribute)
    return PointerType(type_)


def element_type_or_self(type_: Attribute) -> Attribute:
    """The element type of a tensor, or ``type_`` itself (``getElementTypeOrSelf``)."""
    if isa(type_, TensorType[Attribute]):
        return type_.get_element_type()
    return type_


class LayoutEncoding:
    """A tensor encoding that infers the encodings of tt ops' results
    (Triton's ``DialectInferLayoutInterface``, which ``ttg`` implements).

    A method raises ``LayoutInferenceError`` where Triton's returns failure.
    """

    def reduce_encoding(self, axis: int) -> Attribute:
        """The encoding of a ``tt.reduce`` result along ``axis`` (``inferReduceOpEncoding``)."""
        raise LayoutInferenceError(f"{self} has no layout for a reduction")

    def expand_dims_encoding(self, axis: int) -> Attribute:
        """The encoding of a ``tt.expand_dims`` result at ``axis`` (``inferExpandDimsOpEncoding``)."""
        raise LayoutInferenceError(f"{self} has no layout for a new dimension")


class LayoutInferenceError(ValueError):
    """A tensor encoding that cannot give the result of an op (Triton's op error)."""


def inferred_encoding(
    type_: TensorType[Attribute], infer: Callable[[LayoutEncoding], Attribute]
) -> Attribute:
    """The result encoding that ``infer`` gives for ``type_``'s encoding.

    A tensor without encoding gives none; an encoding that is no
    ``LayoutEncoding`` (an attribute of a dialect passviz does not know) is kept.
    """
    if isinstance(type_.encoding, LayoutEncoding):
        return infer(type_.encoding)
    return type_.encoding


def encoding_of(type_: Attribute) -> Attribute | None:
    """The encoding of a ranked tensor type, or None when it has none."""
    if isa(type_, TensorType[Attribute]) and not isinstance(type_.encoding, NoneAttr):
        return type_.encoding
    return None


def shape_of(type_: Attribute) -> tuple[int, ...] | None:
    """The shape of a ranked tensor type; None for a scalar type."""
    if isa(type_, TensorType[Attribute]):
        return type_.get_shape()
    return None


def dims(type_: Attribute) -> tuple[int, ...]:
    """The shape of a ranked tensor type; ``()`` for a scalar type."""
    return shape_of(type_) or ()


def bit_width(type_: Attribute) -> int:
    """The bit width of an integer or float type (``getIntOrFloatBitWidth``); 0 otherwise."""
    if isinstance(type_, FixedBitwidthType):
        return type_.bitwidth
    return 0


def with_element_type(type_: TensorType[Attribute], element: Attribute) -> TensorType[Attribute]:
    """``type_`` with ``element`` as its element type (shape and encoding kept)."""
    return TensorType(element, type_.get_shape(), type_.encoding)


def with_shape(type_: TensorType[Attribute], shape: Sequence[int]) -> TensorType[Attribute]:
    """``type_`` with another shape (element type and encoding kept)."""
    return TensorType(type_.get_element_type(), shape, type_.encoding)


def scalar_or_tensor(type_: Attribute, element: Attribute) -> Attribute:
    """``element``, or a tensor of it shaped like ``type_`` when that is a tensor."""
    if isa(type_, TensorType[Attribute]):
        return with_element_type(type_, element)
    return element
