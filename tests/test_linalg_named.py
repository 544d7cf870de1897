"""MLIR's OpDSL named linalg ops (passviz/compilers/mlir/dialects/linalg_named.py) against
``iree-opt`` 3.13: each op, in a small module, prints as iree-opt prints it; printed in
generic form, iree-opt reads back the body MLIR builds (casts and flags included); its
indexing maps and iterator types are those of iree-opt's ``--linalg-generalize-named-ops``;
and the interpreter computes pooling, convolution and int8 matmul results numpy does."""

from __future__ import annotations

import re
from io import StringIO
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.linalg.abstract_ops import NamedOperation
from xdsl.ir import Operation
from xdsl.printer import Printer

from passviz.compilers.mlir.dialects.linalg import GenericOp
from passviz.compilers.mlir.dialects.linalg_named import (
    NAMED,
    ElementwiseKind,
    NamedSpec,
    NamedStructuredOp,
    elementwise_arity,
)
from passviz.compilers.registry import interpreter_functions
from passviz.interpret.core import KernelInterpreter
from passviz.ir.printer import print_module
from passviz.pipelines import parse_ir, record
from passviz.pipelines.input import parse_located, verify_input
from tests.conftest import iree_opt_missing, need
from tests.iree_support import run_iree_opt
from tests.test_iree_pipeline import nested_pipeline

_SIZES = {"o": 3, "k": 2, "b": 2, "n": 2}
"""A loop's trip count by its name's first letter (3 elsewhere): output positions 3,
windows 2, batches and images 2."""


def _size(loop: str) -> int:
    return _SIZES.get(loop[0], 3) if loop not in ("m0", "n0", "k0") else 2


def _shape(spec: NamedSpec, dims: str, strides: list[int], dilations: list[int]) -> list[int]:
    shape: list[int] = []
    for dim in dims.split():
        if dim in "DHW":
            index = spec.window.index(dim)
            low = dim.lower()
            shape.append(
                (_size(f"o{low}") - 1) * strides[index] + (_size(f"k{low}") - 1) * dilations[index] + 1
            )
        else:
            shape.append(_size(dim))
    return shape


def _type(shape: list[int] | None, element: str) -> str:
    if shape is None:
        return element
    return f"tensor<{'x'.join(str(s) for s in shape)}{'x' if shape else ''}{element}>"


def module_text(spec: NamedSpec, element: str = "i8", acc: str = "i32", unsigned: bool = False) -> str:
    """A function applying ``spec``'s op to its arguments, ``element`` inputs into an ``acc``
    output, strided by 2 with dilation 1 (2 and 1 along a second window dimension)."""
    count = len(spec.window)
    strides = [2, 1, 2][:count] if spec.strided else [1] * count
    dilations = [1, 2, 1][:count] if spec.strided else [1] * count
    types: list[str] = []
    for index, dims in enumerate(spec.operands):
        last = index == len(spec.operands) - 1
        if spec.name == "copy":
            types.append(_type([4, 8], acc if last else element))
        elif spec.name == "fill_rng_2d":
            types.append(
                _type(_shape(spec, dims, strides, dilations), "f32")
                if last
                else ("i32" if index == 2 else "f64")
            )
        elif not dims and not last:
            types.append("i32")  # a zero point
        else:
            types.append(_type(_shape(spec, dims, strides, dilations), acc if last else element))
    attrs: list[str] = []
    if spec.window and spec.strided:
        attrs.append(f"dilations = dense<{dilations}> : tensor<{count}xi64>")
        attrs.append(f"strides = dense<{strides}> : vector<{count}xi64>")
    if unsigned:
        attrs.append("cast = #linalg.type_fn<cast_unsigned>")
    front = f" {{{', '.join(attrs)}}}" if attrs else ""
    args = [f"%a{i}: {t}" for i, t in enumerate(types)]
    ins = ", ".join(f"%a{i}" for i in range(len(types) - 1))
    last = len(types) - 1
    return (
        f"func.func @f({', '.join(args)}) -> {types[-1]} {{\n"
        f"  %0 = linalg.{spec.name}{front} ins({ins} : {', '.join(types[:-1])}) "
        f"outs(%a{last} : {types[-1]}) -> {types[-1]}\n"
        f"  return %0 : {types[-1]}\n}}\n"
    )


