"""IREE's ``flow`` dialect as IREE 3.13 prints it: dispatch regions, workgroups, executables.

A ``flow.dispatch.region`` groups ops that will run as one dispatch (the
fusion decisions of dispatch creation); ``flow.dispatch.workgroups`` is the
same region made isolated, its tensors passed as
``!iree_tensor_ext.dispatch.tensor`` arguments; outlining moves each body into
a ``flow.executable`` called by ``flow.dispatch``.  Both dispatch ops may have
a ``count`` region computing the workgroup count from the workload.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self, TypeVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

from passviz.compilers.iree.dialects.hal import parse_dims, parse_shaped_type, print_dims, print_shaped_type
from passviz.compilers.iree.dialects.util import print_visibility
from passviz.ir.mlir_parser import MLIRParser
from passviz.ir.op_syntax import (
    parse_attr_dict_and_type,
    parse_index_operands,
    print_attr_dict_and_type,
    print_operand_group,
)
from passviz.ir.xdsl_compat import print_new_line


def _dynamic_count(type_: Attribute) -> int:
    """How many ``{%d}`` dimensions a value of ``type_`` carries."""
    if not isinstance(type_, TensorType):
        return 0
    return sum(1 for d in type_.get_shape() if d in (DYNAMIC_INDEX, -1))


def _print_shaped_types(
    printer: Printer,
    types: Sequence[Attribute],
    dims: Sequence[SSAValue],
    tied: Sequence[int] = (),
    arguments: Sequence[SSAValue] = (),
) -> None:
    """``t0{%d0}, t1`` taking each tensor's dynamic dimensions from ``dims`` in order;
    a result ``tied`` to an argument is written as that argument (``%a{%d}``)."""
    rest = list(dims)
    for index, type_ in enumerate(types):
        printer.print_string(", " if index else "")
        tie = tied[index] if index < len(tied) else -1
        if tie >= 0:
            printer.print_operand(arguments[tie])
        else:
            printer.print_attribute(type_)
        count = _dynamic_count(type_)
        print_dims(printer, rest[:count])
        rest = rest[count:]


def _parse_shaped_types(parser: Parser) -> tuple[list[Attribute], list[SSAValue]]:
    """``(t0{%d0}, t1)``: the types and, in order, their dynamic dimensions."""
    types: list[Attribute] = []
    dims: list[SSAValue] = []

    def one() -> None:
        types.append(parser.parse_type())
        dims.extend(parse_dims(parser))

    parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)
    return types, dims


def _parse_workload(parser: Parser) -> Sequence[SSAValue]:
    """``[%a, %b]`` of index values, or nothing."""
    return parse_index_operands(parser, "[", "]")


def _print_workload(printer: Printer, workload: Sequence[SSAValue]) -> None:
    print_operand_group(printer, workload, "[", "]")


_OpT = TypeVar("_OpT", bound=Operation)


def _with_attributes(op: _OpT, attrs: DictionaryAttr | None) -> _OpT:
    """``op`` given the ``attributes {...}`` it was parsed with, if any."""
    if attrs is not None:
        op.attributes |= attrs.data
    return op


def _parse_count_region(parser: Parser, keyword: str = "count") -> Region:
    """``count(%a: index, ...) -> (index, index, index) {...}``, or an empty region."""
    if parser.parse_optional_keyword(keyword) is None:
        return Region()
    args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, lambda: parser.parse_argument())
    parser.parse_punctuation("->")
    parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
    return parser.parse_region(args)


def _print_count_region(printer: Printer, region: Region, keyword: str = "count") -> None:
    block = region.blocks.first
    if block is None:
        return
    printer.print_string(f" {keyword}(")
    printer.print_list(block.args, printer.print_block_argument)
    printer.print_string(") -> (index, index, index) ")
    printer.print_region(region, print_entry_block_args=False)


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """``flow.return %v : tensor<4xf32>``: ends a dispatch region, workgroups body or count region."""

    name = "flow.return"

    operands_ = var_operand_def()
    """The values returned."""

    traits = traits_def(IsTerminator())
    assembly_format = "attr-dict ($operands_^ `:` type($operands_))?"

    def __init__(self, *values: SSAValue) -> None:
        super().__init__(operands=[values])

    def verify_(self) -> None:
        # IREE's checks of what a flow.return gives back, reported at the flow.return: a count
        # region returns the workgroup count (three indices), a dispatch region's body its results.
        block = self.parent_block()
        region = block.parent if block is not None else None
        owner = region.parent if region is not None else None
        values = self.operands_
        if isinstance(owner, DispatchRegionOp | DispatchWorkgroupsOp | ExecutableExportOp):
            if region is owner.workgroup_count:
                if len(values) != 3 or not all(isinstance(value.type, IndexType) for value in values):
                    raise VerifyException(
                        "'flow.return' op workgroup count region must return the XYZ dimension counts"
                    )
                return
        if isinstance(owner, DispatchRegionOp) and region is owner.body:
            results = owner.result.types
            if len(values) != len(results):
                raise VerifyException(
                    f"'flow.return' op number of results ({len(results)}) does not match "
                    f"number of returned values ({len(values)})"
                )
            for index, (value, result) in enumerate(zip(values, results, strict=True)):
                if value.type != result:
                    raise VerifyException(
                        f"'flow.return' op type of returned value #{index} ({value.type}) does not match "
                        f"the result type ({result})"
                    )


@irdl_op_definition
class DispatchRegionOp(IRDLOperation):
    """``%r = flow.dispatch.region[%w] -> (tensor<?xf32>{%d}) { ... flow.return %v } count(...) {...}``.

    Not isolated: the body uses values from above, which
    ``convert-dispatch-regions-to-workgroups`` turns into arguments.
    """

    name = "flow.dispatch.region"

    result_dims = var_operand_def(IndexType)
    """The results' dynamic dimensions."""
    workload = var_operand_def(IndexType)
    """The workload the count region receives."""
    result = var_result_def()
    """The region's results."""
    body = region_def()
    """The ops of the dispatch."""
    workgroup_count = region_def()
    """Computes the workgroup count from the workload; may be empty."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        result_types: Sequence[Attribute],
        result_dims: Sequence[SSAValue],
        workload: Sequence[SSAValue],
        body: Region,
        count: Region | None = None,
    ) -> None:
        super().__init__(
            operands=[result_dims, workload],
            result_types=[result_types],
            regions=[body, count if count is not None else Region()],
        )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        # IREE's parser resolves the dims and the workload after the regions, so a value of the
        # wrong type is reported where the body uses it first.
        workload: list[UnresolvedOperand] = []
        if parser.parse_optional_punctuation("[") is not None:
            workload = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_unresolved_operand
            )
            parser.parse_punctuation("]")
        parser.parse_punctuation("->")
        types: list[Attribute] = []
        unresolved_dims: list[UnresolvedOperand] = []

        def one() -> None:
            types.append(parser.parse_type())
            if parser.parse_optional_punctuation("{") is not None:
                unresolved_dims.extend(
                    parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
                )
                parser.parse_punctuation("}")

        parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        count = _parse_count_region(parser)
        dims = [parser.resolve_operand(dim, IndexType()) for dim in unresolved_dims]
        resolved = [parser.resolve_operand(value, IndexType()) for value in workload]
        return _with_attributes(cls(types, dims, resolved, body, count), attrs)

    def print(self, printer: Printer) -> None:
        _print_workload(printer, self.workload)
        printer.print_string(" -> (")
        _print_shaped_types(printer, self.result.types, self.result_dims)
        printer.print_string(")")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body)
        _print_count_region(printer, self.workgroup_count)


def _parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    operands = parser.parse_optional_comma_separated_list(
        parser.Delimiter.PAREN, parser.parse_unresolved_operand
    )
    return operands or []


def _parse_results(
    parser: Parser, arguments: Sequence[SSAValue], names: Sequence[str]
) -> tuple[list[Attribute], list[SSAValue], list[int]]:
    """``t{%d}`` / ``%tied{%d}`` / ``(t0, %arg1)``: the result types, their dims and ties."""
    types: list[Attribute] = []
    dims: list[SSAValue] = []
    tied: list[int] = []

    def one() -> None:
        operand = parser.parse_optional_unresolved_operand()
        if operand is None:
            types.append(parser.parse_type())
            tied.append(-1)
        else:
            name = operand.span.text
            if name not in names:
                parser.raise_error(f"{name} is not an argument of the dispatch")
            index = names.index(name)
            types.append(arguments[index].type)
            tied.append(index)
        dims.extend(parse_dims(parser))

    if parser.parse_optional_punctuation("(") is not None:
        if parser.parse_optional_punctuation(")") is None:
            parser.parse_comma_separated_list(parser.Delimiter.NONE, one)
            parser.parse_punctuation(")")
    else:
        one()
    return types, dims, tied


def _print_results(
    printer: Printer,
    types: Sequence[Attribute],
    dims: Sequence[SSAValue],
    tied: Sequence[int],
    arguments: Sequence[SSAValue],
) -> None:
    parens = len(types) != 1
    printer.print_string("(" if parens else "")
    _print_shaped_types(printer, types, dims, tied, arguments)
    printer.print_string(")" if parens else "")


def _parse_signature(
    parser: Parser, attr_dict: bool
) -> tuple[
    Sequence[SSAValue], list[SSAValue], list[Attribute], list[SSAValue], list[int], dict[str, Attribute]
]:
    """``(%a, %b) : (t0{%d}, t1) -> (t2{%e}, %b)``, with the attr-dict before the colon
    where ``attr_dict``: the arguments, their dims, the result types, their dims, the
    results' ties and the attributes."""
    names = _parse_operand_list(parser)
    attributes = parser.parse_optional_attr_dict() if attr_dict else {}
    parser.parse_punctuation(":")
    types, dims = _parse_shaped_types(parser)
    arguments = parser.resolve_operands(names, types, parser.pos)
    parser.parse_punctuation("->")
    result_types, result_dims, tied = _parse_results(parser, arguments, [n.span.text for n in names])
    return arguments, dims, result_types, result_dims, tied, attributes


