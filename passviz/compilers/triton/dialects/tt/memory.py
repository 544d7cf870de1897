"""Memory ops of the ``tt`` dialect, and their memory effects.

``tt.load`` and ``tt.store`` (through pointers, tensors of pointers or block
pointers), the atomics ``tt.atomic_rmw`` and ``tt.atomic_cas``, and the
tensor-descriptor ops ``tt.descriptor_load``, ``tt.descriptor_store``,
``tt.descriptor_reduce``, ``tt.descriptor_gather`` and ``tt.descriptor_scatter``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from typing import ClassVar, Self, cast

from xdsl.dialects.builtin import I32, BoolAttr, DenseArrayBase, IntegerAttr, TensorType, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    EqAttrConstraint,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import DefaultResource, EffectInstance, MemoryEffect, MemoryEffectKind
from xdsl.utils.exceptions import VerifyException

from passviz.compilers.triton.dialects.tt.syntax import (
    FALSE,
    TRUE,
    PropertySyntax,
    parse_attr_dict_into_properties,
    parse_bracketed_operands,
    parse_enum,
    parse_functional_type,
    parse_operand_list,
    parse_type_list,
    parse_type_of,
    print_attr_dict_and_type,
    print_attr_dict_with_properties,
    print_operands,
    print_types,
    ptr_like_type_or_error,
    resolve,
)
from passviz.compilers.triton.dialects.tt.traits import (
    FirstOperandReadEffect,
    FirstOperandReadWriteEffect,
    GlobalMemory,
    SameLoadStoreOperandsAndResultEncoding,
    SameLoadStoreOperandsAndResultShape,
    SameLoadStoreOperandsEncoding,
    SameLoadStoreOperandsShape,
    SameOperandsAndResultEncoding,
    SameOperandsAndResultShape,
    TensorSizeTrait,
    op_error,
)
from passviz.compilers.triton.dialects.tt.types import (
    BoolLikeConstr,
    CacheModifier,
    DescriptorReduceKind,
    EvictionPolicy,
    MemSemantic,
    MemSyncScope,
    PaddingOption,
    PtrLikeConstr,
    RMWOp,
    TensorConstr,
    TensorDescType,
    TritonI32Enum,
    TritonTypeConstr,
    bit_width,
    dims,
    element_type_or_self,
    enum_or_default,
    get_i1_same_shape,
    get_pointee_type,
    get_pointer_type_same_shape,
    optional_enum_attr,
    verify_enum_attr,
)
from passviz.ir.hints import isa
from passviz.ir.op_syntax import parse_operands


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


_LOAD_STORE_OILIST: Mapping[str, tuple[str, type[TritonI32Enum]]] = {
    "cacheModifier": ("cache", CacheModifier),
    "evictionPolicy": ("evict", EvictionPolicy),
}
"""The ``oilist`` of ``tt.load``/``tt.store``: keyword to (property, enum)."""


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


class _CachedMemoryOp(PropertySyntax, IRDLOperation):
    """An op that reads or writes memory with a cache modifier and an eviction
    policy (``tt.load``, ``tt.store``, ``tt.descriptor_load``), written in its
    ``oilist`` and left out at Triton's defaults."""

    cache = opt_prop_def(IntegerAttr[I32])
    """The cache modifier (``CacheModifier``); absent means ``none``."""

    evict = opt_prop_def(IntegerAttr[I32])
    """The eviction policy (``EvictionPolicy``); absent means ``evict_normal``."""

    _OILIST: ClassVar[Mapping[str, tuple[str, type[TritonI32Enum]]]] = _LOAD_STORE_OILIST

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("cache", "evict")

    _PROPERTY_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {
        "cache": CacheModifier.NONE.to_attr(),
        "evict": EvictionPolicy.NORMAL.to_attr(),
    }
    """Triton's ``DefaultValuedAttr`` defaults, never printed nor stored."""

    @staticmethod
    def _cache_properties(
        cache: CacheModifier | None, evict: EvictionPolicy | None
    ) -> dict[str, Attribute | None]:
        """The ``cache`` and ``evict`` properties a builder stores (none at a default)."""
        return {
            "cache": optional_enum_attr(cache, CacheModifier.NONE),
            "evict": optional_enum_attr(evict, EvictionPolicy.NORMAL),
        }

    def _verify_cache(self) -> None:
        verify_enum_attr(self.cache, CacheModifier, "cache")
        verify_enum_attr(self.evict, EvictionPolicy, "evict")

    @property
    def cache_modifier(self) -> CacheModifier:
        """The cache modifier, with Triton's default filled in."""
        return enum_or_default(_enum_property(self, "cache"), CacheModifier.NONE)

    @property
    def eviction_policy(self) -> EvictionPolicy:
        """The eviction policy, with Triton's default filled in."""
        return enum_or_default(_enum_property(self, "evict"), EvictionPolicy.NORMAL)


