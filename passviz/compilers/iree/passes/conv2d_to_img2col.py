"""``iree-global-opt-convert-conv2d-to-img2col``: IREE 3.13's ``ConvertConv2DToImg2ColPass``
(``GlobalOptimization/ConvertConv2DToImg2Col.cpp``).

A convolution is a matrix product once each output position's input window
is copied out (im2col): a ``linalg.generic`` gathers the windows into a
tensor, ``tensor.collapse_shape`` makes the operands 2-D (3-D with a batch),
a ``linalg.matmul`` (or a generic for a batch, or ``linalg.batch_matvec`` for a
depthwise convolution) multiplies them, and ``tensor.expand_shape`` gives the
result its image shape back.  Only static shapes with unit dilations are
converted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, TypeVar

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from passviz.compilers.iree.passes.pattern_pass import IreePatternPass
from passviz.compilers.mlir.dialects.linalg import (
    BatchMatvecOp,
    Conv2DNchwFchwOp,
    Conv2DNhwcHwcfOp,
    DepthwiseConv2DNhwcHwcOp,
    GenericOp,
    MatmulOp,
)
from passviz.compilers.mlir.dialects.tensor import CollapseShapeOp, ExpandShapeOp
from passviz.ir.hints import isa
from passviz.rewrite.patterns import RootedPattern

_OpT = TypeVar("_OpT", bound=Operation)

Reassociation = Sequence[Sequence[int]]
"""Which source dimensions each result dimension of a reshape groups."""


def _static(value: SSAValue) -> TensorType[Attribute] | None:
    """The value's tensor type when every dimension is static."""
    type_ = value.type
    if not isa(type_, TensorType[Attribute]) or any(d < 0 for d in type_.get_shape()):
        return None
    return type_


_Conv = Conv2DNhwcHwcfOp | Conv2DNchwFchwOp | DepthwiseConv2DNhwcHwcOp
"""The convolutions converted."""


class _Conv2D(NamedTuple):
    """A convolution that IREE converts: its operands, their static types, its strides."""

    image: SSAValue
    filter: SSAValue
    output: SSAValue
    image_type: TensorType[Attribute]
    filter_type: TensorType[Attribute]
    output_type: TensorType[Attribute]
    strides: tuple[int, int]

    @property
    def element(self) -> Attribute:
        """The image's element type: the im2col copy's and the collapsed operands'."""
        return self.image_type.element_type


def _convertible(op: _Conv) -> _Conv2D | None:
    """``op``'s operands and types where IREE's preconditions hold (static input and filter, no
    dilation), else None."""
    image_type, filter_type, output_type = _static(op.inputs[0]), _static(op.inputs[1]), op.outputs[0].type
    if image_type is None or filter_type is None or op.window_dilations() != (1, 1):
        return None
    assert isa(output_type, TensorType[Attribute])
    image, filter_, output = op.inputs[0], op.inputs[1], op.outputs[0]
    return _Conv2D(image, filter_, output, image_type, filter_type, output_type, op.window_strides())


def _tensor(shape: Sequence[int], element: Attribute) -> TensorType[Attribute]:
    return TensorType(element, shape)


def _identity(loops: int) -> AffineMap:
    return AffineMap.identity(loops)


def _copy_body(types: Sequence[Attribute]) -> Region:
    """``^bb0(%in, %out): linalg.yield %in``."""

    @Builder.implicit_region(types)
    def body(args: tuple[BlockArgument, ...]) -> None:
        YieldOp(args[0])

    return body


def _mac_body(types: Sequence[Attribute]) -> Region:
    """``mul(a, b)`` then ``add(mul, acc)`` (IREE's ``createMul``/``createAdd`` order)."""
    integer = isinstance(types[-1], IntegerType)

    @Builder.implicit_region(types)
    def body(args: tuple[BlockArgument, ...]) -> None:
        mul: Operation = arith.MuliOp(args[0], args[1]) if integer else arith.MulfOp(args[0], args[1])
        add = arith.AddiOp(mul.results[0], args[2]) if integer else arith.AddfOp(mul.results[0], args[2])
        YieldOp(add)

    return body


def _generic(
    inputs: Sequence[SSAValue],
    output: SSAValue,
    maps: Sequence[AffineMap],
    reductions: int,
    body: Callable[[Sequence[Attribute]], Region],
) -> GenericOp:
    loops = maps[0].num_dims
    iterators = [IteratorTypeAttr.parallel()] * (loops - reductions) + [
        IteratorTypeAttr.reduction()
    ] * reductions
    types = [_element(v) for v in (*inputs, output)]
    return GenericOp(
        inputs,
        [output],
        body(types),
        [AffineMapAttr(m) for m in maps],
        iterators,
        [output.type],
    )


def _element(value: SSAValue) -> Attribute:
    type_ = value.type
    assert isa(type_, TensorType[Attribute])
    return type_.element_type


def _reassociation(groups: Reassociation) -> ArrayAttr[ArrayAttr[IntegerAttr]]:
    return ArrayAttr(ArrayAttr(IntegerAttr(d, i64) for d in group) for group in groups)


