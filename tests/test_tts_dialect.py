"""Tests of triton-shared's ``tts`` dialect (passviz.compilers.triton_shared.dialect): syntax, verifiers, traits."""

from __future__ import annotations

import re
import textwrap

import pytest
from xdsl.dialects import test as xdsl_test
from xdsl.dialects.builtin import IndexType, ModuleOp, TensorType, bf16, f32, i1, i32, i64
from xdsl.ir import Attribute
from xdsl.traits import MemoryEffectKind, get_effects, is_side_effect_free
from xdsl.utils.exceptions import VerifyException

from passviz.compilers.triton.dialects.tt import PointerType
from passviz.compilers.triton_shared.dialect import (
    DYNAMIC,
    GatherOp,
    LoadOp,
    MakeTensorPtrOp,
    MakeUnstructuredTensorPtrOp,
    ScatterOp,
    StoreOp,
    ptr_offset_type,
)
from passviz.ir.printer import print_module
from passviz.pipelines import parse_ir
from tests.conftest import peer_file

# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #


def body(module: ModuleOp) -> str:
    """The printed ops of ``module``, without the ``builtin.module`` around them."""
    text = print_module(module).rstrip("\n")
    assert text.startswith("builtin.module {\n") and text.endswith("\n}")
    return textwrap.dedent(text[len("builtin.module {\n") : -len("\n}")])


def roundtrip(text: str) -> str:
    """Parse, verify and print ``text``; printing it again must not change it."""
    module = parse_ir(text)
    module.verify()
    printed = body(module)
    again = parse_ir(printed)
    again.verify()
    assert body(again) == printed
    return printed


def in_func(signature: str, *lines: str) -> str:
    """``lines`` as the body of a ``func.func`` taking ``signature``."""
    inner = "\n".join(f"  {line}" for line in lines)
    return f"func.func @f({signature}) {{\n{inner}\n  func.return\n}}"


def values(*types: Attribute) -> list[xdsl_test.TestOp]:
    """Ops defining one value of each type, to build ops from."""
    return [xdsl_test.TestOp(result_types=[t]) for t in types]


PTR_F32 = PointerType(f32)
PTR_BF16 = PointerType(bf16)

# --------------------------------------------------------------------------- #
# Syntax: each op as triton-shared prints it
# --------------------------------------------------------------------------- #

SYNTAX = {
    "make_tptr tensor of pointers": (
        "%a: !tt.ptr<bf16>, %o: index, %s: index",
        "%0 = tts.make_tptr %a to sizes: [4, 256], strides: [1, %s], offsets: [%o, 0], shape: [0, 0], "
        "order: [] : <bf16> to tensor<4x256x!tt.ptr<bf16>>",
    ),
    "make_tptr block pointer": (
        "%a: !tt.ptr<bf16>, %o: index, %s: index",
        "%0 = tts.make_tptr %a to sizes: [128, 64], strides: [%s, %s], offsets: [%o, 0], shape: [%o, %s], "
        "order: [1, 0] : <bf16> to !tt.ptr<tensor<128x64xbf16>>",
    ),
    "make_tptr with attributes": (
        "%a: !tt.ptr<f32, 3>",
        "%0 = tts.make_tptr %a to sizes: [1024], strides: [1], offsets: [0], shape: [0], order: [] "
        '{tag = "x"} : <f32, 3> to tensor<1024x!tt.ptr<f32, 3>>',
    ),
    "make_unstructured_tptr tensor": (
        "%a: !tt.ptr<f32>, %o: tensor<16xi32>",
        '%0 = "tts.make_unstructured_tptr"(%a, %o) : (!tt.ptr<f32>, tensor<16xi32>) -> tensor<16x!tt.ptr<f32>>',
    ),
    "make_unstructured_tptr scalar i64": (
        "%a: !tt.ptr<bf16>, %o: i64",
        '%0 = "tts.make_unstructured_tptr"(%a, %o) : (!tt.ptr<bf16>, i64) -> !tt.ptr<bf16>',
    ),
    "load": (
        "%p: tensor<4x256x!tt.ptr<bf16>>",
        '%0 = "tts.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>, static_mask_dims = array<i64>}> '
        ": (tensor<4x256x!tt.ptr<bf16>>) -> tensor<4x256xbf16>",
    ),
    "load masked with other": (
        "%p: tensor<1024x!tt.ptr<f32>>, %n: index, %z: f32",
        '%0 = "tts.load"(%p, %n, %z) <{operandSegmentSizes = array<i32: 1, 1, 1>, '
        "static_mask_dims = array<i64: -9223372036854775808>}> : (tensor<1024x!tt.ptr<f32>>, index, f32) "
        "-> tensor<1024xf32>",
    ),
    "load block pointer": (
        "%p: !tt.ptr<tensor<128x64xbf16>>",
        '%0 = "tts.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>, static_mask_dims = array<i64>}> '
        ": (!tt.ptr<tensor<128x64xbf16>>) -> tensor<128x64xbf16>",
    ),
    "store masked": (
        "%p: tensor<1024x!tt.ptr<f32>>, %v: tensor<1024xf32>, %n: index",
        '"tts.store"(%p, %v, %n) <{static_mask_dims = array<i64: -9223372036854775808>}> '
        ": (tensor<1024x!tt.ptr<f32>>, tensor<1024xf32>, index) -> ()",
    ),
    "gather": (
        "%a: !tt.ptr<f32>, %o: tensor<4xi32>",
        "%0 = tts.gather %a[%o] : (<f32>, tensor<4xi32>) -> tensor<4xf32>",
    ),
    "gather masked with default": (
        "%a: !tt.ptr<f32>, %o: tensor<4xi32>, %m: tensor<4xi1>, %z: f32",
        "%0 = tts.gather %a[%o] mask = %m default = %z : (<f32>, tensor<4xi32>) -> tensor<4xf32>",
    ),
    "scatter masked": (
        "%a: !tt.ptr<f32>, %o: tensor<4xi32>, %m: tensor<4xi1>, %v: tensor<4xf32>",
        "tts.scatter %v into %a[%o] mask = %m : tensor<4xf32> into (<f32>, tensor<4xi32>)",
    ),
    "scatter scalar": (
        "%a: !tt.ptr<f32>, %o: i32, %v: f32",
        "tts.scatter %v into %a[%o] : f32 into (<f32>, i32)",
    ),
}


