"""The Toy inliner interface (issue 14, chapter 4): passviz's ``inline`` inlines
``toy.generic_call``, takes ``toy.return`` as the terminator, casts arguments
(and results) whose types differ with ``toy.cast``, and erases the private
callees afterwards, each a step; ``toyc-ch4 -emit=mlir -opt``'s pipeline
(inline, then shape inference, canonicalize and CSE) passes the peer tests
(``../shared/peer/llvm-project/mlir/test/Examples/Toy/Ch4/``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from passviz.cli.toyc import run_toy
from passviz.compilers.toy.interpret import run_main
from passviz.pipelines import load_trace, parse_ir
from tests.conftest import filecheck
from tests.toy_support import TOY, needs_toy_peer, toy_cli

CHAPTERS = (4, 5, 6)

CALL_WITH_OTHER_RESULT_TYPE = """\
toy.func private @f(%arg0: tensor<*xf64>) -> tensor<*xf64> {
  %0 = toy.mul %arg0, %arg0 : tensor<*xf64>
  toy.return %0 : tensor<*xf64>
}
toy.func @main() {
  %0 = toy.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %1 = toy.generic_call @f(%0) : (tensor<2xf64>) -> tensor<2xf64>
  toy.print %1 : tensor<2xf64>
  toy.return
}
"""
"""A call whose argument and result are both of other types than the callee's."""


