"""The ``toy`` dialect (issue 14, layer 2): MLIR's syntax for every op, read and
printed back, and the tutorial's verifiers, ``Ch*/invalid.mlir`` included
(``../shared/peer/llvm-project/mlir/test/Examples/Toy/``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from passviz.ir.printer import print_module
from passviz.pipelines import InputError, parse_ir, verify_input
from tests.toy_support import TOY

INVALID_TESTS = sorted(TOY.glob("Ch*/invalid.mlir"))

ROUNDTRIP = """\
builtin.module {
  toy.func private @multiply_transpose(%arg0: tensor<*xf64>, %arg1: tensor<*xf64>) -> tensor<*xf64> {
    %0 = toy.transpose(%arg0 : tensor<*xf64>) to tensor<*xf64>
    %1 = toy.transpose(%arg1 : tensor<*xf64>) to tensor<*xf64>
    %2 = toy.mul %0, %1 : tensor<*xf64>
    %3 = toy.add %0, %1 : (tensor<*xf64>, tensor<*xf64>) -> tensor<2x2xf64>
    %4 = toy.cast %3 : tensor<2x2xf64> to tensor<*xf64>
    toy.return %4 : tensor<*xf64>
  }
  toy.func @main() {
    %0 = toy.constant dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf64>
    %1 = toy.reshape(%0 : tensor<2x3xf64>) to tensor<3x2xf64>
    %2 = toy.transpose(%1 : tensor<3x2xf64>) to tensor<2x3xf64>
    %3 = toy.constant dense<5.500000e+00> : tensor<f64>
    %4 = toy.generic_call @multiply_transpose(%2, %1) : (tensor<2x3xf64>, tensor<3x2xf64>) -> tensor<*xf64>
    toy.print %4 : tensor<*xf64>
    toy.return
  }
}
"""


def _verify(text: str) -> None:
    verify_input(parse_ir(text, "t.mlir"), "t.mlir")


def test_every_op_prints_as_mlir_and_reads_back() -> None:
    """The syntax the tutorial's tests print, e.g. ``toy.transpose(%0 : T) to U``;
    values are numbered afresh in each function, as MLIR numbers them."""
    module = parse_ir(ROUNDTRIP, "t.mlir")
    module.verify()
    assert print_module(module) == ROUNDTRIP


@pytest.mark.parametrize("path", INVALID_TESTS, ids=lambda path: path.parent.name)
def test_invalid_mlir_fails_to_verify(path: Path) -> None:
    """``Ch*/invalid.mlir``: ``toy.print`` with a result, no operand and no
    terminator after it must be rejected (``not toyc-chN``)."""
    with pytest.raises(InputError) as caught:
        _verify(path.read_text())
    message = str(caught.value)
    assert message.startswith("t.mlir:") and "the input does not verify:" in message, message
    assert "toy.print" in message


def _main(body: str, signature: str = "()") -> str:
    return f"toy.func @main{signature} {{\n{body}\n}}\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            _main('  %0 = "toy.print"() : () -> tensor<2x3xf64>\n  toy.return'),
            "operand",
        ),
        (
            _main(
                "  %0 = toy.constant dense<1.0> : tensor<2xf64>\n  %1 = toy.transpose(%0 : tensor<2xf64>) to tensor<3xf64>\n  toy.return"
            ),
            "expected result shape to be a transpose of the input",
        ),
        (
            _main(
                '  %0 = "toy.constant"() {value = dense<1.0> : tensor<2xf64>} : () -> tensor<3xf64>\n  toy.return'
            ),
            "return type shape mismatches its attribute at dimension 0: 2 != 3",
        ),
        (
            _main(
                '  %0 = "toy.constant"() {value = dense<1.0> : tensor<2xf64>} : () -> tensor<2x1xf64>\n  toy.return'
            ),
            "return type must match the one of the attached value attribute: 1 != 2",
        ),
        (
            _main("  %0 = toy.constant dense<1.0> : tensor<2xf64>\n  toy.return %0 : tensor<2xf64>"),
            "does not return the same number of values (1) as the enclosing function (0)",
        ),
        (
            _main(
                "  %0 = toy.constant dense<1.0> : tensor<2xf64>\n  toy.return %0 : tensor<2xf64>",
                "() -> tensor<3xf64>",
            ),
            "type of return operand (tensor<2xf64>) doesn't match function result type (tensor<3xf64>)",
        ),
        (
            _main(
                "  %0 = toy.constant dense<1.0> : tensor<2xf64>\n  %1 = toy.reshape(%0 : tensor<2xf64>) to tensor<?xf64>\n  toy.return"
            ),
            "statically shaped",
        ),
        (
            _main(
                "  %0 = toy.constant dense<1.0> : tensor<2xf64>\n  %1 = toy.cast %0 : tensor<2xf64> to tensor<3xf64>\n  toy.return"
            ),
            "cast incompatible",
        ),
        (_main("  %0 = toy.constant dense<1.0> : tensor<2xf64>"), "terminator"),
        ("toy.return\n", "toy.return"),
    ],
)
def test_the_tutorial_verifiers(text: str, message: str) -> None:
    with pytest.raises(InputError) as caught:
        _verify(text)
    assert message in str(caught.value)


def test_unranked_types_pass_the_shape_checks() -> None:
    """Before shape inference a function returns ``tensor<*xf64>`` whatever it returns."""
    _verify(
        _main(
            "  %0 = toy.constant dense<1.0> : tensor<2x3xf64>\n"
            "  %1 = toy.transpose(%0 : tensor<2x3xf64>) to tensor<*xf64>\n"
            "  %2 = toy.cast %1 : tensor<*xf64> to tensor<3x2xf64>\n"
            "  toy.return %0 : tensor<2x3xf64>",
            "() -> tensor<*xf64>",
        )
    )


def test_visibility_may_also_be_an_attribute_as_mlir_reads_it() -> None:
    """``attributes { sym_visibility = "private" }`` (the tutorial's older tests) is
    ``toy.func private``; given twice it is a one-line located error."""
    body = '() -> tensor<*xf64> attributes {sym_visibility = "private", x = 1 : i64} {\n  %0 = toy.constant dense<1.0> : tensor<f64>\n  toy.return %0 : tensor<f64>\n}\n'
    text = print_module(parse_ir(f"toy.func @f{body}"))
    assert "toy.func private @f() -> tensor<*xf64> attributes {x = 1 : i64} {" in text
    with pytest.raises(InputError, match="sym_visibility given twice"):
        parse_ir(f"toy.func private @f{body}")
