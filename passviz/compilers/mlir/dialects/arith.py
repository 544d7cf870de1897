"""xDSL's ``arith`` dialect, taking vectors and tensors wherever MLIR's does.

xDSL 0.74 types the casts (``extsi``, ``sitofp``, ``index_cast``, ...) on
scalars only, types the result of ``cmpi``/``cmpf`` ``i1`` whatever the
operands, and wants an ``i1`` condition in ``select``; MLIR takes a vector or
tensor wherever it takes a scalar, and Triton's TTIR is made of such ops.

Each of those ops here is a subclass of xDSL's (so ``isinstance(op,
xdsl.dialects.arith.ExtSIOp)`` still holds), with the type constraints and
verifiers of MLIR's ``ArithOps.td`` / ``ArithOps.cpp`` and its custom syntax
(``extf``'s ``fastmath``, ``truncf``'s rounding mode, ``trunci``'s overflow
flags).  ``remf`` and ``index_castui``, which xDSL lacks, are added.  xDSL's
other ops already take shaped operands and are kept as they are.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import ClassVar, Self

from xdsl.dialects import arith
from xdsl.dialects.arith import (
    CMPF_COMPARISON_OPERATIONS,
    CMPI_COMPARISON_OPERATIONS,
    FastMathFlagsAttr,
    IntegerOverflowAttr,
    IntegerOverflowFlag,
)
from xdsl.dialects.builtin import (
    I32,
    AnyFloat,
    AnyFloatConstr,
    IndexType,
    IndexTypeConstr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    SignlessIntegerConstraint,
    TensorType,
    UnrankedTensorType,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AnyOf,
    AttrConstraint,
    EqAttrConstraint,
    IRDLOperation,
    Operand,
    ParamAttrConstraint,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.type import get_element_type_or_self, have_compatible_shape

from passviz.compilers.mlir.dialects import replacing
from passviz.ir.hints import isa
from passviz.ir.op_syntax import parse_attr_dict_and_type, parse_operands, print_operands_and_attr_dict
from passviz.ir.xdsl_compat import check_comparison_operands, comparison_predicate

# ---------------------------------------------------------------------------
# Type constraints (``ArithBase.td``, ``CommonTypeConstraints.td``)


def _like(constraint: AttrConstraint) -> AttrConstraint:
    """``TypeOrContainerOf``: ``constraint``, or a vector or (ranked or unranked) tensor of it."""
    return AnyOf.get(
        constraint,
        VectorType.constr(constraint),
        TensorType.constr(constraint),
        ParamAttrConstraint(UnrankedTensorType, (constraint,)),
    )


_SIGNLESS_INT_OR_INDEX = SignlessIntegerConstraint | IndexTypeConstr

INT_LIKE = _like(SignlessIntegerConstraint)
"""``SignlessFixedWidthIntegerLike``: a signless integer, or a vector or tensor of them."""

INT_OR_INDEX_LIKE = _like(_SIGNLESS_INT_OR_INDEX)
"""``SignlessIntegerOrIndexLike``."""

FLOAT_LIKE = _like(AnyFloatConstr)
"""``FloatLike``."""

BOOL_LIKE = _like(EqAttrConstraint(IntegerType(1)))
"""``BoolLike``: ``i1``, or a vector or tensor of it."""

INDEX_CAST_TYPE = INT_OR_INDEX_LIKE | MemRefType.constr(_SIGNLESS_INT_OR_INDEX)
"""``IndexCastTypeConstraint``: integer or index like, or a memref of them."""

BITCAST_TYPE = _like(SignlessIntegerConstraint | AnyFloatConstr) | MemRefType.constr(
    SignlessIntegerConstraint | AnyFloatConstr
)
"""``BitcastTypeConstraint``: integer or float like (not index), or a memref of them."""


def _is_mappable(type_: Attribute) -> bool:
    """Whether ``ElementwiseMappable`` maps over ``type_`` (MLIR's ``VectorType`` and ``TensorType``)."""
    return isinstance(type_, VectorType | TensorType | UnrankedTensorType)


_NO_OVERFLOW = IntegerOverflowAttr("none")
_NO_FASTMATH = FastMathFlagsAttr("none")

ROUNDING_MODES = ("to_nearest_even", "downward", "upward", "toward_zero", "to_nearest_away")
"""``arith::RoundingMode``'s keywords, by value (``truncf``'s ``roundingmode``)."""


def i1_same_shape(type_: Attribute) -> Attribute:
    """``getI1SameShape``: ``i1``, or ``type_``'s shape (and encoding) with ``i1`` elements."""
    i1 = IntegerType(1)
    if isa(type_, TensorType[Attribute]):
        return TensorType(i1, type_.get_shape(), type_.encoding)
    if isa(type_, VectorType[Attribute]):
        return VectorType(i1, type_.get_shape(), type_.scalable_dims)
    if isinstance(type_, UnrankedTensorType):
        return UnrankedTensorType(i1)
    return i1


def _tensor_dims(type_: Attribute) -> tuple[int, ...] | None:
    """A tensor's shape, None for an unranked tensor, () for any other type."""
    if isinstance(type_, TensorType):
        return type_.get_shape()
    return None if isinstance(type_, UnrankedTensorType) else ()


def _cast_shape_error(source: Attribute, target: Attribute) -> str | None:
    """Why a cast's shape traits reject ``source`` to ``target``, or None.

    ``SameInputOutputTensorDims`` wants a tensor's exact shape on both sides,
    ``SameOperandsAndResultShape`` compatible shapes, and ``Elementwise`` the
    same kind of vector or tensor.  MLIR asserts on an unranked tensor; here it
    only matches another.
    """
    if _tensor_dims(source) != _tensor_dims(target):
        return "failed to verify that input and output have the same tensor dimensions"
    if not have_compatible_shape(source, target):
        return "requires the same shape for all operands and results"
    if (_is_mappable(source) or _is_mappable(target)) and type(source) is not type(target):
        return "all non-scalar operands/results must have the same shape and base type"
    return None


def _bitwidth(type_: Attribute) -> int | None:
    """The width of an integer or float type; None for index (and anything else)."""
    if isinstance(type_, IntegerType):
        return type_.bitwidth
    if isinstance(type_, AnyFloat):
        return type_.bitwidth
    return None


def _widens(source: Attribute, target: Attribute) -> bool:
    """``extsi``/``extui``/``extf``: the target is wider."""
    return (_bitwidth(target) or 0) > (_bitwidth(source) or 0)


def _narrows(source: Attribute, target: Attribute) -> bool:
    """``trunci``/``truncf``: the target is narrower."""
    return (_bitwidth(target) or 0) < (_bitwidth(source) or 0)


def _set_attr_dict(op: Operation, attributes: Mapping[str, Attribute]) -> None:
    """Attach a parsed ``attr-dict``: the op's inherent attributes become properties, as in MLIR."""
    properties = op.get_irdl_definition().properties if isinstance(op, IRDLOperation) else {}
    for name, value in attributes.items():
        if name in properties:
            op.properties[name] = value
        else:
            op.attributes[name] = value


def _verify_enum(value: IntegerAttr, cases: Sequence[str], what: str) -> None:
    if not 0 <= value.value.data < len(cases):
        raise VerifyException(
            f"{what} {value.value.data} is not one of 0..{len(cases) - 1} ({', '.join(cases)})"
        )


# ---------------------------------------------------------------------------
# Casts (``Arith_CastOp``)


class _CastOp(IRDLOperation, abc.ABC):
    """A cast of one value to the same shape: ``$in flags attr-dict : type($in) to type($out)``."""

    assembly_format: ClassVar[str | None] = None

    def __init__(self, op: SSAValue | Operation, target_type: Attribute) -> None:
        # Before xDSL's arith classes in each cast's bases, whose __init__s differ.
        IRDLOperation.__init__(self, operands=[op], result_types=[target_type])

    @staticmethod
    @abc.abstractmethod
    def elements_compatible(source: Attribute, target: Attribute) -> bool:
        """``areCastCompatible`` on the element types (the type constraints hold)."""

    def verify_(self) -> None:
        source, target = self.operands[0].type, self.results[0].type
        if (error := _cast_shape_error(source, target)) is not None:
            raise VerifyException(error)
        if not self.elements_compatible(get_element_type_or_self(source), get_element_type_or_self(target)):
            raise VerifyException(f"operand type {source} and result type {target} are cast incompatible")

    @classmethod
    def parse_flags(cls, parser: Parser) -> dict[str, Attribute]:
        """The properties spelled between the operand and the ``attr-dict``."""
        return {}

    def print_flags(self, printer: Printer) -> None:
        """Print what ``parse_flags`` reads."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        operand = parser.parse_unresolved_operand()
        properties = cls.parse_flags(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source = parser.parse_type()
        parser.parse_keyword("to")
        target = parser.parse_type()
        value = parser.resolve_operand(operand, source)
        op = cls.create(operands=[value], result_types=[target], properties=properties)
        _set_attr_dict(op, attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operands[0])
        self.print_flags(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.operands[0].type)
        printer.print_string(" to ")
        printer.print_attribute(self.results[0].type)


class _IntCast(_CastOp, abc.ABC):
    """A cast between integer types (``extsi``, ``extui``, ``trunci``)."""

    input = operand_def(INT_LIKE)
    result = result_def(INT_LIKE)


@irdl_op_definition
class ExtSIOp(_IntCast, arith.ExtSIOp):
    """``arith.extsi``: sign-extends integers to a wider type."""

    # MLIR's extsi is Pure (xDSL's has no traits).
    traits = traits_def(Pure())

    elements_compatible = staticmethod(_widens)


@irdl_op_definition
class ExtUIOp(_IntCast, arith.ExtUIOp):
    """``arith.extui``: zero-extends integers to a wider type."""

    elements_compatible = staticmethod(_widens)


@irdl_op_definition
class TruncIOp(_IntCast, arith.TruncIOp):
    """``arith.trunci``: truncates integers to a narrower type."""

    overflow_flags = prop_def(IntegerOverflowAttr, default_value=_NO_OVERFLOW, prop_name="overflowFlags")

    def __init__(
        self,
        op: SSAValue | Operation,
        target_type: Attribute,
        overflow: IntegerOverflowAttr = _NO_OVERFLOW,
    ) -> None:
        IRDLOperation.__init__(
            self, operands=[op], result_types=[target_type], properties={"overflowFlags": overflow}
        )

    elements_compatible = staticmethod(_narrows)

    @classmethod
    def parse_flags(cls, parser: Parser) -> dict[str, Attribute]:
        if parser.parse_optional_keyword("overflow") is None:
            return {}
        return {"overflowFlags": IntegerOverflowAttr(IntegerOverflowAttr.parse_parameter(parser))}

    def print_flags(self, printer: Printer) -> None:
        # MLIR spells ``overflow<nsw, nuw>`` with a space, where xDSL's attribute prints none.
        flags = [flag.value for flag in IntegerOverflowFlag if flag in self.overflow_flags.data]
        if flags:
            printer.print_string(f" overflow<{', '.join(flags)}>")


def _parse_fastmath(parser: Parser) -> dict[str, Attribute]:
    if parser.parse_optional_keyword("fastmath") is None:
        return {}
    return {"fastmath": FastMathFlagsAttr(FastMathFlagsAttr.parse_parameter(parser))}


def _print_fastmath(printer: Printer, fastmath: FastMathFlagsAttr | None) -> None:
    # An optional (not default-valued) attribute: MLIR prints it whenever it is set.
    if fastmath is not None:
        printer.print_string(" fastmath")
        fastmath.print_parameter(printer)


class _FloatCast(_CastOp, abc.ABC):
    """A cast between float types (``extf``, ``truncf``), with optional ``fastmath`` flags."""

    input = operand_def(FLOAT_LIKE)
    result = result_def(FLOAT_LIKE)
    fastmath = opt_prop_def(FastMathFlagsAttr)

    @classmethod
    def parse_flags(cls, parser: Parser) -> dict[str, Attribute]:
        return _parse_fastmath(parser)

    def print_flags(self, printer: Printer) -> None:
        _print_fastmath(printer, self.fastmath)


@irdl_op_definition
class ExtFOp(_FloatCast, arith.ExtFOp):
    """``arith.extf``: extends floats to a wider type."""

    def __init__(
        self, op: SSAValue | Operation, target_type: Attribute, fastmath: FastMathFlagsAttr | None = None
    ) -> None:
        IRDLOperation.__init__(
            self, operands=[op], result_types=[target_type], properties={"fastmath": fastmath}
        )

    elements_compatible = staticmethod(_widens)


@irdl_op_definition
class TruncFOp(_FloatCast, arith.TruncFOp):
    """``arith.truncf``: rounds floats to a narrower type."""

    roundingmode = opt_prop_def(IntegerAttr[I32])
    """An ``arith::RoundingMode`` (an index into ``ROUNDING_MODES``); none: the current one."""

    def __init__(
        self,
        op: SSAValue | Operation,
        target_type: Attribute,
        fastmath: FastMathFlagsAttr | None = None,
        roundingmode: str | None = None,
    ) -> None:
        mode = None if roundingmode is None else IntegerAttr(ROUNDING_MODES.index(roundingmode), 32)
        IRDLOperation.__init__(
            self,
            operands=[op],
            result_types=[target_type],
            properties={"fastmath": fastmath, "roundingmode": mode},
        )

    elements_compatible = staticmethod(_narrows)

    def verify_(self) -> None:
        super().verify_()
        if self.roundingmode is not None:
            _verify_enum(self.roundingmode, ROUNDING_MODES, "rounding mode")

    @classmethod
    def parse_flags(cls, parser: Parser) -> dict[str, Attribute]:
        properties: dict[str, Attribute] = {}
        if (mode := parser.parse_optional_keyword_in(ROUNDING_MODES)) is not None:
            properties["roundingmode"] = IntegerAttr(ROUNDING_MODES.index(mode), 32)
        return properties | super().parse_flags(parser)

    def print_flags(self, printer: Printer) -> None:
        if self.roundingmode is not None:
            printer.print_string(f" {ROUNDING_MODES[self.roundingmode.value.data]}")
        super().print_flags(printer)


def _int_to_float(source: Attribute, target: Attribute) -> bool:
    return isinstance(source, IntegerType) and isinstance(target, AnyFloat)


def _float_to_int(source: Attribute, target: Attribute) -> bool:
    return isinstance(source, AnyFloat) and isinstance(target, IntegerType)


class _IntToFloatCast(_CastOp, abc.ABC):
    """``sitofp``, ``uitofp``: integers to floats."""

    input = operand_def(INT_LIKE)
    result = result_def(FLOAT_LIKE)
    elements_compatible = staticmethod(_int_to_float)


class _FloatToIntCast(_CastOp, abc.ABC):
    """``fptosi``, ``fptoui``: floats to integers, rounding toward zero."""

    input = operand_def(FLOAT_LIKE)
    result = result_def(INT_LIKE)
    elements_compatible = staticmethod(_float_to_int)


@irdl_op_definition
class SIToFPOp(_IntToFloatCast, arith.SIToFPOp):
    """``arith.sitofp``: signed integers to floats."""


@irdl_op_definition
class UIToFPOp(_IntToFloatCast, arith.UIToFPOp):
    """``arith.uitofp``: unsigned integers to floats."""


@irdl_op_definition
class FPToSIOp(_FloatToIntCast, arith.FPToSIOp):
    """``arith.fptosi``: floats to signed integers, rounding toward zero."""


@irdl_op_definition
class FPToUIOp(_FloatToIntCast, arith.FPToUIOp):
    """``arith.fptoui``: floats to unsigned integers, rounding toward zero."""


class _IndexCast(_CastOp, abc.ABC):
    """``index_cast``, ``index_castui``: between ``index`` and integers."""

    input = operand_def(INDEX_CAST_TYPE)
    result = result_def(INDEX_CAST_TYPE)

    @staticmethod
    def elements_compatible(source: Attribute, target: Attribute) -> bool:
        """``areIndexCastCompatible``: exactly one side is ``index``."""
        return isinstance(source, IndexType) != isinstance(target, IndexType)


@irdl_op_definition
class IndexCastOp(_IndexCast, arith.IndexCastOp):
    """``arith.index_cast``: between ``index`` and integers, sign-extending."""


@irdl_op_definition
class IndexCastUIOp(_IndexCast):
    """``arith.index_castui``: between ``index`` and integers, zero-extending."""

    name = "arith.index_castui"

    traits = traits_def(Pure())


@irdl_op_definition
class BitcastOp(_CastOp, arith.BitcastOp):
    """``arith.bitcast``: reinterprets bits as a type of the same width."""

    input = operand_def(BITCAST_TYPE)
    result = result_def(BITCAST_TYPE)

    @staticmethod
    def elements_compatible(source: Attribute, target: Attribute) -> bool:
        width = _bitwidth(source)
        return width is not None and width == _bitwidth(target)


# ---------------------------------------------------------------------------
# Comparisons and select


class _Comparison(arith.ComparisonOperation, abc.ABC):
    """``cmpi``/``cmpf``: ``$predicate, $lhs, $rhs flags attr-dict : type($lhs)``,
    an ``i1`` result of the operands' shape."""

    predicate = prop_def(IntegerAttr)
    result = result_def(BOOL_LIKE)

    _PREDICATES: ClassVar[Sequence[str]]
    """The predicates' keywords, indexed by the ``predicate`` property's value."""

    def _init(
        self,
        operand1: SSAValue | Operation,
        operand2: SSAValue | Operation,
        arg: int | str,
        flags: Mapping[str, Attribute],
    ) -> None:
        """Build the comparison of ``operand1`` and ``operand2`` by the predicate ``arg``."""
        lhs, rhs = SSAValue.get(operand1), SSAValue.get(operand2)
        check_comparison_operands(lhs, rhs)
        if isinstance(arg, str):
            arg = comparison_predicate(arg, {name: i for i, name in enumerate(self._PREDICATES)})
        IRDLOperation.__init__(
            self,
            operands=[lhs, rhs],
            result_types=[i1_same_shape(lhs.type)],
            properties={"predicate": IntegerAttr(arg, 64), **flags},
        )

    def verify_(self) -> None:
        _verify_enum(self.predicate, self._PREDICATES, "predicate")
        lhs, result = self.operands[0].type, self.results[0].type
        if result != i1_same_shape(lhs):
            raise VerifyException(
                f"result type {result} must have i1 elements and the operands' shape ({i1_same_shape(lhs)})"
            )

    @classmethod
    def parse_flags(cls, parser: Parser) -> dict[str, Attribute]:
        """The properties spelled between the operands and the ``attr-dict``."""
        return {}

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        predicate = parser.parse_keyword_in(cls._PREDICATES, " as the comparison predicate")
        parser.parse_punctuation(",")
        lhs, rhs = parse_operands(parser, 2)
        flags = cls.parse_flags(parser)
        attributes, type_ = parse_attr_dict_and_type(parser)
        operands = parser.resolve_operands([lhs, rhs], [type_, type_], parser.pos)
        op = cls.create(
            operands=operands,
            result_types=[i1_same_shape(type_)],
            properties={"predicate": IntegerAttr(cls._PREDICATES.index(predicate), 64)} | flags,
        )
        _set_attr_dict(op, attributes)
        return op

    def print_flags(self, printer: Printer) -> None:
        """Print what ``parse_flags`` reads."""

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self._PREDICATES[self.predicate.value.data]}, ")
        printer.print_list(self.operands, printer.print_operand)
        self.print_flags(printer)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.operands[0].type)


