"""MLIRGen and ``passviz toy`` (issue 14, layer 3): the ``toy`` IR of a Toy file,
located at its source, recorded as one trace step per function, and ``-emit=``
output passing the tutorial's CHECK lines
(``../shared/peer/llvm-project/mlir/test/Examples/Toy/Ch*/``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from passviz.cli import main
from passviz.cli.toyc import run_toy
from passviz.compilers.toy.dialect import FuncOp
from passviz.compilers.toy.lexer import ToyError
from passviz.compilers.toy.mlirgen import location_of, mlirgen
from passviz.compilers.toy.parser import parse_toy
from passviz.pipelines import load_trace
from tests.conftest import filecheck
from tests.toy_support import TOY, toy_cli

_RUN = re.compile(r"RUN: (not )?toyc-ch(\d) %s (-emit=\w+)( -opt)?")


def _runs() -> list[tuple[Path, int, str, bool]]:
    """Every peer ``.toy`` test with its RUN line: the chapter, ``-emit=``, and ``-opt``."""
    runs: list[tuple[Path, int, str, bool]] = []
    for path in sorted(TOY.glob("Ch*/*.toy")):
        match = _RUN.search(path.read_text())
        if match is not None:
            runs.append((path, int(match.group(2)), match.group(3), match.group(4) is not None))
    return runs


PRE_PRIVATE = {
    "Ch4/codegen.toy",
    "Ch4/transpose_transpose.toy",
    "Ch5/transpose_transpose.toy",
    "Ch6/transpose_transpose.toy",
}
"""Files whose CHECK lines come from before MLIRGen made every function but
``main`` private (chapter 4 on): ``func @transpose_transpose(`` is not in
``toy.func private @transpose_transpose(`` (see ``../shared/peer/SOURCES.md``).
They are checked as MLIRGen made them then, as chapters 2 and 3 still do."""

EMIT_MLIR = [
    pytest.param(path, chapter, id=f"{path.parent.name}-{path.name}")
    for path, chapter, emit, opt in _runs()
    if emit == "-emit=mlir" and not opt
]


def test_the_peer_files_we_check_are_there() -> None:
    if not TOY.is_dir():
        pytest.skip("the peer Toy tests (../shared/peer/llvm-project) are not here")
    names = {
        f"{path.parent.name}/{path.name}"
        for path, _, emit, opt in _runs()
        if emit == "-emit=mlir" and not opt
    }
    assert len(names) == 13 and PRE_PRIVATE <= names


@pytest.mark.parametrize(("path", "chapter"), EMIT_MLIR)
def test_emit_mlir_passes_the_chapter_checks(
    path: Path, chapter: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """``toyc-chN FILE -emit=mlir``: ``passviz toy FILE -emit=mlir --chapter N``
    passes the file's CHECK lines."""
    name = f"{path.parent.name}/{path.name}"
    if name in PRE_PRIVATE:
        status, out, _ = toy_cli(capsys, str(path), "-emit=mlir", "--chapter", str(chapter))
        assert status == 0 and re.search(r"toy\.func private @\w+\(", out), out
        chapter = 3
    status, out, err = toy_cli(capsys, str(path), "-emit=mlir", "--chapter", str(chapter))
    assert status == 0, err
    filecheck(out, path.read_text())


@pytest.mark.parametrize("path", sorted(TOY.glob("Ch*/ast.toy")) + sorted(TOY.glob("Ch*/empty.toy")), ids=str)
def test_emit_ast_from_the_command_line(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``toyc-chN FILE -emit=ast 2>&1``: the AST, or for an empty file the parse error, passes the CHECK lines."""
    status, out, err = toy_cli(capsys, str(path), "-emit=ast")
    assert status == (1 if path.name == "empty.toy" else 0)
    filecheck(out + err, path.read_text())
    assert err.count("\n") == (1 if status else 0)  # one line, never a traceback


@pytest.mark.parametrize("path", sorted(TOY.glob("Ch*/invalid.mlir")), ids=str)
def test_invalid_mlir_is_refused(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``not toyc-chN invalid.mlir -emit=mlir``: a .mlir input is read and verified, and this one fails."""
    status, out, err = toy_cli(capsys, str(path), "-emit=mlir")
    assert status == 1 and out == ""
    assert err.startswith(f"passviz: error: {path}") and err.count("\n") == 1
    assert "the input does not verify:" in err and "toy.print" in err


SOURCE = """\
def multiply_transpose(a, b) {
  return transpose(a) * transpose(b);
}

def main() {
  var a<2, 3> = [[1, 2, 3], [4, 5, 6]];
  var b = multiply_transpose(a, a);
  print(b + a);
}
"""


def test_every_op_is_located_at_its_source() -> None:
    module = mlirgen(parse_toy(SOURCE, "m.toy"))
    where = {f"{op.name}@{location_of(op)}" for op in module.walk() if op is not module}
    assert where == {
        "toy.func@m.toy:1:1",
        "toy.transpose@m.toy:2:10",
        "toy.transpose@m.toy:2:25",
        "toy.mul@m.toy:2:25",
        "toy.return@m.toy:2:3",
        "toy.func@m.toy:5:1",
        "toy.constant@m.toy:6:17",
        "toy.reshape@m.toy:6:3",
        "toy.generic_call@m.toy:7:11",
        "toy.add@m.toy:8:13",
        "toy.print@m.toy:8:3",
        "toy.return@m.toy:5:1",  # the implicit return is at the prototype, as in the tutorial
    }


def test_chapter_4_on_makes_every_function_but_main_private() -> None:
    for chapter, private in ((3, set[str]()), (4, {"multiply_transpose"})):
        module = mlirgen(parse_toy(SOURCE, "m.toy"), chapter=chapter)
        functions = [op for op in module.body.block.ops if isinstance(op, FuncOp)]
        assert {op.sym_name.data for op in functions if op.sym_visibility is not None} == private


def test_mlirgen_is_one_trace_step_per_function(tmp_path: Path) -> None:
    source = tmp_path / "m.toy"
    source.write_text(SOURCE)
    out = tmp_path / "m.passviz.json"
    result = run_toy(str(source), "mlir", output=out)
    trace = load_trace(out)
    rewrites = [step for step in trace.steps if step.kind == "rewrite"]
    assert [(step.pass_name, step.name) for step in rewrites] == [
        ("toy-mlirgen", "MLIRGen @multiply_transpose"),
        ("toy-mlirgen", "MLIRGen @main"),
    ]
    assert "toy.func" not in trace.ir_at(0)
    after_first = trace.ir_at(rewrites[0].index)
    assert "@multiply_transpose" in after_first and "@main" not in after_first
    assert trace.ir_at(len(trace.steps) - 1).replace("builtin.module", "module", 1) == result.text


def test_a_file_that_is_not_utf8_is_a_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "bad.toy"
    source.write_bytes(b"def main() {\n  print(\xff);\n}\n")
    status, _, err = toy_cli(capsys, str(source))
    assert (status, err) == (
        1,
        f"passviz: error: {source}:2:9: invalid UTF-8: byte 0xff (invalid start byte)\n",
    )


def test_the_command_writes_the_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "m.toy"
    source.write_text(SOURCE)
    out = tmp_path / "t.passviz.json"
    status, text, _ = toy_cli(capsys, str(source), "-emit=mlir", "-o", str(out))
    assert status == 0 and text.startswith("module {\n  toy.func private @multiply_transpose(")
    assert main(["steps", str(out)]) == 0
    assert "MLIRGen @main" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def main() { print(b); }", "e.toy:1:20: unknown variable 'b'"),
        (
            "def main() { var a = 1; print(transpose(a, a)); }",
            "e.toy:1:31: MLIR codegen encountered an error: toy.transpose does not accept multiple arguments",
        ),
        ("def main() { var a = 1; print(a - a); }", "e.toy:1:35: invalid binary operator '-'"),
        ("def main() { print(f(1)); }", "e.toy:1:20: call to undefined function 'f'"),
        (
            "def f(a) { return a; }\ndef main() { print(f()); }",
            "e.toy:2:20: 'f' takes 1 argument(s) but is called with 0",
        ),
        ("def main() { var a = 1; var a = 2; }", "e.toy:1:25: redeclaration of variable 'a'"),
        ("def f(a, a) { return a; }", "e.toy:1:10: redeclaration of variable 'a'"),
        ("def main() { var a = print(1); }", "e.toy:1:22: print returns no value"),
        ("def main() { return; print(1); }", "e.toy:1:14: 'toy.return'"),
        ("def f() { return; }\ndef f() { return; }", "e.toy:2:1: redefinition of function 'f'"),
        ("def main() { var a<3> = [1, 2]; }", "e.toy:1:14: 'toy.reshape'"),
    ],
)
def test_mlirgen_errors_are_located(source: str, message: str) -> None:
    with pytest.raises(ToyError) as caught:
        mlirgen(parse_toy(source, "e.toy"))
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_the_command_line_offers_what_the_driver_does() -> None:
    """The ``toy`` subcommand spells the driver's choices out (to import no Toy code at startup)."""
    from passviz.cli import _parser  # pyright: ignore[reportPrivateUsage]
    from passviz.cli.toyc import CHAPTERS, EMITS

    args = _parser().parse_args(["toy", "f.toy", "-emit=ast", "--chapter", "3"])
    assert (args.emit, args.chapter) == ("ast", 3)
    for emit in EMITS:
        assert _parser().parse_args(["toy", "f.toy", f"-emit={emit}"]).emit == emit
    for chapter in CHAPTERS:
        assert _parser().parse_args(["toy", "f.toy", "--chapter", str(chapter)]).chapter == chapter
    with pytest.raises(SystemExit):
        _parser().parse_args(["toy", "f.toy", "-emit=llvm-ir"])
