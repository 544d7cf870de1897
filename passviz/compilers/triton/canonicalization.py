"""Canonicalization patterns of Triton 3.6's ``tt`` ops, for ``canonicalize``.

One ``RewritePattern`` class per pattern that Triton registers in an op's
``getCanonicalizationPatterns`` (``lib/Dialect/Triton/IR/Ops.cpp``,
``Canonicalize.td``), or per ``canonicalize`` method, so that a trace names
the one that fired.  Folders are the ops' own (``passviz.compilers.triton.dialects.tt``);
``TritonCanonicalization``, the ``tt`` dialect's canonicalization interface, hands the
canonicalizer the patterns and adds the in-place part of ``TransOp::fold``, which an xDSL
folder cannot do.

Each pattern is a ``passviz.rewrite.patterns.RootedPattern``: it carries MLIR's root op
and benefit, and ``ordered`` sorts a pattern list the way MLIR's ``PatternApplicator``
tries it.

This module also holds what Triton's pass patterns share: ``ElementwisePattern`` and
``is_elementwise`` (MLIR's ``OpTrait::Elementwise``), ``is_memory_effect_free``.

Reference: triton-lang/triton at the 3.6 branch point (``004d7f5f5``).
Behaving as Triton 3.9 (``passviz.compilers.triton.version``), ``tt.int_to_ptr``
has 3.9's two patterns as well.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Protocol

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FixedBitwidthType,
    IntegerAttr,
    TensorType,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.traits import is_side_effect_free
from xdsl.utils.type import get_element_type_or_self

from passviz.compilers.triton.dialects.tt import (
    AddPtrOp,
    BitcastOp,
    BroadcastOp,
    Elementwise,
    ExpandDimsOp,
    IntToPtrOp,
    LoadOp,
    PointerType,
    PtrToIntOp,
    ReshapeOp,
    SplatOp,
    StoreOp,
    TransOp,
)
from passviz.compilers.triton.version import triton_version
from passviz.ir.hints import isa
from passviz.rewrite.canonicalization import DialectCanonicalizationInterface
from passviz.rewrite.greedy import FoldResult
from passviz.rewrite.matchers import defining, dense, int_attr, int_value, splat_element
from passviz.rewrite.patterns import RootedPattern, ordered

# ===----------------------------------------------------------------------=== #
# Shared matchers
# ===----------------------------------------------------------------------=== #


class ElementwisePattern(RootedPattern):
    """A pattern rooted at every op with MLIR's ``Elementwise`` trait
    (``OpTraitRewritePattern<OpTrait::Elementwise>``)."""

    def applies_to(self, op: Operation) -> bool:
        return is_elementwise(op)


def is_elementwise(op: Operation) -> bool:
    """Whether ``op`` has MLIR's ``OpTrait::Elementwise``.

    ``tt`` ops declare it (``tt.Elementwise``); in MLIR every ``arith`` op but
    ``arith.constant`` and every ``math`` op has it (``ElementwiseMappable``),
    which xDSL does not model, so those are known by name.
    """
    if op.has_trait(Elementwise, value_if_unregistered=False):
        return True
    return op.name != "arith.constant" and op.dialect_name() in ("arith", "math")


def is_memory_effect_free(op: Operation) -> bool:
    """MLIR's ``isMemoryEffectFree``: every ``arith``/``math`` op is
    ``NoMemoryEffect`` there, even where xDSL declares no effects."""
    return op.dialect_name() in ("arith", "math") or is_side_effect_free(op)


class _SrcToResult(Protocol):
    """A one-operand, one-result op's constructor (``SrcToResultSyntax``'s)."""

    def __call__(self, src: SSAValue, result_type: Attribute, /) -> Operation: ...


class SourceChainPattern(RootedPattern):
    """``outer(inner(x)) -> new(x)``, ``new`` of ``outer``'s result type: the three are
    one-operand, one-result ops, named in the class line
    (``class P(SourceChainPattern, outer=..., inner=..., new=...)``)."""

    outer: ClassVar[type[IRDLOperation]]
    inner: ClassVar[type[IRDLOperation]]
    new: ClassVar[_SrcToResult]

    def __init_subclass__(
        cls,
        outer: type[IRDLOperation],
        inner: type[IRDLOperation],
        new: _SrcToResult,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        cls.root, cls.outer, cls.inner, cls.new = outer.name, outer, inner, new

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, self.outer):
            return
        source = defining(op.operands[0], self.inner)
        if source is None:
            return
        rewriter.replace(op, self.new(source.operands[0], op.results[0].type))


def _splat_mask(mask: SSAValue | None) -> bool | None:
    """Whether ``mask`` is an ``arith.constant`` splat of true or false; None if not one."""
    constant = defining(mask, arith.ConstantOp)
    if constant is None:
        return None
    element = splat_element(constant.value)
    if not isinstance(element, IntegerAttr):
        return None
    return element.value.data & 1 == 1


def _copy_properties(source: Operation, target: Operation, names: Iterable[str]) -> None:
    for name in names:
        prop = source.properties.get(name)
        if prop is not None:
            target.properties[name] = prop


def _copy_cache_policy(source: Operation, target: Operation) -> None:
    """Give ``target`` the Triton 3.9 ``cachePolicy`` of ``source``, if it has one:
    3.9's builders take it, as 3.6's took ``cache`` and ``evict`` (other
    discardable attributes are dropped)."""
    policy = source.attributes.get("cachePolicy")
    if policy is not None:
        target.attributes["cachePolicy"] = policy


# ===----------------------------------------------------------------------=== #
# tt.load / tt.store
# ===----------------------------------------------------------------------=== #


class _MaskedPattern(RootedPattern, ABC):
    """A ``tt.load`` or ``tt.store`` whose mask is a splat: with all ones, the op
    ``unmasked`` builds instead, keeping the properties ``kept`` and the cache
    policy; with all zeros, what ``all_false`` does."""

    kind: ClassVar[type[LoadOp] | type[StoreOp]]
    kept: ClassVar[tuple[str, ...]]
    """The properties Triton's builder of the op without a mask takes."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, self.kind):
            return
        all_true = _splat_mask(op.mask)
        if all_true is None:
            return
        if not all_true:
            self.all_false(op, rewriter)
            return
        new = self.unmasked(op)
        _copy_properties(op, new, self.kept)
        _copy_cache_policy(op, new)
        rewriter.replace(op, new)

    @abstractmethod
    def unmasked(self, op: LoadOp | StoreOp) -> Operation:
        """The op without a mask, of ``op``'s operands."""

    @abstractmethod
    def all_false(self, op: LoadOp | StoreOp, rewriter: PatternRewriter) -> None:
        """Rewrite ``op``, whose mask is all zeros."""


