"""``passviz trace --compiler TOOL``: the real compiler runs the pipeline, one step per pass as it
printed it, and ``--rewrites`` records its pattern passes rewrite by rewrite through MLIR's debug
counter (issue 23, item 3).

The oracle is iree-opt itself: what it prints after each pass (``--mlir-print-ir-after-all``), its
own output of the whole pipeline, the IR it prints at every value of the debug counter on a small
module (every change point, not a bisection), and the patterns its action log says it tried.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from passviz.cli import main
from passviz.importer import TextReplayer
from passviz.importer.compiler_run import (
    WITHOUT_PATTERNS,
    CompilerRun,
    candidates,
    change_points,
    read_executions,
    tool_pipeline,
    trace_compiler,
)
from passviz.ir.errors import PipelineError
from passviz.pipelines import load_trace, record
from passviz.trace.apply import apply_delta, initial_state
from passviz.trace.model import Trace
from tests.conftest import iree_opt, iree_opt_missing, need
from tests.iree_support import MODELS
from tests.test_import_dump import assert_same_ir

DISPATCH = (
    "builtin.module(util.func(iree-dispatch-creation-form-dispatch-regions,"
    "iree-dispatch-creation-clone-producers-into-dispatch-regions,"
    "iree-dispatch-creation-convert-dispatch-regions-to-workgroups),cse,iree-flow-canonicalize,cse)"
)
"""The dispatch half of IREE's Flow pipeline, its function passes nested as IREE nests them."""

PRINT = (
    "--mlir-print-ir-after-all",
    "--mlir-print-ir-module-scope",
    "--mlir-disable-threading",
    "--mlir-print-debuginfo",
)

SMALL = """func.func @f(%arg0: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %0 = arith.addi %arg0, %c1 : i32
  %1 = arith.addi %0, %c2 : i32
  %2 = arith.index_cast %1 : i32 to index
  %3 = arith.index_cast %2 : index to i32
  return %3 : i32
}
"""


def arith_module(functions: int = 30, rewritten: tuple[int, ...] = (3, 14, 25)) -> str:
    """About ``11 * functions`` ops of integer arithmetic, of which only the functions ``rewritten``
    end in a chain that canonicalize rewrites (an add of an add of constants, or a sub of one)."""
    out: list[str] = []
    for k in range(functions):
        body = [
            "%0 = arith.muli %a, %b : i32",
            "%1 = arith.xori %0, %a : i32",
            "%2 = arith.andi %1, %b : i32",
            "%3 = arith.ori %2, %0 : i32",
            "%4 = arith.shli %3, %b : i32",
            "%5 = arith.subi %4, %a : i32",
            "%6 = arith.maxsi %5, %1 : i32",
        ]
        if k in rewritten:
            second = "subi" if k == rewritten[-1] else "addi"
            body += [
                f"%c{k} = arith.constant {k} : i32",
                "%c7 = arith.constant 7 : i32",
                f"%7 = arith.addi %6, %c{k} : i32",
                f"%8 = arith.{second} %7, %c7 : i32",
            ]
        else:
            body += ["%7 = arith.minsi %6, %2 : i32", "%8 = arith.addi %7, %3 : i32"]
        lines = "".join(f"  {line}\n" for line in body)
        out.append(f"func.func @f{k}(%a: i32, %b: i32) -> i32 {{\n{lines}  return %8 : i32\n}}\n")
    return "".join(out)


def tool(*args: str, text: str | None = None) -> subprocess.CompletedProcess[str]:
    """iree-opt run with ``args`` (on ``text`` from standard input where given)."""
    return subprocess.run(
        [iree_opt(), *args], input=text, capture_output=True, text=True, timeout=120, check=False
    )


def after_snapshots(dump: str) -> list[str]:
    """The IR printed after each pass, in order, cut at the banners."""
    parts = re.split(r"^// -----// IR Dump After .*//----- //$", dump, flags=re.M)
    return [part.strip() for part in parts[1:]]


ATTEMPT = re.compile(
    r"apply-pattern pattern: \(anonymous namespace\)::(\w+) \((?:[^=(]* = )?([\w.]+)\b.*? (loc\(.*\))\)`"
)
"""An attempt in an action log (printed with ``--mlir-print-debuginfo``): its pattern, its op's
name and location."""


