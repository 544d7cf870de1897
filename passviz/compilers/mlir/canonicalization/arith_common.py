"""What arith's folders and canonicalization patterns share: ``arith``'s predicates,
matchers of operands, and the attributes they build.

Folders follow ``mlir/lib/Dialect/Arith/IR/ArithOps.cpp``; the names here are
the helpers of that file they stand for.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ShapedType,
    TensorType,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.utils.type import get_element_type_or_self

from passviz.ir.hints import isa
from passviz.rewrite.folders import Scalar
from passviz.rewrite.greedy import Folder, FoldResult
from passviz.rewrite.matchers import APInt, constant_attr, dense, int_attr, int_or_float_width, int_width

# Predicates as MLIR numbers them (``arith::CmpIPredicate``, ``arith::CmpFPredicate``).
EQ, NE, SLT, SLE, SGT, SGE, ULT, ULE, UGT, UGE = range(10)


def _symmetric(*pairs: tuple[int, int]) -> Mapping[int, int]:
    return MappingProxyType({a: b for pair in pairs for a, b in (pair, pair[::-1])})


SWAPPED_PREDICATE = _symmetric((EQ, EQ), (NE, NE), (SLT, SGT), (SLE, SGE), (ULT, UGT), (ULE, UGE))
"""The predicate of the comparison with its operands swapped."""
INVERTED_PREDICATE = _symmetric((EQ, NE), (SLT, SGE), (SLE, SGT), (ULT, UGE), (ULE, UGT))
"""``invertPredicate``: the predicate of the negated comparison."""
TRUE_ON_EQUAL = frozenset({EQ, SLE, SGE, ULE, UGE})
"""``applyCmpPredicateToEqualOperands``: the predicates that hold for equal operands."""
SIGNED_PREDICATES = frozenset({SLT, SLE, SGT, SGE})
_RELATIONS: Mapping[int, Callable[[int, int], bool]] = MappingProxyType(
    {EQ: operator.eq, NE: operator.ne, SLT: operator.lt, SLE: operator.le, SGT: operator.gt, SGE: operator.ge}
    | {ULT: operator.lt, ULE: operator.le, UGT: operator.gt, UGE: operator.ge}
)


def apply_cmpi(predicate: int, x: APInt, y: APInt) -> bool:
    """``applyCmpPredicate``: ``x`` and ``y`` compared by ``predicate``, as signed or
    unsigned integers."""
    relation = _RELATIONS.get(predicate, operator.ge)
    if predicate in SIGNED_PREDICATES:
        return relation(x.signed, y.signed)
    return relation(x.bits, y.bits)


IntAttr = IntegerAttr[IntegerType | IndexType]
"""A scalar integer attribute."""


def operand_attrs(op: Operation) -> list[Attribute | None]:
    """The constant value of each operand (the folder's ``adaptor``)."""
    return [constant_attr(operand) for operand in op.operands]


def int_constant(value: SSAValue) -> IntAttr | None:
    """``ConstantLikeMatcher APIntAttr``: a constant scalar integer."""
    attr = constant_attr(value)
    return attr if isa(attr, IntAttr) else None


def zero_attr(type: Attribute) -> Attribute | None:
    """``Builder::getZeroAttr``: 0 (or a splat of it) of ``type``."""
    element = get_element_type_or_self(type)
    is_float = isinstance(element, AnyFloat)
    if isinstance(type, ShapedType):
        if not type.has_static_shape() or not (is_float or int_width(element) is not None):
            return None
        return dense(type, [0.0] if is_float else [0])
    if isinstance(element, AnyFloat):
        return FloatAttr(0.0, element)
    return int_attr(0, element)


def i1_same_shape(type: Attribute) -> Attribute:
    """``getI1SameShape``: ``i1``, or the shaped type with ``i1`` elements."""
    if isinstance(type, TensorType):
        return TensorType(IntegerType(1), type.get_shape(), type.encoding)
    if isinstance(type, VectorType):
        return VectorType(IntegerType(1), type.get_shape(), type.scalable_dims)
    return IntegerType(1)


def element_width(value: SSAValue) -> int:
    """``getScalarOrElementWidth``: -1 for types that are neither int nor float."""
    width = int_or_float_width(value.type)
    return -1 if width is None else width


def folded(attr: Attribute | None) -> FoldResult | None:
    """A folder's answer: the one result ``attr``, or no fold."""
    return None if attr is None else [attr]


def ints(fn: Callable[[APInt, APInt], APInt | None]) -> Callable[[Scalar, Scalar], Scalar | None]:
    """An element function on two integers."""

    def apply(a: Scalar, b: Scalar) -> Scalar | None:
        assert isinstance(a, APInt) and isinstance(b, APInt)
        return fn(a, b)

    return apply


def overflow_flags(op: Operation) -> frozenset[str]:
    """The op's ``#arith.overflow`` flags (none if it takes none)."""
    flags = op.properties.get("overflowFlags")
    return flags.data if isinstance(flags, arith.IntegerOverflowAttr) else frozenset()


def has_fastmath(op: Operation, *names: str) -> bool:
    """Whether ``op``'s fastmath flags include all of ``names``."""
    flags = op.properties.get("fastmath")
    return isinstance(flags, arith.FastMathFlagsAttr) and all(name in flags.data for name in names)


def cmp_predicate(op: arith.CmpiOp | arith.CmpfOp) -> int:
    """The comparison's predicate, as MLIR numbers it."""
    return op.predicate.value.data


def with_traits(fold: Folder, *traits: Folder) -> Folder:
    """``fold``, then the trait folders in turn when it fails or folds in place
    (``Op::foldSingleResultHook``)."""

    def fold_with_traits(op: Operation) -> FoldResult | None:
        result = fold(op)
        if result:
            return result
        for trait in traits:
            if (trait_result := trait(op)) is not None:
                return trait_result
        return result

    return fold_with_traits


def replace(
    rewriter: PatternRewriter, root: Operation, new_ops: Sequence[Operation], values: Sequence[SSAValue]
) -> None:
    """Replace ``root`` by ``values``, inserting ``new_ops`` before it."""
    rewriter.replace(root, list(new_ops), list(values))
