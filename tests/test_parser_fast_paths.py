"""The parser's fast paths (simple locations, simple types, common tokens) read what xDSL's own parser reads."""

from __future__ import annotations

import io

import pytest
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRToken, MLIRTokenKind

from passviz.compilers.registry import make_context
from passviz.ir.literals import BoundedLexer
from passviz.ir.mlir_parser import MLIRParser
from passviz.ir.string_lexer import LinearStringLexer

_TEXT = """\
#loc = loc("k.py":3:0)
#loc1 = loc( "k.py" : 4 : 7 )
#loc2 = loc("x"(#loc))
#loc3 = loc("y"( #loc1 ))
#loc4 = loc(callsite(#loc1 at #loc2))
module {
  tt.func public @k(%p: !tt.ptr<f32> loc("p"(#loc)), %n: i32 loc("n"(#loc))) attributes {noinline = false} {
    %0 = tt.get_program_id x : i32 loc(#loc1)
    %1 = tt.splat %0 : i32 -> tensor<128xi32> loc( #loc2 )
    %2 = tt.splat %p : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>> loc(#loc3)
    %3 = tt.addptr %2, %1 : tensor<128x!tt.ptr<f32>>, tensor<128xi32> loc("k.py":9:1)
    %4 = tt.load %3 : tensor<128x!tt.ptr<f32>> loc(#loc4)
    %5 = arith.constant 8 : i32 loc(#loc1)
    %6 = arith.constant 8 : i32 loc(#loc1)
    %7 = arith.constant -2147483648 : i64 loc(#loc1)
    %8 = arith.constant 1.500000e+00 : f32 loc(#loc1)
    %9 = arith.constant 0 : index loc(#loc1)
    %10 = arith.constant 255 : i8 loc(#loc1)
    tt.store %3, %4 : tensor<128x!tt.ptr<f32>> loc(unknown)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
"""


def _printed(op: Operation) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=True, print_debuginfo=True).print_op(op)
    return stream.getvalue()


def test_locations_and_types_read_as_xdsl_reads_them() -> None:
    ours = MLIRParser(make_context(), _TEXT).parse_module()
    theirs = Parser(make_context(), _TEXT).parse_module()
    assert _printed(ours) == _printed(theirs)
    assert 'loc("y"("k.py":4:7))' in _printed(ours)


def test_late_aliases_through_the_fast_path_resolve() -> None:
    """Triton writes the aliases after the module; the same text with them last reads the same."""
    aliases, _, body = _TEXT.partition("module {")
    ours = MLIRParser(make_context(), "module {" + body + aliases).parse_module()
    theirs = Parser(make_context(), _TEXT).parse_module()
    assert _printed(ours) == _printed(theirs)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('#a = 1 : i32\n"test.op"() : () -> () loc(#a)', "Expected location alias"),
        ('"test.op"() : () -> () loc(#nowhere)', "never defined as a location"),
        ('"test.op"() : () -> () loc("f":1:)', "Expected integer literal"),
    ],
)
def test_bad_locations_are_refused_where_they_are(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message) as caught:
        MLIRParser(make_context(), text).parse_module()
    assert str(caught.value).startswith("<unknown>:")


class _XdslLexer(BoundedLexer):
    """The lexer without its fast path: xDSL's character-by-character ``lex``."""

    def lex(self) -> MLIRToken:
        return LinearStringLexer.lex(self)


def _tokens(lexer: type[BoundedLexer], text: str) -> list[tuple[object, int, int] | str]:
    lexing = lexer(Input(text, "t.mlir"))
    tokens: list[tuple[object, int, int] | str] = []
    while True:
        try:
            token = lexing.lex()
        except ParseError as exc:
            return [*tokens, str(exc)]
        tokens.append((token.kind, token.span.start, token.span.end))
        if token.kind is MLIRTokenKind.EOF:
            return tokens


@pytest.mark.parametrize(
    "text",
    [
        _TEXT,
        '0x1F 0X1F 0xi32 12.5 12 1e5 007 -> - -x %-x %0abc #-} {-# ^bb0 @f @"s" a.b$c ...',
        '/ x ? | * + = "s\\n" 0.5e-3 %a-b #$ !_ %.x a_1 2',
        "a // a comment ] that ends the input",
        "a // a comment ]\n] ü",
        "%x = arith.constant dense<[1, 2]> : tensor<2xi32> loc(#loc3)",
        '"unterminated',
    ],
)
def test_the_lexer_reads_the_tokens_xdsl_reads(text: str) -> None:
    assert _tokens(BoundedLexer, text) == _tokens(_XdslLexer, text)