def _same_type_operands(constraint: AttrConstraint) -> tuple[Operand, Operand]:
    """A comparison's ``lhs`` and ``rhs``: of one type, which ``constraint`` allows (ODS's
    ``AllTypesMatch<["lhs", "rhs"]>``)."""
    same = VarConstraint("_T", constraint)
    return operand_def(same), operand_def(same)


@irdl_op_definition
class CmpiOp(_Comparison, arith.CmpiOp):
    """``arith.cmpi``: compares integers (elementwise) into ``i1`` of the operands' shape."""

    _PREDICATES: ClassVar[Sequence[str]] = CMPI_COMPARISON_OPERATIONS
    lhs, rhs = _same_type_operands(INT_OR_INDEX_LIKE)

    def __init__(
        self, operand1: Operation | SSAValue, operand2: Operation | SSAValue, arg: int | str
    ) -> None:
        self._init(operand1, operand2, arg, {})


@irdl_op_definition
class CmpfOp(_Comparison, arith.CmpfOp):
    """``arith.cmpf``: compares floats (elementwise) into ``i1`` of the operands' shape."""

    _PREDICATES: ClassVar[Sequence[str]] = CMPF_COMPARISON_OPERATIONS
    lhs, rhs = _same_type_operands(FLOAT_LIKE)
    fastmath = prop_def(FastMathFlagsAttr, default_value=_NO_FASTMATH)

    def __init__(
        self,
        operand1: SSAValue | Operation,
        operand2: SSAValue | Operation,
        arg: int | str,
        fastmath: FastMathFlagsAttr = _NO_FASTMATH,
    ) -> None:
        self._init(operand1, operand2, arg, {"fastmath": fastmath})

    @classmethod
    def parse_flags(cls, parser: Parser) -> dict[str, Attribute]:
        # A default-valued attribute: always set, printed only when some flag is.
        return {"fastmath": _parse_fastmath(parser).get("fastmath", _NO_FASTMATH)}

    def print_flags(self, printer: Printer) -> None:
        if self.fastmath.data:
            _print_fastmath(printer, self.fastmath)