class _LoadStoreSyntax(_CachedMemoryOp):
    """``$ptr (`,` $operand)* oilist(...) attr-dict `:` type($ptr)``, the syntax of
    ``tt.load`` and ``tt.store``: the other operands' types follow from the
    pointer's (a mask is ``i1`` shaped like it, any other has its pointee type)."""

    boundary_check = opt_prop_def(DenseArrayBase[I32], prop_name="boundaryCheck")
    """Dimensions of a block pointer to bounds-check; absent means none."""

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = (
        "boundaryCheck",
        *_CachedMemoryOp._ATTR_DICT_PROPERTIES,
    )

    _PROPERTY_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {
        "boundaryCheck": _NO_BOUNDARY_CHECK,
        **_CachedMemoryOp._PROPERTY_DEFAULTS,
    }

    _OPERANDS: ClassVar[tuple[str, ...]] = ()
    """The operands' roles in the order written (``ptr`` first)."""

    _REQUIRED_OPERANDS: ClassVar[int] = 1
    """How many of ``_OPERANDS`` are always written; the rest are optional."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        unresolved = parse_operands(parser, cls._REQUIRED_OPERANDS)
        while len(unresolved) < len(cls._OPERANDS) and parser.parse_optional_punctuation(","):
            unresolved.append(parser.parse_unresolved_operand())
        properties, attributes = cls.parse_properties(parser)
        parser.parse_punctuation(":")
        type_pos = parser.pos
        ptr_type = parser.parse_type()
        ptr_like_type_or_error(parser, type_pos, ptr_type)
        pointee = get_pointee_type(ptr_type)
        types = {"ptr": ptr_type, "mask": get_i1_same_shape(pointee)}
        operands = [
            parser.resolve_operand(u, types.get(role, pointee))
            for u, role in zip(unresolved, cls._OPERANDS, strict=False)
        ]
        op = cast("Callable[..., Self]", cls)(*operands, attributes=attributes)
        cast(Operation, op).properties |= properties
        return op

    def print(self, printer: Printer) -> None:
        op = cast(Operation, self)
        printer.print_string(" ")
        print_operands(printer, op.operands)
        self.print_properties(printer)
        printer.print_string(" : ")
        printer.print_attribute(op.operands[0].type)


def _enum_property(op: object, name: str) -> IntegerAttr[I32] | None:
    """``op``'s enum property ``name``, if set."""
    value = cast(Operation, op).properties.get(name)
    return value if isa(value, IntegerAttr[I32]) else None


