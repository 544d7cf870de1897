"""Running Toy IR on numpy (issue 14, part of "Running it"): what a program
prints, checked against numpy, and unchanged by every step of ``-opt``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _pytest.mark import ParameterSet

from passviz.cli.toyc import run_toy
from passviz.compilers.toy.interpret import ToyRunError, format_print, run_main
from passviz.compilers.toy.mlirgen import mlirgen
from passviz.compilers.toy.parser import parse_toy
from passviz.pipelines import parse_ir
from tests.toy_support import TOY


def _prints(source: str) -> str:
    return run_main(mlirgen(parse_toy(source, "p.toy")))


def test_print_writes_as_the_lowered_printf_calls() -> None:
    """``%f `` per element, a newline after each row and each slice (chapter 6's lowering)."""
    assert format_print(np.array(5.5)) == "5.500000 "
    assert format_print(np.array([1.0, 2.0])) == "1.000000 2.000000 "
    assert format_print(np.arange(8.0).reshape(2, 2, 2)) == (
        "0.000000 1.000000 \n2.000000 3.000000 \n\n4.000000 5.000000 \n6.000000 7.000000 \n\n"
    )


def test_the_peer_programs_print_what_numpy_computes() -> None:
    codegen = TOY / "Ch3/codegen.toy"
    if not codegen.is_file():
        pytest.skip("the peer Toy tests (../shared/peer/llvm-project) are not here")
    a = np.array([[1.0, 2, 3], [4, 5, 6]])
    # d = multiply_transpose(b, a) = transpose(b) * transpose(a), with b = a
    assert run_main(mlirgen(parse_toy(codegen.read_text(), "c.toy"))) == format_print(a.T * a.T)
    # llvm-lowering.mlir's printf constants come in this order too
    assert format_print(a.T * a.T).split() == [
        "1.000000",
        "16.000000",
        "4.000000",
        "25.000000",
        "9.000000",
        "36.000000",
    ]
    jit = TOY / "Ch6/jit.toy"
    assert (
        run_main(mlirgen(parse_toy(jit.read_text(), "j.toy"))) == "1.000000 2.000000 \n3.000000 4.000000 \n"
    )


A = np.array([[1.0, 2, 3], [4, 5, 6]])

OWN_PROGRAMS = {
    "nested-calls": (
        "def sq(x) { return x * x; }\n"
        "def f(a, b) { return sq(transpose(a)) + transpose(b); }\n"
        "def main() { var a = [[1, 2, 3], [4, 5, 6]]; var b<2, 3> = [6, 5, 4, 3, 2, 1]; print(f(a, b)); }\n",
        format_print(A.T**2 + A[::-1, ::-1].T),
    ),
    "reshapes-of-constants": (
        "def main() { var a<3, 2> = [1, 2, 3, 4, 5, 6]; var b<2, 3> = a; var c<6> = transpose(b); print(c * c); }\n",
        format_print(A.T.reshape(6) ** 2),
    ),
    "one-function-two-shapes": (
        "def t2(x) { return transpose(transpose(x)) + x; }\n"
        "def main() { print(t2([[1, 2]])); print(t2([1, 2, 3])); var s<2, 2> = 2; print(t2(s)); }\n",
        format_print(np.array([[2.0, 4]]))
        + format_print(np.array([2.0, 4, 6]))
        + format_print(np.full((2, 2), 4.0)),
    ),
}
"""Programs of our own, with what numpy says they print."""


@pytest.mark.parametrize("name", OWN_PROGRAMS)
def test_own_programs_print_what_numpy_computes(name: str) -> None:
    source, expected = OWN_PROGRAMS[name]
    assert _prints(source) == expected


def _opt_cases() -> list[ParameterSet]:
    cases = [pytest.param(source, id=name) for name, (source, _) in OWN_PROGRAMS.items()]
    for path in (
        TOY / "Ch3/transpose_transpose.toy",
        TOY / "Ch3/trivial_reshape.toy",
        TOY / "Ch3/codegen.toy",
    ):
        if path.is_file():
            cases.append(pytest.param(path.read_text(), id=path.name))
    return cases


@pytest.mark.parametrize("source", _opt_cases())
def test_every_step_of_opt_prints_the_same(source: str, tmp_path: Path) -> None:
    """The IR after each step of MLIRGen and canonicalize, read back from the
    trace, prints what the program prints: no rewrite changes the meaning."""
    path = tmp_path / "p.toy"
    path.write_text(source)
    result = run_toy(str(path), "mlir", chapter=3, opt=True)
    assert result.run is not None
    trace = result.run.trace
    expected = _prints(source)
    first = next(step.index for step in trace.steps if step.kind == "pass-end")  # MLIRGen done
    for index in range(first, len(trace.steps)):
        assert run_main(parse_ir(trace.ir_at(index))) == expected, f"step {index}: {trace.steps[index].name}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "toy.func @f(%arg0: tensor<*xf64>) -> tensor<*xf64> {\n  toy.return %arg0 : tensor<*xf64>\n}\n"
            "toy.func @main() {\n"
            "  %0 = toy.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf64>\n"
            "  %1 = toy.generic_call @f(%0) : (tensor<1x3xf64>) -> tensor<3x1xf64>\n"
            "  toy.print %1 : tensor<3x1xf64>\n  toy.return\n}\n",
            "'toy.generic_call': result type tensor<3x1xf64> but the value has shape (1, 3)",
        ),
        (
            "toy.func @main() {\n"
            "  %0 = toy.constant dense<[1.0, 2.0]> : tensor<2xf64>\n"
            "  %1 = toy.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>\n"
            "  %2 = toy.cast %0 : tensor<2xf64> to tensor<*xf64>\n"
            "  %3 = toy.add %2, %1 : (tensor<*xf64>, tensor<3xf64>) -> tensor<*xf64>\n  toy.return\n}\n",
            "'toy.add': operands of shapes (2,) and (3,)",
        ),
        ("toy.func @f() {\n  toy.return\n}\n", "no function named 'main'"),
    ],
)
def test_a_program_that_cannot_run_says_why(text: str, message: str) -> None:
    with pytest.raises(ToyRunError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        run_main(parse_ir(text))


def test_endless_recursion_stops() -> None:
    with pytest.raises(ToyRunError, match="calls nested over 200 deep"):
        _prints("def f(a) { return f(a); }\ndef main() { print(f([1])); }\n")