class CanonicalizeMaskedLoadPattern(_MaskedPattern):
    """``load(ptr, splat(1), ...) -> load(ptr, ...)``;
    ``load(ptr, splat(0), other, ...) -> other``."""

    root = "tt.load"
    kind = LoadOp
    kept = ("boundaryCheck", "padding", "cache", "evict", "isVolatile")

    def unmasked(self, op: LoadOp | StoreOp) -> Operation:
        return LoadOp(op.ptr)

    def all_false(self, op: LoadOp | StoreOp, rewriter: PatternRewriter) -> None:
        assert isinstance(op, LoadOp)
        # With no "other" the loaded value is undefined: Triton keeps the load.
        if op.other is not None:
            rewriter.replace(op, [], [op.other])


class CanonicalizeMaskedStorePattern(_MaskedPattern):
    """``store(ptr, value, splat(1), ...) -> store(ptr, value, ...)``;
    ``store(ptr, value, splat(0), ...) ->`` nothing."""

    root = "tt.store"
    kind = StoreOp
    # Triton's builder takes cache and evict only: a boundary check is dropped.
    kept = ("cache", "evict")

    def unmasked(self, op: LoadOp | StoreOp) -> Operation:
        assert isinstance(op, StoreOp)
        return StoreOp(op.ptr, op.value)

    def all_false(self, op: LoadOp | StoreOp, rewriter: PatternRewriter) -> None:
        rewriter.erase(op)