_CASES = (
    [(spec, "i8", "i32") for spec in NAMED if spec.payload != "rng"]
    + [(spec, "f16", "f32") for spec in NAMED if spec.payload in ("mac", "max", "sum", "min", "copy")]
    + [(spec, "f64", "f32") for spec in NAMED if spec.payload == "rng"]
)
"""Every op with i8 inputs into i32 (sign-extended), the floating ones f16 into f32 too."""


def _op_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if re.search(r"= linalg\.\w+ ", line)]


def _generic(module: Operation) -> str:
    stream = StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    return stream.getvalue()


def _named_ops(module: ModuleOp) -> list[NamedStructuredOp]:
    return [op for op in module.walk() if isinstance(op, NamedStructuredOp)]


def check_against_iree_opt(text: str, count: int, inline_maps: bool = False) -> None:
    """``text``'s ``count`` structured ops, read from iree-opt's output, print as iree-opt
    prints them; printed in generic form, iree-opt reads back the bodies it builds itself;
    their maps and iterators are those of iree-opt's ``--linalg-generalize-named-ops``."""
    theirs = run_iree_opt(text)
    parsed = parse_located(theirs, "in.mlir")
    verify_input(parsed.module, "in.mlir", op_starts=parsed.op_starts)
    ours, expected_lines = _op_lines(print_module(parsed.module)), _op_lines(theirs)
    assert len(ours) == len(expected_lines) == count
    if inline_maps:  # passviz prints maps inline where iree-opt names them #map: read back
        assert run_iree_opt(print_module(parsed.module)) == theirs
    else:
        for mine, expected_line in zip(ours, expected_lines, strict=True):
            assert mine == expected_line
    generic = "--mlir-print-op-generic"
    assert run_iree_opt(_generic(parsed.module), generic) == run_iree_opt(theirs, generic)
    generalized = parse_ir(run_iree_opt(theirs, "--linalg-generalize-named-ops"))
    generics = [op for op in generalized.walk() if isinstance(op, GenericOp)]
    named = [op for op in parsed.module.walk() if isinstance(op, NamedOperation)]
    assert len(generics) == len(named) == count
    for op, expected in zip(named, generics, strict=True):
        assert op.get_indexing_maps() == expected.indexing_maps, op.name
        assert op.get_iterator_types() == expected.iterator_types, op.name


@pytest.mark.iree
def test_every_named_op_equals_iree_opt() -> None:
    """Every op of the table, each in a function of one module (iree-opt runs four times in all)."""
    need(iree_opt_missing())
    text = "\n".join(
        module_text(spec, element, acc).replace("@f(", f"@f{i}(")
        for i, (spec, element, acc) in enumerate(_CASES)
    )
    check_against_iree_opt(text, len(_CASES))
    # Read back in generic form, the payloads as MLIR builds them (fill_rng_2d's linalg.index too).
    readable = text
    generic = parse_located(run_iree_opt(readable, "--mlir-print-op-generic"), "generic.mlir")
    verify_input(generic.module, "generic.mlir", op_starts=generic.op_starts)
    assert run_iree_opt(print_module(generic.module)) == run_iree_opt(readable)


