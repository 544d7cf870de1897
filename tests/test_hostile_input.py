"""Malformed or extreme .mlir input: a clean, located answer in bounded time and memory."""

from __future__ import annotations

import time

import pytest
from xdsl.dialects.builtin import StringAttr

from passviz.pipelines import IRParseError, parse_ir


@pytest.mark.parametrize("length", [32, 100_000])
def test_an_unterminated_string_is_rejected_at_once(length: int) -> None:
    text = '"test.op"() {a = "' + "a" * length + "\n} : () -> ()\n"
    start = time.perf_counter()
    with pytest.raises(IRParseError, match=r"^<input>:1:18: "):
        parse_ir(text)
    assert time.perf_counter() - start < 1  # xDSL 0.74's own lexer: 151 s at 32 characters


def test_strings_with_escapes_still_read() -> None:
    module = parse_ir('"test.op"() {a = "x\\"y\\0Az\\\\", b = "' + "b" * 10_000 + '"} : () -> ()\n')
    op = next(iter(module.body.block.ops))
    assert op.attributes["a"] == StringAttr('x"y\nz\\') and op.attributes["b"] == StringAttr("b" * 10_000)
