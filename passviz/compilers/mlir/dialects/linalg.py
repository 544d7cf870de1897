"""xDSL's ``linalg`` dialect with what IREE's Flow inputs need and xDSL 0.74 lacks.

Added: the depthwise convolutions (``depthwise_conv_2d_nhwc_hwc`` and its
quantized ``_q`` form), ``batch_matmul`` and ``batch_matvec`` (what
``convert-conv2d-to-img2col`` makes of batched and depthwise convolutions).
``linalg.generic`` reads a parenthesized list of several result types
(``-> (tensor<4xf32>, tensor<4xf32>)``), which xDSL's parser takes for a
function type.  Named convolutions take their strides and dilations as
``vector<2xi64>`` as well as ``tensor<2xi64>``, as MLIR does, or not at all
(1 each, MLIR's default).
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import ClassVar, Self, cast

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    I64,
    AffineMapAttr,
    AnyTensorType,
    ArrayAttr,
    ContainerType,
    DenseArrayBase,
    DenseIntElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ShapedType,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.dialects.linalg import Linalg as _XdslLinalg
from xdsl.dialects.linalg import ops as xdsl_linalg
from xdsl.dialects.linalg.abstract_ops import ConvOperation, LinalgStructuredOperation, NamedOperation
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp as _XdslGenericOp
from xdsl.dialects.linalg.ops import IndexOp, YieldOp
from xdsl.ir import Attribute, Block, BlockArgument, Dialect, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.irdl import (
    IRDLOperation,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa

from passviz.compilers.mlir.dialects import replacing
from passviz.compilers.mlir.dialects.linalg_base import (
    PayloadEffects,
    expect_args,
    mac_region,
    maps_attr,
    parse_named,
    parse_operands,
    verify_results_match_inits,
)
from passviz.compilers.mlir.dialects.linalg_named import (
    NAMED_OPS,
    ElementwiseKindAttr,
    ElementwiseOp,
    TypeFnAttr,
    is_unsigned,
)
from passviz.ir.op_syntax import parse_result_types
from passviz.ir.xdsl_compat import current_token, print_new_line


@irdl_op_definition
class GenericOp(_XdslGenericOp):
    """``linalg.generic {indexing_maps = ..., iterator_types = [...]} ins(...) outs(...) {...} -> types``.

    xDSL's, reading ``-> (t0, t1)`` for an op with several results.
    """

    name = "linalg.generic"

    # irdl_op_definition takes a subclass's fields from its own body.
    inputs = var_operand_def()
    outputs = var_operand_def(ShapedType)
    res = var_result_def(TensorType)
    body = region_def("single_block")
    indexing_maps = prop_def(ArrayAttr[AffineMapAttr])
    iterator_types = prop_def(ArrayAttr[IteratorTypeAttr])
    doc = opt_prop_def(StringAttr)
    library_call = opt_prop_def(StringAttr)

    # On tensors a generic has only its payload's effects (MLIR's getEffects): a dead one is erased.
    traits = traits_def(PayloadEffects())

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        start = parser.pos
        attrs = parser.parse_optional_attr_dict()
        maps = attrs.pop("indexing_maps", None)
        iterators = attrs.pop("iterator_types", None)
        if not isa(maps, ArrayAttr[Attribute]) or not isa(iterators, ArrayAttr[Attribute]):
            parser.raise_error("linalg.generic needs indexing_maps and iterator_types", start, parser.pos)
        iterator_types: list[IteratorTypeAttr] = []
        for item in iterators.data:
            if isinstance(item, IteratorTypeAttr):
                iterator_types.append(item)
            elif isinstance(item, StringAttr) and item.data in IteratorType.__members__.values():
                iterator_types.append(IteratorTypeAttr(IteratorType(item.data)))
            else:
                parser.raise_error(f"unknown iterator type {item}", start, parser.pos)
        doc = attrs.pop("doc", None)
        library_call = attrs.pop("library_call", None)
        # MLIR reads a second dictionary before ins(...) (IREE's tests mark ops so), and properties.
        attrs |= parser.parse_optional_attr_dict()
        if parser.parse_optional_punctuation("<") is not None:
            properties = parser.parse_attribute()
            parser.parse_punctuation(">")
            if not isinstance(properties, DictionaryAttr):
                parser.raise_error("expected a dictionary of properties", start, parser.pos)
            attrs |= properties.data
        ins = parse_operands(parser, "ins")
        outs = parse_operands(parser, "outs")
        extra: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("attrs"):
            parser.parse_punctuation("=")
            extra = parser.parse_optional_attr_dict()
        body = parser.parse_region()
        results = parse_result_types(parser)
        op = cls(
            ins,
            outs,
            body,
            [m for m in maps.data if isinstance(m, AffineMapAttr)],
            iterator_types,
            results,
            doc if isinstance(doc, StringAttr) else None,
            library_call if isinstance(library_call, StringAttr) else None,
        )
        op.attributes |= attrs | extra
        return op


def _strided(out: AffineExpr, kernel: AffineExpr, stride: int, dilation: int) -> AffineExpr:
    return out * stride + kernel * dilation


class _ConvBase(ConvOperation):
    """A named convolution whose inputs may be narrower than its accumulator, and whose
    strides and dilations may be left out (MLIR's default: 1 each, printed only if given)."""

    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True

    traits = traits_def(PayloadEffects())

    # MLIR's DefaultValuedOptionalAttr: absent stays absent, so the op prints as it was read.
    strides = opt_prop_def(DenseIntElementsAttr)  # pyright: ignore[reportIncompatibleVariableOverride]
    """The window's strides, if given (``window_strides`` has them with the default)."""
    dilations = opt_prop_def(DenseIntElementsAttr)  # pyright: ignore[reportIncompatibleVariableOverride]
    """The window's dilations, if given (``window_dilations`` has them with the default)."""

    def window_strides(self) -> tuple[int, int]:
        """The strides along the two window dimensions, 1 where not given."""
        return _pair(self.strides)

    def window_dilations(self) -> tuple[int, int]:
        """The dilations along the two window dimensions, 1 where not given."""
        return _pair(self.dilations)

    LOOPS: ClassVar[str]
    """The loops' names in order, as MLIR's OpDSL names them (``n oh ow f kh kw c``)."""
    OPERANDS: ClassVar[tuple[str, str, str]]
    """The input's, the filter's and the output's dimensions, by loop name; the input's ``h``
    and ``w`` are its windowed positions ``oh * stride + kh * dilation`` and ``ow * ...``."""

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        names = self.LOOPS.split()
        loops: dict[str, AffineExpr] = {name: AffineDimExpr(d) for d, name in enumerate(names)}
        (stride_h, stride_w), (dilation_h, dilation_w) = self.window_strides(), self.window_dilations()
        loops["h"] = _strided(loops["oh"], loops["kh"], stride_h, dilation_h)
        loops["w"] = _strided(loops["ow"], loops["kw"], stride_w, dilation_w)
        return tuple(
            AffineMap(len(names), 0, tuple(loops[d] for d in operand.split())) for operand in self.OPERANDS
        )

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        return mac_region(inputs, outputs)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        return parse_named(cls, parser, lambda ins, outs, _: cls.get_hidden_region(ins, outs))


def _pair(attr: DenseIntElementsAttr | None) -> tuple[int, int]:
    if attr is None:
        return (1, 1)
    first, second = attr.get_values()
    return (int(first), int(second))


@irdl_op_definition
class Conv2DNhwcHwcfOp(_ConvBase):
    """xDSL's ``linalg.conv_2d_nhwc_hwcf``, taking mixed-precision operands."""

    name = "linalg.conv_2d_nhwc_hwcf"

    LOOPS: ClassVar[str] = "n oh ow f kh kw c"
    OPERANDS: ClassVar[tuple[str, str, str]] = ("n h w c", "kh kw c f", "n oh ow f")


@irdl_op_definition
class Conv2DNchwFchwOp(_ConvBase):
    """xDSL's ``linalg.conv_2d_nchw_fchw``, taking mixed-precision operands."""

    name = "linalg.conv_2d_nchw_fchw"

    LOOPS: ClassVar[str] = "n f oh ow c kh kw"
    OPERANDS: ClassVar[tuple[str, str, str]] = ("n c h w", "f c kh kw", "n f oh ow")


class _DepthwiseBase(_ConvBase):
    """A depthwise convolution: one reduction per window dimension, none over channels."""

    LOOPS: ClassVar[str] = "n oh ow c kh kw"
    OPERANDS: ClassVar[tuple[str, str, str]] = ("n h w c", "kh kw c", "n oh ow c")

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        parallel = self.get_num_loops() - 2
        return ArrayAttr((IteratorTypeAttr.parallel(),) * parallel + (IteratorTypeAttr.reduction(),) * 2)


@irdl_op_definition
class DepthwiseConv2DNhwcHwcOp(_DepthwiseBase):
    """``linalg.depthwise_conv_2d_nhwc_hwc``: input NHWC, filter HWC, one filter per channel."""

    name = "linalg.depthwise_conv_2d_nhwc_hwc"


@irdl_op_definition
class DepthwiseConv2DNhwcHwcQOp(_DepthwiseBase):
    """``linalg.depthwise_conv_2d_nhwc_hwc_q``: the same with input and filter zero points."""

    name = "linalg.depthwise_conv_2d_nhwc_hwc_q"

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        expect_args(inputs, outputs, 5)
        arg_types = cls.body_arg_types((*inputs, *outputs))
        acc = arg_types[-1]

        @Builder.implicit_region(arg_types)
        def hidden_region(args: tuple[BlockArgument, ...]) -> None:
            def widen(value: SSAValue) -> SSAValue:
                if value.type == acc or not isinstance(acc, IntegerType):
                    return value
                return arith.ExtSIOp(value, acc).result

            lhs = arith.SubiOp(widen(args[0]), widen(args[2]))
            rhs = arith.SubiOp(widen(args[1]), widen(args[3]))
            YieldOp(arith.AddiOp(args[4], arith.MuliOp(lhs, rhs)))

        return hidden_region

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        image, kernel, out = super().get_default_indexing_maps()
        scalar = AffineMap(6, 0, ())
        return (image, kernel, scalar, scalar, out)


class _ContractionBase(NamedOperation):
    """A named contraction whose maps are fixed: matmul's batched relatives."""

    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True

    traits = traits_def(PayloadEffects())
    ITERATORS: ClassVar[str]
    """``p``/``r`` per loop."""

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        res: Sequence[Attribute] | None = None,
    ) -> None:
        # The results as written (``-> t``), else the outputs' types: a result written otherwise
        # than its init is MLIR's to refuse, at a use whose type no longer matches, or in the verifier.
        super().__init__(
            ins=inputs,
            outs=outputs,
            result_types=list(res) if res else [o.type for o in outputs],
            hidden_region=mac_region(inputs, outputs),
        )

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        return mac_region(inputs, outputs)

    def verify_(self) -> None:
        verify_results_match_inits(self.name, self.inputs, self.outputs, self.results)
        super().verify_()

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        kinds = {"p": IteratorTypeAttr.parallel(), "r": IteratorTypeAttr.reduction()}
        return ArrayAttr(kinds[c] for c in self.ITERATORS)