def _tied_attr(tied: Sequence[int]) -> ArrayAttr[IntegerAttr]:
    return ArrayAttr([IntegerAttr(t, IndexType()) for t in tied])


def _tied_list(attr: ArrayAttr[IntegerAttr] | None, results: int) -> list[int]:
    if attr is None:
        return [-1] * results
    return [t.value.data for t in attr.data]


class _DispatchOperands(IRDLOperation):
    """The operands ``flow.dispatch.workgroups`` and ``flow.dispatch`` share, in their order."""

    workload = var_operand_def(IndexType)
    """The workload the count region (the export's, for ``flow.dispatch``) receives."""
    arguments = var_operand_def()
    """The values passed in."""
    argument_dims = var_operand_def(IndexType)
    """The arguments' dynamic dimensions."""
    result_dims = var_operand_def(IndexType)
    """The results' dynamic dimensions."""
    result = var_result_def()
    """The results."""
    tied_operands = opt_prop_def(ArrayAttr[IntegerAttr])
    """For each result the argument it writes in place, or -1."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def _print_signature(self, printer: Printer, attr_dict: bool) -> None:
        """What ``_parse_signature`` reads."""
        printer.print_string("(")
        printer.print_list(self.arguments, printer.print_operand)
        printer.print_string(")")
        if attr_dict:
            printer.print_op_attributes(self.attributes)
        printer.print_string(" : (")
        _print_shaped_types(printer, self.arguments.types, self.argument_dims)
        printer.print_string(") -> ")
        tied = _tied_list(self.tied_operands, len(self.result))
        _print_results(printer, self.result.types, self.result_dims, tied, self.arguments)


@irdl_op_definition
class DispatchWorkgroupsOp(_DispatchOperands):
    """``%r = flow.dispatch.workgroups[%x](%a) : (tensor<4xf32>) -> tensor<4xf32> = (%in, %out) {...}``.

    Isolated from above: each tensor operand and result is a block argument of
    ``!iree_tensor_ext.dispatch.tensor`` type, other operands pass as they are.
    """

    name = "flow.dispatch.workgroups"

    workgroup_body = region_def()
    """The dispatch's body."""
    workgroup_count = region_def()
    """Computes the workgroup count from the workload; may be empty."""

    traits = traits_def(IsolatedFromAbove())

    def __init__(
        self,
        workload: Sequence[SSAValue],
        arguments: Sequence[SSAValue],
        argument_dims: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        result_dims: Sequence[SSAValue],
        tied: Sequence[int],
        body: Region,
        count: Region | None = None,
    ) -> None:
        super().__init__(
            operands=[workload, arguments, argument_dims, result_dims],
            result_types=[result_types],
            regions=[body, count if count is not None else Region()],
            properties={"tied_operands": _tied_attr(tied)},
        )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        workload = _parse_workload(parser)
        arguments, argument_dims, types, dims, tied, _ = _parse_signature(parser, attr_dict=False)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        parser.parse_punctuation("=")
        block_args = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parser.parse_argument()
        )
        # IREE reads the body as a scope of names of its own (enableNameShadowing).
        if isinstance(parser, MLIRParser):
            body = parser.parse_region_with_own_names(block_args)
        else:
            body = parser.parse_region(block_args)
        count = _parse_count_region(parser)
        return _with_attributes(
            cls(workload, arguments, argument_dims, types, dims, tied, body, count), attrs
        )

    def print(self, printer: Printer) -> None:
        _print_workload(printer, self.workload)
        self._print_signature(printer, attr_dict=False)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" =")
        with printer.indented():
            print_new_line(printer)
        block = self.workgroup_body.blocks.first
        printer.print_string("(")
        if block is not None:
            printer.print_list(block.args, printer.print_block_argument)
        printer.print_string(") ")
        printer.print_region(self.workgroup_body, print_entry_block_args=False)
        _print_count_region(printer, self.workgroup_count)