_CONTRACTIONS = """func.func @f(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %c: tensor<4x16xi32>, %ba: tensor<2x4x8xi8>, %bb: tensor<2x8x16xi8>, %bc: tensor<2x4x16xi32>, %bv: tensor<2x8xi8>, %bvo: tensor<2x4xi32>, %i: tensor<1x6x6x3xi8>, %k: tensor<2x2x3x4xi8>, %o: tensor<1x5x5x4xi32>, %dk: tensor<2x2x3xi8>, %do: tensor<1x5x5x3xi32>, %z: i32, %ni: tensor<1x3x6x6xi8>, %nk: tensor<4x3x2x2xi8>, %no: tensor<1x4x5x5xi32>, %brm: tensor<4x16xi32>, %af: tensor<4x8xf16>, %bf: tensor<8x16xf16>, %cf: tensor<4x16xf32>) -> (tensor<4x16xi32>, tensor<4x16xi32>, tensor<2x4x16xi32>, tensor<2x4xi32>, tensor<1x5x5x4xi32>, tensor<1x5x5x3xi32>, tensor<1x5x5x3xi32>, tensor<1x4x5x5xi32>, tensor<4x16xi32>, tensor<4x16xi32>, tensor<4x16xi32>, tensor<4x16xf32>, tensor<2x4x16xi32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>) outs(%c : tensor<4x16xi32>) -> tensor<4x16xi32>
  %1 = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>) outs(%c : tensor<4x16xi32>) -> tensor<4x16xi32>
  %2 = linalg.batch_matmul ins(%ba, %bb : tensor<2x4x8xi8>, tensor<2x8x16xi8>) outs(%bc : tensor<2x4x16xi32>) -> tensor<2x4x16xi32>
  %3 = linalg.batch_matvec ins(%ba, %bv : tensor<2x4x8xi8>, tensor<2x8xi8>) outs(%bvo : tensor<2x4xi32>) -> tensor<2x4xi32>
  %4 = linalg.conv_2d_nhwc_hwcf ins(%i, %k : tensor<1x6x6x3xi8>, tensor<2x2x3x4xi8>) outs(%o : tensor<1x5x5x4xi32>) -> tensor<1x5x5x4xi32>
  %5 = linalg.depthwise_conv_2d_nhwc_hwc ins(%i, %dk : tensor<1x6x6x3xi8>, tensor<2x2x3xi8>) outs(%do : tensor<1x5x5x3xi32>) -> tensor<1x5x5x3xi32>
  %6 = linalg.depthwise_conv_2d_nhwc_hwc_q ins(%i, %dk, %z, %z : tensor<1x6x6x3xi8>, tensor<2x2x3xi8>, i32, i32) outs(%do : tensor<1x5x5x3xi32>) -> tensor<1x5x5x3xi32>
  %7 = linalg.conv_2d_nchw_fchw ins(%ni, %nk : tensor<1x3x6x6xi8>, tensor<4x3x2x2xi8>) outs(%no : tensor<1x4x5x5xi32>) -> tensor<1x4x5x5xi32>
  %8 = linalg.fill ins(%z : i32) outs(%c : tensor<4x16xi32>) -> tensor<4x16xi32>
  %9 = linalg.batch_reduce_matmul ins(%ba, %bb : tensor<2x4x8xi8>, tensor<2x8x16xi8>) outs(%brm : tensor<4x16xi32>) -> tensor<4x16xi32>
  %10 = linalg.batch_reduce_matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%ba, %bb : tensor<2x4x8xi8>, tensor<2x8x16xi8>) outs(%brm : tensor<4x16xi32>) -> tensor<4x16xi32>
  %11 = linalg.matmul ins(%af, %bf : tensor<4x8xf16>, tensor<8x16xf16>) outs(%cf : tensor<4x16xf32>) -> tensor<4x16xf32>
  %12 = linalg.batch_matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%ba, %bb : tensor<2x4x8xi8>, tensor<2x8x16xi8>) outs(%bc : tensor<2x4x16xi32>) -> tensor<2x4x16xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12 : tensor<4x16xi32>, tensor<4x16xi32>, tensor<2x4x16xi32>, tensor<2x4xi32>, tensor<1x5x5x4xi32>, tensor<1x5x5x3xi32>, tensor<1x5x5x3xi32>, tensor<1x4x5x5xi32>, tensor<4x16xi32>, tensor<4x16xi32>, tensor<4x16xi32>, tensor<4x16xf32>, tensor<2x4x16xi32>
}
"""
"""linalg.py's named ops on i8 into i32 (the int8 matmul sign-extended, or zero-extended under
``cast_unsigned``) and an f16 matmul into f32."""


