"""Triton's ``tt`` dialect, with the custom assembly syntax printed by Triton 3.6.

The module is laid out in sections, so that more ``tt`` ops can be added
next to their kin:

1. enums stored as ``i32`` integer attributes (cache modifier, ...);
2. types (``!tt.ptr``, ``!tt.tensordesc``), constraints and type helpers;
3. traits: memory resources and effects, MLIR's and Triton's verifier traits,
   folding and canonicalization hooks;
4. shared parse/print helpers for the Triton op syntax;
5. function ops: ``tt.func``, ``tt.call``, ``tt.return``;
6. memory ops: ``tt.load``, ``tt.store``, atomics and tensor descriptors;
7. pointer ops: ``tt.addptr``, ``tt.advance``, ``tt.make_tensor_ptr``, casts;
8. shape ops: ``tt.splat``, ``tt.broadcast``, ``tt.expand_dims``, ...;
9. SPMD ops: ``tt.get_program_id``, ``tt.get_num_programs``, ``tt.make_range``;
10. elementwise and math ops: ``tt.fp_to_fp``, ``tt.clampf``, ...;
11. ``tt.dot`` and ``tt.dot_scaled``;
12. ops with a combine region: ``tt.reduce``, ``tt.scan``, ``tt.map_elementwise``;
13. debug ops: ``tt.print``, ``tt.assert``;
14. the ``TT`` dialect object.

Printing follows MLIR's generated printers: an attr-dict is sorted by name
and leaves out properties at their ``DefaultValuedAttr`` default (a load's
``{cache = 1 : i32}`` prints as nothing, ``{cache = 2 : i32}`` as
``cacheModifier = ca``); a type the op's format names by class is printed
stripped of its dialect prefix (``tt.advance ... : <tensor<8xf32>>``), and
parsed with or without it. Properties written at their default are dropped
when parsing or building, as MLIR gives such an op the same properties as
one that leaves them out. ``tt.reduce``, ``tt.scan`` and
``tt.map_elementwise`` have no custom syntax and print in generic form.

Folders (xDSL's ``HasFolder``, through ``HasFolderInterface``) are those of
Triton's ``Ops.cpp``; canonicalization patterns live in
``passviz.dialects.tt_canonicalization`` and are attached to the ops that
have ``hasCanonicalizer``/``hasCanonicalizeMethod`` in ``TritonOps.td``.

Reference: ``include/triton/Dialect/Triton/IR/{TritonOps,TritonTypes,
TritonAttrDefs,TritonInterfaces}.td`` and ``lib/Dialect/Triton/IR/{Ops,
Traits,OpInterfaces}.cpp`` in triton-lang/triton at the 3.6 branch point
(``004d7f5f5``; its ``tt`` dialect is the one of the installed 3.6.0, which
still has the older descriptor verifiers). One check is stricter than 3.6:
a ``tt.reduce``/``tt.scan`` axis must be in range (Triton added that check
after 3.6), as inferring the result type needs it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from enum import IntEnum
from typing import ClassVar, Self, TypeVar, cast

from xdsl.dialect_interfaces.constant_materialization import ConstantMaterializationInterface
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    I32,
    AnyFloat,
    AnyFloatConstr,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FixedBitwidthType,
    FlatSymbolRefAttrConstr,
    Float8E4M3FNType,
    FloatAttr,
    FunctionType,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.interfaces import HasCanonicalizationPatternsInterface, HasFolderInterface
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Dialect,
    Operation,
    OpResult,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    BaseAttr,
    EqAttrConstraint,
    IRDLOperation,
    ParsePropInAttrDict,
    SameVariadicOperandSize,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.pattern_rewriter import RewritePattern
from xdsl.printer import Printer
from xdsl.traits import (
    ConditionallySpeculatable,
    ConstantLike,
    DefaultResource,
    EffectInstance,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    NoMemoryEffect,
    OpTrait,
    Pure,
    RecursiveMemoryEffect,
    Resource,
    ReturnLike,
    SymbolOpInterface,
    SymbolTable,
    SymbolUserOpInterface,
    get_effects,
)
from xdsl.utils.exceptions import VerifyException

from passviz.dialects.triton_version import triton_version
from passviz.ir.callables import FunctionTypeCallable
from passviz.ir.hints import isa

__all__ = [
    "TT",
    "AddPtrOp",
    "AdvanceOp",
    "AssertOp",
    "AtomicCASOp",
    "AtomicRMWOp",
    "BitcastOp",
    "BoolLikeConstr",
    "BroadcastOp",
    "CacheModifier",
    "CallOp",
    "CatOp",
    "ClampFOp",
    "DescriptorGatherOp",
    "DescriptorLoadOp",
    "DescriptorReduceKind",
    "DescriptorReduceOp",
    "DescriptorScatterOp",
    "DescriptorStoreOp",
    "DotOp",
    "DotScaledOp",
    "Elementwise",
    "ElementwiseInlineAsmOp",
    "EvictionPolicy",
    "ExpandDimsOp",
    "ExternElementwiseOp",
    "FloatLikeConstr",
    "FpToFpOp",
    "FuncOp",
    "GatherOp",
    "GetNumProgramsOp",
    "GetProgramIdOp",
    "GlobalMemory",
    "HistogramOp",
    "InputPrecision",
    "IntLikeConstr",
    "IntToPtrOp",
    "JoinOp",
    "LoadOp",
    "MakeRangeOp",
    "MakeTensorDescOp",
    "MakeTensorPtrOp",
    "MapElementwiseOp",
    "MapElementwiseReturnOp",
    "MemSemantic",
    "MemSyncScope",
    "MulhiUIOp",
    "PaddingOption",
    "PointerType",
    "PreciseDivFOp",
    "PreciseSqrtOp",
    "PrintOp",
    "ProgramIDDim",
    "PropagateNan",
    "PtrLikeConstr",
    "PtrToIntOp",
    "RMWOp",
    "ReduceOp",
    "ReduceReturnOp",
    "ReshapeOp",
    "ReturnOp",
    "RoundingMode",
    "SameLoadStoreOperandsAndResultEncoding",
    "SameLoadStoreOperandsAndResultShape",
    "SameLoadStoreOperandsEncoding",
    "SameLoadStoreOperandsShape",
    "SameOperandsAndResultElementType",
    "SameOperandsAndResultEncoding",
    "SameOperandsAndResultShape",
    "SameOperandsAndResultType",
    "SameOperandsEncoding",
    "SameOperandsShape",
    "SameTypeOperands",
    "ScaleDotElemType",
    "ScanOp",
    "ScanReturnOp",
    "SplatOp",
    "SplitOp",
    "StoreOp",
    "TTConstantMaterialization",
    "TensorDescType",
    "TensorSizeTrait",
    "TransOp",
    "TritonI32Enum",
    "TritonTypeConstr",
    "UnsplatOp",
    "get_i1_same_shape",
    "get_pointee_type",
    "get_pointer_type_same_shape",
    "is_ptr_like",
    "is_tensor_pointer_type",
]


# ===----------------------------------------------------------------------=== #
# 1. Enums stored as i32 integer attributes
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


def _verify_enum_attr(attr: IntegerAttr[I32] | None, enum: type[TritonI32Enum], prop: str) -> None:
    """Raise unless ``attr`` is absent or holds a value of ``enum``."""
    if attr is not None and enum.from_attr(attr) is None:
        allowed = [int(member) for member in enum]
        raise VerifyException(
            f"property '{prop}' must be one of {allowed} ({enum.__name__}), got {attr.value.data}"
        )


_EnumT = TypeVar("_EnumT", bound=TritonI32Enum)


def _enum_or_default(attr: IntegerAttr[I32] | None, default: _EnumT) -> _EnumT:
    """The member ``attr`` holds, or ``default`` when it is absent (or invalid)."""
    member = type(default).from_attr(attr)
    return default if member is None else member


def _optional_enum_attr(
    value: TritonI32Enum | None, default: TritonI32Enum | None = None
) -> IntegerAttr | None:
    """``value`` as a property, or None when absent or at the property's default."""
    if value is None or value == default:
        return None
    return value.to_attr()


# ===----------------------------------------------------------------------=== #
# 2. Types
# ===----------------------------------------------------------------------=== #


@irdl_attr_definition
class PointerType(ParametrizedAttribute, TypeAttribute):
    """A pointer into a Triton address space: ``!tt.ptr<f32>``, ``!tt.ptr<f16, 3>``.

    The pointee is a scalar type, or a ranked tensor for a block pointer
    (``!tt.ptr<tensor<128x64xf16>>``). The address space defaults to 1
    (global memory) and is only printed when it differs from it.

    Triton 3.9 names its address spaces instead: ``!tt.ptr<f32, "constant">``
    is the pointer a ``tl.const`` argument gets, which 3.6 typed as global.
    Behaving as 3.9 (``passviz.dialects.triton_version``), passviz reads and
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
            pointee = parser.parse_type()
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
    passviz behaves as (``passviz.dialects.triton_version``) reads and prints
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
            if triton_version() < (3, 9) or parser._current_token.text == "tensor":  # pyright: ignore[reportPrivateUsage]
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
        return _with_element_type(self.block_type, signless)


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


def _element_type(type_: Attribute) -> Attribute:
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


def _inferred_encoding(
    type_: TensorType[Attribute], infer: Callable[[LayoutEncoding], Attribute]
) -> Attribute:
    """The result encoding that ``infer`` gives for ``type_``'s encoding.

    A tensor without encoding gives none; an encoding that is no
    ``LayoutEncoding`` (an attribute of a dialect passviz does not know) is kept.
    """
    if isinstance(type_.encoding, LayoutEncoding):
        return infer(type_.encoding)
    return type_.encoding


def _encoding(type_: Attribute) -> Attribute | None:
    """The encoding of a ranked tensor type, or None when it has none."""
    if isa(type_, TensorType[Attribute]) and not isinstance(type_.encoding, NoneAttr):
        return type_.encoding
    return None


def _shape(type_: Attribute) -> tuple[int, ...] | None:
    """The shape of a ranked tensor type; None for a scalar type."""
    if isa(type_, TensorType[Attribute]):
        return type_.get_shape()
    return None


def _dims(type_: Attribute) -> tuple[int, ...]:
    """The shape of a ranked tensor type; ``()`` for a scalar type."""
    return _shape(type_) or ()


def _bit_width(type_: Attribute) -> int:
    """The bit width of an integer or float type (``getIntOrFloatBitWidth``); 0 otherwise."""
    if isinstance(type_, FixedBitwidthType):
        return type_.bitwidth
    return 0


def _with_element_type(type_: TensorType[Attribute], element: Attribute) -> TensorType[Attribute]:
    """``type_`` with ``element`` as its element type (shape and encoding kept)."""
    return TensorType(element, type_.get_shape(), type_.encoding)


def _with_shape(type_: TensorType[Attribute], shape: Sequence[int]) -> TensorType[Attribute]:
    """``type_`` with another shape (element type and encoding kept)."""
    return TensorType(type_.get_element_type(), shape, type_.encoding)


def _scalar_or_tensor(type_: Attribute, element: Attribute) -> Attribute:
    """``element``, or a tensor of it shaped like ``type_`` when that is a tensor."""
    if isa(type_, TensorType[Attribute]):
        return _with_element_type(type_, element)
    return element


# ===----------------------------------------------------------------------=== #
# 3. Traits
# ===----------------------------------------------------------------------=== #


@dataclass(frozen=True)
class GlobalMemory(Resource):
    """The GPU global memory, the resource Triton's memory ops act on."""

    def name(self) -> str:
        return "::mlir::triton::GlobalMemory"


class LoadOpMemoryEffect(MemoryEffect):
    """A ``tt.load`` reads global memory through its pointer.

    A volatile load also reports a write, so that it is neither removed nor
    merged with another load (as Triton's ``LoadOp::getEffects`` does).
    """

    @classmethod
    def get_effects(cls, op: Operation) -> Set[EffectInstance]:
        assert isinstance(op, LoadOp)
        effects = {EffectInstance(MemoryEffectKind.READ, op.ptr, GlobalMemory())}
        if op.is_volatile_flag:
            effects.add(EffectInstance(MemoryEffectKind.WRITE, None, DefaultResource()))
        return effects


class StoreOpMemoryEffect(MemoryEffect):
    """A ``tt.store`` writes global memory through its pointer."""

    @classmethod
    def get_effects(cls, op: Operation) -> Set[EffectInstance]:
        assert isinstance(op, StoreOp)
        return {EffectInstance(MemoryEffectKind.WRITE, op.ptr, GlobalMemory())}


class FirstOperandReadWriteEffect(MemoryEffect):
    """Reads and writes global memory through the first operand (atomics,
    descriptor stores: ``Arg<..., [MemRead<GlobalMemory>, MemWrite<GlobalMemory>]>``)."""

    @classmethod
    def get_effects(cls, op: Operation) -> Set[EffectInstance]:
        target = op.operands[0]
        return {
            EffectInstance(MemoryEffectKind.READ, target, GlobalMemory()),
            EffectInstance(MemoryEffectKind.WRITE, target, GlobalMemory()),
        }


class FirstOperandReadEffect(MemoryEffect):
    """Reads global memory through the first operand (descriptor loads and gathers)."""

    @classmethod
    def get_effects(cls, op: Operation) -> Set[EffectInstance]:
        return {EffectInstance(MemoryEffectKind.READ, op.operands[0], GlobalMemory())}


class GlobalMemoryWriteEffect(MemoryEffect):
    """Writes global memory, through no value (``MemoryEffects<[MemWrite<GlobalMemory>]>``
    of ``tt.print`` and ``tt.assert``)."""

    @classmethod
    def get_effects(cls, op: Operation) -> Set[EffectInstance]:
        return {EffectInstance(MemoryEffectKind.WRITE, None, GlobalMemory())}


class PureUnlessImpureEffect(MemoryEffect):
    """No effect when the op's ``pure`` property is true, else an unknown read
    and write (``getEffects`` of ``tt.extern_elementwise``/``tt.elementwise_inline_asm``)."""

    @classmethod
    def get_effects(cls, op: Operation) -> Set[EffectInstance]:
        if _is_pure_flagged(op):
            return set()
        return {EffectInstance(MemoryEffectKind.WRITE), EffectInstance(MemoryEffectKind.READ)}


class SpeculatableIfPure(ConditionallySpeculatable):
    """Speculatable exactly when the op's ``pure`` property is true."""

    @classmethod
    def is_speculatable(cls, op: Operation) -> bool:
        return _is_pure_flagged(op)


def _is_pure_flagged(op: Operation) -> bool:
    """Whether ``op``'s ``pure`` property is set to true."""
    flag = op.properties.get("pure")
    return isinstance(flag, IntegerAttr) and bool(flag.value.data)


def _op_error(op: Operation, message: str) -> VerifyException:
    """A verifier error in MLIR's ``emitOpError`` wording: ``'tt.x' op message``."""
    return VerifyException(f"'{op.name}' op {message}")


def _need_operands_and_results(op: Operation, operands: bool = True, results: bool = True) -> None:
    """MLIR's ``verifyAtLeastNOperands(op, 1)``/``verifyAtLeastNResults(op, 1)``."""
    if operands and not op.operands:
        raise _op_error(op, "expected 1 or more operands, but found 0")
    if results and not op.results:
        raise _op_error(op, "expected 1 or more results, but found 0")


def _compatible_shape(lhs: Attribute, rhs: Attribute) -> bool:
    """MLIR's ``verifyCompatibleShape`` on two types (scalars have no shape)."""
    lhs_shape, rhs_shape = _shape(lhs), _shape(rhs)
    if lhs_shape is None or rhs_shape is None:
        return lhs_shape is None and rhs_shape is None
    if len(lhs_shape) != len(rhs_shape):
        return False
    return all(a == b or a < 0 or b < 0 for a, b in zip(lhs_shape, rhs_shape, strict=True))


@dataclass(frozen=True)
class Elementwise(OpTrait):
    """MLIR's ``OpTrait::Elementwise``: the op maps scalars to scalars, element by element.

    Passes look for it (``triton-reorder-broadcast`` moves such ops across
    ``tt.broadcast``/``tt.splat``). Its verifier is MLIR's ``verifyElementwise``:
    tensor operands and results all have one shape, and the op takes a tensor
    exactly when it yields one.
    """

    def verify(self, op: Operation) -> None:
        operand_shapes = [t for t in op.operand_types if _shape(t) is not None]
        result_shapes = [t for t in op.result_types if _shape(t) is not None]
        if not operand_shapes and not result_shapes:
            return
        if not operand_shapes:
            raise _op_error(op, "if a result is non-scalar, then at least one operand must be non-scalar")
        if not result_shapes:
            raise _op_error(
                op, "if an operand is non-scalar, then there must be at least one non-scalar result"
            )
        if len(result_shapes) != len(op.results):
            raise _op_error(op, "if an operand is non-scalar, then all results must be non-scalar")
        first = operand_shapes[0]
        if not all(_compatible_shape(first, t) for t in (*operand_shapes, *result_shapes)):
            raise _op_error(op, "all non-scalar operands/results must have the same shape and base type")


@dataclass(frozen=True)
class SameOperandsShape(OpTrait):
    """MLIR's ``SameOperandsShape``: all operands have one shape (or are all scalars)."""

    def verify(self, op: Operation) -> None:
        _need_operands_and_results(op, results=False)
        first = op.operand_types[0]
        if not all(_compatible_shape(first, t) for t in op.operand_types[1:]):
            raise _op_error(op, "requires the same shape for all operands")


@dataclass(frozen=True)
class SameOperandsAndResultShape(OpTrait):
    """MLIR's ``SameOperandsAndResultShape``: operands and results share one shape."""

    def verify(self, op: Operation) -> None:
        _need_operands_and_results(op)
        first = op.operand_types[0]
        if not all(_compatible_shape(first, t) for t in (*op.result_types, *op.operand_types[1:])):
            raise _op_error(op, "requires the same shape for all operands and results")


@dataclass(frozen=True)
class SameOperandsAndResultElementType(OpTrait):
    """MLIR's ``SameOperandsAndResultElementType``."""

    def verify(self, op: Operation) -> None:
        _need_operands_and_results(op)
        element = _element_type(op.result_types[0])
        if any(_element_type(t) != element for t in (*op.result_types[1:], *op.operand_types)):
            raise _op_error(op, "requires the same element type for all operands and results")


@dataclass(frozen=True)
class SameOperandsAndResultType(OpTrait):
    """MLIR's ``SameOperandsAndResultType`` (element type, shape and encoding)."""

    def verify(self, op: Operation) -> None:
        _need_operands_and_results(op)
        first = op.result_types[0]
        for type_ in (*op.result_types[1:], *op.operand_types):
            if _element_type(type_) != _element_type(first) or not _compatible_shape(type_, first):
                raise _op_error(op, "requires the same type for all operands and results")
            if _encoding(first) is not None and _encoding(type_) != _encoding(first):
                raise _op_error(op, "requires the same encoding for all operands and results")


