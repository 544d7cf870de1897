"""xDSL's ``scf`` dialect, with ``scf.execute_region`` and ``scf.while`` read and printed as MLIR does,
and ``scf.if`` verified as MLIR verifies it.

xDSL prints ``scf.execute_region -> (i32)`` and hides a result-less region's
``scf.yield``; MLIR prints ``-> i32`` and always shows the terminator.  MLIR
prints an ``scf.while`` without operands as ``scf.while : () -> () {``, with
no ``()`` before the colon, which xDSL cannot read.  The trace shows IR the
way the compilers it covers print it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType, i1
from xdsl.dialects.utils import parse_assignment
from xdsl.ir import Attribute, Region
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import SingleBlockImplicitTerminator, ensure_terminator
from xdsl.utils.exceptions import VerifyException

from passviz.compilers.mlir.dialects import replacing
from passviz.ir.op_syntax import parse_result_types
from passviz.ir.xdsl_compat import print_while_pair


class ExecuteRegionOp(scf.ExecuteRegionOp):
    """``scf.execute_region``, printed in MLIR's syntax, and verified as MLIR verifies it: each
    ``scf.yield`` gives the results' types."""

    def verify_(self) -> None:
        super().verify_()
        edge = "'scf.execute_region' op along control flow edge from Operation scf.yield to parent results"
        for block in self.region.blocks:
            last = block.last_op
            if isinstance(last, scf.YieldOp):
                check_edge(edge, last.arguments.types, self.outs.types)

    def print(self, printer: Printer) -> None:
        types = self.outs.types
        if len(types) == 1:
            printer.print_string(" -> ")
            printer.print_attribute(types[0])
        elif types:
            printer.print_string(" -> (")
            printer.print_list(types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(self.region, print_entry_block_args=False, print_block_terminators=True)
        if self.attributes:
            printer.print_attr_dict(self.attributes)


class WhileOp(scf.WhileOp):
    """``scf.while``, whose ``(%arg = %init, ...)`` list MLIR leaves out when it is empty."""

    def print(self, printer: Printer) -> None:
        if self.arguments:
            printer.print_string(" (")
            printer.print_list(
                zip(self.before_region.block.args, self.arguments, strict=True),
                lambda pair: print_while_pair(printer, pair),
            )
            printer.print_string(")")
        printer.print_string(" : ")
        printer.print_operation_type(self)
        printer.print_string(" ")
        printer.print_region(self.before_region, print_entry_block_args=False)
        printer.print_string(" do ")
        printer.print_region(self.after_region)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)

    def verify_(self) -> None:
        # MLIR's WhileOp::verify: each region ends with its terminator, before anything is compared.
        for region, terminator, which in (
            (self.before_region, scf.ConditionOp, "before"),
            (self.after_region, scf.YieldOp, "after"),
        ):
            first = region.blocks.first
            if first is None or not isinstance(first.last_op, terminator):
                raise VerifyException(f"expects the '{which}' region to terminate with '{terminator.name}'")
        before, after = self.before_region.block, self.after_region.block
        condition, yield_ = before.last_op, after.last_op
        assert isinstance(condition, scf.ConditionOp) and isinstance(yield_, scf.YieldOp)
        # Then RegionBranchOpInterface's types along each control flow edge, as MLIR orders them.
        edge = "'scf.while' op along control flow edge from"
        check_edge(f"{edge} parent operands to Region #0", self.arguments.types, before.arg_types)
        check_edge(f"{edge} Operation scf.condition to Region #1", condition.args.types, after.arg_types)
        check_edge(f"{edge} Operation scf.condition to parent results", condition.args.types, self.res.types)
        check_edge(f"{edge} Operation scf.yield to Region #0", yield_.arguments.types, before.arg_types)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        def parse_assignment() -> tuple[Parser.UnresolvedArgument, UnresolvedOperand]:
            arg = parser.parse_argument(expect_type=False)
            parser.parse_punctuation("=")
            return arg, parser.parse_unresolved_operand()

        assignments = (
            parser.parse_optional_comma_separated_list(parser.Delimiter.PAREN, parse_assignment) or []
        )
        parser.parse_punctuation(":")
        type_pos = parser.pos
        function_type = parser.parse_function_type()
        inputs = function_type.inputs.data
        if len(assignments) != len(inputs):
            parser.raise_error(
                f"{len(assignments)} initial values for {len(inputs)} operand types", type_pos, parser.pos
            )
        block_args = tuple(arg.resolve(t) for (arg, _), t in zip(assignments, inputs, strict=True))
        arguments = tuple(
            parser.resolve_operand(operand, t) for (_, operand), t in zip(assignments, inputs, strict=True)
        )
        before_region = parser.parse_region(block_args)
        parser.parse_characters("do")
        after_region = parser.parse_region()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(arguments, function_type.outputs.data, before_region, after_region)
        if attrs is not None:
            op.attributes |= attrs.data
        return op


