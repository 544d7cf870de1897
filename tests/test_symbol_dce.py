"""symbol-dce: MLIR's SymbolDCE, compared with Triton's, step by step."""

from __future__ import annotations

import re

import pytest

from passviz.pipelines import record
from passviz.recording.recorder import RecordOptions
from passviz.recording.replay import Replayer
from tests.conftest import need, parse_or_skip, peer_cases
from tests.triton_oracle import compare, triton_missing

CASES = {
    "calls": """
tt.func public @kernel(%x: i32) -> i32 {
  %0 = tt.call @used(%x) : (i32) -> i32
  tt.return %0 : i32
}
tt.func private @used(%x: i32) -> i32 {
  %0 = tt.call @chain(%x) : (i32) -> i32
  tt.return %0 : i32
}
tt.func private @chain(%x: i32) -> i32 {
  tt.return %x : i32
}
tt.func private @dead(%x: i32) -> i32 {
  %0 = tt.call @dead_callee(%x) : (i32) -> i32
  tt.return %0 : i32
}
tt.func private @dead_callee(%x: i32) -> i32 {
  tt.return %x : i32
}
tt.func private @recursive(%x: i32) -> i32 {
  %0 = tt.call @recursive(%x) : (i32) -> i32
  tt.return %0 : i32
}
tt.func @public_unused() {
  tt.return
}
""",
    "nested_visibility": """
module {
  tt.func nested @nested_top() {
    tt.return
  }
  module @public_module {
    tt.func nested @nested_fn() {
      tt.return
    }
    tt.func private @private_fn() {
      tt.return
    }
    tt.func @public_fn() {
      tt.return
    }
  }
  module @nested_module attributes {sym_visibility = "nested"} {
    tt.func nested @nested_fn() {
      tt.return
    }
  }
  module @private_module attributes {sym_visibility = "private"} {
    tt.func @inner() {
      tt.return
    }
    tt.func private @inner_private() {
      tt.return
    }
  }
}
""",
    "attribute_references": """
module attributes {tt.refs = [@by_module_attr]} {
  tt.func private @by_module_attr() {
    tt.return
  }
  tt.func private @by_op_attr() {
    tt.return
  }
  tt.func private @by_dict() {
    tt.return
  }
  tt.func private @unused() {
    tt.return
  }
  tt.func @user() {
    %c = arith.constant {ref = @by_op_attr, d = {x = [@by_dict]}} 0 : i32
    tt.return
  }
}
""",
    "call_in_loop_and_declaration": """
tt.func public @kernel(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    tt.call @in_loop() : () -> ()
  }
  tt.return
}
tt.func private @in_loop() {
  tt.return
}
tt.func private @decl() -> i32
""",
    "nothing_dead": """
tt.func public @kernel() {
  tt.call @helper() : () -> ()
  tt.return
}
tt.func private @helper() {
  tt.return
}
""",
}
"""Hand-written modules: MLIR's rules for visibility, nesting and references."""

ERASED = {
    "calls": ["dead", "dead_callee", "recursive"],
    # Post-order: the nested tables first, then the top level in block order.
    "nested_visibility": [
        "nested_fn",
        "private_fn",
        "nested_fn",
        "inner",
        "inner_private",
        "nested_top",
        "nested_module",
        "private_module",
    ],
    "attribute_references": ["by_module_attr", "unused"],
    "call_in_loop_and_declaration": ["decl"],
    "nothing_dead": [],
}
"""The symbols erased, in the order the steps erase them."""


def _erased_names(text: str) -> list[str]:
    run = record(text, "symbol-dce")
    assert run.trace.status == "ok"
    steps = [s for s in run.trace.steps if s.kind == "rewrite"]
    assert all(s.name == "erase-dead-symbol" for s in steps)
    names: list[str] = []
    for step in steps:
        assert step.root is not None and step.root in step.delta["ops_erased"]
        text_of_root = step.delta["texts"][step.root]
        match = re.search(r"@([\w.$-]+)", text_of_root)  # tt.func private @name(...)
        assert match is not None, text_of_root
        names.append(match.group(1))
    return names


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_triton(case: str) -> None:
    need(triton_missing())
    ours, triton = compare(CASES[case], "symbol-dce")
    assert ours == triton


@pytest.mark.parametrize("chunk", peer_cases())
def test_peer_case_matches_triton(chunk: str) -> None:
    # Their functions are public: nothing to erase, which passviz must agree on.
    need(triton_missing())
    parse_or_skip(chunk)
    ours, triton = compare(chunk, "symbol-dce")
    assert ours == triton


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_step_per_erased_symbol_in_mlir_order(case: str) -> None:
    assert _erased_names(CASES[case]) == ERASED[case]


@pytest.mark.parametrize("case", sorted(CASES))
def test_replays_exactly(case: str) -> None:
    run = record(CASES[case], "symbol-dce", options=RecordOptions(check=True))
    assert run.trace.status == "ok", run.trace.failed_steps
    replayer = Replayer(run.trace)
    for index, step in enumerate(run.trace.steps):
        replayer.advance_to(index)
        assert replayer.text() == run.tracer.snapshots[index + 1], f"step {index} ({step.name})"
