"""``iree-preprocessing-convert-1x1-filter-conv2d-to-matmul``: IREE 3.13's
``Convert1X1FilterConv2DToMatmulPass`` (``Preprocessing/Common/Convert1X1FilterConv2DToMatmul.cpp``).

A 2-D convolution whose filter window is 1x1 is a matmul over the remaining
dimensions.  IREE 3.13 no longer reshapes to ``linalg.matmul`` (the seed's
older IREE did): it generalizes the convolution to a ``linalg.generic`` and
drops the window loops from the input's indexing map (they only take the value
0), so later passes see a plain contraction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, TensorType
from xdsl.ir import Attribute, Operation
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from passviz.compilers.iree.passes.pattern_pass import IreePatternPass
from passviz.compilers.mlir.canonicalization.tensor import FoldInverseReshape
from passviz.compilers.mlir.dialects.linalg import Conv2DNchwFchwOp, Conv2DNhwcHwcfOp, generalize
from passviz.ir.hints import isa
from passviz.rewrite.patterns import RootedPattern

_LOOPS = 7
"""A 2-D convolution's loops: batch, two output spatial, output channel, two window, input channel."""


class Convert1x1FilterConvToMatmul(RootedPattern):
    """IREE's ``Convert1x1FilterConvToMatmul<Conv2DNhwcHwcfOp | Conv2DNchwFchwOp>``: a conv
    with a 1x1 filter becomes a generic whose input map ignores the window loops."""

    ROOTS: ClassVar[tuple[str, ...]] = (Conv2DNhwcHwcfOp.name, Conv2DNchwFchwOp.name)
    """The two instantiations of IREE's template."""

    def applies_to(self, op: Operation) -> bool:
        return op.name in self.ROOTS

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, Conv2DNhwcHwcfOp | Conv2DNchwFchwOp):
            return
        filter_type = op.inputs[1].type
        if not isa(filter_type, TensorType[Attribute]):
            return
        nhwc = isinstance(op, Conv2DNhwcHwcfOp)
        kh_index, kw_index = (0, 1) if nhwc else (2, 3)
        window_loops = (4, 5) if nhwc else (5, 6)
        shape = filter_type.get_shape()
        if shape[kh_index] != 1 or shape[kw_index] != 1:
            return
        replacements: list[AffineExpr] = [
            AffineConstantExpr(0) if loop in window_loops else AffineDimExpr(loop) for loop in range(_LOOPS)
        ]
        maps = [m.data for m in op.get_indexing_maps().data]
        image = maps[0]
        maps[0] = AffineMap(
            image.num_dims,
            image.num_symbols,
            tuple(e.replace_dims_and_symbols(replacements, []) for e in image.results),
        )
        generic = generalize(op)
        generic.properties["indexing_maps"] = ArrayAttr(AffineMapAttr(m) for m in maps)
        rewriter.replace(op, generic)


@dataclass(frozen=True)
class Convert1X1FilterConv2DToMatmul(
    IreePatternPass, patterns=lambda: [Convert1x1FilterConvToMatmul(), FoldInverseReshape()]
):
    """Turn 2-D convolutions with a 1x1 filter into matmul-like generics."""

    name = "iree-preprocessing-convert-1x1-filter-conv2d-to-matmul"


__all__ = ["Convert1X1FilterConv2DToMatmul", "Convert1x1FilterConvToMatmul"]