@irdl_op_definition
class ExecutableEndOp(IRDLOperation):
    """The implicit terminator of a ``flow.executable``."""

    name = "flow.executable_end"

    traits = traits_def(IsTerminator())


class _SymbolOp(IRDLOperation):
    """``flow.executable`` and ``flow.executable.export``: `` $visibility $sym_name ...``,
    the visibility printed always."""

    sym_name = prop_def(SymbolNameConstraint())
    """The symbol's name."""
    sym_visibility = opt_prop_def(StringAttr)
    """Its visibility (public where absent)."""

    @staticmethod
    def _parse_symbol(parser: Parser) -> tuple[StringAttr | None, StringAttr]:
        """The visibility, if written, and the name."""
        return parser.parse_optional_visibility_keyword(), parser.parse_symbol_name()

    def _set_parsed(self, visibility: StringAttr | None, attrs: DictionaryAttr | None) -> Self:
        """Give the op the visibility and the ``attributes {...}`` it was parsed with."""
        if visibility is not None:
            self.properties["sym_visibility"] = visibility
        return _with_attributes(self, attrs)

    def _print_symbol(self, printer: Printer) -> None:
        print_visibility(printer, self.sym_visibility)
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)


@irdl_op_definition
class ExecutableOp(_SymbolOp):
    """``flow.executable private @ex { flow.executable.export ... builtin.module {...} }``."""

    name = "flow.executable"

    body = region_def("single_block")
    """Its exports and the module of functions they name."""

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), SymbolTable(), NoTerminator())

    def __init__(self, name: str, visibility: str | None = "private") -> None:
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "sym_visibility": StringAttr(visibility) if visibility is not None else None,
            },
            regions=[Region(Block())],
        )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        visibility, name = cls._parse_symbol(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        if not body.blocks:
            body.add_block(Block())
        return cls.create(properties={"sym_name": name}, regions=[body])._set_parsed(visibility, attrs)

    def print(self, printer: Printer) -> None:
        self._print_symbol(printer)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_block_terminators=False)


