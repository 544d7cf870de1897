"""The MLIR Toy tutorial's ``toy`` dialect (chapters 2 to 4), in the syntax MLIR prints.

``toy.transpose(%0 : tensor<2x3xf64>) to tensor<*xf64>``,
``toy.mul %0, %1 : tensor<*xf64>``, ``toy.generic_call @f(%0) : (...) -> ...``
and so on, with the tutorial's verifiers.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import ClassVar, cast

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FlatSymbolRefAttrConstr,
    Float64Type,
    FunctionType,
    MemRefType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TensorType,
    UnrankedTensorType,
    f64,
)
from xdsl.interfaces import HasCanonicalizationPatternsInterface, HasFolderInterface
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_op_definition,
    irdl_to_attr_constraint,
    operand_def,
    opt_attr_def,
    opt_operand_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from passviz.ir.callables import FunctionTypeCallable
from passviz.ir.op_syntax import parse_function, print_function, print_operands_and_attr_dict
from passviz.rewrite.calls import DirectCall
from passviz.rewrite.inliner import DialectInlinerInterface, branch_to

F64Tensor = irdl_to_attr_constraint(TensorType[Float64Type]) | irdl_to_attr_constraint(
    UnrankedTensorType[Float64Type]
)
"""``F64Tensor`` of the tutorial's ODS: a ranked or unranked tensor of f64."""


def unranked() -> UnrankedTensorType[Float64Type]:
    """``tensor<*xf64>``, the type MLIRGen gives every value whose shape it does not know."""
    return UnrankedTensorType(f64)


def _same_shape(first: Attribute, second: Attribute) -> bool:
    """Whether two tensor types may hold the same value: equal, or one unranked."""
    if isinstance(first, UnrankedTensorType) or isinstance(second, UnrankedTensorType):
        return True
    return first == second


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """``toy.constant dense<...> : tensor<...>``: a literal as an SSA value."""

    name = "toy.constant"
    value = attr_def(DenseIntOrFPElementsAttr)
    output = result_def(F64Tensor)
    traits = traits_def(Pure())

    def __init__(self, value: DenseIntOrFPElementsAttr) -> None:
        super().__init__(result_types=[value.type], attributes={"value": value})

    @staticmethod
    def from_values(values: Sequence[float], shape: Sequence[int]) -> ConstantOp:
        """A constant of ``shape`` holding ``values`` in row-major order."""
        return ConstantOp(DenseIntOrFPElementsAttr.from_list(TensorType(f64, shape), values))

    def float_values(self) -> list[float]:
        """The elements in row-major order (f64, as the verifier requires; never complex)."""
        return [float(value) for value in self.value.get_values() if not isinstance(value, tuple)]

    def verify_(self) -> None:
        result_type = self.output.type
        attr_type = self.value.type
        if not isinstance(result_type, TensorType) or not isinstance(attr_type, TensorType):
            return
        if attr_type.element_type != f64:
            raise VerifyException("value must hold f64 elements")
        if attr_type.get_num_dims() != result_type.get_num_dims():
            raise VerifyException(
                "return type must match the one of the attached value attribute: "
                f"{attr_type.get_num_dims()} != {result_type.get_num_dims()}"
            )
        for dim, (have, want) in enumerate(zip(attr_type.get_shape(), result_type.get_shape(), strict=True)):
            if have != want:
                raise VerifyException(
                    f"return type shape mismatches its attribute at dimension {dim}: {have} != {want}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attributes = parser.parse_optional_attr_dict()
        value = parser.parse_attribute()
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error("expected a dense elements attribute of f64")
        op = ConstantOp(cast(DenseIntOrFPElementsAttr, value))
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_op_attributes(self.attributes, reserved_attr_names=("value",))
        printer.print_attribute(self.value)


class _BinaryOp(IRDLOperation):
    """``toy.add`` and ``toy.mul``: ``%a, %b : type``, or a functional type when the types differ."""

    lhs = operand_def(F64Tensor)
    rhs = operand_def(F64Tensor)
    result = result_def(F64Tensor)
    traits = traits_def(Pure())

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute | None = None) -> None:
        super().__init__(operands=[lhs, rhs], result_types=[result_type or unranked()])

    @classmethod
    def parse(cls, parser: Parser) -> _BinaryOp:
        operands = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        type_pos = parser.pos
        parsed = parser.parse_type()
        if isinstance(parsed, FunctionType):
            operand_types, result_types = parsed.inputs.data, parsed.outputs.data
            if len(result_types) != 1:
                parser.raise_error("expected one result type", type_pos, parser.pos)
        else:
            operand_types, result_types = (parsed,) * len(operands), (parsed,)
        if len(operands) != 2 or len(operand_types) != 2:
            parser.raise_error("expected two operands", type_pos, parser.pos)
        lhs, rhs = parser.resolve_operands(operands, operand_types, parser.pos)
        op = cls(lhs, rhs, result_types[0])
        op.attributes.update(attributes)
        return op

    def print(self, printer: Printer) -> None:
        print_operands_and_attr_dict(printer, self)
        printer.print_string(" : ")
        result_type = self.result.type
        if all(operand.type == result_type for operand in self.operands):
            printer.print_attribute(result_type)
            return
        printer.print_function_type([operand.type for operand in self.operands], [result_type])


