"""A user's own plain xDSL pass is recorded rewrite by rewrite, and its misbehaviour is flagged.

The passes are written as a user writes them, without passviz
(``tests/user_passes.py``, ``examples/my_pattern.py``), and loaded as a user
loads them: ``passviz trace --passes-from FILE`` or ``passviz.record(text,
[MyPass()])``.  A pass that never converges, runs too long or is interrupted
ends in a flagged step, with the trace written and readable.  Commands that can
hang run in a subprocess with a generous ``timeout=``; nothing here is timed.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

import passviz
from passviz.pipelines import load_trace, record
from passviz.recording.interface import NullRecorder
from passviz.recording.recorder import RecordOptions
from passviz.rewrite.greedy import GreedyDriver
from passviz.trace.model import Trace
from tests import user_passes
from tests.conftest import ROOT, one_error_line, run_passviz, trace_text
from tests.user_passes import INPUT

USER_PASSES = ROOT / "tests" / "user_passes.py"
MY_PATTERN = ROOT / "examples" / "my_pattern.py"
MY_INPUT = ROOT / "examples" / "my_pattern.mlir"

AFTER_FIRST_MULI = """\
builtin.module {
  func.func @f(%a: i32, %b: i32) -> i32 {
    %0 = arith.addi %a, %a : i32
    %1 = arith.addi %0, %a : i32
    %2 = arith.muli %1, %b : i32
    func.return %2 : i32
  }
}
"""

AFTER_BOTH_MULIS = AFTER_FIRST_MULI.replace("%2 = arith.muli %1, %b", "%2 = arith.addi %1, %1")

OWN_LOOP_INPUT = """\
func.func @f(%a: i32, %b: i32) -> i32 {
  %0 = arith.muli %a, %b : i32
  %x = arith.xori %a, %b : i32
  %1 = arith.addi %0, %a : i32
  %y = arith.xori %1, %b : i32
  %2 = arith.muli %1, %b : i32
  func.return %2 : i32
}
"""

BRANCHES = """\
func.func @f(%a: i32) -> i32 {
  %true = arith.constant true
  cf.cond_br %true, ^bb1, ^bb2
^bb1:
  %x = arith.addi %a, %a : i32
  cf.br ^bb3(%x : i32)
^bb2:
  cf.br ^bb3(%a : i32)
^bb3(%r: i32):
  func.return %r : i32
}
"""
"""Canonicalize needs three iterations here: a constant branch folds, a dead block goes, blocks merge."""


def _rewrites(trace: Trace) -> list[str | None]:
    return [s.name for s in trace.steps if s.kind == "rewrite"]


def _assert_live_ir_at_every_step(text: str, passes: list[ModulePass]) -> Trace:
    """Record in check mode: the IR the trace rebuilds at each step is the live IR then."""
    run = record(text, passes, options=RecordOptions(check=True))
    for index in range(len(run.trace.steps)):
        assert run.trace.ir_at(index) == run.tracer.snapshots[index + 1], f"step {index}"
    return run.trace


# -- a plain pass is recorded rewrite by rewrite ----------------------------------


def test_a_walker_pass_from_a_file_is_one_step_per_rewrite(tmp_path: Path) -> None:
    done, out = trace_text(tmp_path, INPUT, "-p", "user-converges", "--passes-from", str(USER_PASSES))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"recorded 4 steps to {out}"
    steps = run_passviz("steps", str(out)).stdout.splitlines()[1:]
    assert [line.split()[1:4] for line in steps] == [
        ["pass-begin", "user-converges", "Converges"],
        ["rewrite", "user-converges", "MuliToAddi"],
        ["rewrite", "user-converges", "MuliToAddi"],
        ["pass-end", "user-converges", "Converges"],
    ]
    assert "+1 -1 ~1" in steps[1] and "+1 -1 ~1" in steps[2]
    assert (
        run_passviz("show", str(out), "--step", "0").stdout
        == "builtin.module {\n" + "".join("  " + line + "\n" for line in INPUT.splitlines()) + "}\n"
    )
    assert run_passviz("show", str(out), "--step", "1").stdout == AFTER_FIRST_MULI
    assert run_passviz("show", str(out), "--step", "2").stdout == AFTER_BOTH_MULIS
    diff = run_passviz("show", str(out), "--step", "2", "--diff").stdout
    assert "-    %2 = arith.muli %1, %b : i32\n+    %2 = arith.addi %1, %1 : i32\n" in diff
    trace = load_trace(out)
    assert trace.status == "ok" and trace.ir_at(1) == AFTER_FIRST_MULI and trace.ir_at(-1) == AFTER_BOTH_MULIS


def test_a_pass_instance_recorded_from_python_is_one_step_per_rewrite() -> None:
    trace = passviz.record(INPUT, [user_passes.Converges()])
    assert [s.kind for s in trace.steps] == ["pass-begin", "rewrite", "rewrite", "pass-end"]
    assert _rewrites(trace) == ["MuliToAddi", "MuliToAddi"]
    assert trace.steps[1].root == "o2" and trace.steps[2].root == "o4"  # each step on its muli
    assert trace.ir_at(1) == AFTER_FIRST_MULI and trace.ir_at(2) == AFTER_BOTH_MULIS
    _assert_live_ir_at_every_step(INPUT, [user_passes.Converges()])


class NeverFires(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        return None


@dataclass(frozen=True)
class AppliesSeveral(ModulePass):
    """Several patterns under xDSL's applier: the steps are named after the one that fired."""

    name = "applies-several"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = GreedyRewritePatternApplier([NeverFires(), user_passes.MuliToAddi()])
        PatternRewriteWalker(patterns).rewrite_module(op)


