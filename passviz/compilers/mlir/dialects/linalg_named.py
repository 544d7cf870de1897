"""MLIR's OpDSL named structured ops that xDSL 0.74 lacks or builds otherwise, from one table.

Each op is a row of ``NAMED``: its loops, each operand's dimensions by loop name, and its
payload (a multiply-accumulate, a pooling reduction, a copy, ...), as MLIR's
``core_named_ops.py`` (``LinalgNamedStructuredOps.yaml``) defines it in IREE 3.13's MLIR.
From the row come the op's indexing maps, iterator types (a loop is parallel where the
output uses it, a reduction elsewhere), ``strides`` and ``dilations`` (where its input is
windowed), and the payload MLIR builds, casts included (an i8 input into an i32 accumulator
is ``arith.extsi``'d, into an f32 one ``arith.sitofp``'d; the ``_unsigned`` ops and
``cast = #linalg.type_fn<cast_unsigned>`` zero-extend).  They print and parse as MLIR's
named ops: ``linalg.pooling_nhwc_max {dilations = ..., strides = ...} ins(...) outs(...) -> t``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import auto
from typing import Any, ClassVar, Self, cast

from xdsl.builder import Builder
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    ContainerType,
    DenseIntElementsAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    LocationAttr,
    ShapedType,
    TensorType,
    f64,
    i32,
    i64,
)
from xdsl.dialects.linalg.abstract_ops import NamedOperation
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import IndexOp, YieldOp
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.irdl import irdl_attr_definition, irdl_op_definition, opt_prop_def, prop_def, traits_def
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa
from xdsl.utils.str_enum import StrEnum

from passviz.compilers.mlir.dialects.linalg_base import (
    NamedIndexOp,
    PayloadEffects,
    UnsupportedPayload,
    binary,
    cast_to,
    expect_args,
    parse_named,
    parse_operands,
    verify_results_match_inits,
)
from passviz.ir.op_syntax import parse_result_types

_BLANKS = re.compile(r"\s*")
"""Blanks, possibly none: ``match`` always succeeds."""

# -- the casts' attribute -------------------------------------------------------------


class TypeFn(StrEnum):
    """OpDSL's type functions: how an input is cast to the accumulator's type."""

    CAST_SIGNED = auto()
    CAST_UNSIGNED = auto()


@irdl_attr_definition
class TypeFnAttr(EnumAttribute[TypeFn]):
    """``#linalg.type_fn<cast_unsigned>``: the ``cast`` of ``linalg.copy`` and the matmuls."""

    name = "linalg.type_fn"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> TypeFn:
        with parser.in_angle_brackets():
            return super().parse_parameter(parser)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)


def is_unsigned(cast_attr: Attribute | None) -> bool:
    """Whether an op's ``cast`` property asks for unsigned casts."""
    return isinstance(cast_attr, TypeFnAttr) and cast_attr.data == TypeFn.CAST_UNSIGNED


# -- the table ------------------------------------------------------------------------


@dataclass(frozen=True)
class NamedSpec:
    """One named op: ``name`` (after ``linalg.``), its ``loops`` in order (empty for the
    rank-polymorphic ``copy``: one parallel loop per output dimension), each operand's
    dimensions by loop name (``""`` for a scalar; ``D``, ``H``, ``W`` for the input's windowed
    positions ``od * stride + kd * dilation``, ...), its ``payload`` and whether it takes
    ``strides`` and ``dilations`` (the plain ``conv_1d``/``2d``/``3d`` do not: stride 1)."""

    name: str
    loops: str
    operands: tuple[str, ...]
    payload: str
    strided: bool = True
    cast_attr: bool = False

    @property
    def window(self) -> str:
        """The windowed dimensions, outermost first (``"HW"``): one stride and dilation each."""
        return "".join(d for d in "DHW" if any(d in o.split() for o in self.operands))


