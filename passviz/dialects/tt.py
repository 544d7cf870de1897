"""Triton's ``tt`` dialect, with the custom assembly syntax printed by Triton 3.6.

The module is laid out in sections, so that more ``tt`` ops can be added
next to their kin:

1. enums stored as ``i32`` integer attributes (cache modifier, ...);
2. types (``!tt.ptr``) and helpers on pointer-like types;
3. memory resources and side-effect traits;
4. shared parse/print helpers for the Triton op syntax;
5. function ops: ``tt.func``, ``tt.call``, ``tt.return``;
6. memory ops: ``tt.load``, ``tt.store``;
7. the ``TT`` dialect object.

Load/store hints are optional properties, so printing keeps what was parsed:
a non-default ``cache``/``evict`` prints in Triton's ``oilist`` form
(``cacheModifier = ca``), while a default written explicitly in the attr-dict
(``{cache = 1 : i32}``, as older Triton printed it) stays there. Attr-dicts
are printed sorted by name, as MLIR does.

Reference: ``include/triton/Dialect/Triton/IR/{TritonOps,TritonTypes,
TritonAttrDefs}.td`` in triton-lang/triton.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from enum import IntEnum
from typing import ClassVar, Self

from xdsl.dialects.builtin import (
    I32,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DictionaryAttr,
    FlatSymbolRefAttrConstr,
    FunctionType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TensorType,
    i1,
    i32,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Dialect,
    Operation,
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
from xdsl.printer import Printer
from xdsl.traits import (
    CallableOpInterface,
    DefaultResource,
    EffectInstance,
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    Pure,
    Resource,
    ReturnLike,
    SymbolOpInterface,
    SymbolTable,
    SymbolUserOpInterface,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa

__all__ = [
    "TT",
    "BoolLikeConstr",
    "CacheModifier",
    "CallOp",
    "EvictionPolicy",
    "FuncOp",
    "GlobalMemory",
    "LoadOp",
    "PaddingOption",
    "PointerType",
    "PtrLikeConstr",
    "ReturnOp",
    "StoreOp",
    "TritonI32Enum",
    "get_i1_same_shape",
    "get_pointee_type",
    "is_ptr_like",
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


def _verify_enum_attr(attr: IntegerAttr[I32] | None, enum: type[TritonI32Enum], prop: str) -> None:
    """Raise unless ``attr`` is absent or holds a value of ``enum``."""
    if attr is not None and enum.from_attr(attr) is None:
        allowed = [int(member) for member in enum]
        raise VerifyException(
            f"property '{prop}' must be one of {allowed} ({enum.__name__}), got {attr.value.data}"
        )


# ===----------------------------------------------------------------------=== #
# 2. Types
# ===----------------------------------------------------------------------=== #


@irdl_attr_definition
class PointerType(ParametrizedAttribute, TypeAttribute):
    """A pointer into a Triton address space: ``!tt.ptr<f32>``, ``!tt.ptr<f16, 3>``.

    The pointee is a scalar type, or a ranked tensor for a block pointer
    (``!tt.ptr<tensor<128x64xf16>>``). The address space defaults to 1
    (global memory) and is only printed when it differs from it.
    """

    name = "tt.ptr"

    DEFAULT_ADDRESS_SPACE: ClassVar[int] = 1
    """The address space implied when none is written."""

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
                address_space = parser.parse_integer(allow_boolean=False, allow_negative=False)
        return pointee, IntAttr(address_space)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.pointee_type)
            if self.address_space.data != self.DEFAULT_ADDRESS_SPACE:
                printer.print_string(f", {self.address_space.data}")


PtrLikeConstr = BaseAttr(PointerType) | TensorType.constr(BaseAttr(PointerType))
"""Constraint matching a pointer or a tensor of pointers (``TT_PtrLike``)."""

BoolLikeConstr = EqAttrConstraint(i1) | TensorType.constr(EqAttrConstraint(i1))
"""Constraint matching ``i1`` or a tensor of ``i1`` (``TT_BoolLike``)."""


def is_ptr_like(type_: Attribute) -> bool:
    """Whether ``type_`` is a ``!tt.ptr`` or a tensor of them."""
    return isinstance(type_, PointerType) or isa(type_, TensorType[PointerType])


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


# ===----------------------------------------------------------------------=== #
# 3. Memory resources and side effects
# ===----------------------------------------------------------------------=== #


@dataclass(frozen=True)
class GlobalMemory(Resource):
    """The GPU global memory, the resource ``tt.load``/``tt.store`` act on."""

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
) -> None:
    """Print ``op``'s attr-dict: the named properties plus discardable attributes.

    Like MLIR's, the dictionary is sorted by name; ``elided`` names are left out.
    """
    entries: dict[str, Attribute] = {
        name: value
        for name in property_names
        if name not in elided and (value := op.properties.get(name)) is not None
    }
    entries |= {k: v for k, v in op.attributes.items() if k not in entries}
    printer.print_op_attributes(dict(sorted(entries.items())))


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
        mnemonic_pos = parser.pos
        mnemonic = parser.parse_identifier(f" for '{keyword}'")
        value = enum.from_mnemonic(mnemonic)
        if value is None:
            allowed = ", ".join(m.mnemonic for m in enum)
            parser.raise_error(
                f"expected one of {allowed} for '{keyword}', got '{mnemonic}'",
                mnemonic_pos,
                mnemonic_pos + len(mnemonic),
            )
        properties[prop] = value.to_attr()


def _print_oilist_enums(
    printer: Printer,
    op: Operation,
    clauses: Mapping[str, tuple[str, type[TritonI32Enum]]],
) -> set[str]:
    """Print the ``oilist`` clauses whose properties hold non-default values.

    The first member of each enum is its default, which Triton never prints;
    a default that was written explicitly is left to the attr-dict. Returns
    the names of the properties printed.
    """
    printed: set[str] = set()
    for keyword, (prop, enum) in clauses.items():
        value = op.properties.get(prop)
        if not isa(value, IntegerAttr[I32]):
            continue
        member = enum.from_attr(value)
        if member is None or member == enum.default():
            continue
        printer.print_string(f" {keyword} = {member.mnemonic}")
        printed.add(prop)
    return printed


def _in_order(properties: Mapping[str, Attribute], order: Sequence[str]) -> dict[str, Attribute]:
    """``properties`` ordered as ``order`` lists them (for a stable generic form)."""
    return {name: properties[name] for name in order if name in properties}


def _ptr_like_type_or_error(parser: Parser, pos: int, type_: Attribute) -> None:
    """Raise a parse error at ``pos`` unless ``type_`` is pointer-like."""
    if not is_ptr_like(type_):
        parser.raise_error(f"expected !tt.ptr or a tensor of !tt.ptr, got {type_}", pos)


_LOAD_STORE_OILIST: Mapping[str, tuple[str, type[TritonI32Enum]]] = {
    "cacheModifier": ("cache", CacheModifier),
    "evictionPolicy": ("evict", EvictionPolicy),
}
"""The ``oilist`` of ``tt.load``/``tt.store``: keyword to (property, enum)."""


# ===----------------------------------------------------------------------=== #
# 5. Function ops
# ===----------------------------------------------------------------------=== #


class FuncOpCallableInterface(CallableOpInterface):
    """``tt.func`` is callable: its body takes the arguments of its type."""

    @classmethod
    def get_callable_region(cls, op: Operation) -> Region:
        assert isinstance(op, FuncOp)
        return op.body

    @classmethod
    def get_argument_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, FuncOp)
        return op.function_type.inputs.data

    @classmethod
    def get_result_types(cls, op: Operation) -> tuple[Attribute, ...]:
        assert isinstance(op, FuncOp)
        return op.function_type.outputs.data


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
        FuncOpCallableInterface(),
        HasParent(ModuleOp),
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

    traits = traits_def(CallOpSymbolUserOpInterface())

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

    traits = traits_def(HasParent(FuncOp), IsTerminator(), ReturnLike(), Pure())

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


@irdl_op_definition
class LoadOp(IRDLOperation):
    """Load through a pointer, a tensor of pointers, or a block pointer.

    ``%x = tt.load %ptr, %mask, %other cacheModifier = ca {isVolatile = true}
    : tensor<128x!tt.ptr<f32>>``; the result has the pointee type of ``ptr``.
    """

    name = "tt.load"

    ptr = operand_def(PtrLikeConstr)
    """Where to load from."""

    mask = opt_operand_def(BoolLikeConstr)
    """Which elements to load (``i1``, shaped like ``ptr``)."""

    other = opt_operand_def()
    """The value of masked-off elements; needs ``mask``."""

    result = result_def()
    """The loaded value."""

    boundary_check = opt_prop_def(DenseArrayBase[I32], prop_name="boundaryCheck")
    """Dimensions of a block pointer to bounds-check."""

    padding = opt_prop_def(IntegerAttr[I32])
    """How a block-pointer load pads out-of-bounds elements (``PaddingOption``)."""

    cache = opt_prop_def(IntegerAttr[I32])
    """The cache modifier (``CacheModifier``); absent means ``none``."""

    evict = opt_prop_def(IntegerAttr[I32])
    """The eviction policy (``EvictionPolicy``); absent means ``evict_normal``."""

    is_volatile = opt_prop_def(BoolAttr, prop_name="isVolatile")
    """Whether the load is volatile; absent means false."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    traits = traits_def(LoadOpMemoryEffect())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = (
        "boundaryCheck",
        "cache",
        "evict",
        "isVolatile",
        "padding",
    )
    """Properties that may be written in the attr-dict, sorted by name."""

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
                "boundaryCheck": None
                if boundary_check is None
                else DenseArrayBase.from_list(IntegerType(32), boundary_check),
                "padding": None if padding is None else padding.to_attr(),
                "cache": None if cache is None else cache.to_attr(),
                "evict": None if evict is None else evict.to_attr(),
                "isVolatile": None if is_volatile is None else IntegerAttr.from_bool(is_volatile),
            },
            attributes=attributes,
        )

    @property
    def cache_modifier(self) -> CacheModifier:
        """The cache modifier, with Triton's default filled in."""
        return CacheModifier.from_attr(self.cache) or CacheModifier.default()

    @property
    def eviction_policy(self) -> EvictionPolicy:
        """The eviction policy, with Triton's default filled in."""
        return EvictionPolicy.from_attr(self.evict) or EvictionPolicy.default()

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
        op.properties |= _in_order(properties, cls._ATTR_DICT_PROPERTIES)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(
            [v for v in (self.ptr, self.mask, self.other) if v is not None],
            printer.print_operand,
        )
        in_oilist = _print_oilist_enums(printer, self, _LOAD_STORE_OILIST)
        _print_attr_dict_with_properties(printer, self, self._ATTR_DICT_PROPERTIES, in_oilist)
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)


