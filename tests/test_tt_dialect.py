"""Tests of the Triton ``tt`` dialect (passviz.compilers.triton.dialects.tt): syntax, verifiers,
traits and folders.

Op syntax is checked against Triton 3.6's own printer where Triton is
installed; ``tests/test_tt_roundtrip.py`` round-trips whole real inputs.
"""

from __future__ import annotations

import functools
import json
import math
import re
import subprocess
import sys
import textwrap
from io import StringIO

import pytest
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import (
    Builtin,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    ModuleOp,
    TensorType,
    bf16,
    f16,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.dialects.cf import Cf
from xdsl.dialects.func import Func
from xdsl.dialects.math import Math
from xdsl.dialects.scf import Scf
from xdsl.folder import Folder
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    CallableOpInterface,
    ConditionallySpeculatable,
    HasCanonicalizationPatternsTrait,
    HasFolder,
    IsolatedFromAbove,
    IsTerminator,
    MemoryEffectKind,
    ReturnLike,
    SymbolOpInterface,
    get_effects,
    is_speculatable,
)
from xdsl.utils.exceptions import ParseError, VerifyException

from passviz.compilers.triton.dialects import tt
from passviz.compilers.triton.dialects.tt import (
    TT,
    AddPtrOp,
    AdvanceOp,
    BroadcastOp,
    CacheModifier,
    CallOp,
    DotOp,
    Elementwise,
    EvictionPolicy,
    ExpandDimsOp,
    FpToFpOp,
    FuncOp,
    GetProgramIdOp,
    GlobalMemory,
    InputPrecision,
    JoinOp,
    LoadOp,
    MakeRangeOp,
    MakeTensorPtrOp,
    PointerType,
    ProgramIDDim,
    ReduceOp,
    ReduceReturnOp,
    ReshapeOp,
    ReturnOp,
    ScanOp,
    SplatOp,
    SplitOp,
    StoreOp,
    TransOp,
    get_i1_same_shape,
    get_pointee_type,
)
from passviz.compilers.triton.version import installed_triton_version, triton_version, use_triton_version
from tests.conftest import need, peer_file, split_chunks
from tests.test_tt_roundtrip import tt_op_lines
from tests.triton_oracle import triton_missing, triton_normalize

# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #


@pytest.fixture
def ctx() -> Context:
    context = Context(allow_unregistered=False)
    for dialect in (Builtin, Func, Arith, Math, Cf, Scf, TT):
        context.load_dialect(dialect)
    return context


def parse(ctx: Context, text: str) -> ModuleOp:
    return Parser(ctx, text).parse_module()


def print_op(op: ModuleOp | FuncOp) -> str:
    out = StringIO()
    Printer(stream=out).print_op(op)
    return out.getvalue()


def print_body(module: ModuleOp) -> str:
    """Print the ops of ``module``, without the implicit ``builtin.module``."""
    text = print_op(module)
    assert text.startswith("builtin.module {\n") and text.endswith("\n}")
    inner = text[len("builtin.module {\n") : -len("\n}")]
    return textwrap.dedent(inner)


def roundtrip(ctx: Context, text: str) -> str:
    """Parse, verify and print ``text``; check that printing is then stable."""
    module = parse(ctx, text)
    module.verify()
    printed = print_body(module)
    reparsed = parse(ctx, printed)
    reparsed.verify()
    assert print_body(reparsed) == printed
    return printed


def normalize_ssa(line: str) -> str:
    """Blank out numbered SSA names, which the printer renumbers."""
    return re.sub(r"%\d+", "%N", line.strip())


def tt_memory_lines(text: str) -> list[str]:
    """The ``tt.load``/``tt.store`` lines of ``text``, comments left out."""
    lines = (line.split("//")[0].strip() for line in text.splitlines())
    return [normalize_ssa(line) for line in lines if re.search(r"\btt\.(load|store)\b", line)]


# --------------------------------------------------------------------------- #
# !tt.ptr
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "type_text",
    [
        "!tt.ptr<f32>",
        "!tt.ptr<f16, 3>",
        "!tt.ptr<tensor<128x64xf16>>",
        "tensor<128x!tt.ptr<f32>>",
        "tensor<32x128x!tt.ptr<f16>>",
        "!tt.ptr<!tt.ptr<i8>>",
    ],
)
def test_pointer_type_roundtrip(ctx: Context, type_text: str) -> None:
    text = f"tt.func private @decl({type_text})"
    assert roundtrip(ctx, text) == text


def test_pointer_type_default_address_space_is_not_printed(ctx: Context) -> None:
    module = parse(ctx, "tt.func private @decl(!tt.ptr<f32, 1>, !tt.ptr<f32, 3>)")
    func = module.body.block.first_op
    assert isinstance(func, FuncOp)
    first, second = func.function_type.inputs.data
    assert first == PointerType(f32) == PointerType(f32, 1)
    assert isinstance(second, PointerType) and second.address_space.data == 3
    assert print_body(module) == "tt.func private @decl(!tt.ptr<f32>, !tt.ptr<f32, 3>)"


def test_pointee_helpers() -> None:
    ptr_tensor = TensorType(PointerType(f32), [128])
    assert get_pointee_type(PointerType(f16)) == f16
    assert get_pointee_type(ptr_tensor) == TensorType(f32, [128])
    block_ptr = PointerType(TensorType(f16, [128, 64]))
    assert get_pointee_type(block_ptr) == TensorType(f16, [128, 64])
    assert get_i1_same_shape(TensorType(f32, [4, 8])) == TensorType(i1, [4, 8])
    assert get_i1_same_shape(f32) == i1


# --------------------------------------------------------------------------- #
# tt.func / tt.return / tt.call
# --------------------------------------------------------------------------- #

WRAP_FUNC_FILE = "triton-linalg/test/Dialect/Triton/wrap-func-body-with-single-block.mlir"


def test_wrap_func_body_file_multi_block_tt_func(ctx: Context) -> None:
    chunks = split_chunks(peer_file(WRAP_FUNC_FILE).read_text())
    assert len(chunks) == 3
    # The input writes `tt.return %arg1: i32`; the printer adds the space.
    assert roundtrip(ctx, chunks[0]) == textwrap.dedent(
        """\
        tt.func @wrap_multi_block_triton_func(%arg0: i1, %arg1: i32, %arg2: i32) -> i32 {
          cf.cond_br %arg0, ^bb1, ^bb2
        ^bb1:
          tt.return %arg1 : i32
        ^bb2:
          tt.return %arg2 : i32
        }"""
    )
    module = parse(ctx, chunks[0])
    func = module.body.block.first_op
    assert isinstance(func, FuncOp)
    assert len(func.body.blocks) == 3
    returns = [op for op in func.walk() if isinstance(op, ReturnOp)]
    assert [ret.srcs[0] for ret in returns] == list(func.args[1:])


def test_wrap_func_body_file_other_chunks(ctx: Context) -> None:
    chunks = split_chunks(peer_file(WRAP_FUNC_FILE).read_text())
    # func.func still works next to tt (the printer spells `func.return`).
    printed = roundtrip(ctx, chunks[1])
    assert printed.startswith("func.func @wrap_multi_block_func(")
    assert "func.return %arg1 : i32" in printed
    # Single-block function, no result.
    assert roundtrip(ctx, chunks[2]) == textwrap.dedent(
        """\
        tt.func @ignore_single_block_func() {
          tt.return
        }"""
    )


@pytest.mark.parametrize(
    "text",
    [
        "tt.func @f(%arg0: i1, %arg1: i32) -> i32 {\n  tt.return %arg1 : i32\n}",
        "tt.func public @k(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, "
        "%arg1: i32) attributes {noinline = false} {\n  tt.return\n}",
        "tt.func private @decl(i32, f32) -> (i32, f32)",
        "tt.func private @abort()",
        "tt.func @two(%arg0: i32, %arg1: f32) -> (i32, f32) {\n  tt.return %arg0, %arg1 : i32, f32\n}",
    ],
)
def test_func_syntax_roundtrip(ctx: Context, text: str) -> None:
    assert roundtrip(ctx, text) == text


def test_func_properties(ctx: Context) -> None:
    module = parse(
        ctx,
        "tt.func public @k(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {\n"
        "  tt.return\n}\n"
        "tt.func private @decl(i32) -> i32",
    )
    kernel, decl = module.ops
    assert isinstance(kernel, FuncOp) and isinstance(decl, FuncOp)
    assert kernel.sym_name.data == "k"
    assert kernel.sym_visibility is not None
    assert kernel.sym_visibility.data == "public"
    assert kernel.arg_attrs is not None
    assert "tt.divisibility" in kernel.arg_attrs.data[0].data
    assert isinstance(kernel.get_return_op(), ReturnOp)
    assert not kernel.is_declaration
    assert decl.is_declaration and decl.get_return_op() is None
    assert decl.sym_visibility is not None and decl.sym_visibility.data == "private"
    assert decl.function_type.outputs.data == (i32,)


def test_func_traits() -> None:
    assert FuncOp.has_trait(SymbolOpInterface)
    assert FuncOp.has_trait(IsolatedFromAbove)
    assert FuncOp.has_trait(CallableOpInterface)
    assert ReturnOp.has_trait(IsTerminator)
    assert ReturnOp.has_trait(ReturnLike)
    func = FuncOp("f", ([i32], [i32]))
    callable_trait = func.get_trait(CallableOpInterface)
    assert callable_trait is not None
    assert callable_trait.get_callable_region(func) is func.body
    assert callable_trait.get_argument_types(func) == (i32,)
    assert callable_trait.get_result_types(func) == (i32,)


def test_call_roundtrip_and_verify(ctx: Context) -> None:
    text = textwrap.dedent(
        """\
        tt.func private @foo(i32, i32) -> i32
        tt.func @caller(%arg0: i32, %arg1: i32) -> i32 {
          %0 = tt.call @foo(%arg0, %arg1) : (i32, i32) -> i32
          tt.call @bar() : () -> ()
          tt.return %0 : i32
        }
        tt.func @bar() {
          tt.return
        }"""
    )
    assert roundtrip(ctx, text) == text
    call = next(op for op in parse(ctx, text).walk() if isinstance(op, CallOp))
    assert call.callee.string_value() == "foo"
    assert [a.name_hint for a in call.arguments] == ["arg0", "arg1"]
    assert call.res.types == (i32,)