@irdl_op_definition
class SelectOp(arith.SelectOp):
    """``arith.select``: picks between two values by an ``i1``, or elementwise by a shaped ``i1``."""

    _T: ClassVar = VarConstraint("_T", AnyAttr())
    cond = operand_def(BOOL_LIKE)
    lhs = operand_def(_T)
    rhs = operand_def(_T)
    result = result_def(_T)

    assembly_format: ClassVar[str | None] = None

    def verify_(self) -> None:
        # ``BooleanConditionOrMatchingShape``: i1, or i1 elements in the result's vector or tensor shape.
        condition, result = self.cond.type, self.result.type
        if condition == IntegerType(1) or (_is_mappable(result) and condition == i1_same_shape(result)):
            return
        raise VerifyException(
            f"condition type {condition} is neither i1 nor i1 in the result's shape ({i1_same_shape(result)})"
        )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        cond, lhs, rhs = parse_operands(parser, 3)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        # A shaped condition is spelled before the result type: ``: tensor<4xi1>, tensor<4xf32>``.
        condition_type: Attribute = IntegerType(1)
        result_type: Attribute = parser.parse_type()
        if parser.parse_optional_punctuation(",") is not None:
            condition_type, result_type = result_type, parser.parse_type()
        operands = parser.resolve_operands(
            [cond, lhs, rhs], [condition_type, result_type, result_type], parser.pos
        )
        op = cls(*operands)
        _set_attr_dict(op, attributes)
        return op

    def print(self, printer: Printer) -> None:
        print_operands_and_attr_dict(printer, self)
        printer.print_string(" : ")
        if _is_mappable(self.cond.type):
            printer.print_attribute(self.cond.type)
            printer.print_string(", ")
        printer.print_attribute(self.result.type)


