"""loop-invariant-code-motion (MLIR's LICM) and triton-licm, compared with Triton's."""

from __future__ import annotations

import re

import pytest

from passviz.compilers.triton.version import use_triton_version
from passviz.pipelines import record
from passviz.recording.recorder import RecordOptions
from passviz.recording.replay import Replayer
from tests.conftest import need, parse_or_skip, peer_cases
from tests.triton_oracle import compare, triton_missing

CASES = {
    "arith_chain": """
tt.func @f(%lb: i32, %ub: i32, %a: i32, %b: i32, %p: !tt.ptr<i32>) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %c7 = arith.constant 7 : i32
    %x = arith.addi %a, %b : i32
    %y = arith.addi %i, %x : i32
    %z = arith.muli %x, %c7 : i32
    %w = arith.addi %z, %y : i32
    %v = arith.subi %z, %a : i32
    tt.store %p, %w : !tt.ptr<i32>
    tt.store %p, %v : !tt.ptr<i32>
  }
  tt.return
}
""",
    "nested": """
tt.func @f(%lb: i32, %ub: i32, %a: i32, %p: !tt.ptr<i32>) -> i32 {
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %a) -> (i32) : i32 {
    %s = scf.for %j = %lb to %ub step %c1 iter_args(%acc2 = %acc) -> (i32) : i32 {
      %x = arith.muli %a, %a : i32
      %y = arith.addi %i, %x : i32
      %z = arith.addi %y, %j : i32
      %t = arith.addi %acc2, %z : i32
      scf.yield %t : i32
    }
    scf.yield %s : i32
  }
  tt.return %r : i32
}
""",
    "side_effects": """
tt.func private @g(%x: i32) -> i32 {
  tt.return %x : i32
}
tt.func @f(%lb: i32, %ub: i32, %a: i32, %p: !tt.ptr<i32>) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %l = tt.load %p : !tt.ptr<i32>
    %c = tt.call @g(%a) : (i32) -> i32
    %s = arith.addi %l, %c : i32
    tt.store %p, %a : !tt.ptr<i32>
    tt.store %p, %s : !tt.ptr<i32>
  }
  tt.return
}
""",
    "while": """
tt.func @f(%a: i32, %b: i32, %n: i32) -> i32 {
  %r = scf.while (%x = %a) : (i32) -> i32 {
    %inv = arith.muli %a, %b : i32
    %cond = arith.cmpi slt, %x, %n : i32
    %inv2 = arith.addi %inv, %b : i32
    scf.condition(%cond) %x : i32
  } do {
  ^bb0(%y: i32):
    %inv3 = arith.subi %a, %b : i32
    %next = arith.addi %y, %inv3 : i32
    scf.yield %next : i32
  }
  tt.return %r : i32
}
""",
    "remainders": """
tt.func @f(%lb: i32, %ub: i32, %a: i32, %d: i32, %p: !tt.ptr<i32>) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %cm1 = arith.constant -1 : i32
  %c0 = arith.constant 0 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %q1 = arith.remsi %a, %c2 : i32
    %q2 = arith.remsi %a, %cm1 : i32
    %q3 = arith.remui %a, %cm1 : i32
    %q4 = arith.remui %a, %c0 : i32
    %q5 = arith.remsi %a, %c0 : i32
    %q6 = arith.floordivsi %a, %cm1 : i32
    %q7 = arith.floordivsi %a, %c0 : i32
    %q8 = arith.ceildivui %a, %c2 : i32
    %s1 = arith.addi %q1, %q2 : i32
    %s2 = arith.addi %q3, %q4 : i32
    %s3 = arith.addi %q5, %q6 : i32
    %s4 = arith.addi %q7, %q8 : i32
    %s5 = arith.addi %s1, %s2 : i32
    %s6 = arith.addi %s3, %s4 : i32
    %s7 = arith.addi %s5, %s6 : i32
    tt.store %p, %s7 : !tt.ptr<i32>
  }
  tt.return
}
""",
    "divisions": """
tt.func @f(%lb: i32, %ub: i32, %a: i32, %d: i32, %p: !tt.ptr<i32>) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %cm1 = arith.constant -1 : i32
  %c0 = arith.constant 0 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %q1 = arith.divsi %a, %c2 : i32
    %q2 = arith.divsi %a, %cm1 : i32
    %q3 = arith.divsi %a, %d : i32
    %q4 = arith.divui %a, %cm1 : i32
    %q5 = arith.divui %a, %c0 : i32
    %q6 = arith.remsi %a, %d : i32
    %q7 = arith.remui %a, %d : i32
    %q8 = arith.ceildivsi %a, %c2 : i32
    %q9 = arith.ceildivui %a, %d : i32
    %q10 = arith.floordivsi %a, %d : i32
    %q11 = arith.ceildivsi %a, %cm1 : i32
    %s1 = arith.addi %q1, %q2 : i32
    %s2 = arith.addi %q3, %q4 : i32
    %s3 = arith.addi %q5, %q6 : i32
    %s4 = arith.addi %q7, %q8 : i32
    %s5 = arith.addi %q9, %q10 : i32
    %s6 = arith.addi %s1, %s2 : i32
    %s7 = arith.addi %s3, %s4 : i32
    %s8 = arith.addi %s5, %s6 : i32
    %s9 = arith.addi %s7, %s8 : i32
    %s10 = arith.addi %s9, %q11 : i32
    tt.store %p, %s10 : !tt.ptr<i32>
  }
  tt.return
}
""",
    "inner_loops_and_if": """
tt.func @f(%lb: i32, %ub: i32, %a: i32, %c: i1, %p: !tt.ptr<i32>) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %r1 = scf.for %j = %lb to %ub step %c1 iter_args(%x = %a) -> (i32) : i32 {
      %y = arith.addi %x, %j : i32
      scf.yield %y : i32
    }
    %r2 = scf.for %j = %lb to %ub step %c2 iter_args(%x = %a) -> (i32) : i32 {
      %y = arith.addi %x, %j : i32
      scf.yield %y : i32
    }
    %r3 = scf.if %c -> (i32) {
      %y = arith.addi %a, %a : i32
      scf.yield %y : i32
    } else {
      scf.yield %a : i32
    }
    %r4 = scf.if %c -> (i32) {
      tt.store %p, %a : !tt.ptr<i32>
      scf.yield %a : i32
    } else {
      scf.yield %a : i32
    }
    %s = arith.addi %r1, %r2 : i32
    %t = arith.addi %r3, %r4 : i32
    %u = arith.addi %s, %t : i32
    tt.store %p, %u : !tt.ptr<i32>
  }
  tt.return
}
""",
    "parallel": """
tt.func @f(%n: index, %a: index, %p: !tt.ptr<i32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = arith.muli %a, %a : index
    %y = arith.addi %x, %i : index
    %z = arith.index_cast %y : index to i32
    tt.store %p, %z : !tt.ptr<i32>
    scf.reduce
  }) : (index, index, index) -> ()
  tt.return
}
""",
    "tensor_ops": """
tt.func @f(%lb: i32, %ub: i32, %a: i32, %p: tensor<4x!tt.ptr<i32>>) {
  %c1 = arith.constant 1 : i32
  %cst = arith.constant dense<3> : tensor<4xi32>
  scf.for %i = %lb to %ub step %c1 : i32 {
    %d = arith.divsi %cst, %cst : tensor<4xi32>
    %e = arith.addi %d, %d : tensor<4xi32>
    tt.store %p, %e : tensor<4x!tt.ptr<i32>>
  }
  tt.return
}
""",
    "execute_region_stays": """
tt.func @f(%lb: i32, %ub: i32, %a: i32, %p: !tt.ptr<i32>) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %r = scf.execute_region -> i32 {
      %x = arith.addi %a, %a : i32
      scf.yield %x : i32
    }
    tt.store %p, %r : !tt.ptr<i32>
  }
  tt.return
}
""",
}
"""Hand-written modules for MLIR's LICM, by what they exercise."""