@irdl_op_definition
class AddOp(_BinaryOp):
    """``toy.add``: element-wise addition of two tensors of one shape."""

    name = "toy.add"


@irdl_op_definition
class MulOp(_BinaryOp):
    """``toy.mul``: element-wise multiplication of two tensors of one shape."""

    name = "toy.mul"


class _TransposePatterns(HasCanonicalizationPatternsInterface):
    """``TransposeOp``'s canonicalization patterns (``TRANSPOSE_PATTERNS``, below)."""

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return TRANSPOSE_PATTERNS


class _ReshapePatterns(HasCanonicalizationPatternsInterface):
    """``ReshapeOp``'s canonicalization patterns (``RESHAPE_PATTERNS``, below)."""

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return RESHAPE_PATTERNS


class _TensorToTensorOp(IRDLOperation):
    """What ``toy.transpose``, ``toy.reshape`` and ``toy.cast`` share: one f64 tensor in, one
    out, no side effect, and (the first two's syntax) ``(%v : t) to t2``."""

    input = operand_def(F64Tensor)
    output = result_def(F64Tensor)
    traits = traits_def(Pure())
    assembly_format: ClassVar[str | None] = "`(` $input `:` type($input) `)` attr-dict `to` type($output)"

    def __init__(self, value: SSAValue, result_type: Attribute) -> None:
        super().__init__(operands=[value], result_types=[result_type])


@irdl_op_definition
class TransposeOp(_TensorToTensorOp, _TransposePatterns):
    """``toy.transpose(%0 : tensor<2x3xf64>) to tensor<3x2xf64>``."""

    name = "toy.transpose"

    def __init__(self, value: SSAValue, result_type: Attribute | None = None) -> None:
        super().__init__(value, result_type or unranked())

    def verify_(self) -> None:
        input_type, result_type = self.input.type, self.output.type
        if not isinstance(input_type, TensorType) or not isinstance(result_type, TensorType):
            return
        if tuple(input_type.get_shape()) != tuple(reversed(result_type.get_shape())):
            raise VerifyException("expected result shape to be a transpose of the input")


@irdl_op_definition
class ReshapeOp(_TensorToTensorOp, _ReshapePatterns):
    """``toy.reshape(%0 : tensor<6xf64>) to tensor<2x3xf64>``: the same data, a static shape."""

    name = "toy.reshape"
    output = result_def(TensorType[Float64Type])

    def __init__(self, value: SSAValue, result_type: TensorType[Float64Type]) -> None:
        super().__init__(value, result_type)

    def verify_(self) -> None:
        output_type = self.output.type
        assert isinstance(output_type, TensorType)
        if any(dim < 0 for dim in output_type.get_shape()):
            raise VerifyException(
                f"result #0 must be statically shaped tensor of 64-bit float values, but got {output_type}"
            )
        # Beyond the tutorial's ODS, which lets toyc crash later (folding the
        # reshape of a constant): the element counts must agree, or the input
        # be one element (``var a<2, 2> = 5.5``).
        input_type = self.input.type
        if isinstance(input_type, TensorType) and all(dim >= 0 for dim in input_type.get_shape()):
            have, want = input_type.element_count(), output_type.element_count()
            if have not in (1, want):
                raise VerifyException(f"cannot reshape {have} elements to {output_type}")


@irdl_op_definition
class CastOp(_TensorToTensorOp, HasFolderInterface):
    """``toy.cast %0 : tensor<2x3xf64> to tensor<*xf64>``: the same value, a more or less known shape."""

    name = "toy.cast"
    assembly_format = "$input attr-dict `:` type($input) `to` type($output)"

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        """A cast to the type it already has is its input (MLIR's ``CastOpInterface`` folder)."""
        return (self.input,) if self.input.type == self.output.type else None

    def verify_(self) -> None:
        if not _same_shape(self.input.type, self.output.type):
            raise VerifyException(
                f"operand type {self.input.type} and result type {self.output.type} are cast incompatible"
            )


