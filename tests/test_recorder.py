"""The recorder: direct edits, failures, verifier flags and rewrite loops."""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from passviz.compilers.registry import make_context
from passviz.pipelines import parse_ir
from passviz.recording.recorder import UNANNOUNCED, RecordOptions, Tracer, VerifyEach
from passviz.recording.replay import Replayer
from passviz.trace.model import Trace, TraceMeta
from tests.passes_for_tests import (
    AddiToSubi,
    DirectEditsPass,
    EraseThenExplode,
    Explodes,
    MakeInvalid,
    PatternsPass,
    SplitBlockPass,
    SubiToAddi,
    TagBehindTheRewritersBack,
)

INPUT = """
func.func @f(%a: i32, %b: i32) -> i32 {
  %c = arith.constant 7 : i32
  %s = arith.addi %a, %b : i32
  %m = arith.muli %s, %c : i32
  %n = arith.subi %m, %a : i32
  %unused = arith.xori %a, %a : i32
  func.return %n : i32
}
"""


def _tracer(text: str = INPUT, verify_each: VerifyEach = "pass", **kw: Any) -> Tracer:
    meta = TraceMeta(
        input="test",
        pipeline="test",
        passviz_version="0",
        xdsl_version=version("xdsl"),
        verify_each=verify_each,
    )
    options = RecordOptions(verify_each=verify_each, check=True, **kw)
    return Tracer(parse_ir(text), meta, options=options)


def _assert_replay_exact(tracer: Tracer) -> None:
    tracer.trace.context_factory = make_context
    replayer = Replayer(tracer.trace)
    for index in range(len(tracer.trace.steps)):
        replayer.advance_to(index)
        assert replayer.text() == tracer.snapshots[index + 1], f"step {index}"


def test_edit_behind_the_rewriters_back_is_in_the_trace() -> None:
    tracer = _tracer()
    trace = tracer.run(make_context(), [PatternsPass((TagBehindTheRewritersBack(),))])
    assert trace.status == "ok"
    rewrite = next(s for s in trace.steps if s.kind == "rewrite")
    assert rewrite.name == "TagBehindTheRewritersBack"
    assert any('"yes"' in c.get("attrs", {}).get("tagged", "") for c in rewrite.delta["ops_modified"])
    # The unannounced operand change is caught by the pass-end comparison and
    # shown as a checkpoint of its own.
    hidden = next(s for s in trace.steps if s.name == UNANNOUNCED)
    assert [c for c in hidden.delta["ops_modified"] if "operands" in c]
    assert trace.ir_at(-1) == tracer.snapshots[-1]
    assert "arith.muli %a, %c" in trace.ir_at(-1)


def test_exact_mode_puts_hidden_edits_in_the_step_that_made_them() -> None:
    tracer = _tracer(exact=True)
    trace = tracer.run(make_context(), [PatternsPass((TagBehindTheRewritersBack(),))])
    rewrite = next(s for s in trace.steps if s.kind == "rewrite")
    assert [c for c in rewrite.delta["ops_modified"] if "operands" in c]
    assert not any(s.name == UNANNOUNCED for s in trace.steps)
    _assert_replay_exact(tracer)


def test_untraced_pass_direct_edits_land_in_its_pass_end_step() -> None:
    tracer = _tracer()
    trace = tracer.run(make_context(), [DirectEditsPass()])
    end = trace.steps[-1]
    assert end.kind == "pass-end" and end.pass_name == "test-direct-edits"
    assert len(end.delta["ops_erased"]) == 1
    assert len(end.delta["ops_moved"]) == 1
    _assert_replay_exact(tracer)


def test_raising_pattern_is_a_failure_step() -> None:
    tracer = _tracer()
    trace = tracer.run(make_context(), [PatternsPass((Explodes(),))])
    assert trace.status == "failed"
    failure = trace.steps[-1]
    assert failure.kind == "failure" and failure.flag is not None
    assert failure.flag["kind"] == "exception"
    assert "boom: cannot handle this muli" in failure.flag["message"]
    assert failure.name == "Explodes"
    assert failure.root is not None
    assert "arith.muli" in failure.delta["texts"][failure.root]
    assert "RuntimeError" in failure.flag.get("detail", "")
    # the half-done edit is part of the failure step
    assert any("half" in c.get("attrs", {}) for c in failure.delta.get("ops_modified", []))


def test_verifier_flags_the_pass_that_broke_the_ir() -> None:
    tracer = _tracer()
    trace = tracer.run(make_context(), [PatternsPass((MakeInvalid(),))])
    assert trace.status == "failed"
    flagged = trace.failed_steps
    assert len(flagged) == 1 and flagged[0].kind == "pass-end"
    assert flagged[0].flag is not None and flagged[0].flag["kind"] == "verify"


def test_verify_each_rewrite_flags_the_first_bad_rewrite() -> None:
    tracer = _tracer(verify_each="rewrite")
    trace = tracer.run(make_context(), [PatternsPass((MakeInvalid(),))])
    flagged = trace.failed_steps
    assert len(flagged) == 1
    step = flagged[0]
    assert step.kind == "rewrite" and step.name == "MakeInvalid"
    assert step.flag is not None and step.flag["message"].startswith("verifier:")
    assert [s.kind for s in trace.steps].count("rewrite") == 1  # stopped right there


def test_rewrite_loop_is_flagged_with_its_cycle() -> None:
    tracer = _tracer(max_rewrites=40)
    trace = tracer.run(make_context(), [PatternsPass((AddiToSubi(), SubiToAddi()))])
    assert trace.status == "failed"
    step = trace.steps[-1]
    assert step.flag is not None and step.flag["kind"] == "nonconvergence"
    assert sorted(step.flag["cycle"]) == ["AddiToSubi", "SubiToAddi"]
    assert "AddiToSubi" in step.flag["message"] and "→" in step.flag["message"]


def test_block_split_and_merge_are_named() -> None:
    tracer = _tracer()
    trace = tracer.run(make_context(), [SplitBlockPass()])
    split = next(s for s in trace.steps if s.name == "split")
    (record,) = split.delta["blocks_split"]
    assert record["block"] == split.delta["blocks_created"][0]["id"]
    assert len(split.delta["ops_moved"]) == 5  # everything after the first op
    _assert_replay_exact(tracer)

    merged = record_run(trace_text=tracer.snapshots[-1])
    step = next(s for s in merged.steps if s.delta.get("blocks_merged"))
    assert step.name == "SimplifyBrToBlockWithSinglePred"
    assert step.delta["blocks_merged"][0]["block"] in step.delta["blocks_erased"]


def record_run(trace_text: str) -> Trace:
    from passviz.pipelines import record

    return record(trace_text, "canonicalize").trace


def test_failure_keeps_the_text_of_a_root_it_erased() -> None:
    tracer = _tracer()
    trace = tracer.run(make_context(), [PatternsPass((EraseThenExplode(),))])
    failure = trace.steps[-1]
    assert failure.kind == "failure" and failure.root is not None
    assert failure.root in failure.delta["ops_erased"]
    assert failure.delta["texts"][failure.root].startswith("%")
    assert "arith.xori" in failure.delta["texts"][failure.root]