class _MappedContraction(_ContractionBase):
    """A contraction whose maps may be given: ``linalg.matmul indexing_maps = [...] ins(...)``.

    MLIR prints the maps only where they differ from the op's default (a
    transposed or broadcast operand); xDSL 0.74 neither reads nor prints them.
    """

    DEFAULT_MAPS: ClassVar[ArrayAttr[AffineMapAttr]]
    """The maps of the plain op."""
    HONOURS_CAST: ClassVar[bool] = True
    """Whether ``cast = #linalg.type_fn<cast_unsigned>`` makes the body zero-extend (IREE
    3.13's MLIR keeps it on ``batch_reduce_matmul`` but sign-extends all the same)."""

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        res: Sequence[Attribute] | None = None,
        maps: ArrayAttr[AffineMapAttr] | None = None,
    ) -> None:
        super().__init__(inputs, outputs, res)
        # MLIR's parser fills in the default maps: its generic form always has them.
        self.properties["indexing_maps"] = maps if maps is not None else self.DEFAULT_MAPS

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        return tuple(m.data for m in self.get_indexing_maps().data)

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        maps = self.properties.get("indexing_maps")
        return maps if isa(maps, ArrayAttr[AffineMapAttr]) else self.DEFAULT_MAPS

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        maps: ArrayAttr[AffineMapAttr] | None = None
        if parser.parse_optional_keyword("indexing_maps") is not None:
            parser.parse_punctuation("=")
            parsed = parser.parse_attribute()
            if not isa(parsed, ArrayAttr[AffineMapAttr]):
                parser.raise_error("indexing_maps must be a list of affine maps")
            maps = parsed
        attrs = parser.parse_optional_attr_dict()
        ins = parse_operands(parser, "ins")
        outs = parse_operands(parser, "outs")
        results = parse_result_types(parser)
        op = cls(ins, outs, results, maps)
        cast_attr = attrs.pop("cast", None)
        if cast_attr is not None:
            op.properties["cast"] = cast_attr
            # cast_unsigned: the inputs zero-extended (arith.extui), not sign-extended
            unsigned = is_unsigned(cast_attr) and cls.HONOURS_CAST
            op.body.detach_block(0)
            op.body.add_block(mac_region(ins, outs, unsigned=unsigned).detach_block(0))
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        maps = self.get_indexing_maps()
        if maps != self.DEFAULT_MAPS:
            printer.print_string(" indexing_maps = ")
            printer.print_attribute(maps)
        super().print(printer)


