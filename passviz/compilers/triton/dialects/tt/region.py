"""Ops of the ``tt`` dialect with a combine region, and their terminators.

``tt.reduce``, ``tt.scan`` and ``tt.map_elementwise`` have no custom syntax
and print in generic form.  One check is stricter than Triton 3.6: a
``tt.reduce``/``tt.scan`` axis must be in range (Triton added that check after
3.6), as inferring the result type needs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from xdsl.dialects.builtin import I32, BoolAttr, IntegerAttr, TensorType, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    MemoryEffectKind,
    Pure,
    RecursiveMemoryEffect,
    ReturnLike,
    get_effects,
)
from xdsl.utils.exceptions import VerifyException

from passviz.compilers.triton.dialects.tt.syntax import (
    parse_operand_list,
    parse_type_list,
    print_attr_dict_with_properties,
    print_operands,
    print_types,
    resolve,
)
from passviz.compilers.triton.dialects.tt.traits import (
    SameOperandsAndResultEncoding,
    SameOperandsAndResultShape,
    SameOperandsEncoding,
    SameOperandsShape,
    TensorSizeTrait,
    op_error,
    verify_inferred_types,
)
from passviz.compilers.triton.dialects.tt.types import (
    LayoutInferenceError,
    TensorConstr,
    TritonTypeConstr,
    dims,
    element_type_or_self,
    inferred_encoding,
)
from passviz.ir.hints import isa


def _reduce_result_type(src_type: Attribute, axis: int) -> Attribute:
    """A reduction's result type: ``src_type`` without ``axis``; a scalar from 1D."""
    assert isa(src_type, TensorType[Attribute])
    shape = list(src_type.get_shape())
    del shape[axis]
    if not shape:
        return src_type.get_element_type()
    encoding = inferred_encoding(src_type, lambda e: e.reduce_encoding(axis))
    return TensorType(src_type.get_element_type(), shape, encoding)


def _verify_reduce_scan(op: Operation, srcs: Sequence[SSAValue], axis: int) -> None:
    """Triton's ``verifyReduceScan``: operands, results and axis agree."""
    if not srcs:
        raise op_error(op, "must have at least 1 operand")
    if len(srcs) != len(op.results):
        raise op_error(op, "must have the same number of inputs as outputs")
    first_rank = 0
    for src in srcs:
        rank = len(dims(src.type))
        if not 0 <= axis < rank:
            raise op_error(op, f"axis out of bounds for operand rank {rank}")
        if first_rank == 0:
            first_rank = rank
        elif rank != first_rank:
            raise op_error(op, f"all operands must have the same rank, but got ranks {first_rank} and {rank}")
    for src, result in zip(srcs, op.results, strict=True):
        if element_type_or_self(src.type) != element_type_or_self(result.type):
            raise op_error(op, "operand types and result types must agree")


def _verify_combine_region(
    op: Operation, srcs: Sequence[SSAValue], region: Region, return_type: type[Operation]
) -> None:
    """Triton's ``verifyRegionsImpl``: the combiner takes two sets of elements
    and returns one set through ``return_type``."""
    elements = [element_type_or_self(src.type) for src in srcs]
    block = region.blocks.first
    if block is None:
        raise op_error(op, "combine region must have a block")
    arg_types = block.arg_types
    if len(arg_types) != 2 * len(srcs):
        raise op_error(
            op,
            f"nested block must take {2 * len(srcs)} arguments, but given block with "
            f"{len(arg_types)} arguments",
        )
    for i, arg_type in enumerate(arg_types):
        if arg_type != elements[i % len(srcs)]:
            raise op_error(
                op,
                f"type mismatch on combine operation. Expected argument {i} to have type "
                f"'{elements[i % len(srcs)]}' but got '{arg_type}'",
            )
    terminator = block.last_op
    if not isinstance(terminator, return_type):
        raise op_error(
            op, f"combine operation must be terminated with a {return_type.name} but got {terminator}"
        )
    returned = terminator.operand_types
    if len(returned) != len(srcs):
        raise op_error(op, f"expected combine operation to return {len(srcs)} values but got {len(returned)}")
    for i, (returned_type, element) in enumerate(zip(returned, elements, strict=True)):
        if returned_type != element:
            raise op_error(
                op,
                f"type mismatch on combine operation. Expected argument {i} to have type '{element}' "
                f"but got '{returned_type}'",
            )


