"""``tt.dot`` and ``tt.dot_scaled``: products of 2D (or batched 3D) tensors."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I32, BoolAttr, Float8E4M3FNType, IntegerAttr, IntegerType, TensorType, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    EqAttrConstraint,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure

from passviz.compilers.triton.dialects.tt.syntax import (
    TRUE,
    PropertySyntax,
    parse_enum,
    without_defaults,
)
from passviz.compilers.triton.dialects.tt.traits import TensorSizeTrait, op_error
from passviz.compilers.triton.dialects.tt.types import (
    FloatConstr,
    FpIntTensorConstr,
    InputPrecision,
    ScaleDotElemType,
    bit_width,
    dims,
    element_type_or_self,
    encoding_of,
    enum_or_default,
    optional_enum_attr,
    verify_enum_attr,
)


def _verify_dot_interface(
    op: Operation,
    a: Attribute,
    b: Attribute,
    c: Attribute,
    k_factors: tuple[int, int] = (1, 1),
    mn_factors: tuple[int, int] = (1, 1),
) -> None:
    """Triton's ``verifyDotOpInterface``: 2D or batched 3D operands that multiply.

    ``k_factors`` scale the K dimension of A and B and ``mn_factors`` their M
    and N (``tt.dot_scaled`` packs two fp4 values in a byte).
    """
    a_shape, b_shape, c_shape = dims(a), dims(b), dims(c)
    if len(a_shape) not in (2, 3):
        raise op_error(op, "expected operands to be 2d or 3d")
    if len(a_shape) != len(b_shape) or len(a_shape) != len(c_shape):
        raise op_error(op, "expected all operands to have the same rank")
    if a_shape[-1] * k_factors[0] != b_shape[-2] * k_factors[1]:
        raise op_error(
            op,
            "expected the last dimension of the first operand to be equal to the second-to-last "
            "dimension of the second operand",
        )
    if len(a_shape) == 3 and (a_shape[0] != c_shape[0] or b_shape[0] != c_shape[0]):
        raise op_error(
            op,
            "expected the first dimension of the first operand to be equal to the first "
            "dimension of the result",
        )
    if c_shape[-2] != a_shape[-2] * mn_factors[0] or c_shape[-1] != b_shape[-1] * mn_factors[1]:
        raise op_error(
            op,
            "expected the output shape to be the concatenation of the last dimension of the first "
            "operand and the last dimension of the second ",
        )


def _parse_dot_operands(
    parser: Parser, scaled: bool
) -> tuple[list[tuple[UnresolvedOperand, UnresolvedOperand | None]], UnresolvedOperand]:
    """``$a (`scale` $a_scale^)? `,` $b (`scale` $b_scale^)? `,` $c``: the two
    factors, each with its scale where ``scaled`` allows one, and the accumulator."""
    factors: list[tuple[UnresolvedOperand, UnresolvedOperand | None]] = []
    for _ in range(2):
        factor = parser.parse_unresolved_operand()
        scale = (
            parser.parse_unresolved_operand() if scaled and parser.parse_optional_keyword("scale") else None
        )
        factors.append((factor, scale))
        parser.parse_punctuation(",")
    return factors, parser.parse_unresolved_operand()


def _print_dot_parts(
    printer: Printer,
    factors: Sequence[tuple[SSAValue, SSAValue | None]],
    last: SSAValue,
    separators: tuple[str, str, str],
    scale_separator: str,
    print_value: Callable[[SSAValue], None],
) -> None:
    """Print the two factors, each with its scale after ``scale_separator``,
    and ``last``, each after its separator, with ``print_value``."""
    *factor_separators, last_separator = separators
    for separator, (factor, scale) in zip(factor_separators, factors, strict=True):
        printer.print_string(separator)
        print_value(factor)
        if scale is not None:
            printer.print_string(scale_separator)
            print_value(scale)
    printer.print_string(last_separator)
    print_value(last)


def _print_dot_operands(
    printer: Printer, factors: Sequence[tuple[SSAValue, SSAValue | None]], c: SSAValue
) -> None:
    """Print what ``_parse_dot_operands`` reads."""
    _print_dot_parts(printer, factors, c, (" ", ", ", ", "), " scale ", printer.print_operand)


def _parse_dot_types(
    parser: Parser, scaled: Sequence[bool]
) -> tuple[list[tuple[Attribute, Attribute | None]], Attribute]:
    """`` `:` type($a) (`,` type($a_scale)^)? `*` type($b) (`,` type($b_scale)^)? `->` type($d)``:
    the factors' types, each with its scale's where ``scaled`` says it has one, and the result's."""
    parser.parse_punctuation(":")
    factors: list[tuple[Attribute, Attribute | None]] = []
    for separator, has_scale in zip(("", "*"), scaled, strict=True):
        if separator:
            parser.parse_punctuation(separator)
        factor_type = parser.parse_type()
        scale_type = parser.parse_type() if has_scale and parser.parse_punctuation(",") else None
        factors.append((factor_type, scale_type))
    parser.parse_punctuation("->")
    return factors, parser.parse_type()