def _collapse(value: SSAValue, groups: Reassociation, result: TensorType[Attribute]) -> CollapseShapeOp:
    return CollapseShapeOp.build(
        operands=[value], result_types=[result], properties={"reassociation": _reassociation(groups)}
    )


def _expand(value: SSAValue, groups: Reassociation, result: TensorType[Attribute]) -> ExpandShapeOp:
    return ExpandShapeOp(value, [], _reassociation(groups), result.get_shape(), result)


def _collapsed(groups: Reassociation, shape: Sequence[int]) -> tuple[Reassociation, list[int]]:
    """A collapse's groups and result shape, batch first; a batch of one is folded into the
    next group and leaves the shape, as IREE's ``n == 1`` case has it."""
    if shape[0] != 1:
        return groups, list(shape)
    return [[*groups[0], *groups[1]], *groups[2:]], list(shape[1:])


class _Emitter:
    """Inserts the ops of one rewrite before the convolution, in IREE's order."""

    def __init__(self, rewriter: PatternRewriter, op: Operation) -> None:
        self.rewriter = rewriter
        self.point = InsertPoint.before(op)

    def __call__(self, op: _OpT) -> _OpT:
        self.rewriter.insert(op, self.point)
        return op

    def empty(self, shape: Sequence[int], element: Attribute) -> SSAValue:
        return self(tensor.EmptyOp([], _tensor(shape, element))).tensor

    def transpose(self, value: SSAValue, indices: Sequence[int]) -> SSAValue:
        """IREE's ``transposeOperand``: a copy generic whose result dimension ``i`` is ``indices[i]``."""
        type_ = value.type
        assert isa(type_, TensorType[Attribute])
        shape = type_.get_shape()
        out = self.empty([shape[i] for i in indices], type_.element_type)
        permutation = AffineMap(len(indices), 0, tuple(AffineDimExpr(i) for i in indices))
        inverse = permutation.inverse_permutation()
        assert inverse is not None
        maps = [inverse, _identity(len(indices))]
        return self(_generic([value], out, maps, 0, _copy_body)).res[0]

    def img2col(
        self,
        image: SSAValue,
        shape: Sequence[int],
        strides: tuple[int, int],
        window: Sequence[int | tuple[int, int]],
    ) -> SSAValue:
        """The im2col copy of ``image`` into a new tensor of ``shape`` (six loops). ``window`` gives
        each image dimension's index: a loop, or for the two spatial ones (output loop, window
        loop), the output loop strided by ``strides``."""
        d = [AffineDimExpr(i) for i in range(6)]
        spatial = iter(strides)
        index = [d[w] if isinstance(w, int) else d[w[0]] * next(spatial) + d[w[1]] for w in window]
        image_map = AffineMap(6, 0, tuple(index))
        col = self.empty(shape, _element(image))
        return self(_generic([image], col, [image_map, _identity(len(shape))], 0, _copy_body)).res[0]

    def contraction(
        self, lhs: SSAValue, rhs: SSAValue, acc: SSAValue, batch_maps: Sequence[AffineMap] | None
    ) -> SSAValue:
        """``lhs`` times ``rhs`` accumulated into ``acc``: a ``linalg.matmul``, or with
        ``batch_maps`` the batched multiply-accumulate generic over them."""
        if batch_maps is None:
            return self(MatmulOp([lhs, rhs], [acc], [acc.type])).res[0]
        return self(_generic([lhs, rhs], acc, batch_maps, 1, _mac_body)).res[0]

    def product(
        self,
        lhs: SSAValue,
        rhs: SSAValue,
        conv: _Conv2D,
        out_groups: tuple[Reassociation, list[int]],
        image_on_left: bool,
    ) -> SSAValue:
        """``lhs`` times ``rhs`` accumulated into the convolution's output collapsed by
        ``out_groups`` (its groups and collapsed shape), expanded back: a ``contraction``, batched
        (on the image's side) where ``out_groups`` kept the batch."""
        groups, shape = out_groups
        output_type = conv.output_type
        acc = self(_collapse(conv.output, groups, _tensor(shape, output_type.element_type))).result
        batched = output_type.get_shape()[0] != 1
        product = self.contraction(lhs, rhs, acc, _batch_maps(image_on_left) if batched else None)
        return self(_expand(product, groups, output_type)).result


def _batch_maps(image_on_left: bool) -> list[AffineMap]:
    """The maps (loops ``b, m, j, k``) of a batched product whose image side, the left or the
    right operand, carries the batch."""
    b, m, j, k = (AffineDimExpr(i) for i in range(4))
    lhs, rhs = ((b, m, k), (k, j)) if image_on_left else ((m, k), (b, k, j))
    return [AffineMap(4, 0, lhs), AffineMap(4, 0, rhs), AffineMap(4, 0, (b, m, j))]


