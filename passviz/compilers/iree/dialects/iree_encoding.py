"""IREE's ``iree_encoding`` dialect, the part IREE's dispatch-creation tests use:
``iree_encoding.set_encoding``/``unset_encoding`` and the test encoding
``#iree_encoding.testing<>`` that a tensor type carries (data tiling)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute
from xdsl.irdl import IRDLOperation, irdl_attr_definition, irdl_op_definition, operand_def, result_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from passviz.ir.printer import AliasedAttribute


@irdl_attr_definition
class TestingEncodingAttr(ParametrizedAttribute, AliasedAttribute):
    """``#iree_encoding.testing<>``: an encoding with no layout, for tests (printed as ``#encoding``)."""

    name = "iree_encoding.testing"
    ASM_ALIAS: ClassVar[str] = "encoding"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pass
        return ()

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<>")


class _EncodingCastOp(IRDLOperation):
    """``$source attr-dict : type($source) -> type($result)``: the same tensor with
    another encoding, set or unset."""

    source = operand_def(TensorType)
    """The tensor as it is."""
    result = result_def(TensorType)
    """The same tensor with the other encoding."""

    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"


@irdl_op_definition
class SetEncodingOp(_EncodingCastOp):
    """``%e = iree_encoding.set_encoding %t : tensor<4xf32> -> tensor<4xf32, #encoding>``."""

    name = "iree_encoding.set_encoding"


@irdl_op_definition
class UnsetEncodingOp(_EncodingCastOp):
    """``%t = iree_encoding.unset_encoding %e : tensor<4xf32, #encoding> -> tensor<4xf32>``."""

    name = "iree_encoding.unset_encoding"


IREEEncoding = Dialect("iree_encoding", [SetEncodingOp, UnsetEncodingOp], [TestingEncodingAttr])
"""IREE's iree_encoding dialect, the part the peer tests use."""