@dataclass(frozen=True)
class SameTypeOperands(OpTrait):
    """MLIR's ``SameTypeOperands``: all operands have the same type."""

    def verify(self, op: Operation) -> None:
        if any(t != op.operand_types[0] for t in op.operand_types[1:]):
            raise _op_error(op, "requires all operands to have the same type")


def _same_encoding(lhs: Attribute, rhs: Attribute) -> bool:
    """Triton's ``verifySameEncoding``: equal encodings, or one side has none."""
    lhs_encoding, rhs_encoding = _encoding(lhs), _encoding(rhs)
    return lhs_encoding is None or rhs_encoding is None or lhs_encoding == rhs_encoding


@dataclass(frozen=True)
class SameOperandsEncoding(OpTrait):
    """Triton's ``SameOperandsEncoding``: the operands' tensor encodings agree."""

    def verify(self, op: Operation) -> None:
        _need_operands_and_results(op, results=False)
        first = op.operand_types[0]
        if not all(_same_encoding(t, first) for t in op.operand_types[1:]):
            raise _op_error(op, "requires the same encoding for all operands")


@dataclass(frozen=True)
class SameOperandsAndResultEncoding(OpTrait):
    """Triton's ``SameOperandsAndResultEncoding``: operand and result encodings agree.

    An op without operands passes, as in Triton.
    """

    def verify(self, op: Operation) -> None:
        if not op.operands:
            return
        _need_operands_and_results(op)
        first = op.operand_types[0]
        if not all(_same_encoding(t, first) for t in op.result_types):
            raise _op_error(op, "requires the same encoding for all operands and results")
        SameOperandsEncoding().verify(op)


# Block pointers are their own shape here: Triton's ``getTypeShape`` reads a
# ``!tt.ptr<tensor<...>>`` as the tensor's shape.
def _load_store_shape(type_: Attribute) -> tuple[int, ...]:
    if isinstance(type_, PointerType):
        type_ = type_.pointee_type
    return _dims(type_)


@dataclass(frozen=True)
class SameLoadStoreOperandsShape(OpTrait):
    """Triton's ``SameLoadStoreOperandsShape`` (a block pointer has its block's shape)."""

    def verify(self, op: Operation) -> None:
        _need_operands_and_results(op, results=False)
        first = _load_store_shape(op.operand_types[0])
        if any(_load_store_shape(t) != first for t in op.operand_types[1:]):
            raise _op_error(op, "requires the same shape for all operands")


@dataclass(frozen=True)
class SameLoadStoreOperandsAndResultShape(OpTrait):
    """Triton's ``SameLoadStoreOperandsAndResultShape``."""

    def verify(self, op: Operation) -> None:
        _need_operands_and_results(op)
        first = _load_store_shape(op.operand_types[0])
        if any(_load_store_shape(t) != first for t in op.result_types):
            raise _op_error(op, "requires the same shape for all operands and results")
        SameLoadStoreOperandsShape().verify(op)


@dataclass(frozen=True)
class SameLoadStoreOperandsEncoding(OpTrait):
    """Triton's ``SameLoadStoreOperandsEncoding`` (block pointers have no encoding)."""

    def verify(self, op: Operation) -> None:
        SameOperandsEncoding().verify(op)


@dataclass(frozen=True)
class SameLoadStoreOperandsAndResultEncoding(OpTrait):
    """Triton's ``SameLoadStoreOperandsAndResultEncoding``."""

    def verify(self, op: Operation) -> None:
        SameOperandsAndResultEncoding().verify(op)


MAX_TENSOR_NUM_ELEMENTS = 1048576
"""The most elements a Triton tensor may have (``maxTensorNumElements``)."""


@dataclass(frozen=True)
class TensorSizeTrait(OpTrait):
    """Triton's ``TensorSizeTrait``, on every ``tt`` op: each tensor operand and
    result has a power-of-two number of elements, at most ``MAX_TENSOR_NUM_ELEMENTS``."""

    def verify(self, op: Operation) -> None:
        for type_ in (*op.operand_types, *op.result_types):
            shape = _shape(type_)
            if shape is None:
                continue
            count = math.prod(shape)
            if count > MAX_TENSOR_NUM_ELEMENTS:
                raise VerifyException(
                    f"Maximum allowed number of elements is {MAX_TENSOR_NUM_ELEMENTS}, "
                    f"but '{op.name}' has more than that ({type_})"
                )
            if count & (count - 1):
                raise VerifyException(
                    f"Number of elements must be power-of-two, but '{op.name}' "
                    f"doesn't follow the rule ({count} elements in {type_})"
                )


class TTCanonicalizationPatterns(HasCanonicalizationPatternsInterface):
    """An op with canonicalization patterns (``hasCanonicalizer``/``hasCanonicalizeMethod``).

    The patterns live in ``passviz.dialects.tt_canonicalization``, imported
    when first asked for (it imports this module).
    """

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        from passviz.dialects import tt_canonicalization

        return tt_canonicalization.patterns_for(cls.name)


def _verify_inferred_types(op: Operation, inferred: Sequence[Attribute]) -> None:
    """MLIR's ``InferTypeOpInterface`` check: the result types are the inferred ones."""
    actual = tuple(op.result_types)
    if tuple(inferred) != actual:
        raise _op_error(
            op,
            f"inferred type(s) {_quoted(inferred)} are incompatible with "
            f"return type(s) of operation {_quoted(actual)}",
        )


def _quoted(types: Iterable[Attribute]) -> str:
    """Types as MLIR's diagnostics list them: ``'f32', 'i32'``."""
    return ", ".join(f"'{t}'" for t in types)


# ===----------------------------------------------------------------------=== #
# Constants: what folders read and make
# ===----------------------------------------------------------------------=== #


def _constant_value(value: SSAValue) -> Attribute | None:
    """The attribute of the constant defining ``value`` (MLIR's folder adaptor), or None."""
    owner = value.owner
    if not isinstance(owner, Operation) or not owner.has_trait(ConstantLike, value_if_unregistered=False):
        return None
    return ConstantLike.get_constant_value(value)


def _splat_value(attr: Attribute | None) -> Attribute | None:
    """The element (an ``IntegerAttr`` or ``FloatAttr``) of a splat dense
    attribute (``SplatElementsAttr``), or None."""
    if not isinstance(attr, DenseIntOrFPElementsAttr) or not attr.is_splat():
        return None
    return next(iter(attr.iter_attrs()), None)


def _int_value(attr: Attribute | None) -> int | None:
    """An integer constant or integer splat's value (``m_ConstantInt``), or None."""
    if not isinstance(attr, IntegerAttr):
        attr = _splat_value(attr)
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    return None


def _splat_of(type_: Attribute, element: Attribute) -> Attribute | None:
    """A dense splat of tensor type ``type_`` holding ``element``'s value (an
    ``IntegerAttr`` or ``FloatAttr``), or None if the types do not fit."""
    if not isa(type_, TensorType[Attribute]):
        return None
    element_type = type_.get_element_type()
    if isinstance(element, IntegerAttr) and isinstance(element_type, IntegerType | IndexType):
        int_type = cast(TensorType[IntegerType], type_)
        return DenseIntOrFPElementsAttr.from_list(int_type, [element.value.data])
    if isinstance(element, FloatAttr) and isinstance(element_type, AnyFloat):
        float_type = cast(TensorType[AnyFloat], type_)
        return DenseIntOrFPElementsAttr.from_list(float_type, [element.value.data])
    return None


def _fold_view_like(value: Attribute | None, result_type: Attribute) -> Attribute | None:
    """Triton's ``foldViewLikeOp``: a dense constant with the view's result type."""
    if (element := _splat_value(value)) is not None:
        return _splat_of(result_type, element)
    if not isinstance(value, DenseIntOrFPElementsAttr) or not isa(result_type, TensorType[Attribute]):
        return None
    return DenseIntOrFPElementsAttr.new((result_type, value.data))


class TTConstantMaterialization(ConstantMaterializationInterface):
    """Folded ``tt`` values become ``arith.constant``s (``TritonDialect::materializeConstant``)."""

    def materialize_constant(self, value: Attribute, type: Attribute) -> Operation | None:
        if not _is_constant_value(value):
            return None
        return arith.ConstantOp.build(properties={"value": value}, result_types=[type])


def _is_constant_value(value: Attribute | None) -> bool:
    """Whether ``value`` is what ``arith.constant`` holds (an integer, float or dense)."""
    return isinstance(value, IntegerAttr | FloatAttr | DenseIntOrFPElementsAttr)


# ===----------------------------------------------------------------------=== #
# 4. Shared parse/print helpers
# ===----------------------------------------------------------------------=== #


def _parse_attr_dict_into_properties(
    parser: Parser,
    property_names: Sequence[str],
    properties: dict[str, Attribute],
) -> dict[str, Attribute]:
    """Parse an optional ``{...}`` attr-dict, as MLIR does for inherent attributes.

    Entries named in ``property_names`` go into ``properties`` (an entry already
    set there, e.g. by an ``oilist`` keyword, is an error); the rest are
    returned as discardable attributes.
    """
    attributes: dict[str, Attribute] = {}
    for name, value in parser.parse_optional_attr_dict().items():
        if name not in property_names:
            attributes[name] = value
        elif name in properties:
            parser.raise_error(f"'{name}' is given twice")
        else:
            properties[name] = value
    return attributes


def _print_attr_dict_with_properties(
    printer: Printer,
    op: Operation,
    property_names: Sequence[str],
    elided: Set[str] = frozenset(),
    defaults: Mapping[str, Attribute] | None = None,
) -> None:
    """Print ``op``'s attr-dict: the named properties plus discardable attributes.

    Like MLIR's, the dictionary is sorted by name; ``elided`` names are left
    out, and so are properties equal to their entry in ``defaults``.
    """
    defaults = defaults or {}
    entries: dict[str, Attribute] = {
        name: value
        for name in property_names
        if name not in elided
        and (value := op.properties.get(name)) is not None
        and defaults.get(name) != value
    }
    entries |= {k: v for k, v in op.attributes.items() if k not in entries}
    printer.print_op_attributes(dict(sorted(entries.items())))


def _without_defaults(
    properties: Mapping[str, Attribute | None], defaults: Mapping[str, Attribute]
) -> dict[str, Attribute]:
    """``properties`` less the absent ones and those at their default.

    MLIR fills a ``DefaultValuedAttr`` left out with its default, so an op
    spelling the default and one leaving it out are the same op; passviz keeps
    both without the property.
    """
    return {
        name: value for name, value in properties.items() if value is not None and defaults.get(name) != value
    }


def _parse_enum(parser: Parser, enum: type[_EnumT], what: str) -> _EnumT:
    """A member of ``enum`` written as its keyword or as a string (MLIR's enum syntax)."""
    pos = parser.pos
    word = parser.parse_optional_identifier_or_str_literal()
    member = None if word is None else enum.from_mnemonic(word)
    if member is None:
        allowed = ", ".join(m.mnemonic for m in enum)
        got = "nothing" if word is None else f"'{word}'"
        parser.raise_error(
            f"expected one of {allowed} for '{what}', got {got}", pos, max(parser.pos, pos + 1)
        )
    return member


def _parse_oilist_enums(
    parser: Parser,
    clauses: Mapping[str, tuple[str, type[TritonI32Enum]]],
    properties: dict[str, Attribute],
) -> None:
    """Parse an ``oilist`` of ``keyword = mnemonic`` clauses, in any order.

    ``clauses`` maps each keyword (``cacheModifier``) to the property it sets
    (``cache``) and the enum spelling its values.
    """
    while (keyword := parser.parse_optional_keyword_in(clauses.keys())) is not None:
        prop, enum = clauses[keyword]
        if prop in properties:
            parser.raise_error(f"'{keyword}' is given twice")
        parser.parse_punctuation("=")
        properties[prop] = _parse_enum(parser, enum, keyword).to_attr()


def _print_oilist_enums(
    printer: Printer,
    op: Operation,
    clauses: Mapping[str, tuple[str, type[TritonI32Enum]]],
) -> set[str]:
    """Print the ``oilist`` clauses whose properties hold non-default values.

    The first member of each enum is its default, which Triton never prints
    (in the clause nor in the attr-dict). Returns the names of the properties
    handled here, which the attr-dict leaves out.
    """
    handled: set[str] = set()
    for keyword, (prop, enum) in clauses.items():
        value = op.properties.get(prop)
        if not isa(value, IntegerAttr[I32]):
            continue
        member = enum.from_attr(value)
        if member is None:
            continue
        handled.add(prop)
        if member != enum.default():
            printer.print_string(f" {keyword} = {member.mnemonic}")
    return handled


def _in_order(properties: Mapping[str, Attribute], order: Sequence[str]) -> dict[str, Attribute]:
    """``properties`` ordered as ``order`` lists them (for a stable generic form)."""
    return {name: properties[name] for name in order if name in properties}


def _ptr_like_type_or_error(parser: Parser, pos: int, type_: Attribute) -> None:
    """Raise a parse error at ``pos`` unless ``type_`` is pointer-like."""
    if not is_ptr_like(type_):
        parser.raise_error(f"expected !tt.ptr or a tensor of !tt.ptr, got {type_}", pos)


_TypeT = TypeVar("_TypeT", bound=ParametrizedAttribute)


def _parse_type_of(parser: Parser, type_cls: type[_TypeT], what: str) -> _TypeT:
    """A type of class ``type_cls``, written in full (``!tt.ptr<f32>``) or stripped
    of its dialect prefix (``<f32>``), as MLIR prints a type an op format names by class."""
    pos = parser.pos
    type_ = parser.parse_optional_type()
    if type_ is None:
        type_ = type_cls.new(type_cls.parse_parameters(parser))
    if not isinstance(type_, type_cls):
        parser.raise_error(f"expected {what}, got {type_}", pos, parser.pos)
    return type_


def _print_stripped_type(printer: Printer, type_: Attribute) -> None:
    """Print a dialect type without its ``!dialect.name`` prefix (``<tensor<8xf32>>``)."""
    if isinstance(type_, ParametrizedAttribute) and not type_.name.startswith("builtin."):
        type_.print_parameters(printer)
        return
    printer.print_attribute(type_)


def _parse_tensor_type(parser: Parser, what: str = "a ranked tensor type") -> TensorType[Attribute]:
    """A ranked tensor type, or a parse error at it."""
    pos = parser.pos
    type_ = parser.parse_type()
    if not isa(type_, TensorType[Attribute]):
        parser.raise_error(f"expected {what}, got {type_}", pos, parser.pos)
    return type_


def _parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    """Zero or more comma-separated operands, undelimited (a variadic ``$operands``)."""
    operands = parser.parse_optional_undelimited_comma_separated_list(
        parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
    )
    return operands or []


def _parse_bracketed_operands(parser: Parser) -> list[UnresolvedOperand]:
    """``[%a, %b]``: a variadic operand group in square brackets."""
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)


def _parse_type_list(parser: Parser) -> list[Attribute]:
    """One or more comma-separated types, undelimited."""
    return parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)


def _resolve(
    parser: Parser, operands: Sequence[UnresolvedOperand], types: Sequence[Attribute], pos: int
) -> list[SSAValue]:
    """Resolve ``operands`` to ``types``; a count mismatch is a parse error at ``pos``."""
    return list(parser.resolve_operands(operands, types, pos))


def _parse_functional_type(
    parser: Parser, operand_count: int, pos: int
) -> tuple[tuple[Attribute, ...], tuple[Attribute, ...]]:
    """``functional-type(operands, results)``: ``(a, b) -> r``, with ``operand_count`` inputs."""
    function_type = parser.parse_function_type()
    inputs, outputs = function_type.inputs.data, function_type.outputs.data
    if len(inputs) != operand_count:
        parser.raise_error(f"expected {operand_count} operand types, got {len(inputs)}", pos, parser.pos)
    return inputs, outputs


def _print_operands(printer: Printer, values: Iterable[SSAValue]) -> None:
    """Print ``%a, %b``."""
    printer.print_list(values, printer.print_operand)


def _print_types(printer: Printer, types: Iterable[Attribute]) -> None:
    """Print ``t1, t2``."""
    printer.print_list(types, printer.print_attribute)


_LOAD_STORE_OILIST: Mapping[str, tuple[str, type[TritonI32Enum]]] = {
    "cacheModifier": ("cache", CacheModifier),
    "evictionPolicy": ("evict", EvictionPolicy),
}
"""The ``oilist`` of ``tt.load``/``tt.store``: keyword to (property, enum)."""


class _SrcToResultSyntax:
    """``$src attr-dict : type($src) -> type($result)``, the syntax of most of
    Triton's one-operand ops; ``_ATTR_DICT_PROPERTIES`` names the properties
    written in the attr-dict (``axis``, ``order``, ...)."""

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ()
    """Properties that may be written in the attr-dict, sorted by name."""

    _PROPERTY_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {}
    """Properties left out of the attr-dict at these values (``DefaultValuedAttr``)."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        unresolved = parser.parse_unresolved_operand()
        properties: dict[str, Attribute] = {}
        attributes = _parse_attr_dict_into_properties(parser, cls._ATTR_DICT_PROPERTIES, properties)
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        src = parser.resolve_operand(unresolved, src_type)
        op_cls = cast(type[IRDLOperation], cls)
        op = op_cls.build(
            operands=[src],
            result_types=[result_type],
            properties=_without_defaults(
                _in_order(properties, cls._ATTR_DICT_PROPERTIES), cls._PROPERTY_DEFAULTS
            ),
            attributes=attributes,
        )
        return cast(Self, op)

    def print(self, printer: Printer) -> None:
        op = cast(IRDLOperation, self)
        src, result = op.operands[0], op.results[0]
        printer.print_string(" ")
        printer.print_operand(src)
        _print_attr_dict_with_properties(
            printer, op, self._ATTR_DICT_PROPERTIES, defaults=self._PROPERTY_DEFAULTS
        )
        printer.print_string(" : ")
        printer.print_attribute(src.type)
        printer.print_string(" -> ")
        printer.print_attribute(result.type)


class _SameTypeSyntax:
    """``$x (, $y)* attr-dict : type($x)``: ops whose operands and result share one type."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        unresolved = _parse_operand_list(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        operands = [parser.resolve_operand(u, type_) for u in unresolved]
        op = cast(type[IRDLOperation], cls).build(
            operands=operands, result_types=[type_], attributes=attributes
        )
        return cast(Self, op)

    def print(self, printer: Printer) -> None:
        op = cast(IRDLOperation, self)
        printer.print_string(" ")
        _print_operands(printer, op.operands)
        _print_attr_dict_with_properties(printer, op, ())
        printer.print_string(" : ")
        printer.print_attribute(op.operands[0].type)


# ===----------------------------------------------------------------------=== #
# 5. Function ops
# ===----------------------------------------------------------------------=== #