@pytest.mark.parametrize("case", SYNTAX, ids=list(SYNTAX))
def test_syntax_round_trips(case: str) -> None:
    signature, line = SYNTAX[case]
    printed = roundtrip(in_func(signature, line))
    assert line in printed.splitlines()[1].strip()


def test_make_tptr_fields_hold_mixed_lists() -> None:
    module = parse_ir(
        in_func("%a: !tt.ptr<bf16>, %o: index, %s: index", SYNTAX["make_tptr block pointer"][1])
    )
    op = next(o for o in module.walk() if isinstance(o, MakeTensorPtrOp))
    assert op.sizes.get_values() == (128, 64)
    assert op.static_strides.get_values() == (DYNAMIC, DYNAMIC)
    assert op.static_offsets.get_values() == (DYNAMIC, 0)
    assert op.static_shape.get_values() == (DYNAMIC, DYNAMIC)
    assert [len(op.strides), len(op.offsets), len(op.shape)] == [2, 1, 2]
    assert op.order.get_values() == (1, 0) and op.is_block_ptr


# --------------------------------------------------------------------------- #
# Builders infer what triton-shared's builders infer
# --------------------------------------------------------------------------- #


def test_make_tptr_builder_infers_result_from_order() -> None:
    base, offset = values(PTR_BF16, IndexType())
    plain = MakeTensorPtrOp(base, [4, 256], [1, 5], [offset.results[0], 0], [0, 0], [])
    block = MakeTensorPtrOp(base, [128, 64], [64, 1], [0, 0], [512, 64], [1, 0])
    assert plain.result.type == TensorType(PTR_BF16, [4, 256])
    assert block.result.type == PointerType(TensorType(bf16, [128, 64]))
    assert plain.static_offsets.get_values() == (DYNAMIC, 0) and list(plain.offsets) == [offset.results[0]]
    plain.verify()
    block.verify()


def test_load_builder_reads_the_pointee_tile() -> None:
    (tensor_of_ptrs, block) = values(TensorType(PTR_F32, [8, 4]), PointerType(TensorType(bf16, [2, 3])))
    assert LoadOp(tensor_of_ptrs).result.type == TensorType(f32, [8, 4])
    assert LoadOp(block).result.type == TensorType(bf16, [2, 3])
    # Properties print in MLIR's (sorted) order.
    assert list(LoadOp(block).properties) == ["operandSegmentSizes", "static_mask_dims"]