def _toy_func_input(path: Path, folder: Path) -> Path:
    """``path`` with the pre-2022 ``func @`` of its input spelled ``toy.func @``
    (see ``../shared/peer/SOURCES.md``: the OLD files)."""
    text = path.read_text()
    if not re.search(r"^func @", text, flags=re.MULTILINE):
        return path
    rewritten = folder / path.name
    rewritten.write_text(re.sub(r"^func @", "toy.func @", text, flags=re.MULTILINE))
    return rewritten


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_shape_inference_mlir_passes_the_chapter_checks(
    chapter: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``toyc-chN shape_inference.mlir -emit=mlir -opt``: the callee is gone, every shape known."""
    needs_toy_peer()
    path = TOY / f"Ch{chapter}/shape_inference.mlir"
    status, out, err = toy_cli(
        capsys, str(_toy_func_input(path, tmp_path)), "-emit=mlir", "-opt", "--chapter", str(chapter)
    )
    assert status == 0, err
    filecheck(out, path.read_text())


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_codegen_toy_with_opt_is_the_shape_inference_result(
    chapter: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """``codegen.toy`` is the program that ``shape_inference.mlir`` holds as MLIRGen makes it:
    with ``-opt`` it gives what that test checks."""
    needs_toy_peer()
    status, out, err = toy_cli(
        capsys, str(TOY / f"Ch{chapter}/codegen.toy"), "-emit=mlir", "-opt", "--chapter", str(chapter)
    )
    assert status == 0, err
    filecheck(out, (TOY / "Ch4/shape_inference.mlir").read_text())


@pytest.mark.parametrize(
    ("name", "printed"),
    [
        (
            "transpose_transpose.toy",
            "toy.constant dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00], "
            "[4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf64>\n"
            "    toy.print %0 : tensor<2x3xf64>",
        ),
        (
            "trivial_reshape.toy",
            "toy.constant dense<[[1.000000e+00], [2.000000e+00]]> : tensor<2x1xf64>\n"
            "    toy.print %0 : tensor<2x1xf64>",
        ),
    ],
)
def test_chapter_4_opt_inlines_and_folds_the_peer_programs(
    name: str, printed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """At chapter 4 ``-opt`` inlines ``transpose_transpose``, whose transposes then cancel;
    the reshapes of the constant fold as in chapter 3."""
    needs_toy_peer()
    status, out, err = toy_cli(capsys, str(TOY / f"Ch4/{name}"), "-emit=mlir", "-opt", "--chapter", "4")
    assert status == 0, err
    assert out == f"module {{\n  toy.func @main() {{\n    %0 = {printed}\n    toy.return\n  }}\n}}\n"


def test_each_inliner_edit_is_a_step_and_every_step_prints_the_same() -> None:
    """The casts, the inlined bodies, the erased calls and the erased callee are steps of
    ``inline``; the interpreter prints the same at every step of the pipeline."""
    needs_toy_peer()
    result = run_toy(str(TOY / "Ch4/codegen.toy"), "mlir", chapter=4, opt=True)
    assert result.run is not None
    trace = result.run.trace
    passes = [step.pass_name for step in trace.steps if step.kind == "pass-begin"]
    assert passes == ["toy-mlirgen", "inline", "toy-shape-inference", "canonicalize", "cse"]
    inliner = [step.name for step in trace.steps if step.kind == "rewrite" and step.pass_name == "inline"]
    call = [
        "cast argument #0 of call to @multiply_transpose to tensor<*xf64>",
        "cast argument #1 of call to @multiply_transpose to tensor<*xf64>",
        "inline body of @multiply_transpose",
        "erase call to @multiply_transpose",
    ]
    edits = [name for name in inliner if name not in ("FoldConstantReshapeOptPattern", "erase-dead-op")]
    assert edits == [*call, *call, "erase dead function @multiply_transpose"]
    after_inline = next(s.index for s in trace.steps if s.kind == "pass-end" and s.pass_name == "inline")
    assert re.findall(r"toy\.\w+", trace.ir_at(after_inline)) == [
        "toy.func",
        "toy.constant",
        "toy.constant",
        "toy.cast",
        "toy.cast",
        "toy.transpose",
        "toy.transpose",
        "toy.mul",
        "toy.print",
        "toy.return",
    ]
    first = next(s.index for s in trace.steps if s.pass_name == "inline")
    expected = run_main(parse_ir(trace.ir_at(first)))
    assert expected == run_main(parse_ir(result.text))
    # Between moving the last callee's body in and erasing its call, the call names a
    # bodiless declaration (as in MLIR): that one step cannot run.
    runnable = [
        step.index
        for step in trace.steps[first:]
        if not (
            re.search(r"toy\.func private @\w+\([^)]*\) -> [^{]*$", trace.ir_at(step.index), re.MULTILINE)
            and "toy.generic_call" in trace.ir_at(step.index)
        )
    ]
    assert len(runnable) == len(trace.steps) - first - 1
    assert all(run_main(parse_ir(trace.ir_at(index))) == expected for index in runnable)


def test_a_result_of_another_type_is_cast_back_after_the_call(tmp_path: Path) -> None:
    """The call's result type is not the callee's: a cast after the call gives its users
    their type, and reads the inlined return value once the call is gone."""
    source = tmp_path / "input.mlir"
    source.write_text(CALL_WITH_OTHER_RESULT_TYPE)
    result = run_toy(str(source), "mlir", chapter=4, opt=True)
    assert result.run is not None
    trace = result.run.trace
    names = [step.name for step in trace.steps if step.kind == "rewrite" and step.pass_name == "inline"]
    assert names == [
        "cast argument #0 of call to @f to tensor<*xf64>",
        "cast result #0 of call to @f to tensor<2xf64>",
        "inline body of @f",
        "erase call to @f",
        "erase dead function @f",
    ]
    inlined = trace.ir_at(next(s.index for s in trace.steps if s.name == "erase call to @f"))
    assert "%3 = toy.cast %2 : tensor<*xf64> to tensor<2xf64>" in inlined
    assert "toy.mul %0, %0 : tensor<2xf64>" in result.text and "toy.cast" not in result.text
    assert run_main(parse_ir(result.text)) == run_main(parse_ir(CALL_WITH_OTHER_RESULT_TYPE))


def test_the_trace_file_ends_at_the_printed_ir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``-o``: the trace of the whole ``-opt`` pipeline is written, and the command prints its end."""
    needs_toy_peer()
    out_file = tmp_path / "trace.json"
    status, out, err = toy_cli(
        capsys, str(TOY / "Ch4/codegen.toy"), "-opt", "--chapter", "4", "-o", str(out_file)
    )
    assert status == 0, err
    trace = load_trace(out_file)
    assert trace.ir_at(len(trace.steps) - 1).replace("builtin.module", "module", 1) == out
    assert "toy.generic_call" not in out and "multiply_transpose" not in out