def test_call_type_mismatch_is_rejected(ctx: Context) -> None:
    module = parse(
        ctx,
        "tt.func private @foo(i32) -> i32\n"
        "tt.func @caller(%arg0: f32) {\n"
        "  %0 = tt.call @foo(%arg0) : (f32) -> i32\n"
        "  tt.return\n}",
    )
    with pytest.raises(VerifyException, match="operand type mismatch"):
        module.verify()


def test_call_to_unknown_symbol_is_rejected(ctx: Context) -> None:
    module = parse(ctx, "tt.func @caller() {\n  tt.call @nowhere() : () -> ()\n  tt.return\n}")
    with pytest.raises(VerifyException, match="could not be found"):
        module.verify()


def test_wrong_return_type_is_rejected(ctx: Context) -> None:
    module = parse(ctx, "tt.func @f(%arg0: i32) -> f32 {\n  tt.return %arg0 : i32\n}")
    with pytest.raises(VerifyException) as info:
        module.verify()
    assert ("type of return operand 0 (i32) doesn't match function result type (f32) in function @f") in str(
        info.value
    )


def test_wrong_return_count_is_rejected(ctx: Context) -> None:
    module = parse(ctx, "tt.func @f(%arg0: i32) -> i32 {\n  tt.return\n}")
    message = "has 0 operands, but enclosing function (@f) returns 1"
    with pytest.raises(VerifyException, match=re.escape(message)):
        module.verify()


def test_return_must_be_in_tt_func(ctx: Context) -> None:
    module = parse(ctx, "func.func @f() {\n  tt.return\n}")
    message = "'tt.return' expects parent op 'tt.func'"
    with pytest.raises(VerifyException, match=message):
        module.verify()


def test_tt_func_must_be_in_a_module(ctx: Context) -> None:
    module = parse(
        ctx,
        "func.func @outer() {\n"
        "  scf.execute_region {\n    tt.func @inner() {\n      tt.return\n    }\n"
        "    scf.yield\n  }\n  func.return\n}",
    )
    message = "'tt.func' expects parent op 'builtin.module'"
    with pytest.raises(VerifyException, match=message):
        module.verify()


def test_built_func_verifies_and_prints() -> None:
    func = FuncOp("f", ([i32], [i32]))
    func.body.block.add_op(ReturnOp(func.args[0]))
    module = ModuleOp([func])
    module.verify()
    assert print_body(module) == "tt.func @f(%0: i32) -> i32 {\n  tt.return %0 : i32\n}"
    decl = FuncOp.external("ext", [f32], [])
    assert decl.is_declaration and isinstance(decl.body, Region)
    assert print_op(decl) == "tt.func private @ext(f32)"


def test_entry_block_must_match_signature() -> None:
    func = FuncOp("f", ([i32], []), Region(Block(arg_types=[f32])))
    func.body.block.add_op(ReturnOp())
    with pytest.raises(VerifyException, match="entry block arguments"):
        ModuleOp([func]).verify()


# --------------------------------------------------------------------------- #
# tt.load / tt.store
# --------------------------------------------------------------------------- #

KERNEL = textwrap.dedent(
    """\
    tt.func public @kernel(%arg0: tensor<128x!tt.ptr<f32>>, %arg1: tensor<128xi1>, %arg2: !tt.ptr<f32>, %arg3: !tt.ptr<tensor<128x64xbf16>>, %arg4: !tt.ptr<tensor<128x32xf16>>) {
      %cst = arith.constant dense<0.000000e+00> : tensor<128xf32>
      %0 = tt.load %arg0 : tensor<128x!tt.ptr<f32>>
      %1 = tt.load %arg0, %arg1 : tensor<128x!tt.ptr<f32>>
      %2 = tt.load %arg0, %arg1, %cst : tensor<128x!tt.ptr<f32>>
      %3 = tt.load %arg0, %arg1, %cst {isVolatile = true} : tensor<128x!tt.ptr<f32>>
      %4 = tt.load %arg0 cacheModifier = ca evictionPolicy = evict_last : tensor<128x!tt.ptr<f32>>
      %5 = tt.load %arg2 {cache = 1 : i32, evict = 1 : i32, isVolatile = false} : !tt.ptr<f32>
      %6 = tt.load %arg3 {boundaryCheck = array<i32: 0, 1>, cache = 1 : i32, evict = 1 : i32, isVolatile = false} : !tt.ptr<tensor<128x64xbf16>>
      %7 = tt.load %arg4 {boundaryCheck = array<i32: 1>, padding = 2 : i32} : !tt.ptr<tensor<128x32xf16>>
      %8 = arith.addf %0, %2 : tensor<128xf32>
      tt.store %arg0, %8 : tensor<128x!tt.ptr<f32>>
      tt.store %arg0, %8, %arg1 : tensor<128x!tt.ptr<f32>>
      tt.store %arg0, %1, %arg1 evictionPolicy = evict_first : tensor<128x!tt.ptr<f32>>
      tt.store %arg2, %5 cacheModifier = wb {tag = "x"} : !tt.ptr<f32>
      tt.store %arg3, %6 {boundaryCheck = array<i32: 0, 1>, cache = 1 : i32, evict = 1 : i32} : !tt.ptr<tensor<128x64xbf16>>
      tt.return
    }"""
)
"""A kernel in Triton 3.6 syntax. The block-pointer lines are the ones of
triton-shared's block_ptr_advance.mlir and triton's rewrite-tensor-pointer.mlir."""

KERNEL_PRINTED = (
    KERNEL.replace(" {cache = 1 : i32, evict = 1 : i32, isVolatile = false}", "")
    .replace(", cache = 1 : i32, evict = 1 : i32, isVolatile = false}", "}")
    .replace(", cache = 1 : i32, evict = 1 : i32}", "}")
)
"""``KERNEL`` as Triton 3.6 prints it: properties at their defaults are left out."""


def test_kernel_roundtrip(ctx: Context) -> None:
    assert KERNEL_PRINTED != KERNEL
    assert roundtrip(ctx, KERNEL) == KERNEL_PRINTED


def test_kernel_prints_as_triton_does() -> None:
    need(triton_missing())
    assert tt_op_lines(triton_normalize(KERNEL)) == tt_op_lines(KERNEL_PRINTED)


def test_defaults_are_not_stored(ctx: Context) -> None:
    # MLIR gives an op spelling a default the same properties as one leaving it out.
    explicit, implicit = (
        op
        for op in parse(
            ctx,
            "tt.func @f(%arg0: !tt.ptr<f32>) {\n"
            "  %0 = tt.load %arg0 {cache = 1 : i32, evict = 1 : i32, isVolatile = false} : !tt.ptr<f32>\n"
            "  %1 = tt.load %arg0 : !tt.ptr<f32>\n"
            "  tt.return\n}",
        ).walk()
        if isinstance(op, LoadOp)
    )
    assert explicit.properties == implicit.properties
    assert set(implicit.properties) == {"operandSegmentSizes"}
    built = LoadOp(explicit.ptr, cache=CacheModifier.NONE, evict=EvictionPolicy.NORMAL, is_volatile=False)
    assert built.properties == implicit.properties


def test_load_store_operands_and_types(ctx: Context) -> None:
    module = parse(ctx, KERNEL)
    module.verify()
    loads = [op for op in module.walk() if isinstance(op, LoadOp)]
    stores = [op for op in module.walk() if isinstance(op, StoreOp)]
    assert len(loads) == 8 and len(stores) == 5
    plain, masked, with_other, volatile, hinted, scalar, block, padded = loads
    assert plain.mask is None and plain.other is None
    assert masked.mask is not None and masked.other is None
    assert with_other.mask is not None and with_other.other is not None
    assert plain.result.type == TensorType(f32, [128])
    assert scalar.result.type == f32
    assert block.result.type == TensorType(bf16, [128, 64])
    assert volatile.is_volatile_flag and not plain.is_volatile_flag
    assert not scalar.is_volatile_flag
    assert hinted.cache_modifier is CacheModifier.CA
    assert hinted.eviction_policy is EvictionPolicy.EVICT_LAST
    assert plain.cache_modifier is CacheModifier.NONE
    assert plain.eviction_policy is EvictionPolicy.NORMAL
    assert padded.padding is not None and padded.padding.value.data == 2
    assert block.boundary_check is not None
    assert block.boundary_check.get_values() == (0, 1)
    assert stores[0].mask is None and stores[1].mask is not None
    assert stores[2].eviction_policy is EvictionPolicy.EVICT_FIRST
    assert stores[3].cache_modifier is CacheModifier.WB
    assert "tag" in stores[3].attributes and "cache" in stores[3].properties


def test_generic_form_roundtrip(ctx: Context) -> None:
    module = parse(ctx, KERNEL)
    out = StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    generic = out.getvalue()
    assert '"tt.load"(%arg0, %arg1, %cst) <{operandSegmentSizes = array<i32: 1, 1, 1>}>' in generic
    reparsed = parse(ctx, generic)
    reparsed.verify()
    assert print_body(reparsed) == KERNEL_PRINTED


def test_non_default_hints_in_attr_dict_print_as_triton_does(ctx: Context) -> None:
    # Triton 3.6 never keeps a non-default cache/evict in the attr-dict.
    text = (
        "tt.func @f(%arg0: !tt.ptr<f32>) {\n"
        "  %0 = tt.load %arg0 {cache = 2 : i32, evict = 3 : i32} : !tt.ptr<f32>\n"
        "  tt.return\n}"
    )
    assert roundtrip(ctx, text) == text.replace(
        "{cache = 2 : i32, evict = 3 : i32}",
        "cacheModifier = ca evictionPolicy = evict_last",
    )


