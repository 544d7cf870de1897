"""The CPU interpreter's op implementations come from the families' tables, in an order that keeps
passviz's own where xDSL has one for the same op; the core names no op, and finds functions and
pointers by interface, whichever family defines them."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreters.scf import ScfFunctions

from passviz.compilers.mlir.interpret import ControlFunctions
from passviz.compilers.triton.interpret import TritonFunctions
from passviz.interpret.values import describe_location, is_function, pointee_type
from passviz.pipelines import parse_ir
from passviz.run.interpreters import new_interpreter
from passviz.run.launch import kernel_function

TYPED_LOOP = """\
func.func @f() -> f32 {
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %c1 = arith.constant 1 : i32
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %z) -> (f32) : i32 {
    %f = arith.bitcast %i : i32 to f32
    %s = arith.addf %acc, %f : f32
    scf.yield %s : f32
  }
  return %r : f32
}
"""
"""A loop whose ``i32`` induction variable is bitcast: it must be an ``i32`` value, not a Python
int (xDSL's ``scf.for`` gives one)."""


def test_scf_for_is_passviz_s_not_xdsl_s() -> None:
    module = parse_ir(TYPED_LOOP)
    interpreter = new_interpreter(module)
    assert isinstance(interpreter.implementations["scf.for"][0], ControlFunctions)
    (result,) = interpreter.call(interpreter.function("f", module), ())
    expected = np.array([1, 2], dtype=np.int32).view(np.float32).sum(dtype=np.float32)
    assert np.asarray(result) == expected


def test_calls_and_barriers_come_from_their_families() -> None:
    implementations = new_interpreter(ModuleOp([])).implementations
    for name in ("func.call", "func.return", "cf.assert", "cf.switch", "ub.poison", "gpu.barrier"):
        assert isinstance(implementations[name][0], ControlFunctions), name
    for name in ("tt.call", "tt.return", "ttg.barrier"):
        assert isinstance(implementations[name][0], TritonFunctions), name
    assert isinstance(implementations["scf.while"][0], ScfFunctions)


FUNCTIONS = """\
module {
  llvm.func @lowered()
  tt.func public @kernel(%x: !tt.ptr<f32>) {
    %c = arith.constant 1 : i32
    tt.return
  }
}
"""


def test_functions_and_pointers_by_interface() -> None:
    module = parse_ir(FUNCTIONS)
    ops = list(module.walk())
    assert [op.name for op in ops if is_function(op)] == ["tt.func"]
    kernel = kernel_function(module)
    assert kernel.name == "tt.func"
    entry = kernel.regions[0].blocks.first
    assert entry is not None
    (argument,) = entry.args
    assert str(pointee_type(argument.type)) == "f32"
    assert pointee_type(ops[-2].results[0].type) is None
    assert describe_location(ops[-2]) == "@kernel, op #1"
