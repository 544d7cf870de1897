"""``cse`` across the blocks of a region, as MLIR's: an op replaces its equal in any block it dominates."""

from __future__ import annotations

import pytest
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter

from passviz.compilers.mlir.passes.cse import CommonSubexpressionElimination
from passviz.compilers.registry import make_context
from passviz.ir.dominance import dominator_tree, immediate_dominators, properly_dominates
from passviz.ir.printer import print_module
from passviz.pipelines import parse_ir, record
from tests.conftest import need
from tests.triton_oracle import compare, triton_missing

# ^bb0 branches to ^bb1 and ^bb2, which both go to ^bb3; ^bb4 is unreachable.
DIAMOND = """\
func.func @diamond(%a: i32, %b: i32, %c: i1) -> i32 {
  %0 = arith.addi %a, %b : i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %1 = arith.addi %a, %b : i32
  %2 = arith.muli %1, %a : i32
  cf.br ^bb3(%2 : i32)
^bb2:
  %3 = arith.addi %a, %b : i32
  %4 = arith.subi %3, %0 : i32
  cf.br ^bb3(%4 : i32)
^bb3(%x: i32):
  %5 = arith.muli %0, %a : i32
  %6 = arith.addi %x, %5 : i32
  %7 = arith.addi %a, %b : i32
  %8 = arith.addi %6, %7 : i32
  func.return %8 : i32
^bb4:
  %9 = arith.addi %a, %b : i32
  func.return %9 : i32
}
"""


def test_dominator_tree_of_a_diamond() -> None:
    module = parse_ir(DIAMOND)
    func = next(op for op in module.walk() if op.name == "func.func")
    region = func.regions[0]
    bb0, bb1, bb2, bb3, bb4 = region.blocks
    assert immediate_dominators(region) == {bb0: None, bb1: bb0, bb2: bb0, bb3: bb0}
    tree = dominator_tree(region)
    # Depth-first preorder of the CFG, as LLVM's tree orders children; the unreachable block is left out.
    assert list(tree) == [bb0, bb1, bb3, bb2]
    assert tree[bb0] == [bb1, bb3, bb2]
    assert bb4 not in tree


def test_dominator_tree_of_a_loop() -> None:
    text = """\
func.func @loop(%n: i32) {
  cf.br ^bb1
^bb1:
  %c = arith.cmpi slt, %n, %n : i32
  cf.cond_br %c, ^bb2, ^bb3
^bb2:
  cf.br ^bb1
^bb3:
  func.return
}
"""
    module = parse_ir(text)
    func = next(op for op in module.walk() if op.name == "func.func")
    bb0, bb1, bb2, bb3 = func.regions[0].blocks
    assert immediate_dominators(func.regions[0]) == {bb0: None, bb1: bb0, bb2: bb1, bb3: bb1}


def test_a_value_properly_dominates_the_ops_it_is_available_at() -> None:
    module = parse_ir(DIAMOND)
    func = next(op for op in module.walk() if op.name == "func.func")
    bb0, bb1, bb2, bb3, _ = func.regions[0].blocks
    zero, one = bb0.first_op, bb1.first_op
    assert zero is not None and one is not None and bb2.first_op is not None and bb3.first_op is not None
    assert properly_dominates(zero.results[0], bb3.first_op)  # bb0 dominates bb3
    assert not properly_dominates(zero.results[0], zero)  # not its own definition
    assert not properly_dominates(one.results[0], bb3.first_op)  # bb1 does not dominate bb3
    assert properly_dominates(bb3.args[0], bb3.first_op)  # a block's argument, in that block
    assert not properly_dominates(bb3.args[0], bb2.first_op)
    later = bb2.first_op.next_op
    assert later is not None and properly_dominates(bb2.first_op.results[0], later)  # earlier in the block
    assert not properly_dominates(later.results[0], bb2.first_op)


