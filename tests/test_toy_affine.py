"""Toy's partial lowering to affine loops and the affine passes after it (issue 14, chapter 5):
``toy-lower-to-affine`` step by step, the tutorial's ``affine-lowering.mlir``, and MLIR's own
``canonicalize``, ``cse``, ``affine-loop-fusion``, ``affine-scalrep`` and ``lower-affine`` (through
``iree-opt``) as the oracle on what the lowering produces."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from passviz.cli.toyc import mlir_text, toy_pipeline
from passviz.compilers.toy.interpret import run_lowered, run_main
from passviz.compilers.toy.mlirgen import mlirgen
from passviz.compilers.toy.parser import parse_toy
from passviz.compilers.toy.passes.lower_to_affine import LoweringError
from passviz.interpret.values import DeclarationCallError
from passviz.ir.printer import print_module
from passviz.pipelines import parse_ir, parse_pipeline, record
from passviz.run.bisect import StepTexts, bisect
from tests.conftest import filecheck, iree_opt_missing, need
from tests.iree_support import run_iree_opt
from tests.toy_support import TOY, needs_toy_peer

LOWERING = ("inline", "toy-shape-inference", "canonicalize", "cse", "toy-lower-to-affine")
"""What runs before the lowering's cleanups (toyc-ch5 with -emit=mlir-affine)."""


def _toy_ir(source: str) -> str:
    """MLIRGen's IR (chapter 5) of a Toy program."""
    return mlir_text(mlirgen(parse_toy(source, "p.toy"), chapter=5))


def test_each_op_is_a_step_named_after_the_tutorials_pattern() -> None:
    needs_toy_peer()
    text = (TOY / "Ch5/affine-lowering.mlir").read_text()
    run = record(text, "toy-lower-to-affine")
    names = [step.name for step in run.trace.steps if step.pass_name == "toy-lower-to-affine"][1:-1]
    assert names == [
        "FuncOpLowering",
        "ConstantOpLowering",
        "TransposeOpLowering",
        "MulOpLowering",
        "PrintOpLowering",
        "ReturnOpLowering",
    ]
    lowered = mlir_text(run.module)
    assert "toy." not in lowered.replace("toy.print", "")
    assert "toy.print %0 : memref<3x2xf64>" in lowered
    # each buffer is allocated at the start, freed before the return: constant's first
    assert re.findall(r"memref\.(alloc|dealloc)\(?\)?[^\n]*memref<(\dx\d)", lowered) == [
        ("alloc", "3x2"),
        ("alloc", "3x2"),
        ("alloc", "2x3"),
        ("dealloc", "2x3"),
        ("dealloc", "3x2"),
        ("dealloc", "3x2"),
    ]


def test_values_lowered_before_their_users_reach_them_through_casts() -> None:
    """Between steps a lowered value reaches the toy ops not lowered yet through a cast; every
    step's IR reads back."""
    needs_toy_peer()
    run = record((TOY / "Ch5/affine-lowering.mlir").read_text(), "toy-lower-to-affine")
    constant = next(step for step in run.trace.steps if step.name == "ConstantOpLowering")
    assert "builtin.unrealized_conversion_cast" in run.trace.ir_at(constant.index)
    for step in run.trace.steps:
        parse_ir(run.trace.ir_at(step.index))
    assert "unrealized_conversion_cast" not in mlir_text(run.module)


def test_rank_zero_constants_and_vectors_lower() -> None:
    source = "def main() { var s = 5.5; print(s); var v = [1, 2, 3]; print(v * v); }"
    run = record(_toy_ir(source), toy_pipeline(5, "mlir-affine", False))
    text = mlir_text(run.module)
    assert "memref.alloc() : memref<f64>" in text
    assert "affine.store %" in text and "[] : memref<f64>" in text
    assert "affine.for %" in text and "= 0 to 3 {" in text