@irdl_op_definition
class MatmulOp(_MappedContraction):
    """``linalg.matmul``: ``C[i, j] += A[i, k] * B[k, j]`` (maps given where transposed)."""

    name = "linalg.matmul"
    ITERATORS: ClassVar[str] = "ppr"
    DEFAULT_MAPS: ClassVar[ArrayAttr[AffineMapAttr]] = maps_attr(
        AffineMap.from_callable(lambda i, _, k: (i, k)),
        AffineMap.from_callable(lambda _, j, k: (k, j)),
        AffineMap.from_callable(lambda i, j, _: (i, j)),
    )

    indexing_maps = opt_prop_def(ArrayAttr[AffineMapAttr])
    """The operands' maps where they differ from the default."""
    cast = opt_prop_def(TypeFnAttr)
    """``#linalg.type_fn<cast_unsigned>`` where the inputs widen unsigned."""


@irdl_op_definition
class BatchMatmulOp(_MappedContraction):
    """``linalg.batch_matmul``: ``C[b, i, j] += A[b, i, k] * B[b, k, j]``."""

    name = "linalg.batch_matmul"
    ITERATORS: ClassVar[str] = "pppr"
    DEFAULT_MAPS: ClassVar[ArrayAttr[AffineMapAttr]] = maps_attr(
        AffineMap.from_callable(lambda b, i, _, k: (b, i, k)),
        AffineMap.from_callable(lambda b, _, j, k: (b, k, j)),
        AffineMap.from_callable(lambda b, i, j, _: (b, i, j)),
    )

    indexing_maps = opt_prop_def(ArrayAttr[AffineMapAttr])
    """The operands' maps where they differ from the default."""
    cast = opt_prop_def(TypeFnAttr)
    """``#linalg.type_fn<cast_unsigned>`` where the inputs widen unsigned."""