class _ConvToImg2Col(RootedPattern):
    """A ``conv`` convolution as an im2col copy and a matrix product, where IREE's preconditions
    hold (``_convertible``): the new ops go before it and replace its result."""

    conv: ClassVar[type[_Conv]]
    """The convolution op converted."""

    def __init_subclass__(cls, conv: type[_Conv] | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if conv is not None:
            cls.conv = conv
            cls.root = conv.name

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, self.conv) or (conv := _convertible(op)) is None:
            return
        rewriter.replace(op, [], [self.convert(conv, _Emitter(rewriter, op))])

    def convert(self, conv: _Conv2D, emit: _Emitter) -> SSAValue:
        """Emit the ops that compute the convolution's result, and give that result."""
        raise NotImplementedError


class ConvertConv2DNhwcHwcf(_ConvToImg2Col, conv=Conv2DNhwcHwcfOp):
    """IREE's ``ConvertConv2DNhwcHwcf``: im2col + ``linalg.matmul`` (a batched generic for N > 1)."""

    def convert(self, conv: _Conv2D, emit: _Emitter) -> SSAValue:
        n, oh, ow, oc = conv.output_type.get_shape()
        fh, fw, ic, _ = conv.filter_type.get_shape()
        img2col = emit.img2col(conv.image, [n, oh, ow, fh, fw, ic], conv.strides, (0, (1, 3), (2, 4), 5))
        element = conv.element
        col_groups, col_shape = _collapsed([[0], [1, 2], [3, 4, 5]], [n, oh * ow, fh * fw * ic])
        lhs = emit(_collapse(img2col, col_groups, _tensor(col_shape, element))).result
        rhs = emit(_collapse(conv.filter, [[0, 1, 2], [3]], _tensor([fh * fw * ic, oc], element))).result
        return emit.product(lhs, rhs, conv, _collapsed([[0], [1, 2], [3]], [n, oh * ow, oc]), True)


class ConvertDepthwiseConv2DNhwcHwc(_ConvToImg2Col, conv=DepthwiseConv2DNhwcHwcOp):
    """IREE's ``ConvertDepthwiseConv2DNhwcHwc``: channels moved outermost, im2col, ``linalg.batch_matvec``."""

    def convert(self, conv: _Conv2D, emit: _Emitter) -> SSAValue:
        image_t = emit.transpose(conv.image, [0, 3, 1, 2])
        filter_t = emit.transpose(conv.filter, [2, 0, 1])
        filter_t_type = filter_t.type
        assert isa(filter_t_type, TensorType[Attribute])
        n, oh, ow, c = conv.output_type.get_shape()
        _, fh, fw = filter_t_type.get_shape()
        output_t = emit.transpose(conv.output, [0, 3, 1, 2])
        img2col = emit.img2col(image_t, [n, c, oh, ow, fh, fw], conv.strides, (0, 1, (2, 4), (3, 5)))
        element = conv.element
        lhs = emit(
            _collapse(img2col, [[0, 1], [2, 3], [4, 5]], _tensor([n * c, oh * ow, fh * fw], element))
        ).result
        filter_element = conv.filter_type.element_type
        rhs = emit(_collapse(filter_t, [[0], [1, 2]], _tensor([c, fh * fw], filter_element))).result
        acc = emit(
            _collapse(output_t, [[0, 1], [2, 3]], _tensor([n * c, oh * ow], conv.output_type.element_type))
        ).result
        product = emit(BatchMatvecOp([lhs, rhs], [acc])).res[0]
        output_t_type = output_t.type
        assert isa(output_t_type, TensorType[Attribute])
        expanded = emit(_expand(product, [[0, 1], [2, 3]], output_t_type)).result
        return emit.transpose(expanded, [0, 2, 3, 1])


class ConvertConv2DNchwFchw(_ConvToImg2Col, conv=Conv2DNchwFchwOp):
    """IREE's ``ConvertConv2DNchwFchw``: im2col + ``linalg.matmul`` with the filter on the left."""

    def convert(self, conv: _Conv2D, emit: _Emitter) -> SSAValue:
        n, oc, oh, ow = conv.output_type.get_shape()
        _, ic, fh, fw = conv.filter_type.get_shape()
        img2col = emit.img2col(conv.image, [n, ic, fh, fw, oh, ow], conv.strides, (0, 1, (4, 2), (5, 3)))
        element = conv.element
        lhs = emit(_collapse(conv.filter, [[0], [1, 2, 3]], _tensor([oc, fh * fw * ic], element))).result
        col_groups, col_shape = _collapsed([[0], [1, 2, 3], [4, 5]], [n, fh * fw * ic, oh * ow])
        rhs = emit(_collapse(img2col, col_groups, _tensor(col_shape, element))).result
        return emit.product(lhs, rhs, conv, _collapsed([[0], [1], [2, 3]], [n, oc, oh * ow]), False)


@dataclass(frozen=True)
class ConvertConv2DToImg2Col(
    IreePatternPass,
    patterns=lambda: [ConvertConv2DNhwcHwcf(), ConvertDepthwiseConv2DNhwcHwc(), ConvertConv2DNchwFchw()],
):
    """Turn static 2-D convolutions into im2col copies and matrix products."""

    name = "iree-global-opt-convert-conv2d-to-img2col"


__all__ = [
    "ConvertConv2DNchwFchw",
    "ConvertConv2DNhwcHwcf",
    "ConvertConv2DToImg2Col",
    "ConvertDepthwiseConv2DNhwcHwc",
]