def test_a_function_left_after_inlining_fails_as_mlirs_conversion_does() -> None:
    text = (
        "toy.func @main() {\n  %0 = toy.constant dense<1.0> : tensor<f64>\n"
        "  %1 = toy.reshape(%0 : tensor<f64>) to tensor<1x1xf64>\n  toy.print %1 : tensor<1x1xf64>\n"
        "  toy.return\n}\n"
    )
    run = record(text, "toy-lower-to-affine")
    failed = run.trace.failed_steps
    assert failed, "the reshape has no lowering"
    assert failed[0].flag is not None
    assert "failed to legalize operation 'toy.reshape'" in str(failed[0].flag["message"])
    assert issubclass(LoweringError, ValueError)


@pytest.mark.parametrize("chapter", ["Ch5", "Ch6"])
def test_peer_opt_checks(chapter: str) -> None:
    """``toyc-chN -emit=mlir-affine -opt``: fusion and scalar replacement leave one nest."""
    needs_toy_peer()
    path = TOY / chapter / "affine-lowering.mlir"
    run = record(path.read_text(), toy_pipeline(5, "mlir-affine", True), filename=str(path))
    assert not run.trace.failed_steps
    filecheck(mlir_text(run.module), path.read_text(), "OPT")


STALE_CSE_CHECKS = (
    "// CHECK:             [[VAL_15:%.*]] = affine.load [[VAL_7]]{{\\[}}[[VAL_12]], [[VAL_13]]] : memref<3x2xf64>\n"
    "// CHECK:             [[VAL_16:%.*]] = arith.mulf [[VAL_14]], [[VAL_15]] : f64\n"
)
"""The peer file's two loads of one element, which MLIR's CSE has merged since it learned to
merge reads (upstream's test now checks ``arith.mulf [[VAL_15]], [[VAL_15]]``)."""


@pytest.mark.parametrize("chapter", ["Ch5", "Ch6"])
def test_peer_checks_but_the_two_loads_cse_now_merges(chapter: str) -> None:
    """``toyc-chN -emit=mlir-affine``: every CHECK line but the stale second load."""
    needs_toy_peer()
    path = TOY / chapter / "affine-lowering.mlir"
    checks = path.read_text()
    assert STALE_CSE_CHECKS in checks
    current = checks.replace(
        STALE_CSE_CHECKS, "// CHECK:             [[VAL_16:%.*]] = arith.mulf [[VAL_14]], [[VAL_14]] : f64\n"
    )
    run = record(checks, toy_pipeline(5, "mlir-affine", False), filename=str(path))
    filecheck(mlir_text(run.module), current, "CHECK")


@pytest.mark.xfail(strict=True, reason="MLIR's CSE merges the two loads the peer file still expects")
def test_peer_checks_as_written() -> None:
    needs_toy_peer()
    path = TOY / "Ch5/affine-lowering.mlir"
    run = record(path.read_text(), toy_pipeline(5, "mlir-affine", False), filename=str(path))
    filecheck(mlir_text(run.module), path.read_text(), "CHECK")


def test_affine_passes_are_toyc_ch5s_pipeline() -> None:
    names = [type(p).__name__ for p in parse_pipeline(toy_pipeline(5, "mlir-affine", True))]
    assert names == [
        "Inline",
        "ToyShapeInference",
        "Canonicalize",
        "CommonSubexpressionElimination",
        "ToyLowerToAffine",
        "Canonicalize",
        "CommonSubexpressionElimination",
        "AffineLoopFusion",
        "AffineScalarReplacement",
    ]


# --- the oracle: MLIR's passes through iree-opt on the lowering's output ---------------------