@irdl_op_definition
class BatchReduceMatmulOp(_MappedContraction):
    """``linalg.batch_reduce_matmul``: ``C[i, j] += A[b, i, k] * B[b, k, j]``, summed over the batch."""

    name = "linalg.batch_reduce_matmul"
    ITERATORS: ClassVar[str] = "rppr"
    HONOURS_CAST: ClassVar[bool] = False
    DEFAULT_MAPS: ClassVar[ArrayAttr[AffineMapAttr]] = maps_attr(
        AffineMap.from_callable(lambda b, i, _, k: (b, i, k)),
        AffineMap.from_callable(lambda b, _, j, k: (b, k, j)),
        AffineMap.from_callable(lambda _, i, j, __: (i, j)),
    )

    indexing_maps = opt_prop_def(ArrayAttr[AffineMapAttr])
    """The operands' maps where they differ from the default."""
    cast = opt_prop_def(TypeFnAttr)
    """``#linalg.type_fn<cast_unsigned>`` where the inputs widen unsigned."""


@irdl_op_definition
class ContractOp(_MappedContraction):
    """``linalg.contract indexing_maps = [...] ins(%a, %b) outs(%c)``: ``C += A * B`` over the
    maps given (no default); a loop the output's map uses is parallel, the others reductions."""

    name = "linalg.contract"
    DEFAULT_MAPS: ClassVar[ArrayAttr[AffineMapAttr]] = ArrayAttr(())

    indexing_maps = opt_prop_def(ArrayAttr[AffineMapAttr])
    """The operands' maps."""
    cast = opt_prop_def(TypeFnAttr)
    """``#linalg.type_fn<cast_unsigned>`` where the inputs widen unsigned."""

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        maps = self.get_indexing_maps().data
        out = {e.position for e in maps[-1].data.results if isinstance(e, AffineDimExpr)}
        parallel, reduction = IteratorTypeAttr.parallel(), IteratorTypeAttr.reduction()
        return ArrayAttr(parallel if d in out else reduction for d in range(maps[-1].data.num_dims))

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        token = current_token(parser).span
        if token.text != "indexing_maps":
            parser.raise_error("expected 'indexing_maps' attribute", token.start, token.end)
        return super().parse(parser)


@irdl_op_definition
class BatchMatvecOp(_ContractionBase):
    """``linalg.batch_matvec``: ``C[b, i] += A[b, i, k] * B[b, k]``."""

    name = "linalg.batch_matvec"
    ITERATORS: ClassVar[str] = "ppr"

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        return (
            AffineMap.from_callable(lambda b, i, k: (b, i, k)),
            AffineMap.from_callable(lambda b, _, k: (b, k)),
            AffineMap.from_callable(lambda b, i, _: (b, i)),
        )