# ---------------------------------------------------------------------------
# Binary ops xDSL lacks


@irdl_op_definition
class RemFOp(arith.FloatingPointLikeBinaryOperation):
    """``arith.remf``: the remainder of float division, with the dividend's sign (``fmod``)."""

    name = "arith.remf"

    traits = traits_def(Pure())


# ---------------------------------------------------------------------------
# The dialect

_REPLACED: dict[type[Operation], type[Operation]] = {
    arith.ExtSIOp: ExtSIOp,
    arith.ExtUIOp: ExtUIOp,
    arith.TruncIOp: TruncIOp,
    arith.ExtFOp: ExtFOp,
    arith.TruncFOp: TruncFOp,
    arith.SIToFPOp: SIToFPOp,
    arith.UIToFPOp: UIToFPOp,
    arith.FPToSIOp: FPToSIOp,
    arith.FPToUIOp: FPToUIOp,
    arith.IndexCastOp: IndexCastOp,
    arith.BitcastOp: BitcastOp,
    arith.CmpiOp: CmpiOp,
    arith.CmpfOp: CmpfOp,
    arith.SelectOp: SelectOp,
}
"""xDSL's scalar-only ops and the shaped ones that replace them."""


Arith = replacing(
    arith.Arith, _REPLACED, [RemFOp, IndexCastUIOp], [arith.ArithConstantMaterializationInterface()]
)
"""The arith dialect as passviz registers it: xDSL's, with MLIR's shaped operands."""