PROGRAMS: dict[str, str] = {
    "peer-affine-lowering": "@Ch5/affine-lowering.mlir",
    "peer-codegen": "@Ch5/codegen.toy",
    "mul-add-transpose": (
        "def main() {\n  var a = [[1, 2, 3], [4, 5, 6]];\n  var t = transpose(a);\n  var m = t * t;\n"
        "  print(m + t);\n}\n"
    ),
    "inlined-calls-vector-scalar": (
        "def f(a, b) { return transpose(a) * transpose(b); }\n"
        "def main() {\n  var a = [[1, 2, 3], [4, 5, 6]];\n  var t = transpose(a);\n  var m = t * t;\n"
        "  print(m + t);\n  print(f(a, a) + f(a, a));\n  var x = [1, 2, 3];\n  print(x * x + x);\n"
        "  var s = 5.5;\n  print(s);\n}\n"
    ),
    "siblings-printed-between": (
        "def main() {\n  var a = [[1, 2, 3], [4, 5, 6]];\n  var b<2, 3> = [6, 5, 4, 3, 2, 1];\n"
        "  var c = a * b;\n  var d = a + b;\n  print(c);\n  print(d);\n  print(transpose(c) * transpose(d));\n}\n"
    ),
    "chain-used-twice": (
        "def main() {\n  var a = [[1, 2], [3, 4]];\n  var b = a * a;\n  var c = b + a;\n"
        "  var d = transpose(c);\n  print(d * b);\n}\n"
    ),
    "unit-dimension-chain": (
        "def main() {\n  var c0<1, 3> = [4, 1, 4];\n  var v0 = c0 * c0;\n  var v1 = v0 * c0;\n"
        "  var v2 = v1 + c0;\n  var v3 = c0 + v1;\n  var v4 = v2 * v1;\n  print(v4);\n  var v5 = v3 * v3;\n"
        "  print(v5);\n}\n"
    ),
    "unit-dimension-transposes": (
        "def main() {\n  var c0<1, 3> = [9, 1, 1];\n  var v0 = c0 + c0;\n  print(v0);\n  var v1 = v0 + v0;\n"
        "  var v2 = v1 + v0;\n  print(v2);\n  var v3 = transpose(c0);\n  print(v3);\n"
        "  var v4 = transpose(v1);\n  print(v4);\n  print(v4);\n}\n"
    ),
    "many-nodes": (
        "def g(x, y) { return x * y + transpose(transpose(x)); }\n"
        "def main() {\n  var a = [[1, 2, 3], [4, 5, 6], [7, 8, 9]];\n"
        "  var b = [[9, 8, 7], [6, 5, 4], [3, 2, 1.5]];\n  var c = [[0.5, 1, 2], [3, 4, 5], [6, 7, 8.5]];\n"
        "  var d = g(a, b);\n  var e = g(d, c) * transpose(a);\n  print(d);\n  print(e + b);\n"
        "  print(transpose(e) * c + a);\n}\n"
    ),
}
"""Programs whose lowering the oracle runs MLIR's passes on: ``@`` names a peer file.  The
unit-dimension ones pin loops of one iteration to constants in fusion's slices."""


ORACLE_PASSES = ("canonicalize", "cse", "affine-loop-fusion", "affine-scalrep", "lower-affine")
"""Each runs on what MLIR's previous one gave (``lower-affine`` on the lowering's output too)."""


def _source(spec: str) -> tuple[str, str]:
    if spec.startswith("@"):
        needs_toy_peer()
        path = TOY / spec[1:]
        text = path.read_text()
        return (_toy_ir(text) if path.suffix == ".toy" else text), path.name
    return _toy_ir(spec), "p.toy"


def _mlir_readable(text: str) -> str:
    """passviz's print as iree-opt reads it: ``toy.print`` (unregistered there) in generic form."""
    return re.sub(r"toy\.print (%\w+) : (\S+)", r'"toy.print"(\1) : (\2) -> ()', text)


def _iree(text: str, pass_name: str | None = None) -> str:
    """``text`` as iree-opt prints it, after ``pass_name`` on each function if given."""
    pipeline = () if pass_name is None else (f"--pass-pipeline=builtin.module(func.func({pass_name}))",)
    return run_iree_opt(text, "--allow-unregistered-dialect", *pipeline)