@irdl_op_definition
class LoadOp(_LoadStoreSyntax):
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

    padding = opt_prop_def(IntegerAttr[I32])
    """How a block-pointer load pads out-of-bounds elements (``PaddingOption``)."""

    is_volatile = opt_prop_def(BoolAttr, prop_name="isVolatile")
    """Whether the load is volatile; absent means false."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    traits = traits_def(
        LoadOpMemoryEffect(),
        SameLoadStoreOperandsAndResultShape(),
        SameLoadStoreOperandsAndResultEncoding(),
        TensorSizeTrait(),
    )

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = tuple(
        sorted((*_LoadStoreSyntax._ATTR_DICT_PROPERTIES, "isVolatile", "padding"))
    )

    _PROPERTY_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {
        **_LoadStoreSyntax._PROPERTY_DEFAULTS,
        "isVolatile": FALSE,
    }
    """Triton's ``DefaultValuedAttr`` defaults, never printed nor stored."""

    _OPERANDS: ClassVar[tuple[str, ...]] = ("ptr", "mask", "other")

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
                "padding": optional_enum_attr(padding),
                **self._cache_properties(cache, evict),
                "isVolatile": TRUE if is_volatile else None,
            },
            attributes=attributes,
        )

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
        self._verify_cache()
        verify_enum_attr(self.padding, PaddingOption, "padding")


@irdl_op_definition
class StoreOp(_LoadStoreSyntax):
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

    traits = traits_def(
        StoreOpMemoryEffect(),
        SameLoadStoreOperandsShape(),
        SameLoadStoreOperandsEncoding(),
        TensorSizeTrait(),
    )

    _OPERANDS: ClassVar[tuple[str, ...]] = ("ptr", "value", "mask")
    _REQUIRED_OPERANDS: ClassVar[int] = 2

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
                **self._cache_properties(cache, evict),
            },
            attributes=attributes,
        )

    def verify_(self) -> None:
        _verify_types_match_ptr(self.name, self.ptr.type, (("value", self.value), ("mask", self.mask)))
        self._verify_cache()


def _parse_leading_enums(
    parser: Parser, names: Sequence[tuple[str, type[TritonI32Enum]]]
) -> dict[str, Attribute]:
    """``$a `,` $b `,` ...``: enum properties written as keywords, each followed by a comma."""
    properties: dict[str, Attribute] = {}
    for prop, enum in names:
        properties[prop] = parse_enum(parser, enum, prop).to_attr()
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
        raise op_error(
            op, f"failed to verify that ptr type matches {role} type: expected {expected}, got {ptr.type}"
        )