# ===----------------------------------------------------------------------=== #
# tt.broadcast (Canonicalize.td)
# ===----------------------------------------------------------------------=== #


class BroadcastSplatPattern(SourceChainPattern, outer=BroadcastOp, inner=SplatOp, new=SplatOp):
    """``broadcast(splat(x)) -> splat(x)``."""

    benefit = 2


class BroadcastBroadcastPattern(SourceChainPattern, outer=BroadcastOp, inner=BroadcastOp, new=BroadcastOp):
    """``broadcast(broadcast(x)) -> broadcast(x)``."""

    benefit = 2


# ===----------------------------------------------------------------------=== #
# tt.expand_dims / tt.reshape (canonicalize methods)
# ===----------------------------------------------------------------------=== #


class ExpandDimsOpCanonicalize(RootedPattern):
    """``ExpandDimsOp::canonicalize``: ``expand_dims(splat) -> splat``;
    ``expand_dims(broadcast(x)) -> broadcast(expand_dims(x))``."""

    root = "tt.expand_dims"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, ExpandDimsOp):
            return
        source = op.src.owner
        if isinstance(source, SplatOp):
            rewriter.replace(op, SplatOp(source.src, op.result.type))
            return
        if isinstance(source, BroadcastOp):
            expand = ExpandDimsOp(source.src, op.axis.value.data)
            broadcast = BroadcastOp(expand.result, op.result.type)
            rewriter.replace(op, [expand, broadcast])


class ReshapeOpCanonicalize(RootedPattern):
    """``ReshapeOp::canonicalize``: ``reshape(reshape) -> reshape``
    (reordering allowed if either allowed it); ``reshape(splat) -> splat``."""

    root = "tt.reshape"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, ReshapeOp) or op.efficient_layout is not None:
            return
        source = op.src.owner
        if isinstance(source, ReshapeOp):
            allow_reorder = op.allow_reorder is not None or source.allow_reorder is not None
            reshape = ReshapeOp(source.src, op.result.type, allow_reorder=allow_reorder)
            rewriter.replace(op, reshape)
            return
        if isinstance(source, SplatOp):
            rewriter.replace(op, SplatOp(source.src, op.result.type))


class ReshapeOfExpandDimsPattern(RootedPattern):
    """Triton 3.9: ``reshape(expand_dims(x))`` back to ``x``'s own type is ``x``.

    What 3.9's combine leaves of a mul-reduce turned into a dot; 3.9 registers
    it with ``tt.expand_dims``'s canonicalization patterns (reorder-broadcast
    applies it too), not as a folder (its combine keeps the pair)."""

    root = "tt.reshape"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, ReshapeOp) or op.allow_reorder is not None or op.efficient_layout is not None:
            return
        expand = op.src.owner
        if isinstance(expand, ExpandDimsOp) and expand.src.type == op.result.type:
            rewriter.replace(op, [], [expand.src])


# ===----------------------------------------------------------------------=== #
# tt.int_to_ptr (Triton 3.9)
# ===----------------------------------------------------------------------=== #


class CanonicalizeIntToPtrOfPtrToInt(SourceChainPattern, outer=IntToPtrOp, inner=PtrToIntOp, new=BitcastOp):
    """``int_to_ptr(ptr_to_int(p)) -> bitcast(p)`` (which folds away when the types match)."""


def _constant_offset(value: SSAValue) -> int | None:
    """The signed value of an ``arith.constant`` integer, or splat of one, defining ``value``."""
    constant = defining(value, arith.ConstantOp)
    found = int_value(constant.value) if constant is not None else None
    return found.signed if found is not None else None


