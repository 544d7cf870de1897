"""``passviz bisect`` finds the rewrite that changed a kernel's results: the demo of
``examples/bisect_demo.py``, where ``x * 2 -> x + x`` is right and ``a - b -> b - a`` is not."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriteWalker

from passviz.cli import main
from passviz.pipelines import load_pass_module, record
from passviz.run.bisect import INITIAL, StepTexts, bisect, run_step
from passviz.run.inputs import make_arguments, parse_arg
from passviz.run.launch import Argument
from passviz.trace.model import Trace
from passviz.trace.store import read_trace

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DEMO = (EXAMPLES / "bisect_demo.mlir").read_text()
PASSES = load_pass_module(str(EXAMPLES / "bisect_demo.py"))
ARGS = ["x=1000:f32", "y=1000:f32", "out=1000:f32:zeros", "n=1000"]
"""The demo kernel's arguments, as the command line gives them."""


def demo_trace() -> Trace:
    run = record(DEMO, "demo-rewrites,canonicalize", extra_passes=PASSES)
    assert run.trace.status == "ok"
    return run.trace


def arguments() -> list[Argument]:
    return make_arguments([parse_arg(text) for text in ARGS])


def test_bisect_names_the_wrong_rewrite() -> None:
    trace = demo_trace()
    result = bisect(trace, arguments(), (4,))
    assert result.step is not None and result.first == result.step.index
    assert (result.step.kind, result.step.name) == ("rewrite", "OrderSubfOperands")
    # The right rewrite came first, and its step's outputs were the initial IR's.
    right = next(step.index for step in trace.steps if step.name == "TimesTwoToAdd")
    assert right < result.first
    assert result.first - 1 in result.runs and result.first in result.runs
    # Binary search: the initial IR, the last step and a few in between, not every step.
    assert len(result.runs) < len(trace.steps)
    comparison = result.comparison
    assert comparison is not None and comparison.count == 1000
    for difference in comparison.differences:
        assert difference.buffer == "out" and difference.got == pytest.approx(-float(difference.expected))  # pyright: ignore[reportArgumentType]
    x, y = (value for _, value in arguments()[:2])
    assert isinstance(x, np.ndarray) and isinstance(y, np.ndarray)
    np.testing.assert_allclose(result.runs[INITIAL].outputs["out"], 2 * x - y)
    np.testing.assert_allclose(result.runs[result.first].outputs["out"], y - 2 * x)
    assert bisect(trace, arguments(), (4,), every=True).first == result.first


@dataclass(frozen=True)
class OnlyTheRightRewrite(ModulePass):
    """The demo's ``x * 2 -> x + x`` alone."""

    name = "only-times-two"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        module = PASSES["demo-rewrites"].__module__
        import sys

        PatternRewriteWalker(sys.modules[module].TimesTwoToAdd()).rewrite_module(op)


def test_a_right_rewrite_changes_nothing() -> None:
    trace = record(DEMO, [OnlyTheRightRewrite()]).trace
    assert any(step.name == "TimesTwoToAdd" for step in trace.steps)
    result = bisect(trace, arguments(), (4,))
    assert result.first is None and set(result.runs) == {INITIAL, len(trace.steps) - 1}
    final = run_step(trace, len(trace.steps) - 1, arguments(), (4,))
    assert final.error is None and "out" in final.outputs