class CallOpSymbolUserOpInterface(SymbolUserOpInterface):
    """``tt.call`` must name a ``tt.func`` whose type matches the call."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, CallOp)
        callee = SymbolTable.lookup_symbol(op, op.callee)
        if callee is None:
            raise VerifyException(f"'{op.callee}' could not be found in symbol table")
        if not isinstance(callee, FuncOp):
            raise VerifyException(f"'{op.callee}' does not reference a valid function")
        fn_type = callee.function_type
        if len(fn_type.inputs) != len(op.arguments):
            raise VerifyException("incorrect number of operands for callee")
        for i, (expected, arg) in enumerate(zip(fn_type.inputs, op.arguments, strict=True)):
            if expected != arg.type:
                raise VerifyException(
                    f"operand type mismatch: expected operand type {expected}, "
                    f"but provided {arg.type} for operand number {i}"
                )
        if len(fn_type.outputs) != len(op.res):
            raise VerifyException("incorrect number of results for callee")
        for i, (expected, res) in enumerate(zip(fn_type.outputs, op.res, strict=True)):
            if expected != res.type:
                raise VerifyException(
                    f"result type mismatch at index {i}: expected result type "
                    f"{expected}, but provided {res.type}"
                )


@irdl_op_definition
class FuncOp(IRDLOperation):
    """A Triton function (``tt.func``), spelled and behaving like ``func.func``.

    ``tt.func @f(%a: i32) -> i32 {...}``, ``tt.func public @k(...)``, and
    ``tt.func private @decl(i32) -> i32`` for a declaration without body.
    """

    name = "tt.func"

    body = region_def()
    """The body; empty for an external declaration."""

    sym_name = prop_def(SymbolNameConstraint())
    """The symbol name of the function."""

    function_type = prop_def(FunctionType)
    """The signature."""

    sym_visibility = opt_prop_def(StringAttr)
    """``public``, ``private`` or ``nested``; absent means public."""

    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    """Per-argument attribute dictionaries (e.g. ``tt.divisibility``)."""

    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    """Per-result attribute dictionaries."""

    traits = traits_def(
        IsolatedFromAbove(),
        SymbolOpInterface(),
        FunctionTypeCallable(),
        HasParent(ModuleOp),
        TensorSizeTrait(),
    )

    _RESERVED_ATTR_NAMES: ClassVar[tuple[str, ...]] = (
        "sym_name",
        "function_type",
        "sym_visibility",
        "arg_attrs",
        "res_attrs",
    )

    def __init__(
        self,
        name: str,
        function_type: FunctionType | tuple[Sequence[Attribute], Sequence[Attribute]],
        region: Region | type[Region.DEFAULT] = Region.DEFAULT,
        visibility: StringAttr | str | None = None,
        *,
        arg_attrs: ArrayAttr[DictionaryAttr] | None = None,
        res_attrs: ArrayAttr[DictionaryAttr] | None = None,
    ):
        if isinstance(visibility, str):
            visibility = StringAttr(visibility)
        if isinstance(function_type, tuple):
            inputs, outputs = function_type
            function_type = FunctionType.from_lists(inputs, outputs)
        if not isinstance(region, Region):
            region = Region(Block(arg_types=function_type.inputs))
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "function_type": function_type,
                "sym_visibility": visibility,
                "arg_attrs": arg_attrs,
                "res_attrs": res_attrs,
            },
            regions=[region],
        )

    @staticmethod
    def external(name: str, input_types: Sequence[Attribute], return_types: Sequence[Attribute]) -> FuncOp:
        """A private declaration ``tt.func private @name(...)`` without body."""
        return FuncOp(name, (input_types, return_types), Region(), "private")

    @property
    def is_declaration(self) -> bool:
        """Whether this is an external declaration (an empty body)."""
        return not self.body.blocks

    @property
    def args(self) -> tuple[BlockArgument, ...]:
        """The entry block arguments; a declaration has none to give."""
        assert not self.is_declaration, "Function declarations have no arguments"
        block = self.body.blocks.first
        assert block is not None
        return block.args

    def get_return_op(self) -> ReturnOp | None:
        """The ``tt.return`` ending the last block, if there is one."""
        last_block = self.body.blocks.last
        if last_block is None:
            return None
        last_op = last_block.last_op
        return last_op if isinstance(last_op, ReturnOp) else None

    def verify_(self) -> None:
        entry = self.body.blocks.first
        if entry is None:
            return
        if self.function_type.inputs.data != tuple(entry.arg_types):
            raise VerifyException(
                "Expected entry block arguments to have the same types as the function input types"
            )

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        visibility = parser.parse_optional_visibility_keyword()
        (
            name,
            input_types,
            return_types,
            region,
            extra_attrs,
            arg_attrs,
            res_attrs,
        ) = parse_func_op_like(parser, reserved_attr_names=cls._RESERVED_ATTR_NAMES)
        func = cls(
            name,
            (input_types, return_types),
            region,
            visibility,
            arg_attrs=arg_attrs,
            res_attrs=res_attrs,
        )
        if extra_attrs is not None:
            func.attributes |= extra_attrs.data
        return func

    def print(self, printer: Printer) -> None:
        if self.sym_visibility is not None:
            printer.print_string(f" {self.sym_visibility.data}")
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.attributes,
            arg_attrs=self.arg_attrs,
            res_attrs=self.res_attrs,
            reserved_attr_names=self._RESERVED_ATTR_NAMES,
            print_empty_outputs=False,
        )


@irdl_op_definition
class CallOp(IRDLOperation):
    """A direct call of a ``tt.func``.

    ``%r = tt.call @f(%a, %b) : (i32, i32) -> i32``, spelled like ``func.call``.
    """

    name = "tt.call"

    arguments = var_operand_def()
    """The call arguments (Triton's ``operands``)."""

    callee = prop_def(FlatSymbolRefAttrConstr)
    """The called function."""

    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    """Per-argument attribute dictionaries."""

    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    """Per-result attribute dictionaries."""

    res = var_result_def()
    """The call results."""

    traits = traits_def(CallOpSymbolUserOpInterface(), TensorSizeTrait())

    irdl_options = (ParsePropInAttrDict(),)

    assembly_format = "$callee `(` $arguments `)` attr-dict `:` functional-type($arguments, $res)"

    def __init__(
        self,
        callee: str | SymbolRefAttr,
        arguments: Sequence[SSAValue | Operation],
        return_types: Sequence[Attribute],
    ):
        if isinstance(callee, str):
            callee = SymbolRefAttr(callee)
        super().__init__(
            operands=[arguments],
            result_types=[return_types],
            properties={"callee": callee},
        )


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """The terminator of ``tt.func``.

    ``tt.return`` or ``tt.return %a, %b : i32, f32``; the values must match the
    result types of the enclosing function.
    """

    name = "tt.return"

    srcs = var_operand_def()
    """The returned values."""

    traits = traits_def(HasParent(FuncOp), IsTerminator(), ReturnLike(), Pure(), TensorSizeTrait())

    assembly_format = "attr-dict ($srcs^ `:` type($srcs))?"

    def __init__(self, *return_vals: SSAValue | Operation):
        super().__init__(operands=[return_vals])

    def verify_(self) -> None:
        func = self.parent_op()
        if not isinstance(func, FuncOp):
            return
        results = func.function_type.outputs.data
        if len(self.srcs) != len(results):
            raise VerifyException(
                f"'tt.return' has {len(self.srcs)} operands, but enclosing "
                f"function (@{func.sym_name.data}) returns {len(results)}"
            )
        for i, (src, expected) in enumerate(zip(self.srcs, results, strict=True)):
            if src.type != expected:
                raise VerifyException(
                    f"type of return operand {i} ({src.type}) doesn't match "
                    f"function result type ({expected}) in function "
                    f"@{func.sym_name.data}"
                )


# ===----------------------------------------------------------------------=== #
# 6. Memory ops
# ===----------------------------------------------------------------------=== #


def _verify_types_match_ptr(
    op_name: str, ptr_type: Attribute, checks: Sequence[tuple[str, SSAValue | None]]
) -> None:
    """Check Triton's ``TypesMatchWith`` constraints of a load or store.

    ``checks`` pairs a role (``result``, ``value``, ``other`` or ``mask``) with
    its value; a mask must be ``i1`` shaped like the pointer, the others must
    have the pointee type.
    """
    pointee = get_pointee_type(ptr_type)
    for role, value in checks:
        if value is None:
            continue
        expected = get_i1_same_shape(pointee) if role == "mask" else pointee
        if value.type != expected:
            raise VerifyException(
                f"'{op_name}' {role} type {value.type} does not match the "
                f"pointer type {ptr_type}: expected {expected}"
            )


def _boundary_check_attr(boundary_check: Sequence[int] | None) -> DenseArrayBase | None:
    """A ``boundaryCheck`` property; None when absent or empty (its default)."""
    if not boundary_check:
        return None
    return DenseArrayBase.from_list(i32, boundary_check)


_NO_BOUNDARY_CHECK = DenseArrayBase.from_list(i32, ())
"""The default ``boundaryCheck``: ``array<i32>``."""

_FALSE = IntegerAttr.from_bool(False)
_TRUE = IntegerAttr.from_bool(True)


@irdl_op_definition
class LoadOp(IRDLOperation, TTCanonicalizationPatterns):
    """Load through a pointer, a tensor of pointers, or a block pointer.

    ``%x = tt.load %ptr, %mask, %other cacheModifier = ca {isVolatile = true}
    : tensor<128x!tt.ptr<f32>>``; the result has the pointee type of ``ptr``.
    """

    name = "tt.load"

    ptr = operand_def(PtrLikeConstr)
    """Where to load from."""

    mask = opt_operand_def(BoolLikeConstr)
    """Which elements to load (``i1``, shaped like ``ptr``)."""

    other = opt_operand_def(TritonTypeConstr)
    """The value of masked-off elements; needs ``mask``."""

    result = result_def(TritonTypeConstr)
    """The loaded value."""

    boundary_check = opt_prop_def(DenseArrayBase[I32], prop_name="boundaryCheck")
    """Dimensions of a block pointer to bounds-check; absent means none."""

    padding = opt_prop_def(IntegerAttr[I32])
    """How a block-pointer load pads out-of-bounds elements (``PaddingOption``)."""

    cache = opt_prop_def(IntegerAttr[I32])
    """The cache modifier (``CacheModifier``); absent means ``none``."""

    evict = opt_prop_def(IntegerAttr[I32])
    """The eviction policy (``EvictionPolicy``); absent means ``evict_normal``."""

    is_volatile = opt_prop_def(BoolAttr, prop_name="isVolatile")
    """Whether the load is volatile; absent means false."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    traits = traits_def(
        LoadOpMemoryEffect(),
        SameLoadStoreOperandsAndResultShape(),
        SameLoadStoreOperandsAndResultEncoding(),
        TensorSizeTrait(),
    )

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = (
        "boundaryCheck",
        "cache",
        "evict",
        "isVolatile",
        "padding",
    )
    """Properties that may be written in the attr-dict, sorted by name."""

    _PROPERTY_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {
        "boundaryCheck": _NO_BOUNDARY_CHECK,
        "cache": CacheModifier.NONE.to_attr(),
        "evict": EvictionPolicy.NORMAL.to_attr(),
        "isVolatile": _FALSE,
    }
    """Triton's ``DefaultValuedAttr`` defaults, never printed nor stored."""

    def __init__(
        self,
        ptr: SSAValue | Operation,
        mask: SSAValue | Operation | None = None,
        other: SSAValue | Operation | None = None,
        *,
        cache: CacheModifier | None = None,
        evict: EvictionPolicy | None = None,
        is_volatile: bool | None = None,
        boundary_check: Sequence[int] | None = None,
        padding: PaddingOption | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        ptr_type = SSAValue.get(ptr).type
        super().__init__(
            operands=[ptr, mask, other],
            result_types=[get_pointee_type(ptr_type)],
            properties={
                "boundaryCheck": _boundary_check_attr(boundary_check),
                "padding": _optional_enum_attr(padding),
                "cache": _optional_enum_attr(cache, CacheModifier.NONE),
                "evict": _optional_enum_attr(evict, EvictionPolicy.NORMAL),
                "isVolatile": _TRUE if is_volatile else None,
            },
            attributes=attributes,
        )

    @property
    def cache_modifier(self) -> CacheModifier:
        """The cache modifier, with Triton's default filled in."""
        return _enum_or_default(self.cache, CacheModifier.NONE)

    @property
    def eviction_policy(self) -> EvictionPolicy:
        """The eviction policy, with Triton's default filled in."""
        return _enum_or_default(self.evict, EvictionPolicy.NORMAL)

    @property
    def is_volatile_flag(self) -> bool:
        """Whether the load is volatile, with Triton's default filled in."""
        return self.is_volatile is not None and bool(self.is_volatile.value.data)

    def verify_(self) -> None:
        if self.other is not None and self.mask is None:
            raise VerifyException("'tt.load' with 'other' needs a 'mask'")
        _verify_types_match_ptr(
            self.name,
            self.ptr.type,
            (("result", self.result), ("mask", self.mask), ("other", self.other)),
        )
        _verify_enum_attr(self.cache, CacheModifier, "cache")
        _verify_enum_attr(self.evict, EvictionPolicy, "evict")
        _verify_enum_attr(self.padding, PaddingOption, "padding")

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        # $ptr (`,` $mask^)? (`,` $other^)? oilist(...) attr-dict `:` type($ptr)
        unresolved: list[UnresolvedOperand] = [parser.parse_unresolved_operand()]
        while len(unresolved) < 3 and parser.parse_optional_punctuation(","):
            unresolved.append(parser.parse_unresolved_operand())
        properties: dict[str, Attribute] = {}
        _parse_oilist_enums(parser, _LOAD_STORE_OILIST, properties)
        attributes = _parse_attr_dict_into_properties(parser, cls._ATTR_DICT_PROPERTIES, properties)
        parser.parse_punctuation(":")
        type_pos = parser.pos
        ptr_type = parser.parse_type()
        _ptr_like_type_or_error(parser, type_pos, ptr_type)
        pointee = get_pointee_type(ptr_type)
        types = (ptr_type, get_i1_same_shape(pointee), pointee)
        ptr, *optional = (parser.resolve_operand(u, t) for u, t in zip(unresolved, types, strict=False))
        mask = optional[0] if len(optional) > 0 else None
        other = optional[1] if len(optional) > 1 else None
        op = cls(ptr, mask, other, attributes=attributes)
        op.properties |= _without_defaults(
            _in_order(properties, cls._ATTR_DICT_PROPERTIES), cls._PROPERTY_DEFAULTS
        )
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, [v for v in (self.ptr, self.mask, self.other) if v is not None])
        in_oilist = _print_oilist_enums(printer, self, _LOAD_STORE_OILIST)
        _print_attr_dict_with_properties(
            printer, self, self._ATTR_DICT_PROPERTIES, in_oilist, defaults=self._PROPERTY_DEFAULTS
        )
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)


@irdl_op_definition
class StoreOp(IRDLOperation, TTCanonicalizationPatterns):
    """Store through a pointer, a tensor of pointers, or a block pointer.

    ``tt.store %ptr, %value, %mask evictionPolicy = evict_last
    : tensor<128x!tt.ptr<f32>>``; ``value`` has the pointee type of ``ptr``.
    """

    name = "tt.store"

    ptr = operand_def(PtrLikeConstr)
    """Where to store to."""

    value = operand_def(TritonTypeConstr)
    """The value to store."""

    mask = opt_operand_def(BoolLikeConstr)
    """Which elements to store (``i1``, shaped like ``ptr``)."""

    boundary_check = opt_prop_def(DenseArrayBase[I32], prop_name="boundaryCheck")
    """Dimensions of a block pointer to bounds-check; absent means none."""

    cache = opt_prop_def(IntegerAttr[I32])
    """The cache modifier (``CacheModifier``); absent means ``none``."""

    evict = opt_prop_def(IntegerAttr[I32])
    """The eviction policy (``EvictionPolicy``); absent means ``evict_normal``."""

    traits = traits_def(
        StoreOpMemoryEffect(),
        SameLoadStoreOperandsShape(),
        SameLoadStoreOperandsEncoding(),
        TensorSizeTrait(),
    )

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = (
        "boundaryCheck",
        "cache",
        "evict",
    )
    """Properties that may be written in the attr-dict, sorted by name."""

    _PROPERTY_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {
        "boundaryCheck": _NO_BOUNDARY_CHECK,
        "cache": CacheModifier.NONE.to_attr(),
        "evict": EvictionPolicy.NORMAL.to_attr(),
    }
    """Triton's ``DefaultValuedAttr`` defaults, never printed nor stored."""

    def __init__(
        self,
        ptr: SSAValue | Operation,
        value: SSAValue | Operation,
        mask: SSAValue | Operation | None = None,
        *,
        cache: CacheModifier | None = None,
        evict: EvictionPolicy | None = None,
        boundary_check: Sequence[int] | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[ptr, value, mask],
            properties={
                "boundaryCheck": _boundary_check_attr(boundary_check),
                "cache": _optional_enum_attr(cache, CacheModifier.NONE),
                "evict": _optional_enum_attr(evict, EvictionPolicy.NORMAL),
            },
            attributes=attributes,
        )

    @property
    def cache_modifier(self) -> CacheModifier:
        """The cache modifier, with Triton's default filled in."""
        return _enum_or_default(self.cache, CacheModifier.NONE)

    @property
    def eviction_policy(self) -> EvictionPolicy:
        """The eviction policy, with Triton's default filled in."""
        return _enum_or_default(self.evict, EvictionPolicy.NORMAL)

    def verify_(self) -> None:
        _verify_types_match_ptr(self.name, self.ptr.type, (("value", self.value), ("mask", self.mask)))
        _verify_enum_attr(self.cache, CacheModifier, "cache")
        _verify_enum_attr(self.evict, EvictionPolicy, "evict")

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        # $ptr `,` $value (`,` $mask^)? oilist(...) attr-dict `:` type($ptr)
        unresolved_ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        unresolved_value = parser.parse_unresolved_operand()
        unresolved_mask = None
        if parser.parse_optional_punctuation(","):
            unresolved_mask = parser.parse_unresolved_operand()
        properties: dict[str, Attribute] = {}
        _parse_oilist_enums(parser, _LOAD_STORE_OILIST, properties)
        attributes = _parse_attr_dict_into_properties(parser, cls._ATTR_DICT_PROPERTIES, properties)
        parser.parse_punctuation(":")
        type_pos = parser.pos
        ptr_type = parser.parse_type()
        _ptr_like_type_or_error(parser, type_pos, ptr_type)
        pointee = get_pointee_type(ptr_type)
        ptr = parser.resolve_operand(unresolved_ptr, ptr_type)
        value = parser.resolve_operand(unresolved_value, pointee)
        mask = (
            None
            if unresolved_mask is None
            else parser.resolve_operand(unresolved_mask, get_i1_same_shape(pointee))
        )
        op = cls(ptr, value, mask, attributes=attributes)
        op.properties |= _without_defaults(
            _in_order(properties, cls._ATTR_DICT_PROPERTIES), cls._PROPERTY_DEFAULTS
        )
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, [v for v in (self.ptr, self.value, self.mask) if v is not None])
        in_oilist = _print_oilist_enums(printer, self, _LOAD_STORE_OILIST)
        _print_attr_dict_with_properties(
            printer, self, self._ATTR_DICT_PROPERTIES, in_oilist, defaults=self._PROPERTY_DEFAULTS
        )
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)