class CanonicalizeIntToPtrWithAdd(RootedPattern):
    """``int_to_ptr(addi(x, c))`` -> ``addptr(int_to_ptr(x), c / size)`` for a
    constant byte offset ``c`` that whole elements of the pointee make up."""

    root = "tt.int_to_ptr"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, IntToPtrOp):
            return
        add = defining(op.src, arith.AddiOp)
        if add is None:
            return
        result_type = op.result.type
        pointer = result_type.get_element_type() if isa(result_type, TensorType[Attribute]) else result_type
        if not isinstance(pointer, PointerType):
            return
        pointee = pointer.pointee_type
        if isa(pointee, TensorType[Attribute]):
            pointee = pointee.get_element_type()
        if not isinstance(pointee, FixedBitwidthType):
            return
        element_bytes = max(1, pointee.bitwidth // 8)
        offset = _constant_offset(add.rhs)
        if offset is None or offset % element_bytes != 0:
            return
        offset_type = get_element_type_or_self(add.rhs.type)
        base = IntToPtrOp(add.lhs, result_type)
        # Triton's offset is a splat shaped as the result (its encoding too), of the offset's integer type.
        elements = offset // element_bytes
        if isa(result_type, TensorType[Attribute]):
            shape = TensorType[Attribute](offset_type, result_type.get_shape(), result_type.encoding)
            constant = arith.ConstantOp(dense(shape, [elements]))
        else:
            scalar = int_attr(elements, offset_type)
            assert scalar is not None  # _constant_offset saw an integer type
            constant = arith.ConstantOp(scalar)
        rewriter.replace(op, [base, constant, AddPtrOp(base.result, constant.result)])


# ===----------------------------------------------------------------------=== #
# The table
# ===----------------------------------------------------------------------=== #


def patterns_for(op_name: str) -> tuple[RewritePattern, ...]:
    """The canonicalization patterns of the ``tt`` op ``op_name``, in MLIR's order."""
    match op_name:
        case "tt.load":
            return (CanonicalizeMaskedLoadPattern(),)
        case "tt.store":
            return (CanonicalizeMaskedStorePattern(),)
        case "tt.broadcast":
            return ordered((BroadcastSplatPattern(), BroadcastBroadcastPattern()))
        case "tt.expand_dims":
            return (ExpandDimsOpCanonicalize(),)
        case "tt.reshape" if triton_version() >= (3, 9):
            return (ReshapeOpCanonicalize(), ReshapeOfExpandDimsPattern())
        case "tt.reshape":
            return (ReshapeOpCanonicalize(),)
        case "tt.int_to_ptr" if triton_version() >= (3, 9):
            return (CanonicalizeIntToPtrOfPtrToInt(), CanonicalizeIntToPtrWithAdd())
        case _:
            return ()


class TritonCanonicalization(DialectCanonicalizationInterface):
    """The ``tt`` dialect's canonicalization: its ops' patterns (``patterns_for``) and folders.

    The triton family attaches it to the dialect (``passviz.compilers.triton.family``), so that
    the ops need not import their patterns, which import them."""

    def patterns(self, op: Operation) -> Sequence[RewritePattern]:
        return patterns_for(op.name)

    def fold(self, op: Operation) -> FoldResult | None:
        """Triton's folder for a ``tt`` op, the ops' own (xDSL's ``HasFolder``) but for
        ``tt.trans``: xDSL folders may not change the op, so the in-place part of
        ``TransOp::fold`` (``trans(trans(x))`` becomes one ``trans`` of ``x``) is applied
        here, in Triton's order: after the identity fold, before the splat-constant one."""
        if not isinstance(op, TransOp):
            return super().fold(op)
        folded = op.fold()
        if folded == (op.src,):
            return folded
        in_place = op.fold_in_place()
        if in_place is None:
            return folded
        source, order = in_place
        op.operands[0] = source
        op.properties["order"] = DenseArrayBase.from_list(i32, order)
        return ()


__all__ = [
    "BroadcastBroadcastPattern",
    "BroadcastSplatPattern",
    "CanonicalizeIntToPtrOfPtrToInt",
    "CanonicalizeIntToPtrWithAdd",
    "CanonicalizeMaskedLoadPattern",
    "CanonicalizeMaskedStorePattern",
    "ElementwisePattern",
    "ExpandDimsOpCanonicalize",
    "ReshapeOfExpandDimsPattern",
    "ReshapeOpCanonicalize",
    "TritonCanonicalization",
    "is_elementwise",
    "is_memory_effect_free",
    "patterns_for",
]
