"""A splat ``dense<x>`` parses to the attribute xDSL's element-by-element path builds, packed once."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from passviz.compilers.registry import make_context
from passviz.ir.literals import MAX_DENSE_ELEMENTS
from passviz.ir.mlir_parser import MLIRParser


def _ours(text: str) -> Attribute:
    return MLIRParser(make_context(), text).parse_attribute()


def _xdsl(text: str) -> Attribute:
    return Parser(make_context(), text).parse_attribute()


@pytest.mark.parametrize(
    "text",
    [
        "dense<1> : tensor<4xi32>",
        "dense<255> : tensor<4xi8>",  # wraps to -1, as xDSL normalises it
        "dense<-1> : tensor<3xi8>",
        "dense<4294967295> : tensor<2xui32>",
        "dense<7> : tensor<5xindex>",
        "dense<true> : tensor<4xi1>",
        "dense<false> : tensor<4xi1>",
        "dense<1.5> : tensor<2x3xf32>",
        "dense<-1.5> : tensor<4xbf16>",
        "dense< 2.0 > : vector<4xf64>",
        "dense<(1,2)> : tensor<2xcomplex<f32>>",
        "dense<(1,2)> : tensor<2xcomplex<i32>>",
        "dense<1> : tensor<0xi32>",
        "dense<1.0> : tensor<128x64xf16>",
    ],
)
def test_splats_equal_xdsl_element_by_element(text: str) -> None:
    ours = _ours(text)
    assert isinstance(ours, DenseIntOrFPElementsAttr)
    assert ours == _xdsl(text)


def test_a_hex_splat_is_the_bit_pattern_of_every_element() -> None:
    ours = _ours("dense<0xFF800000> : tensor<4xf32>")
    assert isinstance(ours, DenseIntOrFPElementsAttr)
    assert list(ours.get_values()) == [float("-inf")] * 4


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("dense<1.5> : tensor<4xi32>", "integer"),
        ("dense<1> : tensor<?xi32>", "static shape"),
        ("dense<1> : i32", "Expected memref, vector or tensor type"),
        ("dense<1 : tensor<4xi32>", "Expected '>' in dense attribute"),
        (f"dense<0> : tensor<{MAX_DENSE_ELEMENTS + 1}xi8>", "larger than passviz reads"),
    ],
)
def test_bad_splats_are_refused_with_a_location(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message) as caught:
        _ours(text)
    assert str(caught.value).startswith("<unknown>:1:")
