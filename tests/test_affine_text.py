"""Affine maps print as MLIR's printer writes them, and parse back to the same map."""

from __future__ import annotations

from xdsl.dialects.builtin import AffineMapAttr
from xdsl.ir.affine import AffineExpr, AffineMap

from passviz.compilers.registry import make_context
from passviz.ir.affine_text import affine_map_text
from passviz.ir.mlir_parser import MLIRParser
from passviz.ir.printer import print_module

d0, d1, d2 = (AffineExpr.dimension(i) for i in range(3))
s0 = AffineExpr.symbol(0)

CASES = {
    "(d0, d1, d2) -> (d2 * 2 + d1)": AffineMap(3, 0, (d2 * 2 + d1,)),
    "(d0, d1, d2) -> (d0 - d1, d0 - d1 * 3, d0 - 3, -d0)": AffineMap(
        3, 0, (d0 - d1, d0 + d1 * -3, d0 + -3, d0 * -1)
    ),
    "(d0, d1, d2)[s0] -> (d0 mod 4, d0 floordiv 2, d0 + s0 * 20)": AffineMap(
        3, 1, (d0 % 4, d0 // 2, d0 + s0 * 20)
    ),
    "(d0, d1, d2) -> ((d0 + d1) mod 4)": AffineMap(3, 0, ((d0 + d1) % 4,)),
    "() -> (5)": AffineMap(0, 0, (AffineExpr.constant(5),)),
}
"""Each map's MLIR text (as iree-opt 3.13 prints it), with the map."""


def test_affine_maps_print_as_mlir_does_and_parse_back() -> None:
    for text, map_ in CASES.items():
        assert affine_map_text(map_) == text
        module = f'"test.op"() {{m = affine_map<{text}>}} : () -> ()'
        parsed = MLIRParser(make_context(allow_unregistered=True), module).parse_module()
        op = next(iter(parsed.body.block.ops))
        assert op.attributes["m"] == AffineMapAttr(map_)
        assert f"affine_map<{text}>" in print_module(parsed)