TRITON_CASES = {
    "volatile": """
tt.func @f(%lb: i32, %ub: i32, %p: !tt.ptr<f32>, %q: !tt.ptr<f32>) -> f32 {
  %c1 = arith.constant 1 : i32
  %cst = arith.constant 0.0 : f32
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %cst) -> (f32) : i32 {
    %a = tt.load %p : !tt.ptr<f32>
    %v = tt.load %q {isVolatile = true} : !tt.ptr<f32>
    %t = arith.addf %a, %v : f32
    %u = arith.addf %acc, %t : f32
    scf.yield %u : f32
  }
  tt.return %r : f32
}
""",
    "scalar": """
tt.func @f(%lb: i32, %ub: i32, %p: !tt.ptr<f32>, %m: i1, %q: !tt.ptr<f32>) -> f32 {
  %c1 = arith.constant 1 : i32
  %cst = arith.constant 0.0 : f32
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %cst) -> (f32) : i32 {
    %a = tt.load %p : !tt.ptr<f32>
    %b = tt.load %q, %m : !tt.ptr<f32>
    %s = arith.addf %a, %b : f32
    %t = arith.addf %s, %s : f32
    %u = arith.addf %acc, %t : f32
    scf.yield %u : f32
  }
  tt.return %r : f32
}
""",
    "while": """
tt.func @f(%a: i32, %n: i32, %p: !tt.ptr<i32>) -> i32 {
  %r = scf.while (%x = %a) : (i32) -> i32 {
    %l = tt.load %p : !tt.ptr<i32>
    %cond = arith.cmpi slt, %x, %l : i32
    scf.condition(%cond) %x : i32
  } do {
  ^bb0(%y: i32):
    %l2 = tt.load %p : !tt.ptr<i32>
    %next = arith.addi %y, %l2 : i32
    scf.yield %next : i32
  }
  tt.return %r : i32
}
""",
    "store": """
tt.func @f(%lb: i32, %ub: i32, %p: !tt.ptr<f32>) {
  %c1 = arith.constant 1 : i32
  scf.for %i = %lb to %ub step %c1 : i32 {
    %a = tt.load %p : !tt.ptr<f32>
    %s = arith.addf %a, %a : f32
    tt.store %p, %s : !tt.ptr<f32>
  }
  tt.return
}
""",
    "nested": """
tt.func @f(%lb: i32, %ub: i32, %p: !tt.ptr<f32>) -> f32 {
  %c1 = arith.constant 1 : i32
  %cst = arith.constant 0.0 : f32
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %cst) -> (f32) : i32 {
    %r2 = scf.for %j = %lb to %ub step %c1 iter_args(%acc2 = %acc) -> (f32) : i32 {
      %a = tt.load %p : !tt.ptr<f32>
      %u = arith.addf %acc2, %a : f32
      scf.yield %u : f32
    }
    scf.yield %r2 : f32
  }
  tt.return %r : f32
}
""",
}
"""Hand-written modules for triton-licm (scalar loads need no ``tt.splat``)."""