def roots_matched(trace: Trace) -> list[tuple[str, str, str]]:
    """Each pattern step's pattern, and its root's name and location in the IR before it."""
    assert trace.initial is not None
    state = initial_state(trace.initial)
    roots: list[tuple[str, str, str]] = []
    for step in trace.steps:
        if step.kind == "rewrite" and step.name != WITHOUT_PATTERNS:
            assert step.root is not None, f"step {step.index} ({step.name}) has no root"
            op = state.ops[step.root]
            roots.append((step.name or "", op.name, op.loc or ""))
        apply_delta(state, step.delta)
    return roots


def ir_after(trace: Trace, index: int) -> str:
    replayer = TextReplayer(trace)
    replayer.advance_to(index)
    return replayer.text()


# -- no tool needed ----------------------------------------------------------------------------------


def test_pipeline_is_wrapped_or_handed_as_it_is() -> None:
    assert tool_pipeline("canonicalize,cse{x=1}") == ("builtin.module(canonicalize,cse{x=1})", 0)
    assert tool_pipeline("builtin.module(func.func(cse))") == ("builtin.module(func.func(cse))", 15)
    for spec, column in (("canonicalize),cse(", 13), ("cse{a=1", 4), ('a{s="x}', 5), ("", 0)):
        with pytest.raises(PipelineError) as raised:
            tool_pipeline(spec)
        assert (f"column {column}:" in str(raised.value)) == bool(spec), raised.value


def test_change_points_are_every_change_of_a_step_function() -> None:
    changes = {3, 4, 700, 1000}
    seen: list[int] = []

    def evaluate(count: int) -> str:
        seen.append(count)
        return str(sum(c <= count for c in changes))

    assert change_points(evaluate, range(1001), jobs=3) == sorted(changes)
    assert len(seen) < 120
    seen.clear()
    assert change_points(evaluate, range(1001), jobs=3, first=[699, 700, 999, 1000]) == sorted(changes)
    assert change_points(evaluate, [0, 4, 500, 700, 1000], jobs=1) == [4, 700, 1000]
    assert change_points(lambda count: "same", range(10, 21), jobs=2) == []


def test_only_the_last_attempt_on_an_op_can_have_applied() -> None:
    patterns = ["A1", "A2", "A3", "B1", "A1", "A1", "A2", "A3", "A1"]
    ops = [
        "%0 = t.a",
        "%0 = t.a",
        "%0 = t.a",
        "t.b",
        "%1 = t.a",
        "%1 = t.a",
        "%1 = t.a",
        "%1 = t.a",
        "%2 = t.a",
    ]
    # Runs: A1-A3 on %0 (all failed, or A3 applied), B1, A1 on %1 (stopped early: applied),
    # A1-A3 on %1 again, A1 on %2 (the log's end).
    assert candidates(patterns, ops) == ([3, 4, 5, 8, 9], [5, 9])


def test_action_log_gives_each_leaf_execution_its_attempts() -> None:
    log = "\n".join(
        [
            "[thread t] begins (no breakpoint) Action `pass-execution` running `Adaptor` on Operation `builtin.module` (m)`",
            "[thread t] begins (no breakpoint) Action `pass-execution` running `CanonicalizerPass` on Operation `func.func` (f)`",
            "[thread t] begins (no breakpoint) Action `apply-pattern pattern: (anonymous namespace)::AddIAddConstant (%0 = arith.addi %a, %b : i32)`",
            "[thread t] completed `apply-pattern`",
            "[thread t] begins (no breakpoint) Action `apply-pattern pattern: mlir::scf::IfOp::Fold (%1 = scf.if %c -> (i32) {...})`",
            "[thread t] completed `pass-execution`",
            "[thread t] begins (no breakpoint) Action `pass-execution` running `CSEPass` on Operation `func.func` (f)`",
            "[thread t] completed `pass-execution`",
            "[thread t] completed `pass-execution`",
        ]
    )
    executions = read_executions(log)
    assert [(e.pass_class, e.patterns) for e in executions] == [
        ("CanonicalizerPass", ["AddIAddConstant", "Fold"]),
        ("CSEPass", []),
    ]


# -- iree-opt ------------------------------------------------------------------------------------------