@pytest.mark.iree
def test_linalg_py_named_ops_equal_iree_opt() -> None:
    """The matmuls, batched contractions, 2-D convolutions and fill of linalg.py, likewise."""
    need(iree_opt_missing())
    check_against_iree_opt(_CONTRACTIONS, 13)


@pytest.mark.iree
@pytest.mark.parametrize("name", ["copy", "pooling_nhwc_max_unsigned", "pooling_nwc_min_unsigned"])
def test_unsigned_casts_equal_iree_opt(name: str) -> None:
    """``cast = #linalg.type_fn<cast_unsigned>`` and the ``_unsigned`` poolings zero-extend."""
    need(iree_opt_missing())
    spec = next(s for s in NAMED if s.name == name)
    theirs = run_iree_opt(module_text(spec, unsigned=spec.cast_attr))
    module = parse_ir(theirs)
    assert _op_lines(print_module(module)) == _op_lines(theirs)
    generic = "--mlir-print-op-generic"
    assert run_iree_opt(_generic(module), generic) == run_iree_opt(theirs, generic)
    assert "arith.extui" in _generic(module)


_MODEL = """func.func @net(%x: tensor<1x10x10x3xi8>, %k: tensor<4x3x3x3xi8>, %zi: i32, %zk: i32) -> tensor<1x4x4x4xi32> {
  %c0 = arith.constant 0 : i32
  %0 = tensor.empty() : tensor<1x8x8x4xi32>
  %1 = linalg.fill ins(%c0 : i32) outs(%0 : tensor<1x8x8x4xi32>) -> tensor<1x8x8x4xi32>
  %2 = linalg.conv_2d_nhwc_fhwc_q ins(%x, %k, %zi, %zk : tensor<1x10x10x3xi8>, tensor<4x3x3x3xi8>, i32, i32) outs(%1 : tensor<1x8x8x4xi32>) -> tensor<1x8x8x4xi32>
  %min = arith.constant -2147483648 : i32
  %3 = tensor.empty() : tensor<1x4x4x4xi32>
  %4 = linalg.fill ins(%min : i32) outs(%3 : tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32>
  %w = tensor.empty() : tensor<2x2xi32>
  %5 = linalg.pooling_nhwc_max {strides = dense<2> : vector<2xi64>} ins(%2, %w : tensor<1x8x8x4xi32>, tensor<2x2xi32>) outs(%4 : tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32>
  return %5 : tensor<1x4x4x4xi32>
}
"""
"""An int8 quantized convolution into i32, max-pooled: both dispatch roots of their own."""


@pytest.mark.iree
def test_model_through_iree_flow_equals_iree_opt() -> None:
    """A quantized convolution and a pooling through passviz's ``iree-flow``: iree-opt's module."""
    need(iree_opt_missing())
    run = record(_MODEL, "iree-flow")
    assert run.trace.status == "ok", run.trace.failed_steps
    pipeline = f"--pass-pipeline={nested_pipeline('func.func')}"
    assert run_iree_opt(print_module(run.module)) == run_iree_opt(_MODEL, pipeline)


def _elementwise_module() -> tuple[str, int]:
    """Every ``linalg.elementwise`` kind on f32 (select choosing by an i1), and the integer
    ones on i32, each in a function of its own; and how many ops that is."""
    functions: list[str] = []
    for kind in (str(k) for k in ElementwiseKind):
        # an unsigned function of floats aborts iree-opt 3.13 (passviz refuses it)
        types = ([] if kind.endswith("_unsigned") else ["f32"]) + (["i32"] if kind in _INTEGER_KINDS else [])
        for element in types:
            arity = elementwise_arity(kind)
            ins = ["i1" if kind == "select" and k == 0 else element for k in range(arity)]
            tensor = [f"tensor<4x8x{t}>" for t in ins]
            args = ", ".join(f"%a{k}: {t}" for k, t in enumerate(tensor))
            out = f"tensor<4x8x{element}>"
            functions.append(
                f"func.func @{kind}_{element}({args}, %o: {out}) -> {out} {{\n"
                f"  %0 = linalg.elementwise<{kind}> ins({', '.join(f'%a{k}' for k in range(arity))} : "
                f"{', '.join(tensor)}) outs(%o : {out}) -> {out}\n  return %0 : {out}\n}}\n"
            )
    return "\n".join(functions), len(functions)


