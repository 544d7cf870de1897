"""passviz's parser reads MLIR's hex float literals and late location aliases as MLIR does."""

from __future__ import annotations

import math
import struct

import pytest
from xdsl.dialects.builtin import (
    CallSiteLoc,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    FloatAttr,
    FusedLoc,
    IntAttr,
    NameLoc,
    NoneAttr,
    StringAttr,
)
from xdsl.ir import Operation
from xdsl.utils.exceptions import ParseError

from passviz.compilers.registry import make_context
from passviz.ir.mlir_parser import MLIRParser
from passviz.ir.printer import print_module
from passviz.pipelines import IRParseError, parse_ir
from tests.conftest import need
from tests.test_combine import assert_replay_exact
from tests.triton_oracle import triton_missing, triton_normalize


def _values(op: Operation) -> tuple[float, ...]:
    value = op.properties["value"]
    if isinstance(value, FloatAttr):
        return (value.value.data,)
    assert isinstance(value, DenseIntOrFPElementsAttr)
    return tuple(float(x) for x in value.get_values())


def _bits32(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


@pytest.mark.parametrize(
    ("literal", "type", "expected"),
    [
        ("dense<0xFF800000>", "tensor<4xf32>", (-math.inf,) * 4),
        ("dense<0x7F800000>", "tensor<2xf32>", (math.inf,) * 2),
        ("dense<[0xFF800000, 1.5]>", "tensor<2xf32>", (-math.inf, 1.5)),
        ("dense<0xFC00>", "tensor<2xf16>", (-math.inf,) * 2),
        ("dense<0x3FF0000000000000>", "tensor<1xf64>", (1.0,)),
        ("0xFF800000", "f32", (-math.inf,)),
    ],
)
def test_hex_float_literals_are_bit_patterns(literal: str, type: str, expected: tuple[float, ...]) -> None:
    module = parse_ir(f"%0 = arith.constant {literal} : {type}")
    assert _values(module.ops.first) == expected  # pyright: ignore[reportArgumentType]


def test_nan_keeps_its_payload_and_prints_back_as_hex() -> None:
    module = parse_ir("%0 = arith.constant dense<[0x7FC00001, 2.0]> : tensor<2xf32>")
    nan, two = _values(module.ops.first)  # pyright: ignore[reportArgumentType]
    assert math.isnan(nan) and _bits32(nan) == 0x7FC00001 and two == 2.0
    assert "dense<[0x7FC00001, 2.000000e+00]>" in print_module(module)


def test_hex_integers_stay_integers() -> None:
    module = parse_ir("%0 = arith.constant dense<[0x10, 3]> : tensor<2xi32>")
    assert _values(module.ops.first) == (16.0, 3.0)  # pyright: ignore[reportArgumentType]


@pytest.mark.parametrize(
    ("literal", "message"),
    [
        ("dense<0x1FF800000> : tensor<2xf32>", "hex literal does not fit in f32"),
        ("dense<[1.0, -0xFF800000]> : tensor<2xf32>", "a hex float literal cannot be negated"),
    ],
)
def test_bad_hex_float_literals_are_located(literal: str, message: str) -> None:
    with pytest.raises(IRParseError) as caught:
        parse_ir(f"\n%0 = arith.constant {literal}", "k.mlir")
    assert caught.value.message == message
    assert caught.value.line == 2
    assert caught.value.column == len("%0 = arith.constant ") + literal.index("0x") + 1 - (
        1 if "-0x" in literal else 0
    )


def test_triton_reads_our_print_of_minus_inf_as_its_own() -> None:
    need(triton_missing())
    text = "tt.func @f() -> tensor<8xf32> {\n  %0 = arith.constant dense<0xFF800000> : tensor<8xf32>\n  tt.return %0 : tensor<8xf32>\n}"
    assert triton_normalize(print_module(parse_ir(text))) == triton_normalize(text)


def test_minus_inf_constants_replay_exactly() -> None:
    # A canonicalize that keeps a -inf splat and folds a max into it.
    text = """
tt.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  %ninf = arith.constant dense<0xFF800000> : tensor<8xf32>
  %0 = arith.maxnumf %x, %ninf : tensor<8xf32>
  %1 = arith.maximumf %0, %ninf : tensor<8xf32>
  tt.return %1 : tensor<8xf32>
}
"""
    assert_replay_exact(text, "canonicalize")


LATE_ALIASES = """\
%0 = arith.constant 1 : i32 loc(#loc2)
%1 = arith.constant 2 : i32 loc(#loc3)
%2 = arith.constant 3 : i32 loc(callsite(#loc2 at #loc1))
"test.region"() ({
^bb0(%a: i32 loc(#loc1)):
  "test.term"() : () -> ()
}) : () -> () loc(#loc1)
#loc1 = loc("k.py":3:4)
#loc2 = loc("x"(#loc1))
#loc3 = loc(fused[#loc1, #loc2])
"""


def test_location_aliases_may_follow_their_uses() -> None:
    module = MLIRParser(make_context(allow_unregistered=True), LATE_ALIASES).parse_module()
    ops = list(module.ops)
    k = FileLineColLoc(StringAttr("k.py"), IntAttr(3), IntAttr(4))
    x = NameLoc(StringAttr("x"), k)
    assert ops[0].location == x
    assert ops[1].location == FusedLoc((k, x), NoneAttr())
    assert ops[2].location == CallSiteLoc(x, k)
    assert ops[3].location == k
    assert ops[3].regions[0].blocks[0].args[0].location == k
    assert "#loc" not in print_module(module)


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("%0 = arith.constant 1 : i32\n%1 = arith.constant 2 : i32 loc(#nope)", 2, 33),
        ("%0 = arith.constant 1 : i32 loc(#a)\n#a = loc(#b)\n#b = loc(#a)", 2, 10),
        ('%0 = arith.constant 1 : i32 loc(#a)\n#a = "not a location"', 1, 33),
    ],
)
def test_undefined_location_aliases_are_located(text: str, line: int, column: int) -> None:
    with pytest.raises(IRParseError) as caught:
        parse_ir(text, "k.mlir")
    assert "is never defined as a location" in caught.value.message
    assert (caught.value.line, caught.value.column) == (line, column)


def test_a_lone_location_does_not_wait_for_later_aliases() -> None:
    # Replay reads single locations from (untrusted) trace files: nothing follows them.
    with pytest.raises(ParseError):
        MLIRParser(make_context(), "loc(#loc3)").parse_optional_location()