@pytest.mark.iree
def test_every_pass_step_is_what_iree_opt_printed_after_it(tmp_path: Path) -> None:
    need(iree_opt_missing())
    source = tmp_path / "matmul.mlir"
    source.write_text(MODELS["matmul_bias_util"], encoding="utf-8")
    trace = trace_compiler(CompilerRun(iree_opt()), str(source), DISPATCH).trace
    printed = tool(str(source), f"--pass-pipeline={DISPATCH}", *PRINT, "-o", "/dev/null")
    assert printed.returncode == 0, printed.stderr
    snapshots = after_snapshots(printed.stderr)
    banners = re.findall(r"IR Dump After (\w+): ([\w-]+)", printed.stderr)
    assert len(snapshots) == len(trace.steps) == 6
    replayer = TextReplayer(trace)
    for index, (snapshot, step) in enumerate(zip(snapshots, trace.steps, strict=True)):
        assert step.kind == "pass-end"
        assert (step.name or "").split(" ")[0] == banners[index][0]
        assert step.pass_name == banners[index][1]
        replayer.advance_to(index)
        assert_same_ir(snapshot, replayer.text(), f"step {index} ({step.name})")
    whole = tool(str(source), f"--pass-pipeline={DISPATCH}", "--mlir-print-debuginfo")
    assert whole.returncode == 0, whole.stderr
    assert_same_ir(whole.stdout, replayer.text(), "the pipeline's output")
    assert trace.steps[2].delta.get("ops_created")  # workgroups made: not a trace of no change


@pytest.mark.iree
def test_canonicalize_rewrite_by_rewrite_is_iree_opts(tmp_path: Path) -> None:
    need(iree_opt_missing())
    text = arith_module()
    source = tmp_path / "arith.mlir"
    source.write_text(text, encoding="utf-8")
    assert 300 <= tool(str(source), "--mlir-print-op-generic").stdout.count('"') // 2 + 1
    output = tmp_path / "t.json"
    args = [str(source), "-p", "canonicalize", "--compiler", "iree-opt", "--rewrites", "-o", str(output)]
    assert main(["trace", *args]) == 0
    trace = load_trace(output)
    assert trace.sources == {str(source): text}  # the viewer's source pane shows the input's lines
    kinds = [(step.kind, step.name) for step in trace.steps]
    rewrites = [name for kind, name in kinds if kind == "rewrite" and name != WITHOUT_PATTERNS]
    # passviz's own canonicalize, a port, applies the same patterns to the same ops.
    own = record(text, "canonicalize").trace
    expected = [s.name for s in own.steps if s.kind == "rewrite" and "-" not in (s.name or "-")]
    assert rewrites == expected == ["AddIAddConstant", "AddIAddConstant", "SubIRHSAddConstant"]
    tried = set(_attempts(source, tmp_path))
    assert set(rewrites) <= {pattern for pattern, _, _ in tried}
    # Each pattern step's root is the op its pattern matched: an op the action log says that
    # pattern was tried on, at its location; here the outer add (sub) of each chain rewritten.
    chains = [
        f'loc("{source}":{number}:{line.index("arith.") + 1})'
        for number, line in enumerate(text.splitlines(), 1)
        if re.search(r"%8 = arith\.(addi|subi) %7, %c7 ", line)
    ]
    roots = roots_matched(trace)
    assert [loc for _, _, loc in roots] == chains
    assert set(roots) <= tried, roots
    for step in trace.steps:
        if step.kind == "rewrite":
            assert step.changed, step.name
    assert kinds[0][0] == "pass-begin" and kinds[-1][0] == "pass-end" and not trace.steps[-1].changed
    final = tool(str(source), "--canonicalize", "--mlir-print-debuginfo")
    assert_same_ir(final.stdout, ir_after(trace, len(trace.steps) - 1), "canonicalize's output")
    notes = " ".join(trace.meta.get("imported", {}).get("notes", []))
    assert "folds" in notes and "3 pattern applications" in notes


def _attempts(source: Path, tmp_path: Path) -> list[tuple[str, str, str]]:
    """Each pattern attempt of ``iree-opt --canonicalize`` on ``source``, as its action log names
    it: (pattern, op name, location)."""
    logged = tmp_path / "actions.log"
    tool(
        str(source),
        "--canonicalize",
        "--mlir-print-debuginfo",
        f"--log-actions-to={logged}",
        "-o",
        "/dev/null",
    )
    return ATTEMPT.findall(logged.read_text())