def _assert_replays_exactly(text: str, pipeline: str) -> None:
    """Replaying the trace gives the live IR after every step (every edit was announced)."""
    run = record(text, pipeline, options=RecordOptions(check=True))
    assert run.trace.status == "ok", run.trace.failed_steps
    replayer = Replayer(run.trace)
    for index, step in enumerate(run.trace.steps):
        replayer.advance_to(index)
        assert replayer.text() == run.tracer.snapshots[index + 1], f"step {index} ({step.name})"


def _hoisted(text: str, pipeline: str) -> list[str]:
    """The ops hoisted, by op name and result name, in step order."""
    run = record(text, pipeline)
    assert run.trace.status == "ok", run.trace.failed_steps
    hoists = [s for s in run.trace.steps if s.kind == "rewrite"]
    assert all(s.name == "hoist" and s.root is not None for s in hoists)
    names: list[str] = []
    for step in hoists:
        assert step.root is not None
        moved = step.delta["ops_moved"]
        assert step.root in moved
        text_of_root = next(o for o in step.delta.get("texts", {}).items() if o[0] == step.root)[1]
        match = re.match(r"(%\w+ = )?\"?([\w.]+)", text_of_root)
        assert match is not None
        names.append(match.group(2))
    return names


@pytest.mark.parametrize("case", sorted(CASES))
def test_licm_matches_triton(case: str) -> None:
    need(triton_missing())
    ours, triton = compare(CASES[case], "loop-invariant-code-motion")
    assert ours == triton