@irdl_op_definition
class StoreOp(IRDLOperation):
    """Store through a pointer, a tensor of pointers, or a block pointer.

    ``tt.store %ptr, %value, %mask evictionPolicy = evict_last
    : tensor<128x!tt.ptr<f32>>``; ``value`` has the pointee type of ``ptr``.
    """

    name = "tt.store"

    ptr = operand_def(PtrLikeConstr)
    """Where to store to."""

    value = operand_def()
    """The value to store."""

    mask = opt_operand_def(BoolLikeConstr)
    """Which elements to store (``i1``, shaped like ``ptr``)."""

    boundary_check = opt_prop_def(DenseArrayBase[I32], prop_name="boundaryCheck")
    """Dimensions of a block pointer to bounds-check."""

    cache = opt_prop_def(IntegerAttr[I32])
    """The cache modifier (``CacheModifier``); absent means ``none``."""

    evict = opt_prop_def(IntegerAttr[I32])
    """The eviction policy (``EvictionPolicy``); absent means ``evict_normal``."""

    traits = traits_def(StoreOpMemoryEffect())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = (
        "boundaryCheck",
        "cache",
        "evict",
    )
    """Properties that may be written in the attr-dict, sorted by name."""

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
                "boundaryCheck": None
                if boundary_check is None
                else DenseArrayBase.from_list(IntegerType(32), boundary_check),
                "cache": None if cache is None else cache.to_attr(),
                "evict": None if evict is None else evict.to_attr(),
            },
            attributes=attributes,
        )

    @property
    def cache_modifier(self) -> CacheModifier:
        """The cache modifier, with Triton's default filled in."""
        return CacheModifier.from_attr(self.cache) or CacheModifier.default()

    @property
    def eviction_policy(self) -> EvictionPolicy:
        """The eviction policy, with Triton's default filled in."""
        return EvictionPolicy.from_attr(self.evict) or EvictionPolicy.default()

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
        op.properties |= _in_order(properties, cls._ATTR_DICT_PROPERTIES)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(
            [v for v in (self.ptr, self.value, self.mask) if v is not None],
            printer.print_operand,
        )
        in_oilist = _print_oilist_enums(printer, self, _LOAD_STORE_OILIST)
        _print_attr_dict_with_properties(printer, self, self._ATTR_DICT_PROPERTIES, in_oilist)
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)


# ===----------------------------------------------------------------------=== #
# 7. The dialect
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
    ],
    [
        PointerType,
    ],
)
"""Triton's ``tt`` dialect (the part modelled so far)."""
