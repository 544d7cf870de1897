"""``iree-dispatch-creation-split-reduction-ops``: IREE 3.13's ``SplitReductionPass``
(``DispatchCreation/SplitReduction.cpp``) with IREE's default options.

The pass splits a reduction into a parallel partial reduction and a final
one, to give long reductions more parallelism.  With IREE's defaults
(``--iree-dispatch-creation-split-matmul-reduction=1``, no top-k ratios) it
splits only argmax-like generics whose reduction is at least 128 Ki elements
long, into chunks of 128.  passviz runs those defaults: it leaves every matmul
and other reduction as it is, as iree-opt does, and stops with a one-line
error on an argmax candidate, whose split (``splitArgmaxReduction``) it does
not model.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, ModuleOp, TensorType
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Attribute
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.utils.exceptions import PassFailedException

from passviz.compilers.mlir.dialects.linalg import FillOp, GenericOp
from passviz.compilers.mlir.version import behaves_as_iree
from passviz.ir.hints import isa
from passviz.ir.locations import located
from passviz.recording.interface import StepRecorder, TracedPass

ARGMAX_THRESHOLD = 128 * 1024
"""``--iree-dispatch-creation-split-argmax-threshold``: the shortest reduction IREE splits."""


def _neg_inf_fill(op: GenericOp) -> bool:
    """Whether the first init is a ``linalg.fill`` of -inf (IREE's argmax precondition)."""
    fill = op.outputs[0].owner
    if not isinstance(fill, FillOp):
        return False
    constant = fill.inputs[0].owner
    if not isinstance(constant, arith.ConstantOp) or not isinstance(constant.value, FloatAttr):
        return False
    return constant.value.value.data == float("-inf")


def argmax_candidate(op: GenericOp) -> bool:
    """IREE's structural argmax preconditions with a reduction long enough to split: one input,
    two inits (value, index), one reduction loop, an identity input map, a -inf initial value."""
    if len(op.inputs) != 1 or len(op.outputs) != 2:
        return False
    iterators = [it.data for it in op.iterator_types.data]
    if iterators.count(IteratorType.REDUCTION) != 1:
        return False
    maps = [m.data for m in op.indexing_maps.data]
    if maps[0] != AffineMap.identity(maps[0].num_dims) or not _neg_inf_fill(op):
        return False
    source: Attribute = op.inputs[0].type
    if not isa(source, TensorType[Attribute]):
        return False
    dim = iterators.index(IteratorType.REDUCTION)
    position = next(
        i for i, r in enumerate(maps[0].results) if isinstance(r, AffineDimExpr) and r.position == dim
    )
    size = source.get_shape()[position]
    return size >= ARGMAX_THRESHOLD


@dataclass(frozen=True)
class SplitReductionOps(TracedPass):
    """Split long reductions for parallelism (IREE's defaults: argmax only, which passviz does not model)."""

    name = "iree-dispatch-creation-split-reduction-ops"
    announces_every_edit = True

    @behaves_as_iree
    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        for nested in op.walk():
            if isinstance(nested, GenericOp) and argmax_candidate(nested):
                raise PassFailedException(
                    located(
                        nested,
                        f"{self.name}: an argmax over {ARGMAX_THRESHOLD} or more elements would be split "
                        "(IREE's splitArgmaxReduction), which passviz does not model",
                    )
                )


__all__ = ["ARGMAX_THRESHOLD", "SplitReductionOps", "argmax_candidate"]