_INTEGER_KINDS = {
    "add",
    "sub",
    "mul",
    "div",
    "div_unsigned",
    "max_signed",
    "min_signed",
    "max_unsigned",
    "min_unsigned",
}


@pytest.mark.iree
def test_elementwise_equals_iree_opt() -> None:
    """``linalg.elementwise <kind>``, every kind, as iree-opt 3.13 prints and builds it."""
    need(iree_opt_missing())
    check_against_iree_opt(*_elementwise_module())


@pytest.mark.iree
def test_elementwise_with_maps_equals_iree_opt() -> None:
    """A broadcasting ``indexing_maps``: read, printed and built as iree-opt does (passviz
    prints the maps inline where iree-opt names them ``#map``)."""
    need(iree_opt_missing())
    text = """func.func @f(%a: tensor<4x8xf32>, %r: tensor<8xf32>, %o: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = linalg.elementwise <sub> indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>] ins(%a, %r : tensor<4x8xf32>, tensor<8xf32>) outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
"""
    module = parse_ir(text)
    assert run_iree_opt(print_module(module)) == run_iree_opt(text)
    generic = "--mlir-print-op-generic"
    assert run_iree_opt(_generic(module), generic) == run_iree_opt(text, generic)


_CONTRACT = """func.func @f(%a: tensor<4x8xi8>, %b: tensor<16x8xi8>, %c: tensor<4x16xi32>, %x: tensor<2x4x8xf16>, %y: tensor<2x8x16xf16>, %z: tensor<4x16xf32>) -> (tensor<4x16xi32>, tensor<4x16xf32>) {
  %0 = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %b : tensor<4x8xi8>, tensor<16x8xi8>) outs(%c : tensor<4x16xi32>) -> tensor<4x16xi32>
  %1 = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<4x8xi8>, tensor<16x8xi8>) outs(%0 : tensor<4x16xi32>) -> tensor<4x16xi32>
  %2 = linalg.contract indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d3, d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>] ins(%x, %y : tensor<2x4x8xf16>, tensor<2x8x16xf16>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %1, %2 : tensor<4x16xi32>, tensor<4x16xf32>
}
"""
"""``linalg.contract``: a transposed int8 matmul, signed and unsigned, and an f16 batch-reduce."""


@pytest.mark.iree
def test_contract_equals_iree_opt() -> None:
    """``linalg.contract``'s bodies, maps and iterators (its batch a reduction) as iree-opt's."""
    need(iree_opt_missing())
    check_against_iree_opt(_CONTRACT, 3, inline_maps=True)


def test_attributes_print_sorted() -> None:
    """MLIR prints a named op's properties and attributes as one dictionary sorted by name."""
    text = """func.func @f(%i: tensor<1x4x4x1xf32>, %w: tensor<2x2xf32>, %o: tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32> {
  %0 = linalg.pooling_nhwc_sum {strides = dense<2> : vector<2xi64>, dilations = dense<1> : vector<2xi64>} ins(%i, %w : tensor<1x4x4x1xf32>, tensor<2x2xf32>) outs(%o : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  return %0 : tensor<1x2x2x1xf32>
}
"""
    printed = print_module(parse_ir(text))
    assert (
        "linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins("
        in printed
    )


def _run(text: str, *args: Any) -> Any:
    return _run_all(text, *args)[0]


def _run_all(text: str, *args: Any) -> Any:
    module = parse_ir(text)
    interpreter = KernelInterpreter(module)
    for functions in interpreter_functions():
        interpreter.register_implementations(functions)
    function = next(op for op in module.walk() if op.name == "func.func")
    return interpreter.call(function, args)