def _ours(text: str, pass_name: str) -> str:
    run = record(text, pass_name)
    assert not run.trace.failed_steps, run.trace.failed_steps[0].flag
    return _iree(_mlir_readable(print_module(run.module)))


def _oracle_chain(spec: str) -> dict[str, tuple[str, str]]:
    """For each pass of ``ORACLE_PASSES``: (MLIR's result, passviz's), both printed by iree-opt."""
    text, name = _source(spec)
    lowered = record(text, ",".join(LOWERING), filename=name)
    assert not lowered.trace.failed_steps
    current = _iree(_mlir_readable(print_module(lowered.module)))
    results: dict[str, tuple[str, str]] = {}
    results["lower-affine (lowering)"] = (_iree(current, "lower-affine"), _ours(current, "lower-affine"))
    for pass_name in ORACLE_PASSES:
        theirs = _iree(current, pass_name)
        results[pass_name] = (theirs, _ours(current, pass_name))
        if pass_name != "lower-affine":
            current = theirs
    return results


@pytest.mark.iree
@pytest.mark.parametrize("name", PROGRAMS)
def test_each_pass_is_mlirs_on_the_lowering(name: str) -> None:
    need(iree_opt_missing())
    for pass_name, (theirs, ours) in _oracle_chain(PROGRAMS[name]).items():
        assert ours == theirs, f"{pass_name} differs from MLIR's on {name}"


SYMBOL_INDEXED = """\
func.func @f(%m: memref<10xf64>, %n: index) -> f64 {
  %v = affine.load %m[%n + 1] : memref<10xf64>
  affine.store %v, %m[%n] : memref<10xf64>
  return %v : f64
}
"""
"""Accesses indexed by a function argument, which ``canonicalize`` makes a symbol of each map."""


def test_lower_affine_reads_the_symbols_canonicalize_makes() -> None:
    need(iree_opt_missing())
    pipeline = "canonicalize,lower-affine"
    assert _ours(SYMBOL_INDEXED, pipeline) == _iree(SYMBOL_INDEXED, pipeline)


def random_program(rng: random.Random) -> str:
    """A Toy ``main`` of constants, elementwise ops, transposes and prints (shapes kept legal)."""
    shapes = [(2, 3), (3, 2), (2, 2), (3,), (1, 3)]
    lines: list[str] = []
    values: list[tuple[str, tuple[int, ...]]] = []
    for index in range(rng.randint(1, 3)):
        shape = rng.choice(shapes)
        elements = ", ".join(str(rng.randint(1, 9)) for _ in range(int(np.prod(shape))))
        lines.append(f"  var c{index}<{', '.join(map(str, shape))}> = [{elements}];")
        values.append((f"c{index}", shape))
    for index in range(rng.randint(2, 6)):
        name, shape = rng.choice(values)
        if rng.random() < 0.3 and len(shape) == 2:
            expression, shape = f"transpose({name})", (shape[1], shape[0])
        else:
            other = rng.choice([value for value, other_shape in values if other_shape == shape])
            expression = f"{name} {rng.choice('+*')} {other}"
        lines.append(f"  var v{index} = {expression};")
        values.append((f"v{index}", shape))
        if rng.random() < 0.4:
            lines.append(f"  print(v{index});")
    lines.append(f"  print({values[-1][0]});")
    return "def main() {\n" + "\n".join(lines) + "\n}\n"


@pytest.mark.iree
@pytest.mark.parametrize("seed", range(6))
def test_each_pass_is_mlirs_on_random_programs(seed: int) -> None:
    need(iree_opt_missing())
    source = random_program(random.Random(seed))
    for pass_name, (theirs, ours) in _oracle_chain(source).items():
        assert ours == theirs, f"{pass_name} differs from MLIR's on\n{source}"