_TABLE = """
copy                          |  | . | . | copy unstrided cast
matvec                        | m n | m n | n | m | mac
vecmat                        | n m | m | m n | n | mac
batch_vecmat                  | b n k | b k | b k n | b n | mac
dot                           | m | m | m | . | mac
mmt4d                         | m n k m0 n0 k0 | m k m0 k0 | n k n0 k0 | m n m0 n0 | mac
batch_mmt4d                   | b m n k m0 n0 k0 | b m k m0 k0 | b n k n0 k0 | b m n m0 n0 | mac
quantized_matmul              | m n k | m k | k n | m n | mac_q
quantized_batch_matmul        | b m n k | b m k | b k n | b m n | mac_q
conv_1d                       | ow kw | W | kw | ow | mac unstrided
conv_2d                       | oh ow kh kw | H W | kh kw | oh ow | mac unstrided
conv_3d                       | od oh ow kd kh kw | D H W | kd kh kw | od oh ow | mac unstrided
conv_1d_nwc_wcf               | n ow f kw c | n W c | kw c f | n ow f | mac
conv_1d_ncw_fcw               | n f ow c kw | n c W | f c kw | n f ow | mac
conv_2d_nhwc_fhwc             | n oh ow f kh kw c | n H W c | f kh kw c | n oh ow f | mac
conv_2d_nhwc_hwcf_q           | n oh ow f kh kw c | n H W c | kh kw c f | n oh ow f | mac_q
conv_2d_nhwc_fhwc_q           | n oh ow f kh kw c | n H W c | f kh kw c | n oh ow f | mac_q
conv_2d_nchw_fchw_q           | n f oh ow c kh kw | n c H W | f c kh kw | n f oh ow | mac_q
conv_2d_ngchw_fgchw           | n g fg oh ow c kh kw | n g c H W | fg g c kh kw | n g fg oh ow | mac
conv_2d_ngchw_gfchw           | n g fg oh ow c kh kw | n g c H W | g fg c kh kw | n g fg oh ow | mac
conv_2d_ngchw_gfchw_q         | n g fg oh ow c kh kw | n g c H W | g fg c kh kw | n g fg oh ow | mac_q
conv_2d_nhwgc_gfhwc           | n oh ow g fg kh kw c | n H W g c | g fg kh kw c | n oh ow g fg | mac
conv_2d_nhwgc_gfhwc_q         | n oh ow g fg kh kw c | n H W g c | g fg kh kw c | n oh ow g fg | mac_q
conv_3d_ndhwc_dhwcf           | n od oh ow f kd kh kw c | n D H W c | kd kh kw c f | n od oh ow f | mac
conv_3d_ndhwc_dhwcf_q         | n od oh ow f kd kh kw c | n D H W c | kd kh kw c f | n od oh ow f | mac_q
conv_3d_ncdhw_fcdhw           | n f od oh ow c kd kh kw | n c D H W | f c kd kh kw | n f od oh ow | mac
depthwise_conv_1d_nwc_wc      | n ow c kw | n W c | kw c | n ow c | mac
depthwise_conv_1d_ncw_cw      | n ow c kw | n c W | c kw | n c ow | mac
depthwise_conv_1d_nwc_wcm     | n ow c m kw | n W c | kw c m | n ow c m | mac
depthwise_conv_2d_nchw_chw    | n oh ow c kh kw | n c H W | c kh kw | n c oh ow | mac
depthwise_conv_2d_nhwc_hwcm   | n oh ow c m kh kw | n H W c | kh kw c m | n oh ow c m | mac
depthwise_conv_2d_nhwc_hwcm_q | n oh ow c m kh kw | n H W c | kh kw c m | n oh ow c m | mac_q
depthwise_conv_3d_ndhwc_dhwc  | n od oh ow kd kh kw c | n D H W c | kd kh kw c | n od oh ow c | mac
depthwise_conv_3d_ncdhw_cdhw  | n od oh ow kd kh kw c | n c D H W | c kd kh kw | n c od oh ow | mac
depthwise_conv_3d_ndhwc_dhwcm | n od oh ow m kd kh kw c | n D H W c | kd kh kw c m | n od oh ow c m | mac
pooling_nhwc_*                | n oh ow c kh kw | n H W c | kh kw | n oh ow c | sum max min
pooling_nhwc_*_unsigned       | n oh ow c kh kw | n H W c | kh kw | n oh ow c | max min
pooling_nchw_*                | n c oh ow kh kw | n c H W | kh kw | n c oh ow | sum max
pooling_nwc_*                 | n ow c kw | n W c | kw | n ow c | sum max min
pooling_nwc_*_unsigned        | n ow c kw | n W c | kw | n ow c | max min
pooling_ncw_*                 | n c ow kw | n c W | kw | n c ow | sum max
pooling_ndhwc_*               | n od oh ow c kd kh kw | n D H W c | kd kh kw | n od oh ow c | sum max min
fill_rng_2d                   | m n | . | . | . | m n | rng unstrided
"""
"""MLIR's OpDSL named ops, a row each: name, loops, operands (``|`` between, ``.`` a scalar or,
for ``copy``, a tensor of any rank), and payload, then ``unstrided`` (no strides or
dilations) and ``cast`` (a ``cast`` property).  A ``pooling_<layout>_*`` row is one op per
payload named (``pooling_nhwc_max``: ``out = max(out, in)``; its window operand gives the
window's size alone).  The 2-D NHWC and NCHW convolutions, the 2-D NHWC depthwise ones,
``batch_matvec`` and ``fill`` are linalg.py's."""


