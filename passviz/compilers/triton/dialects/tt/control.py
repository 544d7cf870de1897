"""Function, SPMD and debug ops of the ``tt`` dialect.

``tt.func``, ``tt.call`` and ``tt.return``, spelled and behaving like the
``func`` dialect's; ``tt.get_program_id``, ``tt.get_num_programs`` and
``tt.make_range``, what a program knows of the launch grid; ``tt.print`` and
``tt.assert``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Self

from xdsl.dialects.builtin import (
    I32,
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DictionaryAttr,
    FlatSymbolRefAttrConstr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    i32,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.irdl import (
    EqAttrConstraint,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    ReturnLike,
    SymbolOpInterface,
    SymbolTable,
    SymbolUserOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from passviz.compilers.triton.dialects.tt.syntax import (
    PropertySyntax,
    parse_attr_dict_and_type,
    parse_enum,
    parse_operands_with_types,
    print_attr_dict_and_type,
    print_operands_with_types,
)
from passviz.compilers.triton.dialects.tt.traits import (
    GlobalMemoryWriteEffect,
    TensorSizeTrait,
    op_error,
    splat_of,
)
from passviz.compilers.triton.dialects.tt.types import (
    BoolLikeConstr,
    IntTensorConstr,
    ProgramIDDim,
    TritonTypeConstr,
    dims,
    element_type_or_self,
    enum_or_default,
    verify_enum_attr,
)
from passviz.ir.callables import FunctionTypeCallable
from passviz.ir.function_like import FUNCTION_LIKE_FIELDS, FunctionLikeOp, verify_returned_values
from passviz.ir.op_syntax import parse_function, print_function
from passviz.rewrite.calls import DirectCall

# ===----------------------------------------------------------------------=== #
# Function ops
# ===----------------------------------------------------------------------=== #


class CallOpSymbolUserOpInterface(SymbolUserOpInterface):
    """``tt.call`` must name a ``tt.func`` whose type matches the call."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, CallOp)
        callee = SymbolTable.lookup_symbol(op, op.callee)
        if callee is None:
            raise VerifyException(f"'{op.callee}' could not be found in symbol table")
        if not isinstance(callee, FuncOp):
            raise VerifyException(f"'{op.callee}' does not reference a valid function")
        fn_type = callee.function_type
        checks = (
            (fn_type.inputs, op.arguments, "operands", _OPERAND_MISMATCH),
            (fn_type.outputs, op.res, "results", _RESULT_MISMATCH),
        )
        for expected_types, values, what, mismatch in checks:
            if len(expected_types) != len(values):
                raise VerifyException(f"incorrect number of {what} for callee")
            for i, (expected, value) in enumerate(zip(expected_types, values, strict=True)):
                if expected != value.type:
                    raise VerifyException(mismatch.format(i=i, expected=expected, got=value.type))


_OPERAND_MISMATCH = (
    "operand type mismatch: expected operand type {expected}, but provided {got} for operand number {i}"
)
_RESULT_MISMATCH = "result type mismatch at index {i}: expected result type {expected}, but provided {got}"


@irdl_op_definition
class FuncOp(FunctionLikeOp):
    """A Triton function (``tt.func``), spelled and behaving like ``func.func``.

    ``tt.func @f(%a: i32) -> i32 {...}``, ``tt.func public @k(...)``, and
    ``tt.func private @decl(i32) -> i32`` for a declaration without body; an
    absent ``sym_visibility`` means public.
    """

    name = "tt.func"

    traits = traits_def(
        IsolatedFromAbove(),
        SymbolOpInterface(),
        FunctionTypeCallable(),
        HasParent(ModuleOp),
        TensorSizeTrait(),
    )

    def __init__(
        self,
        name: str,
        function_type: FunctionType | tuple[Sequence[Attribute], Sequence[Attribute]],
        region: Region | type[Region.DEFAULT] = Region.DEFAULT,
        visibility: StringAttr | str | None = None,
        *,
        arg_attrs: ArrayAttr[DictionaryAttr] | None = None,
        res_attrs: ArrayAttr[DictionaryAttr] | None = None,
    ):
        if isinstance(visibility, str):
            visibility = StringAttr(visibility)
        if isinstance(function_type, tuple):
            inputs, outputs = function_type
            function_type = FunctionType.from_lists(inputs, outputs)
        if not isinstance(region, Region):
            region = Region(Block(arg_types=function_type.inputs))
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "function_type": function_type,
                "sym_visibility": visibility,
                "arg_attrs": arg_attrs,
                "res_attrs": res_attrs,
            },
            regions=[region],
        )

    @staticmethod
    def external(name: str, input_types: Sequence[Attribute], return_types: Sequence[Attribute]) -> FuncOp:
        """A private declaration ``tt.func private @name(...)`` without body."""
        return FuncOp(name, (input_types, return_types), Region(), "private")

    @property
    def is_declaration(self) -> bool:
        """Whether this is an external declaration (an empty body)."""
        return not self.body.blocks

    @property
    def args(self) -> tuple[BlockArgument, ...]:
        """The entry block arguments; a declaration has none to give."""
        assert not self.is_declaration, "Function declarations have no arguments"
        block = self.body.blocks.first
        assert block is not None
        return block.args

    def get_return_op(self) -> ReturnOp | None:
        """The ``tt.return`` ending the last block, if there is one."""
        last_block = self.body.blocks.last
        if last_block is None:
            return None
        last_op = last_block.last_op
        return last_op if isinstance(last_op, ReturnOp) else None

    def verify_(self) -> None:
        entry = self.body.blocks.first
        if entry is None:
            return
        if self.function_type.inputs.data != tuple(entry.arg_types):
            raise VerifyException(
                "Expected entry block arguments to have the same types as the function input types"
            )

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        parsed = parse_function(parser, FUNCTION_LIKE_FIELDS)
        func = cls(
            parsed.name,
            parsed.function_type,
            parsed.body,
            parsed.visibility,
            arg_attrs=parsed.arg_attrs,
            res_attrs=parsed.res_attrs,
        )
        func.attributes |= parsed.attributes
        return func

    def print(self, printer: Printer) -> None:
        print_function(printer, self, FUNCTION_LIKE_FIELDS)


