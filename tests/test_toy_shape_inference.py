"""``toy-shape-inference`` (issue 14, chapter 4): the tutorial's worklist, one
step per op whose shape is inferred, and the cast folding it enables, on IR
without calls (the whole chapter 4 pipeline, inliner first, is in
test_toy_inline.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from passviz.cli import main
from passviz.compilers.mlir.passes.canonicalize import Canonicalize
from passviz.compilers.toy.interpret import run_main
from passviz.compilers.toy.passes.shape_inference import ToyShapeInference
from passviz.pipelines import parse_ir, record

INLINED = """\
toy.func @main() {
  %0 = toy.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf64>
  %1 = toy.cast %0 : tensor<2x3xf64> to tensor<*xf64>
  %2 = toy.transpose(%1 : tensor<*xf64>) to tensor<*xf64>
  %3 = toy.mul %2, %2 : tensor<*xf64>
  %4 = toy.add %3, %2 : tensor<*xf64>
  toy.print %4 : tensor<*xf64>
  toy.return
}
"""
"""``main`` of the tutorial's sample as the inliner leaves it: a cast where the call was."""


def test_each_inferred_op_is_a_step_and_casts_fold_afterwards() -> None:
    run = record(INLINED, [ToyShapeInference(), Canonicalize()])
    trace = run.trace
    rewrites = [(step.pass_name, step.name) for step in trace.steps if step.kind == "rewrite"]
    assert rewrites == [
        ("toy-shape-inference", "infer toy.cast"),
        ("toy-shape-inference", "infer toy.transpose"),
        ("toy-shape-inference", "infer toy.mul"),
        ("toy-shape-inference", "infer toy.add"),
        ("canonicalize", "fold"),
    ]
    final = trace.ir_at(len(trace.steps) - 1)
    assert "toy.transpose(%0 : tensor<2x3xf64>) to tensor<3x2xf64>" in final
    assert "toy.add %2, %1 : tensor<3x2xf64>" in final
    assert "toy.cast" not in final and "*x" not in final
    expected = run_main(parse_ir(INLINED))
    assert all(run_main(parse_ir(trace.ir_at(step.index))) == expected for step in trace.steps)


def test_an_op_without_a_rule_fails_the_pass_with_the_tutorials_message() -> None:
    text = (
        "toy.func private @f(%arg0: tensor<*xf64>) -> tensor<*xf64> {\n  toy.return %arg0 : tensor<*xf64>\n}\n"
        "toy.func @main() {\n"
        "  %0 = toy.constant dense<[1.0]> : tensor<1xf64>\n"
        "  %1 = toy.generic_call @f(%0) : (tensor<1xf64>) -> tensor<*xf64>\n"
        "  toy.print %1 : tensor<*xf64>\n  toy.return\n}\n"
    )
    (failed,) = record(text, [ToyShapeInference()]).trace.failed_steps
    assert failed.flag is not None
    assert failed.flag["message"] == (
        "ShapeInferenceError: 'toy.generic_call' op unable to infer shape of operation "
        "without shape inference interface"
    )


def test_operands_that_stay_unranked_fail_the_pass() -> None:
    """A function's own unranked arguments never get a shape: the worklist stops shrinking."""
    text = (
        "toy.func @f(%arg0: tensor<*xf64>) -> tensor<*xf64> {\n"
        "  %0 = toy.transpose(%arg0 : tensor<*xf64>) to tensor<*xf64>\n"
        "  %1 = toy.mul %0, %0 : tensor<*xf64>\n"
        "  toy.return %1 : tensor<*xf64>\n}\n"
    )
    (failed,) = record(text, [ToyShapeInference()]).trace.failed_steps
    assert failed.flag is not None
    assert failed.flag["message"].endswith("@f: Shape inferencing failed, 2 operations couldn't be inferred")


def test_a_failure_names_the_source_line_where_the_ir_has_one() -> None:
    text = (
        "toy.func private @f(%arg0: tensor<*xf64>) -> tensor<*xf64> {\n  toy.return %arg0 : tensor<*xf64>\n}\n"
        "toy.func @main() {\n"
        "  %0 = toy.constant dense<[1.0]> : tensor<1xf64>\n"
        '  %1 = toy.generic_call @f(%0) : (tensor<1xf64>) -> tensor<*xf64> loc("k.toy":6:3)\n'
        "  toy.print %1 : tensor<*xf64>\n  toy.return\n}\n"
    )
    (failed,) = record(text, [ToyShapeInference()]).trace.failed_steps
    assert failed.flag is not None
    assert failed.flag["message"] == (
        "ShapeInferenceError: k.toy:6:3: 'toy.generic_call' op unable to infer shape of operation "
        "without shape inference interface"
    )


def test_a_pipeline_may_name_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "inlined.mlir"
    source.write_text(INLINED)
    out = tmp_path / "t.passviz.json"
    assert main(["trace", str(source), "-p", "toy-shape-inference,canonicalize", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["steps", str(out)]) == 0
    listing = capsys.readouterr().out
    assert "infer toy.transpose" in listing and "fold toy.cast" in listing