class ForOp(scf.ForOp):
    """``scf.for``, read as MLIR reads it: the bounds and initial values are resolved after the
    body, so that a value of the wrong type is found where the body uses it first."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        unresolved_indvar = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        lb = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        ub = parser.parse_unresolved_operand()
        parser.parse_keyword("step")
        step = parser.parse_unresolved_operand()
        pos = parser.pos
        unresolved_iter_args: list[Parser.UnresolvedArgument] = []
        inits: list[UnresolvedOperand] = []
        types: list[Attribute] = []
        if parser.parse_optional_keyword("iter_args"):
            for iter_arg, init in parser.parse_comma_separated_list(
                Parser.Delimiter.PAREN, lambda: parse_assignment(parser)
            ):
                unresolved_iter_args.append(iter_arg)
                inits.append(init)
            parser.parse_punctuation("->")
            types = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_attribute)
        if len(inits) != len(types):
            parser.raise_error(
                "mismatch in number of loop-carried values and defined values", pos, parser.pos
            )
        iter_args = [arg.resolve(t) for arg, t in zip(unresolved_iter_args, types, strict=True)]
        indvar_type = parser.parse_type() if parser.parse_optional_punctuation(":") else IndexType()
        indvar = unresolved_indvar.resolve(indvar_type)
        body = parser.parse_region((indvar, *iter_args))
        bounds = [parser.resolve_operand(bound, indvar_type) for bound in (lb, ub, step)]
        init_values = [parser.resolve_operand(init, t) for init, t in zip(inits, types, strict=True)]
        attrs = parser.parse_optional_attr_dict()
        lb_value, ub_value, step_value = bounds
        op = cls(lb_value, ub_value, step_value, init_values, body)
        op.attributes |= attrs
        if not iter_args:
            for trait in op.get_traits_of_type(SingleBlockImplicitTerminator):
                ensure_terminator(op, trait)
        return op


class IfOp(scf.IfOp):
    """``scf.if``, verified as MLIR verifies it: an ``else`` where it has results, and each
    region's ``scf.yield`` giving exactly the results' types (xDSL checks neither, and a pattern
    such as ``ConvertTrivialIfToSelect`` then fails on the input instead of the verifier); its
    results read as MLIR reads them, ``-> i32`` as well as ``-> (i32)``."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        cond = parser.parse_operand(i1)
        return_types = parse_result_types(parser)
        then_region = cls.parse_region_with_yield(parser)
        else_region = (
            cls.parse_region_with_yield(parser) if parser.parse_optional_keyword("else") else Region()
        )
        return cls(cond, return_types, then_region, else_region, parser.parse_optional_attr_dict())

    def verify_(self) -> None:
        super().verify_()
        results = self.output.types
        if results and not self.false_region.blocks:
            raise VerifyException("'scf.if' op must have an else block if defining values")
        for region in (self.true_region, self.false_region):
            yielded = _yielded_types(region)
            if yielded is None:
                continue
            check_edge(
                "'scf.if' op along control flow edge from Operation scf.yield to Operation scf.if",
                yielded,
                results,
            )


def check_edge(edge: str, given: Sequence[Attribute], wanted: Sequence[Attribute]) -> None:
    """MLIR's check of one control flow edge of a ``RegionBranchOpInterface`` op: the values it
    passes are as many as its successor takes, of their types (``edge`` says which, for the message)."""
    if len(given) != len(wanted):
        raise VerifyException(
            f"{edge}: region branch point has {len(given)} operands, "
            f"but region successor needs {len(wanted)} inputs"
        )
    for index, (got, want) in enumerate(zip(given, wanted, strict=True)):
        if got != want:
            raise VerifyException(
                f"{edge}: successor operand type #{index} '{got}' "
                f"should match successor input type #{index} '{want}'"
            )


def _yielded_types(region: Region) -> tuple[Attribute, ...] | None:
    """The types a region's ``scf.yield`` gives; None for a region without one (empty, or
    ended by another op, which the terminator checks report)."""
    block = region.blocks.first
    last = block.last_op if block is not None else None
    return tuple(last.operand_types) if isinstance(last, scf.YieldOp) else None


_OURS: dict[type, type] = {
    scf.ExecuteRegionOp: ExecuteRegionOp,
    scf.WhileOp: WhileOp,
    scf.IfOp: IfOp,
    scf.ForOp: ForOp,
}
"""xDSL's ops that passviz replaces, and their replacements."""

SCF = replacing(scf.Scf, _OURS)
"""The scf dialect as passviz registers it."""
