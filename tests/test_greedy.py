"""passviz's greedy driver against MLIR's semantics (GreedyPatternRewriteDriver).

The driver is checked on its own (worklist order, constant uniquing and
hoisting, folding, dead-op erasure, flagged failures) with xDSL's own
patterns and folders, and against real Triton where only those are needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait, HasFolder

from passviz.compilers.registry import make_context
from passviz.ir.printer import print_module
from passviz.pipelines import parse_ir
from passviz.recording.interface import NullRecorder, PipelineStopped, StepRecorder, TracedPass
from passviz.recording.recorder import Tracer
from passviz.rewrite.greedy import CANONICALIZE, FoldResult, GreedyConfig, GreedyDriver
from passviz.trace.model import Trace, TraceMeta
from tests.conftest import need
from tests.triton_oracle import triton_missing, triton_normalize, triton_run


def _trait_patterns(op: Operation) -> Sequence[RewritePattern]:
    return [
        pattern
        for trait in op.get_traits_of_type(HasCanonicalizationPatternsTrait)
        for pattern in trait.get_patterns(type(op))
    ]


def _trait_fold(op: Operation) -> FoldResult | None:
    trait = op.get_trait(HasFolder)
    return trait.fold(op) if trait is not None else None


def _drive(
    module: ModuleOp,
    recorder: StepRecorder,
    patterns: object = _trait_patterns,
    config: GreedyConfig = CANONICALIZE,
) -> bool:
    driver = GreedyDriver(make_context(), recorder, patterns, _trait_fold, None, config)  # type: ignore[arg-type]
    return driver.simplify(module.body)


@dataclass(frozen=True)
class _Greedy(TracedPass):
    """Stands for the pass the driver runs in."""

    name = "greedy"

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        _drive(op, recorder)


def _traced(text: str, patterns: object = _trait_patterns, config: GreedyConfig = CANONICALIZE) -> Trace:
    module = parse_ir(text)
    tracer = Tracer(module, TraceMeta(input="t", pipeline="greedy", passviz_version="0", xdsl_version="0"))
    tracer.pass_begin(_Greedy())
    try:
        _drive(module, tracer, patterns, config)
        tracer.pass_end(_Greedy())
    except (Exception, PipelineStopped) as exc:  # the tracer has flagged it
        assert tracer.stopped, exc
    tracer.finish()
    return tracer.trace


CONSTANTS = """
tt.func @f(%a: i32, %b: i1) -> i32 {
  %x = arith.addi %a, %a : i32
  %c5 = arith.constant 5 : i32
  %y = arith.muli %x, %c5 : i32
  %c7 = arith.constant 7 : i32
  %dead = arith.addi %y, %c7 : i32
  %r = scf.if %b -> (i32) {
    %c9 = arith.constant 9 : i32
    %c5b = arith.constant 5 : i32
    %z = arith.addi %y, %c9 : i32
    %w = arith.muli %z, %c5b : i32
    scf.yield %w : i32
  } else {
    scf.yield %y : i32
  }
  tt.return %r : i32
}
"""


def test_constants_are_uniqued_and_hoisted_in_mlirs_order() -> None:
    """Constants go to the function's entry, duplicates merge, and MLIR's
    move-before-front leaves them in the order MLIR prints (9 before 5)."""
    trace = _traced(CONSTANTS)
    names = [s.name for s in trace.steps]
    assert "hoist-constant" in names and "unique-constant" in names and "erase-dead-op" in names
    module = parse_ir(CONSTANTS)
    _drive(module, NullRecorder())
    entry = [op.name for op in module.walk()][2:5]
    assert entry == ["arith.constant", "arith.constant", "arith.addi"]
    values = [op.value.value.data for op in module.walk() if isinstance(op, arith.ConstantOp)]  # type: ignore[union-attr]
    assert values == [9, 5]


def test_constants_match_triton() -> None:
    need(triton_missing())
    module = parse_ir(CONSTANTS)
    _drive(module, NullRecorder())
    assert triton_normalize(print_module(module)) == triton_run(CONSTANTS, "canonicalize")


class _Visits(RewritePattern):
    """Records the order ops are visited in; rewrites nothing."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.ConstantOp):
            self.seen.append(str(op.value.value.data))  # type: ignore[union-attr]
        elif op.name != "builtin.module":
            self.seen.append(op.name)


ORDER = """
tt.func @f(%a: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %x = arith.subi %a, %c1 : i32
  %y = arith.subi %x, %c2 : i32
  tt.return %y : i32
}
"""


@pytest.mark.parametrize(
    ("top_down", "expected"),
    [
        (True, ["tt.func", "1", "2", "arith.subi", "arith.subi", "tt.return"]),
        # post-order pushes each op with its ancestors: [1, func, 2, subi, subi, return]
        (False, ["tt.return", "arith.subi", "arith.subi", "2", "tt.func", "1"]),
    ],
)
def test_worklist_order(top_down: bool, expected: list[str]) -> None:
    """Top-down visits ops first to last; bottom-up pops the post-order walk from its end."""
    visits = _Visits()
    _drive(parse_ir(ORDER), NullRecorder(), lambda op: [visits], GreedyConfig(top_down=top_down))
    assert visits.seen == expected


class _Flip(RewritePattern):
    """Flips an attribute back and forth: never converges."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.ConstantOp) or not isinstance(op.value, IntegerAttr):
            return
        flag = "flip" in op.attributes
        if flag:
            del op.attributes["flip"]
        else:
            op.attributes["flip"] = op.value
        rewriter.notify_op_modified(op)


def test_pattern_that_loops_is_a_flagged_step() -> None:
    trace = _traced(ORDER, lambda op: [_Flip()])
    assert trace.status == "failed"
    last = trace.steps[-1]
    assert last.flag is not None and last.flag["kind"] == "nonconvergence"
    assert "_Flip" in last.flag["message"]


class _Throws(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name == "arith.subi":
            raise RuntimeError("boom")


def test_pattern_that_throws_is_a_flagged_step() -> None:
    trace = _traced(ORDER, lambda op: [_Throws()])
    assert trace.status == "failed"
    failure = trace.steps[-1]
    assert failure.kind == "failure" and failure.flag is not None
    assert "boom" in failure.flag["message"] and failure.name == "_Throws"


def test_fold_materializes_constants_and_names_the_step() -> None:
    text = """
    tt.func @f() -> i32 {
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %x = arith.addi %c1, %c2 : i32
      tt.return %x : i32
    }
    """
    trace = _traced(text)
    assert "fold" in [s.name for s in trace.steps]
    module = parse_ir(text)
    _drive(module, NullRecorder())
    values = [op.value.value.data for op in module.walk() if isinstance(op, arith.ConstantOp)]  # type: ignore[union-attr]
    assert values == [3]