def _combine_region(srcs: Sequence[SSAValue | Operation], region: Region | None) -> Region:
    """``region``, or an empty combiner block taking two sets of elements."""
    if region is not None:
        return region
    elements = [element_type_or_self(SSAValue.get(src).type) for src in srcs]
    return Region(Block(arg_types=[*elements, *elements]))


class _CombineOp(IRDLOperation):
    """Shared by ``tt.reduce`` and ``tt.scan``: tensors combined along ``axis``
    by the combiner in the region, which its ``_return_op`` ends."""

    srcs = var_operand_def(TensorConstr)
    """The tensors combined together."""

    axis = prop_def(IntegerAttr[I32])
    """The dimension combined along."""

    combine_op = region_def("single_block")
    """The combiner: two sets of elements in, one set out (``_return_op``)."""

    def _inferred_result_types(self) -> Sequence[Attribute]:
        """The result types that the operands and properties give."""
        raise NotImplementedError

    def _return_op(self) -> type[Operation]:
        """The op that ends the combiner."""
        raise NotImplementedError

    def verify_(self) -> None:
        _verify_reduce_scan(self, self.srcs, self.axis.value.data)
        verify_inferred_types(self, self._inferred_result_types())
        _verify_combine_region(self, self.srcs, self.combine_op, self._return_op())


@irdl_op_definition
class ReduceOp(_CombineOp):
    """Reduce tensors along ``axis`` with the combiner in its region.

    Triton prints it in generic form::

        %r = "tt.reduce"(%x) <{axis = 0 : i32}> ({
        ^bb0(%a: f32, %b: f32):
          %s = arith.addf %a, %b : f32
          tt.reduce.return %s : f32
        }) : (tensor<16xf32>) -> f32
    """

    name = "tt.reduce"

    result = var_result_def(TritonTypeConstr)
    """One reduced value per input."""

    traits = traits_def(Pure(), SameOperandsShape(), SameOperandsEncoding(), TensorSizeTrait())

    def __init__(
        self,
        srcs: Sequence[SSAValue | Operation],
        axis: int,
        combine_op: Region | None = None,
    ):
        result_types = [_reduce_result_type(SSAValue.get(src).type, axis) for src in srcs]
        super().__init__(
            operands=[srcs],
            result_types=[result_types],
            properties={"axis": IntegerAttr(axis, i32)},
            regions=[_combine_region(srcs, combine_op)],
        )

    def _inferred_result_types(self) -> Sequence[Attribute]:
        try:
            return [_reduce_result_type(src.type, self.axis.value.data) for src in self.srcs]
        except LayoutInferenceError as exc:
            raise op_error(self, str(exc)) from None

    def _return_op(self) -> type[Operation]:
        return ReduceReturnOp

    def get_single_combiner(self) -> Operation | None:
        """The one op combining the two block arguments, when that is all the
        combiner does (``getSingleCombiner``); None otherwise."""
        if len(self.srcs) != 1 or len(self.results) != 1:
            return None
        block = self.combine_op.block
        terminator = block.last_op
        if terminator is None or not terminator.operands:
            return None
        combiner = terminator.operands[0].owner
        if not isinstance(combiner, Operation) or len(combiner.operands) != 2 or len(combiner.results) != 1:
            return None
        if tuple(combiner.operands) != tuple(block.args[:2]):
            return None
        return combiner