@irdl_op_definition
class SoftmaxOp(IRDLOperation):
    """``linalg.softmax dimension(2) ins(%x : t) outs(%y : t) -> t``: softmax along one dimension."""

    name = "linalg.softmax"

    input = operand_def(ShapedType)
    """The logits."""
    output = operand_def(ShapedType)
    """The destination."""
    result = var_result_def(TensorType)
    """The softmax (on tensors)."""
    dimension = prop_def(IntegerAttr[I64])
    """The dimension normalized over."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        parser.parse_keyword("dimension")
        with parser.in_parens():
            dimension = parser.parse_integer()
        ins = parse_operands(parser, "ins")
        outs = parse_operands(parser, "outs")
        attrs = parser.parse_optional_attr_dict()
        results = parse_result_types(parser)
        if len(ins) != 1 or len(outs) != 1:
            parser.raise_error("linalg.softmax takes one input and one output")
        op = cls(
            operands=[ins[0], outs[0]],
            result_types=[results],
            properties={"dimension": IntegerAttr(dimension, 64)},
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" dimension({self.dimension.value.data}) ins(")
        printer.print_operand(self.input)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(") outs(")
        printer.print_operand(self.output)
        printer.print_string(" : ")
        printer.print_attribute(self.output.type)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        if self.result:
            printer.print_string(" -> ")
            printer.print_list(self.result.types, printer.print_attribute)


@irdl_op_definition
class FillOp(xdsl_linalg.FillOp):
    """xDSL's ``linalg.fill``, which a greedy driver may erase once dead (MLIR's is pure on tensors)."""

    name = "linalg.fill"

    inputs = var_operand_def()
    outputs = var_operand_def(ShapedType)
    res = var_result_def(TensorType)
    body = region_def("single_block")

    traits = traits_def(PayloadEffects())

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        expect_args(inputs, outputs, 2)
        return super().get_hidden_region(inputs, outputs)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        return parse_named(cls, parser, lambda ins, outs, _: cls.get_hidden_region(ins, outs))


def _identity_dropping(rank: int, dropped: AbstractSet[int]) -> AffineMap:
    """``(d0, ..., d{rank-1}) -> (the dims not in dropped)``."""
    return AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in range(rank) if d not in dropped))


def _rank(value: SSAValue) -> int:
    return len(value.type.get_shape()) if isinstance(value.type, ShapedType) else 0


class StructuredInterface:
    """What MLIR's ``LinalgStructuredInterface`` gives every structured op and xDSL 0.74's
    ``linalg.reduce``, ``linalg.broadcast`` and ``linalg.map`` lack: their loops' iterator
    types and their operands' indexing maps (inputs, then the init)."""

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        raise NotImplementedError

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        raise NotImplementedError

    def get_num_loops(self) -> int:
        return len(self.get_iterator_types())


def is_structured(op: Operation) -> bool:
    """Whether ``op`` is one of MLIR's ``LinalgOp``s (``LinalgStructuredInterface``): a generic,
    a named op, map, reduce, broadcast or transpose, with loops and indexing maps.
    ``linalg.softmax`` is not (a destination-passing op with no maps)."""
    return isinstance(op, LinalgStructuredOperation | StructuredInterface)


def _print_ins_outs(printer: Printer, source: SSAValue, init: SSAValue) -> None:
    """`` ins(%a : t) outs(%b : t)`` with MLIR's spacing (xDSL 0.74 prints ``%a:t``)."""
    for keyword, value in (("ins", source), ("outs", init)):
        printer.print_string(f" {keyword}(")
        printer.print_operand(value)
        printer.print_string(" : ")
        printer.print_attribute(value.type)
        printer.print_string(")")


def _print_body(printer: Printer, region: Region) -> None:
    """A body on a line of its own, indented, its arguments before it: ``(%in: f32, %out: f32) {...}``."""
    with printer.indented():
        print_new_line(printer)
        printer.print_string("(")
        printer.print_list(region.block.args, printer.print_block_argument)
        printer.print_string(") ")
        printer.print_region(region, print_entry_block_args=False)


def _print_dims(printer: Printer, key: str, values: Sequence[int]) -> None:
    printer.print_string(f" {key} = [" + ", ".join(str(v) for v in values) + "] ")


@irdl_op_definition
class TransposeOp(xdsl_linalg.TransposeOp):
    """xDSL's ``linalg.transpose``, printed as MLIR prints it."""

    name = "linalg.transpose"

    inputs = var_operand_def(base(MemRefType) | base(AnyTensorType))
    outputs = var_operand_def(base(MemRefType) | base(AnyTensorType))
    res = var_result_def(AnyTensorType)
    body = region_def("single_block")
    permutation = prop_def(DenseArrayBase.constr(i64))

    traits = traits_def(PayloadEffects())

    def print(self, printer: Printer) -> None:
        _print_ins_outs(printer, self.inputs[0], self.outputs[0])
        _print_dims(printer, "permutation", self.permutation.get_values())