def test_the_command_line_runs_a_step_and_bisects(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo.passviz.json"
    mlir = tmp_path / "demo.mlir"
    mlir.write_text(DEMO)
    common = ["--grid", "4", *(f"--arg={spec}" for spec in ARGS)]
    assert (
        main(
            [
                "trace",
                str(mlir),
                "-p",
                "demo-rewrites",
                "--passes-from",
                str(EXAMPLES / "bisect_demo.py"),
                "-o",
                str(out),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["run", str(out), "--step", "initial", *common]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "the initial IR, grid 4: 1 buffer written"
    assert printed[1].startswith("out: 1000 x float32  [")
    assert main(["bisect", str(out), *common]) == 0
    printed = capsys.readouterr().out.splitlines()
    found = next(line for line in printed if line.startswith("first differing step:"))
    assert found.split()[3:7] == ["3", "rewrite", "demo-rewrites", "OrderSubfOperands"]
    # The matched op, located in its function by the id the viewer shows for it (the demo's IR
    # has no source locations).
    root = read_trace(out).steps[3].root
    assert root is not None and re.fullmatch(r"o\d+", root)
    assert found.endswith(f"OrderSubfOperands on arith.subf at @scale_sub, op {root}")
    assert "1000 elements differ" in printed[printed.index(found) + 1]
    assert printed[printed.index(found) + 2].startswith("  out[0]: expected ")
    # Within a tolerance wider than the change, no step differs.
    assert main(["bisect", str(out), *common, "--tolerance", "100", "100"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("no step changes the outputs")
    # Without --arg, the kernel's signature gives the inputs, and they are printed to be edited.
    assert main(["bisect", str(out), "--grid", "2"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == (
        "inputs from the kernel's signature: --arg x=4096:f32:random --arg y=4096:f32:random "
        "--arg out=4096:f32:random --arg n=64"
    )
    assert printed[2].split()[3:7] == ["3", "rewrite", "demo-rewrites", "OrderSubfOperands"]
    saved = tmp_path / "final.npz"
    assert main(["run", str(out), *common, "--save", str(saved)]) == 0
    x, y = (value for _, value in arguments()[:2])
    np.testing.assert_allclose(np.load(saved)["out"], y - 2 * x)  # pyright: ignore[reportOperatorIssue]


def test_inputs_come_from_a_json_file_with_npy_buffers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "demo.passviz.json"
    record(DEMO, "demo-rewrites", output=out, extra_passes=PASSES)
    x = np.arange(1000, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    inputs = tmp_path / "inputs.json"
    spec = {"args": ["x=x.npy", "y=1000:f32:zeros", "out=1000:f32:zeros", "n=1000"], "grid": [4], "seed": 3}
    inputs.write_text(json.dumps(spec))
    saved = tmp_path / "out.npz"
    assert main(["run", str(out), "--step", "initial", "--inputs", str(inputs), "--save", str(saved)]) == 0
    assert capsys.readouterr().out.startswith("the initial IR, grid 4: 1 buffer written\n")
    np.testing.assert_array_equal(np.load(saved)["out"], 2 * x)  # pyright: ignore[reportOperatorIssue]
    # --grid overrides the file's: one program covers the first 256 elements only.
    assert (
        main(
            [
                "run",
                str(out),
                "--step",
                "initial",
                "--inputs",
                str(inputs),
                "--grid",
                "1",
                "--save",
                str(saved),
            ]
        )
        == 0
    )
    np.testing.assert_array_equal(np.load(saved)["out"][256:], 0)  # pyright: ignore[reportIndexIssue]
    inputs.write_text(json.dumps({**spec, "colour": "blue"}))
    assert main(["bisect", str(out), "--inputs", str(inputs)]) == 1
    assert capsys.readouterr().err == (
        f"passviz: error: --inputs {inputs}: unknown field 'colour' (args, grid and seed are known)\n"
    )


UNSUPPORTED = """
tt.func public @k(%x: !tt.ptr<i64>) {
  %i = tt.ptr_to_int %x : !tt.ptr<i64> -> i64
  tt.store %x, %i : !tt.ptr<i64>
  tt.return
}
"""


def test_command_line_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mlir = tmp_path / "k.mlir"
    mlir.write_text(UNSUPPORTED)
    out = tmp_path / "k.passviz.json"
    assert main(["trace", str(mlir), "-p", "canonicalize", "-o", str(out)]) == 0
    capsys.readouterr()
    cases = {
        ("--arg", "x=4:i64"): "tt.ptr_to_int: the interpreter does not support tt.ptr_to_int",
        ("--arg", "x=4:q8"): "unknown element type 'q8'",
        ("--arg", "x=4"): "argument 'x' is a pointer (!tt.ptr<i64>); give it an array",
        ("--arg", "x=4:i64", "--grid", "0"): "expected one to three positive sizes",
        ("--arg", "x=4:i64", "--arg", "n=3"): "the kernel takes 1 arguments, not 2",
    }
    for extra, message in cases.items():
        for command in ("run", "bisect"):
            assert main([command, str(out), *extra]) == 1
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and err.startswith("passviz: error: ") and message in err, err


@pytest.mark.triton
def test_every_step_of_make_ttir_keeps_fused_softmax_s_results() -> None:
    from tests.triton_oracle import frontend_ir

    trace = record(frontend_ir("fused_softmax"), "make-ttir").trace
    rows, cols = 3, 700
    specs = [f"out={rows * cols}:f32:zeros", f"in={rows * cols}:f32", f"is={cols}", f"os={cols}"]
    arguments = make_arguments([parse_arg(text) for text in [*specs, f"rows={rows}", f"cols={cols}"]])
    result = bisect(trace, arguments, (2,), every=True)
    assert result.first is None and len(result.runs) == len(trace.steps) + 1
    # Between inlining a function's body into its last call and erasing that call, the call
    # names a function without a body: such steps cannot run, and are stepped around.
    stuck = [step for step, outcome in result.runs.items() if not outcome.runnable]
    assert stuck
    for step in stuck:
        assert (trace.steps[step].name or "").startswith("inline body of @")
        assert (
            trace.steps[step + 1].name
            == f"erase call to {trace.steps[step].name.removeprefix('inline body of ')}"
        )


UNSTRUCTURED = "triton-shared/test/Conversion/TritonToUnstructured"
"""triton-shared's inputs of fold-unstructured-ptr (``tests/test_fold_unstructured_ptr.py``)."""


@pytest.mark.parametrize(
    "name",
    [
        "gather_no_loop.mlir",
        "gather_simple_loop.mlir",
        "gather_reuse_loop_results.mlir",
        "gather_nested.mlir",
        "scf_for_ptr_in_iterargs.mlir",
        "scalar_store.mlir",
        "make_tensor_ptr.mlir",
    ],
)
def test_every_step_of_fold_unstructured_ptr_keeps_the_results(name: str) -> None:
    from passviz.pipelines import parse_ir
    from passviz.run.inputs import derive_specs
    from tests.conftest import peer_file

    text = peer_file(f"{UNSTRUCTURED}/{name}").read_text()
    trace = record(text, "fold-unstructured-ptr").trace
    assert "tts.make_unstructured_tptr" in trace.ir_at(-1)
    result = bisect(trace, make_arguments(derive_specs(parse_ir(text), size=256)), (2,), every=True)
    initial = result.runs[INITIAL]
    assert initial.error is None and initial.outputs
    assert result.first is None and len(result.runs) == len(trace.steps) + 1


def test_bf16_outputs_compare_within_a_bf16_ulp() -> None:
    from passviz.pipelines import parse_ir
    from passviz.run.bisect import Outcome, compare
    from passviz.run.launch import launch

    text = """
    tt.func public @k(%out: !tt.ptr<bf16>) {
      %v = arith.constant 1.0 : bf16
      tt.store %out, %v : !tt.ptr<bf16>
      tt.return
    }
    """
    result = launch(parse_ir(text), [("out", np.zeros(2, np.float32))], (1,))
    assert result.elements == {"out": "bf16"} and result.outputs["out"][0] == 1.0
    one, next_up = np.array([1.0], np.float32), np.array([1.0078125], np.float32)  # bf16's next after 1
    as_bf16 = Outcome(INITIAL, {"out": one}, {"out": "bf16"})
    assert compare(as_bf16, Outcome(0, {"out": next_up}, {"out": "bf16"})).same
    as_f32 = Outcome(INITIAL, {"out": one}, {"out": "f32"})
    assert not compare(as_f32, Outcome(0, {"out": next_up}, {"out": "f32"})).same


def test_a_run_locates_an_op_by_the_id_the_viewer_shows() -> None:
    """The IR a step runs is parsed anew; each of its ops maps back to the trace's id of the op
    it was replayed from, so that a run error names the op as the viewer does."""
    trace = demo_trace()
    texts = StepTexts(trace)
    for step in (INITIAL, len(trace.steps) - 1):
        module = texts.module(step)
        assert texts.replayer is not None
        ids = [texts.op_id(step, module, op) for op in module.walk()]
        assert None not in ids and len(set(ids)) == len(ids)
        assert [texts.replayer.ops[i].name for i in ids if i is not None] == [op.name for op in module.walk()]