@pytest.mark.parametrize("case", sorted(TRITON_CASES))
def test_triton_licm_matches_triton(case: str) -> None:
    need(triton_missing())
    ours, triton = compare(TRITON_CASES[case], "triton-licm")
    assert ours == triton


@pytest.mark.parametrize("pipeline", ["loop-invariant-code-motion", "triton-licm"])
@pytest.mark.parametrize("chunk", peer_cases())
def test_peer_case_matches_triton(chunk: str, pipeline: str) -> None:
    need(triton_missing())
    parse_or_skip(chunk)
    ours, triton = compare(chunk, pipeline)
    assert ours == triton


@pytest.mark.parametrize("case", sorted(CASES))
def test_licm_replays_exactly(case: str) -> None:
    _assert_replays_exactly(CASES[case], "loop-invariant-code-motion")


@pytest.mark.parametrize("case", sorted(TRITON_CASES))
def test_triton_licm_replays_exactly(case: str) -> None:
    _assert_replays_exactly(TRITON_CASES[case], "triton-licm")


def test_each_hoist_is_a_step_in_block_order() -> None:
    # The constant, then what depends only on invariants; stores and the
    # induction variable's users stay.
    assert _hoisted(CASES["arith_chain"], "loop-invariant-code-motion") == [
        "arith.constant",
        "arith.addi",
        "arith.muli",
        "arith.subi",
    ]


def test_inner_loop_hoists_land_in_the_outer_loop_first() -> None:
    # The inner loop hoists the product and the sum with the outer induction
    # variable; the outer loop then hoists the product once more.
    assert _hoisted(CASES["nested"], "loop-invariant-code-motion") == [
        "arith.muli",
        "arith.addi",
        "arith.muli",
    ]


@pytest.mark.parametrize("version", ["3.6", "3.9"])
def test_divisions_hoist_only_when_they_cannot_trap(version: str) -> None:
    with use_triton_version(version):
        hoisted = _hoisted(CASES["divisions"], "loop-invariant-code-motion")
    # Triton 3.9's LLVM no longer speculates a remainder by an unknown divisor.
    remainders = ["arith.remsi", "arith.remui"] if version == "3.6" else []
    assert hoisted == [
        "arith.divsi",
        "arith.divui",
        *remainders,
        "arith.ceildivsi",
        "arith.floordivsi",
        *(["arith.addi"] if version == "3.6" else []),
    ]


def test_triton_licm_masks_a_hoisted_load_in_its_step() -> None:
    run = record(TRITON_CASES["scalar"], "triton-licm")
    loads = [
        s for s in run.trace.steps if s.kind == "rewrite" and "tt.load" in s.delta["texts"][s.root or ""]
    ]
    assert len(loads) == 2
    created = [[o["name"] for o in s.delta.get("ops_created", [])] for s in loads]
    # The first load had no mask: lb < ub is its mask; the second and-s it with its own.
    assert created == [["arith.cmpi"], ["arith.cmpi", "arith.andi"]]