@pytest.mark.iree
@pytest.mark.slow
def test_each_rewrite_step_is_a_change_the_counter_shows(tmp_path: Path) -> None:
    need(iree_opt_missing())
    source = tmp_path / "small.mlir"
    source.write_text(SMALL, encoding="utf-8")
    trace = trace_compiler(CompilerRun(iree_opt()), str(source), "canonicalize,cse", rewrites=True).trace
    tried = _attempts(source, tmp_path)
    attempts = [pattern for pattern, _, _ in tried]
    # Every value of the counter, run: each change is one rewrite step, named after that attempt.
    outputs = [
        tool(
            str(source),
            "--canonicalize",
            f"--mlir-debug-counter=apply-pattern-count={n}",
            "--mlir-print-debuginfo",
        ).stdout
        for n in range(len(attempts) + 1)
    ]
    changes = [n for n in range(1, len(outputs)) if outputs[n] != outputs[n - 1]]
    steps = [s for s in trace.steps if s.kind == "rewrite" and s.name != WITHOUT_PATTERNS]
    assert [s.name for s in steps] == [attempts[n - 1] for n in changes]
    assert [s.name for s in steps] == ["AddIAddConstant"]
    # Each step's root: the op of the attempt that made its change, by name and location.
    assert roots_matched(trace) == [tried[n - 1] for n in changes]
    for step in steps:
        assert step.pass_name == "canonicalize"
    first = next(i for i, s in enumerate(trace.steps) if s.name == WITHOUT_PATTERNS)
    assert_same_ir(outputs[0], ir_after(trace, first), "the counter at 0")  # the casts folded
    assert_same_ir(outputs[-1], ir_after(trace, first + 1), "the counter past the attempts")
    assert [s.kind for s in trace.steps][-2:] == ["pass-end", "pass-end"]


@pytest.mark.iree
def test_errors_are_one_located_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need(iree_opt_missing())
    good = tmp_path / "good.mlir"
    good.write_text(SMALL, encoding="utf-8")
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f() {\n", encoding="utf-8")
    unbufferizable = tmp_path / "foo.mlir"
    unbufferizable.write_text(
        "func.func @f(%t: tensor<4xf32>) -> tensor<4xf32> {\n"
        '  %u = "foo.bar"(%t) : (tensor<4xf32>) -> tensor<4xf32>\n'
        "  return %u : tensor<4xf32>\n}\n",
        encoding="utf-8",
    )
    out = str(tmp_path / "t.json")
    err = ""
    cases = [
        (
            [str(good), "-p", "canonicalize", "--compiler", "no-such-opt-tool"],
            "no-such-opt-tool: not found on PATH",
        ),
        (
            [str(bad), "-p", "canonicalize", "--compiler", "iree-opt"],
            f"iree-opt fails on the input: {bad}:1:17: error:",
        ),
        (
            [str(good), "-p", "canonicalize,no-such-pass", "--compiler", "iree-opt"],
            "pipeline 'canonicalize,no-such-pass', column 14: iree-opt: 'no-such-pass' does not refer",
        ),
        ([str(good), "-p", "canonicalize", "--rewrites"], "--rewrites needs --compiler"),
        (
            [
                str(unbufferizable),
                *("-p", "canonicalize,one-shot-bufferize{bufferize-function-boundaries},cse"),
                *("--compiler", "iree-opt", "--compiler-arg=--allow-unregistered-dialect"),
            ],
            "step 1 (one-shot-bufferize): OneShotBufferizePass failed",
        ),
    ]
    for args, message in cases:
        capsys.readouterr()
        assert main(["trace", *args, "-o", out]) == 1, args
        err = capsys.readouterr().err
        assert message in err, err
        assert "Traceback" not in err
    assert f"{unbufferizable}:2:8: error: op was not bufferized" in err
    trace = load_trace(out)
    failed = trace.failed_steps[0]
    assert failed.flag is not None and "op was not bufferized" in failed.flag.get("detail", "")


@pytest.mark.iree
def test_a_conversion_the_counter_breaks_stays_one_step(tmp_path: Path) -> None:
    need(iree_opt_missing())
    source = tmp_path / "if.mlir"
    source.write_text(
        "func.func @f(%a: i32, %b: i1) -> i32 {\n"
        "  %y = scf.if %b -> i32 {\n    %z = arith.addi %a, %a : i32\n    scf.yield %z : i32\n"
        "  } else {\n    scf.yield %a : i32\n  }\n  return %y : i32\n}\n",
        encoding="utf-8",
    )
    pipeline = "canonicalize,convert-scf-to-cf"
    trace = trace_compiler(CompilerRun(iree_opt()), str(source), pipeline, rewrites=True).trace
    assert [(s.kind, s.pass_name) for s in trace.steps] == [
        ("pass-end", "canonicalize"),
        ("pass-end", "convert-scf-to-cf"),
    ]
    notes = trace.meta.get("imported", {}).get("notes", [])
    assert any(
        note.startswith("convert-scf-to-cf (SCFToControlFlowPass) fails with the debug counter")
        for note in notes
    )
    whole = tool(str(source), f"--pass-pipeline=builtin.module({pipeline})", "--mlir-print-debuginfo")
    assert_same_ir(whole.stdout, ir_after(trace, 1), "the pipeline's output")
