"""Tests of the Triton ``tt`` dialect (passviz.dialects.tt): syntax and verification."""

from __future__ import annotations

import re
import textwrap
from io import StringIO
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import (
    Builtin,
    ModuleOp,
    TensorType,
    bf16,
    f16,
    f32,
    i1,
    i32,
)
from xdsl.dialects.cf import Cf
from xdsl.dialects.func import Func
from xdsl.dialects.scf import Scf
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    CallableOpInterface,
    IsolatedFromAbove,
    IsTerminator,
    MemoryEffectKind,
    ReturnLike,
    SymbolOpInterface,
    get_effects,
)
from xdsl.utils.exceptions import ParseError, VerifyException

from passviz.dialects.tt import (
    TT,
    CacheModifier,
    CallOp,
    EvictionPolicy,
    FuncOp,
    GlobalMemory,
    LoadOp,
    PointerType,
    ReturnOp,
    StoreOp,
    get_i1_same_shape,
    get_pointee_type,
)

# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #


def _find_peer_dir() -> Path | None:
    """The shared folder of real test inputs from Triton and its forks."""
    repo = Path(__file__).resolve().parents[1]
    for candidate in (repo / "shared" / "peer", repo.parent / "shared" / "peer"):
        if candidate.is_dir():
            return candidate
    return None


PEER = _find_peer_dir()


def peer_file(relative: str) -> str:
    """The text of a peer test input; skips the test when it is not available."""
    if PEER is None or not (PEER / relative).is_file():
        pytest.skip(f"peer input {relative} is not available")
    return (PEER / relative).read_text()


def split_chunks(text: str) -> list[str]:
    """Split an MLIR test file on ``// -----`` like ``-split-input-file``."""
    return text.split("// -----")


@pytest.fixture
def ctx() -> Context:
    context = Context(allow_unregistered=False)
    for dialect in (Builtin, Func, Arith, Cf, Scf, TT):
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
    chunks = split_chunks(peer_file(WRAP_FUNC_FILE))
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
    chunks = split_chunks(peer_file(WRAP_FUNC_FILE))
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


def test_kernel_roundtrip(ctx: Context) -> None:
    assert roundtrip(ctx, KERNEL) == KERNEL


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
    assert print_body(reparsed) == KERNEL


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
    chunk = split_chunks(peer_file(path))[index]
    printed = roundtrip(ctx, chunk)
    # Every tt.load/tt.store is printed exactly as Triton wrote it
    # (up to the renumbering of SSA values).
    source_lines = tt_memory_lines(chunk)
    assert source_lines
    assert source_lines == tt_memory_lines(printed)
