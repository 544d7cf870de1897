"""What passviz's linalg ops share: their ``ins(...) outs(...) -> types`` syntax, their effects,
and the payload builders of MLIR's named ops (OpDSL's casts and binary functions)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Self, TypeVar, cast

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    I64,
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    FixedBitwidthType,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.dialects.linalg import ops as xdsl_linalg
from xdsl.dialects.linalg.abstract_ops import NamedOperation
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import EffectInstance, Pure, RecursiveMemoryEffect, get_effects
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.hints import isa

from passviz.compilers.mlir.dialects import arith as casts
from passviz.ir.mlir_parser import AtCurrentToken
from passviz.ir.op_syntax import parse_result_types


@irdl_op_definition
class NamedIndexOp(IRDLOperation):
    """``linalg.index`` in a named op's payload (``fill_rng_2d``'s): the coordinate along one
    loop of the enclosing structured op.  xDSL's, which passviz reads, must be in a
    ``linalg.generic`` (a trait a subclass cannot drop), so the named ops build this one."""

    name = "linalg.index"

    dim = prop_def(IntegerAttr[I64])
    result = result_def(IndexType)

    traits = traits_def(Pure())

    def __init__(self, dim: int) -> None:
        super().__init__(properties={"dim": IntegerAttr(dim, 64)}, result_types=[IndexType()])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        dim = parser.parse_integer(allow_boolean=False, allow_negative=False)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_type()
        op = cls(dim)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.dim.value.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : index")

    def verify_(self) -> None:
        parent = self.parent_op()
        loops = getattr(parent, "get_iterator_types", None)
        if parent is None or loops is None:
            raise VerifyException("'linalg.index' op expected parent op with LinalgOp interface")
        count = len(loops())
        if self.dim.value.data >= count:
            raise VerifyException(
                f"'linalg.index' op expected dim ({self.dim.value.data}) to be lower than the number "
                f"of loops ({count}) of the enclosing LinalgOp"
            )


def parse_operands(parser: Parser, keyword: str) -> Sequence[SSAValue]:
    """``ins(%a, %b : t0, t1)`` (or ``outs(...)``), or nothing where the keyword is absent."""
    pos = parser.pos
    if not parser.parse_optional_characters(keyword):
        return ()
    parser.parse_punctuation("(")
    names = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
    parser.parse_punctuation(")")
    return parser.resolve_operands(names, types, pos)


class PayloadEffects(RecursiveMemoryEffect):
    """A structured op's effects are its payload's, ``linalg.yield`` and ``linalg.index``
    having none (MLIR's are pure; xDSL 0.74 gives them no effect information at all)."""

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance] | None:
        effects: set[EffectInstance] = set()
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    if isinstance(child, YieldOp | xdsl_linalg.IndexOp | NamedIndexOp):
                        continue
                    child_effects = get_effects(child)
                    if child_effects is None:
                        return None
                    effects.update(child_effects)
        return effects


class UnsupportedPayload(AtCurrentToken):
    """A named op's payload MLIR refuses to build for these element types (a subtraction of
    ``i1``s), reported where the op's operands begin, as MLIR reports it."""


_NamedT = TypeVar("_NamedT", bound=NamedOperation)

BodyBuilder = Callable[[Sequence[SSAValue], Sequence[SSAValue], Mapping[str, Attribute]], Region]
"""A named op's body from its inputs, outputs and properties."""


def parse_named(cls: type[_NamedT], parser: Parser, body: BodyBuilder) -> _NamedT:
    """MLIR's named-op syntax, ``{attrs} ins(...) outs(...) -> types``, the body ``body`` builds.

    xDSL's parser reports any failure to build the body as "Could not build linalg op" on the
    token after the op; this one reports MLIR's reason where MLIR does: a wrong number of
    operands after the op, a payload MLIR cannot build at the operands."""
    attrs = parser.parse_optional_attr_dict()
    operands_at = parser.pos
    ins = parse_operands(parser, "ins")
    outs = parse_operands(parser, "outs")
    results = parse_result_types(parser)
    defined = cls.get_irdl_definition().properties
    properties = {k: v for k, v in attrs.items() if k in defined}
    try:
        region = body(ins, outs, properties)
    except UnsupportedPayload as exc:
        parser.raise_error(str(exc), operands_at, operands_at)
    return cls.build(
        operands=(ins, outs),
        result_types=(results,),
        properties=properties,
        attributes={k: v for k, v in attrs.items() if k not in defined},
        regions=(region,),
    )


def verify_results_match_inits(
    name: str, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue], results: Sequence[SSAValue]
) -> None:
    """MLIR's structured op check: each tensor result has its init's type."""
    tensor_inits = [(i, o) for i, o in enumerate(outputs, len(inputs)) if isa(o.type, TensorType[Attribute])]
    for (index, init), result in zip(tensor_inits, results, strict=False):
        if init.type != result.type:
            raise VerifyException(
                f"'{name}' op expected type of operand #{index} ('{init.type}') to match type of "
                f"corresponding result ('{result.type}')"
            )