# --- running the lowered IR ----------------------------------------------------------------


RUN_PROGRAMS = ("peer-affine-lowering", "peer-codegen", "inlined-calls-vector-scalar", "unit-dimension-chain")
"""The programs run at every step: calls, a vector, a scalar, loops of one iteration."""


@pytest.mark.parametrize("name", RUN_PROGRAMS)
def test_every_step_of_the_lowering_prints_what_the_toy_program_does(name: str) -> None:
    """The IR after each step, from MLIRGen's through fusion, scalar replacement and
    lower-affine (scf loops on memref loads and stores), runs in passviz's interpreter and
    prints what the toy-level program prints."""
    for text in [_source(PROGRAMS[name])[0]]:
        expected = run_main(parse_ir(text))
        assert expected
        run = record(text, toy_pipeline(5, "mlir-affine", True) + ",lower-affine")
        assert not run.trace.failed_steps
        texts = StepTexts(run.trace)
        for step in range(len(run.trace.steps)):
            try:
                printed = run_lowered(texts.module(step))
            except DeclarationCallError:  # between the two edits of one inlining
                continue
            assert printed == expected, f"step {step} ({run.trace.steps[step].name}) prints otherwise"
        assert run_lowered(run.module) == expected


@dataclass(frozen=True)
class _AddForMul(ModulePass):
    """A wrong pass: every ``arith.mulf`` becomes an ``arith.addf``."""

    name = "add-for-mul"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for mul in [inner for inner in op.walk() if isinstance(inner, arith.MulfOp)]:
            Rewriter.replace_op(mul, arith.AddfOp(mul.lhs, mul.rhs))


def test_bisect_finds_the_step_that_changes_what_a_lowered_program_prints() -> None:
    needs_toy_peer()
    text = (TOY / "Ch5/affine-lowering.mlir").read_text()
    good = record(text, toy_pipeline(5, "mlir-affine", True))
    assert bisect(good.trace, [], (1,)).first is None
    bad = record(
        text,
        [
            *parse_pipeline(toy_pipeline(5, "mlir-affine", False)),
            _AddForMul(),
            *list(parse_pipeline(toy_pipeline(5, "mlir-affine", True)))[-2:],
        ],
    )
    result = bisect(bad.trace, [], (1,))
    assert result.step is not None and result.step.pass_name == "add-for-mul"
    assert result.comparison is not None and result.comparison.differences[0].buffer == "print #1"


DEAD_LOOPS = """\
module {
  func.func @main() {
    %cst = arith.constant 1.000000e+00 : f64
    %c1 = arith.constant 1 : index
    %alloc = memref.alloc() : memref<2xf64>
    %alloc_1 = memref.alloc() : memref<2xf64>
    affine.store %cst, %alloc[%c1] : memref<2xf64>
    affine.for %arg0 = 0 to 2 {
      affine.store %cst, %alloc_1[%arg0] : memref<2xf64>
    }
    affine.for %arg0 = 0 to 0 {
      affine.store %cst, %alloc_1[%arg0] : memref<2xf64>
    }
    affine.for %arg0 = 0 to 2 {
    }
    affine.for %arg0 = 0 to 2 {
      %0 = affine.load %alloc[%arg0] : memref<2xf64>
      %1 = arith.addf %0, %0 : f64
    }
    "toy.print"(%alloc_1) : (memref<2xf64>) -> ()
    memref.dealloc %alloc : memref<2xf64>
    memref.dealloc %alloc_1 : memref<2xf64>
    return
  }
}
"""
"""Loops MLIR's canonicalizer erases (no effects but reads) and keeps (a store, even never run)."""


@pytest.mark.iree
def test_canonicalize_erases_the_loops_mlir_finds_dead() -> None:
    need(iree_opt_missing())
    assert _ours(DEAD_LOOPS, "canonicalize") == _iree(DEAD_LOOPS, "canonicalize")