_POOL = """func.func @f(%i: tensor<1x7x7x3x{t}>, %w: tensor<3x3x{t}>, %o: tensor<1x3x3x3x{t}>) -> tensor<1x3x3x3x{t}> {{
  %0 = linalg.pooling_nhwc_{kind} {{dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}} ins(%i, %w : tensor<1x7x7x3x{t}>, tensor<3x3x{t}>) outs(%o : tensor<1x3x3x3x{t}>) -> tensor<1x3x3x3x{t}>
  return %0 : tensor<1x3x3x3x{t}>
}}
"""


def _windows(image: Any, size: int, stride: int) -> Any:
    """``image`` (NHWC) as its windows: ``[n, oh, ow, kh, kw, c]``."""
    out = (image.shape[1] - size) // stride + 1
    return np.stack(
        [
            np.stack(
                [
                    image[:, y * stride : y * stride + size, x * stride : x * stride + size]
                    for x in range(out)
                ],
                1,
            )
            for y in range(out)
        ],
        1,
    )


@pytest.mark.parametrize(("kind", "reduce"), [("max", np.max), ("sum", np.sum), ("min", np.min)])
def test_pooling_runs_as_numpy_computes(kind: str, reduce: Any) -> None:
    """A 3x3 window, stride 2, over an NHWC image: numpy's max, sum or min of each window."""
    rng = np.random.default_rng(0)
    image = rng.standard_normal((1, 7, 7, 3)).astype(np.float32)
    init = np.full((1, 3, 3, 3), {"max": -np.inf, "sum": 0.0, "min": np.inf}[kind], dtype=np.float32)
    got = _run(_POOL.format(t="f32", kind=kind), image, np.zeros((3, 3), np.float32), init)
    expected = reduce(_windows(image, 3, 2), axis=(3, 4))
    np.testing.assert_allclose(got, expected, rtol=1e-5)


def test_conv_1d_nwc_wcf_runs_as_numpy_computes() -> None:
    """An i8 1-D convolution into i32, stride 2, dilation 2: numpy's sum of products."""
    text = """func.func @f(%i: tensor<2x11x3xi8>, %k: tensor<3x3x4xi8>, %o: tensor<2x3x4xi32>) -> tensor<2x3x4xi32> {
  %0 = linalg.conv_1d_nwc_wcf {dilations = dense<2> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>} ins(%i, %k : tensor<2x11x3xi8>, tensor<3x3x4xi8>) outs(%o : tensor<2x3x4xi32>) -> tensor<2x3x4xi32>
  return %0 : tensor<2x3x4xi32>
}
"""
    rng = np.random.default_rng(1)
    image = rng.integers(-128, 128, (2, 11, 3), dtype=np.int8)
    kernel = rng.integers(-128, 128, (3, 3, 4), dtype=np.int8)
    got = _run(text, image, kernel, np.zeros((2, 3, 4), np.int32))
    expected = np.zeros((2, 3, 4), np.int64)
    for ow in range(3):
        for kw in range(3):
            expected[:, ow] += image[:, ow * 2 + kw * 2].astype(np.int64) @ kernel[kw].astype(np.int64)
    np.testing.assert_array_equal(got, expected.astype(np.int32))


def test_int8_matmul_runs_as_numpy_computes() -> None:
    """i8 x i8 -> i32: the inputs sign-extended before they multiply (no i8 wrap-around)."""
    text = """func.func @f(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %c: tensor<4x16xi32>) -> tensor<4x16xi32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>) outs(%c : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}
"""
    rng = np.random.default_rng(2)
    a = rng.integers(-128, 128, (4, 8), dtype=np.int8)
    b = rng.integers(-128, 128, (8, 16), dtype=np.int8)
    got = _run(text, a, b, np.zeros((4, 16), np.int32))
    np.testing.assert_array_equal(got, a.astype(np.int32) @ b.astype(np.int32))