def _parse_leading_enums(
    parser: Parser, names: Sequence[tuple[str, type[TritonI32Enum]]]
) -> dict[str, Attribute]:
    """``$a `,` $b `,` ...``: enum properties written as keywords, each followed by a comma."""
    properties: dict[str, Attribute] = {}
    for prop, enum in names:
        properties[prop] = _parse_enum(parser, enum, prop).to_attr()
        parser.parse_punctuation(",")
    return properties


def _print_leading_enums(
    printer: Printer, op: Operation, names: Sequence[tuple[str, type[TritonI32Enum]]]
) -> None:
    """Print ``kw1, kw2, `` for enum properties (the counterpart of ``_parse_leading_enums``)."""
    for prop, enum in names:
        attr = op.properties.get(prop)
        member = enum.from_attr(attr) if isa(attr, IntegerAttr[I32]) else None
        printer.print_string(f" {member.mnemonic if member is not None else attr},")


def _verify_ptr_matches_value(op: Operation, ptr: SSAValue, value: SSAValue, role: str) -> None:
    """Triton's ``TypesMatchWith<..., "getPointerTypeSameShape($_self)">`` of the atomics."""
    expected = get_pointer_type_same_shape(value.type)
    if ptr.type != expected:
        raise _op_error(
            op, f"failed to verify that ptr type matches {role} type: expected {expected}, got {ptr.type}"
        )


class _AtomicSyntax:
    """``enum, ..., $operands attr-dict : functional-type(operands, results)``,
    the syntax of ``tt.atomic_rmw`` and ``tt.atomic_cas``."""

    _ENUMS: ClassVar[tuple[tuple[str, type[TritonI32Enum]], ...]] = ()
    """The enum properties, in the order the syntax writes them."""

    @classmethod
    def _operand_groups(
        cls, parser: Parser, operands: Sequence[SSAValue], pos: int
    ) -> Sequence[SSAValue | Sequence[SSAValue]]:
        """The operands as ``build`` takes them (optional operands as lists)."""
        return operands

    def _verify_enums(self) -> None:
        op = cast(IRDLOperation, self)
        for prop, enum in self._ENUMS:
            _verify_enum_attr(cast(IntegerAttr[I32], op.properties[prop]), enum, prop)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        properties = _parse_leading_enums(parser, cls._ENUMS)
        pos = parser.pos
        unresolved = _parse_operand_list(parser)
        attributes = _parse_attr_dict_into_properties(parser, (), properties)
        parser.parse_punctuation(":")
        inputs, outputs = _parse_functional_type(parser, len(unresolved), pos)
        operands = _resolve(parser, unresolved, inputs, pos)
        op = cast(type[IRDLOperation], cls).build(
            operands=cls._operand_groups(parser, operands, pos),
            result_types=[list(outputs)],
            properties=properties,
            attributes=attributes,
        )
        return cast(Self, op)

    def print(self, printer: Printer) -> None:
        op = cast(IRDLOperation, self)
        _print_leading_enums(printer, op, self._ENUMS)
        printer.print_string(" ")
        _print_operands(printer, op.operands)
        _print_attr_dict_with_properties(printer, op, ())
        printer.print_string(" : ")
        printer.print_function_type(op.operand_types, op.result_types)


@irdl_op_definition
class AtomicRMWOp(_AtomicSyntax, IRDLOperation):
    """An atomic read-modify-write; yields the old value.

    ``%old = tt.atomic_rmw fadd, acq_rel, gpu, %ptr, %val, %mask
    : (tensor<16x!tt.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> tensor<16xf32>``
    """

    name = "tt.atomic_rmw"

    ptr = operand_def(PtrLikeConstr)
    """Where to read and write."""

    val = operand_def(TritonTypeConstr)
    """The operand of the operation."""

    mask = opt_operand_def(BoolLikeConstr)
    """Which elements to update."""

    result = result_def(TritonTypeConstr)
    """The value at ``ptr`` before the update."""

    atomic_rmw_op = prop_def(IntegerAttr[I32])
    """The operation (``RMWOp``)."""

    sem = prop_def(IntegerAttr[I32])
    """The memory ordering (``MemSemantic``)."""

    scope = prop_def(IntegerAttr[I32])
    """The synchronization scope (``MemSyncScope``)."""

    traits = traits_def(
        FirstOperandReadWriteEffect(),
        SameOperandsAndResultShape(),
        SameOperandsAndResultEncoding(),
        TensorSizeTrait(),
    )

    _ENUMS: ClassVar[tuple[tuple[str, type[TritonI32Enum]], ...]] = (
        ("atomic_rmw_op", RMWOp),
        ("sem", MemSemantic),
        ("scope", MemSyncScope),
    )
    """The enum properties, in the order the syntax writes them."""

    def __init__(
        self,
        rmw_op: RMWOp,
        ptr: SSAValue | Operation,
        val: SSAValue | Operation,
        mask: SSAValue | Operation | None = None,
        *,
        sem: MemSemantic = MemSemantic.ACQUIRE_RELEASE,
        scope: MemSyncScope = MemSyncScope.GPU,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[ptr, val, mask],
            result_types=[SSAValue.get(val).type],
            properties={"atomic_rmw_op": rmw_op.to_attr(), "sem": sem.to_attr(), "scope": scope.to_attr()},
            attributes=attributes,
        )

    @property
    def rmw_op(self) -> RMWOp:
        """The read-modify-write operation."""
        return _enum_or_default(self.atomic_rmw_op, RMWOp.ADD)

    def verify_(self) -> None:
        self._verify_enums()
        _verify_ptr_matches_value(self, self.ptr, self.val, "value")
        if self.mask is not None and self.mask.type != get_i1_same_shape(self.val.type):
            raise _op_error(self, "failed to verify that mask type matches value type")

    @classmethod
    def _operand_groups(
        cls, parser: Parser, operands: Sequence[SSAValue], pos: int
    ) -> Sequence[SSAValue | Sequence[SSAValue]]:
        if len(operands) not in (2, 3):
            parser.raise_error("expected a pointer, a value and an optional mask", pos)
        return [operands[0], operands[1], operands[2:]]


@irdl_op_definition
class AtomicCASOp(_AtomicSyntax, IRDLOperation):
    """An atomic compare-and-swap; yields the old value.

    ``%old = tt.atomic_cas acquire, cta, %ptr, %cmp, %val
    : (!tt.ptr<i32>, i32, i32) -> i32``
    """

    name = "tt.atomic_cas"

    ptr = operand_def(PtrLikeConstr)
    """Where to compare and swap."""

    cmp = operand_def(TritonTypeConstr)
    """The value expected at ``ptr``."""

    val = operand_def(TritonTypeConstr)
    """The value stored when ``ptr`` holds ``cmp``."""

    result = result_def(TritonTypeConstr)
    """The value at ``ptr`` before the operation."""

    sem = prop_def(IntegerAttr[I32])
    """The memory ordering (``MemSemantic``)."""

    scope = prop_def(IntegerAttr[I32])
    """The synchronization scope (``MemSyncScope``)."""

    traits = traits_def(
        FirstOperandReadWriteEffect(),
        SameOperandsAndResultShape(),
        SameOperandsAndResultEncoding(),
        TensorSizeTrait(),
    )

    _ENUMS: ClassVar[tuple[tuple[str, type[TritonI32Enum]], ...]] = (
        ("sem", MemSemantic),
        ("scope", MemSyncScope),
    )
    """The enum properties, in the order the syntax writes them."""

    def __init__(
        self,
        ptr: SSAValue | Operation,
        cmp: SSAValue | Operation,
        val: SSAValue | Operation,
        *,
        sem: MemSemantic = MemSemantic.ACQUIRE_RELEASE,
        scope: MemSyncScope = MemSyncScope.GPU,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[ptr, cmp, val],
            result_types=[SSAValue.get(val).type],
            properties={"sem": sem.to_attr(), "scope": scope.to_attr()},
            attributes=attributes,
        )

    def verify_(self) -> None:
        self._verify_enums()
        _verify_ptr_matches_value(self, self.ptr, self.cmp, "cmp")
        _verify_ptr_matches_value(self, self.ptr, self.val, "value")


def _verify_descriptor_block(op: Operation, desc: TensorDescType, tensor: Attribute) -> None:
    """Triton 3.6's ``verifyDescriptorLoadStoreType``: the tensor is the
    descriptor's block, less leading dimensions of size 1."""
    block = desc.signless_block_type
    block_shape, tensor_shape = block.get_shape(), _dims(tensor)
    if len(block_shape) > len(tensor_shape):
        dropped = len(block_shape) - len(tensor_shape)
        if any(dim != 1 for dim in block_shape[:dropped]):
            raise _op_error(op, "ranked reduce load only allowed for unit dimension leading dim.")
        block_shape = block_shape[dropped:]
    if block_shape != tensor_shape or block.get_element_type() != _element_type(tensor):
        raise _op_error(op, "tensor descriptor block and tensor types must match")


def _parse_desc_and_indices(parser: Parser) -> tuple[UnresolvedOperand, list[UnresolvedOperand]]:
    """``$desc `[` $indices `]```."""
    desc = parser.parse_unresolved_operand()
    return desc, _parse_bracketed_operands(parser)


def _print_desc_and_indices(printer: Printer, desc: SSAValue, indices: Sequence[SSAValue]) -> None:
    """Print `` %desc[%i, %j]``."""
    printer.print_string(" ")
    printer.print_operand(desc)
    with printer.in_square_brackets():
        _print_operands(printer, indices)