def test_make_unstructured_tptr_shapes_like_the_offsets() -> None:
    base, tensor_offset, scalar_offset = values(PTR_F32, TensorType(i32, [2, 2]), i64)
    tensor = MakeUnstructuredTensorPtrOp.for_offset(base, tensor_offset)
    scalar = MakeUnstructuredTensorPtrOp.for_offset(base, scalar_offset)
    assert tensor.ptr.type == TensorType(PTR_F32, [2, 2])
    assert scalar.ptr.type == PTR_F32
    assert ptr_offset_type(TensorType(PTR_F32, [2, 2]), 64) == TensorType(i64, [2, 2])
    assert ptr_offset_type(PTR_F32, 32) == i32


def test_gather_builder_reads_the_pointee_shaped_like_the_offsets() -> None:
    base, offset, mask, other = values(PTR_F32, TensorType(i32, [4]), TensorType(i1, [4]), f32)
    gather = GatherOp(base, offset, mask, other)
    assert gather.result.type == TensorType(f32, [4])
    gather.verify()


# --------------------------------------------------------------------------- #
# Verifiers
# --------------------------------------------------------------------------- #

BAD = {
    "make_tptr result disagrees with order": (
        "%a: !tt.ptr<bf16>",
        "%0 = tts.make_tptr %a to sizes: [4], strides: [1], offsets: [0], shape: [0], order: [0] "
        ": <bf16> to tensor<4x!tt.ptr<bf16>>",
        "result type",
    ),
    "make_tptr strides of the wrong rank": (
        "%a: !tt.ptr<bf16>",
        "%0 = tts.make_tptr %a to sizes: [4, 4], strides: [1], offsets: [0, 0], shape: [0, 0], order: [] "
        ": <bf16> to tensor<4x4x!tt.ptr<bf16>>",
        "expects 2 strides",
    ),
    "make_unstructured_tptr offset of another shape": (
        "%a: !tt.ptr<f32>, %o: tensor<16xi32>",
        '%0 = "tts.make_unstructured_tptr"(%a, %o) : (!tt.ptr<f32>, tensor<16xi32>) -> tensor<8x!tt.ptr<f32>>',
        "expected tensor<16x!tt.ptr<f32>>",
    ),
    "make_unstructured_tptr i16 offset": (
        "%a: !tt.ptr<f32>, %o: i16",
        '%0 = "tts.make_unstructured_tptr"(%a, %o) : (!tt.ptr<f32>, i16) -> !tt.ptr<f32>',
        "i16",
    ),
    "load of the wrong element type": (
        "%p: tensor<4x!tt.ptr<f32>>",
        '%0 = "tts.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>, static_mask_dims = array<i64>}> '
        ": (tensor<4x!tt.ptr<f32>>) -> tensor<4xf16>",
        "should be tensor<4xf32>",
    ),
    "load with a missing mask operand": (
        "%p: tensor<4x!tt.ptr<f32>>",
        '%0 = "tts.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>, '
        "static_mask_dims = array<i64: -9223372036854775808>}> : (tensor<4x!tt.ptr<f32>>) -> tensor<4xf32>",
        "expects 1 dynamic mask_dims",
    ),
    "store of another shape": (
        "%p: tensor<4x!tt.ptr<f32>>, %v: tensor<8xf32>",
        '"tts.store"(%p, %v) <{static_mask_dims = array<i64>}> : (tensor<4x!tt.ptr<f32>>, tensor<8xf32>) -> ()',
        "should be tensor<4xf32>",
    ),
    "gather with a wrong default": (
        "%a: !tt.ptr<f32>, %o: tensor<4xi32>, %m: tensor<4xi1>, %z: f16",
        '%0 = "tts.gather"(%a, %o, %m, %z) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> '
        ": (!tt.ptr<f32>, tensor<4xi32>, tensor<4xi1>, f16) -> tensor<4xf32>",
        "other type f16",
    ),
    "scatter of the wrong shape": (
        "%a: !tt.ptr<f32>, %o: tensor<4xi32>, %v: tensor<2xf32>",
        "tts.scatter %v into %a[%o] : tensor<2xf32> into (<f32>, tensor<4xi32>)",
        "should be tensor<4xf32>",
    ),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_verifier_rejects(case: str) -> None:
    signature, line, message = BAD[case]
    with pytest.raises(VerifyException, match=re.escape(message)):
        parse_ir(in_func(signature, line)).verify()


def test_gather_mask_type_follows_the_offsets() -> None:
    text = in_func(
        "%a: !tt.ptr<f32>, %o: tensor<4xi32>, %m: tensor<4xi1>",
        "%0 = tts.gather %a[%o] mask = %m : (<f32>, tensor<4xi32>) -> tensor<4xf32>",
    )
    mask = next(o for o in parse_ir(text).walk() if isinstance(o, GatherOp)).mask
    assert mask is not None and mask.type == TensorType(i1, [4])


# --------------------------------------------------------------------------- #
# Traits
# --------------------------------------------------------------------------- #


def test_pointer_makers_are_pure_and_memory_ops_have_effects() -> None:
    base, offset, index = values(PTR_F32, TensorType(i32, [4]), IndexType())
    made = MakeUnstructuredTensorPtrOp.for_offset(base, offset)
    tptr = MakeTensorPtrOp(base, [4], [1], [index.results[0]], [0], [])
    load = LoadOp(tptr)
    store = StoreOp(tptr, load)
    gather = GatherOp(base, offset)
    scatter = ScatterOp(gather, base, offset)
    assert is_side_effect_free(made) and is_side_effect_free(tptr)
    for op, kind in ((load, MemoryEffectKind.READ), (gather, MemoryEffectKind.READ)):
        assert {e.kind for e in get_effects(op) or ()} == {kind}
    for op in (store, scatter):
        assert {e.kind for e in get_effects(op) or ()} == {MemoryEffectKind.WRITE}


# --------------------------------------------------------------------------- #
# triton-shared's own expected outputs, read back from their CHECK lines
# --------------------------------------------------------------------------- #


def check_lines_to_ir(text: str) -> str:
    """The IR a FileCheck test expects, rebuilt from its ``CHECK`` lines.

    ``[[NAME:%.+]]`` defines ``%NAME``, ``[[NAME]]`` uses it, and ``{{.}}``
    stands for the ``[`` before an operand list or the ``]`` after it.
    """
    lines: list[str] = []
    for raw in text.splitlines():
        found = re.match(r"\s*// CHECK(?:-DAG|-NEXT|-SAME)?:\s?(.*)$", raw)
        if found is None:
            continue
        line = re.sub(r"\[\[(\w+):%\.\+\]\]", r"%\1", found.group(1))
        line = re.sub(r"\[\[(\w+)\]\]", r"%\1", line)
        line = re.sub(r"\{\{\.\}\}(?=[%\d])", "[", line)
        lines.append(line.replace("{{.}}", "]"))
    return "module {\n" + "\n".join(lines) + "\n}\n"


def tts_lines(text: str) -> list[str]:
    """The lines of ``text`` with a tts op, SSA names blanked (the printer splits ``%x#0`` names)."""
    return [re.sub(r"%[\w#]+", "%V", line.strip()) for line in text.splitlines() if "tts." in line]


STRUCTURED = ["addptr_2d_example.mlir", "block_ptr_advance.mlir", "kernel-01-vector-add.mlir"]
"""triton-shared's ``triton-to-structured`` tests, whose outputs use tts.make_tptr/load/store."""

UNSTRUCTURED = {
    "gather_reuse_loop_results.mlir": None,
    "scf_for_ptr_in_iterargs.mlir": None,
    "scalar_store.mlir": None,
    "gather_nested.mlir": None,
}
"""``triton-to-unstructured`` tests whose outputs use tts.gather/scatter, with why one cannot parse yet."""


def _unstructured_params() -> list[object]:
    return [
        pytest.param(name, marks=pytest.mark.xfail(reason=reason, strict=True)) if reason else name
        for name, reason in UNSTRUCTURED.items()
    ]


@pytest.mark.parametrize("name", STRUCTURED)
def test_triton_to_structured_outputs_round_trip(name: str) -> None:
    expected = check_lines_to_ir(
        peer_file(f"triton-shared/test/Conversion/TritonToStructured/{name}").read_text()
    )
    assert tts_lines(roundtrip(expected)) == tts_lines(expected)


@pytest.mark.parametrize("name", _unstructured_params())
def test_triton_to_unstructured_outputs_round_trip(name: str) -> None:
    path = peer_file(f"triton-shared/test/Conversion/TritonToUnstructured/{name}")
    expected = check_lines_to_ir(path.read_text())
    got = tts_lines(roundtrip(expected))
    assert got == tts_lines(expected)
    assert any("tts.scatter" in line for line in got)