def test_elementwise_runs_as_numpy_computes() -> None:
    """``linalg.elementwise <sub>`` of a row broadcast along the rows, then ``<exp>``."""
    text = """func.func @f(%a: tensor<4x8xf32>, %r: tensor<8xf32>, %o: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = linalg.elementwise <sub> indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>] ins(%a, %r : tensor<4x8xf32>, tensor<8xf32>) outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = linalg.elementwise <exp> ins(%0 : tensor<4x8xf32>) outs(%o : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
"""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 8)).astype(np.float32)
    r = rng.standard_normal(8).astype(np.float32)
    got = _run(text, a, r, np.zeros((4, 8), np.float32))
    np.testing.assert_allclose(got, np.exp(a - r), rtol=1e-6)


def test_contract_runs_as_numpy_computes() -> None:
    """``_CONTRACT``: the i8 contraction against a transposed B (unsigned the second time,
    accumulating on the first) and the f16 batch-reduce into f32."""
    rng = np.random.default_rng(4)
    a = rng.integers(-128, 128, (4, 8), dtype=np.int8)
    b = rng.integers(-128, 128, (16, 8), dtype=np.int8)
    x = rng.standard_normal((2, 4, 8)).astype(np.float16)
    y = rng.standard_normal((2, 8, 16)).astype(np.float16)
    got, reduced = _run_all(_CONTRACT, a, b, np.zeros((4, 16), np.int32), x, y, np.zeros((4, 16), np.float32))
    signed = a.astype(np.int64) @ b.T.astype(np.int64)
    unsigned = a.view(np.uint8).astype(np.int64) @ b.view(np.uint8).T.astype(np.int64)
    np.testing.assert_array_equal(got, (signed + unsigned).astype(np.int32))
    expected = np.einsum("bmk,bkn->mn", x.astype(np.float32), y.astype(np.float32))
    np.testing.assert_allclose(reduced, expected, rtol=1e-4, atol=1e-4)


def test_every_op_is_structured() -> None:
    """Each op has as many maps as operands, each over its loops, one iterator type a loop."""
    from passviz.compilers.mlir.dialects.linalg import is_structured

    for spec in NAMED:
        module = parse_ir(
            module_text(
                spec, "f64" if spec.payload == "rng" else "i8", "f32" if spec.payload == "rng" else "i32"
            )
        )
        (op,) = _named_ops(module)
        assert is_structured(op), spec.name
        maps = op.get_indexing_maps().data
        assert len(maps) == len(op.operands), spec.name
        assert {m.data.num_dims for m in maps} == {len(op.get_iterator_types())}, spec.name
        assert re.fullmatch(r"linalg\.\w+", op.name)


_REDUCES = """func.func @f(%x: tensor<8x16xf32>, %i: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = linalg.reduce { arith.addf } ins(%x : tensor<8x16xf32>) outs(%i : tensor<8xf32>) dimensions = [1]
  %1 = linalg.reduce ins(%x : tensor<8x16xf32>) outs(%i : tensor<8xf32>) dimensions = [1] {tag}
    (%a: f32, %b: f32) {
      %s = arith.maximumf %b, %a : f32
      linalg.yield %s : f32
    }
  %2 = linalg.reduce ins(%x : tensor<8x16xf32>) outs(%i : tensor<8xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.subf %a, %b : f32
      linalg.yield %s : f32
    }
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
"""
"""``linalg.reduce`` in its short form, a body MLIR prints short (the init's argument first), and
one it cannot (the input's first)."""


@pytest.mark.iree
def test_reduce_short_form_equals_iree_opt() -> None:
    need(iree_opt_missing())
    theirs = run_iree_opt(_REDUCES)
    parsed = parse_located(theirs, "in.mlir")
    verify_input(parsed.module, "in.mlir", op_starts=parsed.op_starts)

    def ops(text: str) -> list[str]:  # without the result's name, which each printer makes unique its way
        return [line.split(" = ", 1)[1] for line in _op_lines(text)]

    assert ops(print_module(parsed.module)) == ops(theirs) and len(ops(theirs)) == 3
    generic = "--mlir-print-op-generic"
    assert run_iree_opt(_generic(parsed.module), generic) == run_iree_opt(theirs, generic)