class _DimensionsOp(IRDLOperation):
    """What ``linalg.broadcast`` and ``linalg.reduce`` share besides their body: an input, an
    init, the result, the dimensions added or reduced over, and MLIR's
    `` ins(%a : t) outs(%b : t) dimensions = [..]``."""

    input = operand_def(base(MemRefType) | base(AnyTensorType))
    init = operand_def(base(MemRefType) | base(AnyTensorType))
    result = var_result_def(AnyTensorType)
    dimensions = prop_def(DenseArrayBase.constr(i64))

    traits = traits_def(PayloadEffects())

    def print(self, printer: Printer) -> None:
        _print_ins_outs(printer, self.input, self.init)
        _print_dims(printer, "dimensions", self.dimensions.get_values())


@irdl_op_definition
class BroadcastOp(StructuredInterface, _DimensionsOp, xdsl_linalg.BroadcastOp):
    """xDSL's ``linalg.broadcast``, printed as MLIR prints it, with its loops and maps (one
    parallel loop per init dimension; the input indexed by those not added)."""

    name = "linalg.broadcast"

    hidden_region = region_def("single_block")

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        rank = _rank(self.init)
        added = set(self.dimensions.get_values())
        return maps_attr(_identity_dropping(rank, added), AffineMap.identity(rank))

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return ArrayAttr((IteratorTypeAttr.parallel(),) * _rank(self.init))


@irdl_op_definition
class ReduceOp(StructuredInterface, _DimensionsOp, xdsl_linalg.ReduceOp):
    """xDSL's ``linalg.reduce``, printed as MLIR prints it, with its loops and maps (one loop
    per input dimension, those reduced over reductions; the init indexed by the others)."""

    name = "linalg.reduce"

    region: Region = region_def("single_block")

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        rank = _rank(self.input)
        reduced = set(self.dimensions.get_values())
        return maps_attr(AffineMap.identity(rank), _identity_dropping(rank, reduced))

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        reduced = set(self.dimensions.get_values())
        return ArrayAttr(
            IteratorTypeAttr.reduction() if d in reduced else IteratorTypeAttr.parallel()
            for d in range(_rank(self.input))
        )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        payload = _parse_payload(parser)
        ins = parse_operands(parser, "ins")
        outs = parse_operands(parser, "outs")
        if len(ins) != 1 or len(outs) != 1:
            parser.raise_error("linalg.reduce takes one input and one init")
        parser.parse_keyword("dimensions")
        parser.parse_punctuation("=")
        dimensions = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_integer)
        attrs = parser.parse_optional_attr_dict()
        if payload is None:
            args = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_argument)
            region = parser.parse_region(args)
        else:
            region = _payload_region(parser, *payload, [*ins, *outs], 1, init_first=True)
        op = cls(ins[0], outs[0], DenseArrayBase.from_list(i64, dimensions), region)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        payload = _payload(self.region.block, 1, init_first=True)
        if payload is not None:
            _print_payload(printer, payload)
        super().print(printer)
        printer.print_op_attributes(self.attributes)
        if payload is None:
            _print_body(printer, self.region)


def _parse_payload(parser: Parser) -> tuple[str, dict[str, Attribute]] | None:
    """The short form's ``{ arith.addf {attrs} }``, naming the body's one op, if there."""
    if parser.parse_optional_punctuation("{") is None:
        return None
    name = parser.parse_identifier()
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation("}")
    return name, attrs


def _print_payload(printer: Printer, payload: Operation) -> None:
    printer.print_string(f" {{ {payload.name}")
    shown = {
        k: v for k, v in {**payload.properties, **payload.attributes}.items() if str(v) not in _DEFAULT_FLAGS
    }
    if shown:
        printer.print_op_attributes(shown)
    printer.print_string(" }")


def _payload(body: Block, inputs: int, init_first: bool = False) -> Operation | None:
    """MLIR's ``findPayloadOp``: the one op of ``body`` before its yield, applied to the first
    ``inputs`` arguments in order (``init_first``: after the init's, as ``linalg.reduce`` takes
    them) and yielded, with no region (what the short form names)."""
    ops = list(body.ops)
    if len(ops) != 2 or not isinstance(ops[1], YieldOp):
        return None
    payload, yield_ = ops
    if payload.regions or len(payload.results) != 1 or not payload.operands:
        return None
    if list(payload.operands) != _payload_operands(body, inputs, init_first):
        return None
    if list(yield_.operands) != list(payload.results):
        return None
    return payload


_DEFAULT_FLAGS = ("#arith.fastmath<none>", "#arith.overflow<none>")
"""The payload attributes the short form leaves out (MLIR elides the default flags)."""


