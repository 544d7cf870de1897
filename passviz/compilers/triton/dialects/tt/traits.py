"""Traits of the ``tt`` ops, and what their folders read and make.

Memory resources and effects (``GlobalMemory``, ...), MLIR's and Triton's
verifier traits (``SameOperandsAndResultShape``, ``SameLoadStoreOperandsShape``,
``TensorSizeTrait``, ...), ``Elementwise``, the constants folders read and
make, and ``TTConstantMaterialization``.  ``op_error`` words a verifier error as MLIR's
``emitOpError`` does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass
from typing import ClassVar, cast

from xdsl.dialect_interfaces.constant_materialization import ConstantMaterializationInterface
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import OpTraits, traits_def
from xdsl.traits import (
    ConditionallySpeculatable,
    ConstantLike,
    EffectInstance,
    MemoryEffect,
    MemoryEffectKind,
    OpTrait,
    Pure,
    Resource,
)
from xdsl.utils.exceptions import VerifyException

from passviz.compilers.triton.dialects.tt.types import (
    PointerType,
    dims,
    element_type_or_self,
    encoding_of,
    shape_of,
)
from passviz.ir.hints import isa

# ===----------------------------------------------------------------------=== #
# Traits
# ===----------------------------------------------------------------------=== #


@dataclass(frozen=True)
class GlobalMemory(Resource):
    """The GPU global memory, the resource Triton's memory ops act on."""

    def name(self) -> str:
        return "::mlir::triton::GlobalMemory"


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


def op_error(op: Operation, message: str) -> VerifyException:
    """A verifier error in MLIR's ``emitOpError`` wording: ``'tt.x' op message``."""
    return VerifyException(f"'{op.name}' op {message}")


def _need_operands_and_results(op: Operation, operands: bool = True, results: bool = True) -> None:
    """MLIR's ``verifyAtLeastNOperands(op, 1)``/``verifyAtLeastNResults(op, 1)``."""
    if operands and not op.operands:
        raise op_error(op, "expected 1 or more operands, but found 0")
    if results and not op.results:
        raise op_error(op, "expected 1 or more results, but found 0")


def _compatible_shape(lhs: Attribute, rhs: Attribute) -> bool:
    """MLIR's ``verifyCompatibleShape`` on two types (scalars have no shape)."""
    lhs_shape, rhs_shape = shape_of(lhs), shape_of(rhs)
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
        operand_shapes = [t for t in op.operand_types if shape_of(t) is not None]
        result_shapes = [t for t in op.result_types if shape_of(t) is not None]
        if not operand_shapes and not result_shapes:
            return
        if not operand_shapes:
            raise op_error(op, "if a result is non-scalar, then at least one operand must be non-scalar")
        if not result_shapes:
            raise op_error(
                op, "if an operand is non-scalar, then there must be at least one non-scalar result"
            )
        if len(result_shapes) != len(op.results):
            raise op_error(op, "if an operand is non-scalar, then all results must be non-scalar")
        first = operand_shapes[0]
        if not all(_compatible_shape(first, t) for t in (*operand_shapes, *result_shapes)):
            raise op_error(op, "all non-scalar operands/results must have the same shape and base type")


@dataclass(frozen=True)
class _SameAsFirstOperand(OpTrait):
    """A trait that the other operands (and, with ``_RESULTS``, the results)
    agree with the first operand in ``_WHAT`` (``_agree``); an op needs an
    operand (and then a result) to have it."""

    _WHAT: ClassVar[str] = ""
    """What agrees, as the error names it (``shape``)."""

    _RESULTS: ClassVar[bool] = False
    """Whether the results agree too."""

    @staticmethod
    def _agree(lhs: Attribute, rhs: Attribute) -> bool:
        """Whether ``rhs`` agrees with the first operand's type ``lhs``."""
        raise NotImplementedError

    def verify(self, op: Operation) -> None:
        _need_operands_and_results(op, results=self._RESULTS)
        first = op.operand_types[0]
        others = (*op.result_types, *op.operand_types[1:]) if self._RESULTS else op.operand_types[1:]
        if not all(self._agree(first, t) for t in others):
            whom = "operands and results" if self._RESULTS else "operands"
            raise op_error(op, f"requires the same {self._WHAT} for all {whom}")


@dataclass(frozen=True)
class SameOperandsShape(_SameAsFirstOperand):
    """MLIR's ``SameOperandsShape``: all operands have one shape (or are all scalars)."""

    _WHAT: ClassVar[str] = "shape"

    _agree = staticmethod(_compatible_shape)


@dataclass(frozen=True)
class SameOperandsAndResultShape(_SameAsFirstOperand):
    """MLIR's ``SameOperandsAndResultShape``: operands and results share one shape."""

    _WHAT: ClassVar[str] = "shape"

    _RESULTS: ClassVar[bool] = True

    _agree = staticmethod(_compatible_shape)


@dataclass(frozen=True)
class SameOperandsAndResultElementType(OpTrait):
    """MLIR's ``SameOperandsAndResultElementType``."""

    def verify(self, op: Operation) -> None:
        _need_operands_and_results(op)
        element = element_type_or_self(op.result_types[0])
        if any(element_type_or_self(t) != element for t in (*op.result_types[1:], *op.operand_types)):
            raise op_error(op, "requires the same element type for all operands and results")


