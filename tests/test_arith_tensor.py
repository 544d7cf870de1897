"""passviz's ``arith`` (passviz.compilers.mlir.dialects.arith): MLIR's shaped casts, comparisons and select.

Every op line is checked three ways: passviz parses, verifies and prints it
back as written (MLIR's spelling); Triton 3.6 reads passviz's print as the
module it reads from the input; and each bad line is rejected by both.  The
canonicalization of the ops on tensors is compared with Triton's.
"""

from __future__ import annotations

import re

import pytest
from _pytest.mark.structures import ParameterSet
from xdsl.dialects import arith as xdsl_arith
from xdsl.dialects.builtin import (
    IndexType,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    VectorType,
    f16,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Block, Operation
from xdsl.utils.exceptions import VerifyException

from passviz.compilers.mlir.dialects import arith
from passviz.compilers.registry import make_context
from passviz.ir.printer import print_module
from passviz.pipelines import IRParseError, parse_ir, record
from passviz.recording.recorder import RecordOptions
from tests.conftest import need
from tests.triton_oracle import TritonError, compare, triton_missing, triton_normalize

ARGS = (
    "%i: tensor<4xi32>, %l: tensor<4xi64>, %f: tensor<4xf32>, %h: tensor<4xf16>, %b: tensor<4xi1>, "
    "%x: tensor<4xindex>, %b8: tensor<8xi1>, %i8: tensor<4xi8>, %c: i1, %si: i32, %sl: i64, %sf: f32, "
    "%sx: index, %vi: vector<4xi32>, %vf: vector<4xf32>, %vb: vector<4xi1>, %m: memref<4xi32>"
)
"""The arguments every op line may use."""


def function(body: str) -> str:
    """A module with one function over ``ARGS`` whose body is ``body``."""
    return f"module {{\n  tt.func @f({ARGS}) {{\n    {body}\n    tt.return\n  }}\n}}\n"


_SSA_NAME = re.compile(r"%[\w#.$-]+")


def arith_lines(text: str) -> list[str]:
    """The ``arith`` op lines of ``text``, SSA names blanked."""
    return [_SSA_NAME.sub("%", line.strip()) for line in text.splitlines() if "arith." in line]


def only_op(module: ModuleOp) -> Operation:
    """The one arith op of ``module``."""
    (op,) = [op for op in module.walk() if op.name.startswith("arith.")]
    return op


# --------------------------------------------------------------------------- #
# Lines that verify, written as MLIR prints them
# --------------------------------------------------------------------------- #

GOOD = {
    # Casts on tensors
    "extsi": "%r = arith.extsi %i : tensor<4xi32> to tensor<4xi64>",
    "extsi_attr_dict": "%r = arith.extsi %i {tt.divisibility = 16 : i32} : tensor<4xi32> to tensor<4xi64>",
    "extui_i1": "%r = arith.extui %b : tensor<4xi1> to tensor<4xi32>",
    "trunci": "%r = arith.trunci %l : tensor<4xi64> to tensor<4xi32>",
    "trunci_i1": "%r = arith.trunci %i : tensor<4xi32> to tensor<4xi1>",
    "trunci_overflow": "%r = arith.trunci %l overflow<nsw, nuw> : tensor<4xi64> to tensor<4xi32>",
    "extf": "%r = arith.extf %h : tensor<4xf16> to tensor<4xf32>",
    "extf_fastmath": "%r = arith.extf %h fastmath<fast> : tensor<4xf16> to tensor<4xf32>",
    "extf_fastmath_none": "%r = arith.extf %h fastmath<none> : tensor<4xf16> to tensor<4xf32>",
    "truncf": "%r = arith.truncf %f : tensor<4xf32> to tensor<4xf16>",
    "truncf_rounding": "%r = arith.truncf %f downward : tensor<4xf32> to tensor<4xf16>",
    "truncf_rounding_fastmath": "%r = arith.truncf %f to_nearest_even fastmath<nnan,ninf> : tensor<4xf32> to tensor<4xf16>",
    "sitofp": "%r = arith.sitofp %i : tensor<4xi32> to tensor<4xf32>",
    "uitofp": "%r = arith.uitofp %i : tensor<4xi32> to tensor<4xf16>",
    "fptosi": "%r = arith.fptosi %f : tensor<4xf32> to tensor<4xi64>",
    "fptoui": "%r = arith.fptoui %f : tensor<4xf32> to tensor<4xi8>",
    "index_cast_to_index": "%r = arith.index_cast %i : tensor<4xi32> to tensor<4xindex>",
    "index_cast_from_index": "%r = arith.index_cast %x : tensor<4xindex> to tensor<4xi64>",
    "index_castui": "%r = arith.index_castui %i : tensor<4xi32> to tensor<4xindex>",
    "bitcast": "%r = arith.bitcast %f : tensor<4xf32> to tensor<4xi32>",
    # Comparisons and select on tensors
    "cmpi": "%r = arith.cmpi slt, %i, %i : tensor<4xi32>",
    "cmpi_index": "%r = arith.cmpi uge, %x, %x : tensor<4xindex>",
    "cmpi_attr_dict": "%r = arith.cmpi eq, %i, %i {foo} : tensor<4xi32>",
    "cmpf": "%r = arith.cmpf olt, %f, %f : tensor<4xf32>",
    "cmpf_fastmath": "%r = arith.cmpf une, %f, %f fastmath<fast> : tensor<4xf32>",
    "select_tensor_condition": "%r = arith.select %b, %i, %i : tensor<4xi1>, tensor<4xi32>",
    "select_i1_condition": "%r = arith.select %c, %f, %f : tensor<4xf32>",
    "select_of_i1_tensors": "%r = arith.select %b, %b, %b : tensor<4xi1>, tensor<4xi1>",
    "select_attr_dict": "%r = arith.select %b, %i, %i {foo = 1 : i32} : tensor<4xi1>, tensor<4xi32>",
    "remf": "%r = arith.remf %f, %f : tensor<4xf32>",
    "remf_fastmath": "%r = arith.remf %f, %f fastmath<fast> : tensor<4xf32>",
    # Vectors
    "extsi_vector": "%r = arith.extsi %vi : vector<4xi32> to vector<4xi64>",
    "sitofp_vector": "%r = arith.sitofp %vi : vector<4xi32> to vector<4xf32>",
    "cmpf_vector": "%r = arith.cmpf oge, %vf, %vf : vector<4xf32>",
    "select_vector": "%r = arith.select %vb, %vi, %vi : vector<4xi1>, vector<4xi32>",
    # Scalars still work
    "extsi_scalar": "%r = arith.extsi %si : i32 to i64",
    "trunci_scalar": "%r = arith.trunci %sl : i64 to i32",
    "truncf_scalar": "%r = arith.truncf %sf toward_zero : f32 to f16",
    "index_cast_scalar": "%r = arith.index_cast %sx : index to i32",
    "cmpi_scalar": "%r = arith.cmpi sgt, %si, %si : i32",
    "select_scalar": "%r = arith.select %c, %si, %si : i32",
    # Memrefs, where MLIR takes them
    "index_cast_memref": "%r = arith.index_cast %m : memref<4xi32> to memref<4xindex>",
    "bitcast_memref": "%r = arith.bitcast %m : memref<4xi32> to memref<4xf32>",
}


@pytest.mark.parametrize("line", GOOD.values(), ids=GOOD.keys())
def test_parses_verifies_and_prints_as_written(line: str) -> None:
    module = parse_ir(function(line))
    module.verify()
    printed = print_module(module)
    assert arith_lines(printed) == arith_lines(line)
    assert print_module(parse_ir(printed)) == printed


@pytest.mark.parametrize("line", GOOD.values(), ids=GOOD.keys())
def test_triton_reads_what_passviz_prints(line: str) -> None:
    need(triton_missing())
    text = function(line)
    printed = print_module(parse_ir(text))
    assert triton_normalize(printed) == triton_normalize(text)
    assert arith_lines(triton_normalize(text)) == arith_lines(printed)


# --------------------------------------------------------------------------- #
# Lines that do not verify (MLIR rejects each of them too)
# --------------------------------------------------------------------------- #

BAD = {
    "extsi_same_width": (
        "%r = arith.extsi %i : tensor<4xi32> to tensor<4xi32>",
        "are cast incompatible",
    ),
    "extsi_narrower": ("%r = arith.extsi %l : tensor<4xi64> to tensor<4xi32>", "are cast incompatible"),
    "extui_narrower": ("%r = arith.extui %l : tensor<4xi64> to tensor<4xi8>", "are cast incompatible"),
    "trunci_wider": ("%r = arith.trunci %i : tensor<4xi32> to tensor<4xi64>", "are cast incompatible"),
    "extf_same_width": ("%r = arith.extf %h : tensor<4xf16> to tensor<4xbf16>", "are cast incompatible"),
    "truncf_wider": ("%r = arith.truncf %h : tensor<4xf16> to tensor<4xf32>", "are cast incompatible"),
    "extsi_other_shape": (
        "%r = arith.extsi %i : tensor<4xi32> to tensor<8xi64>",
        "same tensor dimensions",
    ),
    "extsi_dynamic_shape": (
        "%r = arith.extsi %i : tensor<4xi32> to tensor<?xi64>",
        "same tensor dimensions",
    ),
    "extsi_tensor_to_scalar": ("%r = arith.extsi %i : tensor<4xi32> to i64", "same tensor dimensions"),
    "extsi_tensor_to_vector": (
        "%r = arith.extsi %i : tensor<4xi32> to vector<4xi64>",
        "same tensor dimensions",
    ),
    "extsi_vector_to_scalar": (
        "%r = arith.extsi %vi : vector<4xi32> to i64",
        "same shape for all operands and results",
    ),
    "extsi_of_float": ("%r = arith.extsi %f : tensor<4xf32> to tensor<4xi64>", "input"),
    "extsi_of_index": ("%r = arith.extsi %x : tensor<4xindex> to tensor<4xi64>", "input"),
    "sitofp_to_integer": ("%r = arith.sitofp %i : tensor<4xi32> to tensor<4xi64>", "result"),
    "fptosi_to_index": ("%r = arith.fptosi %f : tensor<4xf32> to tensor<4xindex>", "result"),
    "index_cast_without_index": (
        "%r = arith.index_cast %i : tensor<4xi32> to tensor<4xi64>",
        "are cast incompatible",
    ),
    "index_cast_other_shape": (
        "%r = arith.index_cast %i : tensor<4xi32> to tensor<8xindex>",
        "same tensor dimensions",
    ),
    "index_castui_without_index": (
        "%r = arith.index_castui %x : tensor<4xindex> to tensor<4xindex>",
        "are cast incompatible",
    ),
    "bitcast_other_width": (
        "%r = arith.bitcast %i : tensor<4xi32> to tensor<4xf16>",
        "are cast incompatible",
    ),
    "bitcast_of_index": ("%r = arith.bitcast %x : tensor<4xindex> to tensor<4xi64>", "input"),
    "cmpi_scalar_result": (
        '%r = "arith.cmpi"(%i, %i) <{predicate = 2 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> i1',
        "must have i1 elements and the operands' shape",
    ),
    "cmpi_tensor_result_of_scalars": (
        '%r = "arith.cmpi"(%si, %si) <{predicate = 2 : i64}> : (i32, i32) -> tensor<4xi1>',
        "must have i1 elements and the operands' shape",
    ),
    "cmpi_other_shape": (
        '%r = "arith.cmpi"(%i, %i) <{predicate = 2 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<8xi1>',
        "must have i1 elements and the operands' shape",
    ),
    "cmpi_unknown_predicate": (
        '%r = "arith.cmpi"(%i, %i) <{predicate = 12 : i64}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>',
        "predicate 12 is not one of",
    ),
    "cmpi_of_floats": (
        '%r = "arith.cmpi"(%f, %f) <{predicate = 2 : i64}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>',
        "lhs",
    ),
    "cmpf_scalar_result": (
        '%r = "arith.cmpf"(%f, %f) <{predicate = 2 : i64}> : (tensor<4xf32>, tensor<4xf32>) -> i1',
        "must have i1 elements and the operands' shape",
    ),
    "select_condition_other_shape": (
        '%r = "arith.select"(%b8, %i, %i) : (tensor<8xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>',
        "is neither i1 nor i1 in the result's shape",
    ),
    "select_condition_not_i1": (
        '%r = "arith.select"(%i8, %i, %i) : (tensor<4xi8>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>',
        "cond",
    ),
    "select_tensor_condition_scalar_values": (
        '%r = "arith.select"(%b, %si, %si) : (tensor<4xi1>, i32, i32) -> i32',
        "is neither i1 nor i1 in the result's shape",
    ),
    "select_tensor_condition_vector_values": (
        '%r = "arith.select"(%b, %vi, %vi) : (tensor<4xi1>, vector<4xi32>, vector<4xi32>) -> vector<4xi32>',
        "is neither i1 nor i1 in the result's shape",
    ),
    "truncf_unknown_rounding_mode": (
        '%r = "arith.truncf"(%f) <{roundingmode = 9 : i32}> : (tensor<4xf32>) -> tensor<4xf16>',
        "rounding mode 9 is not one of",
    ),
}


@pytest.mark.parametrize(("line", "message"), BAD.values(), ids=BAD.keys())
def test_bad_types_fail_verification(line: str, message: str) -> None:
    module = parse_ir(function(line))
    with pytest.raises(VerifyException, match=re.escape(message)):
        module.verify()


TRITON_ABORTS = {"select_tensor_condition_scalar_values"}
"""Bad lines on which Triton 3.6's MLIR aborts (an assertion in its select verifier) instead of failing."""


@pytest.mark.parametrize(
    ("line", "message"),
    [value for name, value in BAD.items() if name not in TRITON_ABORTS],
    ids=[name for name in BAD if name not in TRITON_ABORTS],
)
def test_triton_rejects_the_bad_types_too(line: str, message: str) -> None:
    need(triton_missing())
    with pytest.raises(TritonError):
        triton_normalize(function(line))


def test_a_select_condition_of_another_type_than_spelled_does_not_parse() -> None:
    with pytest.raises(IRParseError, match="tensor<4xi1>"):
        parse_ir(function("%r = arith.select %b, %i, %i : tensor<4xi32>"))


# --------------------------------------------------------------------------- #
# The classes: xDSL's subclasses, registered, and buildable
# --------------------------------------------------------------------------- #

SUBCLASSES = {
    "extsi": ("%r = arith.extsi %i : tensor<4xi32> to tensor<4xi64>", xdsl_arith.ExtSIOp),
    "extui": ("%r = arith.extui %i : tensor<4xi32> to tensor<4xi64>", xdsl_arith.ExtUIOp),
    "trunci": ("%r = arith.trunci %l : tensor<4xi64> to tensor<4xi32>", xdsl_arith.TruncIOp),
    "extf": ("%r = arith.extf %h : tensor<4xf16> to tensor<4xf32>", xdsl_arith.ExtFOp),
    "truncf": ("%r = arith.truncf %f : tensor<4xf32> to tensor<4xf16>", xdsl_arith.TruncFOp),
    "sitofp": ("%r = arith.sitofp %i : tensor<4xi32> to tensor<4xf32>", xdsl_arith.SIToFPOp),
    "uitofp": ("%r = arith.uitofp %i : tensor<4xi32> to tensor<4xf32>", xdsl_arith.UIToFPOp),
    "fptosi": ("%r = arith.fptosi %f : tensor<4xf32> to tensor<4xi32>", xdsl_arith.FPToSIOp),
    "fptoui": ("%r = arith.fptoui %f : tensor<4xf32> to tensor<4xi32>", xdsl_arith.FPToUIOp),
    "index_cast": ("%r = arith.index_cast %i : tensor<4xi32> to tensor<4xindex>", xdsl_arith.IndexCastOp),
    "bitcast": ("%r = arith.bitcast %i : tensor<4xi32> to tensor<4xf32>", xdsl_arith.BitcastOp),
    "cmpi": ("%r = arith.cmpi slt, %i, %i : tensor<4xi32>", xdsl_arith.CmpiOp),
    "cmpf": ("%r = arith.cmpf olt, %f, %f : tensor<4xf32>", xdsl_arith.CmpfOp),
    "select": ("%r = arith.select %b, %i, %i : tensor<4xi1>, tensor<4xi32>", xdsl_arith.SelectOp),
    "remf": ("%r = arith.remf %f, %f : tensor<4xf32>", xdsl_arith.FloatingPointLikeBinaryOperation),
}


@pytest.mark.parametrize(("line", "xdsl_class"), SUBCLASSES.values(), ids=SUBCLASSES.keys())
def test_parsed_ops_are_xdsl_ops(line: str, xdsl_class: type[Operation]) -> None:
    op = only_op(parse_ir(function(line)))
    assert isinstance(op, xdsl_class)
    assert make_context().get_op(op.name) is type(op)
    assert type(op).__module__ == arith.__name__


def test_context_resolves_arith_to_passviz() -> None:
    ctx = make_context()
    assert ctx.get_op("arith.extsi") is arith.ExtSIOp
    assert ctx.get_op("arith.select") is arith.SelectOp
    assert ctx.get_op("arith.addi") is xdsl_arith.AddiOp
    assert ctx.get_op("arith.remf") is arith.RemFOp
    assert ctx.get_op("arith.index_castui") is arith.IndexCastUIOp


def test_cmpi_result_is_shaped_like_its_operands() -> None:
    module = parse_ir(
        function("%r = arith.cmpi slt, %i, %i : tensor<4xi32>\n    %s = arith.andi %r, %b : tensor<4xi1>")
    )
    module.verify()
    (cmp,) = [op for op in module.walk() if isinstance(op, arith.CmpiOp)]
    assert cmp.result.type == TensorType(i1, [4])


def test_i1_same_shape_keeps_the_encoding() -> None:
    encoding = StringAttr("layout")
    assert arith.i1_same_shape(TensorType(i32, [2, 8], encoding)) == TensorType(i1, [2, 8], encoding)
    assert arith.i1_same_shape(VectorType(f32, [4])) == VectorType(i1, [4])
    assert arith.i1_same_shape(UnrankedTensorType(i64)) == UnrankedTensorType(i1)
    assert arith.i1_same_shape(IndexType()) == i1


def test_builders_infer_shaped_results() -> None:
    tensor = TensorType(i32, [4])
    block = Block(arg_types=[tensor, tensor, TensorType(i1, [4]), TensorType(f32, [4]), VectorType(f32, [2])])
    a, b, cond, f, v = block.args
    ops: list[Operation] = [
        cmpi := arith.CmpiOp(a, b, "slt"),
        cmpf := arith.CmpfOp(f, f, "olt", xdsl_arith.FastMathFlagsAttr("fast")),
        cmpf_vector := arith.CmpfOp(v, v, 1),
        arith.SelectOp(cond, a, b),
        arith.SelectOp(cmpi, a, b),
        arith.ExtSIOp(a, TensorType(i64, [4])),
        arith.ExtUIOp(cond, tensor),
        arith.TruncIOp(a, TensorType(IntegerType(8), [4])),
        arith.SIToFPOp(a, TensorType(f32, [4])),
        arith.FPToSIOp(f, tensor),
        trunc := arith.TruncFOp(f, TensorType(f16, [4]), roundingmode="upward"),
        arith.IndexCastOp(a, TensorType(IndexType(), [4])),
        arith.IndexCastUIOp(a, TensorType(IndexType(), [4])),
        arith.BitcastOp(f, tensor),
        arith.RemFOp(f, f),
    ]
    assert cmpi.result.type == TensorType(i1, [4])
    assert cmpf.result.type == TensorType(i1, [4])
    assert cmpf_vector.result.type == VectorType(i1, [2])
    for op in ops:
        block.add_op(op)
        op.verify()
    assert arith_lines(print_module(trunc)) == ["% = arith.truncf % upward : tensor<4xf32> to tensor<4xf16>"]


def test_extsi_is_pure_as_in_mlir() -> None:
    """xDSL's extsi has no traits; MLIR's is Pure, so an unused one is erased."""
    run = record(
        function("%r = arith.extsi %i : tensor<4xi32> to tensor<4xi64>"),
        "canonicalize",
        options=RecordOptions(verify_each="pass"),
    )
    assert "arith.extsi" not in print_module(run.module)


# --------------------------------------------------------------------------- #
# Canonicalization on tensors, against Triton's
# --------------------------------------------------------------------------- #

TENSOR_ARGS = "%i: tensor<4xi32>, %j: tensor<4xi32>, %k: tensor<4xi32>, %f: tensor<4xf32>, %b: tensor<4xi1>, %b2: tensor<4xi1>"


CANONICALIZE = {
    "extsi_splat": (
        "%c = arith.constant dense<-3> : tensor<4xi32>\n%r = arith.extsi %c : tensor<4xi32> to tensor<4xi64>",
        "tensor<4xi64>",
    ),
    "extsi_of_extsi": (
        "%a = arith.extsi %i : tensor<4xi32> to tensor<4xi64>\n"
        "%r = arith.extsi %a : tensor<4xi64> to tensor<4xi128>",
        "tensor<4xi128>",
    ),
    "extsi_of_extui": (
        "%a = arith.extui %i : tensor<4xi32> to tensor<4xi64>\n"
        "%r = arith.extsi %a : tensor<4xi64> to tensor<4xi128>",
        "tensor<4xi128>",
    ),
    "cmpi_splats": (
        "%c = arith.constant dense<3> : tensor<4xi32>\n"
        "%d = arith.constant dense<5> : tensor<4xi32>\n"
        "%r = arith.cmpi slt, %c, %d : tensor<4xi32>",
        "tensor<4xi1>",
    ),
    "cmpi_dense": (
        "%c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>\n"
        "%d = arith.constant dense<[4, 3, 2, 1]> : tensor<4xi32>\n"
        "%r = arith.cmpi slt, %c, %d : tensor<4xi32>",
        "tensor<4xi1>",
    ),
    "cmpi_same_operand": ("%r = arith.cmpi sle, %i, %i : tensor<4xi32>", "tensor<4xi1>"),
    "cmpi_constant_lhs": (
        "%c = arith.constant dense<3> : tensor<4xi32>\n%r = arith.cmpi slt, %c, %i : tensor<4xi32>",
        "tensor<4xi1>",
    ),
    "cmpi_of_extsi": (
        "%a = arith.extsi %i : tensor<4xi32> to tensor<4xi64>\n"
        "%c = arith.extsi %j : tensor<4xi32> to tensor<4xi64>\n"
        "%r = arith.cmpi eq, %a, %c : tensor<4xi64>",
        "tensor<4xi1>",
    ),
    "cmpi_ne_zero_of_extui_i1": (
        "%a = arith.extui %b : tensor<4xi1> to tensor<4xi32>\n"
        "%z = arith.constant dense<0> : tensor<4xi32>\n"
        "%r = arith.cmpi ne, %a, %z : tensor<4xi32>",
        "tensor<4xi1>",
    ),
    "not_cmpi": (
        "%a = arith.cmpi slt, %i, %j : tensor<4xi32>\n"
        "%t = arith.constant dense<true> : tensor<4xi1>\n"
        "%r = arith.xori %a, %t : tensor<4xi1>",
        "tensor<4xi1>",
    ),
    "cmpf_splats": (
        "%c = arith.constant dense<3.0> : tensor<4xf32>\n"
        "%d = arith.constant dense<5.0> : tensor<4xf32>\n"
        "%r = arith.cmpf olt, %c, %d : tensor<4xf32>",
        "tensor<4xi1>",
    ),
    "cmpf_of_sitofp": (
        "%a = arith.sitofp %i : tensor<4xi32> to tensor<4xf32>\n"
        "%d = arith.constant dense<5.0> : tensor<4xf32>\n"
        "%r = arith.cmpf olt, %a, %d : tensor<4xf32>",
        "tensor<4xi1>",
    ),
    "select_true_splat": (
        "%t = arith.constant dense<true> : tensor<4xi1>\n"
        "%r = arith.select %t, %i, %j : tensor<4xi1>, tensor<4xi32>",
        "tensor<4xi32>",
    ),
    "select_dense_condition": (
        "%t = arith.constant dense<[true, false, true, false]> : tensor<4xi1>\n"
        "%c = arith.constant dense<1> : tensor<4xi32>\n"
        "%d = arith.constant dense<2> : tensor<4xi32>\n"
        "%r = arith.select %t, %c, %d : tensor<4xi1>, tensor<4xi32>",
        "tensor<4xi32>",
    ),
    "select_not_condition": (
        "%t = arith.constant dense<true> : tensor<4xi1>\n"
        "%n = arith.xori %b, %t : tensor<4xi1>\n"
        "%r = arith.select %n, %i, %j : tensor<4xi1>, tensor<4xi32>",
        "tensor<4xi32>",
    ),
    "select_one_zero": (
        "%c = arith.constant dense<1> : tensor<4xi32>\n"
        "%d = arith.constant dense<0> : tensor<4xi32>\n"
        "%r = arith.select %b, %c, %d : tensor<4xi1>, tensor<4xi32>",
        "tensor<4xi32>",
    ),
    "select_true_false": (
        "%t = arith.constant dense<true> : tensor<4xi1>\n"
        "%e = arith.constant dense<false> : tensor<4xi1>\n"
        "%r = arith.select %b, %t, %e : tensor<4xi1>, tensor<4xi1>",
        "tensor<4xi1>",
    ),
    "select_of_select": (
        "%a = arith.select %b, %i, %j : tensor<4xi1>, tensor<4xi32>\n"
        "%r = arith.select %b, %a, %k : tensor<4xi1>, tensor<4xi32>",
        "tensor<4xi32>",
    ),
    "trunci_of_extsi": (
        "%a = arith.extsi %i : tensor<4xi32> to tensor<4xi64>\n"
        "%r = arith.trunci %a : tensor<4xi64> to tensor<4xi16>",
        "tensor<4xi16>",
    ),
    "trunci_of_shrsi": (
        "%a = arith.extsi %i : tensor<4xi32> to tensor<4xi64>\n"
        "%c = arith.constant dense<32> : tensor<4xi64>\n"
        "%s = arith.shrsi %a, %c : tensor<4xi64>\n"
        "%r = arith.trunci %s : tensor<4xi64> to tensor<4xi32>",
        "tensor<4xi32>",
    ),
    "truncf_of_extf": (
        "%a = arith.extf %f : tensor<4xf32> to tensor<4xf64>\n"
        "%r = arith.truncf %a : tensor<4xf64> to tensor<4xf32>",
        "tensor<4xf32>",
    ),
    "truncf_of_sitofp": (
        "%a = arith.sitofp %i : tensor<4xi32> to tensor<4xf64>\n"
        "%r = arith.truncf %a : tensor<4xf64> to tensor<4xf32>",
        "tensor<4xf32>",
    ),
    "extf_splat": (
        "%c = arith.constant dense<1.5> : tensor<4xf16>\n%r = arith.extf %c : tensor<4xf16> to tensor<4xf32>",
        "tensor<4xf32>",
    ),
    "truncf_splat": (
        "%c = arith.constant dense<1.5> : tensor<4xf32>\n%r = arith.truncf %c : tensor<4xf32> to tensor<4xf16>",
        "tensor<4xf16>",
    ),
    "sitofp_splat": (
        "%c = arith.constant dense<7> : tensor<4xi32>\n%r = arith.sitofp %c : tensor<4xi32> to tensor<4xf32>",
        "tensor<4xf32>",
    ),
    "uitofp_dense": (
        "%c = arith.constant dense<[1, -1, 3, 4]> : tensor<4xi32>\n"
        "%r = arith.uitofp %c : tensor<4xi32> to tensor<4xf32>",
        "tensor<4xf32>",
    ),
    "fptosi_splat": (
        "%c = arith.constant dense<7.5> : tensor<4xf32>\n%r = arith.fptosi %c : tensor<4xf32> to tensor<4xi32>",
        "tensor<4xi32>",
    ),
    "index_cast_splat": (
        "%c = arith.constant dense<7> : tensor<4xi32>\n"
        "%r = arith.index_cast %c : tensor<4xi32> to tensor<4xindex>",
        "tensor<4xindex>",
    ),
    "index_cast_of_index_cast": (
        "%a = arith.index_cast %i : tensor<4xi32> to tensor<4xindex>\n"
        "%r = arith.index_cast %a : tensor<4xindex> to tensor<4xi32>",
        "tensor<4xi32>",
    ),
    "index_cast_of_extsi": (
        "%a = arith.extsi %i : tensor<4xi32> to tensor<4xi64>\n"
        "%r = arith.index_cast %a : tensor<4xi64> to tensor<4xindex>",
        "tensor<4xindex>",
    ),
    "index_castui_splat": (
        "%c = arith.constant dense<-1> : tensor<4xi32>\n"
        "%r = arith.index_castui %c : tensor<4xi32> to tensor<4xindex>",
        "tensor<4xindex>",
    ),
    "bitcast_splat": (
        "%c = arith.constant dense<1.0> : tensor<4xf32>\n%r = arith.bitcast %c : tensor<4xf32> to tensor<4xi32>",
        "tensor<4xi32>",
    ),
    "bitcast_of_bitcast": (
        "%a = arith.bitcast %i : tensor<4xi32> to tensor<4xf32>\n"
        "%r = arith.bitcast %a : tensor<4xf32> to tensor<4xi32>",
        "tensor<4xi32>",
    ),
    "andi_of_extui": (
        "%a = arith.extui %b : tensor<4xi1> to tensor<4xi32>\n"
        "%c = arith.extui %b2 : tensor<4xi1> to tensor<4xi32>\n"
        "%r = arith.andi %a, %c : tensor<4xi32>",
        "tensor<4xi32>",
    ),
    "mulsi_extended_by_one": (
        "%one = arith.constant dense<1> : tensor<4xi32>\n"
        "%lo, %hi = arith.mulsi_extended %i, %one : tensor<4xi32>",
        "tensor<4xi32>",
    ),
    "remf_splats": (
        "%c = arith.constant dense<7.5> : tensor<4xf32>\n"
        "%d = arith.constant dense<2.0> : tensor<4xf32>\n"
        "%r = arith.remf %c, %d : tensor<4xf32>",
        "tensor<4xf32>",
    ),
    "unused_extsi": ("%r = arith.extsi %i : tensor<4xi32> to tensor<4xi64>", None),
}
"""Bodies over ``TENSOR_ARGS`` that define ``%r`` (or ``%hi``), and the type the function returns."""


def _canonicalize_cases() -> list[ParameterSet]:
    return [
        pytest.param(body, result, id=name, marks=marks)
        for name, (body, result, *marks) in CANONICALIZE.items()
    ]


@pytest.mark.parametrize(("body", "result"), _canonicalize_cases())
def test_canonicalize_on_tensors_matches_triton(body: str, result: str | None) -> None:
    need(triton_missing())
    value = "%hi" if "%hi" in body else "%r"
    returns = f" -> {result}" if result else ""
    ret = f"tt.return {value} : {result}" if result else "tt.return"
    lines = "\n    ".join([*body.splitlines(), ret])
    text = f"module {{\n  tt.func @f({TENSOR_ARGS}){returns} {{\n    {lines}\n  }}\n}}\n"
    passviz, triton = compare(text, "canonicalize")
    assert passviz == triton
