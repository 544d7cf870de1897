"""The incremental verifier finds what the full verifier finds after an edit, however it was made."""

from __future__ import annotations

import re

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, i32, i64
from xdsl.ir import Operation
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException

from passviz.ir.verify import IncrementalVerifier
from passviz.pipelines import parse_ir

SOURCE = """
func.func @callee(%a: i32) -> i32 {
  %c = arith.constant 1 : i32
  %s = arith.addi %a, %c : i32
  func.return %s : i32
}
func.func @caller(%a: i32) -> i32 {
  %r = func.call @callee(%a) : (i32) -> i32
  %lb = arith.constant 0 : index
  %ub = arith.constant 4 : index
  %st = arith.constant 1 : index
  %t = scf.for %i = %lb to %ub step %st iter_args(%acc = %r) -> (i32) {
    scf.yield %acc : i32
  }
  func.return %t : i32
}
"""


def _fresh() -> tuple[ModuleOp, IncrementalVerifier]:
    module = parse_ir(SOURCE)
    verifier = IncrementalVerifier(module)
    verifier.verify()
    verifier.verify()  # a second pass over unchanged IR checks nothing again
    return module, verifier


def _op(module: ModuleOp, name: str, index: int = 0) -> Operation:
    return [op for op in module.walk() if op.name == name][index]


def _both_fail(module: ModuleOp, verifier: IncrementalVerifier) -> str:
    with pytest.raises(VerifyException) as full:
        module.verify()
    with pytest.raises(VerifyException) as incremental:
        verifier.verify()
    # passviz names the failing op as MLIR does ('func.return' op ...); xDSL's message does not
    assert re.sub(r"^'[\w.]+' op ", "", str(incremental.value)) == str(full.value)
    return str(full.value)


def test_unchanged_module_verifies() -> None:
    module, verifier = _fresh()
    verifier.verify()
    module.verify()


def test_changed_function_type_fails_the_unchanged_return() -> None:
    module, verifier = _fresh()
    callee = _op(module, "func.func")
    assert isinstance(callee, func.FuncOp)
    callee.function_type = FunctionType.from_lists([i32], [i64])  # a direct edit, no rewriter
    _both_fail(module, verifier)


def test_changed_block_argument_fails_its_unchanged_loop() -> None:
    module, verifier = _fresh()
    loop = _op(module, "scf.for")
    Rewriter.replace_value_with_new_type(loop.regions[0].block.args[1], i64)
    _both_fail(module, verifier)


def test_erased_callee_fails_the_unchanged_call() -> None:
    module, verifier = _fresh()
    callee = _op(module, "func.func")
    callee.detach()
    _both_fail(module, verifier)


def test_op_after_terminator_fails() -> None:
    module, verifier = _fresh()
    ret = _op(module, "func.return")
    add = _op(module, "arith.addi")
    add.detach()
    ret.parent_block().add_op(add)  # pyright: ignore[reportOptionalMemberAccess]
    with pytest.raises(VerifyException):
        module.verify()
    with pytest.raises(VerifyException):
        verifier.verify()


def test_verifies_again_once_repaired() -> None:
    module, verifier = _fresh()
    callee = _op(module, "func.func")
    assert isinstance(callee, func.FuncOp)
    before = callee.function_type
    callee.function_type = FunctionType.from_lists([i32], [i64])
    _both_fail(module, verifier)
    callee.function_type = before
    verifier.verify()