@irdl_op_definition
class ExecutableExportOp(_SymbolOp):
    """``flow.executable.export public @fn workgroups(%w: index) -> (index, index, index) {...}``."""

    name = "flow.executable.export"

    function_ref = prop_def(SymbolRefAttr)
    """The function in the executable's module it exports (printed ``as(@fn)`` where it differs)."""
    workgroup_count = region_def()
    """Computes the workgroup count; may be empty."""

    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(self, name: str, function: str, count: Region | None = None) -> None:
        super().__init__(
            properties={"sym_name": StringAttr(name), "function_ref": SymbolRefAttr(function)},
            regions=[count if count is not None else Region()],
        )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        visibility, name = cls._parse_symbol(parser)
        function = name.data
        if parser.parse_optional_keyword("as") is not None:
            with parser.in_parens():
                function = parser.parse_symbol_name().data
        count = _parse_count_region(parser, "workgroups")
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return cls(name.data, function, count)._set_parsed(visibility, attrs)

    def print(self, printer: Printer) -> None:
        self._print_symbol(printer)
        function = self.function_ref.root_reference.data
        if function != self.sym_name.data:
            printer.print_string(" as(")
            printer.print_symbol_name(function)
            printer.print_string(")")
        _print_count_region(printer, self.workgroup_count, "workgroups")
        printer.print_op_attributes(self.attributes, print_keyword=True)