def _print_dot_types(
    printer: Printer, factors: Sequence[tuple[SSAValue, SSAValue | None]], d: SSAValue
) -> None:
    """Print what ``_parse_dot_types`` reads."""
    _print_dot_parts(
        printer, factors, d, (" : ", " * ", " -> "), ", ", lambda value: printer.print_attribute(value.type)
    )


@irdl_op_definition
class DotOp(PropertySyntax, IRDLOperation):
    """``d = a @ b + c`` on 2D (or batched 3D) tensors.

    ``%d = tt.dot %a, %b, %c, inputPrecision = tf32
    : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>``
    """

    name = "tt.dot"

    a = operand_def(FpIntTensorConstr)
    """The left factor (M x K)."""

    b = operand_def(FpIntTensorConstr)
    """The right factor (K x N)."""

    c = operand_def(FpIntTensorConstr)
    """The accumulator (M x N), of the result's type."""

    d = result_def(FpIntTensorConstr)
    """The result."""

    input_precision = opt_prop_def(IntegerAttr[I32], prop_name="inputPrecision")
    """How f32 inputs use tensor cores (``InputPrecision``); absent means ``ieee``."""

    max_num_imprecise_acc = opt_prop_def(IntegerAttr[I32], prop_name="maxNumImpreciseAcc")
    """How many products may be accumulated imprecisely (fp8); absent means 0."""

    traits = traits_def(Pure(), TensorSizeTrait())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("inputPrecision", "maxNumImpreciseAcc")

    _PROPERTY_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {
        "inputPrecision": InputPrecision.IEEE.to_attr(),
        "maxNumImpreciseAcc": IntegerAttr(0, i32),
    }
    """Triton's ``DefaultValuedAttr`` defaults, never printed nor stored."""

    def __init__(
        self,
        a: SSAValue | Operation,
        b: SSAValue | Operation,
        c: SSAValue | Operation,
        *,
        input_precision: InputPrecision | None = None,
        max_num_imprecise_acc: int | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ):
        super().__init__(
            operands=[a, b, c],
            result_types=[SSAValue.get(c).type],
            properties=without_defaults(
                {
                    "inputPrecision": optional_enum_attr(input_precision),
                    "maxNumImpreciseAcc": None
                    if max_num_imprecise_acc is None
                    else IntegerAttr(max_num_imprecise_acc, i32),
                },
                self._PROPERTY_DEFAULTS,
            ),
            attributes=attributes,
        )

    @property
    def input_precision_value(self) -> InputPrecision:
        """The input precision, with Triton's default (``ieee``) filled in."""
        return enum_or_default(self.input_precision, InputPrecision.IEEE)

    @property
    def max_num_imprecise_acc_value(self) -> int:
        """``maxNumImpreciseAcc``, with Triton's default (0) filled in."""
        return 0 if self.max_num_imprecise_acc is None else self.max_num_imprecise_acc.value.data

    def verify_(self) -> None:
        verify_enum_attr(self.input_precision, InputPrecision, "inputPrecision")
        _verify_dot_interface(self, self.a.type, self.b.type, self.c.type)
        if self.d.type != self.c.type:
            raise op_error(self, "failed to verify that result's type matches accumulator's type")
        if bit_width(element_type_or_self(self.a.type)) != bit_width(element_type_or_self(self.b.type)):
            raise op_error(self, "element types of operands A and B must have same bit width")
        a_encoding, b_encoding = encoding_of(self.a.type), encoding_of(self.b.type)
        if (a_encoding is None) != (b_encoding is None):
            raise op_error(self, "mismatching encoding between A and B operands")
        if a_encoding is not None and encoding_of(self.c.type) is None:
            raise op_error(self, "miss encoding of C operand")

    @classmethod
    def parse(cls, parser: Parser) -> DotOp:
        # $a `,` $b `,` $c (`,` `inputPrecision` `=` $inputPrecision^)? attr-dict
        # `:` type($a) `*` type($b) `->` type($d)
        factors, c = _parse_dot_operands(parser, scaled=False)
        properties: dict[str, Attribute] = {}
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("inputPrecision")
            parser.parse_punctuation("=")
            properties["inputPrecision"] = parse_enum(parser, InputPrecision, "inputPrecision").to_attr()
        properties, attributes = cls.parse_properties(parser, properties)
        factor_types, d_type = _parse_dot_types(parser, (False, False))
        operands = [factor for factor, _ in factors] + [c]
        types = [factor_type for factor_type, _ in factor_types] + [d_type]
        return cls.build(
            operands=[parser.resolve_operand(u, t) for u, t in zip(operands, types, strict=True)],
            result_types=[d_type],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        _print_dot_operands(printer, ((self.a, None), (self.b, None)), self.c)
        precision = self.input_precision_value
        if self.input_precision is not None and precision != InputPrecision.IEEE:
            printer.print_string(f", inputPrecision = {precision.mnemonic}")
        self.print_properties(printer, {"inputPrecision"})
        _print_dot_types(printer, ((self.a, None), (self.b, None)), self.d)


ScaledOperandConstr = TensorType.constr(FloatConstr | EqAttrConstraint(IntegerType(8)))
"""``RankedTensorOf<[TT_Float, I8]>``: a ``tt.dot_scaled`` operand or scale."""


@irdl_op_definition
class DotScaledOp(PropertySyntax, IRDLOperation):
    """``d = scale(a, a_scale) @ scale(b, b_scale) + c`` with microscaling formats.

    ``%d = tt.dot_scaled %a scale %sa, %b scale %sb, %c lhs = e5m2 rhs = e5m2
    {fastMath = false} : tensor<128x128xf8E5M2>, tensor<128x4xi8> *
    tensor<128x128xf8E5M2>, tensor<128x4xi8> -> tensor<128x128xf32>``
    """

    name = "tt.dot_scaled"

    a = operand_def(ScaledOperandConstr)
    """The left factor (fp4 packed in pairs in ``i8``)."""

    b = operand_def(ScaledOperandConstr)
    """The right factor."""

    c = operand_def(TensorType.constr(FloatConstr))
    """The accumulator."""

    a_scale = opt_operand_def(ScaledOperandConstr)
    """The scales of ``a``, one per block of K."""

    b_scale = opt_operand_def(ScaledOperandConstr)
    """The scales of ``b``."""

    d = result_def(TensorType.constr(FloatConstr))
    """The result, of the accumulator's type."""

    a_elem_type = prop_def(IntegerAttr[I32])
    """The element format of ``a`` (``ScaleDotElemType``)."""

    b_elem_type = prop_def(IntegerAttr[I32])
    """The element format of ``b``."""

    fast_math = prop_def(BoolAttr, prop_name="fastMath")
    """Whether NaN/inf handling may be skipped."""

    lhs_k_pack = opt_prop_def(BoolAttr)
    """Whether fp4 ``a`` is packed along K; absent means true."""

    rhs_k_pack = opt_prop_def(BoolAttr)
    """Whether fp4 ``b`` is packed along K; absent means true."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    traits = traits_def(Pure(), TensorSizeTrait())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = (
        "a_elem_type",
        "b_elem_type",
        "fastMath",
        "lhs_k_pack",
        "rhs_k_pack",
    )

    _PROPERTY_DEFAULTS: ClassVar[Mapping[str, Attribute]] = {"lhs_k_pack": TRUE, "rhs_k_pack": TRUE}
    """Triton's ``DefaultValuedAttr`` defaults, never printed nor stored."""

    def __init__(
        self,
        a: SSAValue | Operation,
        b: SSAValue | Operation,
        c: SSAValue | Operation,
        a_elem_type: ScaleDotElemType,
        b_elem_type: ScaleDotElemType,
        *,
        a_scale: SSAValue | Operation | None = None,
        b_scale: SSAValue | Operation | None = None,
        fast_math: bool = False,
        lhs_k_pack: bool = True,
        rhs_k_pack: bool = True,
    ):
        super().__init__(
            operands=[a, b, c, a_scale, b_scale],
            result_types=[SSAValue.get(c).type],
            properties=without_defaults(
                {
                    "a_elem_type": a_elem_type.to_attr(),
                    "b_elem_type": b_elem_type.to_attr(),
                    "fastMath": IntegerAttr.from_bool(fast_math),
                    "lhs_k_pack": IntegerAttr.from_bool(lhs_k_pack),
                    "rhs_k_pack": IntegerAttr.from_bool(rhs_k_pack),
                },
                self._PROPERTY_DEFAULTS,
            ),
        )

    def _packs(self) -> tuple[bool, bool, bool, bool]:
        """(a is fp4, b is fp4, lhs_k_pack, rhs_k_pack)."""
        a_fp4 = ScaleDotElemType.from_attr(self.a_elem_type) == ScaleDotElemType.E2M1
        b_fp4 = ScaleDotElemType.from_attr(self.b_elem_type) == ScaleDotElemType.E2M1
        lhs_pack = self.lhs_k_pack is None or bool(self.lhs_k_pack.value.data)
        rhs_pack = self.rhs_k_pack is None or bool(self.rhs_k_pack.value.data)
        return a_fp4, b_fp4, lhs_pack, rhs_pack

    def verify_(self) -> None:
        verify_enum_attr(self.a_elem_type, ScaleDotElemType, "a_elem_type")
        verify_enum_attr(self.b_elem_type, ScaleDotElemType, "b_elem_type")
        if self.d.type != self.c.type:
            raise op_error(self, "failed to verify that result's type matches accumulator's type")
        a_fp4, b_fp4, lhs_pack, rhs_pack = self._packs()
        k_factors = (2 if a_fp4 and lhs_pack else 1, 2 if b_fp4 and rhs_pack else 1)
        mn_factors = (2 if a_fp4 and not lhs_pack else 1, 2 if b_fp4 and not rhs_pack else 1)
        _verify_dot_interface(self, self.a.type, self.b.type, self.c.type, k_factors, mn_factors)
        a_shape, c_shape = dims(self.a.type), dims(self.c.type)
        rank = len(a_shape)
        k = a_shape[-1] * k_factors[0]
        for scale, dim, name in ((self.a_scale, c_shape[-2], "M"), (self.b_scale, c_shape[-1], "N")):
            if scale is None:
                continue
            scale_shape = dims(scale.type)
            if scale_shape[rank - 2] != dim:
                raise op_error(self, f"scales {name} dimension must match the operand {name} dimension")
            factor = 16 if isinstance(element_type_or_self(scale.type), Float8E4M3FNType) else 32
            if scale_shape[rank - 1] != k // factor:
                raise op_error(
                    self, "scales K dimension must match the operand K divided by the scale factor"
                )

    @classmethod
    def parse(cls, parser: Parser) -> DotScaledOp:
        # $a (`scale` $a_scale^)? `,` $b (`scale` $b_scale^)? `,` $c
        # `lhs` `=` $a_elem_type `rhs` `=` $b_elem_type attr-dict
        # `:` type($a) (`,` type($a_scale)^)? `*` type($b) (`,` type($b_scale)^)? `->` type($d)
        factors, c = _parse_dot_operands(parser, scaled=True)
        properties: dict[str, Attribute] = {}
        for keyword, prop in (("lhs", "a_elem_type"), ("rhs", "b_elem_type")):
            parser.parse_keyword(keyword)
            parser.parse_punctuation("=")
            properties[prop] = parse_enum(parser, ScaleDotElemType, keyword).to_attr()
        properties, attributes = cls.parse_properties(
            parser, properties, ("a_elem_type", "b_elem_type", "fastMath", "lhs_k_pack", "rhs_k_pack")
        )
        factor_types, d_type = _parse_dot_types(parser, [scale is not None for _, scale in factors])
        (a, a_scale), (b, b_scale) = factors
        (a_type, a_scale_type), (b_type, b_scale_type) = factor_types
        scales = [
            [] if u is None or t is None else [parser.resolve_operand(u, t)]
            for u, t in ((a_scale, a_scale_type), (b_scale, b_scale_type))
        ]
        return cls.build(
            operands=[
                parser.resolve_operand(a, a_type),
                parser.resolve_operand(b, b_type),
                parser.resolve_operand(c, d_type),
                *scales,
            ],
            result_types=[d_type],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        factors = ((self.a, self.a_scale), (self.b, self.b_scale))
        _print_dot_operands(printer, factors, self.c)
        for keyword, attr in (("lhs", self.a_elem_type), ("rhs", self.b_elem_type)):
            member = ScaleDotElemType.from_attr(attr)
            printer.print_string(f" {keyword} = {member.mnemonic if member is not None else attr}")
        self.print_properties(printer, {"a_elem_type", "b_elem_type"})
        _print_dot_types(printer, factors, self.d)