def _parse_table(text: str) -> tuple[NamedSpec, ...]:
    specs: list[NamedSpec] = []
    for line in text.strip().splitlines():
        name, loops, *operands, tail = (cell.strip() for cell in line.split("|"))
        words = tail.split()
        cells = tuple("" if cell == "." else cell for cell in operands)
        strided, cast_attr = "unstrided" not in words, "cast" in words
        # pooling_nhwc_*_unsigned's max is the unsigned max
        suffix = "_unsigned" if name.endswith("_unsigned") else ""
        for payload in (w for w in words if w not in ("unstrided", "cast")):
            if payload == "mac_q":  # the input's and the filter's zero points, scalars
                cells = (*cells[:-1], "", "", cells[-1])
            full = name.replace("*", payload)
            specs.append(NamedSpec(full, loops, cells, payload + suffix, strided, cast_attr))
    return tuple(specs)


NAMED: tuple[NamedSpec, ...] = _parse_table(_TABLE)
"""The named ops this module defines, as MLIR's OpDSL does."""


# -- maps and iterators ---------------------------------------------------------------


def _window_values(attr: Attribute | None, count: int) -> list[int]:
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return [1] * count
    return [int(v) for v in attr.get_values()]


def indexing_maps(
    spec: NamedSpec, ranks: Sequence[int], properties: Mapping[str, Attribute]
) -> list[AffineMap]:
    """``spec``'s indexing maps; ``ranks`` (each operand's) give a rank-polymorphic op its loops."""
    if not spec.loops:
        rank = ranks[-1]
        return [AffineMap.identity(rank) if r else AffineMap(rank, 0, ()) for r in ranks]
    names = spec.loops.split()
    dims: dict[str, AffineExpr] = {name: AffineDimExpr(d) for d, name in enumerate(names)}
    window = spec.window
    strides = _window_values(properties.get("strides"), len(window))
    dilations = _window_values(properties.get("dilations"), len(window))
    for index, d in enumerate(window):
        low = d.lower()
        dims[d] = dims[f"o{low}"] * strides[index] + dims[f"k{low}"] * dilations[index]
    return [AffineMap(len(names), 0, tuple(dims[d] for d in operand.split())) for operand in spec.operands]


def iterator_types(spec: NamedSpec, rank: int) -> ArrayAttr[IteratorTypeAttr]:
    """A loop is parallel where the output is indexed by it, a reduction elsewhere."""
    if not spec.loops:
        return ArrayAttr((IteratorTypeAttr.parallel(),) * rank)
    out = spec.operands[-1].split()
    return ArrayAttr(
        IteratorTypeAttr.parallel() if name in out else IteratorTypeAttr.reduction()
        for name in spec.loops.split()
    )


# -- payloads -------------------------------------------------------------------------