@irdl_op_definition
class PrintOp(IRDLOperation):
    """``toy.print %0 : tensor<2x3xf64>``."""

    name = "toy.print"
    input = operand_def(F64Tensor | irdl_to_attr_constraint(MemRefType[Float64Type]))
    """A tensor, or the buffer holding it once lowered to affine loops (chapter 5)."""
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, value: SSAValue) -> None:
        super().__init__(operands=[value])


@irdl_op_definition
class FuncOp(IRDLOperation):
    """``toy.func [private] @name(%arg0: tensor<*xf64>) -> tensor<*xf64> { ... }``."""

    name = "toy.func"
    body = region_def("single_block")
    sym_name = attr_def(SymbolNameConstraint())
    function_type = attr_def(FunctionType)
    sym_visibility = opt_attr_def(StringAttr)
    traits = traits_def(SymbolOpInterface(), FunctionTypeCallable(), IsolatedFromAbove())

    _RESERVED: ClassVar[tuple[str, ...]] = ("sym_name", "function_type", "sym_visibility")

    def __init__(
        self,
        name: str,
        function_type: FunctionType,
        region: Region | None = None,
        *,
        private: bool = False,
    ) -> None:
        if region is None:
            region = Region(Block(arg_types=function_type.inputs.data))
        attributes: dict[str, Attribute] = {"sym_name": StringAttr(name), "function_type": function_type}
        if private:
            attributes["sym_visibility"] = StringAttr("private")
        super().__init__(attributes=attributes, regions=[region])

    def verify_(self) -> None:
        block = self.body.block
        if tuple(arg.type for arg in block.args) != self.function_type.inputs.data:
            raise VerifyException("entry block argument types must match the function's input types")
        if block.last_op is None or not block.last_op.has_trait(IsTerminator):
            raise VerifyException("block with no terminator")

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        # MLIR reads ``attributes { sym_visibility = "private" }`` too (the tutorial's older tests)
        parsed = parse_function(parser, cls._RESERVED[:2])
        visibility, extra = parsed.visibility, parsed.attributes
        if "sym_visibility" in extra:
            found = extra.pop("sym_visibility")
            if visibility is not None or not isinstance(found, StringAttr):
                parser.raise_error("toy.func: sym_visibility given twice or not a string")
            visibility = found
        if parsed.arg_attrs is not None or parsed.res_attrs is not None:
            parser.raise_error("toy.func takes no argument or result attributes")
        region = parsed.body
        if not region.blocks:
            region = Region(Block(arg_types=parsed.function_type.inputs))
        op = FuncOp(parsed.name, parsed.function_type, region)
        if visibility is not None:
            op.sym_visibility = visibility
        op.attributes.update(extra)
        return op

    def print(self, printer: Printer) -> None:
        print_function(printer, self, self._RESERVED, print_empty_outputs=True)


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``toy.return`` or ``toy.return %0 : tensor<*xf64>``, ending a ``toy.func``."""

    name = "toy.return"
    input = opt_operand_def(F64Tensor)
    traits = traits_def(IsTerminator(), HasParent(FuncOp), Pure())
    assembly_format = "attr-dict ($input^ `:` type($input))?"

    def __init__(self, value: SSAValue | None = None) -> None:
        super().__init__(operands=[[value] if value is not None else []])

    def verify_(self) -> None:
        function = self.parent_op()
        assert isinstance(function, FuncOp)
        results = function.function_type.outputs.data
        count, expected = 0 if self.input is None else 1, len(results)
        if count != expected:
            raise VerifyException(
                f"does not return the same number of values ({count}) as the enclosing function ({expected})"
            )
        if self.input is None:
            return
        have, want = self.input.type, results[0]
        if not _same_shape(have, want):
            raise VerifyException(
                f"type of return operand ({have}) doesn't match function result type ({want})"
            )


@irdl_op_definition
class GenericCallOp(IRDLOperation):
    """``toy.generic_call @f(%0, %1) : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<*xf64>``."""

    name = "toy.generic_call"
    callee = attr_def(FlatSymbolRefAttrConstr)
    inputs = var_operand_def(F64Tensor)
    output = result_def(F64Tensor)
    traits = traits_def(DirectCall())
    assembly_format = "$callee `(` $inputs `)` attr-dict `:` functional-type($inputs, $output)"

    def __init__(
        self, callee: str | SymbolRefAttr, inputs: Sequence[SSAValue], result_type: Attribute | None = None
    ):
        if isinstance(callee, str):
            callee = SymbolRefAttr(callee)
        super().__init__(
            operands=[list(inputs)], result_types=[result_type or unranked()], attributes={"callee": callee}
        )


# -- canonicalization patterns (chapter 3) ------------------------------------------------
# ``SimplifyRedundantTranspose`` is the tutorial's C++ pattern; the other three are its DRR
# patterns (``ToyCombine.td``), named as the tutorial names them and tried in the order MLIR's
# pattern applicator tries them: by benefit (a DRR pattern's is the number of ops it matches),
# then as registered.  They live beside the ops, as ``getCanonicalizationPatterns`` does in C++.

MAX_SPLAT_ELEMENTS = 1 << 20
"""The largest splat ``FoldConstantReshapeOptPattern`` spells out: MLIR keeps a
splat as one value, xDSL's attribute holds every element."""


