"""The Toy tutorial's canonicalization patterns (issue 14, chapter 3), each
rewrite a step of passviz's ``canonicalize``; ``toyc-ch3 -emit=mlir -opt``'s
tests (``../shared/peer/llvm-project/mlir/test/Examples/Toy/Ch3/``) pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from passviz.cli import main
from passviz.pipelines import record
from tests.conftest import PEER, filecheck

CH3 = PEER / "llvm-project/mlir/test/Examples/Toy/Ch3"
OPT_TESTS = [CH3 / "transpose_transpose.toy", CH3 / "trivial_reshape.toy"]


def _rewrites(text: str) -> tuple[list[str], str]:
    """The names of the rewrite steps ``canonicalize`` makes on ``text``, and the IR after."""
    run = record(text, "canonicalize")
    steps = [step.name or "" for step in run.trace.steps if step.kind == "rewrite"]
    return steps, run.trace.ir_at(len(run.trace.steps) - 1)


@pytest.mark.parametrize("path", OPT_TESTS, ids=lambda path: path.name)
def test_opt_passes_the_chapter_3_checks(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``toyc-ch3 FILE -emit=mlir -opt``."""
    if not path.is_file():
        pytest.skip("the peer Toy tests (../shared/peer/llvm-project) are not here")
    assert "RUN: toyc-ch3 %s -emit=mlir -opt" in path.read_text()
    assert main(["toy", str(path), "-emit=mlir", "-opt", "--chapter", "3"]) == 0
    filecheck(capsys.readouterr().out, path.read_text())


def test_steps_name_simplify_redundant_transpose(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The double transpose disappears in a step named after the tutorial's pattern."""
    path = CH3 / "transpose_transpose.toy"
    if not path.is_file():
        pytest.skip("the peer Toy tests (../shared/peer/llvm-project) are not here")
    out = tmp_path / "t.passviz.json"
    assert main(["toy", str(path), "-emit=mlir", "-opt", "--chapter", "3", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["steps", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    named = [line.split()[3] for line in lines[1:] if line.split()[1] == "rewrite"]
    assert named[:3] == ["MLIRGen", "MLIRGen", "SimplifyRedundantTranspose"]
    assert "FoldConstantReshapeOptPattern" in named


def _main(body: str, args: str = "") -> str:
    return f"toy.func @main({args}) {{\n{body}\n  toy.return\n}}\n"


def test_reshape_of_a_reshape_is_one_reshape() -> None:
    steps, ir = _rewrites(
        _main(
            "  %0 = toy.reshape(%arg0 : tensor<6xf64>) to tensor<2x3xf64>\n"
            "  %1 = toy.reshape(%0 : tensor<2x3xf64>) to tensor<3x2xf64>\n"
            "  toy.print %1 : tensor<3x2xf64>",
            "%arg0: tensor<6xf64>",
        )
    )
    assert steps == ["ReshapeReshapeOptPattern", "erase-dead-op"]
    assert "toy.reshape(%arg0 : tensor<6xf64>) to tensor<3x2xf64>" in ir and ir.count("toy.reshape") == 1


def test_a_reshape_to_its_own_type_is_removed() -> None:
    steps, ir = _rewrites(
        _main(
            "  %0 = toy.reshape(%arg0 : tensor<2x3xf64>) to tensor<2x3xf64>\n  toy.print %0 : tensor<2x3xf64>",
            "%arg0: tensor<2x3xf64>",
        )
    )
    assert steps == ["RedundantReshapeOptPattern"]
    assert "toy.reshape" not in ir and "toy.print %arg0 : tensor<2x3xf64>" in ir


def test_a_reshaped_constant_is_a_constant_of_the_new_shape() -> None:
    steps, ir = _rewrites(
        _main(
            "  %0 = toy.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf64>\n"
            "  %1 = toy.reshape(%0 : tensor<4xf64>) to tensor<2x2xf64>\n"
            "  %2 = toy.constant dense<5.5> : tensor<f64>\n"
            "  %3 = toy.reshape(%2 : tensor<f64>) to tensor<2x2xf64>\n"
            "  %4 = toy.add %1, %3 : tensor<2x2xf64>\n"
            "  toy.print %4 : tensor<2x2xf64>"
        )
    )
    assert steps.count("FoldConstantReshapeOptPattern") == 2
    assert "dense<[[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf64>" in ir
    assert "dense<5.500000e+00> : tensor<2x2xf64>" in ir
    assert "toy.reshape" not in ir


def test_a_single_transpose_stays() -> None:
    steps, ir = _rewrites(
        _main(
            "  %0 = toy.transpose(%arg0 : tensor<2x3xf64>) to tensor<3x2xf64>\n  toy.print %0 : tensor<3x2xf64>",
            "%arg0: tensor<2x3xf64>",
        )
    )
    assert steps == [] and "toy.transpose" in ir


def test_a_huge_splat_is_left_reshaped_not_spelled_out() -> None:
    """MLIR keeps a splat as one value; spelling 10^11 doubles out would exhaust memory."""
    steps, ir = _rewrites(
        _main(
            "  %0 = toy.constant dense<1.0> : tensor<f64>\n"
            "  %1 = toy.reshape(%0 : tensor<f64>) to tensor<100000000000xf64>\n"
            "  toy.print %1 : tensor<100000000000xf64>"
        )
    )
    assert steps == [] and "toy.reshape" in ir


def test_a_pattern_that_raises_is_one_error_line_naming_its_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from passviz.compilers.toy import dialect as toy

    def boom(self: object, op: object, rewriter: object, /) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(toy.SimplifyRedundantTranspose, "match_and_rewrite", boom)
    source = tmp_path / "t.toy"
    source.write_text("def main() { print(transpose([1, 2])); }\n")
    out = tmp_path / "t.passviz.json"
    assert main(["toy", str(source), "-opt", "--chapter", "3", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"passviz: error: {source}: step ") and err.count("\n") == 1
    assert "SimplifyRedundantTranspose" in err and "boom" in err and f"(trace written to {out})" in err


def test_toy_ir_from_a_mlir_file_is_optimized_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """As toyc: a .mlir input is read as it is and -opt's passes run on it, traced."""
    source = tmp_path / "tt.mlir"
    source.write_text(
        _main(
            "  %0 = toy.transpose(%arg0 : tensor<2x3xf64>) to tensor<3x2xf64>\n"
            "  %1 = toy.transpose(%0 : tensor<3x2xf64>) to tensor<2x3xf64>\n"
            "  toy.print %1 : tensor<2x3xf64>",
            "%arg0: tensor<2x3xf64>",
        )
    )
    out = tmp_path / "t.passviz.json"
    assert main(["toy", str(source), "-opt", "--chapter", "3", "-o", str(out)]) == 0
    assert capsys.readouterr().out == (
        "module {\n  toy.func @main(%arg0: tensor<2x3xf64>) {\n    toy.print %arg0 : tensor<2x3xf64>\n"
        "    toy.return\n  }\n}\n"
    )
    assert main(["steps", str(out)]) == 0
    assert "SimplifyRedundantTranspose" in capsys.readouterr().out