def _pool(function: str) -> Callable[[Sequence[SSAValue], bool], SSAValue]:
    """``function(out, cast(in))``: a pooling op's payload (its window operand unused)."""
    unsigned_op = function.endswith("_unsigned")

    def build(args: Sequence[SSAValue], unsigned: bool) -> SSAValue:
        return binary(function, args[-1], cast_to(args[0], args[-1].type, unsigned or unsigned_op))

    return build


def _mac(args: Sequence[SSAValue], unsigned: bool) -> SSAValue:
    acc = args[-1].type
    return binary(
        "add", args[-1], binary("mul", cast_to(args[0], acc, unsigned), cast_to(args[1], acc, unsigned))
    )


def _mac_q(args: Sequence[SSAValue], unsigned: bool) -> SSAValue:
    """``out + (cast(in) - cast(in_zp)) * (cast(filter) - cast(filter_zp))``."""
    acc = args[-1].type
    lhs = binary("sub", cast_to(args[0], acc, unsigned), cast_to(args[2], acc, unsigned))
    rhs = binary("sub", cast_to(args[1], acc, unsigned), cast_to(args[3], acc, unsigned))
    return binary("add", args[-1], binary("mul", lhs, rhs))


def _constant(value: int | float, type_: Attribute) -> SSAValue:
    attr = IntegerAttr(int(value), i64) if isinstance(value, int) else FloatAttr(value, f64)
    return cast_to(arith.ConstantOp(attr).result, type_)


def _index(dim: int) -> SSAValue:
    return cast_to(NamedIndexOp(dim).result, i32)


def _rng(args: Sequence[SSAValue], unsigned: bool) -> SSAValue:
    """``fill_rng_2d``'s linear congruential generator, in the order MLIR's emitter builds it."""
    del unsigned
    low, high, seed = args[0], args[1], args[2]
    offset = _constant(2147483647, f64)
    column = _index(1)

    def step(value: SSAValue) -> SSAValue:
        product = binary("mul", value, _constant(1103515245, i32))
        return binary("add", product, _constant(12345, i32))

    first = step(binary("add", _index(0), seed))
    second = step(binary("add", column, first))
    shifted = binary("add", offset, cast_to(second, f64))
    scaling = binary("mul", binary("sub", high, low), _constant(2.3283064e-10, f64))
    return cast_to(binary("add", binary("mul", shifted, scaling), low), args[-1].type)


_PAYLOADS: dict[str, Callable[[Sequence[SSAValue], bool], SSAValue]] = {
    "mac": _mac,
    "mac_q": _mac_q,
    "copy": lambda args, unsigned: cast_to(args[0], args[-1].type, unsigned),
    "sum": _pool("add"),
    "max": _pool("max_signed"),
    "min": _pool("min_signed"),
    "max_unsigned": _pool("max_unsigned"),
    "min_unsigned": _pool("min_unsigned"),
    "rng": _rng,
}
"""Each payload kind's builder: the yielded value from the block's arguments."""


def payload_region(
    spec: NamedSpec, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue], unsigned: bool = False
) -> Region:
    """The body MLIR builds for ``spec`` over these operands' element types."""
    expect_args(inputs, outputs, len(spec.operands))
    arg_types = NamedOperation.body_arg_types((*inputs, *outputs))
    build = _PAYLOADS[spec.payload]

    @Builder.implicit_region(arg_types)
    def region(args: tuple[BlockArgument, ...]) -> None:
        YieldOp(build(args, unsigned))

    return region


# -- the ops --------------------------------------------------------------------------

_ELIDED = frozenset(("operandSegmentSizes", "linalg.memoized_indexing_maps"))
"""What MLIR's named-op printer leaves out of the attribute dictionary."""