@irdl_op_definition
class DescriptorLoadOp(IRDLOperation):
    """Load a block through a tensor descriptor (a TMA load on NVIDIA).

    ``%x = tt.descriptor_load %desc[%i, %j] cacheModifier = ca
    : !tt.tensordesc<tensor<16x16xf16>> -> tensor<16x16xf16>``
    """

    name = "tt.descriptor_load"

    desc = operand_def(TensorDescType)
    """The descriptor."""

    indices = var_operand_def(EqAttrConstraint(i32))
    """The block's offsets, one per dimension."""

    result = result_def(TensorConstr)
    """The loaded block."""

    cache = opt_prop_def(IntegerAttr[I32])
    """The cache modifier (``CacheModifier``); absent means ``none``."""

    evict = opt_prop_def(IntegerAttr[I32])
    """The eviction policy (``EvictionPolicy``); absent means ``evict_normal``."""

    traits = traits_def(FirstOperandReadEffect(), TensorSizeTrait())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("cache", "evict")
    """Properties that may be written in the attr-dict, sorted by name."""

    _PROPERTY_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {
        "cache": CacheModifier.NONE.to_attr(),
        "evict": EvictionPolicy.NORMAL.to_attr(),
    }
    """Triton's ``DefaultValuedAttr`` defaults, never printed nor stored."""

    def __init__(
        self,
        desc: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation],
        result_type: Attribute | None = None,
        *,
        cache: CacheModifier | None = None,
        evict: EvictionPolicy | None = None,
    ):
        if result_type is None:
            desc_type = SSAValue.get(desc).type
            assert isinstance(desc_type, TensorDescType)
            result_type = desc_type.signless_block_type
        super().__init__(
            operands=[desc, indices],
            result_types=[result_type],
            properties={
                "cache": _optional_enum_attr(cache, CacheModifier.NONE),
                "evict": _optional_enum_attr(evict, EvictionPolicy.NORMAL),
            },
        )

    def verify_(self) -> None:
        _verify_enum_attr(self.cache, CacheModifier, "cache")
        _verify_enum_attr(self.evict, EvictionPolicy, "evict")
        assert isinstance(self.desc.type, TensorDescType)
        _verify_descriptor_block(self, self.desc.type, self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> DescriptorLoadOp:
        desc, indices = _parse_desc_and_indices(parser)
        properties: dict[str, Attribute] = {}
        _parse_oilist_enums(parser, _LOAD_STORE_OILIST, properties)
        attributes = _parse_attr_dict_into_properties(parser, cls._ATTR_DICT_PROPERTIES, properties)
        parser.parse_punctuation(":")
        desc_type = _parse_type_of(parser, TensorDescType, "a !tt.tensordesc")
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        return cls.build(
            operands=[
                parser.resolve_operand(desc, desc_type),
                [parser.resolve_operand(i, i32) for i in indices],
            ],
            result_types=[result_type],
            properties=_without_defaults(
                _in_order(properties, cls._ATTR_DICT_PROPERTIES), cls._PROPERTY_DEFAULTS
            ),
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        _print_desc_and_indices(printer, self.desc, self.indices)
        in_oilist = _print_oilist_enums(printer, self, _LOAD_STORE_OILIST)
        _print_attr_dict_with_properties(
            printer, self, self._ATTR_DICT_PROPERTIES, in_oilist, defaults=self._PROPERTY_DEFAULTS
        )
        printer.print_string(" : ")
        printer.print_attribute(self.desc.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


class _DescriptorStoreLike(IRDLOperation):
    """Shared by ``tt.descriptor_store`` and ``tt.descriptor_reduce``:
    ``$desc[$indices], $src attr-dict : type($desc), type($src)``."""

    desc = operand_def(TensorDescType)
    """The descriptor."""

    src = operand_def(TensorConstr)
    """The block to store."""

    indices = var_operand_def(EqAttrConstraint(i32))
    """The block's offsets, one per dimension."""

    traits = traits_def(FirstOperandReadWriteEffect(), TensorSizeTrait())

    def verify_(self) -> None:
        assert isinstance(self.desc.type, TensorDescType)
        _verify_descriptor_block(self, self.desc.type, self.src.type)

    @classmethod
    def _parse_store(cls, parser: Parser, properties: dict[str, Attribute]) -> Self:
        desc, indices = _parse_desc_and_indices(parser)
        parser.parse_punctuation(",")
        src = parser.parse_unresolved_operand()
        attributes = _parse_attr_dict_into_properties(parser, (), properties)
        parser.parse_punctuation(":")
        desc_type = _parse_type_of(parser, TensorDescType, "a !tt.tensordesc")
        parser.parse_punctuation(",")
        src_type = parser.parse_type()
        return cls.build(
            operands=[
                parser.resolve_operand(desc, desc_type),
                parser.resolve_operand(src, src_type),
                [parser.resolve_operand(i, i32) for i in indices],
            ],
            properties=properties,
            attributes=attributes,
        )

    def _print_store(self, printer: Printer) -> None:
        _print_desc_and_indices(printer, self.desc, self.indices)
        printer.print_string(", ")
        printer.print_operand(self.src)
        _print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        printer.print_attribute(self.desc.type)
        printer.print_string(", ")
        printer.print_attribute(self.src.type)


@irdl_op_definition
class DescriptorStoreOp(_DescriptorStoreLike):
    """Store a block through a tensor descriptor (a TMA store on NVIDIA).

    ``tt.descriptor_store %desc[%i, %j], %src : !tt.tensordesc<tensor<16x16xf16>>, tensor<16x16xf16>``
    """

    name = "tt.descriptor_store"

    def __init__(
        self, desc: SSAValue | Operation, src: SSAValue | Operation, indices: Sequence[SSAValue | Operation]
    ):
        super().__init__(operands=[desc, src, indices])

    @classmethod
    def parse(cls, parser: Parser) -> DescriptorStoreOp:
        return cls._parse_store(parser, {})

    def print(self, printer: Printer) -> None:
        self._print_store(printer)


@irdl_op_definition
class DescriptorReduceOp(_DescriptorStoreLike):
    """Reduce a block into memory through a tensor descriptor.

    ``tt.descriptor_reduce add, %desc[%i, %j], %src : !tt.tensordesc<...>, tensor<...>``
    """

    name = "tt.descriptor_reduce"

    kind = prop_def(IntegerAttr[I32])
    """The reduction (``DescriptorReduceKind``)."""

    def __init__(
        self,
        kind: DescriptorReduceKind,
        desc: SSAValue | Operation,
        src: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation],
    ):
        super().__init__(operands=[desc, src, indices], properties={"kind": kind.to_attr()})

    def verify_(self) -> None:
        # Triton 3.6 checks no types here (its verifier came after 3.6).
        _verify_enum_attr(self.kind, DescriptorReduceKind, "kind")

    @classmethod
    def parse(cls, parser: Parser) -> DescriptorReduceOp:
        properties = _parse_leading_enums(parser, (("kind", DescriptorReduceKind),))
        return cls._parse_store(parser, properties)

    def print(self, printer: Printer) -> None:
        _print_leading_enums(printer, self, (("kind", DescriptorReduceKind),))
        self._print_store(printer)


def _verify_gather_scatter(op: Operation, desc: Attribute, result: Attribute, x_offsets: Attribute) -> None:
    """Triton's ``verifyGatherScatterOp``: rows gathered from a one-row 2D block."""
    assert isinstance(desc, TensorDescType)
    block = desc.signless_block_type
    block_shape = block.get_shape()
    if len(block_shape) != 2:
        raise _op_error(op, f"block must be a 2D tensor, but got {block}")
    if block_shape[0] != 1:
        raise _op_error(op, f"block must have exactly 1 row, but got {block}")
    offsets_shape, result_shape = _dims(x_offsets), _dims(result)
    if len(offsets_shape) != 1:
        raise _op_error(op, f"x offsets must be a 1D tensor, but got {x_offsets}")
    if len(result_shape) != 2:
        raise _op_error(op, f"result must be a 2D tensor, but got {result}")
    if result_shape[0] < 8:
        raise _op_error(op, f"gather must have at least 8 rows, but got {result_shape[0]}")
    element = _element_type(result)
    width = _bit_width(element)
    if width > 32:
        raise _op_error(op, "TMA dtype cannot be greater than 32 bits")
    min_cols = 32 // max(width, 1) * 8
    if result_shape[1] < min_cols:
        raise _op_error(
            op, f"gather of {element} must have at least {min_cols} columns, but got {result_shape[1]}"
        )
    if result_shape[0] != offsets_shape[0]:
        raise _op_error(
            op, f"result tensor must have as many rows as indices ({offsets_shape[0]}), but got {result}"
        )
    if result_shape[1] != block_shape[1]:
        raise _op_error(
            op, f"result tensor number of columns must match block ({block_shape[1]}), but got {result}"
        )
    if element != block.get_element_type():
        raise _op_error(
            op, f"result tensor element type must match block ({block.get_element_type()}), but got {result}"
        )


@irdl_op_definition
class DescriptorGatherOp(IRDLOperation):
    """Gather rows through a tensor descriptor into one tensor.

    ``%x = tt.descriptor_gather %desc[%rows, %col]
    : (!tt.tensordesc<tensor<1x64xf16>>, tensor<32xi32>, i32) -> tensor<32x64xf16>``
    """

    name = "tt.descriptor_gather"

    desc = operand_def(TensorDescType)
    """The descriptor (its block has one row)."""

    x_offsets = operand_def(TensorType.constr(EqAttrConstraint(i32)))
    """The rows to gather."""

    y_offset = operand_def(EqAttrConstraint(i32))
    """The first column."""

    result = result_def(TensorConstr)
    """The gathered rows."""

    traits = traits_def(FirstOperandReadEffect(), TensorSizeTrait())

    def __init__(
        self,
        desc: SSAValue | Operation,
        x_offsets: SSAValue | Operation,
        y_offset: SSAValue | Operation,
        result_type: Attribute,
    ):
        super().__init__(operands=[desc, x_offsets, y_offset], result_types=[result_type])

    def verify_(self) -> None:
        _verify_gather_scatter(self, self.desc.type, self.result.type, self.x_offsets.type)

    @classmethod
    def parse(cls, parser: Parser) -> DescriptorGatherOp:
        pos = parser.pos
        desc, offsets = _parse_desc_and_indices(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        inputs, outputs = _parse_functional_type(parser, 1 + len(offsets), pos)
        if len(offsets) != 2:
            parser.raise_error("expected [x_offsets, y_offset]", pos)
        operands = _resolve(parser, [desc, *offsets], inputs, pos)
        return cls.build(
            operands=operands, result_types=[outputs[0] if outputs else i32], attributes=attributes
        )

    def print(self, printer: Printer) -> None:
        _print_desc_and_indices(printer, self.desc, (self.x_offsets, self.y_offset))
        _print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


@irdl_op_definition
class DescriptorScatterOp(IRDLOperation):
    """Scatter rows of a tensor through a tensor descriptor.

    ``tt.descriptor_scatter %desc[%rows, %col], %src
    : !tt.tensordesc<tensor<1x64xf16>>, tensor<32xi32>, i32, tensor<32x64xf16>``
    """

    name = "tt.descriptor_scatter"

    desc = operand_def(TensorDescType)
    """The descriptor (its block has one row)."""

    x_offsets = operand_def(TensorType.constr(EqAttrConstraint(i32)))
    """The rows to write."""

    y_offset = operand_def(EqAttrConstraint(i32))
    """The first column."""

    src = operand_def(TensorConstr)
    """The rows to scatter."""

    traits = traits_def(FirstOperandReadWriteEffect(), TensorSizeTrait())

    def __init__(
        self,
        desc: SSAValue | Operation,
        x_offsets: SSAValue | Operation,
        y_offset: SSAValue | Operation,
        src: SSAValue | Operation,
    ):
        super().__init__(operands=[desc, x_offsets, y_offset, src])

    def verify_(self) -> None:
        _verify_gather_scatter(self, self.desc.type, self.src.type, self.x_offsets.type)

    @classmethod
    def parse(cls, parser: Parser) -> DescriptorScatterOp:
        pos = parser.pos
        desc, offsets = _parse_desc_and_indices(parser)
        if len(offsets) != 2:
            parser.raise_error("expected [x_offsets, y_offset]", pos)
        parser.parse_punctuation(",")
        src = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = _parse_type_list(parser)
        operands = _resolve(parser, [desc, *offsets, src], types, pos)
        return cls.build(operands=operands, attributes=attributes)

    def print(self, printer: Printer) -> None:
        _print_desc_and_indices(printer, self.desc, (self.x_offsets, self.y_offset))
        printer.print_string(", ")
        printer.print_operand(self.src)
        _print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        _print_types(printer, self.operand_types)


# ===----------------------------------------------------------------------=== #
# 7. Pointer ops
# ===----------------------------------------------------------------------=== #


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
            raise _op_error(
                self,
                f"failed to verify that result type matches ptr type: {self.result.type} vs {self.ptr.type}",
            )

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        # addptr(ptr, 0) -> ptr
        if _int_value(_constant_value(self.offset)) == 0:
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
        _ptr_like_type_or_error(parser, pos, result_type)
        parser.parse_punctuation(",")
        offset_type = parser.parse_type()
        return cls(
            parser.resolve_operand(ptr, result_type),
            parser.resolve_operand(offset, offset_type),
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, (self.ptr, self.offset))
        _print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        _print_types(printer, (self.result.type, self.offset.type))


def _verify_tensor_pointer(op: Operation, type_: Attribute, role: str) -> None:
    """Raise unless ``type_`` is a block pointer (``TT_TensorPtr``, whose summary is ``ptr``)."""
    if not is_tensor_pointer_type(type_):
        raise _op_error(op, f"{role} must be ptr, but got '{type_}' (not a pointer to a tensor)")


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
            raise _op_error(self, "failed to verify that result type matches ptr type")

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        # advance(ptr, 0, 0) -> ptr
        if all(_int_value(_constant_value(offset)) == 0 for offset in self.offsets):
            return (self.ptr,)
        return None

    @classmethod
    def parse(cls, parser: Parser) -> AdvanceOp:
        # $ptr `,` `[` $offsets `]` attr-dict `:` type($result)
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offsets = _parse_bracketed_operands(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result_type = _parse_type_of(parser, PointerType, "a !tt.ptr")
        return cls(
            parser.resolve_operand(ptr, result_type),
            [parser.resolve_operand(offset, i32) for offset in offsets],
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.ptr)
        printer.print_string(", ")
        with printer.in_square_brackets():
            _print_operands(printer, self.offsets)
        _print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        _print_stripped_type(printer, self.result.type)


@irdl_op_definition
class MakeTensorPtrOp(IRDLOperation):
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
            raise _op_error(
                self,
                f"failed to verify that infer pointer type from the result type: base is {self.base.type}, "
                f"expected {expected}",
            )

    @classmethod
    def parse(cls, parser: Parser) -> MakeTensorPtrOp:
        # $base `,` `[` $shape `]` `,` `[` $strides `]` `,` `[` $offsets `]` attr-dict `:` type($result)
        base = parser.parse_unresolved_operand()
        groups: list[list[UnresolvedOperand]] = []
        for _ in range(3):
            parser.parse_punctuation(",")
            groups.append(_parse_bracketed_operands(parser))
        shape, strides, offsets = groups
        properties: dict[str, Attribute] = {}
        attributes = _parse_attr_dict_into_properties(parser, ("order",), properties)
        parser.parse_punctuation(":")
        pos = parser.pos
        result_type = _parse_type_of(parser, PointerType, "a !tt.ptr")
        if not isa(result_type.pointee_type, TensorType[Attribute]):
            parser.raise_error(f"expected a pointer to a tensor, got {result_type}", pos, parser.pos)
        element = cast(TypeAttribute, result_type.pointee_type.get_element_type())
        return cls.build(
            operands=[
                parser.resolve_operand(base, PointerType(element, result_type.address_space)),
                [parser.resolve_operand(u, i64) for u in shape],
                [parser.resolve_operand(u, i64) for u in strides],
                [parser.resolve_operand(u, i32) for u in offsets],
            ],
            result_types=[result_type],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.base)
        for group in (self.shape, self.strides, self.offsets):
            printer.print_string(", ")
            with printer.in_square_brackets():
                _print_operands(printer, group)
        _print_attr_dict_with_properties(printer, self, ("order",))
        printer.print_string(" : ")
        _print_stripped_type(printer, self.result.type)


@irdl_op_definition
class MakeTensorDescOp(IRDLOperation):
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
            properties={"padding": _optional_enum_attr(padding, PaddingOption.PAD_ZERO)},
        )

    def verify_(self) -> None:
        _verify_enum_attr(self.padding, PaddingOption, "padding")

    @classmethod
    def parse(cls, parser: Parser) -> MakeTensorDescOp:
        # $base `,` `[` $shape `]` `,` `[` $strides `]` attr-dict `:` type($base) `,` type($result)
        base = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        shape = _parse_bracketed_operands(parser)
        parser.parse_punctuation(",")
        strides = _parse_bracketed_operands(parser)
        properties: dict[str, Attribute] = {}
        attributes = _parse_attr_dict_into_properties(parser, ("padding",), properties)
        parser.parse_punctuation(":")
        base_type = _parse_type_of(parser, PointerType, "a !tt.ptr")
        parser.parse_punctuation(",")
        result_type = _parse_type_of(parser, TensorDescType, "a !tt.tensordesc")
        return cls.build(
            operands=[
                parser.resolve_operand(base, base_type),
                [parser.resolve_operand(u, i32) for u in shape],
                [parser.resolve_operand(u, i64) for u in strides],
            ],
            result_types=[result_type],
            properties=_without_defaults(properties, cls._PROPERTY_DEFAULTS),
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.base)
        for group in (self.shape, self.strides):
            printer.print_string(", ")
            with printer.in_square_brackets():
                _print_operands(printer, group)
        _print_attr_dict_with_properties(printer, self, ("padding",), defaults=self._PROPERTY_DEFAULTS)
        printer.print_string(" : ")
        _print_stripped_type(printer, self.base.type)
        printer.print_string(", ")
        _print_stripped_type(printer, self.result.type)


@irdl_op_definition
class IntToPtrOp(_SrcToResultSyntax, IRDLOperation, TTCanonicalizationPatterns):
    """Cast an ``i64`` (or a tensor of them) to a pointer.

    ``%p = tt.int_to_ptr %x : i64 -> !tt.ptr<f32>``
    """

    name = "tt.int_to_ptr"

    src = operand_def(I64LikeConstr)
    """The address."""

    result = result_def(PtrLikeConstr)
    """The pointer."""

    traits = traits_def(
        Elementwise(),
        SameOperandsAndResultShape(),
        SameOperandsAndResultEncoding(),
        Pure(),
        TensorSizeTrait(),
    )

    def __init__(self, src: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])


@irdl_op_definition
class PtrToIntOp(_SrcToResultSyntax, IRDLOperation):
    """Cast a pointer (or a tensor of them) to ``i64``.

    ``%x = tt.ptr_to_int %p : !tt.ptr<f32> -> i64``
    """

    name = "tt.ptr_to_int"

    src = operand_def(PtrLikeConstr)
    """The pointer."""

    result = result_def(I64LikeConstr)
    """The address."""

    traits = traits_def(
        Elementwise(),
        SameOperandsAndResultShape(),
        SameOperandsAndResultEncoding(),
        Pure(),
        TensorSizeTrait(),
    )

    def __init__(self, src: SSAValue | Operation, result_type: Attribute | None = None):
        if result_type is None:
            result_type = _scalar_or_tensor(SSAValue.get(src).type, i64)
        super().__init__(operands=[src], result_types=[result_type])


@irdl_op_definition
class BitcastOp(_SrcToResultSyntax, IRDLOperation, HasFolderInterface):
    """Reinterpret bits as another type of the same width (pointers included).

    ``%y = tt.bitcast %x : tensor<16xf32> -> tensor<16xi32>``
    """

    name = "tt.bitcast"

    src = operand_def(TritonTypeConstr)
    """The value to reinterpret."""

    result = result_def(TritonTypeConstr)
    """The reinterpreted value."""

    traits = traits_def(
        Elementwise(),
        SameOperandsAndResultShape(),
        SameOperandsAndResultEncoding(),
        Pure(),
        TensorSizeTrait(),
    )

    def __init__(self, src: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_(self) -> None:
        src, dst = _element_type(self.src.type), _element_type(self.result.type)
        if isinstance(src, PointerType) or isinstance(dst, PointerType):
            if not isinstance(src, PointerType) or not isinstance(dst, PointerType):
                raise _op_error(self, "Cannot bitcast pointer to non-pointer type")
            if src.address_space != dst.address_space:
                raise _op_error(self, "Cannot bitcast pointer between different address spaces")
            return
        if _bit_width(src) != _bit_width(dst):
            raise _op_error(
                self,
                f"Cannot bitcast data-type of size {_bit_width(src)} to data-type of size {_bit_width(dst)}",
            )

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        # Triton 3.9 folds a bitcast to the same type; 3.6 has no folder.
        if triton_version() < (3, 9) or self.src.type != self.result.type:
            return None
        return (self.src,)


# ===----------------------------------------------------------------------=== #
# 8. Shape ops
# ===----------------------------------------------------------------------=== #


@irdl_op_definition
class SplatOp(_SrcToResultSyntax, IRDLOperation, HasFolderInterface):
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

    def __init__(self, src: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        # Only a scalar constant folds: a splat of a one-element tensor does not.
        value = _constant_value(self.src)
        if value is None or isinstance(value, DenseIntOrFPElementsAttr):
            return None
        splat = _splat_of(self.result.type, value)
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
        super().__init__(operands=[src], result_types=[_element_type(SSAValue.get(src).type)])

    def verify_(self) -> None:
        if math.prod(_dims(self.src.type)) != 1:
            raise _op_error(self, "source tensor must have exactly one element")
        _verify_inferred_types(self, (_element_type(self.src.type),))

    @classmethod
    def parse(cls, parser: Parser) -> UnsplatOp:
        src = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = _parse_tensor_type(parser)
        op = cls(parser.resolve_operand(src, src_type))
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        _print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)


def _expand_dims_type(src_type: Attribute, axis: int) -> TensorType[Attribute]:
    """The type of ``src_type`` with a new dimension of size 1 at ``axis``.

    Raises ``LayoutInferenceError`` when the encoding cannot take the new dimension.
    """
    assert isa(src_type, TensorType[Attribute])
    shape = list(src_type.get_shape())
    shape.insert(axis, 1)
    encoding = _inferred_encoding(src_type, lambda e: e.expand_dims_encoding(axis))
    return TensorType(src_type.get_element_type(), shape, encoding)


@irdl_op_definition
class ExpandDimsOp(_SrcToResultSyntax, IRDLOperation, HasFolderInterface, TTCanonicalizationPatterns):
    """Insert a dimension of size 1.

    ``%y = tt.expand_dims %x {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>``
    """

    name = "tt.expand_dims"

    src = operand_def(TensorConstr)
    """The tensor to reshape."""

    result = result_def(TensorConstr)
    """The tensor with the new dimension."""

    axis = prop_def(IntegerAttr[I32])
    """Where the new dimension goes."""

    traits = traits_def(Pure(), SameOperandsAndResultElementType(), TensorSizeTrait())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("axis",)

    def __init__(self, src: SSAValue | Operation, axis: int, result_type: Attribute | None = None):
        if result_type is None:
            result_type = _expand_dims_type(SSAValue.get(src).type, axis)
        super().__init__(
            operands=[src], result_types=[result_type], properties={"axis": IntegerAttr(axis, i32)}
        )

    def verify_(self) -> None:
        rank = len(_dims(self.src.type))
        axis = self.axis.value.data
        if not 0 <= axis <= rank:
            raise _op_error(self, f"axis {axis} is out of bounds for a result of rank {rank + 1}")
        try:
            inferred = _expand_dims_type(self.src.type, axis)
        except LayoutInferenceError as exc:
            raise _op_error(self, str(exc)) from None
        _verify_inferred_types(self, (inferred,))

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        folded = _fold_view_like(_constant_value(self.src), self.result.type)
        return None if folded is None else (folded,)


@irdl_op_definition
class ReshapeOp(IRDLOperation, HasFolderInterface, TTCanonicalizationPatterns):
    """Reinterpret a tensor with another shape; with ``allow_reorder`` the
    compiler may also reorder its elements.

    ``%y = tt.reshape %x allow_reorder : tensor<4x16xf32> -> tensor<64xf32>``
    """

    name = "tt.reshape"

    src = operand_def(TensorConstr)
    """The tensor to reshape."""

    result = result_def(TensorConstr)
    """The reshaped tensor."""

    allow_reorder = opt_prop_def(UnitAttr)
    """Whether the elements may be reordered."""

    efficient_layout = opt_prop_def(UnitAttr)
    """A hint that the result's layout is chosen for performance."""

    traits = traits_def(Pure(), SameOperandsAndResultElementType(), TensorSizeTrait())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("allow_reorder", "efficient_layout")

    def __init__(
        self,
        src: SSAValue | Operation,
        result_type: Attribute,
        *,
        allow_reorder: bool = False,
        efficient_layout: bool = False,
    ):
        super().__init__(
            operands=[src],
            result_types=[result_type],
            properties={
                "allow_reorder": UnitAttr() if allow_reorder else None,
                "efficient_layout": UnitAttr() if efficient_layout else None,
            },
        )

    def verify_(self) -> None:
        src_count = math.prod(_dims(self.src.type))
        result_count = math.prod(_dims(self.result.type))
        if src_count != result_count:
            raise _op_error(self, "number of src and dst elements of reshape must be the same")
        if (_encoding(self.src.type) is None) != (_encoding(self.result.type) is None):
            raise _op_error(
                self, "Op requires that either (a) src and dst both have encodings, or (b) neither does."
            )

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        if self.result.type == self.src.type and self.allow_reorder is None:
            return (self.src,)
        folded = _fold_view_like(_constant_value(self.src), self.result.type)
        return None if folded is None else (folded,)

    @classmethod
    def parse(cls, parser: Parser) -> ReshapeOp:
        # $src (`allow_reorder` $allow_reorder^)? (`efficient_layout` $efficient_layout^)?
        # attr-dict `:` type($src) `->` type($result)
        src = parser.parse_unresolved_operand()
        properties: dict[str, Attribute] = {}
        for keyword in cls._ATTR_DICT_PROPERTIES:
            if parser.parse_optional_keyword(keyword) is not None:
                properties[keyword] = UnitAttr()
        attributes = _parse_attr_dict_into_properties(parser, cls._ATTR_DICT_PROPERTIES, properties)
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        return cls.build(
            operands=[parser.resolve_operand(src, src_type)],
            result_types=[result_type],
            properties=_in_order(properties, cls._ATTR_DICT_PROPERTIES),
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        for keyword in self._ATTR_DICT_PROPERTIES:
            if keyword in self.properties:
                printer.print_string(f" {keyword}")
        _print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class BroadcastOp(_SrcToResultSyntax, IRDLOperation, HasFolderInterface, TTCanonicalizationPatterns):
    """Stretch dimensions of size 1 to a larger size.

    ``%y = tt.broadcast %x : tensor<1x32xf32> -> tensor<8x32xf32>``
    """

    name = "tt.broadcast"

    src = operand_def(TensorConstr)
    """The tensor to broadcast."""

    result = result_def(TensorConstr)
    """The broadcast tensor."""

    traits = traits_def(
        Pure(), SameOperandsAndResultElementType(), SameOperandsAndResultEncoding(), TensorSizeTrait()
    )

    def __init__(self, src: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_(self) -> None:
        src_shape, result_shape = _dims(self.src.type), _dims(self.result.type)
        if len(src_shape) != len(result_shape):
            raise _op_error(self, "rank of source must be same as rank of result")
        for i, (src_dim, result_dim) in enumerate(zip(src_shape, result_shape, strict=True)):
            if src_dim not in (1, result_dim):
                raise _op_error(
                    self,
                    f"Different dimensions at index {i} between source and result.  "
                    "Broadcast requires the source dimension to be 1.",
                )

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        if self.result.type == self.src.type:
            return (self.src,)
        element = _splat_value(_constant_value(self.src))
        if element is None:
            return None
        splat = _splat_of(self.result.type, element)
        return None if splat is None else (splat,)


class _TwoTensorsSyntax:
    """``$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)`` (join, cat)."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operand_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cast(type[IRDLOperation], cls).build(
            operands=[parser.resolve_operand(lhs, operand_type), parser.resolve_operand(rhs, operand_type)],
            result_types=[result_type],
            attributes=attributes,
        )
        return cast(Self, op)

    def print(self, printer: Printer) -> None:
        op = cast(IRDLOperation, self)
        printer.print_string(" ")
        _print_operands(printer, op.operands)
        _print_attr_dict_with_properties(printer, op, ())
        printer.print_string(" : ")
        printer.print_attribute(op.operands[0].type)
        printer.print_string(" -> ")
        printer.print_attribute(op.results[0].type)


@irdl_op_definition
class CatOp(_TwoTensorsSyntax, IRDLOperation):
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
class JoinOp(_TwoTensorsSyntax, IRDLOperation, HasFolderInterface):
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
        result_type = _with_shape(lhs_type, (*lhs_type.get_shape(), 2))
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def verify_(self) -> None:
        expected = (*(_dims(self.lhs.type)), 2)
        actual = _dims(self.result.type)
        if actual != expected:
            raise _op_error(
                self,
                f"result shape must be ({', '.join(map(str, expected))}), "
                f"but got {', '.join(map(str, actual))}",
            )
        if _element_type(self.result.type) != _element_type(self.lhs.type):
            raise _op_error(self, "result element type must match the input element type")
        if _encoding(self.result.type) is None and _encoding(self.lhs.type) is not None:
            raise _op_error(self, "result encoding must be specified")

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
class SplitOp(IRDLOperation, HasFolderInterface):
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
        half = _with_shape(src_type, src_type.get_shape()[:-1])
        super().__init__(operands=[src], result_types=[half, half])

    def verify_(self) -> None:
        shape = _dims(self.src.type)
        if not shape or shape[-1] != 2:
            raise _op_error(self, "last dimension of input tensor must be 2")
        assert isa(self.src.type, TensorType[Attribute])
        half = _with_shape(self.src.type, shape[:-1])
        _verify_inferred_types(self, (half, half))

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        # Triton 3.9 folds split(join(a, b)) to a, b; 3.6 has no folder.
        if triton_version() < (3, 9):
            return None
        join = self.src.owner
        if not isinstance(join, JoinOp) or join.lhs.type != self.out_lhs.type:
            return None
        return (join.lhs, join.rhs)

    @classmethod
    def parse(cls, parser: Parser) -> SplitOp:
        src = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        half = parser.parse_type()
        return cls.build(
            operands=[parser.resolve_operand(src, src_type)], result_types=[half, half], attributes=attributes
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        _print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.out_lhs.type)


def _permuted(values: Sequence[int], order: Sequence[int]) -> tuple[int, ...]:
    """``applyPermutation``: ``values[order[0]], values[order[1]], ...``."""
    return tuple(values[i] for i in order)


@irdl_op_definition
class TransOp(_SrcToResultSyntax, IRDLOperation, HasFolderInterface):
    """Permute the dimensions of a tensor (``tl.trans`` and ``tl.permute``).

    ``%y = tt.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>``
    """

    name = "tt.trans"

    src = operand_def(TensorConstr)
    """The tensor to transpose."""

    result = result_def(TensorConstr)
    """The transposed tensor: dimension ``i`` is ``src``'s ``order[i]``."""

    order = prop_def(DenseArrayBase[I32])
    """The permutation."""

    traits = traits_def(Pure(), SameOperandsAndResultElementType(), TensorSizeTrait())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("order",)

    def __init__(self, src: SSAValue | Operation, order: Sequence[int]):
        src_type = SSAValue.get(src).type
        assert isa(src_type, TensorType[Attribute])
        result_type = _with_shape(src_type, _permuted(src_type.get_shape(), order))
        super().__init__(
            operands=[src],
            result_types=[result_type],
            properties={"order": DenseArrayBase.from_list(i32, order)},
        )

    @property
    def order_values(self) -> tuple[int, ...]:
        """The permutation as numbers."""
        return self.order.get_values()

    def verify_(self) -> None:
        order = self.order_values
        shape = _dims(self.src.type)
        if len(order) != len(shape):
            raise _op_error(self, "order must have the same size as the rank of the operand and result")
        if sorted(order) != list(range(len(order))):
            raise _op_error(self, "order must be a permutation of [0, ..., rank - 1]")
        if _permuted(shape, order) != (_dims(self.result.type)):
            raise _op_error(self, "result shape must match the permutation of the source shape")

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        # trans(x, order=[0, 1, ...]) -> x
        if self.order_values == tuple(range(len(self.order_values))) and self.src.type == self.result.type:
            return (self.src,)
        # MLIR's fold also rewrites trans(trans(x)) in place into one trans
        # (see ``fold_in_place``): an xDSL folder may not change the op.
        element = _splat_value(_constant_value(self.src))
        if element is None:
            return None
        splat = _splat_of(self.result.type, element)
        return None if splat is None else (splat,)

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
class GatherOp(IRDLOperation):
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
        result_type = _with_element_type(indices_type, _element_type(SSAValue.get(src).type))
        super().__init__(
            operands=[src, indices], result_types=[result_type], properties={"axis": IntegerAttr(axis, i32)}
        )

    def verify_(self) -> None:
        src_shape, indices_shape = _dims(self.src.type), _dims(self.indices.type)
        axis = self.axis.value.data
        if indices_shape != (_dims(self.result.type)):
            raise _op_error(self, "indices and output shapes must match")
        if _encoding(self.indices.type) != _encoding(self.result.type):
            raise _op_error(self, "indices and output encodings must match")
        if _element_type(self.src.type) != _element_type(self.result.type):
            raise _op_error(self, "input and output element types must match")
        if len(src_shape) != len(indices_shape):
            raise _op_error(self, "input and indices ranks must match")
        if axis >= len(src_shape):
            raise _op_error(self, "gather dimension must be less than the input rank")
        for dim, (index_dim, src_dim) in enumerate(zip(indices_shape, src_shape, strict=True)):
            if dim != axis and index_dim != src_dim:
                raise _op_error(self, f"indices dimension {dim} must match the corresponding input dimension")

    @classmethod
    def parse(cls, parser: Parser) -> GatherOp:
        # $src `[` $indices `]` attr-dict `:` functional-type(operands, results)
        pos = parser.pos
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        indices = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        properties: dict[str, Attribute] = {}
        attributes = _parse_attr_dict_into_properties(parser, cls._ATTR_DICT_PROPERTIES, properties)
        parser.parse_punctuation(":")
        inputs, outputs = _parse_functional_type(parser, 2, pos)
        return cls.build(
            operands=_resolve(parser, [src, indices], inputs, pos),
            result_types=[outputs[0] if len(outputs) == 1 else list(outputs)],
            properties=_in_order(properties, cls._ATTR_DICT_PROPERTIES),
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        with printer.in_square_brackets():
            printer.print_operand(self.indices)
        _print_attr_dict_with_properties(printer, self, self._ATTR_DICT_PROPERTIES)
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


# ===----------------------------------------------------------------------=== #
# 9. SPMD ops
# ===----------------------------------------------------------------------=== #


class _GridAxisOp(IRDLOperation):
    """``$axis attr-dict `:` type($result)``: an ``i32`` about the launch grid along ``axis``."""

    result = result_def(EqAttrConstraint(i32))
    """The value along ``axis``."""

    axis = prop_def(IntegerAttr[I32])
    """The grid axis (``ProgramIDDim``)."""

    traits = traits_def(Pure(), TensorSizeTrait())

    def __init__(self, axis: ProgramIDDim | int):
        super().__init__(result_types=[i32], properties={"axis": ProgramIDDim(axis).to_attr()})

    @property
    def axis_value(self) -> ProgramIDDim:
        """The grid axis."""
        return _enum_or_default(self.axis, ProgramIDDim.X)

    def verify_(self) -> None:
        _verify_enum_attr(self.axis, ProgramIDDim, "axis")

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        axis = _parse_enum(parser, ProgramIDDim, "axis")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result_type = parser.parse_type()
        return cls.build(
            result_types=[result_type], properties={"axis": axis.to_attr()}, attributes=attributes
        )

    def print(self, printer: Printer) -> None:
        member = ProgramIDDim.from_attr(self.axis)
        printer.print_string(f" {member.mnemonic if member is not None else self.axis}")
        _print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class GetProgramIdOp(_GridAxisOp):
    """The index of this program in the launch grid: ``%pid = tt.get_program_id x : i32``."""

    name = "tt.get_program_id"


@irdl_op_definition
class GetNumProgramsOp(_GridAxisOp):
    """The size of the launch grid: ``%n = tt.get_num_programs y : i32``."""

    name = "tt.get_num_programs"


@irdl_op_definition
class MakeRangeOp(IRDLOperation, HasFolderInterface):
    """The ``i32`` tensor ``[start, start + 1, ..., end - 1]``.

    ``%r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>``
    """

    name = "tt.make_range"

    result = result_def(IntTensorConstr)
    """The range."""

    start = prop_def(IntegerAttr[I32])
    """The first value."""

    end = prop_def(IntegerAttr[I32])
    """One past the last value."""

    traits = traits_def(Pure(), TensorSizeTrait())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("end", "start")

    def __init__(self, start: int, end: int, result_type: Attribute | None = None):
        if result_type is None:
            result_type = TensorType(i32, [end - start])
        super().__init__(
            result_types=[result_type],
            properties={"start": IntegerAttr(start, i32), "end": IntegerAttr(end, i32)},
        )

    def verify_(self) -> None:
        start, end = self.start.value.data, self.end.value.data
        if start >= end:
            raise _op_error(self, "start must be less than end")
        shape = _dims(self.result.type)
        if len(shape) != 1:
            raise _op_error(self, "return type must be a 1D tensor")
        if end - start != shape[0]:
            raise _op_error(
                self,
                f"number of elements in returned tensor, {shape[0]}, must match size of range "
                f"[{start}, {end}), which has {end - start} elements",
            )
        if _element_type(self.result.type) != i32:
            raise _op_error(self, "returned tensor must have i32 elements")

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        # make_range(start, start + 1) -> constant(start)
        if self.start.value.data + 1 != self.end.value.data:
            return None
        splat = _splat_of(self.result.type, self.start)
        return None if splat is None else (splat,)

    @classmethod
    def parse(cls, parser: Parser) -> MakeRangeOp:
        properties: dict[str, Attribute] = {}
        attributes = _parse_attr_dict_into_properties(parser, cls._ATTR_DICT_PROPERTIES, properties)
        parser.parse_punctuation(":")
        result_type = parser.parse_type()
        return cls.build(
            result_types=[result_type],
            properties=_in_order(properties, ("start", "end")),
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        _print_attr_dict_with_properties(printer, self, self._ATTR_DICT_PROPERTIES)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


# ===----------------------------------------------------------------------=== #
# 10. Elementwise and math ops
# ===----------------------------------------------------------------------=== #


def _zero_float_sign(attr: Attribute | None) -> bool | None:
    """For a float zero (or a splat of one), whether it is negative; None otherwise."""
    if not isinstance(attr, FloatAttr):
        attr = _splat_value(attr)
    if not isinstance(attr, FloatAttr) or attr.value.data != 0.0:
        return None
    return math.copysign(1.0, attr.value.data) < 0


@irdl_op_definition
class FpToFpOp(IRDLOperation, HasFolderInterface):
    """Convert between float types, fp8 included; a downcast names its rounding.

    ``%y = tt.fp_to_fp %x, rounding = rtne : tensor<16xf32> -> tensor<16xf8E5M2>``
    """

    name = "tt.fp_to_fp"

    src = operand_def(FloatLikeConstr)
    """The value to convert."""

    result = result_def(FloatLikeConstr)
    """The converted value."""

    rounding = opt_prop_def(IntegerAttr[I32])
    """The rounding of a downcast (``RoundingMode``)."""

    traits = traits_def(
        Elementwise(),
        SameOperandsAndResultShape(),
        SameOperandsAndResultEncoding(),
        Pure(),
        TensorSizeTrait(),
    )

    def __init__(
        self, src: SSAValue | Operation, result_type: Attribute, rounding: RoundingMode | None = None
    ):
        super().__init__(
            operands=[src], result_types=[result_type], properties={"rounding": _optional_enum_attr(rounding)}
        )

    def verify_(self) -> None:
        _verify_enum_attr(self.rounding, RoundingMode, "rounding")
        src_width = _bit_width(_element_type(self.src.type))
        if _bit_width(_element_type(self.result.type)) < src_width and self.rounding is None:
            raise _op_error(self, "Rounding mode is required for FP downcast")

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        if self.src.type == self.result.type:
            return (self.src,)
        negative = _zero_float_sign(_constant_value(self.src))
        element = _element_type(self.result.type)
        if negative is None or not isinstance(element, AnyFloat):
            return None
        zero = FloatAttr(-0.0 if negative else 0.0, element)
        if _shape(self.result.type) is None:
            return (zero,)
        splat = _splat_of(self.result.type, zero)
        return None if splat is None else (splat,)

    @classmethod
    def parse(cls, parser: Parser) -> FpToFpOp:
        # $src attr-dict (`,` `rounding` `=` $rounding^)? `:` type($src) `->` type($result)
        src = parser.parse_unresolved_operand()
        properties: dict[str, Attribute] = {}
        attributes = _parse_attr_dict_into_properties(parser, ("rounding",), properties)
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("rounding")
            parser.parse_punctuation("=")
            if "rounding" in properties:
                parser.raise_error("'rounding' is given twice")
            properties["rounding"] = _parse_enum(parser, RoundingMode, "rounding").to_attr()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        return cls.build(
            operands=[parser.resolve_operand(src, src_type)],
            result_types=[result_type],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        rounding = RoundingMode.from_attr(self.rounding)
        _print_attr_dict_with_properties(
            printer, self, ("rounding",), {"rounding"} if rounding is not None else frozenset()
        )
        if rounding is not None:
            printer.print_string(f", rounding = {rounding.mnemonic}")
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class ClampFOp(IRDLOperation):
    """Clamp floats into ``[min, max]``.

    ``%y = tt.clampf %x, %lo, %hi, propagateNan = all : tensor<16xf32>``
    """

    name = "tt.clampf"

    x = operand_def(FloatLikeConstr)
    """The value to clamp."""

    min = operand_def(FloatLikeConstr)
    """The lower bound."""

    max = operand_def(FloatLikeConstr)
    """The upper bound."""

    result = result_def(FloatLikeConstr)
    """The clamped value."""

    propagate_nan = prop_def(IntegerAttr[I32], prop_name="propagateNan")
    """Whether a NaN ``x`` gives NaN (``PropagateNan``)."""

    traits = traits_def(Elementwise(), SameOperandsAndResultType(), Pure(), TensorSizeTrait())

    def __init__(
        self,
        x: SSAValue | Operation,
        min: SSAValue | Operation,
        max: SSAValue | Operation,
        propagate_nan: PropagateNan = PropagateNan.NONE,
    ):
        super().__init__(
            operands=[x, min, max],
            result_types=[SSAValue.get(x).type],
            properties={"propagateNan": propagate_nan.to_attr()},
        )

    def verify_(self) -> None:
        _verify_enum_attr(self.propagate_nan, PropagateNan, "propagateNan")

    @classmethod
    def parse(cls, parser: Parser) -> ClampFOp:
        # $x `,` $min `,` $max `,` `propagateNan` `=` $propagateNan attr-dict `:` type($result)
        operands = [parser.parse_unresolved_operand()]
        for _ in range(2):
            parser.parse_punctuation(",")
            operands.append(parser.parse_unresolved_operand())
        parser.parse_punctuation(",")
        parser.parse_keyword("propagateNan")
        parser.parse_punctuation("=")
        properties: dict[str, Attribute] = {
            "propagateNan": _parse_enum(parser, PropagateNan, "propagateNan").to_attr()
        }
        attributes = _parse_attr_dict_into_properties(parser, (), properties)
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        return cls.build(
            operands=[parser.resolve_operand(u, type_) for u in operands],
            result_types=[type_],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        member = PropagateNan.from_attr(self.propagate_nan)
        printer.print_string(
            f", propagateNan = {member.mnemonic if member is not None else self.propagate_nan}"
        )
        _print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class PreciseSqrtOp(_SameTypeSyntax, IRDLOperation):
    """A correctly rounded square root: ``%y = tt.precise_sqrt %x : tensor<16xf32>``."""

    name = "tt.precise_sqrt"

    x = operand_def(FloatLikeConstr)
    """The operand."""

    result = result_def(FloatLikeConstr)
    """Its square root."""

    traits = traits_def(Elementwise(), SameOperandsAndResultType(), Pure(), TensorSizeTrait())

    def __init__(self, x: SSAValue | Operation):
        super().__init__(operands=[x], result_types=[SSAValue.get(x).type])


@irdl_op_definition
class PreciseDivFOp(_SameTypeSyntax, IRDLOperation):
    """A correctly rounded division: ``%z = tt.precise_divf %x, %y : tensor<16xf32>``."""

    name = "tt.precise_divf"

    x = operand_def(FloatLikeConstr)
    """The dividend."""

    y = operand_def(FloatLikeConstr)
    """The divisor."""

    result = result_def(FloatLikeConstr)
    """The quotient."""

    traits = traits_def(Elementwise(), SameOperandsAndResultType(), Pure(), TensorSizeTrait())

    def __init__(self, x: SSAValue | Operation, y: SSAValue | Operation):
        super().__init__(operands=[x, y], result_types=[SSAValue.get(x).type])


@irdl_op_definition
class MulhiUIOp(_SameTypeSyntax, IRDLOperation):
    """The high half of an unsigned product: ``%z = tt.mulhiui %x, %y : i32``."""

    name = "tt.mulhiui"

    x = operand_def(IntLikeConstr)
    """The first factor."""

    y = operand_def(IntLikeConstr)
    """The second factor."""

    result = result_def(IntLikeConstr)
    """The most significant half of the double-width product."""

    traits = traits_def(Elementwise(), SameOperandsAndResultType(), Pure(), TensorSizeTrait())

    def __init__(self, x: SSAValue | Operation, y: SSAValue | Operation):
        super().__init__(operands=[x, y], result_types=[SSAValue.get(x).type])


@irdl_op_definition
class ExternElementwiseOp(IRDLOperation):
    """Call an external library function elementwise.

    ``%y = tt.extern_elementwise %x {libname = "", libpath = "", pure = true,
    symbol = "__nv_expf"} : (tensor<16xf32>) -> tensor<16xf32>``
    """

    name = "tt.extern_elementwise"

    srcs = var_operand_def(TritonTypeConstr)
    """The arguments."""

    result = result_def(TritonTypeConstr)
    """The function's value."""

    libname = prop_def(StringAttr)
    """The library's name."""

    libpath = prop_def(StringAttr)
    """Where the library is."""

    symbol = prop_def(StringAttr)
    """The function's name."""

    pure = prop_def(BoolAttr)
    """Whether the function has no side effects."""

    traits = traits_def(
        Elementwise(),
        SameOperandsAndResultEncoding(),
        PureUnlessImpureEffect(),
        SpeculatableIfPure(),
        TensorSizeTrait(),
    )

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("libname", "libpath", "pure", "symbol")

    def __init__(
        self,
        srcs: Sequence[SSAValue | Operation],
        result_type: Attribute,
        symbol: str,
        *,
        libname: str = "",
        libpath: str = "",
        pure: bool = True,
    ):
        super().__init__(
            operands=[srcs],
            result_types=[result_type],
            properties={
                "libname": StringAttr(libname),
                "libpath": StringAttr(libpath),
                "symbol": StringAttr(symbol),
                "pure": IntegerAttr.from_bool(pure),
            },
        )

    @classmethod
    def parse(cls, parser: Parser) -> ExternElementwiseOp:
        # operands attr-dict `:` functional-type(operands, $result)
        pos = parser.pos
        unresolved = _parse_operand_list(parser)
        properties: dict[str, Attribute] = {}
        attributes = _parse_attr_dict_into_properties(parser, cls._ATTR_DICT_PROPERTIES, properties)
        parser.parse_punctuation(":")
        inputs, outputs = _parse_functional_type(parser, len(unresolved), pos)
        return cls.build(
            operands=[_resolve(parser, unresolved, inputs, pos)],
            result_types=[outputs[0] if len(outputs) == 1 else list(outputs)],
            properties=_in_order(properties, ("libname", "libpath", "symbol", "pure")),
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        # MLIR writes the space before an empty operand list too.
        printer.print_string(" ")
        _print_operands(printer, self.srcs)
        _print_attr_dict_with_properties(printer, self, self._ATTR_DICT_PROPERTIES)
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


@irdl_op_definition
class ElementwiseInlineAsmOp(IRDLOperation):
    """Inline assembly applied to ``packed_element`` elements at a time.

    ``%y:2 = tt.elementwise_inline_asm "asm" {constraints = "=r,=r,r",
    packed_element = 1 : i32, pure = true} %x : tensor<16xi32> -> tensor<16xi16>, tensor<16xi16>``
    """

    name = "tt.elementwise_inline_asm"

    args = var_operand_def(TritonTypeConstr)
    """The inputs."""

    result = var_result_def(TritonTypeConstr)
    """The outputs."""

    asm_string = prop_def(StringAttr)
    """The assembly."""

    constraints = prop_def(StringAttr)
    """The asm constraints (outputs, then inputs)."""

    pure = prop_def(BoolAttr)
    """Whether the assembly has no side effects."""

    packed_element = prop_def(IntegerAttr[I32])
    """How many elements the assembly gets at a time."""

    traits = traits_def(
        Elementwise(),
        SameOperandsAndResultEncoding(),
        PureUnlessImpureEffect(),
        SpeculatableIfPure(),
        TensorSizeTrait(),
    )

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("constraints", "packed_element", "pure")

    def __init__(
        self,
        asm_string: str,
        args: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        *,
        constraints: str,
        pure: bool = True,
        packed_element: int = 1,
    ):
        super().__init__(
            operands=[args],
            result_types=[result_types],
            properties={
                "asm_string": StringAttr(asm_string),
                "constraints": StringAttr(constraints),
                "pure": IntegerAttr.from_bool(pure),
                "packed_element": IntegerAttr(packed_element, i32),
            },
        )

    def verify_(self) -> None:
        if not self.args:
            return
        shape = _shape(self.args[0].type)
        count = math.prod(shape) if shape is not None else 0
        packed = self.packed_element.value.data
        if packed == 0 or count % packed:
            raise _op_error(
                self,
                f"number of input elements {count} must be a multiple of the op's "
                f"packed_element attribute, {packed}",
            )

    @classmethod
    def parse(cls, parser: Parser) -> ElementwiseInlineAsmOp:
        # $asm_string attr-dict ($args^ `:` type($args))? `->` type($result)
        asm_string = parser.parse_str_literal()
        properties: dict[str, Attribute] = {}
        attributes = _parse_attr_dict_into_properties(parser, cls._ATTR_DICT_PROPERTIES, properties)
        pos = parser.pos
        unresolved = _parse_operand_list(parser)
        args: list[SSAValue] = []
        if unresolved:
            parser.parse_punctuation(":")
            args = _resolve(parser, unresolved, _parse_type_list(parser), pos)
        parser.parse_punctuation("->")
        result_types = _parse_type_list(parser)
        properties["asm_string"] = StringAttr(asm_string)
        return cls.build(
            operands=[args],
            result_types=[result_types],
            properties=_in_order(properties, ("asm_string", "constraints", "pure", "packed_element")),
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.asm_string.data)
        _print_attr_dict_with_properties(printer, self, self._ATTR_DICT_PROPERTIES)
        if self.args:
            printer.print_string(" ")
            _print_operands(printer, self.args)
            printer.print_string(" : ")
            _print_types(printer, self.args.types)
        printer.print_string(" -> ")
        _print_types(printer, self.result.types)


@irdl_op_definition
class HistogramOp(IRDLOperation):
    """Count the values of an integer tensor into bins of width 1 from 0.

    ``%h = tt.histogram %x, %mask : tensor<128xi32> -> tensor<16xi32>``
    """

    name = "tt.histogram"

    src = operand_def(IntTensorConstr)
    """The values to count."""

    mask = opt_operand_def(BoolLikeConstr)
    """Which values to count (``i1`` shaped like ``src``)."""

    result = result_def(IntTensorConstr)
    """The counts; its size is the number of bins."""

    traits = traits_def(Pure(), TensorSizeTrait())

    def __init__(
        self, src: SSAValue | Operation, result_type: Attribute, mask: SSAValue | Operation | None = None
    ):
        super().__init__(operands=[src, mask], result_types=[result_type])

    def verify_(self) -> None:
        if self.mask is not None and self.mask.type != get_i1_same_shape(self.src.type):
            raise _op_error(self, "failed to verify that mask type matches src type")

    @classmethod
    def parse(cls, parser: Parser) -> HistogramOp:
        # $src (`,` $mask^)? attr-dict `:` type($src) `->` type($result)
        src = parser.parse_unresolved_operand()
        mask = parser.parse_unresolved_operand() if parser.parse_optional_punctuation(",") else None
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls(
            parser.resolve_operand(src, src_type),
            result_type,
            None if mask is None else parser.resolve_operand(mask, get_i1_same_shape(src_type)),
        )
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, [v for v in (self.src, self.mask) if v is not None])
        _print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


# ===----------------------------------------------------------------------=== #
# 11. Dot ops
# ===----------------------------------------------------------------------=== #


def _verify_dot_interface(
    op: Operation,
    a: Attribute,
    b: Attribute,
    c: Attribute,
    k_factors: tuple[int, int] = (1, 1),
    mn_factors: tuple[int, int] = (1, 1),
) -> None:
    """Triton's ``verifyDotOpInterface``: 2D or batched 3D operands that multiply.

    ``k_factors`` scale the K dimension of A and B and ``mn_factors`` their M
    and N (``tt.dot_scaled`` packs two fp4 values in a byte).
    """
    a_shape, b_shape, c_shape = _dims(a), _dims(b), _dims(c)
    if len(a_shape) not in (2, 3):
        raise _op_error(op, "expected operands to be 2d or 3d")
    if len(a_shape) != len(b_shape) or len(a_shape) != len(c_shape):
        raise _op_error(op, "expected all operands to have the same rank")
    if a_shape[-1] * k_factors[0] != b_shape[-2] * k_factors[1]:
        raise _op_error(
            op,
            "expected the last dimension of the first operand to be equal to the second-to-last "
            "dimension of the second operand",
        )
    if len(a_shape) == 3 and (a_shape[0] != c_shape[0] or b_shape[0] != c_shape[0]):
        raise _op_error(
            op,
            "expected the first dimension of the first operand to be equal to the first "
            "dimension of the result",
        )
    if c_shape[-2] != a_shape[-2] * mn_factors[0] or c_shape[-1] != b_shape[-1] * mn_factors[1]:
        raise _op_error(
            op,
            "expected the output shape to be the concatenation of the last dimension of the first "
            "operand and the last dimension of the second ",
        )


@irdl_op_definition
class DotOp(IRDLOperation):
    """``d = a @ b + c`` on 2D (or batched 3D) tensors.

    ``%d = tt.dot %a, %b, %c, inputPrecision = tf32
    : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>``
    """

    name = "tt.dot"

    a = operand_def(FpIntTensorConstr)
    """The left factor (M x K)."""

    b = operand_def(FpIntTensorConstr)
    """The right factor (K x N)."""

    c = operand_def(FpIntTensorConstr)
    """The accumulator (M x N), of the result's type."""

    d = result_def(FpIntTensorConstr)
    """The result."""

    input_precision = opt_prop_def(IntegerAttr[I32], prop_name="inputPrecision")
    """How f32 inputs use tensor cores (``InputPrecision``); absent means ``ieee``."""

    max_num_imprecise_acc = opt_prop_def(IntegerAttr[I32], prop_name="maxNumImpreciseAcc")
    """How many products may be accumulated imprecisely (fp8); absent means 0."""

    traits = traits_def(Pure(), TensorSizeTrait())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("inputPrecision", "maxNumImpreciseAcc")

    _PROPERTY_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {
        "inputPrecision": InputPrecision.IEEE.to_attr(),
        "maxNumImpreciseAcc": IntegerAttr(0, i32),
    }
    """Triton's ``DefaultValuedAttr`` defaults, never printed nor stored."""

    def __init__(
        self,
        a: SSAValue | Operation,
        b: SSAValue | Operation,
        c: SSAValue | Operation,
        *,
        input_precision: InputPrecision | None = None,
        max_num_imprecise_acc: int | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[a, b, c],
            result_types=[SSAValue.get(c).type],
            properties=_without_defaults(
                {
                    "inputPrecision": _optional_enum_attr(input_precision),
                    "maxNumImpreciseAcc": None
                    if max_num_imprecise_acc is None
                    else IntegerAttr(max_num_imprecise_acc, i32),
                },
                self._PROPERTY_DEFAULTS,
            ),
            attributes=attributes,
        )

    @property
    def input_precision_value(self) -> InputPrecision:
        """The input precision, with Triton's default (``ieee``) filled in."""
        return _enum_or_default(self.input_precision, InputPrecision.IEEE)

    @property
    def max_num_imprecise_acc_value(self) -> int:
        """``maxNumImpreciseAcc``, with Triton's default (0) filled in."""
        return 0 if self.max_num_imprecise_acc is None else self.max_num_imprecise_acc.value.data

    def verify_(self) -> None:
        _verify_enum_attr(self.input_precision, InputPrecision, "inputPrecision")
        _verify_dot_interface(self, self.a.type, self.b.type, self.c.type)
        if self.d.type != self.c.type:
            raise _op_error(self, "failed to verify that result's type matches accumulator's type")
        if _bit_width(_element_type(self.a.type)) != _bit_width(_element_type(self.b.type)):
            raise _op_error(self, "element types of operands A and B must have same bit width")
        a_encoding, b_encoding = _encoding(self.a.type), _encoding(self.b.type)
        if (a_encoding is None) != (b_encoding is None):
            raise _op_error(self, "mismatching encoding between A and B operands")
        if a_encoding is not None and _encoding(self.c.type) is None:
            raise _op_error(self, "miss encoding of C operand")

    @classmethod
    def parse(cls, parser: Parser) -> DotOp:
        # $a `,` $b `,` $c (`,` `inputPrecision` `=` $inputPrecision^)? attr-dict
        # `:` type($a) `*` type($b) `->` type($d)
        operands = [parser.parse_unresolved_operand()]
        for _ in range(2):
            parser.parse_punctuation(",")
            operands.append(parser.parse_unresolved_operand())
        properties: dict[str, Attribute] = {}
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("inputPrecision")
            parser.parse_punctuation("=")
            properties["inputPrecision"] = _parse_enum(parser, InputPrecision, "inputPrecision").to_attr()
        attributes = _parse_attr_dict_into_properties(parser, cls._ATTR_DICT_PROPERTIES, properties)
        parser.parse_punctuation(":")
        a_type = parser.parse_type()
        parser.parse_punctuation("*")
        b_type = parser.parse_type()
        parser.parse_punctuation("->")
        d_type = parser.parse_type()
        return cls.build(
            operands=[
                parser.resolve_operand(u, t) for u, t in zip(operands, (a_type, b_type, d_type), strict=True)
            ],
            result_types=[d_type],
            properties=_without_defaults(
                _in_order(properties, cls._ATTR_DICT_PROPERTIES), cls._PROPERTY_DEFAULTS
            ),
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_operands(printer, self.operands)
        precision = self.input_precision_value
        if self.input_precision is not None and precision != InputPrecision.IEEE:
            printer.print_string(f", inputPrecision = {precision.mnemonic}")
        _print_attr_dict_with_properties(
            printer, self, self._ATTR_DICT_PROPERTIES, {"inputPrecision"}, defaults=self._PROPERTY_DEFAULTS
        )
        printer.print_string(" : ")
        printer.print_attribute(self.a.type)
        printer.print_string(" * ")
        printer.print_attribute(self.b.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.d.type)


ScaledOperandConstr = TensorType.constr(FloatConstr | EqAttrConstraint(IntegerType(8)))
"""``RankedTensorOf<[TT_Float, I8]>``: a ``tt.dot_scaled`` operand or scale."""


@irdl_op_definition
class DotScaledOp(IRDLOperation):
    """``d = scale(a, a_scale) @ scale(b, b_scale) + c`` with microscaling formats.

    ``%d = tt.dot_scaled %a scale %sa, %b scale %sb, %c lhs = e5m2 rhs = e5m2
    {fastMath = false} : tensor<128x128xf8E5M2>, tensor<128x4xi8> *
    tensor<128x128xf8E5M2>, tensor<128x4xi8> -> tensor<128x128xf32>``
    """

    name = "tt.dot_scaled"

    a = operand_def(ScaledOperandConstr)
    """The left factor (fp4 packed in pairs in ``i8``)."""

    b = operand_def(ScaledOperandConstr)
    """The right factor."""

    c = operand_def(TensorType.constr(FloatConstr))
    """The accumulator."""

    a_scale = opt_operand_def(ScaledOperandConstr)
    """The scales of ``a``, one per block of K."""

    b_scale = opt_operand_def(ScaledOperandConstr)
    """The scales of ``b``."""

    d = result_def(TensorType.constr(FloatConstr))
    """The result, of the accumulator's type."""

    a_elem_type = prop_def(IntegerAttr[I32])
    """The element format of ``a`` (``ScaleDotElemType``)."""

    b_elem_type = prop_def(IntegerAttr[I32])
    """The element format of ``b``."""

    fast_math = prop_def(BoolAttr, prop_name="fastMath")
    """Whether NaN/inf handling may be skipped."""

    lhs_k_pack = opt_prop_def(BoolAttr)
    """Whether fp4 ``a`` is packed along K; absent means true."""

    rhs_k_pack = opt_prop_def(BoolAttr)
    """Whether fp4 ``b`` is packed along K; absent means true."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    traits = traits_def(Pure(), TensorSizeTrait())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = (
        "a_elem_type",
        "b_elem_type",
        "fastMath",
        "lhs_k_pack",
        "rhs_k_pack",
    )

    _PROPERTY_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {"lhs_k_pack": _TRUE, "rhs_k_pack": _TRUE}
    """Triton's ``DefaultValuedAttr`` defaults, never printed nor stored."""

    def __init__(
        self,
        a: SSAValue | Operation,
        b: SSAValue | Operation,
        c: SSAValue | Operation,
        a_elem_type: ScaleDotElemType,
        b_elem_type: ScaleDotElemType,
        *,
        a_scale: SSAValue | Operation | None = None,
        b_scale: SSAValue | Operation | None = None,
        fast_math: bool = False,
        lhs_k_pack: bool = True,
        rhs_k_pack: bool = True,
    ):
        super().__init__(
            operands=[a, b, c, a_scale, b_scale],
            result_types=[SSAValue.get(c).type],
            properties=_without_defaults(
                {
                    "a_elem_type": a_elem_type.to_attr(),
                    "b_elem_type": b_elem_type.to_attr(),
                    "fastMath": IntegerAttr.from_bool(fast_math),
                    "lhs_k_pack": IntegerAttr.from_bool(lhs_k_pack),
                    "rhs_k_pack": IntegerAttr.from_bool(rhs_k_pack),
                },
                self._PROPERTY_DEFAULTS,
            ),
        )

    def _packs(self) -> tuple[bool, bool, bool, bool]:
        """(a is fp4, b is fp4, lhs_k_pack, rhs_k_pack)."""
        a_fp4 = ScaleDotElemType.from_attr(self.a_elem_type) == ScaleDotElemType.E2M1
        b_fp4 = ScaleDotElemType.from_attr(self.b_elem_type) == ScaleDotElemType.E2M1
        lhs_pack = self.lhs_k_pack is None or bool(self.lhs_k_pack.value.data)
        rhs_pack = self.rhs_k_pack is None or bool(self.rhs_k_pack.value.data)
        return a_fp4, b_fp4, lhs_pack, rhs_pack

    def verify_(self) -> None:
        _verify_enum_attr(self.a_elem_type, ScaleDotElemType, "a_elem_type")
        _verify_enum_attr(self.b_elem_type, ScaleDotElemType, "b_elem_type")
        if self.d.type != self.c.type:
            raise _op_error(self, "failed to verify that result's type matches accumulator's type")
        a_fp4, b_fp4, lhs_pack, rhs_pack = self._packs()
        k_factors = (2 if a_fp4 and lhs_pack else 1, 2 if b_fp4 and rhs_pack else 1)
        mn_factors = (2 if a_fp4 and not lhs_pack else 1, 2 if b_fp4 and not rhs_pack else 1)
        _verify_dot_interface(self, self.a.type, self.b.type, self.c.type, k_factors, mn_factors)
        a_shape, c_shape = _dims(self.a.type), _dims(self.c.type)
        rank = len(a_shape)
        k = a_shape[-1] * k_factors[0]
        for scale, dim, name in ((self.a_scale, c_shape[-2], "M"), (self.b_scale, c_shape[-1], "N")):
            if scale is None:
                continue
            scale_shape = _dims(scale.type)
            if scale_shape[rank - 2] != dim:
                raise _op_error(self, f"scales {name} dimension must match the operand {name} dimension")
            factor = 16 if isinstance(_element_type(scale.type), Float8E4M3FNType) else 32
            if scale_shape[rank - 1] != k // factor:
                raise _op_error(
                    self, "scales K dimension must match the operand K divided by the scale factor"
                )

    @classmethod
    def parse(cls, parser: Parser) -> DotScaledOp:
        # $a (`scale` $a_scale^)? `,` $b (`scale` $b_scale^)? `,` $c
        # `lhs` `=` $a_elem_type `rhs` `=` $b_elem_type attr-dict
        # `:` type($a) (`,` type($a_scale)^)? `*` type($b) (`,` type($b_scale)^)? `->` type($d)
        a = parser.parse_unresolved_operand()
        a_scale = parser.parse_unresolved_operand() if parser.parse_optional_keyword("scale") else None
        parser.parse_punctuation(",")
        b = parser.parse_unresolved_operand()
        b_scale = parser.parse_unresolved_operand() if parser.parse_optional_keyword("scale") else None
        parser.parse_punctuation(",")
        c = parser.parse_unresolved_operand()
        properties: dict[str, Attribute] = {}
        for keyword, prop in (("lhs", "a_elem_type"), ("rhs", "b_elem_type")):
            parser.parse_keyword(keyword)
            parser.parse_punctuation("=")
            properties[prop] = _parse_enum(parser, ScaleDotElemType, keyword).to_attr()
        attributes = _parse_attr_dict_into_properties(parser, cls._ATTR_DICT_PROPERTIES, properties)
        parser.parse_punctuation(":")
        a_type = parser.parse_type()
        a_scale_type = parser.parse_type() if a_scale is not None and parser.parse_punctuation(",") else None
        parser.parse_punctuation("*")
        b_type = parser.parse_type()
        b_scale_type = parser.parse_type() if b_scale is not None and parser.parse_punctuation(",") else None
        parser.parse_punctuation("->")
        d_type = parser.parse_type()
        scales = [
            [] if u is None or t is None else [parser.resolve_operand(u, t)]
            for u, t in ((a_scale, a_scale_type), (b_scale, b_scale_type))
        ]
        return cls.build(
            operands=[
                parser.resolve_operand(a, a_type),
                parser.resolve_operand(b, b_type),
                parser.resolve_operand(c, d_type),
                *scales,
            ],
            result_types=[d_type],
            properties=_without_defaults(
                _in_order(properties, ("a_elem_type", "b_elem_type", "fastMath", "lhs_k_pack", "rhs_k_pack")),
                cls._PROPERTY_DEFAULTS,
            ),
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.a)
        if self.a_scale is not None:
            printer.print_string(" scale ")
            printer.print_operand(self.a_scale)
        printer.print_string(", ")
        printer.print_operand(self.b)
        if self.b_scale is not None:
            printer.print_string(" scale ")
            printer.print_operand(self.b_scale)
        printer.print_string(", ")
        printer.print_operand(self.c)
        for keyword, attr in (("lhs", self.a_elem_type), ("rhs", self.b_elem_type)):
            member = ScaleDotElemType.from_attr(attr)
            printer.print_string(f" {keyword} = {member.mnemonic if member is not None else attr}")
        _print_attr_dict_with_properties(
            printer, self, self._ATTR_DICT_PROPERTIES, {"a_elem_type", "b_elem_type"}, self._PROPERTY_DEFAULTS
        )
        printer.print_string(" : ")
        printer.print_attribute(self.a.type)
        if self.a_scale is not None:
            printer.print_string(", ")
            printer.print_attribute(self.a_scale.type)
        printer.print_string(" * ")
        printer.print_attribute(self.b.type)
        if self.b_scale is not None:
            printer.print_string(", ")
            printer.print_attribute(self.b_scale.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.d.type)


# ===----------------------------------------------------------------------=== #
# 12. Ops with a combine region (generic syntax)
# ===----------------------------------------------------------------------=== #


def _reduce_result_type(src_type: Attribute, axis: int) -> Attribute:
    """A reduction's result type: ``src_type`` without ``axis``; a scalar from 1D."""
    assert isa(src_type, TensorType[Attribute])
    shape = list(src_type.get_shape())
    del shape[axis]
    if not shape:
        return src_type.get_element_type()
    encoding = _inferred_encoding(src_type, lambda e: e.reduce_encoding(axis))
    return TensorType(src_type.get_element_type(), shape, encoding)


def _verify_reduce_scan(op: Operation, srcs: Sequence[SSAValue], axis: int) -> None:
    """Triton's ``verifyReduceScan``: operands, results and axis agree."""
    if not srcs:
        raise _op_error(op, "must have at least 1 operand")
    if len(srcs) != len(op.results):
        raise _op_error(op, "must have the same number of inputs as outputs")
    first_rank = 0
    for src in srcs:
        rank = len(_dims(src.type))
        if not 0 <= axis < rank:
            raise _op_error(op, f"axis out of bounds for operand rank {rank}")
        if first_rank == 0:
            first_rank = rank
        elif rank != first_rank:
            raise _op_error(
                op, f"all operands must have the same rank, but got ranks {first_rank} and {rank}"
            )
    for src, result in zip(srcs, op.results, strict=True):
        if _element_type(src.type) != _element_type(result.type):
            raise _op_error(op, "operand types and result types must agree")


def _verify_combine_region(
    op: Operation, srcs: Sequence[SSAValue], region: Region, return_type: type[Operation]
) -> None:
    """Triton's ``verifyRegionsImpl``: the combiner takes two sets of elements
    and returns one set through ``return_type``."""
    elements = [_element_type(src.type) for src in srcs]
    block = region.blocks.first
    if block is None:
        raise _op_error(op, "combine region must have a block")
    arg_types = block.arg_types
    if len(arg_types) != 2 * len(srcs):
        raise _op_error(
            op,
            f"nested block must take {2 * len(srcs)} arguments, but given block with "
            f"{len(arg_types)} arguments",
        )
    for i, arg_type in enumerate(arg_types):
        if arg_type != elements[i % len(srcs)]:
            raise _op_error(
                op,
                f"type mismatch on combine operation. Expected argument {i} to have type "
                f"'{elements[i % len(srcs)]}' but got '{arg_type}'",
            )
    terminator = block.last_op
    if not isinstance(terminator, return_type):
        raise _op_error(
            op, f"combine operation must be terminated with a {return_type.name} but got {terminator}"
        )
    returned = terminator.operand_types
    if len(returned) != len(srcs):
        raise _op_error(
            op, f"expected combine operation to return {len(srcs)} values but got {len(returned)}"
        )
    for i, (returned_type, element) in enumerate(zip(returned, elements, strict=True)):
        if returned_type != element:
            raise _op_error(
                op,
                f"type mismatch on combine operation. Expected argument {i} to have type '{element}' "
                f"but got '{returned_type}'",
            )


def _combine_region(srcs: Sequence[SSAValue | Operation], region: Region | None) -> Region:
    """``region``, or an empty combiner block taking two sets of elements."""
    if region is not None:
        return region
    elements = [_element_type(SSAValue.get(src).type) for src in srcs]
    return Region(Block(arg_types=[*elements, *elements]))


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """Reduce tensors along ``axis`` with the combiner in its region.

    Triton prints it in generic form::

        %r = "tt.reduce"(%x) <{axis = 0 : i32}> ({
        ^bb0(%a: f32, %b: f32):
          %s = arith.addf %a, %b : f32
          tt.reduce.return %s : f32
        }) : (tensor<16xf32>) -> f32
    """

    name = "tt.reduce"

    srcs = var_operand_def(TensorConstr)
    """The tensors reduced together."""

    result = var_result_def(TritonTypeConstr)
    """One reduced value per input."""

    axis = prop_def(IntegerAttr[I32])
    """The dimension reduced."""

    combine_op = region_def("single_block")
    """The combiner: two sets of elements in, one set out (``tt.reduce.return``)."""

    traits = traits_def(Pure(), SameOperandsShape(), SameOperandsEncoding(), TensorSizeTrait())

    def __init__(
        self,
        srcs: Sequence[SSAValue | Operation],
        axis: int,
        combine_op: Region | None = None,
    ):
        result_types = [_reduce_result_type(SSAValue.get(src).type, axis) for src in srcs]
        super().__init__(
            operands=[srcs],
            result_types=[result_types],
            properties={"axis": IntegerAttr(axis, i32)},
            regions=[_combine_region(srcs, combine_op)],
        )

    def verify_(self) -> None:
        axis = self.axis.value.data
        _verify_reduce_scan(self, self.srcs, axis)
        try:
            inferred = [_reduce_result_type(src.type, axis) for src in self.srcs]
        except LayoutInferenceError as exc:
            raise _op_error(self, str(exc)) from None
        _verify_inferred_types(self, inferred)
        _verify_combine_region(self, self.srcs, self.combine_op, ReduceReturnOp)

    def get_single_combiner(self) -> Operation | None:
        """The one op combining the two block arguments, when that is all the
        combiner does (``getSingleCombiner``); None otherwise."""
        if len(self.srcs) != 1 or len(self.results) != 1:
            return None
        block = self.combine_op.block
        terminator = block.last_op
        if terminator is None or not terminator.operands:
            return None
        combiner = terminator.operands[0].owner
        if not isinstance(combiner, Operation) or len(combiner.operands) != 2 or len(combiner.results) != 1:
            return None
        if tuple(combiner.operands) != tuple(block.args[:2]):
            return None
        return combiner


class _CombineReturnOp(IRDLOperation):
    """A combiner's terminator: ``$result attr-dict `:` type($result)``."""

    result = var_operand_def()
    """The combined values."""

    def __init__(self, *results: SSAValue | Operation):
        super().__init__(operands=[results])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        pos = parser.pos
        unresolved = _parse_operand_list(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = _parse_type_list(parser) if unresolved else []
        return cls.build(operands=[_resolve(parser, unresolved, types, pos)], attributes=attributes)

    def print(self, printer: Printer) -> None:
        if self.operands:
            printer.print_string(" ")
            _print_operands(printer, self.operands)
        _print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        _print_types(printer, self.operand_types)


@irdl_op_definition
class ReduceReturnOp(_CombineReturnOp):
    """The terminator of ``tt.reduce``'s combiner: ``tt.reduce.return %s : f32``."""

    name = "tt.reduce.return"

    traits = traits_def(HasParent(ReduceOp), Pure(), IsTerminator(), ReturnLike(), TensorSizeTrait())


@irdl_op_definition
class ScanOp(IRDLOperation):
    """An associative scan along ``axis`` with the combiner in its region.

    Triton prints it in generic form::

        %r = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
        ^bb0(%a: f32, %b: f32):
          %s = arith.addf %a, %b : f32
          tt.scan.return %s : f32
        }) : (tensor<16xf32>) -> tensor<16xf32>
    """

    name = "tt.scan"

    srcs = var_operand_def(TensorConstr)
    """The tensors scanned together."""

    result = var_result_def(TensorConstr)
    """One scanned tensor per input, of its type."""

    axis = prop_def(IntegerAttr[I32])
    """The dimension scanned."""

    reverse = prop_def(BoolAttr)
    """Whether to scan from the end."""

    combine_op = region_def("single_block")
    """The combiner: two sets of elements in, one set out (``tt.scan.return``)."""

    traits = traits_def(
        Pure(), SameOperandsAndResultEncoding(), SameOperandsAndResultShape(), TensorSizeTrait()
    )

    def __init__(
        self,
        srcs: Sequence[SSAValue | Operation],
        axis: int,
        reverse: bool = False,
        combine_op: Region | None = None,
    ):
        super().__init__(
            operands=[srcs],
            result_types=[[SSAValue.get(src).type for src in srcs]],
            properties={"axis": IntegerAttr(axis, i32), "reverse": IntegerAttr.from_bool(reverse)},
            regions=[_combine_region(srcs, combine_op)],
        )

    def verify_(self) -> None:
        _verify_reduce_scan(self, self.srcs, self.axis.value.data)
        _verify_inferred_types(self, self.srcs.types)
        _verify_combine_region(self, self.srcs, self.combine_op, ScanReturnOp)


@irdl_op_definition
class ScanReturnOp(_CombineReturnOp):
    """The terminator of ``tt.scan``'s combiner: ``tt.scan.return %s : f32``."""

    name = "tt.scan.return"

    traits = traits_def(HasParent(ScanOp), Pure(), IsTerminator(), ReturnLike(), TensorSizeTrait())


@irdl_op_definition
class MapElementwiseOp(IRDLOperation):
    """Map the scalar function in its region over tensors, ``pack`` elements at a time.

    Printed in generic form, like ``tt.reduce``; stores are not allowed inside.
    """

    name = "tt.map_elementwise"

    srcs = var_operand_def(TensorConstr)
    """The tensors mapped over."""

    result = var_result_def(TensorConstr)
    """The mapped tensors."""

    pack = prop_def(IntegerAttr[I32])
    """How many elements of each input the region takes at a time (a power of 2)."""

    scalar_op = region_def()
    """The scalar function, ending in ``tt.map_elementwise.return``."""

    traits = traits_def(
        SameOperandsAndResultEncoding(),
        SameOperandsAndResultShape(),
        RecursiveMemoryEffect(),
        TensorSizeTrait(),
    )

    def __init__(
        self,
        srcs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        scalar_op: Region,
        pack: int = 1,
    ):
        super().__init__(
            operands=[srcs],
            result_types=[result_types],
            properties={"pack": IntegerAttr(pack, i32)},
            regions=[scalar_op],
        )

    def verify_(self) -> None:
        if not self.srcs:
            raise _op_error(self, "MapElementwiseOp must have at least 1 operand")
        pack = self.pack.value.data
        if pack <= 0 or pack & (pack - 1):
            raise _op_error(self, "Pack must be a power of 2")
        block = self.scalar_op.blocks.first
        if block is None:
            return
        expected_args = [_element_type(t) for t in self.srcs.types for _ in range(pack)]
        if len(block.args) != len(expected_args):
            raise _op_error(self, "region has wrong number of arguments")
        if list(block.arg_types) != expected_args:
            raise _op_error(self, "argument types did not match")
        expected_returns = tuple(_element_type(t) for t in self.result.types for _ in range(pack))
        for nested in self.scalar_op.walk():
            effects = get_effects(nested)
            if effects is not None and any(e.kind == MemoryEffectKind.WRITE for e in effects):
                raise VerifyException(f"'{nested.name}' op Stores are not supported inside map_elementwise")
            if isinstance(nested, MapElementwiseReturnOp) and nested.operand_types != expected_returns:
                raise VerifyException("region return does not match map_elementwise result")


@irdl_op_definition
class MapElementwiseReturnOp(IRDLOperation):
    """The terminator of ``tt.map_elementwise``: ``tt.map_elementwise.return %x : f32``."""

    name = "tt.map_elementwise.return"

    result = var_operand_def()
    """The mapped values."""

    traits = traits_def(HasParent(MapElementwiseOp), Pure(), IsTerminator(), ReturnLike(), TensorSizeTrait())

    irdl_options = (ParsePropInAttrDict(),)

    assembly_format = "attr-dict ($result^ `:` type($result))?"

    def __init__(self, *results: SSAValue | Operation):
        super().__init__(operands=[results])


# ===----------------------------------------------------------------------=== #
# 13. Debug ops
# ===----------------------------------------------------------------------=== #


@irdl_op_definition
class PrintOp(IRDLOperation):
    """Print from the device, as CUDA's ``printf`` does.

    ``tt.print ": x" {hex = false, isSigned = array<i32: 1>} : %x : tensor<16xi32>``
    """

    name = "tt.print"

    args = var_operand_def(TritonTypeConstr)
    """The values printed."""

    prefix = prop_def(StringAttr)
    """The text printed first."""

    hex = prop_def(BoolAttr)
    """Whether to print in hexadecimal."""

    is_signed = prop_def(DenseArrayBase[I32], prop_name="isSigned")
    """Per argument, whether its integers are signed."""

    traits = traits_def(GlobalMemoryWriteEffect(), TensorSizeTrait())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("hex", "isSigned")

    def __init__(
        self,
        prefix: str,
        args: Sequence[SSAValue | Operation] = (),
        *,
        hex: bool = False,
        is_signed: Sequence[int] = (),
    ):
        super().__init__(
            operands=[args],
            properties={
                "prefix": StringAttr(prefix),
                "hex": IntegerAttr.from_bool(hex),
                "isSigned": DenseArrayBase.from_list(i32, is_signed),
            },
        )

    @classmethod
    def parse(cls, parser: Parser) -> PrintOp:
        # $prefix attr-dict (`:` $args^ `:` type($args))?
        properties: dict[str, Attribute] = {"prefix": StringAttr(parser.parse_str_literal())}
        attributes = _parse_attr_dict_into_properties(parser, cls._ATTR_DICT_PROPERTIES, properties)
        args: list[SSAValue] = []
        if parser.parse_optional_punctuation(":") is not None:
            pos = parser.pos
            unresolved = _parse_operand_list(parser)
            parser.parse_punctuation(":")
            args = _resolve(parser, unresolved, _parse_type_list(parser), pos)
        return cls.build(
            operands=[args],
            properties=_in_order(properties, ("prefix", "hex", "isSigned")),
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.prefix.data)
        _print_attr_dict_with_properties(printer, self, self._ATTR_DICT_PROPERTIES)
        if self.args:
            printer.print_string(" : ")
            _print_operands(printer, self.args)
            printer.print_string(" : ")
            _print_types(printer, self.args.types)


@irdl_op_definition
class AssertOp(IRDLOperation):
    """Abort the program with ``message`` where ``condition`` is false.

    ``tt.assert %cond, "x must be positive" : tensor<16xi1>``
    """

    name = "tt.assert"

    condition = operand_def(BoolLikeConstr)
    """What must hold."""

    message = prop_def(StringAttr)
    """The message printed when it does not."""

    traits = traits_def(GlobalMemoryWriteEffect(), TensorSizeTrait())

    def __init__(self, condition: SSAValue | Operation, message: str):
        super().__init__(operands=[condition], properties={"message": StringAttr(message)})

    @classmethod
    def parse(cls, parser: Parser) -> AssertOp:
        # $condition `,` $message attr-dict `:` type($condition)
        condition = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        message = parser.parse_str_literal()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        condition_type = parser.parse_type()
        op = cls(parser.resolve_operand(condition, condition_type), message)
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.condition)
        printer.print_string(", ")
        printer.print_string_literal(self.message.data)
        _print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        printer.print_attribute(self.condition.type)


# ===----------------------------------------------------------------------=== #
# 14. The dialect
# ===----------------------------------------------------------------------=== #

TT = Dialect(
    "tt",
    [
        # Function ops
        FuncOp,
        CallOp,
        ReturnOp,
        # Memory ops
        LoadOp,
        StoreOp,
        AtomicRMWOp,
        AtomicCASOp,
        DescriptorLoadOp,
        DescriptorStoreOp,
        DescriptorReduceOp,
        DescriptorGatherOp,
        DescriptorScatterOp,
        # Pointer ops
        AddPtrOp,
        AdvanceOp,
        MakeTensorPtrOp,
        MakeTensorDescOp,
        IntToPtrOp,
        PtrToIntOp,
        BitcastOp,
        # Shape ops
        SplatOp,
        UnsplatOp,
        ExpandDimsOp,
        ReshapeOp,
        BroadcastOp,
        CatOp,
        JoinOp,
        SplitOp,
        TransOp,
        GatherOp,
        # SPMD ops
        GetProgramIdOp,
        GetNumProgramsOp,
        MakeRangeOp,
        # Elementwise and math ops
        FpToFpOp,
        ClampFOp,
        PreciseSqrtOp,
        PreciseDivFOp,
        MulhiUIOp,
        ExternElementwiseOp,
        ElementwiseInlineAsmOp,
        HistogramOp,
        # Dot ops
        DotOp,
        DotScaledOp,
        # Region ops
        ReduceOp,
        ReduceReturnOp,
        ScanOp,
        ScanReturnOp,
        MapElementwiseOp,
        MapElementwiseReturnOp,
        # Debug ops
        PrintOp,
        AssertOp,
    ],
    [
        PointerType,
        TensorDescType,
        CachePolicyAttr,
    ],
    [TTConstantMaterialization()],
)
"""Triton's ``tt`` dialect: every op of Triton 3.6's TTIR."""