def test_a_value_properly_dominates_ops_nested_below_it_not_inside_its_own_op() -> None:
    module = parse_ir("""\
func.func @f(%c: i1, %a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = scf.if %c -> (i32) {
    %2 = arith.addi %0, %a : i32
    scf.yield %2 : i32
  } else {
    scf.yield %a : i32
  }
  %3 = arith.addi %1, %a : i32
  func.return %3 : i32
}
""")
    func = next(op for op in module.walk() if op.name == "func.func")
    first = func.regions[0].block.first_op
    if_op = next(op for op in module.walk() if op.name == "scf.if")
    inner = next(op for op in if_op.walk() if op.name == "arith.addi")
    assert first is not None and properly_dominates(first.results[0], inner)
    assert properly_dominates(func.regions[0].block.args[0], inner)
    assert not properly_dominates(if_op.results[0], inner)  # inside its own definition
    last = if_op.next_op
    assert last is not None and properly_dominates(if_op.results[0], last)
    assert not properly_dominates(inner.results[0], last)  # nested values are not visible after


def test_an_op_replaces_its_equals_in_the_blocks_it_dominates_only() -> None:
    run = record(DIAMOND, "cse")
    assert run.trace.status == "ok"
    func = next(op for op in run.module.walk() if op.name == "func.func")
    bb0, bb1, bb2, bb3, bb4 = func.regions[0].blocks
    # %0 in the entry block replaces the addi of every reachable block.
    assert [op.name for op in bb1.ops] == ["arith.muli", "cf.br"]
    assert [op.name for op in bb2.ops] == ["arith.subi", "cf.br"]
    # ^bb1's muli, seen before ^bb3's, does not dominate it: ^bb3 keeps its own.
    assert [op.name for op in bb3.ops] == ["arith.muli", "arith.addi", "arith.addi", "func.return"]
    # MLIR's CSE leaves blocks outside the dominator tree alone.
    assert [op.name for op in bb4.ops] == ["arith.addi", "func.return"]
    assert len([s for s in run.trace.steps if s.name == "cse"]) == 3


@pytest.mark.triton
def test_multi_block_cse_is_tritons() -> None:
    need(triton_missing())
    text = DIAMOND.replace("func.func", "tt.func").replace("func.return", "tt.return")
    ours, triton = compare(text, "cse")
    assert ours == triton


def test_ops_are_erased_in_the_order_cse_found_them(monkeypatch: pytest.MonkeyPatch) -> None:
    # Many duplicates, so that a hash-ordered set would erase them in another order.
    lines = "".join(f"  %v{i} = arith.addi %a, %b : i32\n" for i in range(40))
    uses = "".join(f"  %w{i} = arith.muli %v{i}, %v{i} : i32\n" for i in range(40))
    module = parse_ir("func.func @f(%a: i32, %b: i32) {\n" + lines + uses + "  func.return\n}\n")
    position = {op: index for index, op in enumerate(module.walk())}
    erased: list[int] = []
    erase_op = PatternRewriter.erase_op

    def spy(self: PatternRewriter, op: Operation, safe_erase: bool = True) -> None:
        erased.append(position[op])
        erase_op(self, op, safe_erase)

    monkeypatch.setattr(PatternRewriter, "erase_op", spy)
    CommonSubexpressionElimination().apply(make_context(), module)
    # The replaced addi as cse replaced them, then the muli left dead: program order.
    assert len(erased) == 79
    assert erased == sorted(erased)


def test_cse_prints_the_same_trace_twice() -> None:
    text = DIAMOND
    first = record(text, "cse")
    second = record(text, "cse")
    assert [(s.name, s.root, s.delta) for s in first.trace.steps] == [
        (s.name, s.root, s.delta) for s in second.trace.steps
    ]
    assert print_module(first.module) == print_module(second.module)


def test_a_cse_step_names_the_op_it_merged_and_the_value_that_took_its_place() -> None:
    """Each cse step records its merge as a replacement: the timeline reads ``cse arith.addi →
    %v2`` (not just ``cse``), and the op kept is the one its lineage says replaced the other."""
    from passviz.trace.query import lineage, op_names, step_label

    trace = record(DIAMOND, "cse").trace
    names = op_names(trace.initial["delta"] if trace.initial else None, trace.steps)
    merges = [s for s in trace.steps if s.name == "cse"]
    assert merges
    for step in merges:
        (replaced,) = step.delta.get("replaced", [])
        assert replaced["op"] == step.root
        kept = replaced["by"][0]
        (pair,) = replaced["values"]
        assert step_label(step, names) == f"cse {names[step.root]} → %{pair[1]}"
        assert names[kept] == names[step.root]
        assert any(e.action == "replaced" and e.step == step.index for e in lineage(trace.steps, step.root))