def test_oilist_order_is_free_when_parsing(ctx: Context) -> None:
    text = (
        "tt.func @f(%arg0: !tt.ptr<f32>) {\n"
        "  %0 = tt.load %arg0 evictionPolicy = evict_first cacheModifier = cg"
        " : !tt.ptr<f32>\n"
        "  tt.return\n}"
    )
    assert ("%0 = tt.load %arg0 cacheModifier = cg evictionPolicy = evict_first : !tt.ptr<f32>") in roundtrip(
        ctx, text
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "%0 = tt.load %arg0 : f32",
            "expected !tt.ptr or a tensor of !tt.ptr, got f32",
        ),
        (
            "%0 = tt.load %arg0 cacheModifier = bogus : !tt.ptr<f32>",
            "expected one of none, ca, cg, wb, cs, wt, cv for 'cacheModifier', got 'bogus'",
        ),
        (
            "%0 = tt.load %arg0 cacheModifier = ca {cache = 2 : i32} : !tt.ptr<f32>",
            "'cache' is given twice",
        ),
    ],
)
def test_load_parse_errors(ctx: Context, body: str, message: str) -> None:
    with pytest.raises(ParseError, match=re.escape(message)):
        parse(ctx, f"tt.func @f(%arg0: !tt.ptr<f32>) {{\n  {body}\n  tt.return\n}}")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '%0 = "tt.load"(%arg0) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (!tt.ptr<f32>) -> f16',
            "'tt.load' result type f16 does not match the pointer type !tt.ptr<f32>: expected f32",
        ),
        (
            '"tt.store"(%arg0, %arg1) : (!tt.ptr<f32>, i32) -> ()',
            "'tt.store' value type i32 does not match the pointer type !tt.ptr<f32>: expected f32",
        ),
        (
            "%0 = tt.load %arg0 {cache = 9 : i32} : !tt.ptr<f32>",
            "property 'cache' must be one of [1, 2, 3, 4, 5, 6, 7]",
        ),
    ],
)
def test_load_store_verify_errors(ctx: Context, body: str, message: str) -> None:
    module = parse(
        ctx,
        f"tt.func @f(%arg0: !tt.ptr<f32>, %arg1: i32) {{\n  {body}\n  tt.return\n}}",
    )
    with pytest.raises(VerifyException, match=re.escape(message)):
        module.verify()


def test_memory_effects(ctx: Context) -> None:
    module = parse(ctx, KERNEL)
    loads = [op for op in module.walk() if isinstance(op, LoadOp)]
    stores = [op for op in module.walk() if isinstance(op, StoreOp)]
    plain_effects = get_effects(loads[0])
    assert plain_effects is not None
    assert {(e.kind, e.value, e.resource) for e in plain_effects} == {
        (MemoryEffectKind.READ, loads[0].ptr, GlobalMemory())
    }
    volatile_effects = get_effects(loads[3])
    assert volatile_effects is not None
    assert {e.kind for e in volatile_effects} == {
        MemoryEffectKind.READ,
        MemoryEffectKind.WRITE,
    }
    store_effects = get_effects(stores[0])
    assert store_effects is not None
    assert {(e.kind, e.value) for e in store_effects} == {(MemoryEffectKind.WRITE, stores[0].ptr)}
    ret = next(op for op in module.walk() if isinstance(op, ReturnOp))
    assert get_effects(ret) == set()


def test_build_load_and_store() -> None:
    func = FuncOp("k", ([TensorType(PointerType(f32), [16]), TensorType(i1, [16])], []))
    ptr, mask = func.args
    load = LoadOp(ptr, mask, cache=CacheModifier.CG, is_volatile=True)
    store = StoreOp(ptr, load.result, mask, evict=EvictionPolicy.EVICT_LAST)
    func.body.block.add_ops([load, store, ReturnOp()])
    module = ModuleOp([func])
    module.verify()
    assert load.result.type == TensorType(f32, [16])
    assert print_body(module) == textwrap.dedent(
        """\
        tt.func @k(%0: tensor<16x!tt.ptr<f32>>, %1: tensor<16xi1>) {
          %2 = tt.load %0, %1 cacheModifier = cg {isVolatile = true} : tensor<16x!tt.ptr<f32>>
          tt.store %0, %2, %1 evictionPolicy = evict_last : tensor<16x!tt.ptr<f32>>
          tt.return
        }"""
    )


# --------------------------------------------------------------------------- #
# Real Triton test inputs that only use ops in scope
# --------------------------------------------------------------------------- #

REAL_CHUNKS = [
    ("triton/test/Triton/canonicalize.mlir", 0),
    ("triton/test/Triton/loop-invariant-code-motion.mlir", 0),
    ("triton/test/Triton/loop-invariant-code-motion.mlir", 1),
    ("triton/test/Triton/loop-invariant-code-motion.mlir", 6),
]


@pytest.mark.parametrize(("path", "index"), REAL_CHUNKS)
def test_real_triton_chunks(ctx: Context, path: str, index: int) -> None:
    chunk = split_chunks(peer_file(path).read_text())[index]
    printed = roundtrip(ctx, chunk)
    # Every tt.load/tt.store is printed exactly as Triton wrote it
    # (up to the renumbering of SSA values).
    source_lines = tt_memory_lines(chunk)
    assert source_lines
    assert source_lines == tt_memory_lines(printed)


# --------------------------------------------------------------------------- #
# Every op's syntax, as Triton 3.6 prints it
# --------------------------------------------------------------------------- #

OP_SYNTAX: dict[str, tuple[str, list[str]]] = {
    "spmd": (
        "",
        [
            "%0 = tt.get_program_id x : i32",
            "%1 = tt.get_program_id y : i32",
            "%2 = tt.get_num_programs z : i32",
            "%3 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>",
        ],
    ),
    "pointers": (
        "%arg0: !tt.ptr<f32>, %arg1: i64, %arg2: i32",
        [
            "%0 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>",
            "%1 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>",
            "%2 = tt.addptr %0, %1 : tensor<16x!tt.ptr<f32>>, tensor<16xi32>",
            "%3 = tt.addptr %arg0, %arg2 : !tt.ptr<f32>, i32",
            "%4 = tt.int_to_ptr %arg1 : i64 -> !tt.ptr<f32>",
            "%5 = tt.ptr_to_int %3 : !tt.ptr<f32> -> i64",
            "%6 = tt.bitcast %2 : tensor<16x!tt.ptr<f32>> -> tensor<16x!tt.ptr<i32>>",
        ],
    ),
    "block_pointers": (
        "%arg0: !tt.ptr<f16>, %arg1: !tt.ptr<f16, 3>, %arg2: i64, %arg3: i32",
        [
            "%0 = tt.make_tensor_ptr %arg0, [%arg2, %arg2], [%arg2, %arg2], [%arg3, %arg3]"
            " {order = array<i32: 1, 0>} : <tensor<16x16xf16>>",
            "%1 = tt.advance %0, [%arg3, %arg3] : <tensor<16x16xf16>>",
            "%2 = tt.make_tensor_ptr %arg1, [%arg2], [%arg2], [%arg3] {order = array<i32: 0>} : <tensor<16xf16>, 3>",
            "%3 = tt.load %1 {boundaryCheck = array<i32: 0>, padding = 1 : i32} : !tt.ptr<tensor<16x16xf16>>",
            "tt.store %1, %3 {boundaryCheck = array<i32: 1>} : !tt.ptr<tensor<16x16xf16>>",
        ],
    ),
    "shapes": (
        "%arg0: tensor<16xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<1xf32>, %arg3: tensor<16xi32>",
        [
            "%0 = tt.expand_dims %arg0 {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>",
            "%1 = tt.broadcast %0 : tensor<1x16xf32> -> tensor<4x16xf32>",
            "%2 = tt.reshape %1 : tensor<4x16xf32> -> tensor<64xf32>",
            "%3 = tt.reshape %1 allow_reorder : tensor<4x16xf32> -> tensor<64xf32>",
            "%4 = tt.reshape %1 allow_reorder efficient_layout : tensor<4x16xf32> -> tensor<64xf32>",
            "%5 = tt.trans %arg1 {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>",
            "%6 = tt.join %arg1, %arg1 : tensor<4x8xf32> -> tensor<4x8x2xf32>",
            "%7, %8 = tt.split %6 : tensor<4x8x2xf32> -> tensor<4x8xf32>",
            "%9 = tt.cat %arg1, %arg1 : tensor<4x8xf32> -> tensor<8x8xf32>",
            "%10 = tt.unsplat %arg2 : tensor<1xf32>",
            "%11 = tt.gather %arg0[%arg3] {axis = 0 : i32} : (tensor<16xf32>, tensor<16xi32>) -> tensor<16xf32>",
            "%12 = tt.histogram %arg3 : tensor<16xi32> -> tensor<8xi32>",
        ],
    ),
    "math": (
        "%arg0: tensor<16xf32>, %arg1: i32, %arg2: tensor<16xf16>",
        [
            "%0 = tt.fp_to_fp %arg0, rounding = rtne : tensor<16xf32> -> tensor<16xf16>",
            "%1 = tt.fp_to_fp %arg2 : tensor<16xf16> -> tensor<16xf32>",
            "%2 = tt.fp_to_fp %arg0 {tag}, rounding = rtz : tensor<16xf32> -> tensor<16xf16>",
            "%3 = tt.precise_sqrt %arg0 : tensor<16xf32>",
            "%4 = tt.precise_divf %arg0, %arg0 : tensor<16xf32>",
            "%5 = tt.clampf %arg0, %arg0, %arg0, propagateNan = all : tensor<16xf32>",
            "%6 = tt.clampf %arg0, %arg0, %arg0, propagateNan = none {tag} : tensor<16xf32>",
            "%7 = tt.mulhiui %arg1, %arg1 : i32",
            '%8 = tt.extern_elementwise %arg0, %arg0 {libname = "", libpath = "", pure = true, symbol = "foo"}'
            " : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>",
            '%9, %10 = tt.elementwise_inline_asm "asm" {constraints = "=r,=r,r", packed_element = 1 : i32,'
            " pure = true} %arg1 : i32 -> i16, i16",
        ],
    ),
    "atomics": (
        "%arg0: tensor<16x!tt.ptr<f32>>, %arg1: tensor<16xf32>, %arg2: tensor<16xi1>, %arg3: !tt.ptr<i32>, %arg4: i32",
        [
            "%0 = tt.atomic_rmw fadd, acq_rel, gpu, %arg0, %arg1, %arg2"
            " : (tensor<16x!tt.ptr<f32>>, tensor<16xf32>, tensor<16xi1>) -> tensor<16xf32>",
            "%1 = tt.atomic_rmw exch, relaxed, sys, %arg3, %arg4 : (!tt.ptr<i32>, i32) -> i32",
            "%2 = tt.atomic_cas acquire, cta, %arg3, %arg4, %arg4 : (!tt.ptr<i32>, i32, i32) -> i32",
        ],
    ),
    "dots": (
        "%arg0: tensor<16x16xf16>, %arg1: tensor<16x16xf32>, %arg2: tensor<16x32xf8E5M2>,"
        " %arg3: tensor<32x16xf8E5M2>, %arg4: tensor<16x1xi8>",
        [
            "%0 = tt.dot %arg0, %arg0, %arg1 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>",
            "%1 = tt.dot %arg1, %arg1, %0, inputPrecision = tf32"
            " : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>",
            "%2 = tt.dot %arg1, %arg1, %1, inputPrecision = bf16x3 {maxNumImpreciseAcc = 4 : i32}"
            " : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>",
            "%3 = tt.dot_scaled %arg2 scale %arg4, %arg3 scale %arg4, %arg1 lhs = e5m2 rhs = e5m2"
            " {fastMath = false} : tensor<16x32xf8E5M2>, tensor<16x1xi8> * tensor<32x16xf8E5M2>,"
            " tensor<16x1xi8> -> tensor<16x16xf32>",
            "%4 = tt.dot_scaled %arg2, %arg3, %arg1 lhs = e5m2 rhs = e4m3 {fastMath = true}"
            " : tensor<16x32xf8E5M2> * tensor<32x16xf8E5M2> -> tensor<16x16xf32>",
        ],
    ),
    "descriptors": (
        "%arg0: !tt.ptr<f16>, %arg1: i32, %arg2: i64, %arg3: !tt.tensordesc<tensor<1x64xf16>>, %arg4: tensor<32xi32>",
        [
            "%0 = tt.make_tensor_descriptor %arg0, [%arg1, %arg1], [%arg2, %arg2] : <f16>, <tensor<16x16xf16>>",
            "%1 = tt.make_tensor_descriptor %arg0, [%arg1, %arg1], [%arg2, %arg2] {padding = 2 : i32}"
            " : <f16>, <tensor<16x16xf16>>",
            "%2 = tt.descriptor_load %0[%arg1, %arg1] cacheModifier = ca"
            " : !tt.tensordesc<tensor<16x16xf16>> -> tensor<16x16xf16>",
            "tt.descriptor_store %0[%arg1, %arg1], %2 : !tt.tensordesc<tensor<16x16xf16>>, tensor<16x16xf16>",
            "tt.descriptor_reduce add, %0[%arg1, %arg1], %2 : !tt.tensordesc<tensor<16x16xf16>>, tensor<16x16xf16>",
            "%3 = tt.descriptor_gather %arg3[%arg4, %arg1]"
            " : (!tt.tensordesc<tensor<1x64xf16>>, tensor<32xi32>, i32) -> tensor<32x64xf16>",
            "tt.descriptor_scatter %arg3[%arg4, %arg1], %3"
            " : !tt.tensordesc<tensor<1x64xf16>>, tensor<32xi32>, i32, tensor<32x64xf16>",
        ],
    ),
    "descriptors_3_9": (
        "%arg0: !tt.ptr<f16>, %arg1: i32, %arg2: i64, %arg3: !tt.tensordesc<1x64xf16>, %arg4: tensor<32xi32>",
        [
            "%0 = tt.make_tensor_descriptor %arg0, [%arg1, %arg1], [%arg2, %arg2] : <f16>, <16x16xf16>",
            "%1 = tt.descriptor_load %0[%arg1, %arg1]"
            " {cachePolicy = #tt.cache_policy<cache_modifier = ca, eviction_policy = evict_normal>}"
            " : !tt.tensordesc<16x16xf16> -> tensor<16x16xf16>",
            "tt.descriptor_store %0[%arg1, %arg1], %1 : !tt.tensordesc<16x16xf16>, tensor<16x16xf16>",
            "%2 = tt.descriptor_gather %arg3[%arg4, %arg1]"
            " : (!tt.tensordesc<1x64xf16>, tensor<32xi32>, i32) -> tensor<32x64xf16>",
        ],
    ),
    "debug": (
        "%arg0: tensor<16xi32>, %arg1: tensor<16xi1>",
        [
            'tt.print "x: " {hex = false, isSigned = array<i32: 1>} : %arg0 : tensor<16xi32>',
            'tt.print "done\\0A" {hex = true, isSigned = array<i32>}',
            'tt.assert %arg1, "x must be positive" : tensor<16xi1>',
        ],
    ),
    "regions": (
        "%arg0: tensor<16xf32>, %arg1: tensor<16xi32>",
        [
            '%0 = "tt.reduce"(%arg0) <{axis = 0 : i32}> ({',
            "^bb0(%a: f32, %b: f32):",
            "  %s = arith.addf %a, %b : f32",
            "  tt.reduce.return %s : f32",
            "}) : (tensor<16xf32>) -> f32",
            '%1, %2 = "tt.reduce"(%arg0, %arg1) <{axis = 0 : i32}> ({',
            "^bb0(%c: f32, %ci: i32, %d: f32, %di: i32):",
            "  tt.reduce.return %c, %di : f32, i32",
            "}) : (tensor<16xf32>, tensor<16xi32>) -> (f32, i32)",
            '%3 = "tt.scan"(%arg0) <{axis = 0 : i32, reverse = true}> ({',
            "^bb0(%e: f32, %f: f32):",
            "  %p = arith.mulf %e, %f : f32",
            "  tt.scan.return %p : f32",
            "}) : (tensor<16xf32>) -> tensor<16xf32>",
            '%4 = "tt.map_elementwise"(%arg0) <{pack = 2 : i32}> ({',
            "^bb0(%g: f32, %h: f32):",
            "  tt.map_elementwise.return %h, %g : f32, f32",
            "}) : (tensor<16xf32>) -> tensor<16xf32>",
        ],
    ),
}
"""A function per group of ops, each line as Triton 3.6 prints it (SSA names aside)."""


