"""Elementwise and math ops of the ``tt`` dialect.

``tt.fp_to_fp``, ``tt.clampf``, ``tt.precise_sqrt``, ``tt.precise_divf``,
``tt.mulhiui``, ``tt.extern_elementwise``, ``tt.elementwise_inline_asm``, and
``tt.histogram``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I32, AnyFloat, BoolAttr, FloatAttr, IntegerAttr, StringAttr, i32
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure

from passviz.compilers.triton.dialects.tt.syntax import (
    PropertySyntax,
    SameTypeSyntax,
    SrcToResultSyntax,
    parse_attr_dict_and_type,
    parse_attr_dict_into_properties,
    parse_enum,
    parse_functional_type,
    parse_operand_list,
    parse_operands_with_types,
    parse_type_list,
    print_attr_dict_and_type,
    print_operands,
    print_operands_with_types,
    print_types,
    resolve,
)
from passviz.compilers.triton.dialects.tt.traits import (
    Elementwise,
    PureUnlessImpureEffect,
    SameOperandsAndResultEncoding,
    SpeculatableIfPure,
    TensorSizeTrait,
    constant_value,
    elementwise_cast_traits,
    op_error,
    same_type_elementwise_traits,
    splat_of,
    splat_value,
)
from passviz.compilers.triton.dialects.tt.types import (
    BoolLikeConstr,
    FloatLikeConstr,
    IntLikeConstr,
    IntTensorConstr,
    PropagateNan,
    RoundingMode,
    TritonI32Enum,
    TritonTypeConstr,
    bit_width,
    element_type_or_self,
    get_i1_same_shape,
    optional_enum_attr,
    shape_of,
    verify_enum_attr,
)
from passviz.ir.op_syntax import parse_operands


def _zero_float_sign(attr: Attribute | None) -> bool | None:
    """For a float zero (or a splat of one), whether it is negative; None otherwise."""
    if not isinstance(attr, FloatAttr):
        attr = splat_value(attr)
    if not isinstance(attr, FloatAttr) or attr.value.data != 0.0:
        return None
    return math.copysign(1.0, attr.value.data) < 0


@irdl_op_definition
class FpToFpOp(SrcToResultSyntax, IRDLOperation, HasFolderInterface):
    """Convert between float types, fp8 included; a downcast names its rounding.

    ``%y = tt.fp_to_fp %x, rounding = rtne : tensor<16xf32> -> tensor<16xf8E5M2>``
    """

    name = "tt.fp_to_fp"

    src = operand_def(FloatLikeConstr)
    """The value to convert."""

    result = result_def(FloatLikeConstr)
    """The converted value."""

    rounding = opt_prop_def(IntegerAttr[I32])
    """The rounding of a downcast (``RoundingMode``)."""

    traits = elementwise_cast_traits()

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("rounding",)

    _TRAILING_ENUMS: ClassVar[Mapping[str, tuple[str, type[TritonI32Enum]]]] = {
        "rounding": ("rounding", RoundingMode)
    }
    """``$src attr-dict (`,` `rounding` `=` $rounding^)? `:` type($src) `->` type($result)``."""

    def __init__(
        self, src: SSAValue | Operation, result_type: Attribute, rounding: RoundingMode | None = None
    ):
        super().__init__(src, result_type, {"rounding": optional_enum_attr(rounding)})

    def verify_(self) -> None:
        verify_enum_attr(self.rounding, RoundingMode, "rounding")
        src_width = bit_width(element_type_or_self(self.src.type))
        if bit_width(element_type_or_self(self.result.type)) < src_width and self.rounding is None:
            raise op_error(self, "Rounding mode is required for FP downcast")

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        if self.src.type == self.result.type:
            return (self.src,)
        negative = _zero_float_sign(constant_value(self.src))
        element = element_type_or_self(self.result.type)
        if negative is None or not isinstance(element, AnyFloat):
            return None
        zero = FloatAttr(-0.0 if negative else 0.0, element)
        if shape_of(self.result.type) is None:
            return (zero,)
        splat = splat_of(self.result.type, zero)
        return None if splat is None else (splat,)


@irdl_op_definition
class ClampFOp(IRDLOperation):
    """Clamp floats into ``[min, max]``.

    ``%y = tt.clampf %x, %lo, %hi, propagateNan = all : tensor<16xf32>``
    """

    name = "tt.clampf"

    x = operand_def(FloatLikeConstr)
    """The value to clamp."""

    min = operand_def(FloatLikeConstr)
    """The lower bound."""

    max = operand_def(FloatLikeConstr)
    """The upper bound."""

    result = result_def(FloatLikeConstr)
    """The clamped value."""

    propagate_nan = prop_def(IntegerAttr[I32], prop_name="propagateNan")
    """Whether a NaN ``x`` gives NaN (``PropagateNan``)."""

    traits = same_type_elementwise_traits()

    def __init__(
        self,
        x: SSAValue | Operation,
        min: SSAValue | Operation,
        max: SSAValue | Operation,
        propagate_nan: PropagateNan = PropagateNan.NONE,
    ):
        super().__init__(
            operands=[x, min, max],
            result_types=[SSAValue.get(x).type],
            properties={"propagateNan": propagate_nan.to_attr()},
        )

    def verify_(self) -> None:
        verify_enum_attr(self.propagate_nan, PropagateNan, "propagateNan")

    @classmethod
    def parse(cls, parser: Parser) -> ClampFOp:
        # $x `,` $min `,` $max `,` `propagateNan` `=` $propagateNan attr-dict `:` type($result)
        operands = parse_operands(parser, 3)
        parser.parse_punctuation(",")
        parser.parse_keyword("propagateNan")
        parser.parse_punctuation("=")
        properties: dict[str, Attribute] = {
            "propagateNan": parse_enum(parser, PropagateNan, "propagateNan").to_attr()
        }
        attributes = parse_attr_dict_into_properties(parser, (), properties)
        parser.parse_punctuation(":")
        type_ = parser.parse_type()
        return cls.build(
            operands=[parser.resolve_operand(u, type_) for u in operands],
            result_types=[type_],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_operands(printer, self.operands)
        member = PropagateNan.from_attr(self.propagate_nan)
        printer.print_string(
            f", propagateNan = {member.mnemonic if member is not None else self.propagate_nan}"
        )
        print_attr_dict_and_type(printer, self, self.result.type)


@irdl_op_definition
class PreciseSqrtOp(SameTypeSyntax, IRDLOperation):
    """A correctly rounded square root: ``%y = tt.precise_sqrt %x : tensor<16xf32>``."""

    name = "tt.precise_sqrt"

    x = operand_def(FloatLikeConstr)
    """The operand."""

    result = result_def(FloatLikeConstr)
    """Its square root."""

    traits = same_type_elementwise_traits()


@irdl_op_definition
class PreciseDivFOp(SameTypeSyntax, IRDLOperation):
    """A correctly rounded division: ``%z = tt.precise_divf %x, %y : tensor<16xf32>``."""

    name = "tt.precise_divf"

    x = operand_def(FloatLikeConstr)
    """The dividend."""

    y = operand_def(FloatLikeConstr)
    """The divisor."""

    result = result_def(FloatLikeConstr)
    """The quotient."""

    traits = same_type_elementwise_traits()


@irdl_op_definition
class MulhiUIOp(SameTypeSyntax, IRDLOperation):
    """The high half of an unsigned product: ``%z = tt.mulhiui %x, %y : i32``."""

    name = "tt.mulhiui"

    x = operand_def(IntLikeConstr)
    """The first factor."""

    y = operand_def(IntLikeConstr)
    """The second factor."""

    result = result_def(IntLikeConstr)
    """The most significant half of the double-width product."""

    traits = same_type_elementwise_traits()


@irdl_op_definition
class ExternElementwiseOp(PropertySyntax, IRDLOperation):
    """Call an external library function elementwise.

    ``%y = tt.extern_elementwise %x {libname = "", libpath = "", pure = true,
    symbol = "__nv_expf"} : (tensor<16xf32>) -> tensor<16xf32>``
    """

    name = "tt.extern_elementwise"

    srcs = var_operand_def(TritonTypeConstr)
    """The arguments."""

    result = result_def(TritonTypeConstr)
    """The function's value."""

    libname = prop_def(StringAttr)
    """The library's name."""

    libpath = prop_def(StringAttr)
    """Where the library is."""

    symbol = prop_def(StringAttr)
    """The function's name."""

    pure = prop_def(BoolAttr)
    """Whether the function has no side effects."""

    traits = traits_def(
        Elementwise(),
        SameOperandsAndResultEncoding(),
        PureUnlessImpureEffect(),
        SpeculatableIfPure(),
        TensorSizeTrait(),
    )

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("libname", "libpath", "pure", "symbol")

    def __init__(
        self,
        srcs: Sequence[SSAValue | Operation],
        result_type: Attribute,
        symbol: str,
        *,
        libname: str = "",
        libpath: str = "",
        pure: bool = True,
    ):
        super().__init__(
            operands=[srcs],
            result_types=[result_type],
            properties={
                "libname": StringAttr(libname),
                "libpath": StringAttr(libpath),
                "symbol": StringAttr(symbol),
                "pure": IntegerAttr.from_bool(pure),
            },
        )

    @classmethod
    def parse(cls, parser: Parser) -> ExternElementwiseOp:
        # operands attr-dict `:` functional-type(operands, $result)
        pos = parser.pos
        unresolved = parse_operand_list(parser)
        properties, attributes = cls.parse_properties(parser, order=("libname", "libpath", "symbol", "pure"))
        parser.parse_punctuation(":")
        inputs, outputs = parse_functional_type(parser, len(unresolved), pos)
        return cls.build(
            operands=[resolve(parser, unresolved, inputs, pos)],
            result_types=[outputs[0] if len(outputs) == 1 else list(outputs)],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        # MLIR writes the space before an empty operand list too.
        printer.print_string(" ")
        print_operands(printer, self.srcs)
        self.print_properties(printer)
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


@irdl_op_definition
class ElementwiseInlineAsmOp(PropertySyntax, IRDLOperation):
    """Inline assembly applied to ``packed_element`` elements at a time.

    ``%y:2 = tt.elementwise_inline_asm "asm" {constraints = "=r,=r,r",
    packed_element = 1 : i32, pure = true} %x : tensor<16xi32> -> tensor<16xi16>, tensor<16xi16>``
    """

    name = "tt.elementwise_inline_asm"

    args = var_operand_def(TritonTypeConstr)
    """The inputs."""

    result = var_result_def(TritonTypeConstr)
    """The outputs."""

    asm_string = prop_def(StringAttr)
    """The assembly."""

    constraints = prop_def(StringAttr)
    """The asm constraints (outputs, then inputs)."""

    pure = prop_def(BoolAttr)
    """Whether the assembly has no side effects."""

    packed_element = prop_def(IntegerAttr[I32])
    """How many elements the assembly gets at a time."""

    traits = traits_def(
        Elementwise(),
        SameOperandsAndResultEncoding(),
        PureUnlessImpureEffect(),
        SpeculatableIfPure(),
        TensorSizeTrait(),
    )

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("constraints", "packed_element", "pure")

    def __init__(
        self,
        asm_string: str,
        args: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        *,
        constraints: str,
        pure: bool = True,
        packed_element: int = 1,
    ):
        super().__init__(
            operands=[args],
            result_types=[result_types],
            properties={
                "asm_string": StringAttr(asm_string),
                "constraints": StringAttr(constraints),
                "pure": IntegerAttr.from_bool(pure),
                "packed_element": IntegerAttr(packed_element, i32),
            },
        )

    def verify_(self) -> None:
        if not self.args:
            return
        shape = shape_of(self.args[0].type)
        count = math.prod(shape) if shape is not None else 0
        packed = self.packed_element.value.data
        if packed == 0 or count % packed:
            raise op_error(
                self,
                f"number of input elements {count} must be a multiple of the op's "
                f"packed_element attribute, {packed}",
            )

    @classmethod
    def parse(cls, parser: Parser) -> ElementwiseInlineAsmOp:
        # $asm_string attr-dict ($args^ `:` type($args))? `->` type($result)
        asm_string = StringAttr(parser.parse_str_literal())
        properties, attributes = cls.parse_properties(
            parser, {"asm_string": asm_string}, ("asm_string", "constraints", "pure", "packed_element")
        )
        args = parse_operands_with_types(parser)
        parser.parse_punctuation("->")
        result_types = parse_type_list(parser)
        return cls.build(
            operands=[args],
            result_types=[result_types],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.asm_string.data)
        self.print_properties(printer)
        if self.args:
            print_operands_with_types(printer, self.args)
        printer.print_string(" -> ")
        print_types(printer, self.result.types)


@irdl_op_definition
class HistogramOp(IRDLOperation):
    """Count the values of an integer tensor into bins of width 1 from 0.

    ``%h = tt.histogram %x, %mask : tensor<128xi32> -> tensor<16xi32>``
    """

    name = "tt.histogram"

    src = operand_def(IntTensorConstr)
    """The values to count."""

    mask = opt_operand_def(BoolLikeConstr)
    """Which values to count (``i1`` shaped like ``src``)."""

    result = result_def(IntTensorConstr)
    """The counts; its size is the number of bins."""

    traits = traits_def(Pure(), TensorSizeTrait())

    def __init__(
        self, src: SSAValue | Operation, result_type: Attribute, mask: SSAValue | Operation | None = None
    ):
        super().__init__(operands=[src, mask], result_types=[result_type])

    def verify_(self) -> None:
        if self.mask is not None and self.mask.type != get_i1_same_shape(self.src.type):
            raise op_error(self, "failed to verify that mask type matches src type")

    @classmethod
    def parse(cls, parser: Parser) -> HistogramOp:
        # $src (`,` $mask^)? attr-dict `:` type($src) `->` type($result)
        src = parser.parse_unresolved_operand()
        mask = parser.parse_unresolved_operand() if parser.parse_optional_punctuation(",") else None
        attributes, src_type = parse_attr_dict_and_type(parser)
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls(
            parser.resolve_operand(src, src_type),
            result_type,
            None if mask is None else parser.resolve_operand(mask, get_i1_same_shape(src_type)),
        )
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_operands(printer, [v for v in (self.src, self.mask) if v is not None])
        print_attr_dict_and_type(printer, self, self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)