class SimplifyRedundantTranspose(RewritePattern):
    """``transpose(transpose(x))`` is ``x``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter, /) -> None:
        inner = op.input.owner
        if not isinstance(inner, TransposeOp):
            return
        rewriter.replace(op, [], [inner.input])


class _ReshapeOfPattern(RewritePattern, abc.ABC):
    """A pattern on a ``toy.reshape`` of a value an ``INNER`` op makes, which ``rebuilt``
    builds again in the reshape's type (the tutorial's DRR patterns over a reshape)."""

    INNER: ClassVar[type[Operation]]
    """The op whose result is reshaped."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter, /) -> None:
        inner = op.input.owner
        if not isinstance(inner, self.INNER):
            return
        output_type = op.output.type
        assert isinstance(output_type, TensorType)
        made = self.rebuilt(inner, output_type)
        if made is None:
            return
        made.location = op.location  # MLIR fuses the matched ops' locations; the root's is the one to see
        rewriter.replace(op, made)

    @abc.abstractmethod
    def rebuilt(self, inner: Operation, output_type: TensorType[Float64Type]) -> Operation | None:
        """The op that replaces the reshape of ``inner``'s value to ``output_type``, if any."""


class ReshapeReshapeOptPattern(_ReshapeOfPattern):
    """``Reshape(Reshape(x)) = Reshape(x)``: one reshape to the outer one's type."""

    INNER = ReshapeOp

    def rebuilt(self, inner: Operation, output_type: TensorType[Float64Type]) -> Operation | None:
        assert isinstance(inner, ReshapeOp)
        return ReshapeOp(inner.input, output_type)


class RedundantReshapeOptPattern(RewritePattern):
    """``Reshape(x) = x`` where the types are identical."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter, /) -> None:
        if op.input.type != op.output.type:
            return
        rewriter.replace(op, [], [op.input])


class FoldConstantReshapeOptPattern(_ReshapeOfPattern):
    """``Reshape(Constant(x)) = Constant(x')``: the constant's data in the reshape's type."""

    INNER = ConstantOp

    def rebuilt(self, inner: Operation, output_type: TensorType[Float64Type]) -> Operation | None:
        assert isinstance(inner, ConstantOp)
        values = inner.float_values()
        count = output_type.element_count()
        if len(values) == 1:  # a splat reshapes to any shape, as a splat attribute does in MLIR
            if count > MAX_SPLAT_ELEMENTS:
                return None
            values = values * count
        elif len(values) != count:
            return None
        return ConstantOp.from_values(values, output_type.get_shape())


TRANSPOSE_PATTERNS: tuple[RewritePattern, ...] = (SimplifyRedundantTranspose(),)
"""``TransposeOp::getCanonicalizationPatterns``."""

RESHAPE_PATTERNS: tuple[RewritePattern, ...] = (
    ReshapeReshapeOptPattern(),  # benefit 2
    FoldConstantReshapeOptPattern(),  # benefit 2
    RedundantReshapeOptPattern(),  # benefit 1
)
"""``ReshapeOp::getCanonicalizationPatterns``, in the applicator's order."""


class ToyInlinerInterface(DialectInlinerInterface):
    """The tutorial's ``ToyInlinerInterface`` (chapter 4): every call, op and region may be
    inlined, a ``toy.return`` branches to the code after the call, and a value of another type
    than the callee's is converted with a ``toy.cast``."""

    def is_legal_to_inline_call(self, call: Operation, callable: Operation, would_be_cloned: bool) -> bool:
        return True

    def is_legal_to_inline_region(self, dest: Region, src: Region, would_be_cloned: bool) -> bool:
        return True

    def is_legal_to_inline_op(self, op: Operation, dest: Region, would_be_cloned: bool) -> bool:
        return True

    def handle_terminator(self, op: Operation, new_dest: Block) -> None:
        if isinstance(op, ReturnOp):
            branch_to(op, new_dest)

    def materialize_call_conversion(self, value: SSAValue, type: Attribute) -> Operation | None:
        return CastOp(value, type)


Toy = Dialect(
    "toy",
    [ConstantOp, AddOp, MulOp, TransposeOp, ReshapeOp, CastOp, PrintOp, FuncOp, ReturnOp, GenericCallOp],
    [],
    [ToyInlinerInterface()],
)
"""The ``toy`` dialect, with its inliner interface."""