@irdl_op_definition
class CallOp(IRDLOperation):
    """A direct call of a ``tt.func``.

    ``%r = tt.call @f(%a, %b) : (i32, i32) -> i32``, spelled like ``func.call``.
    """

    name = "tt.call"

    arguments = var_operand_def()
    """The call arguments (Triton's ``operands``)."""

    callee = prop_def(FlatSymbolRefAttrConstr)
    """The called function."""

    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    """Per-argument attribute dictionaries."""

    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    """Per-result attribute dictionaries."""

    res = var_result_def()
    """The call results."""

    traits = traits_def(CallOpSymbolUserOpInterface(), DirectCall(), TensorSizeTrait())

    irdl_options = (ParsePropInAttrDict(),)

    assembly_format = "$callee `(` $arguments `)` attr-dict `:` functional-type($arguments, $res)"

    def __init__(
        self,
        callee: str | SymbolRefAttr,
        arguments: Sequence[SSAValue | Operation],
        return_types: Sequence[Attribute],
    ):
        if isinstance(callee, str):
            callee = SymbolRefAttr(callee)
        super().__init__(
            operands=[arguments],
            result_types=[return_types],
            properties={"callee": callee},
        )


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """The terminator of ``tt.func``.

    ``tt.return`` or ``tt.return %a, %b : i32, f32``; the values must match the
    result types of the enclosing function.
    """

    name = "tt.return"

    srcs = var_operand_def()
    """The returned values."""

    traits = traits_def(HasParent(FuncOp), IsTerminator(), ReturnLike(), Pure(), TensorSizeTrait())

    assembly_format = "attr-dict ($srcs^ `:` type($srcs))?"

    def __init__(self, *return_vals: SSAValue | Operation):
        super().__init__(operands=[return_vals])

    def verify_(self) -> None:
        func = self.parent_op()
        if not isinstance(func, FuncOp):
            return
        verify_returned_values(
            func,
            self.srcs,
            "'tt.return' has {count} operands, but enclosing function (@{name}) returns {expected}",
        )


# ===----------------------------------------------------------------------=== #
# SPMD ops
# ===----------------------------------------------------------------------=== #


class _GridAxisOp(IRDLOperation):
    """``$axis attr-dict `:` type($result)``: an ``i32`` about the launch grid along ``axis``."""

    result = result_def(EqAttrConstraint(i32))
    """The value along ``axis``."""

    axis = prop_def(IntegerAttr[I32])
    """The grid axis (``ProgramIDDim``)."""

    traits = traits_def(Pure(), TensorSizeTrait())

    def __init__(self, axis: ProgramIDDim | int):
        super().__init__(result_types=[i32], properties={"axis": ProgramIDDim(axis).to_attr()})

    @property
    def axis_value(self) -> ProgramIDDim:
        """The grid axis."""
        return enum_or_default(self.axis, ProgramIDDim.X)

    def verify_(self) -> None:
        verify_enum_attr(self.axis, ProgramIDDim, "axis")

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        axis = parse_enum(parser, ProgramIDDim, "axis")
        attributes, result_type = parse_attr_dict_and_type(parser)
        return cls.build(
            result_types=[result_type], properties={"axis": axis.to_attr()}, attributes=attributes
        )

    def print(self, printer: Printer) -> None:
        member = ProgramIDDim.from_attr(self.axis)
        printer.print_string(f" {member.mnemonic if member is not None else self.axis}")
        print_attr_dict_and_type(printer, self, self.result.type)


@irdl_op_definition
class GetProgramIdOp(_GridAxisOp):
    """The index of this program in the launch grid: ``%pid = tt.get_program_id x : i32``."""

    name = "tt.get_program_id"


@irdl_op_definition
class GetNumProgramsOp(_GridAxisOp):
    """The size of the launch grid: ``%n = tt.get_num_programs y : i32``."""

    name = "tt.get_num_programs"


