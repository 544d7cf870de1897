"""What IREE's dispatch creation asks of an op, answered through the interfaces MLIR's linalg
defines (``LinalgStructuredInterface``: loops, iterator types, indexing maps; ``TilingInterface``
for the tileable ops that are not structured) rather than per op class: so every structured op
passviz has, or gains (named reductions, broadcasts, maps, pooling, each convolution and
contraction), is a dispatch root, a fusion candidate and a leftover exactly as its loops say.

IREE 3.13's ``isRootLikeOp`` (``DispatchCreation/FormDispatchRegions.cpp``) and the leftover
walk of ``decideFusableLinalgOps`` are here; the bit-extension test they share with
clone-producers stays in the pass (``form_dispatch_regions.is_bit_extend``)."""

from __future__ import annotations

from xdsl.dialects import tensor
from xdsl.dialects.builtin import TensorType
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute, Operation
from xdsl.ir.affine import AffineBinaryOpExpr, AffineMap

from passviz.compilers.mlir.dialects.linalg import (
    FillOp,
    GenericOp,
    SoftmaxOp,
    StructuredInterface,
    is_structured,
)
from passviz.ir.hints import isa


def _softmax_rank(op: SoftmaxOp) -> int:
    type_ = op.input.type
    assert isa(type_, TensorType[Attribute])
    return len(type_.get_shape())


def as_structured(op: Operation) -> LinalgStructuredOperation | StructuredInterface | None:
    """``op`` as one of MLIR's ``LinalgOp``s (``linalg.is_structured``), typed so, or None."""
    if is_structured(op):
        assert isinstance(op, LinalgStructuredOperation | StructuredInterface)
        return op
    return None


def loop_iterators(op: Operation) -> list[IteratorType] | None:
    """The loops of ``op`` (``getLoopIteratorTypes``): a structured op's iterator types, or
    for ``linalg.softmax`` (tileable, not structured) one parallel loop per dimension, as
    IREE's fusion interface gives it; None for any other op."""
    if isinstance(op, SoftmaxOp):
        return [IteratorType.PARALLEL] * _softmax_rank(op)
    structured = as_structured(op)
    if structured is None:
        return None
    return [attr.data for attr in structured.get_iterator_types().data]


def operand_maps(op: Operation) -> list[AffineMap] | None:
    """``getIndexingMapsArray``: one map per operand, inputs then inits (``linalg.softmax``:
    identities over its input and init); None for an op without loops."""
    if isinstance(op, SoftmaxOp):
        rank = _softmax_rank(op)
        return [AffineMap.identity(rank), AffineMap.identity(rank)]
    structured = as_structured(op)
    if structured is None:
        return None
    return [attr.data for attr in structured.get_indexing_maps().data]


def reduction_loops(op: Operation) -> int:
    """``getNumReductionLoops``: how many of ``op``'s loops are reductions (0 without loops)."""
    return sum(1 for kind in loop_iterators(op) or [] if kind == IteratorType.REDUCTION)


def is_tileable(op: Operation) -> bool:
    """Whether ``op`` implements ``TilingInterface``: structured ops, ``linalg.softmax`` and
    ``tensor.pad`` among the ops passviz has."""
    return loop_iterators(op) is not None or isinstance(op, tensor.PadOp)


def root_reason(op: Operation) -> str | None:
    """Why IREE's ``isRootLikeOp`` makes ``op`` a dispatch root, or None where it does not
    (a bit extension, which is cloned into its consumers, is judged before this)."""
    if is_structured(op):
        if isinstance(op, GenericOp):
            return "a linalg.generic with a reduction loop" if reduction_loops(op) else None
        if isinstance(op, FillOp):
            return None
        return "a named linalg op"
    if is_tileable(op) and not isinstance(op, tensor.PadOp):
        return "a tileable op"
    return None


def is_leftover_candidate(op: Operation) -> bool:
    """Whether the second walk of ``decideFusableLinalgOps`` gives ``op`` a dispatch of its own
    when none took it: a structured op or a ``tensor.pad`` (clonable ones excepted by the
    caller: a fill, a bit extension)."""
    return is_structured(op) or isinstance(op, tensor.PadOp)


def is_convolution(op: Operation) -> bool:
    """MLIR's ``ConvolutionOpInterface``, which the named convolutions and poolings declare: a
    structured named op whose image is read through a window (an input dimension indexed by a
    sum of loops, ``d1 + d4``)."""
    if not is_structured(op) or isinstance(op, GenericOp):
        return False
    maps = operand_maps(op)
    return bool(maps) and any(isinstance(expr, AffineBinaryOpExpr) for expr in maps[0].results)