def test_an_applier_step_is_named_after_the_pattern_that_fired() -> None:
    trace = _assert_live_ir_at_every_step(INPUT, [AppliesSeveral()])
    assert _rewrites(trace) == ["MuliToAddi", "MuliToAddi"]
    assert trace.ir_at(-1) == AFTER_BOTH_MULIS


def test_a_pass_with_its_own_rewriters_and_static_edits_is_one_step_per_rewrite() -> None:
    trace = _assert_live_ir_at_every_step(OWN_LOOP_INPUT, [user_passes.OwnLoop()])
    assert _rewrites(trace) == ["MuliToAddi", "MuliToAddi", "Rewriter.erase_op", "Rewriter.erase_op"]
    first, second, erase_x, erase_y = (s for s in trace.steps if s.kind == "rewrite")
    # Each muli's replacement is its own step: the second addi is not in the first.
    for step in (first, second):
        assert len(step.delta["ops_created"]) == 1 and len(step.delta["ops_erased"]) == 1
    assert "%0 = arith.addi %a, %a" in trace.ir_at(first.index)
    assert "%2 = arith.muli %1, %b" in trace.ir_at(first.index)
    assert "%x = arith.xori" in trace.ir_at(second.index)
    assert "%x = arith.xori" not in trace.ir_at(erase_x.index) and "%y = arith.xori" in trace.ir_at(
        erase_x.index
    )
    assert "xori" not in trace.ir_at(erase_y.index)


def test_an_op_a_pass_s_own_rewriter_modifies_is_recorded_with_its_new_operands_by_id() -> None:
    """A PatternRewriter a pass builds itself reports each kind of event to its own handler: the
    op whose operand a replacement changed is a modified op, its text naming the new value by id
    (it was taken for a removed op, printed before the new value had an id: ``%0``)."""
    trace = record(OWN_LOOP_INPUT, [user_passes.OwnLoop()]).trace
    first = next(s for s in trace.steps if s.kind == "rewrite")
    (created,) = first.delta["ops_created"]
    new_value = created["results"][0]["id"]
    (modified,) = first.delta.get("ops_modified", [])
    assert modified["operands"][0] == new_value
    assert first.delta.get("texts", {})[modified["id"]] == f"%v4 = arith.addi %{new_value}, %v0 : i32"


# -- a pattern that never converges ----------------------------------------------