OP_SYNTAX_RELEASE: dict[str, str] = {"descriptors": "3.6", "descriptors_3_9": "3.9"}
"""``OP_SYNTAX`` cases spelled as one Triton release only; the others are spelled as 3.6 and 3.9 both."""


def op_syntax_text(name: str) -> str:
    args, lines = OP_SYNTAX[name]
    body = "".join(f"  {line}\n" for line in lines)
    return f"tt.func @{name}({args}) {{\n{body}  tt.return\n}}"


@pytest.mark.parametrize("name", OP_SYNTAX)
def test_op_syntax_roundtrip(ctx: Context, name: str) -> None:
    text = op_syntax_text(name)
    with use_triton_version(OP_SYNTAX_RELEASE.get(name) or triton_version()):
        assert roundtrip(ctx, text) == text


@pytest.mark.parametrize("name", OP_SYNTAX)
def test_op_syntax_is_tritons(name: str) -> None:
    need(triton_missing())
    text = op_syntax_text(name)
    assert tt_op_lines(triton_normalize(text)) == tt_op_lines(text)


def test_every_op_has_syntax_coverage() -> None:
    written = {m for name in OP_SYNTAX for m in re.findall(r'"?(tt\.[a-z_.]+)', op_syntax_text(name))}
    written |= {"tt.func", "tt.return", "tt.call", "tt.load", "tt.store"}
    assert {op.name for op in TT.operations} <= written


def test_stripped_types_parse_in_full_too(ctx: Context) -> None:
    # Triton prints `: <tensor<...>>`; the full `!tt.ptr<tensor<...>>` reads the same.
    text = (
        "tt.func @f(%arg0: !tt.ptr<f16>, %arg1: i64, %arg2: i32) {\n"
        "  %0 = tt.make_tensor_ptr %arg0, [%arg1], [%arg1], [%arg2] {order = array<i32: 0>}"
        " : !tt.ptr<tensor<16xf16>>\n"
        "  %1 = tt.advance %0, [%arg2] : !tt.ptr<tensor<16xf16>>\n"
        "  tt.return\n}"
    )
    printed = roundtrip(ctx, text)
    assert ": <tensor<16xf16>>\n" in printed and "!tt.ptr<tensor<16xf16>>\n" not in printed


def test_enum_keywords_may_be_strings(ctx: Context) -> None:
    text = 'tt.func @f() {\n  %0 = tt.get_program_id "z" : i32\n  tt.return\n}'
    assert "tt.get_program_id z : i32" in roundtrip(ctx, text)


@pytest.mark.parametrize(
    ("args", "body", "message"),
    [
        ("", "%0 = tt.get_program_id w : i32", "expected one of x, y, z for 'axis', got 'w'"),
        (
            "%arg0: !tt.ptr<i32>, %arg1: i32",
            "%0 = tt.atomic_rmw bogus, relaxed, gpu, %arg0, %arg1 : (!tt.ptr<i32>, i32) -> i32",
            "expected one of and, or, xor, add, fadd, max, min, umax, umin, exch for 'atomic_rmw_op', got 'bogus'",
        ),
        (
            "%arg0: !tt.ptr<i32>, %arg1: i32",
            "%0 = tt.atomic_cas acquire, device, %arg0, %arg1, %arg1 : (!tt.ptr<i32>, i32, i32) -> i32",
            "expected one of gpu, cta, sys for 'scope', got 'device'",
        ),
        (
            "%arg0: !tt.ptr<tensor<8xf32>>, %arg1: i32",
            "%0 = tt.advance %arg0, [%arg1] : f32",
            "expected a !tt.ptr, got f32",
        ),
        (
            "%arg0: !tt.ptr<f32>, %arg1: i64, %arg2: i32",
            "%0 = tt.make_tensor_ptr %arg0, [%arg1], [%arg1], [%arg2] {order = array<i32: 0>} : <f32>",
            "expected a pointer to a tensor, got !tt.ptr<f32>",
        ),
        (
            "%arg0: tensor<16x16xf32>",
            "%0 = tt.dot %arg0, %arg0, %arg0, inputPrecision = fast"
            " : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>",
            "expected one of tf32, tf32x3, ieee, bf16x3, bf16x6 for 'inputPrecision', got 'fast'",
        ),
        (
            "%arg0: tensor<16xf32>",
            "%0 = tt.fp_to_fp %arg0, rounding = up : tensor<16xf32> -> tensor<16xf16>",
            "expected one of rtz, rtne for 'rounding', got 'up'",
        ),
        (
            "%arg0: tensor<16xf32>",
            "%0 = tt.clampf %arg0, %arg0, %arg0, propagateNan = some : tensor<16xf32>",
            "expected one of none, all for 'propagateNan', got 'some'",
        ),
        ("%arg0: !tt.tensordesc<i32>", "", "expected a ranked tensor type, got i32"),
        ("%arg0: tensor<1x1xf32>", "%0 = tt.unsplat %arg0 : f32", "expected a ranked tensor type, got f32"),
    ],
)
def test_parse_errors(ctx: Context, args: str, body: str, message: str) -> None:
    # Triton 3.9 reads !tt.tensordesc<i32> as a rank-0 descriptor; 3.6 wants a tensor type there.
    with use_triton_version("3.6"), pytest.raises(ParseError, match=re.escape(message)):
        parse(ctx, f"tt.func @f({args}) {{\n  {body}\n  tt.return\n}}")