@dataclass(frozen=True)
class SameOperandsAndResultType(OpTrait):
    """MLIR's ``SameOperandsAndResultType`` (element type, shape and encoding)."""

    def verify(self, op: Operation) -> None:
        _need_operands_and_results(op)
        first = op.result_types[0]
        for type_ in (*op.result_types[1:], *op.operand_types):
            if element_type_or_self(type_) != element_type_or_self(first) or not _compatible_shape(
                type_, first
            ):
                raise op_error(op, "requires the same type for all operands and results")
            if encoding_of(first) is not None and encoding_of(type_) != encoding_of(first):
                raise op_error(op, "requires the same encoding for all operands and results")


@dataclass(frozen=True)
class SameTypeOperands(OpTrait):
    """MLIR's ``SameTypeOperands``: all operands have the same type."""

    def verify(self, op: Operation) -> None:
        if any(t != op.operand_types[0] for t in op.operand_types[1:]):
            raise op_error(op, "requires all operands to have the same type")


def _same_encoding(lhs: Attribute, rhs: Attribute) -> bool:
    """Triton's ``verifySameEncoding``: equal encodings, or one side has none."""
    lhs_encoding, rhs_encoding = encoding_of(lhs), encoding_of(rhs)
    return lhs_encoding is None or rhs_encoding is None or lhs_encoding == rhs_encoding


@dataclass(frozen=True)
class SameOperandsEncoding(_SameAsFirstOperand):
    """Triton's ``SameOperandsEncoding``: the operands' tensor encodings agree."""

    _WHAT: ClassVar[str] = "encoding"

    @staticmethod
    def _agree(lhs: Attribute, rhs: Attribute) -> bool:
        return _same_encoding(rhs, lhs)


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
            raise op_error(op, "requires the same encoding for all operands and results")
        SameOperandsEncoding().verify(op)


# Block pointers are their own shape here: Triton's ``getTypeShape`` reads a
# ``!tt.ptr<tensor<...>>`` as the tensor's shape.
def _load_store_shape(type_: Attribute) -> tuple[int, ...]:
    if isinstance(type_, PointerType):
        type_ = type_.pointee_type
    return dims(type_)


@dataclass(frozen=True)
class SameLoadStoreOperandsShape(_SameAsFirstOperand):
    """Triton's ``SameLoadStoreOperandsShape`` (a block pointer has its block's shape)."""

    _WHAT: ClassVar[str] = "shape"

    @staticmethod
    def _agree(lhs: Attribute, rhs: Attribute) -> bool:
        return _load_store_shape(rhs) == _load_store_shape(lhs)


@dataclass(frozen=True)
class SameLoadStoreOperandsAndResultShape(OpTrait):
    """Triton's ``SameLoadStoreOperandsAndResultShape``."""

    def verify(self, op: Operation) -> None:
        _need_operands_and_results(op)
        first = _load_store_shape(op.operand_types[0])
        if any(_load_store_shape(t) != first for t in op.result_types):
            raise op_error(op, "requires the same shape for all operands and results")
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
            shape = shape_of(type_)
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


def elementwise_cast_traits() -> OpTraits:
    """The traits of Triton's elementwise casts (``tt.int_to_ptr``, ``tt.ptr_to_int``,
    ``tt.bitcast``, ``tt.fp_to_fp``): ``Elementwise``, ``SameOperandsAndResultShape``,
    ``SameOperandsAndResultEncoding``, ``Pure``, and ``TensorSizeTrait`` as on every ``tt`` op."""
    return traits_def(
        Elementwise(),
        SameOperandsAndResultShape(),
        SameOperandsAndResultEncoding(),
        Pure(),
        TensorSizeTrait(),
    )


def same_type_elementwise_traits() -> OpTraits:
    """The traits of Triton's elementwise ops on one type (``tt.clampf``,
    ``tt.precise_sqrt``, ``tt.precise_divf``, ``tt.mulhiui``)."""
    return traits_def(Elementwise(), SameOperandsAndResultType(), Pure(), TensorSizeTrait())


def verify_inferred_types(op: Operation, inferred: Sequence[Attribute]) -> None:
    """MLIR's ``InferTypeOpInterface`` check: the result types are the inferred ones."""
    actual = tuple(op.result_types)
    if tuple(inferred) != actual:
        raise op_error(
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


def constant_value(value: SSAValue) -> Attribute | None:
    """The attribute of the constant defining ``value`` (MLIR's folder adaptor), or None."""
    owner = value.owner
    if not isinstance(owner, Operation) or not owner.has_trait(ConstantLike, value_if_unregistered=False):
        return None
    return ConstantLike.get_constant_value(value)


def splat_value(attr: Attribute | None) -> Attribute | None:
    """The element (an ``IntegerAttr`` or ``FloatAttr``) of a splat dense
    attribute (``SplatElementsAttr``), or None."""
    if not isinstance(attr, DenseIntOrFPElementsAttr) or not attr.is_splat():
        return None
    return next(iter(attr.iter_attrs()), None)


def int_value(attr: Attribute | None) -> int | None:
    """An integer constant or integer splat's value (``m_ConstantInt``), or None."""
    if not isinstance(attr, IntegerAttr):
        attr = splat_value(attr)
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    return None


def splat_of(type_: Attribute, element: Attribute) -> Attribute | None:
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


def fold_view_like(value: Attribute | None, result_type: Attribute) -> Attribute | None:
    """Triton's ``foldViewLikeOp``: a dense constant with the view's result type."""
    if (element := splat_value(value)) is not None:
        return splat_of(result_type, element)
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
