"""``toy-lower-to-llvm``, LLVM IR and the JIT (issue 14, chapter 6): the lowering
step by step, ``llvm-lowering.mlir``'s printf constants, and ``-emit=jit``
printing what numpy computes."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from passviz.cli.toyc import mlir_text, run_toy
from passviz.compilers.registry import available_passes
from passviz.compilers.toy.interpret import format_print, run_main
from passviz.compilers.toy.mlirgen import mlirgen
from passviz.compilers.toy.parser import parse_toy
from passviz.pipelines import parse_ir, record
from tests.conftest import peer_file, run_passviz
from tests.toy_support import TOY

AFFINE_MAIN = """\
func.func @main() {
  %cst = arith.constant 1.000000e+00 : f64
  %cst_0 = arith.constant 2.000000e+00 : f64
  %0 = memref.alloc() : memref<2x3xf64>
  %1 = memref.alloc() : memref<3x2xf64>
  affine.for %arg0 = 0 to 2 {
    affine.for %arg1 = 0 to 3 {
      affine.store %cst_0, %0[%arg0, %arg1] : memref<2x3xf64>
    }
  }
  affine.store %cst, %0[1, 2] : memref<2x3xf64>
  affine.for %arg0 = 0 to 3 {
    affine.for %arg1 = 0 to 2 {
      %2 = affine.load %0[%arg1, %arg0] : memref<2x3xf64>
      %3 = arith.mulf %2, %2 : f64
      affine.store %3, %1[%arg0, %arg1] : memref<3x2xf64>
    }
  }
  toy.print %1 : memref<3x2xf64>
  memref.dealloc %0 : memref<2x3xf64>
  memref.dealloc %1 : memref<3x2xf64>
  return
}
"""
"""Affine-level Toy IR as ``toyc-ch6 -emit=mlir-affine`` prints it (written by hand)."""

Array = NDArray[np.float64]


def _own(source: str, tmp_path: Path, name: str = "p.toy") -> str:
    path = tmp_path / name
    path.write_text(source)
    return str(path)


def needs_affine_opt() -> None:
    """Skip until ``affine-loop-fusion`` and ``affine-scalrep`` (``-opt``'s affine passes) are registered."""
    missing = [name for name in ("affine-loop-fusion", "affine-scalrep") if name not in available_passes()]
    if missing:
        pytest.skip(f"-opt's affine passes are not registered yet: {', '.join(missing)}")


def test_each_stage_of_the_lowering_is_a_run_of_steps() -> None:
    """``toy.print`` → printf loops, affine → scf, scf → cf, then each op → llvm: one step per
    pattern application, named as the tutorial and MLIR name the patterns."""
    run = record(AFFINE_MAIN, "toy-lower-to-llvm")
    names = [step.name or "" for step in run.trace.steps if step.kind == "rewrite"]
    lowering = [name for name in names if name != "ReconcileUnrealizedCasts"]
    assert lowering[0] == "PrintOpLowering"
    # as in MLIR's conversion, nothing is erased on the way: the bridging casts go at the end
    reconciled = names.index("ReconcileUnrealizedCasts")
    assert set(names[reconciled:]) == {"ReconcileUnrealizedCasts"} and len(names) - reconciled > 10
    stages = ["PrintOpLowering", "LowerAffine", "ForLowering", "FuncOpLowering"]
    firsts = [next(i for i, name in enumerate(lowering) if name.startswith(stage)) for stage in stages]
    assert firsts == sorted(firsts)
    assert lowering.count("ForLowering") == 4 + 2  # two loop nests, and print's
    assert lowering.count("AllocOpLowering") == 2 and lowering.count("DeallocOpLowering") == 2
    assert {"LoadOpLowering", "StoreOpLowering", "BinaryOpLowering", "CmpIOpLowering"} <= set(lowering)
    assert {"BranchOpLowering", "CondBranchOpLowering", "ReturnOpLowering"} <= set(lowering)
    printed = mlir_text(run.module)
    assert set(re.findall(r"^\s*(?:%\S+ = )?([a-z_]+\.[\w.]+)", printed, re.MULTILINE)) <= {
        "llvm.func",
        "llvm.mlir.global",
        "llvm.mlir.constant",
        "llvm.mlir.zero",
        "llvm.mlir.undef",
        "llvm.mlir.addressof",
        "llvm.getelementptr",
        "llvm.ptrtoint",
        "llvm.call",
        "llvm.insertvalue",
        "llvm.extractvalue",
        "llvm.load",
        "llvm.store",
        "llvm.fmul",
        "llvm.add",
        "llvm.mul",
        "llvm.icmp",
        "llvm.br",
        "llvm.cond_br",
        "llvm.return",
    }
    assert '@frmt_spec("%f \\00")' in printed and '@nl("\\0A\\00")' in printed
    assert "llvm.func @printf(!llvm.ptr, ...) -> i32" in printed
    assert "unrealized_conversion_cast" not in printed


def test_every_step_of_the_lowering_reads_back() -> None:
    """The IR at each step, bridging casts and all, is IR passviz parses again."""
    run = record(AFFINE_MAIN, "toy-lower-to-llvm")
    for step in run.trace.steps:
        parse_ir(run.trace.ir_at(step.index))


def test_the_lowered_program_prints_what_the_affine_one_computes() -> None:
    from passviz.compilers.toy.jit import run_jit

    run = record(AFFINE_MAIN, "toy-lower-to-llvm")
    source = np.full((2, 3), 2.0)
    source[1, 2] = 1.0
    expected = format_print(source.T**2)
    assert run_jit(run.module, opt=False) == expected
    assert run_jit(run.module, opt=True) == expected


def test_an_op_the_lowering_does_not_know_fails_the_pass_in_one_line(tmp_path: Path) -> None:
    source = tmp_path / "bad.mlir"
    source.write_text(
        "func.func @main() -> i32 {\n  %0 = arith.constant 7 : i32\n"
        "  %1 = arith.divsi %0, %0 : i32\n  func.return %1 : i32\n}\n"
    )
    done = run_passviz("trace", str(source), "-p", "toy-lower-to-llvm", "-o", str(tmp_path / "t.json"))
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert "failed to legalize operation 'arith.divsi'" in done.stderr


PRINTF_DOUBLE = re.compile(r"@printf\(.*double ([-+0-9.e]+)\)$", re.MULTILINE)


def test_llvm_lowering_prints_its_constants_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    """``Ch6/llvm-lowering.mlir`` with ``-emit=llvm -opt``: LLVM's -O3 unrolls the loops and
    folds every element, so ``main`` calls ``printf`` with 1, 16, 4, 25, 9, 36."""
    needs_affine_opt()
    path = peer_file("llvm-project/mlir/test/Examples/Toy/Ch6/llvm-lowering.mlir")
    result = run_toy(str(path), "llvm", opt=True)
    assert "define void @main()" in result.text
    assert [float(v) for v in PRINTF_DOUBLE.findall(result.text)] == [1, 16, 4, 25, 9, 36]
    assert "@malloc" not in result.text  # the buffers are gone


def test_emit_llvm_without_opt_keeps_the_loops_and_buffers() -> None:
    path = peer_file("llvm-project/mlir/test/Examples/Toy/Ch6/llvm-lowering.mlir")
    text = run_toy(str(path), "llvm", opt=False).text
    assert "define void @main()" in text
    assert "declare ptr @malloc(i64)" in text and "declare void @free(ptr)" in text
    assert "declare i32 @printf(ptr, ...)" in text
    assert "phi i64" in text  # the loops, still loops
    assert PRINTF_DOUBLE.findall(text) == []


A = np.array([[1.0, 2, 3], [4, 5, 6]])
B = np.array([[1.5, 2, 3], [4, 5, 6.25]])


def _nested(a: Array, b: Array) -> Array:
    return a.T * b.T + b.T * a.T


OWN_PROGRAMS: dict[str, tuple[str, str]] = {
    "nested-calls": (
        "def multiply_transpose(a, b) { return transpose(a) * transpose(b); }\n"
        "def add_both(a, b) { return multiply_transpose(a, b) + multiply_transpose(b, a); }\n"
        "def main() {\n  var a<2, 3> = [1, 2, 3, 4, 5, 6];\n  var b = [[1.5, 2, 3], [4, 5, 6.25]];\n"
        "  var c = add_both(a, b);\n  print(c);\n  print(transpose(c));\n}\n",
        format_print(_nested(A, B)) + format_print(_nested(A, B).T),
    ),
    "reshapes-of-constants": (
        "def main() {\n  var a<2, 3> = [1, 2, 3, 4, 5, 6];\n  var b<3, 2> = a;\n  var c<6> = b;\n"
        "  var d<1, 6> = [[1, 2, 3], [4, 5, 6]];\n  print(c);\n  print(d * d);\n  print(transpose(b) + a);\n}\n",
        format_print(A.reshape(6)) + format_print(A.reshape(1, 6) ** 2) + format_print(A.reshape(3, 2).T + A),
    ),
    "one-function-three-shapes": (
        "def f(a, b) { return a * b + a; }\n"
        "def main() {\n  var x = [[1, 2], [3, 4]];\n  var y<3> = [1, 2, 3];\n"
        "  var z = [[[1, 2], [3, 4]], [[5, 6], [7, 8]]];\n"
        "  print(f(x, x));\n  print(f(y, y));\n  print(f(transpose(x), x));\n  print(f(z, z));\n}\n",
        "".join(
            format_print(a * b + a)
            for a, b in [
                (np.array([[1.0, 2], [3, 4]]),) * 2,
                (np.array([1.0, 2, 3]),) * 2,
                (np.array([[1.0, 3], [2, 4]]), np.array([[1.0, 2], [3, 4]])),
                (np.arange(1.0, 9).reshape(2, 2, 2),) * 2,
            ]
        ),
    ),
    "a-scalar-and-a-wide-matrix": (
        "def main() {\n  var s = 5;\n  print(s);\n  var w<3, 10> = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,"
        " 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];\n  print(transpose(w) * transpose(w) + transpose(w));\n}\n",
        format_print(np.array(5.0))
        + format_print(np.tile(np.arange(1.0, 11), (3, 1)).T ** 2 + np.tile(np.arange(1.0, 11), (3, 1)).T),
    ),
}
"""Programs of our own, with what numpy says they print."""


@pytest.mark.parametrize("opt", [False, True], ids=["O0", "opt"])
@pytest.mark.parametrize("name", OWN_PROGRAMS)
def test_jit_prints_what_numpy_computes(name: str, opt: bool, tmp_path: Path) -> None:
    if opt:
        needs_affine_opt()
    source, expected = OWN_PROGRAMS[name]
    assert run_toy(_own(source, tmp_path), "jit", opt=opt).text == expected


PEER_PROGRAMS = ("jit.toy", "codegen.toy", "transpose_transpose.toy", "trivial_reshape.toy")


@pytest.mark.parametrize("opt", [False, True], ids=["O0", "opt"])
@pytest.mark.parametrize("name", PEER_PROGRAMS)
def test_jit_of_the_peer_programs_prints_what_the_numpy_interpreter_does(name: str, opt: bool) -> None:
    """The chapter 6 programs: JIT-compiled LLVM prints what ``passviz.compilers.toy.interpret`` (numpy) prints."""
    if opt:
        needs_affine_opt()
    path = peer_file(f"llvm-project/mlir/test/Examples/Toy/Ch6/{name}")
    expected = run_main(mlirgen(parse_toy(path.read_text(), str(path)), chapter=6))
    assert run_toy(str(path), "jit", opt=opt).text == expected


def test_jit_of_codegen_is_the_tutorials_output() -> None:
    """``codegen.toy`` computes ``transpose(a) * transpose(a)`` of ``[[1, 2, 3], [4, 5, 6]]``."""
    path = TOY / "Ch6/codegen.toy"
    if not path.is_file():
        pytest.skip("the peer Toy tests are not here")
    assert run_toy(str(path), "jit").text == format_print(A.T * A.T)


def test_the_trace_of_jit_ends_in_the_llvm_dialect(tmp_path: Path) -> None:
    """``-emit=jit -o`` records MLIRGen through ``toy-lower-to-llvm``: the module it runs."""
    source, expected = OWN_PROGRAMS["nested-calls"]
    out = tmp_path / "t.passviz.json"
    result = run_toy(_own(source, tmp_path), "jit", output=out)
    assert result.text == expected and out.is_file() and result.run is not None
    passes = [step.pass_name for step in result.run.trace.steps if step.kind == "pass-begin"]
    assert passes == [
        "toy-mlirgen",
        "inline",
        "toy-shape-inference",
        "canonicalize",
        "cse",
        "toy-lower-to-affine",
        "canonicalize",
        "cse",
        "toy-lower-to-llvm",
    ]
    last = result.run.trace.ir_at(len(result.run.trace.steps) - 1)
    assert "llvm.func @main()" in last and "toy." not in last