class _AtomicOp(IRDLOperation):
    """Shared by ``tt.atomic_rmw`` and ``tt.atomic_cas``: a pointer, the old
    value, the memory ordering and scope; their syntax is ``enum, ...,
    $operands attr-dict : functional-type(operands, results)``. The operands
    are each op's own (xDSL puts a base class's operands after a subclass's)."""

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

    _ENUMS: ClassVar[tuple[tuple[str, type[TritonI32Enum]], ...]] = ()
    """The enum properties, in the order the syntax writes them."""

    @classmethod
    def _operand_groups(
        cls, parser: Parser, operands: Sequence[SSAValue], pos: int
    ) -> Sequence[SSAValue | Sequence[SSAValue]]:
        """The operands as ``build`` takes them (optional operands as lists)."""
        return operands

    def _init_atomic(
        self,
        operands: Sequence[SSAValue | Operation | None],
        val: SSAValue | Operation,
        properties: Mapping[str, Attribute],
        sem: MemSemantic,
        scope: MemSyncScope,
        attributes: Mapping[str, Attribute] | None,
    ) -> None:
        """Build the op; its result has the type of ``val``, the value operand."""
        IRDLOperation.__init__(
            self,
            operands=list(operands),
            result_types=[SSAValue.get(val).type],
            properties={**properties, "sem": sem.to_attr(), "scope": scope.to_attr()},
            attributes=attributes,
        )

    def _verify_enums(self) -> None:
        for prop, enum in self._ENUMS:
            verify_enum_attr(cast(IntegerAttr[I32], self.properties[prop]), enum, prop)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        properties = _parse_leading_enums(parser, cls._ENUMS)
        pos = parser.pos
        unresolved = parse_operand_list(parser)
        attributes = parse_attr_dict_into_properties(parser, (), properties)
        parser.parse_punctuation(":")
        inputs, outputs = parse_functional_type(parser, len(unresolved), pos)
        operands = resolve(parser, unresolved, inputs, pos)
        return cls.build(
            operands=cls._operand_groups(parser, operands, pos),
            result_types=[list(outputs)],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        _print_leading_enums(printer, self, self._ENUMS)
        printer.print_string(" ")
        print_operands(printer, self.operands)
        print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


@irdl_op_definition
class AtomicRMWOp(_AtomicOp):
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

    atomic_rmw_op = prop_def(IntegerAttr[I32])
    """The operation (``RMWOp``)."""

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
        self._init_atomic([ptr, val, mask], val, {"atomic_rmw_op": rmw_op.to_attr()}, sem, scope, attributes)

    @property
    def rmw_op(self) -> RMWOp:
        """The read-modify-write operation."""
        return enum_or_default(self.atomic_rmw_op, RMWOp.ADD)

    def verify_(self) -> None:
        self._verify_enums()
        _verify_ptr_matches_value(self, self.ptr, self.val, "value")
        if self.mask is not None and self.mask.type != get_i1_same_shape(self.val.type):
            raise op_error(self, "failed to verify that mask type matches value type")

    @classmethod
    def _operand_groups(
        cls, parser: Parser, operands: Sequence[SSAValue], pos: int
    ) -> Sequence[SSAValue | Sequence[SSAValue]]:
        if len(operands) not in (2, 3):
            parser.raise_error("expected a pointer, a value and an optional mask", pos)
        return [operands[0], operands[1], operands[2:]]


@irdl_op_definition
class AtomicCASOp(_AtomicOp):
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
        self._init_atomic([ptr, cmp, val], val, {}, sem, scope, attributes)

    def verify_(self) -> None:
        self._verify_enums()
        _verify_ptr_matches_value(self, self.ptr, self.cmp, "cmp")
        _verify_ptr_matches_value(self, self.ptr, self.val, "value")


def _verify_descriptor_block(op: Operation, desc: Attribute, tensor: Attribute) -> None:
    """Triton 3.6's ``verifyDescriptorLoadStoreType``: the tensor is the
    descriptor's block, less leading dimensions of size 1."""
    assert isinstance(desc, TensorDescType)
    block = desc.signless_block_type
    block_shape, tensor_shape = block.get_shape(), dims(tensor)
    if len(block_shape) > len(tensor_shape):
        dropped = len(block_shape) - len(tensor_shape)
        if any(dim != 1 for dim in block_shape[:dropped]):
            raise op_error(op, "ranked reduce load only allowed for unit dimension leading dim.")
        block_shape = block_shape[dropped:]
    if block_shape != tensor_shape or block.get_element_type() != element_type_or_self(tensor):
        raise op_error(op, "tensor descriptor block and tensor types must match")


def _parse_desc_and_indices(parser: Parser) -> tuple[UnresolvedOperand, list[UnresolvedOperand]]:
    """``$desc `[` $indices `]```."""
    desc = parser.parse_unresolved_operand()
    return desc, parse_bracketed_operands(parser)


def _parse_desc_type(parser: Parser) -> TensorDescType:
    """`` `:` type($desc)``: a ``!tt.tensordesc``, written with or without its prefix."""
    parser.parse_punctuation(":")
    return parse_type_of(parser, TensorDescType, "a !tt.tensordesc")


def _resolve_desc_and_indices(
    parser: Parser, desc: UnresolvedOperand, indices: Sequence[UnresolvedOperand], desc_type: Attribute
) -> tuple[SSAValue, list[SSAValue]]:
    """The descriptor operand, of ``desc_type``, and the ``i32`` indices."""
    return parser.resolve_operand(desc, desc_type), [parser.resolve_operand(i, i32) for i in indices]


def _print_desc_and_indices(printer: Printer, desc: SSAValue, indices: Sequence[SSAValue]) -> None:
    """Print `` %desc[%i, %j]``."""
    printer.print_string(" ")
    printer.print_operand(desc)
    with printer.in_square_brackets():
        print_operands(printer, indices)


@irdl_op_definition
class DescriptorLoadOp(_CachedMemoryOp):
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

    traits = traits_def(FirstOperandReadEffect(), TensorSizeTrait())

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
            properties=self._cache_properties(cache, evict),
        )

    def verify_(self) -> None:
        self._verify_cache()
        _verify_descriptor_block(self, self.desc.type, self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> DescriptorLoadOp:
        desc, indices = _parse_desc_and_indices(parser)
        properties, attributes = cls.parse_properties(parser)
        desc_type = _parse_desc_type(parser)
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        return cls.build(
            operands=_resolve_desc_and_indices(parser, desc, indices, desc_type),
            result_types=[result_type],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        _print_desc_and_indices(printer, self.desc, self.indices)
        self.print_properties(printer)
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
        _verify_descriptor_block(self, self.desc.type, self.src.type)

    @classmethod
    def _parse_store(cls, parser: Parser, properties: dict[str, Attribute]) -> Self:
        desc, indices = _parse_desc_and_indices(parser)
        parser.parse_punctuation(",")
        src = parser.parse_unresolved_operand()
        attributes = parse_attr_dict_into_properties(parser, (), properties)
        desc_type = _parse_desc_type(parser)
        parser.parse_punctuation(",")
        src_type = parser.parse_type()
        desc_value, index_values = _resolve_desc_and_indices(parser, desc, indices, desc_type)
        return cls.build(
            operands=[desc_value, parser.resolve_operand(src, src_type), index_values],
            properties=properties,
            attributes=attributes,
        )

    def _print_store(self, printer: Printer) -> None:
        _print_desc_and_indices(printer, self.desc, self.indices)
        printer.print_string(", ")
        printer.print_operand(self.src)
        print_attr_dict_and_type(printer, self, self.desc.type)
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
        verify_enum_attr(self.kind, DescriptorReduceKind, "kind")

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
        raise op_error(op, f"block must be a 2D tensor, but got {block}")
    if block_shape[0] != 1:
        raise op_error(op, f"block must have exactly 1 row, but got {block}")
    offsets_shape, result_shape = dims(x_offsets), dims(result)
    if len(offsets_shape) != 1:
        raise op_error(op, f"x offsets must be a 1D tensor, but got {x_offsets}")
    if len(result_shape) != 2:
        raise op_error(op, f"result must be a 2D tensor, but got {result}")
    if result_shape[0] < 8:
        raise op_error(op, f"gather must have at least 8 rows, but got {result_shape[0]}")
    element = element_type_or_self(result)
    width = bit_width(element)
    if width > 32:
        raise op_error(op, "TMA dtype cannot be greater than 32 bits")
    min_cols = 32 // max(width, 1) * 8
    if result_shape[1] < min_cols:
        raise op_error(
            op, f"gather of {element} must have at least {min_cols} columns, but got {result_shape[1]}"
        )
    if result_shape[0] != offsets_shape[0]:
        raise op_error(
            op, f"result tensor must have as many rows as indices ({offsets_shape[0]}), but got {result}"
        )
    if result_shape[1] != block_shape[1]:
        raise op_error(
            op, f"result tensor number of columns must match block ({block_shape[1]}), but got {result}"
        )
    if element != block.get_element_type():
        raise op_error(
            op, f"result tensor element type must match block ({block.get_element_type()}), but got {result}"
        )


class _DescriptorRowsOp(IRDLOperation):
    """Shared by ``tt.descriptor_gather`` and ``tt.descriptor_scatter``: the
    descriptor and the rows and first column they move; ``_ROWS`` names the
    tensor of those rows (the gathered result, the scattered source)."""

    desc = operand_def(TensorDescType)
    """The descriptor (its block has one row)."""

    x_offsets = operand_def(TensorType.constr(EqAttrConstraint(i32)))
    """The rows to move."""

    y_offset = operand_def(EqAttrConstraint(i32))
    """The first column."""

    _ROWS: ClassVar[str] = ""
    """The field holding the rows' tensor."""

    def verify_(self) -> None:
        rows = cast(SSAValue, getattr(self, self._ROWS))
        _verify_gather_scatter(self, self.desc.type, rows.type, self.x_offsets.type)

    @classmethod
    def _parse_desc_and_offsets(cls, parser: Parser) -> tuple[int, list[UnresolvedOperand]]:
        """``$desc[$x_offsets, $y_offset]``: where it starts, and the operands."""
        pos = parser.pos
        desc, offsets = _parse_desc_and_indices(parser)
        return pos, [desc, *offsets]

    @staticmethod
    def _check_offsets(parser: Parser, operands: Sequence[UnresolvedOperand], pos: int) -> None:
        """A parse error at ``pos`` unless ``[...]`` held two operands."""
        if len(operands) != 3:
            parser.raise_error("expected [x_offsets, y_offset]", pos)

    def _print_desc_and_offsets(self, printer: Printer) -> None:
        _print_desc_and_indices(printer, self.desc, (self.x_offsets, self.y_offset))


@irdl_op_definition
class DescriptorGatherOp(_DescriptorRowsOp):
    """Gather rows through a tensor descriptor into one tensor.

    ``%x = tt.descriptor_gather %desc[%rows, %col]
    : (!tt.tensordesc<tensor<1x64xf16>>, tensor<32xi32>, i32) -> tensor<32x64xf16>``
    """

    name = "tt.descriptor_gather"

    result = result_def(TensorConstr)
    """The gathered rows."""

    _ROWS: ClassVar[str] = "result"

    traits = traits_def(FirstOperandReadEffect(), TensorSizeTrait())

    def __init__(
        self,
        desc: SSAValue | Operation,
        x_offsets: SSAValue | Operation,
        y_offset: SSAValue | Operation,
        result_type: Attribute,
    ):
        super().__init__(operands=[desc, x_offsets, y_offset], result_types=[result_type])

    @classmethod
    def parse(cls, parser: Parser) -> DescriptorGatherOp:
        pos, operands = cls._parse_desc_and_offsets(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        inputs, outputs = parse_functional_type(parser, len(operands), pos)
        cls._check_offsets(parser, operands, pos)
        return cls.build(
            operands=resolve(parser, operands, inputs, pos),
            result_types=[outputs[0] if outputs else i32],
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        self._print_desc_and_offsets(printer)
        print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


class _ScatterSource(IRDLOperation):
    """The last operand of ``tt.descriptor_scatter`` (after the base's: xDSL
    lists a class's fields before those of the classes after it)."""

    src = operand_def(TensorConstr)
    """The rows to scatter."""


@irdl_op_definition
class DescriptorScatterOp(_DescriptorRowsOp, _ScatterSource):
    """Scatter rows of a tensor through a tensor descriptor.

    ``tt.descriptor_scatter %desc[%rows, %col], %src
    : !tt.tensordesc<tensor<1x64xf16>>, tensor<32xi32>, i32, tensor<32x64xf16>``
    """

    name = "tt.descriptor_scatter"

    traits = traits_def(FirstOperandReadWriteEffect(), TensorSizeTrait())

    _ROWS: ClassVar[str] = "src"

    def __init__(
        self,
        desc: SSAValue | Operation,
        x_offsets: SSAValue | Operation,
        y_offset: SSAValue | Operation,
        src: SSAValue | Operation,
    ):
        super().__init__(operands=[desc, x_offsets, y_offset, src])

    @classmethod
    def parse(cls, parser: Parser) -> DescriptorScatterOp:
        pos, operands = cls._parse_desc_and_offsets(parser)
        cls._check_offsets(parser, operands, pos)
        parser.parse_punctuation(",")
        operands.append(parser.parse_unresolved_operand())
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parse_type_list(parser)
        return cls.build(operands=resolve(parser, operands, types, pos), attributes=attributes)

    def print(self, printer: Printer) -> None:
        self._print_desc_and_offsets(printer)
        printer.print_string(", ")
        printer.print_operand(self.src)
        print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        print_types(printer, self.operand_types)