@irdl_op_definition
class MapOp(StructuredInterface, IRDLOperation):
    """``linalg.map``: its body applied to the inputs' elements, one parallel loop per
    dimension, every operand indexed by the identity.  The body takes each input's element
    and the init's (IREE 3.13's MLIR); printed ``linalg.map { arith.addf } ins(...) outs(...)``
    where the body is one op applied to the inputs, in full otherwise, as MLIR prints it."""

    name = "linalg.map"

    inputs = var_operand_def(base(MemRefType) | base(AnyTensorType))
    """The mapped tensors."""
    init = operand_def(base(MemRefType) | base(AnyTensorType))
    """The destination."""
    result = var_result_def(AnyTensorType)
    """The mapped tensor (on tensors)."""
    mapper = region_def("single_block")
    """The body: one element of each input, then the init's."""

    traits = traits_def(PayloadEffects())

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        rank = _rank(self.init)
        return maps_attr(*(AffineMap.identity(rank) for _ in range(len(self.inputs) + 1)))

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return ArrayAttr((IteratorTypeAttr.parallel(),) * _rank(self.init))

    @property
    def body(self) -> Region:
        """The mapper, under the name the other structured ops give their body."""
        return self.mapper

    def verify_(self) -> None:
        block = self.mapper.block
        operands = len(self.inputs) + 1
        if len(block.args) != operands:
            raise VerifyException(
                "'linalg.map' op expects number of operands to match the arity of mapper, "
                f"but got: {operands} and {len(block.args)}"
            )
        init_type = self.init.type
        assert isinstance(init_type, ShapedType)
        for index, (value, arg) in enumerate(zip((*self.inputs, self.init), block.args, strict=True)):
            value_type = value.type
            assert isinstance(value_type, ShapedType)
            element = cast(ContainerType[Attribute], value_type).get_element_type()
            if arg.type != element:
                raise VerifyException(
                    f"'linalg.map' op expected element type of input {element} to match bbArg type {arg.type}"
                )
            if index < len(self.inputs) and value_type.get_shape() != init_type.get_shape():
                raise VerifyException(
                    f"'linalg.map' op expected shape of input ({list(value_type.get_shape())}) to match "
                    f"shape of output ({list(init_type.get_shape())})"
                )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        payload = _parse_payload(parser)
        ins = parse_operands(parser, "ins")
        outs = parse_operands(parser, "outs")
        if len(outs) != 1:
            parser.raise_error("linalg.map takes one init")
        attrs = parser.parse_optional_attr_dict()
        if payload is None:
            args = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_argument)
            region = parser.parse_region(args)
        else:
            region = _payload_region(parser, *payload, [*ins, *outs], len(ins))
        init_type: Attribute = outs[0].type
        results: list[Attribute] = [init_type] if isa(init_type, TensorType[Attribute]) else []
        op = cls(operands=[ins, outs[0]], result_types=[results], regions=[region])
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        payload = _payload(self.mapper.block, len(self.inputs))
        if payload is not None:
            _print_payload(printer, payload)
        printer.print_string(" ins(")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(" : ")
        printer.print_list(self.inputs.types, printer.print_attribute)
        printer.print_string(")")
        _print_outs(printer, self.init)
        printer.print_op_attributes(self.attributes)
        if payload is not None:
            return
        _print_body(printer, self.mapper)


def _print_outs(printer: Printer, init: SSAValue) -> None:
    printer.print_string(" outs(")
    printer.print_operand(init)
    printer.print_string(" : ")
    printer.print_attribute(init.type)
    printer.print_string(")")


def _payload_operands(body: Block, inputs: int, init_first: bool) -> list[SSAValue]:
    """The body's arguments the short form's op takes: the inputs', after the init's if ``init_first``."""
    ins: list[SSAValue] = list(body.args[:inputs])
    return [body.args[inputs], *ins] if init_first and len(body.args) > inputs else ins


def _payload_region(
    parser: Parser,
    name: str,
    attrs: dict[str, Attribute],
    operands: Sequence[SSAValue],
    inputs: int,
    init_first: bool = False,
) -> Region:
    """MLIR's ``addBodyWithPayloadOp``: a body of the op ``name`` (its attributes ``attrs``)
    applied to the first ``inputs`` arguments (after the init's if ``init_first``), giving the
    last operand's element type."""
    op_type = parser.ctx.get_optional_op(name)
    if op_type is None:
        parser.raise_error(f"unknown payload op {name}")
    arg_types = NamedOperation.body_arg_types(operands)
    block = Block(arg_types=arg_types)
    defined = op_type.get_irdl_definition().properties if issubclass(op_type, IRDLOperation) else {}
    payload = op_type.create(
        operands=_payload_operands(block, inputs, init_first),
        result_types=[arg_types[-1]],
        properties={k: v for k, v in attrs.items() if k in defined},
        attributes={k: v for k, v in attrs.items() if k not in defined},
    )
    block.add_ops([payload, YieldOp(payload.results[0])])
    return Region(block)