class NamedStructuredOp(NamedOperation):
    """A named op of ``NAMED``: its maps, iterators and payload from its row."""

    SPEC: ClassVar[NamedSpec]
    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        outputs: Sequence[SSAValue],
        properties: Mapping[str, Attribute] | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ) -> None:
        properties = dict(properties or {})
        super().__init__(
            ins=inputs,
            outs=outputs,
            result_types=[[o.type for o in outputs if isa(o.type, TensorType[Attribute])]],
            properties=properties,
            attributes=attributes,
            hidden_region=payload_region(self.SPEC, inputs, outputs, is_unsigned(properties.get("cast"))),
        )

    @classmethod
    def create(
        cls,
        *,
        operands: Sequence[SSAValue] = (),
        result_types: Sequence[Attribute] = (),
        properties: Mapping[str, Attribute] = {},
        attributes: Mapping[str, Attribute] = {},
        location: LocationAttr | None = None,
        successors: Sequence[Block] = (),
        regions: Sequence[Region] = (),
    ) -> Self:
        # Read in generic form, the payload's ``linalg.index`` is xDSL's, which must be in a
        # ``linalg.generic``: it becomes the one a named op's payload holds.
        for region in regions:
            for inner in list(region.walk()):
                if isinstance(inner, IndexOp):
                    named = NamedIndexOp(inner.dim.value.data)
                    named.attributes |= inner.attributes
                    Rewriter.replace_op(inner, named)
        return super().create(
            operands=operands,
            result_types=result_types,
            properties=properties,
            attributes=attributes,
            location=location,
            successors=successors,
            regions=regions,
        )

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        return payload_region(cls.SPEC, inputs, outputs)

    def _ranks(self) -> list[int]:
        return [len(t.get_shape()) if isinstance(t, ShapedType) else 0 for t in self.operand_types]

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        return indexing_maps(self.SPEC, self._ranks(), self.properties)

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return iterator_types(self.SPEC, self._ranks()[-1])

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        return ArrayAttr(AffineMapAttr(m) for m in self.get_default_indexing_maps())

    def verify_(self) -> None:
        if (problem := self._window_problem()) is not None:
            raise VerifyException(problem)
        verify_results_match_inits(self.name, self.inputs, self.outputs, self.results)
        super().verify_()

    def _window_problem(self) -> str | None:
        """What is wrong with ``strides`` or ``dilations`` (one i64 per window dimension)."""
        count = len(self.SPEC.window)
        for key in ("strides", "dilations"):
            attr = self.properties.get(key)
            if attr is None:
                continue
            type_ = attr.get_type() if isinstance(attr, DenseIntOrFPElementsAttr) else None
            if not isa(type_, ShapedType) or type_.get_shape() != (count,) or _element(type_) != i64:
                return (
                    f"'{self.name}' op attribute '{key}' failed to satisfy constraint: 64-bit signless "
                    f"int elements attribute of shape [{count}]"
                )
        return None

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        def body(
            ins: Sequence[SSAValue], outs: Sequence[SSAValue], properties: Mapping[str, Attribute]
        ) -> Region:
            return payload_region(cls.SPEC, ins, outs, is_unsigned(properties.get("cast")))

        # Where the attribute dictionary starts: past the blanks after the op's name (a match
        # at the position, not a copy of the rest of the file for each op).
        blanks = _BLANKS.match(parser.lexer.input.content, parser.pos)
        attributes = parser.pos if blanks is None else blanks.end()
        op = parse_named(cls, parser, body)
        if (problem := op._window_problem()) is not None:
            # MLIR checks an inherent attribute's constraint as it reads it: the error is the
            # attribute dictionary's, where the verifier would name the op.
            parser.raise_error(problem, at_position=attributes)
        return op

    def print(self, printer: Printer) -> None:
        # MLIR prints the properties and attributes as one dictionary, sorted by name.
        shown = {k: v for k, v in {**self.properties, **self.attributes}.items() if k not in _ELIDED}
        if shown:
            printer.print_op_attributes(dict(sorted(shown.items())))
        for keyword, values in (("ins", self.inputs), ("outs", self.outputs)):
            if not values:
                continue
            printer.print_string(f" {keyword}(")
            printer.print_list(values, printer.print_ssa_value)
            printer.print_string(" : ")
            printer.print_list(values.types, printer.print_attribute)
            printer.print_string(")")
        if not self.res:
            return
        printer.print_string(" -> ")
        if len(self.res) == 1:
            printer.print_attribute(self.res[0].type)
            return
        with printer.in_parens():
            printer.print_list(self.res.types, printer.print_attribute)