def test_parse_errors_have_line_and_column() -> None:
    from passviz.pipelines import IRParseError, parse_ir

    with pytest.raises(IRParseError) as info:
        parse_ir("tt.func @f() {\n  %0 = tt.get_num_programs q : i32\n  tt.return\n}")
    assert (info.value.line, info.value.column) == (2, 28)
    assert "expected one of x, y, z for 'axis', got 'q'" in info.value.message


# --------------------------------------------------------------------------- #
# Verifiers
# --------------------------------------------------------------------------- #

VERIFY_ERRORS: list[tuple[str, str, str]] = [
    # (function arguments, body, message)
    (
        "%arg0: !tt.ptr<f32>, %arg1: i32",
        '%0 = "tt.addptr"(%arg0, %arg1) : (!tt.ptr<f32>, i32) -> !tt.ptr<f16>',
        "'tt.addptr' op failed to verify that result type matches ptr type",
    ),
    (
        "%arg0: tensor<16x!tt.ptr<f32>>, %arg1: tensor<8xi32>",
        "%0 = tt.addptr %arg0, %arg1 : tensor<16x!tt.ptr<f32>>, tensor<8xi32>",
        "'tt.addptr' op all non-scalar operands/results must have the same shape and base type",
    ),
    (
        "%arg0: i32",
        "%0 = tt.splat %arg0 : i32 -> tensor<16xf32>",
        "'tt.splat' op requires the same element type for all operands and results",
    ),
    (
        "%arg0: tensor<2x16xf32>",
        "%0 = tt.broadcast %arg0 : tensor<2x16xf32> -> tensor<4x16xf32>",
        "'tt.broadcast' op Different dimensions at index 0 between source and result.  "
        "Broadcast requires the source dimension to be 1.",
    ),
    (
        "%arg0: tensor<16xf32>",
        "%0 = tt.broadcast %arg0 : tensor<16xf32> -> tensor<4x16xf32>",
        "'tt.broadcast' op rank of source must be same as rank of result",
    ),
    (
        "%arg0: tensor<16xf32>",
        "%0 = tt.expand_dims %arg0 {axis = 1 : i32} : tensor<16xf32> -> tensor<1x16xf32>",
        "'tt.expand_dims' op inferred type(s) 'tensor<16x1xf32>' are incompatible with return type(s) "
        "of operation 'tensor<1x16xf32>'",
    ),
    (
        "%arg0: tensor<16xf32>",
        "%0 = tt.expand_dims %arg0 {axis = 3 : i32} : tensor<16xf32> -> tensor<1x16xf32>",
        "'tt.expand_dims' op axis 3 is out of bounds for a result of rank 2",
    ),
    (
        "%arg0: tensor<16xf32>",
        "%0 = tt.reshape %arg0 : tensor<16xf32> -> tensor<2x4xf32>",
        "'tt.reshape' op number of src and dst elements of reshape must be the same",
    ),
    (
        "%arg0: tensor<4x8xf32>",
        "%0 = tt.trans %arg0 {order = array<i32: 1, 0, 2>} : tensor<4x8xf32> -> tensor<8x4xf32>",
        "'tt.trans' op order must have the same size as the rank of the operand and result",
    ),
    (
        "%arg0: tensor<4x8xf32>",
        "%0 = tt.trans %arg0 {order = array<i32: 0, 0>} : tensor<4x8xf32> -> tensor<4x4xf32>",
        "'tt.trans' op order must be a permutation of [0, ..., rank - 1]",
    ),
    (
        "%arg0: tensor<4x8xf32>",
        "%0 = tt.trans %arg0 {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<4x8xf32>",
        "'tt.trans' op result shape must match the permutation of the source shape",
    ),
    (
        "%arg0: tensor<4x8xf32>",
        "%0 = tt.join %arg0, %arg0 : tensor<4x8xf32> -> tensor<4x16xf32>",
        "'tt.join' op result shape must be (4, 8, 2), but got 4, 16",
    ),
    (
        "%arg0: tensor<4x8xf32>",
        "%0, %1 = tt.split %arg0 : tensor<4x8xf32> -> tensor<4xf32>",
        "'tt.split' op last dimension of input tensor must be 2",
    ),
    (
        "%arg0: tensor<4xf32>, %arg1: tensor<8xf32>",
        '%0 = "tt.cat"(%arg0, %arg1) : (tensor<4xf32>, tensor<8xf32>) -> tensor<8xf32>',
        "'tt.cat' op requires all operands to have the same type",
    ),
    (
        "",
        "%0 = tt.make_range {end = 0 : i32, start = 16 : i32} : tensor<16xi32>",
        "'tt.make_range' op start must be less than end",
    ),
    (
        "",
        "%0 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<8xi32>",
        "'tt.make_range' op number of elements in returned tensor, 8, must match size of range [0, 16), "
        "which has 16 elements",
    ),
    (
        "",
        "%0 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi64>",
        "'tt.make_range' op returned tensor must have i32 elements",
    ),
    (
        "",
        "%0 = tt.make_range {end = 3 : i32, start = 0 : i32} : tensor<3xi32>",
        "Number of elements must be power-of-two, but 'tt.make_range' doesn't follow the rule "
        "(3 elements in tensor<3xi32>)",
    ),
    (
        "",
        '%0 = "tt.get_program_id"() <{axis = 5 : i32}> : () -> i32',
        "property 'axis' must be one of [0, 1, 2] (ProgramIDDim), got 5",
    ),
    (
        "%arg0: !tt.ptr<f16>, %arg1: i64, %arg2: i32",
        '%0 = "tt.make_tensor_ptr"(%arg0, %arg1, %arg1, %arg2) <{order = array<i32: 0>}>'
        " : (!tt.ptr<f16>, i64, i64, i32) -> !tt.ptr<tensor<16xf32>>",
        "'tt.make_tensor_ptr' op failed to verify that infer pointer type from the result type",
    ),
    (
        "%arg0: !tt.ptr<f32>, %arg1: i32",
        '%0 = "tt.advance"(%arg0, %arg1) : (!tt.ptr<f32>, i32) -> !tt.ptr<f32>',
        "'tt.advance' op operand #0 must be ptr, but got '!tt.ptr<f32>' (not a pointer to a tensor)",
    ),
    (
        "%arg0: tensor<16x8xf16>, %arg1: tensor<16x16xf16>, %arg2: tensor<16x16xf32>",
        "%0 = tt.dot %arg0, %arg1, %arg2 : tensor<16x8xf16> * tensor<16x16xf16> -> tensor<16x16xf32>",
        "'tt.dot' op expected the last dimension of the first operand to be equal to the second-to-last "
        "dimension of the second operand",
    ),
    (
        "%arg0: tensor<16x16xf16>, %arg1: tensor<16x16xf32>",
        "%0 = tt.dot %arg0, %arg1, %arg1 : tensor<16x16xf16> * tensor<16x16xf32> -> tensor<16x16xf32>",
        "'tt.dot' op element types of operands A and B must have same bit width",
    ),
    (
        "%arg0: tensor<16xf16>, %arg1: tensor<16xf32>",
        "%0 = tt.dot %arg0, %arg0, %arg1 : tensor<16xf16> * tensor<16xf16> -> tensor<16xf32>",
        "'tt.dot' op expected operands to be 2d or 3d",
    ),
    (
        "%arg0: tensor<16x16xf16>, %arg1: tensor<16x8xf32>",
        "%0 = tt.dot %arg0, %arg0, %arg1 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x8xf32>",
        "'tt.dot' op expected the output shape to be the concatenation",
    ),
    (
        "%arg0: tensor<16xf32>",
        '%0 = "tt.reduce"(%arg0) <{axis = 0 : i32}> ({\n  ^bb0(%a: f32):\n    tt.reduce.return %a : f32\n'
        "  }) : (tensor<16xf32>) -> f32",
        "'tt.reduce' op nested block must take 2 arguments, but given block with 1 arguments",
    ),
    (
        "%arg0: tensor<16xf32>",
        '%0 = "tt.reduce"(%arg0) <{axis = 1 : i32}> ({\n  ^bb0(%a: f32, %b: f32):\n'
        "    tt.reduce.return %a : f32\n  }) : (tensor<16xf32>) -> f32",
        "'tt.reduce' op axis out of bounds for operand rank 1",
    ),
    (
        "%arg0: tensor<16xf32>",
        '%0 = "tt.reduce"(%arg0) <{axis = 0 : i32}> ({\n  ^bb0(%a: f32, %b: f32):\n'
        "    tt.reduce.return %a : f32\n  }) : (tensor<16xf32>) -> f16",
        "'tt.reduce' op operand types and result types must agree",
    ),
    (
        "%arg0: tensor<16xf32>, %arg1: f16",
        '%0 = "tt.reduce"(%arg0) <{axis = 0 : i32}> ({\n  ^bb0(%a: f32, %b: f32):\n'
        "    tt.reduce.return %arg1 : f16\n  }) : (tensor<16xf32>) -> f32",
        "'tt.reduce' op type mismatch on combine operation. Expected argument 0 to have type 'f32' but got 'f16'",
    ),
    (
        "%arg0: tensor<16xf32>",
        '%0 = "tt.scan"(%arg0) <{axis = 0 : i32, reverse = false}> ({\n  ^bb0(%a: f32, %b: f32):\n'
        "    tt.reduce.return %a : f32\n  }) : (tensor<16xf32>) -> tensor<16xf32>",
        "'tt.reduce.return' expects parent op 'tt.reduce'",
    ),
    (
        "%arg0: tensor<16xf32>",
        "%0 = tt.fp_to_fp %arg0 : tensor<16xf32> -> tensor<16xf16>",
        "'tt.fp_to_fp' op Rounding mode is required for FP downcast",
    ),
    (
        "%arg0: tensor<16xf32>",
        "%0 = tt.bitcast %arg0 : tensor<16xf32> -> tensor<16xi16>",
        "'tt.bitcast' op Cannot bitcast data-type of size 32 to data-type of size 16",
    ),
    (
        "%arg0: !tt.ptr<f32>",
        "%0 = tt.bitcast %arg0 : !tt.ptr<f32> -> i64",
        "'tt.bitcast' op Cannot bitcast pointer to non-pointer type",
    ),
    (
        "%arg0: !tt.ptr<f32>",
        "%0 = tt.bitcast %arg0 : !tt.ptr<f32> -> !tt.ptr<f32, 3>",
        "'tt.bitcast' op Cannot bitcast pointer between different address spaces",
    ),
    (
        "%arg0: f32, %arg1: f16",
        '%0 = "tt.clampf"(%arg0, %arg1, %arg0) <{propagateNan = 0 : i32}> : (f32, f16, f32) -> f32',
        "'tt.clampf' op requires the same type for all operands and results",
    ),
    (
        "%arg0: f32",
        '%0 = "tt.precise_sqrt"(%arg0) : (f32) -> tensor<16xf32>',
        "'tt.precise_sqrt' op if a result is non-scalar, then at least one operand must be non-scalar",
    ),
    (
        "%arg0: !tt.ptr<f32>, %arg1: i32",
        "%0 = tt.atomic_rmw add, relaxed, gpu, %arg0, %arg1 : (!tt.ptr<f32>, i32) -> i32",
        "'tt.atomic_rmw' op failed to verify that ptr type matches value type: expected !tt.ptr<i32>",
    ),
    (
        "%arg0: !tt.ptr<i32>, %arg1: i32",
        '%0 = "tt.atomic_rmw"(%arg0, %arg1) <{atomic_rmw_op = 11 : i32, scope = 1 : i32, sem = 1 : i32}>'
        " : (!tt.ptr<i32>, i32) -> i32",
        "property 'atomic_rmw_op' must be one of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] (RMWOp), got 11",
    ),
    (
        "%arg0: !tt.ptr<i32>, %arg1: i32, %arg2: f32",
        "%0 = tt.atomic_cas acq_rel, gpu, %arg0, %arg1, %arg2 : (!tt.ptr<i32>, i32, f32) -> f32",
        "'tt.atomic_cas' op failed to verify that ptr type matches value type",
    ),
    (
        "%arg0: tensor<16xi32>, %arg1: tensor<8xi1>",
        '%0 = "tt.histogram"(%arg0, %arg1) : (tensor<16xi32>, tensor<8xi1>) -> tensor<8xi32>',
        "'tt.histogram' op failed to verify that mask type matches src type",
    ),
    (
        "%arg0: tensor<4x4xf32>, %arg1: tensor<16xi32>",
        "%0 = tt.gather %arg0[%arg1] {axis = 0 : i32} : (tensor<4x4xf32>, tensor<16xi32>) -> tensor<16xf32>",
        "'tt.gather' op input and indices ranks must match",
    ),
    (
        "%arg0: tensor<2xf32>",
        "%0 = tt.unsplat %arg0 : tensor<2xf32>",
        "'tt.unsplat' op source tensor must have exactly one element",
    ),
    (
        "%arg0: !tt.tensordesc<tensor<16x16xf16>>, %arg1: i32",
        '%0 = "tt.descriptor_load"(%arg0, %arg1, %arg1) : (!tt.tensordesc<tensor<16x16xf16>>, i32, i32)'
        " -> tensor<16x16xf32>",
        "'tt.descriptor_load' op tensor descriptor block and tensor types must match",
    ),
    (
        "%arg0: !tt.tensordesc<tensor<1x64xf16>>, %arg1: tensor<4xi32>, %arg2: i32",
        "%0 = tt.descriptor_gather %arg0[%arg1, %arg2]"
        " : (!tt.tensordesc<tensor<1x64xf16>>, tensor<4xi32>, i32) -> tensor<4x64xf16>",
        "'tt.descriptor_gather' op gather must have at least 8 rows, but got 4",
    ),
    (
        "%arg0: tensor<16xi32>",
        '%0 = tt.elementwise_inline_asm "asm" {constraints = "=r,r", packed_element = 3 : i32, pure = true}'
        " %arg0 : tensor<16xi32> -> tensor<16xi32>",
        "'tt.elementwise_inline_asm' op number of input elements 16 must be a multiple of the op's "
        "packed_element attribute, 3",
    ),
    (
        "%arg0: tensor<16xf32>",
        '%0 = "tt.map_elementwise"(%arg0) <{pack = 3 : i32}> ({\n  ^bb0(%a: f32):\n'
        "    tt.map_elementwise.return %a : f32\n  }) : (tensor<16xf32>) -> tensor<16xf32>",
        "'tt.map_elementwise' op Pack must be a power of 2",
    ),
    (
        "%arg0: tensor<16xf32>, %arg1: !tt.ptr<f32>",
        '%0 = "tt.map_elementwise"(%arg0) <{pack = 1 : i32}> ({\n  ^bb0(%a: f32):\n'
        "    tt.store %arg1, %a : !tt.ptr<f32>\n    tt.map_elementwise.return %a : f32\n"
        "  }) : (tensor<16xf32>) -> tensor<16xf32>",
        "'tt.store' op Stores are not supported inside map_elementwise",
    ),
]
"""Bad inputs and the error each gets, as Triton words it (``'op' op message``)."""