class _CombineReturnOp(IRDLOperation):
    """A combiner's terminator: ``$result attr-dict `:` type($result)``."""

    result = var_operand_def()
    """The combined values."""

    traits = traits_def(Pure(), IsTerminator(), ReturnLike(), TensorSizeTrait())
    """With each op's ``HasParent`` of the op whose combiner it ends."""

    def __init__(self, *results: SSAValue | Operation):
        super().__init__(operands=[results])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        pos = parser.pos
        unresolved = parse_operand_list(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parse_type_list(parser) if unresolved else []
        return cls.build(operands=[resolve(parser, unresolved, types, pos)], attributes=attributes)

    def print(self, printer: Printer) -> None:
        if self.operands:
            printer.print_string(" ")
            print_operands(printer, self.operands)
        print_attr_dict_with_properties(printer, self, ())
        printer.print_string(" : ")
        print_types(printer, self.operand_types)


@irdl_op_definition
class ReduceReturnOp(_CombineReturnOp):
    """The terminator of ``tt.reduce``'s combiner: ``tt.reduce.return %s : f32``."""

    name = "tt.reduce.return"

    traits = traits_def(HasParent(ReduceOp))


@irdl_op_definition
class ScanOp(_CombineOp):
    """An associative scan along ``axis`` with the combiner in its region.

    Triton prints it in generic form::

        %r = "tt.scan"(%x) <{axis = 0 : i32, reverse = false}> ({
        ^bb0(%a: f32, %b: f32):
          %s = arith.addf %a, %b : f32
          tt.scan.return %s : f32
        }) : (tensor<16xf32>) -> tensor<16xf32>
    """

    name = "tt.scan"

    result = var_result_def(TensorConstr)
    """One scanned tensor per input, of its type."""

    reverse = prop_def(BoolAttr)
    """Whether to scan from the end."""

    traits = traits_def(
        Pure(), SameOperandsAndResultEncoding(), SameOperandsAndResultShape(), TensorSizeTrait()
    )

    def __init__(
        self,
        srcs: Sequence[SSAValue | Operation],
        axis: int,
        reverse: bool = False,
        combine_op: Region | None = None,
    ):
        super().__init__(
            operands=[srcs],
            result_types=[[SSAValue.get(src).type for src in srcs]],
            properties={"axis": IntegerAttr(axis, i32), "reverse": IntegerAttr.from_bool(reverse)},
            regions=[_combine_region(srcs, combine_op)],
        )

    def _inferred_result_types(self) -> Sequence[Attribute]:
        return self.srcs.types

    def _return_op(self) -> type[Operation]:
        return ScanReturnOp


@irdl_op_definition
class ScanReturnOp(_CombineReturnOp):
    """The terminator of ``tt.scan``'s combiner: ``tt.scan.return %s : f32``."""

    name = "tt.scan.return"

    traits = traits_def(HasParent(ScanOp))


@irdl_op_definition
class MapElementwiseOp(IRDLOperation):
    """Map the scalar function in its region over tensors, ``pack`` elements at a time.

    Printed in generic form, like ``tt.reduce``; stores are not allowed inside.
    """

    name = "tt.map_elementwise"

    srcs = var_operand_def(TensorConstr)
    """The tensors mapped over."""

    result = var_result_def(TensorConstr)
    """The mapped tensors."""

    pack = prop_def(IntegerAttr[I32])
    """How many elements of each input the region takes at a time (a power of 2)."""

    scalar_op = region_def()
    """The scalar function, ending in ``tt.map_elementwise.return``."""

    traits = traits_def(
        SameOperandsAndResultEncoding(),
        SameOperandsAndResultShape(),
        RecursiveMemoryEffect(),
        TensorSizeTrait(),
    )

    def __init__(
        self,
        srcs: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        scalar_op: Region,
        pack: int = 1,
    ):
        super().__init__(
            operands=[srcs],
            result_types=[result_types],
            properties={"pack": IntegerAttr(pack, i32)},
            regions=[scalar_op],
        )

    def verify_(self) -> None:
        if not self.srcs:
            raise op_error(self, "MapElementwiseOp must have at least 1 operand")
        pack = self.pack.value.data
        if pack <= 0 or pack & (pack - 1):
            raise op_error(self, "Pack must be a power of 2")
        block = self.scalar_op.blocks.first
        if block is None:
            return
        expected_args = [element_type_or_self(t) for t in self.srcs.types for _ in range(pack)]
        if len(block.args) != len(expected_args):
            raise op_error(self, "region has wrong number of arguments")
        if list(block.arg_types) != expected_args:
            raise op_error(self, "argument types did not match")
        expected_returns = tuple(element_type_or_self(t) for t in self.result.types for _ in range(pack))
        for nested in self.scalar_op.walk():
            effects = get_effects(nested)
            if effects is not None and any(e.kind == MemoryEffectKind.WRITE for e in effects):
                raise VerifyException(f"'{nested.name}' op Stores are not supported inside map_elementwise")
            if isinstance(nested, MapElementwiseReturnOp) and nested.operand_types != expected_returns:
                raise VerifyException("region return does not match map_elementwise result")


@irdl_op_definition
class MapElementwiseReturnOp(IRDLOperation):
    """The terminator of ``tt.map_elementwise``: ``tt.map_elementwise.return %x : f32``."""

    name = "tt.map_elementwise.return"

    result = var_operand_def()
    """The mapped values."""

    traits = traits_def(HasParent(MapElementwiseOp), Pure(), IsTerminator(), ReturnLike(), TensorSizeTrait())

    irdl_options = (ParsePropInAttrDict(),)

    assembly_format = "attr-dict ($result^ `:` type($result))?"

    def __init__(self, *results: SSAValue | Operation):
        super().__init__(operands=[results])