def test_patterns_undoing_each_other_end_in_a_flagged_cycle(tmp_path: Path) -> None:
    done, out = trace_text(
        tmp_path, INPUT, "-p", "user-loops", "--passes-from", str(USER_PASSES), "--max-rewrites", "20"
    )
    line = one_error_line(done)
    assert line == (
        "passviz: error: step 22 (user-loops): greedy rewrite did not converge within 20 rewrites; "
        f"patterns kept firing: SubiToAddi → AddiToSubi → SubiToAddi (trace written to {out})"
    )
    trace = load_trace(out)
    assert trace.status == "failed"
    assert _rewrites(trace) == ["AddiToSubi", "SubiToAddi"] * 10 + ["AddiToSubi"]
    flagged = trace.steps[-1]
    assert flagged.kind == "failure" and flagged.name == "nonconvergence" and flagged.flag is not None
    assert flagged.flag["kind"] == "nonconvergence" and flagged.flag.get("cycle") == [
        "SubiToAddi",
        "AddiToSubi",
    ]
    listing = run_passviz("steps", str(out))
    assert listing.returncode == 0 and "!! nonconvergence: greedy rewrite did not converge" in listing.stdout


def test_my_pattern_example_is_flagged_and_its_fix_converges(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    done = run_passviz(
        "trace",
        str(MY_INPUT),
        "-p",
        "my-pass",
        "--passes-from",
        str(MY_PATTERN),
        "--max-rewrites",
        "20",
        "-o",
        str(out),
    )
    line = one_error_line(done)
    assert "step 22 (my-pass): greedy rewrite did not converge within 20 rewrites; " in line
    assert "patterns kept firing: SwapAddiOperands → SwapAddiOperands" in line
    trace = load_trace(out)
    assert _rewrites(trace) == ["MuliByOne", "erase-dead-op", *["SwapAddiOperands"] * 19]
    assert trace.steps[-1].flag is not None and trace.steps[-1].flag.get("cycle") == ["SwapAddiOperands"]
    swaps = [s.index for s in trace.steps if s.name == "SwapAddiOperands"]
    assert "arith.addi %x, %c4" in trace.ir_at(swaps[0]) and "arith.addi %c4, %x" in trace.ir_at(swaps[1])
    assert trace.ir_at(-1) == trace.ir_at(swaps[-1])  # the flagged step changes nothing
    shown = run_passviz("show", str(out), "--step", str(swaps[1]), "--diff")
    assert "-    %0 = arith.addi %x, %c4 : i32\n+    %0 = arith.addi %c4, %x : i32\n" in shown.stdout

    # The fix README.md describes: uncomment the check.
    source = MY_PATTERN.read_text()
    assert "        # if isinstance(op.rhs.owner, arith.ConstantOp):\n        #     return\n" in source
    fixed = tmp_path / "my_pattern.py"
    fixed.write_text(
        source.replace("        # if isinstance(op.rhs.owner", "        if isinstance(op.rhs.owner").replace(
            "        #     return\n", "            return\n"
        )
    )
    again = run_passviz(
        "trace",
        str(MY_INPUT),
        "-p",
        "my-pass",
        "--passes-from",
        str(fixed),
        "--max-rewrites",
        "20",
        "-o",
        str(out),
    )
    assert again.returncode == 0 and again.stderr == "", again.stderr
    trace = load_trace(out)
    assert trace.status == "ok" and _rewrites(trace) == ["MuliByOne", "erase-dead-op", "SwapAddiOperands"]
    assert "%0 = arith.addi %x, %c4 : i32" in trace.ir_at(-1) and "arith.muli" not in trace.ir_at(-1)


def test_max_iterations_reaches_xdsls_walker(tmp_path: Path) -> None:
    args = ("-p", "user-walks-forever", "--passes-from", str(USER_PASSES), "--max-iterations", "2")
    done, out = trace_text(tmp_path, INPUT, *args)
    line = one_error_line(done)
    assert "step 3 (user-walks-forever): greedy rewrite did not converge within 2 iterations" in line
    trace = load_trace(out)
    assert _rewrites(trace) == ["CountWalks", "CountWalks"]
    assert "walks = 2 : i32" in trace.ir_at(-1)


def test_max_iterations_reaches_passvizs_greedy_driver(tmp_path: Path) -> None:
    done, out = trace_text(tmp_path, BRANCHES, "-p", "canonicalize", "--max-iterations", "2")
    assert "(canonicalize): greedy rewrite did not converge within 2 iterations" in one_error_line(done)
    assert load_trace(out).steps[-1].name == "nonconvergence"
    done, _ = trace_text(tmp_path, BRANCHES, "-p", "canonicalize", "--max-iterations", "3")
    assert done.returncode == 0, done.stderr


@dataclass(frozen=True)
class DrivesPassvizGreedy(ModulePass):
    """A plain pass driving passviz's greedy driver, as one without a recorder would."""

    name = "drives-passviz-greedy"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = user_passes.CountWalks()
        GreedyDriver(ctx, NullRecorder(), lambda _: [pattern], lambda _: None).simplify(op.body)


def test_max_iterations_reaches_passvizs_greedy_driver_under_a_plain_pass() -> None:
    trace = passviz.record(INPUT, [DrivesPassvizGreedy()], max_iterations=2)
    assert trace.status == "failed" and _rewrites(trace) == ["CountWalks", "CountWalks"]
    flag = trace.steps[-1].flag
    assert flag is not None and flag["message"].startswith(
        "greedy rewrite did not converge within 2 iterations"
    )


# -- a pass that takes too long, or is interrupted ----------------------------------


@pytest.mark.parametrize(
    ("name", "where"),
    [("user-slow", "in pattern Sleepy after 1 rewrite"), ("user-spins", "in pattern Spin after 0")],
)
def test_a_timeout_stops_a_slow_or_spinning_pass(tmp_path: Path, name: str, where: str) -> None:
    done, out = trace_text(tmp_path, INPUT, "-p", name, "--passes-from", str(USER_PASSES), "--timeout", "0.5")
    line = one_error_line(done)
    assert f"the pass did not finish within the 0.5 s timeout: stopped {where}" in line and str(out) in line
    trace = load_trace(out)
    assert trace.status == "failed"
    flagged = trace.steps[-1]
    assert flagged.flag is not None and flagged.flag["kind"] == "nonconvergence"
    assert run_passviz("steps", str(out)).returncode == 0


def test_a_timeout_stops_a_spinning_pass_outside_the_main_thread() -> None:
    traces: list[Trace] = []
    worker = threading.Thread(
        target=lambda: traces.append(passviz.record(INPUT, [user_passes.Spins()], timeout=0.3))
    )
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive() and traces
    flag = traces[0].steps[-1].flag
    assert (
        flag is not None
        and "did not finish within the 0.3 s timeout: stopped in pattern Spin" in flag["message"]
    )


def test_ctrl_c_leaves_a_readable_partial_trace(tmp_path: Path) -> None:
    source = tmp_path / "in.mlir"
    source.write_text(INPUT)
    out = tmp_path / "t.passviz.json"
    command = [sys.executable, "-m", "passviz.cli", "trace", str(source), "-p", "user-spins"]
    command += ["--passes-from", str(USER_PASSES), "-o", str(out)]
    # The child gets SIGINT's default, as from a terminal, even where pytest runs with it ignored.
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    ) as run:
        deadline = time.monotonic() + 60
        while not (out.exists() and '"kind":"pass-begin"' in out.read_text()):
            assert run.poll() is None and time.monotonic() < deadline, "the run ended or never began its pass"
            time.sleep(0.05)
        run.send_signal(signal.SIGINT)
        stdout, stderr = run.communicate(timeout=60)
    assert run.returncode == 130, stderr
    assert stderr == f"passviz: interrupted; the partial trace is in {out}\n" and stdout == ""
    listing = run_passviz("steps", str(out))
    assert listing.returncode == 0, listing.stderr
    assert "!! exception: interrupted (KeyboardInterrupt) in pattern Spin" in listing.stdout
    trace = load_trace(out)
    assert [s.kind for s in trace.steps] == ["pass-begin", "failure"] and trace.status == "failed"
    assert trace.steps[-1].name == "Spin"