def _element(type_: ShapedType) -> Attribute:
    return cast(ContainerType[Attribute], type_).get_element_type()


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_")) + "Op"


def _define(spec: NamedSpec) -> type[NamedStructuredOp]:
    namespace: dict[str, Any] = {
        "__doc__": f"``linalg.{spec.name}``, as MLIR's OpDSL defines it.",
        "__module__": __name__,
        "name": f"linalg.{spec.name}",
        "traits": traits_def(PayloadEffects()),
    }
    if spec.window and spec.strided:
        namespace["strides"] = opt_prop_def(DenseIntElementsAttr)
        namespace["dilations"] = opt_prop_def(DenseIntElementsAttr)
    if spec.cast_attr:
        namespace["cast"] = opt_prop_def(TypeFnAttr)
    made = cast(
        type[NamedStructuredOp],
        irdl_op_definition(type(_class_name(spec.name), (NamedStructuredOp,), namespace)),
    )
    made.SPEC = spec
    return made


NAMED_OPS: dict[str, type[NamedStructuredOp]] = {f"linalg.{spec.name}": _define(spec) for spec in NAMED}
"""Each op of ``NAMED`` by its full name (``linalg.pooling_nhwc_max``)."""


def named_op(name: str) -> type[NamedStructuredOp]:
    """The op class of ``linalg.<name>``."""
    return NAMED_OPS[f"linalg.{name}"]


# -- linalg.elementwise -----------------------------------------------------------------


class ElementwiseKind(StrEnum):
    """MLIR's ``ElementwiseKind``: the function ``linalg.elementwise`` applies."""

    EXP = auto()
    LOG = auto()
    ABS = auto()
    CEIL = auto()
    FLOOR = auto()
    NEGF = auto()
    RECIPROCAL = auto()
    ROUND = auto()
    SQRT = auto()
    RSQRT = auto()
    SQUARE = auto()
    TANH = auto()
    ERF = auto()
    ADD = auto()
    SUB = auto()
    MUL = auto()
    DIV = auto()
    DIV_UNSIGNED = auto()
    MAX_SIGNED = auto()
    MIN_SIGNED = auto()
    MAX_UNSIGNED = auto()
    MIN_UNSIGNED = auto()
    POWF = auto()
    SELECT = auto()


@irdl_attr_definition
class ElementwiseKindAttr(EnumAttribute[ElementwiseKind]):
    """``#linalg.elementwise_kind<exp>``."""

    name = "linalg.elementwise_kind"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> ElementwiseKind:
        with parser.in_angle_brackets():
            return super().parse_parameter(parser)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)


def _reciprocal(x: SSAValue) -> Operation:
    one = arith.ConstantOp(FloatAttr(1.0, cast(AnyFloat, x.type)))
    return arith.DivfOp(one, x)


_UNARY: dict[str, Callable[[SSAValue], Operation]] = {
    "exp": math.ExpOp,
    "log": math.LogOp,
    "abs": math.AbsFOp,
    "ceil": math.CeilOp,
    "floor": math.FloorOp,
    "negf": arith.NegfOp,
    "reciprocal": _reciprocal,
    "round": math.RoundOp,
    "sqrt": math.SqrtOp,
    "rsqrt": math.RsqrtOp,
    "square": lambda x: arith.MulfOp(x, x),
    "tanh": math.TanhOp,
    "erf": math.ErfOp,
}
"""Each unary kind's op, as MLIR's ``buildUnaryFn`` makes it."""


