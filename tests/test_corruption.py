"""A pattern or pass that corrupts the IR ends in a flagged step naming what is wrong, never a hang.

Each corruption (a used op detached or erased, a use of an erased value, an op
inside its own region, a use before the definition) stops the run at the step
that made it, the trace is written and opens, and its IR at the flagged step
is the IR the pass really left.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.passes import ModulePass

from passviz.pipelines import load_trace, record
from passviz.recording.recorder import RecordOptions
from tests import user_passes
from tests.conftest import ROOT, one_error_line, run_passviz, trace_text
from tests.user_passes import INPUT

USER_PASSES = ROOT / "tests" / "user_passes.py"

REGION_INPUT = """\
func.func @f(%a: i32) -> i32 {
  %r = scf.execute_region -> (i32) {
    scf.yield %a : i32
  }
  %s = arith.addi %r, %a : i32
  func.return %s : i32
}
"""


CASES: dict[str, tuple[type[ModulePass], str, str, str]] = {
    # pass, input, the pattern the step is named after, what the flag says
    "detached-but-used": (
        user_passes.DetachUsedPass,
        INPUT,
        "DetachUsed",
        "arith.addi (o3) uses a result of arith.muli (o2), which is no longer in the IR",
    ),
    "erased-but-used": (user_passes.EraseUsedPass, INPUT, "EraseUsed", "uses a result of arith.muli (o2)"),
    "use-of-erased-value": (
        user_passes.EraseUsedUnsafelyPass,
        INPUT,
        "EraseUsedUnsafely",
        "arith.addi (o3) uses an erased value",
    ),
    "into-own-region": (
        user_passes.IntoOwnRegionPass,
        REGION_INPUT,
        "IntoOwnRegion",
        "scf.execute_region (o2) was moved into its own region",
    ),
    "use-before-definition": (
        user_passes.UseBeforeDefinitionPass,
        INPUT,
        "UseBeforeDefinition",
        "arith.muli (o4) uses a result of arith.addi (o3), which does not dominate it",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_corruption_is_a_flagged_step_whose_ir_is_the_real_ir(case: str) -> None:
    pass_type, text, pattern, problem = CASES[case]
    run = record(text, [pass_type()], options=RecordOptions(check=True))
    trace = run.trace
    assert trace.status == "failed"
    flagged = trace.failed_steps
    assert len(flagged) == 1, [s.flag for s in flagged]
    step = flagged[0]
    assert step is trace.steps[-1]
    assert step.name == pattern
    assert step.flag is not None and problem in step.flag["message"], step.flag
    # The IR the trace shows at every step, the flagged one included, is the live IR then.
    for index in range(len(trace.steps)):
        assert trace.ir_at(index) == run.tracer.snapshots[index + 1], f"step {index}"


def test_detaching_a_used_op_in_a_pass_of_its_own_is_flagged_at_the_pass_end() -> None:
    run = record(INPUT, [user_passes.DetachUsedDirectly()], options=RecordOptions(check=True))
    step = run.trace.steps[-1]
    assert step.kind == "pass-end" and step.flag is not None
    assert "uses a result of arith.muli (o2), which is no longer in the IR" in step.flag["message"]
    assert run.trace.ir_at(-1) == run.tracer.snapshots[-1]


def test_the_command_line_stops_on_a_detached_used_op_with_one_line(tmp_path: Path) -> None:
    done, out = trace_text(tmp_path, INPUT, "-p", "user-detach-used", "--passes-from", str(USER_PASSES))
    line = one_error_line(done)
    assert "IR corrupted by DetachUsed: arith.addi (o3) uses a result of arith.muli (o2)" in line
    assert str(out) in line
    steps = run_passviz("steps", str(out))
    assert steps.returncode == 0, steps.stderr
    assert "DetachUsed" in steps.stdout and "!! verify: IR corrupted" in steps.stdout
    assert load_trace(out).status == "failed"


def test_systemexit_in_a_pattern_is_a_flagged_step() -> None:
    trace = record(INPUT, [user_passes.ExitsPass()]).trace
    step = trace.steps[-1]
    assert step.kind == "failure" and step.flag is not None
    assert step.flag["message"] == "pattern Exits raised SystemExit: 3"


def test_an_exception_whose_message_raises_is_recorded() -> None:
    trace = record(INPUT, [user_passes.RaisesUnprintablePass()]).trace
    step = trace.steps[-1]
    assert step.flag is not None
    assert step.flag["message"] == (
        "pattern RaisesUnprintable raised Unprintable: <Unprintable whose message cannot be printed>"
    )
    assert "Unprintable" in step.flag.get("detail", "")
