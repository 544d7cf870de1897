"""xDSL's ``scf`` dialect, with ``scf.execute_region`` and ``scf.while`` read and printed as MLIR does,
and ``scf.if`` verified as MLIR verifies it.

xDSL prints ``scf.execute_region -> (i32)`` and hides a result-less region's
``scf.yield``; MLIR prints ``-> i32`` and always shows the terminator.  MLIR
prints an ``scf.while`` without operands as ``scf.while : () -> () {``, with
no ``()`` before the colon, which xDSL cannot read.  The trace shows IR the
way the compilers it covers print it.
"""

from __future__ import annotations

from typing import Self

from xdsl.dialects import scf
from xdsl.ir import Attribute, Dialect, Region
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from passviz.ir.xdsl_compat import print_while_pair


class ExecuteRegionOp(scf.ExecuteRegionOp):
    """``scf.execute_region``, printed in MLIR's syntax."""

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
        super().verify_()

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


class IfOp(scf.IfOp):
    """``scf.if``, verified as MLIR verifies it: an ``else`` where it has results, and each
    region's ``scf.yield`` giving exactly the results' types (xDSL checks neither, and a pattern
    such as ``ConvertTrivialIfToSelect`` then fails on the input instead of the verifier)."""

    def verify_(self) -> None:
        super().verify_()
        results = self.output.types
        if results and not self.false_region.blocks:
            raise VerifyException("'scf.if' op must have an else block if defining values")
        for region in (self.true_region, self.false_region):
            yielded = _yielded_types(region)
            if yielded is None:
                continue
            edge = "'scf.if' op along control flow edge from Operation scf.yield to Operation scf.if: "
            if len(yielded) != len(results):
                raise VerifyException(
                    f"{edge}region branch point has {len(yielded)} operands, "
                    f"but region successor needs {len(results)} inputs"
                )
            for index, (got, wanted) in enumerate(zip(yielded, results, strict=True)):
                if got != wanted:
                    raise VerifyException(
                        f"{edge}successor operand type #{index} '{got}' should match "
                        f"successor input type #{index} '{wanted}'"
                    )


def _yielded_types(region: Region) -> tuple[Attribute, ...] | None:
    """The types a region's ``scf.yield`` gives; None for a region without one (empty, or
    ended by another op, which the terminator checks report)."""
    block = region.blocks.first
    last = block.last_op if block is not None else None
    return tuple(last.operand_types) if isinstance(last, scf.YieldOp) else None


_OURS: dict[type, type] = {scf.ExecuteRegionOp: ExecuteRegionOp, scf.WhileOp: WhileOp, scf.IfOp: IfOp}
"""xDSL's ops that passviz replaces, and their replacements."""

SCF = Dialect(
    "scf",
    [_OURS.get(op, op) for op in scf.Scf.operations],
    list(scf.Scf.attributes),
)
"""The scf dialect as passviz registers it."""