@pytest.mark.parametrize(
    ("args", "body", "message"),
    [pytest.param(*case, id=re.sub(r"\W+", "-", case[2][:60])) for case in VERIFY_ERRORS],
)
def test_verify_errors(ctx: Context, args: str, body: str, message: str) -> None:
    module = parse(ctx, verify_error_text(args, body))
    with pytest.raises(VerifyException, match=re.escape(message)):
        module.verify()


TRITON_REJECTS = textwrap.dedent(
    """\
    import json, os, sys, tempfile
    from triton._C.libtriton import ir
    for text in json.load(sys.stdin):
        pid = os.fork()
        if pid == 0:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
            context = ir.context()
            ir.load_dialects(context)
            with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as handle:
                handle.write(text)
            try:
                ir.parse_mlir_module(handle.name, context)
            except Exception:
                os._exit(1)
            finally:
                os.unlink(handle.name)
            os._exit(0)
        print(int(os.waitpid(pid, 0)[1] != 0))
    """
)
"""Reads a JSON list of IR texts; prints, per text, 1 if Triton rejects it."""


@functools.cache
def triton_rejections() -> dict[str, bool]:
    """Per ``VERIFY_ERRORS`` input, whether Triton 3.6 rejects it.

    Each input is parsed in a forked process: Triton aborts on some bad input
    (an ``expand_dims`` axis past the rank corrupts the heap) rather than
    reporting it, which counts as rejecting it.
    """
    texts = [verify_error_text(args, body) for args, body, _ in VERIFY_ERRORS]
    run = subprocess.run(
        [sys.executable, "-c", TRITON_REJECTS],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=True,
    )
    verdicts = [line == "1" for line in run.stdout.split()]
    return dict(zip(texts, verdicts, strict=True))


def verify_error_text(args: str, body: str) -> str:
    return f"tt.func @f({args}) {{\n  {body}\n  tt.return\n}}"


STRICTER_THAN_TRITON_3_6 = {
    "'tt.reduce' op axis out of bounds for operand rank 1": (
        "Triton 3.6 accepts a tt.reduce/tt.scan axis out of range (the check came with triton #9061, "
        "after 3.6); passviz keeps it, as inferring the result type needs a valid axis"
    ),
}
"""``VERIFY_ERRORS`` messages for input Triton 3.6 accepts (3.9 rejects it too), with why passviz rejects it."""


@pytest.mark.parametrize(
    ("args", "body"),
    [
        pytest.param(
            case[0],
            case[1],
            id=re.sub(r"\W+", "-", case[2][:60]),
            marks=[pytest.mark.xfail(reason=STRICTER_THAN_TRITON_3_6[case[2]], strict=True)]
            if case[2] in STRICTER_THAN_TRITON_3_6 and installed_triton_version() < (3, 9)
            else [],
        )
        for case in VERIFY_ERRORS
    ],
)
def test_triton_rejects_what_passviz_rejects(args: str, body: str) -> None:
    need(triton_missing())
    assert triton_rejections()[verify_error_text(args, body)]


# --------------------------------------------------------------------------- #
# Folders
# --------------------------------------------------------------------------- #


def ops_of(ctx: Context, args: str, body: str) -> list[Operation]:
    """The ops of a verified ``tt.func @f(args)`` with ``body``, terminator aside."""
    module = parse(ctx, f"tt.func @f({args}) {{\n{body}\n  tt.return\n}}")
    module.verify()
    func = module.ops.first
    assert isinstance(func, FuncOp)
    return list(func.body.block.ops)[:-1]


def fold(op: Operation) -> tuple[SSAValue | Attribute, ...] | None:
    """``op``'s fold result through xDSL's ``HasFolder`` trait."""
    trait = op.get_trait(HasFolder)
    assert trait is not None, f"{op.name} has no folder"
    folded = trait.fold(op)
    return None if folded is None else tuple(folded)


def splat_value(attr: SSAValue | Attribute) -> tuple[Attribute, int | float]:
    """(type, element) of a splat dense attribute."""
    assert isinstance(attr, DenseIntOrFPElementsAttr) and attr.is_splat()
    return attr.type, attr.get_values()[0]


FOLDING_OPS = {
    "tt.addptr",
    "tt.advance",
    "tt.splat",
    "tt.expand_dims",
    "tt.reshape",
    "tt.broadcast",
    "tt.trans",
    "tt.make_range",
    "tt.fp_to_fp",
    "tt.bitcast",
    "tt.join",
    "tt.split",
}
"""The ops with ``hasFolder`` in TritonOps.td: Triton 3.6's, and the three of
Triton 3.9 (bitcast, join, split, whose folders fold nothing when passviz
behaves as 3.6)."""


def test_folders_are_triton_s() -> None:
    assert {op.name for op in TT.operations if op.has_trait(HasFolder)} == FOLDING_OPS


def test_addptr_folds_zero_offsets(ctx: Context) -> None:
    args = "%arg0: !tt.ptr<f32>, %arg1: tensor<8x!tt.ptr<f32>>, %arg2: i32"
    body = (
        "  %c0 = arith.constant 0 : i32\n"
        "  %c1 = arith.constant 1 : i32\n"
        "  %z = arith.constant dense<0> : tensor<8xi64>\n"
        "  %0 = tt.addptr %arg0, %c0 : !tt.ptr<f32>, i32\n"
        "  %1 = tt.addptr %arg1, %z : tensor<8x!tt.ptr<f32>>, tensor<8xi64>\n"
        "  %2 = tt.addptr %arg0, %c1 : !tt.ptr<f32>, i32\n"
        "  %3 = tt.addptr %arg0, %arg2 : !tt.ptr<f32>, i32"
    )
    *_, zero, zeros, one, unknown = ops_of(ctx, args, body)
    assert isinstance(zero, AddPtrOp) and isinstance(zeros, AddPtrOp)
    assert fold(zero) == (zero.ptr,)
    assert fold(zeros) == (zeros.ptr,)
    assert fold(one) is None and fold(unknown) is None


