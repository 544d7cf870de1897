"""The Toy language (issue 14, layer 1): lexer, parser, locations and the
``-emit=ast`` printer, against the tutorial's own tests in
``../shared/peer/llvm-project/mlir/test/Examples/Toy/Ch*/``."""

from __future__ import annotations

from pathlib import Path

import pytest

from passviz.compilers.toy.ast import (
    BinaryExpr,
    CallExpr,
    LiteralExpr,
    NumberExpr,
    PrintExpr,
    ReturnExpr,
    VarDeclExpr,
    dump,
)
from passviz.compilers.toy.lexer import ToyError
from passviz.compilers.toy.parser import parse_toy
from tests.conftest import filecheck
from tests.toy_support import TOY, needs_toy_peer

AST_TESTS = sorted(TOY.glob("Ch*/ast.toy"))
EMPTY_TESTS = sorted(TOY.glob("Ch*/empty.toy"))


def test_every_chapter_has_the_files_we_test() -> None:
    needs_toy_peer()
    assert [path.parent.name for path in AST_TESTS] == ["Ch2", "Ch3", "Ch4", "Ch5", "Ch6"]
    assert [path.parent.name for path in EMPTY_TESTS] == ["Ch4", "Ch6"]


@pytest.mark.parametrize("path", AST_TESTS, ids=lambda path: path.parent.name)
def test_emit_ast_passes_the_chapter_checks(path: Path) -> None:
    """``Ch*/ast.toy``: ``-emit=ast`` passes the file's CHECK lines."""
    text = path.read_text()
    filecheck(dump(parse_toy(text, str(path))), text)


@pytest.mark.parametrize("path", EMPTY_TESTS, ids=lambda path: path.parent.name)
def test_an_empty_file_is_a_parse_error(path: Path) -> None:
    """``Ch4/empty.toy``, ``Ch6/empty.toy``: no function at all is a located parse error."""
    text = path.read_text()
    with pytest.raises(ToyError) as caught:
        parse_toy(text, str(path))
    message = str(caught.value)
    assert message == f"{path}:4:1: Parse error: expected 'def' in prototype but has end of file"
    filecheck(message + "\n", text)


def test_the_printer_indents_as_the_tutorial_dumper() -> None:
    source = "def main() {\n  var a<2, 2> = 5.5;\n  print(a);\n  return;\n}\n"
    assert dump(parse_toy(source, "s.toy")) == (
        "  Module:\n"
        "    Function \n"
        "      Proto 'main' @s.toy:1:1\n"
        "      Params: []\n"
        "      Block {\n"
        "        VarDecl a<2, 2> @s.toy:2:3\n"
        "          5.500000e+00 @s.toy:2:17\n"
        "        Print [ @s.toy:3:3\n"
        "          var: a @s.toy:3:9\n"
        "        ]\n"
        "        Return\n"
        "          (void)\n"
        "      } // Block\n"
    )


def test_every_node_carries_its_location() -> None:
    source = "# comment\ndef f(x) {\n  return x + [1, 2] * (3);\n}\n"
    (function,) = parse_toy(source, "loc.toy").functions
    (ret,) = function.body
    assert isinstance(ret, ReturnExpr) and str(ret.loc) == "loc.toy:3:3"
    add = ret.expr
    assert isinstance(add, BinaryExpr) and add.op == "+"
    # as the tutorial's parser: a binary op is located at its right-hand side
    assert str(add.loc) == "loc.toy:3:14"
    mul = add.rhs
    assert isinstance(mul, BinaryExpr) and mul.op == "*"  # * binds tighter than +
    assert isinstance(mul.lhs, LiteralExpr) and mul.lhs.dims == (2,)
    assert isinstance(mul.rhs, NumberExpr) and str(mul.rhs.loc) == "loc.toy:3:24"
    assert [str(param.loc) for param in function.proto.params] == ["loc.toy:2:7"]


def test_literals_flatten_row_major_and_keep_their_shape() -> None:
    (function,) = parse_toy("def main() { var a = [[1, 2, 3], [4, 5, 6]]; }", "l.toy").functions
    (decl,) = function.body
    assert isinstance(decl, VarDeclExpr) and isinstance(decl.init, LiteralExpr)
    assert decl.init.dims == (2, 3)
    assert decl.init.flatten() == [1, 2, 3, 4, 5, 6]


def test_calls_print_and_transpose_parse_as_the_tutorial() -> None:
    source = "def main() { print(transpose(f(1, [2]))); }"
    (function,) = parse_toy(source, "c.toy").functions
    (stmt,) = function.body
    assert isinstance(stmt, PrintExpr)
    assert isinstance(stmt.arg, CallExpr) and stmt.arg.callee == "transpose"
    inner = stmt.arg.args[0]
    assert isinstance(inner, CallExpr) and inner.callee == "f" and len(inner.args) == 2


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("", "e.toy:1:1: Parse error: expected 'def' in prototype but has end of file"),
        ("def main() { var a = ; }", "e.toy:1:22: Parse error: expected expression but has ';'"),
        (
            "def f(a,) {}",
            "e.toy:1:9: Parse error: expected identifier in function parameter list but has ')'",
        ),
        (
            "def main() { var a 1; }",
            "e.toy:1:20: Parse error: expected '=' in variable declaration but has number '1'",
        ),
        ("def main() { var a = 1 }", "e.toy:1:24: Parse error: expected ';' after expression but has '}'"),
        (
            "def main() { var a = 1;",
            "e.toy:1:24: Parse error: expected '}' to close block but has end of file",
        ),
        (
            "def main() { return 1 + ; }",
            "e.toy:1:25: Parse error: expected expression to complete binary operator but has ';'",
        ),
        (
            "def main() { var a = [[1], [2, 3]]; }",
            "e.toy:1:22: Parse error: expected uniform well-nested dimensions inside literal expression",
        ),
        (
            "def main() { var a = [1, [2]]; }",
            "e.toy:1:22: Parse error: expected uniform well-nested dimensions inside literal expression",
        ),
        (
            "def main() { var a = []; }",
            "e.toy:1:23: Parse error: expected <num> or [ in literal expression but has ']'",
        ),
        (
            "def main() { var a<2.5> = 1; }",
            "e.toy:1:20: Parse error: expected an integer dimension in type but has number '2.5'",
        ),
        (
            "def main() { print(1, 2); }",
            "e.toy:1:14: Parse error: expected <single arg> as argument to print()",
        ),
        ("def main() { var a = 1.2.3; }", "e.toy:1:22: Parse error: invalid number '1.2.3'"),
        ("def main() {}\nvar", "e.toy:2:1: Parse error: expected 'def' in prototype but has keyword 'var'"),
        (
            "def main() { f(1 2); }",
            "e.toy:1:18: Parse error: expected ',' or ')' in argument list but has number '2'",
        ),
        (
            "def main() { (1; }",
            "e.toy:1:16: Parse error: expected ')' to close expression with parentheses but has ';'",
        ),
    ],
)
def test_bad_input_is_one_located_error(source: str, message: str) -> None:
    with pytest.raises(ToyError) as caught:
        parse_toy(source, "e.toy")
    assert str(caught.value) == message


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(ToyError, match="nested too deeply"):
        parse_toy("def main() { var a = " + "(" * 5000 + "1" + ")" * 5000 + "; }", "d.toy")
    with pytest.raises(ToyError, match="nested too deeply"):
        parse_toy("def main() { var a = " + "[" * 5000 + "1" + "]" * 5000 + "; }", "d.toy")