def expect_args(inputs: Sequence[SSAValue], outputs: Sequence[SSAValue], count: int) -> None:
    """Refuse, as MLIR's parser does, a named op given other than ``count`` ins and outs."""
    if len(inputs) + len(outputs) != count:
        raise AtCurrentToken(
            f"[parseNamedStructuredOpRegion] ods-gen generated region expects {count} args, "
            f"got {len(inputs) + len(outputs)}"
        )


def _bits(type_: Attribute) -> int:
    return type_.bitwidth if isinstance(type_, FixedBitwidthType) else 64


def cast_to(value: SSAValue, target: Attribute, unsigned: bool = False) -> SSAValue:
    """MLIR's ``convertScalarToDtype`` (OpDSL's ``cast_signed`` and ``cast_unsigned``): ``value``
    as a ``target``, widened, narrowed or converted by the arith op MLIR's named ops build."""
    source = value.type
    if source == target:
        return value
    source_bits, target_bits = _bits(source), _bits(target)
    zero = unsigned or (isinstance(source, IntegerType) and source_bits == 1)
    integer = cast("IntegerType[int, Signedness]", target)
    made: Operation
    if isinstance(source, IndexType) or isinstance(target, IndexType):
        made = casts.IndexCastOp(value, target)
    elif isinstance(source, IntegerType) and isinstance(target, IntegerType):
        if source_bits < target_bits:
            made = casts.ExtUIOp(value, integer) if zero else casts.ExtSIOp(value, integer)
        else:
            made = casts.TruncIOp(value, integer)
    elif isinstance(source, IntegerType) and isinstance(target, AnyFloat):
        made = casts.UIToFPOp(value, target) if zero else casts.SIToFPOp(value, target)
    elif isinstance(source, AnyFloat) and isinstance(target, IntegerType):
        made = casts.FPToUIOp(value, integer) if unsigned else casts.FPToSIOp(value, integer)
    elif isinstance(source, AnyFloat) and isinstance(target, AnyFloat):
        made = casts.ExtFOp(value, target) if source_bits < target_bits else casts.TruncFOp(value, target)
    else:
        return value
    return made.results[0]


_Build = Callable[[SSAValue, SSAValue], Operation]

_BINARY: dict[str, tuple[_Build, _Build, _Build | None]] = {
    "add": (arith.AddfOp, arith.AddiOp, arith.OrIOp),
    "sub": (arith.SubfOp, arith.SubiOp, None),
    "mul": (arith.MulfOp, arith.MuliOp, arith.AndIOp),
    "max_signed": (arith.MaximumfOp, arith.MaxSIOp, arith.MaxSIOp),
    "min_signed": (arith.MinimumfOp, arith.MinSIOp, arith.MinSIOp),
    "max_unsigned": (arith.MaximumfOp, arith.MaxUIOp, arith.MaxUIOp),
    "min_unsigned": (arith.MinimumfOp, arith.MinUIOp, arith.MinUIOp),
}
"""OpDSL's binary functions: the arith op MLIR's ``buildBinaryFn`` makes of each on floats, on
integers and on ``i1`` (an add is an or, a multiply an and; a subtraction is refused)."""


def binary(function: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """``function(lhs, rhs)`` as MLIR's named ops build it (``add``, ``max_signed``, ...)."""
    floating, integer, boolean = _BINARY[function]
    type_ = lhs.type
    build = floating if isinstance(type_, AnyFloat) else integer
    if type_ == IntegerType(1):
        build = boolean
    if build is None:
        raise UnsupportedPayload(f"unsupported operation: {function} with bools")
    # Built by the ops' constructors, with their default flags (fastmath, overflowFlags) as MLIR's.
    return build(lhs, rhs).results[0]


def mac(args: Sequence[SSAValue], unsigned: bool = False) -> None:
    """``out + cast(a) * cast(b)``, yielded: the multiply-accumulate of MLIR's matmuls and
    convolutions, the inputs cast to the accumulator's type as OpDSL's ``cast_signed`` does."""
    acc = args[-1].type
    lhs, rhs = cast_to(args[0], acc, unsigned), cast_to(args[1], acc, unsigned)
    YieldOp(binary("add", args[-1], binary("mul", lhs, rhs)))


def mac_region(inputs: Sequence[SSAValue], outputs: Sequence[SSAValue], unsigned: bool = False) -> Region:
    """``out + cast(a) * cast(b)`` over the element types, the body of the named matmuls and
    convolutions: the inputs cast to the accumulator's type (an i8 x i8 -> i32 matmul or
    convolution sign-extends them, an f16 one into f32 ``arith.extf``s them)."""
    expect_args(inputs, outputs, 3)
    arg_types = NamedOperation.body_arg_types((*inputs, *outputs))

    @Builder.implicit_region(arg_types)
    def region(args: tuple[BlockArgument, ...]) -> None:
        mac(args, unsigned)

    return region


def maps_attr(*maps: AffineMap) -> ArrayAttr[AffineMapAttr]:
    """``maps`` as an ``ArrayAttr`` of ``AffineMapAttr``s."""
    return ArrayAttr(AffineMapAttr(m) for m in maps)