def test_advance_folds_zero_offsets(ctx: Context) -> None:
    args = "%arg0: !tt.ptr<tensor<8x8xf16>>, %arg1: i32"
    body = (
        "  %c0 = arith.constant 0 : i32\n"
        "  %0 = tt.advance %arg0, [%c0, %c0] : <tensor<8x8xf16>>\n"
        "  %1 = tt.advance %arg0, [%c0, %arg1] : <tensor<8x8xf16>>"
    )
    _, zero, unknown = ops_of(ctx, args, body)
    assert isinstance(zero, AdvanceOp)
    assert fold(zero) == (zero.ptr,)
    assert fold(unknown) is None


def test_splat_folds_constants(ctx: Context) -> None:
    body = (
        "  %c7 = arith.constant 7 : i32\n"
        "  %cf = arith.constant 1.5 : f32\n"
        "  %0 = tt.splat %c7 : i32 -> tensor<4x8xi32>\n"
        "  %1 = tt.splat %cf : f32 -> tensor<16xf32>\n"
        "  %2 = tt.splat %arg0 : i32 -> tensor<16xi32>"
    )
    _, _, ints, floats, unknown = ops_of(ctx, "%arg0: i32", body)
    int_fold, float_fold = fold(ints), fold(floats)
    assert int_fold is not None and float_fold is not None
    assert splat_value(int_fold[0]) == (TensorType(i32, [4, 8]), 7)
    assert splat_value(float_fold[0]) == (TensorType(f32, [16]), 1.5)
    assert fold(unknown) is None


def test_broadcast_folds(ctx: Context) -> None:
    body = (
        "  %cst = arith.constant dense<2.0> : tensor<1x8xf32>\n"
        "  %r = arith.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>\n"
        "  %0 = tt.broadcast %arg0 : tensor<1x8xf32> -> tensor<1x8xf32>\n"
        "  %1 = tt.broadcast %cst : tensor<1x8xf32> -> tensor<4x8xf32>\n"
        "  %2 = tt.broadcast %r : tensor<1x2xf32> -> tensor<4x2xf32>\n"
        "  %3 = tt.broadcast %arg0 : tensor<1x8xf32> -> tensor<4x8xf32>"
    )
    _, _, same, splat, dense, unknown = ops_of(ctx, "%arg0: tensor<1x8xf32>", body)
    assert isinstance(same, BroadcastOp)
    assert fold(same) == (same.src,)
    splat_fold = fold(splat)
    assert splat_fold is not None and splat_value(splat_fold[0]) == (TensorType(f32, [4, 8]), 2.0)
    assert fold(dense) is None and fold(unknown) is None


def test_expand_dims_and_reshape_fold_constants(ctx: Context) -> None:
    body = (
        "  %cst = arith.constant dense<3> : tensor<8xi32>\n"
        "  %r = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>\n"
        "  %0 = tt.expand_dims %cst {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>\n"
        "  %1 = tt.expand_dims %r {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>\n"
        "  %2 = tt.reshape %r : tensor<4xi32> -> tensor<2x2xi32>\n"
        "  %3 = tt.reshape %arg0 : tensor<4xi32> -> tensor<4xi32>\n"
        "  %4 = tt.reshape %arg0 allow_reorder : tensor<4xi32> -> tensor<4xi32>\n"
        "  %5 = tt.expand_dims %arg0 {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>"
    )
    _, _, expand_splat, expand_dense, reshape_dense, reshape_same, reorder, unknown = ops_of(
        ctx, "%arg0: tensor<4xi32>", body
    )
    folded = fold(expand_splat)
    assert folded is not None and splat_value(folded[0]) == (TensorType(i32, [8, 1]), 3)
    for op, shape in ((expand_dense, [1, 4]), (reshape_dense, [2, 2])):
        folded = fold(op)
        assert folded is not None
        dense = folded[0]
        assert isinstance(dense, DenseIntOrFPElementsAttr)
        assert dense.type == TensorType(i32, shape) and dense.get_values() == (1, 2, 3, 4)
    assert isinstance(reshape_same, ReshapeOp)
    assert fold(reshape_same) == (reshape_same.src,)
    # With allow_reorder the reshape may reorder elements: it is kept.
    assert fold(reorder) is None and fold(unknown) is None


def test_trans_folds(ctx: Context) -> None:
    body = (
        "  %cst = arith.constant dense<1.0> : tensor<2x4xf32>\n"
        "  %0 = tt.trans %arg0 {order = array<i32: 0, 1, 2>} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>\n"
        "  %1 = tt.trans %cst {order = array<i32: 1, 0>} : tensor<2x4xf32> -> tensor<4x2xf32>\n"
        "  %2 = tt.trans %arg0 {order = array<i32: 1, 2, 0>} : tensor<2x4x8xf32> -> tensor<4x8x2xf32>\n"
        "  %3 = tt.trans %2 {order = array<i32: 2, 0, 1>} : tensor<4x8x2xf32> -> tensor<2x4x8xf32>"
    )
    _, iota, splat, inner, outer = ops_of(ctx, "%arg0: tensor<2x4x8xf32>", body)
    assert isinstance(iota, TransOp) and isinstance(inner, TransOp) and isinstance(outer, TransOp)
    assert fold(iota) == (iota.src,)
    folded = fold(splat)
    assert folded is not None and splat_value(folded[0]) == (TensorType(f32, [4, 2]), 1.0)
    assert fold(inner) is None and fold(outer) is None
    # trans(trans(x)) folds in place in MLIR: x with the inner order permuted by the outer one.
    assert inner.fold_in_place() is None
    assert outer.fold_in_place() == (inner.src, (0, 1, 2))


def test_make_range_folds_one_element(ctx: Context) -> None:
    body = (
        "  %0 = tt.make_range {end = 6 : i32, start = 5 : i32} : tensor<1xi32>\n"
        "  %1 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>"
    )
    one, many = ops_of(ctx, "", body)
    folded = fold(one)
    assert folded is not None and splat_value(folded[0]) == (TensorType(i32, [1]), 5)
    assert fold(many) is None


def test_fp_to_fp_folds(ctx: Context) -> None:
    body = (
        "  %pz = arith.constant 0.0 : f32\n"
        "  %nz = arith.constant -0.0 : f32\n"
        "  %tz = arith.constant dense<0.0> : tensor<4xf32>\n"
        "  %one = arith.constant 1.0 : f32\n"
        "  %0 = tt.fp_to_fp %arg0 : tensor<4xf32> -> tensor<4xf32>\n"
        "  %1 = tt.fp_to_fp %pz, rounding = rtne : f32 -> f16\n"
        "  %2 = tt.fp_to_fp %nz, rounding = rtne : f32 -> bf16\n"
        "  %3 = tt.fp_to_fp %tz, rounding = rtz : tensor<4xf32> -> tensor<4xf16>\n"
        "  %4 = tt.fp_to_fp %one, rounding = rtne : f32 -> f16\n"
        "  %5 = tt.fp_to_fp %arg0, rounding = rtne : tensor<4xf32> -> tensor<4xf16>"
    )
    *_, same, pos, neg, tensor, one, unknown = ops_of(ctx, "%arg0: tensor<4xf32>", body)
    assert isinstance(same, FpToFpOp)
    assert fold(same) == (same.src,)
    pos_fold, neg_fold, tensor_fold = fold(pos), fold(neg), fold(tensor)
    assert pos_fold is not None and neg_fold is not None and tensor_fold is not None
    assert pos_fold == (FloatAttr(0.0, f16),)
    neg_zero = neg_fold[0]
    assert isinstance(neg_zero, FloatAttr) and neg_zero.type == bf16
    assert math.copysign(1.0, neg_zero.value.data) == -1.0
    assert splat_value(tensor_fold[0]) == (TensorType(f16, [4]), 0.0)
    assert fold(one) is None and fold(unknown) is None


def test_folded_constants_materialize_as_arith_constants(ctx: Context) -> None:
    _, splat = ops_of(ctx, "", "  %c3 = arith.constant 3 : i32\n  %0 = tt.splat %c3 : i32 -> tensor<8xi32>")
    folded = Folder(ctx).try_fold(splat)
    assert folded is not None
    values, new_ops = folded
    (constant,) = new_ops
    assert isinstance(constant, arith.ConstantOp) and values == [constant.result]
    assert constant.result.type == TensorType(i32, [8])
    assert splat_value(constant.value) == (TensorType(i32, [8]), 3)


# --------------------------------------------------------------------------- #
# Traits and side effects
# --------------------------------------------------------------------------- #

ELEMENTWISE_OPS = {
    "tt.int_to_ptr",
    "tt.ptr_to_int",
    "tt.bitcast",
    "tt.fp_to_fp",
    "tt.clampf",
    "tt.precise_sqrt",
    "tt.precise_divf",
    "tt.mulhiui",
    "tt.addptr",
    "tt.extern_elementwise",
    "tt.elementwise_inline_asm",
}
"""The ops with ``Elementwise`` in TritonOps.td."""

CANONICALIZED_OPS = {"tt.load", "tt.store", "tt.broadcast", "tt.expand_dims", "tt.reshape", "tt.int_to_ptr"}
"""The ops with ``hasCanonicalizer``/``hasCanonicalizeMethod`` in TritonOps.td (``tt.int_to_ptr``
in 3.9's only: behaving as 3.6, it has no patterns)."""


def test_elementwise_ops_are_triton_s() -> None:
    assert {op.name for op in TT.operations if op.has_trait(Elementwise)} == ELEMENTWISE_OPS


def test_canonicalization_patterns_come_from_tt_canonicalization() -> None:
    """The ops do not name their patterns (they import the ops): the family attaches them to the
    dialect, whose canonicalization interface the canonicalizer finds in the context."""
    from passviz.compilers.registry import make_context
    from passviz.compilers.triton import canonicalization as tt_canonicalization
    from passviz.rewrite.canonicalization import DialectCanonicalizationInterface

    assert not [op.name for op in TT.operations if op.has_trait(HasCanonicalizationPatternsTrait)]
    interface = make_context().get_dialect("tt").get_interface(DialectCanonicalizationInterface)
    assert isinstance(interface, tt_canonicalization.TritonCanonicalization)
    with use_triton_version("3.9"):
        canonicalized = {op.name for op in TT.operations if tt_canonicalization.patterns_for(op.name)}
    assert canonicalized == CANONICALIZED_OPS