@irdl_op_definition
class DispatchOp(_DispatchOperands):
    """``%r = flow.dispatch @ex::@fn[%w](%a) : (tensor<4xf32>) -> tensor<4xf32>``: runs an outlined export."""

    name = "flow.dispatch"

    entry_points = prop_def(ArrayAttr[SymbolRefAttr])
    """The export called (``@executable::@export``)."""

    def __init__(
        self,
        entry: SymbolRefAttr,
        workload: Sequence[SSAValue],
        arguments: Sequence[SSAValue],
        argument_dims: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        result_dims: Sequence[SSAValue],
        tied: Sequence[int],
    ) -> None:
        super().__init__(
            operands=[workload, arguments, argument_dims, result_dims],
            result_types=[result_types],
            properties={"entry_points": ArrayAttr([entry]), "tied_operands": _tied_attr(tied)},
        )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        entry = parser.parse_attribute()
        if not isinstance(entry, SymbolRefAttr):
            parser.raise_error("expected @executable::@export")
        workload = _parse_workload(parser)
        arguments, dims, result_types, result_dims, tied, attrs = _parse_signature(parser, attr_dict=True)
        op = cls(entry, workload, arguments, dims, result_types, result_dims, tied)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.entry_points.data[0])
        _print_workload(printer, self.workload)
        self._print_signature(printer, attr_dict=True)


def _parse_shaped_operand(
    parser: Parser,
) -> tuple[UnresolvedOperand, dict[str, Attribute], Attribute, Sequence[SSAValue]]:
    """``%v {attrs} : tensor<?xf32>{%d}``: the operand, the attributes, its type and the values
    of its dynamic dimensions."""
    operand = parser.parse_unresolved_operand()
    attrs, type_ = parse_attr_dict_and_type(parser)
    return operand, attrs, type_, parse_dims(parser)


def _print_shaped_operand(
    printer: Printer, op: IRDLOperation, value: SSAValue, dims: Sequence[SSAValue]
) -> None:
    """Print ``value`` and ``op``'s attributes as ``_parse_shaped_operand`` reads them."""
    printer.print_string(" ")
    printer.print_operand(value)
    print_attr_dict_and_type(printer, op.attributes, value.type)
    print_dims(printer, dims)


class _TieShapeOp(IRDLOperation):
    """What ``flow.tensor.tie_shape`` and ``flow.dispatch.tie_shape`` share:
    ``%t = <op> %v : <type>{%d}``."""

    operand = operand_def()
    """The tensor."""
    dynamic_dims = var_operand_def(IndexType)
    """Its dynamic dimensions."""
    result = result_def()
    """The same tensor."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        operand, attrs, type_, dims = _parse_shaped_operand(parser)
        return cls(
            operands=[parser.resolve_operand(operand, type_), dims], result_types=[type_], attributes=attrs
        )

    def print(self, printer: Printer) -> None:
        _print_shaped_operand(printer, self, self.operand, self.dynamic_dims)


@irdl_op_definition
class TensorTieShapeOp(_TieShapeOp):
    """``%t = flow.tensor.tie_shape %v : tensor<?xf32>{%d}``: names a tensor's dynamic dimensions."""

    name = "flow.tensor.tie_shape"

    operand = operand_def(TensorType)
    """The tensor."""
    result = result_def(TensorType)
    """The same tensor."""


@irdl_op_definition
class DispatchTieShapeOp(_TieShapeOp):
    """``%t = flow.dispatch.tie_shape %arg : !iree_tensor_ext.dispatch.tensor<...>{%d}``: names the
    dynamic dimensions of a dispatch tensor argument inside a workgroups body."""

    name = "flow.dispatch.tie_shape"


@irdl_op_definition
class TensorReshapeOp(IRDLOperation):
    """``%r = flow.tensor.reshape %v : tensor<?x4xf32>{%d} -> tensor<?xf32>{%e}``."""

    name = "flow.tensor.reshape"

    source = operand_def(TensorType)
    """The tensor reshaped."""
    source_dims = var_operand_def(IndexType)
    """Its dynamic dimensions."""
    result_dims = var_operand_def(IndexType)
    """The result's dynamic dimensions."""
    result = result_def(TensorType)
    """The reshaped tensor."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        source, attrs, source_type, source_dims = _parse_shaped_operand(parser)
        parser.parse_punctuation("->")
        result_type, result_dims = parse_shaped_type(parser)
        return cls(
            operands=[parser.resolve_operand(source, source_type), source_dims, result_dims],
            result_types=[result_type],
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        _print_shaped_operand(printer, self, self.source, self.source_dims)
        printer.print_string(" -> ")
        print_shaped_type(printer, self.result.type, self.result_dims)


Flow = Dialect(
    "flow",
    [
        ReturnOp,
        DispatchRegionOp,
        DispatchWorkgroupsOp,
        ExecutableOp,
        ExecutableEndOp,
        ExecutableExportOp,
        DispatchOp,
        TensorTieShapeOp,
        DispatchTieShapeOp,
        TensorReshapeOp,
    ],
    [],
)
"""IREE's flow dialect, the ops dispatch creation and outlining use."""