def _elementwise_value(kind: str, args: Sequence[SSAValue]) -> SSAValue:
    """``kind`` applied to the inputs' elements, as ``ElementwiseOp::regionBuilder`` builds it."""
    if kind in _UNARY:
        return _UNARY[kind](args[0]).results[0]
    if kind == "select":
        return arith.SelectOp(args[0], args[1], args[2]).result
    if kind == "powf":
        return math.PowFOp(args[0], args[1]).result
    floating = isinstance(args[0].type, AnyFloat)
    if floating and kind.endswith("_unsigned"):
        # iree-opt 3.13 aborts on these (an unsigned function of floats): refused instead
        raise UnsupportedPayload(f"unsupported operation: {kind} not on integers")
    if kind in ("div", "div_unsigned"):
        made = arith.DivfOp if floating else arith.DivUIOp if kind == "div_unsigned" else arith.DivSIOp
        return made(args[0], args[1]).results[0]
    return binary(kind, args[0], args[1])


def elementwise_arity(kind: str) -> int:
    """How many inputs ``linalg.elementwise`` of ``kind`` takes."""
    return 1 if kind in _UNARY else 3 if kind == "select" else 2


@irdl_op_definition
class ElementwiseOp(NamedOperation):
    """``linalg.elementwise <exp> [indexing_maps = [...]] ins(...) outs(...) -> t`` (IREE 3.13's
    MLIR spells the kind so): one function of the inputs' elements, every loop parallel, the
    operands indexed by the identity unless ``indexing_maps`` says otherwise."""

    name = "linalg.elementwise"

    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True

    kind = prop_def(ElementwiseKindAttr)
    """The function applied."""
    indexing_maps = prop_def(ArrayAttr[AffineMapAttr])
    """The operands' maps: the identity over the output's dimensions by default."""

    traits = traits_def(PayloadEffects())

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        raise NotImplementedError("linalg.elementwise's body depends on its kind")

    @staticmethod
    def build_body(kind: str, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
        """The body MLIR builds for ``kind`` over these operands' element types."""
        expect_args(inputs, outputs, elementwise_arity(kind) + 1)
        arg_types = NamedOperation.body_arg_types((*inputs, *outputs))

        @Builder.implicit_region(arg_types)
        def region(args: tuple[BlockArgument, ...]) -> None:
            YieldOp(_elementwise_value(kind, args))

        return region

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        return tuple(m.data for m in self.indexing_maps.data)

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        return self.indexing_maps

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return ArrayAttr((IteratorTypeAttr.parallel(),) * self.indexing_maps.data[-1].data.num_dims)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        with parser.in_angle_brackets():
            kind_name = parser.parse_identifier()
        if kind_name not in ElementwiseKind.__members__.values():
            parser.raise_error(
                "expected ::mlir::linalg::ElementwiseKind to be one of: "
                + ", ".join(str(k) for k in ElementwiseKind)
            )
        maps: Attribute | None = None
        if parser.parse_optional_keyword("indexing_maps") is not None:
            parser.parse_punctuation("=")
            maps = parser.parse_attribute()
        attrs = parser.parse_optional_attr_dict()
        ins = parse_operands(parser, "ins")
        outs = parse_operands(parser, "outs")
        results = parse_result_types(parser)
        if maps is None:
            rank = len(outs[0].type.get_shape()) if outs and isinstance(outs[0].type, ShapedType) else 0
            maps = ArrayAttr(AffineMapAttr(AffineMap.identity(rank)) for _ in (*ins, *outs))
        op = cls.build(
            operands=(ins, outs),
            result_types=(results,),
            properties={"kind": ElementwiseKindAttr(ElementwiseKind(kind_name)), "indexing_maps": maps},
            attributes=attrs,
            regions=(cls.build_body(kind_name, ins, outs),),
        )
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" <{self.kind.data.value}>")
        rank = self.get_num_loops()
        if any(m.data != AffineMap.identity(rank) for m in self.indexing_maps.data):
            printer.print_string(" indexing_maps = ")
            printer.print_attribute(self.indexing_maps)
        printer.print_op_attributes(self.attributes)
        for keyword, values in (("ins", self.inputs), ("outs", self.outputs)):
            printer.print_string(f" {keyword}(")
            printer.print_list(values, printer.print_ssa_value)
            printer.print_string(" : ")
            printer.print_list(values.types, printer.print_attribute)
            printer.print_string(")")
        if self.res:
            printer.print_string(" -> ")
            printer.print_list(self.res.types, printer.print_attribute)