def test_every_op_checks_tensor_sizes() -> None:
    assert all(op.has_trait(tt.TensorSizeTrait) for op in TT.operations)


def test_terminators_and_parents() -> None:
    for op in (ReduceReturnOp, tt.ScanReturnOp, tt.MapElementwiseReturnOp, ReturnOp):
        assert op.has_trait(IsTerminator) and op.has_trait(ReturnLike)


def effects_of(ctx: Context, args: str, body: str) -> list[set[tuple[MemoryEffectKind, bool, str]]]:
    """Per op: (kind, whether on a value, resource name) of each effect."""
    result: list[set[tuple[MemoryEffectKind, bool, str]]] = []
    for op in ops_of(ctx, args, body):
        effects = get_effects(op)
        assert effects is not None, op.name
        result.append({(e.kind, e.value is not None, e.resource.name()) for e in effects})
    return result


def test_memory_effects_of_every_kind(ctx: Context) -> None:
    args = "%arg0: !tt.ptr<i32>, %arg1: i32, %arg2: !tt.tensordesc<tensor<8xi32>>, %arg3: tensor<8xi32>, %arg4: i1"
    body = (
        "  %0 = tt.atomic_rmw add, relaxed, gpu, %arg0, %arg1 : (!tt.ptr<i32>, i32) -> i32\n"
        "  %1 = tt.atomic_cas relaxed, gpu, %arg0, %arg1, %arg1 : (!tt.ptr<i32>, i32, i32) -> i32\n"
        '  tt.print "x" {hex = false, isSigned = array<i32: 1>} : %arg1 : i32\n'
        '  tt.assert %arg4, "oops" : i1\n'
        "  %2 = tt.descriptor_load %arg2[%arg1] : !tt.tensordesc<tensor<8xi32>> -> tensor<8xi32>\n"
        "  tt.descriptor_store %arg2[%arg1], %arg3 : !tt.tensordesc<tensor<8xi32>>, tensor<8xi32>\n"
        '  %3 = tt.extern_elementwise %arg1 {libname = "", libpath = "", pure = true, symbol = "f"}'
        " : (i32) -> i32\n"
        '  %4 = tt.extern_elementwise %arg1 {libname = "", libpath = "", pure = false, symbol = "f"}'
        " : (i32) -> i32\n"
        '  %5 = tt.elementwise_inline_asm "a" {constraints = "=r,r", packed_element = 1 : i32, pure = false}'
        " %arg1 : i32 -> i32\n"
        "  %6 = tt.cat %arg3, %arg3 : tensor<8xi32> -> tensor<16xi32>"
    )
    global_memory = GlobalMemory().name()
    read_write = {(MemoryEffectKind.READ, True, global_memory), (MemoryEffectKind.WRITE, True, global_memory)}
    unknown = {(MemoryEffectKind.READ, False, "<Default>"), (MemoryEffectKind.WRITE, False, "<Default>")}
    assert effects_of(ctx, args, body) == [
        read_write,
        read_write,
        {(MemoryEffectKind.WRITE, False, global_memory)},
        {(MemoryEffectKind.WRITE, False, global_memory)},
        {(MemoryEffectKind.READ, True, global_memory)},
        read_write,
        set(),
        unknown,
        unknown,
        set(),
    ]


def test_speculatability(ctx: Context) -> None:
    body = (
        '  %0 = tt.extern_elementwise %arg0 {libname = "", libpath = "", pure = true, symbol = "f"}'
        " : (i32) -> i32\n"
        '  %1 = tt.extern_elementwise %arg0 {libname = "", libpath = "", pure = false, symbol = "f"}'
        " : (i32) -> i32\n"
        "  %2 = tt.splat %arg0 : i32 -> tensor<8xi32>\n"
        "  %3 = tt.cat %2, %2 : tensor<8xi32> -> tensor<16xi32>"
    )
    pure, impure, splat, cat = ops_of(ctx, "%arg0: i32", body)
    assert is_speculatable(pure) and is_speculatable(splat)
    assert not is_speculatable(impure)
    # tt.cat is NoMemoryEffect but not Pure: it may reorder elements.
    assert not cat.has_trait(ConditionallySpeculatable) and get_effects(cat) == set()


def test_map_elementwise_has_its_region_s_effects(ctx: Context) -> None:
    body = (
        '  %0 = "tt.map_elementwise"(%arg0) <{pack = 1 : i32}> ({\n'
        "  ^bb0(%a: i32):\n"
        "    %v = tt.load %arg1 : !tt.ptr<i32>\n"
        "    tt.map_elementwise.return %v : i32\n"
        "  }) : (tensor<8xi32>) -> tensor<8xi32>"
    )
    (op,) = ops_of(ctx, "%arg0: tensor<8xi32>, %arg1: !tt.ptr<i32>", body)
    effects = get_effects(op)
    assert effects is not None
    assert {(e.kind, e.resource) for e in effects} == {(MemoryEffectKind.READ, GlobalMemory())}


# --------------------------------------------------------------------------- #
# Builders infer result types as Triton's do
# --------------------------------------------------------------------------- #


def test_builders_infer_types() -> None:
    ptr_f16 = PointerType(f16)
    func = FuncOp("k", ([ptr_f16, i64, i32, TensorType(f32, [4, 8])], []))
    base, size, offset, matrix = func.args
    pid = GetProgramIdOp(ProgramIDDim.Y)
    rng = MakeRangeOp(0, 16)
    splat = SplatOp(base, TensorType(ptr_f16, [16]))
    ptrs = AddPtrOp(splat, rng)
    expand = ExpandDimsOp(rng, 1)
    block = MakeTensorPtrOp(base, [size, size], [size, size], [offset, offset], [16, 32], [1, 0])
    advance = AdvanceOp(block, [offset, offset])
    trans = TransOp(matrix, [1, 0])
    join = JoinOp(matrix, matrix)
    split = SplitOp(join)
    dot = DotOp(trans, matrix, SplatOp(offset, TensorType(i32, [8, 8])), input_precision=InputPrecision.IEEE)
    reduce = ReduceOp([matrix], 1)
    total = ReduceOp([rng], 0)
    scan = ScanOp([rng], 0, reverse=True)
    assert pid.result.type == i32 and pid.axis_value is ProgramIDDim.Y
    assert rng.result.type == TensorType(i32, [16])
    assert ptrs.result.type == TensorType(ptr_f16, [16])
    assert expand.result.type == TensorType(i32, [16, 1])
    assert block.result.type == PointerType(TensorType(f16, [16, 32]))
    assert advance.result.type == block.result.type
    assert trans.result.type == TensorType(f32, [8, 4])
    assert join.result.type == TensorType(f32, [4, 8, 2])
    assert split.out_lhs.type == split.out_rhs.type == TensorType(f32, [4, 8])
    assert dot.d.type == TensorType(i32, [8, 8]) and dot.input_precision is None
    assert reduce.result.types == (TensorType(f32, [4]),)
    assert total.result.types == (i32,)
    assert total.combine_op.block.arg_types == (i32, i32)
    assert scan.result.types == (TensorType(i32, [16]),)


def test_built_kernel_verifies_and_prints() -> None:
    func = FuncOp("k", ([PointerType(f32), i32], []), visibility="public")
    ptr, n = func.args
    rng = MakeRangeOp(0, 8)
    ptrs = SplatOp(ptr, TensorType(PointerType(f32), [8]))
    offset = AddPtrOp(ptrs, rng)
    load = LoadOp(offset)
    reduce = ReduceOp([load.result], 0)
    lhs, rhs = reduce.combine_op.block.args
    add = arith.AddfOp(lhs, rhs)
    reduce.combine_op.block.add_ops([add, ReduceReturnOp(add)])
    total = tt.PrintOp("sum: ", [reduce.results[0]])
    scaled = tt.MulhiUIOp(n, n)
    func.body.block.add_ops([rng, ptrs, offset, load, reduce, total, scaled, ReturnOp()])
    module = ModuleOp([func])
    module.verify()
    text = print_body(module)
    assert '"tt.reduce"(%' in text and "tt.reduce.return" in text
    assert 'tt.print "sum: " {hex = false, isSigned = array<i32>} : %' in text


def test_get_pointee_and_i1_helpers_cover_block_pointers() -> None:
    block = PointerType(TensorType(f16, [8, 8]))
    assert get_pointee_type(block) == TensorType(f16, [8, 8])
    assert get_i1_same_shape(get_pointee_type(block)) == TensorType(i1, [8, 8])
    assert tt.get_pointer_type_same_shape(TensorType(f32, [4])) == TensorType(PointerType(f32), [4])
    assert tt.is_tensor_pointer_type(block) and not tt.is_tensor_pointer_type(PointerType(f16))


def test_tensordesc_signless_block_type() -> None:
    from xdsl.dialects.builtin import IntegerType, Signedness

    desc = tt.TensorDescType(TensorType(IntegerType(8, Signedness.UNSIGNED), [16]))
    assert desc.signless_block_type == TensorType(IntegerType(8), [16])
    assert tt.TensorDescType(TensorType(f16, [16])).signless_block_type == TensorType(f16, [16])


def test_reduce_single_combiner(ctx: Context) -> None:
    body = (
        '  %0 = "tt.reduce"(%arg0) <{axis = 0 : i32}> ({\n'
        "  ^bb0(%a: f32, %b: f32):\n"
        "    %s = arith.maxnumf %a, %b : f32\n"
        "    tt.reduce.return %s : f32\n"
        "  }) : (tensor<8xf32>) -> f32\n"
        '  %1 = "tt.reduce"(%arg0) <{axis = 0 : i32}> ({\n'
        "  ^bb0(%a: f32, %b: f32):\n"
        "    %s = arith.maxnumf %b, %a : f32\n"
        "    tt.reduce.return %s : f32\n"
        "  }) : (tensor<8xf32>) -> f32"
    )
    single, swapped = ops_of(ctx, "%arg0: tensor<8xf32>", body)
    assert isinstance(single, ReduceOp) and isinstance(swapped, ReduceOp)
    combiner = single.get_single_combiner()
    assert combiner is not None and combiner.name == "arith.maxnumf"
    assert swapped.get_single_combiner() is None


def test_unused_block_region_builder() -> None:
    region = ReduceOp([SplatOp(MakeRangeOp(0, 1).result, TensorType(i32, [4]))], 0).combine_op
    assert isinstance(region, Region) and isinstance(region.block, Block)