@irdl_op_definition
class MakeRangeOp(PropertySyntax, IRDLOperation, HasFolderInterface):
    """The ``i32`` tensor ``[start, start + 1, ..., end - 1]``.

    ``%r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>``
    """

    name = "tt.make_range"

    result = result_def(IntTensorConstr)
    """The range."""

    start = prop_def(IntegerAttr[I32])
    """The first value."""

    end = prop_def(IntegerAttr[I32])
    """One past the last value."""

    traits = traits_def(Pure(), TensorSizeTrait())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("end", "start")

    def __init__(self, start: int, end: int, result_type: Attribute | None = None):
        if result_type is None:
            result_type = TensorType(i32, [end - start])
        super().__init__(
            result_types=[result_type],
            properties={"start": IntegerAttr(start, i32), "end": IntegerAttr(end, i32)},
        )

    def verify_(self) -> None:
        start, end = self.start.value.data, self.end.value.data
        if start >= end:
            raise op_error(self, "start must be less than end")
        shape = dims(self.result.type)
        if len(shape) != 1:
            raise op_error(self, "return type must be a 1D tensor")
        if end - start != shape[0]:
            raise op_error(
                self,
                f"number of elements in returned tensor, {shape[0]}, must match size of range "
                f"[{start}, {end}), which has {end - start} elements",
            )
        if element_type_or_self(self.result.type) != i32:
            raise op_error(self, "returned tensor must have i32 elements")

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        # make_range(start, start + 1) -> constant(start)
        if self.start.value.data + 1 != self.end.value.data:
            return None
        splat = splat_of(self.result.type, self.start)
        return None if splat is None else (splat,)

    @classmethod
    def parse(cls, parser: Parser) -> MakeRangeOp:
        properties, attributes = cls.parse_properties(parser, order=("start", "end"))
        parser.parse_punctuation(":")
        result_type = parser.parse_type()
        return cls.build(
            result_types=[result_type],
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        self.print_properties(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


# ===----------------------------------------------------------------------=== #
# Debug ops
# ===----------------------------------------------------------------------=== #


@irdl_op_definition
class PrintOp(PropertySyntax, IRDLOperation):
    """Print from the device, as CUDA's ``printf`` does.

    ``tt.print ": x" {hex = false, isSigned = array<i32: 1>} : %x : tensor<16xi32>``
    """

    name = "tt.print"

    args = var_operand_def(TritonTypeConstr)
    """The values printed."""

    prefix = prop_def(StringAttr)
    """The text printed first."""

    hex = prop_def(BoolAttr)
    """Whether to print in hexadecimal."""

    is_signed = prop_def(DenseArrayBase[I32], prop_name="isSigned")
    """Per argument, whether its integers are signed."""

    traits = traits_def(GlobalMemoryWriteEffect(), TensorSizeTrait())

    _ATTR_DICT_PROPERTIES: ClassVar[tuple[str, ...]] = ("hex", "isSigned")

    def __init__(
        self,
        prefix: str,
        args: Sequence[SSAValue | Operation] = (),
        *,
        hex: bool = False,
        is_signed: Sequence[int] = (),
    ):
        super().__init__(
            operands=[args],
            properties={
                "prefix": StringAttr(prefix),
                "hex": IntegerAttr.from_bool(hex),
                "isSigned": DenseArrayBase.from_list(i32, is_signed),
            },
        )

    @classmethod
    def parse(cls, parser: Parser) -> PrintOp:
        # $prefix attr-dict (`:` $args^ `:` type($args))?
        properties, attributes = cls.parse_properties(
            parser, {"prefix": StringAttr(parser.parse_str_literal())}, ("prefix", "hex", "isSigned")
        )
        args: list[SSAValue] = []
        if parser.parse_optional_punctuation(":") is not None:
            args = parse_operands_with_types(parser, optional=False)
        return cls.build(operands=[args], properties=properties, attributes=attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.prefix.data)
        self.print_properties(printer)
        if self.args:
            print_operands_with_types(printer, self.args, " : ")


@irdl_op_definition
class AssertOp(IRDLOperation):
    """Abort the program with ``message`` where ``condition`` is false.

    ``tt.assert %cond, "x must be positive" : tensor<16xi1>``
    """

    name = "tt.assert"

    condition = operand_def(BoolLikeConstr)
    """What must hold."""

    message = prop_def(StringAttr)
    """The message printed when it does not."""

    traits = traits_def(GlobalMemoryWriteEffect(), TensorSizeTrait())

    def __init__(self, condition: SSAValue | Operation, message: str):
        super().__init__(operands=[condition], properties={"message": StringAttr(message)})

    @classmethod
    def parse(cls, parser: Parser) -> AssertOp:
        # $condition `,` $message attr-dict `:` type($condition)
        condition = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        message = parser.parse_str_literal()
        attributes, condition_type = parse_attr_dict_and_type(parser)
        return cls.build(
            operands=[parser.resolve_operand(condition, condition_type)],
            properties={"message": StringAttr(message)},
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.condition)
        printer.print_string(", ")
        printer.print_string_literal(self.message.data)
        print_attr_dict_and_type(printer, self, self.condition.type)