class CheckedYieldOp(YieldOp):
    """``linalg.yield``, verified as MLIR verifies it: one value per init of the enclosing op,
    of the init's element type (xDSL checks neither)."""

    def verify_(self) -> None:
        super().verify_()
        parent = self.parent_op()
        if isinstance(parent, LinalgStructuredOperation):
            inits: Sequence[SSAValue] = parent.outputs
        elif isinstance(parent, xdsl_linalg.ReduceOp | xdsl_linalg.BroadcastOp | MapOp):
            inits = [parent.init]
        else:
            return
        if len(self.arguments) != len(inits):
            raise VerifyException(
                f"'linalg.yield' op expected number of yield values ({len(self.arguments)}) to match "
                f"the number of inits / outs operands of the enclosing LinalgOp ({len(inits)})"
            )
        for index, (value, init) in enumerate(zip(self.arguments, inits, strict=True)):
            element: Attribute = init.type
            if isinstance(element, ContainerType):
                element = cast(ContainerType[Attribute], element).get_element_type()
            if value.type != element:
                raise VerifyException(
                    f"'linalg.yield' op type of yield operand {index + 1} ({value.type}) doesn't match "
                    f"the element type of the enclosing linalg.generic op ({element})"
                )


class CheckedIndexOp(IndexOp):
    """``linalg.index``, verified as MLIR verifies it: along one of the enclosing op's loops."""

    def verify_(self) -> None:
        super().verify_()
        parent = self.parent_op()
        if not isinstance(parent, GenericOp):
            return
        loops = len(parent.iterator_types)
        if self.dim.value.data >= loops:
            raise VerifyException(
                f"'linalg.index' op expected dim ({self.dim.value.data}) to be lower than the number "
                f"of loops ({loops}) of the enclosing LinalgOp"
            )


_REPLACED: dict[type[Operation], type[Operation]] = {
    _XdslGenericOp: GenericOp,
    YieldOp: CheckedYieldOp,
    IndexOp: CheckedIndexOp,
    xdsl_linalg.Conv2DNhwc_HwcfOp: Conv2DNhwcHwcfOp,
    xdsl_linalg.Conv2DNchwFchwOp: Conv2DNchwFchwOp,
    xdsl_linalg.MatmulOp: MatmulOp,
    xdsl_linalg.FillOp: FillOp,
    xdsl_linalg.TransposeOp: TransposeOp,
    xdsl_linalg.BroadcastOp: BroadcastOp,
    xdsl_linalg.ReduceOp: ReduceOp,
}

_BY_NAME = {op.name: op for op in _XdslLinalg.operations}

Linalg = replacing(
    Dialect(
        _XdslLinalg.name,
        list(_XdslLinalg.operations),
        [*_XdslLinalg.attributes, TypeFnAttr, ElementwiseKindAttr],
    ),
    # xDSL's named ops that NAMED defines as MLIR does (casts, window sizes, payload order)
    _REPLACED | {_BY_NAME[name]: op for name, op in NAMED_OPS.items() if name in _BY_NAME},
    [
        MapOp,
        SoftmaxOp,
        DepthwiseConv2DNhwcHwcOp,
        DepthwiseConv2DNhwcHwcQOp,
        BatchMatmulOp,
        BatchMatvecOp,
        BatchReduceMatmulOp,
        ContractOp,
        ElementwiseOp,
        *(op for name, op in NAMED_OPS.items() if name not in _BY_NAME),
    ],
)
"""The linalg dialect as passviz registers it."""


MEMOIZED_MAPS = "linalg.memoized_indexing_maps"
"""Where MLIR's named ops cache their indexing maps once asked for them
(a discardable attribute, so ``generalizeNamedOp`` carries it over)."""


def generalize(op: NamedOperation) -> GenericOp:
    """MLIR's ``linalg::generalizeNamedOp``: ``op`` as a ``linalg.generic`` with its maps,
    iterators, body and discardable attributes (the cached maps among them)."""
    maps = op.get_indexing_maps()
    body = op.body.clone()
    generic = GenericOp(
        op.inputs,
        op.outputs,
        body,
        maps,
        op.get_iterator_types(),
        op.res.types,
    )
    generic.attributes |= {**op.attributes, MEMOIZED_MAPS: maps}
    return generic
