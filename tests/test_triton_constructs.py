"""Constructs of real Triton kernels that passviz once could not read or transform.

Each is read, printed and transformed as Triton does: ``%_0`` value names
(``tl.rand``), ``scf.while`` without operands (a spin lock),
``llvm.intr.assume`` (``tl.assume``) and ``gpu.barrier`` (``tl.debug_barrier``
in Triton 3.6; 3.9 writes ``ttg.barrier`` and still reads ``gpu.barrier``).
"""

from __future__ import annotations

import pytest
from xdsl.ir import Block

from passviz.ir.printer import print_module
from passviz.pipelines import parse_ir, record
from tests.conftest import need
from tests.triton_oracle import compare, triton_missing, triton_normalize

SUFFIX_NAMES = """\
tt.func @f(%arg0: i32) -> i32 {
  %_0 = arith.constant 0 : i32
  %_0_0 = arith.constant 7 : i32
  %_1 = arith.addi %arg0, %_0_0 : i32
  tt.return %_1 : i32
}
"""

SPIN_LOCK = """\
tt.func @spin(%lock: !tt.ptr<i32>) {
  scf.while : () -> () {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %old = tt.atomic_cas acq_rel, gpu, %lock, %c0, %c1 : (!tt.ptr<i32>, i32, i32) -> i32
    %busy = arith.cmpi eq, %old, %c1 : i32
    scf.condition(%busy)
  } do {
    scf.yield
  }
  tt.return
}
"""

ASSUME = """\
tt.func @assume(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %positive = arith.cmpi sgt, %n, %c0 : i32
  llvm.intr.assume %positive : i1
  %unused = arith.cmpi slt, %n, %c0 : i32
  tt.return %n : i32
}
"""

BARRIER = """\
tt.func @barrier(%p: !tt.ptr<f32>, %x: f32) {
  tt.store %p, %x : !tt.ptr<f32>
  gpu.barrier
  %y = tt.load %p : !tt.ptr<f32>
  tt.store %p, %y : !tt.ptr<f32>
  tt.return
}
"""

TTG_BARRIER = """\
tt.func @barrier(%p: !tt.ptr<f32>, %x: f32) {
  tt.store %p, %x : !tt.ptr<f32>
  ttg.barrier all
  %y = tt.load %p : !tt.ptr<f32>
  tt.store %p, %y : !tt.ptr<f32>
  ttg.barrier local
  tt.return
}
"""
"""``tl.debug_barrier`` as Triton 3.9 writes it (3.6 cannot read it)."""

CASES = {
    "suffix_names": SUFFIX_NAMES,
    "spin_lock": SPIN_LOCK,
    "assume": ASSUME,
    "barrier": BARRIER,
    "ttg_barrier": TTG_BARRIER,
}


def test_a_value_named_only_by_a_suffix_can_be_erased() -> None:
    # xDSL kept `%_0` as the name "" and then refused to copy it onto the erased value.
    run = record(SUFFIX_NAMES, "dce")
    assert run.trace.status == "ok", [s.flag for s in run.trace.steps if s.flag]
    assert "arith.constant 0 " not in print_module(run.module)


def test_a_value_named_only_by_a_suffix_keeps_its_name() -> None:
    module = parse_ir(SUFFIX_NAMES)
    printed = print_module(module)
    assert "%_0 = arith.constant 0 : i32" in printed
    assert "%_1 = arith.addi" in printed


def test_a_block_named_only_by_a_suffix_keeps_its_name() -> None:
    block = Block()
    block.name_hint = "_3"
    assert block.name_hint == "_3"


@pytest.mark.parametrize("name", ["spin_lock", "assume", "barrier", "ttg_barrier"])
def test_prints_what_it_reads(name: str) -> None:
    text = CASES[name]
    printed = print_module(parse_ir(text))
    assert print_module(parse_ir(printed)) == printed
    body = [line.strip() for line in text.splitlines()[1:-2]]
    assert all(line in printed for line in body if line.startswith(("scf.while", "llvm", "gpu", "ttg")))


def test_scf_while_with_operands_still_prints_them() -> None:
    text = """\
func.func @count(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %go = arith.cmpi slt, %i, %n : i32
    scf.condition(%go) %i : i32
  } do {
  ^bb0(%j: i32):
    %one = arith.constant 1 : i32
    %next = arith.addi %j, %one : i32
    scf.yield %next : i32
  }
  func.return %r : i32
}
"""
    printed = print_module(parse_ir(text))
    assert "scf.while (%i = %c0) : (i32) -> i32 {" in printed


def test_scf_while_needs_as_many_initial_values_as_operand_types() -> None:
    with pytest.raises(Exception, match="0 initial values for 1 operand types"):
        parse_ir("func.func @f() {\n  scf.while : (i32) -> () {\n  } do {\n  }\n  func.return\n}\n")


def test_assume_and_barrier_are_not_dead() -> None:
    run = record(ASSUME + BARRIER, "canonicalize,cse")
    printed = print_module(run.module)
    assert "llvm.intr.assume" in printed and "gpu.barrier" in printed
    assert "%unused" not in printed


@pytest.mark.triton
@pytest.mark.parametrize("name", sorted(CASES))
def test_read_as_triton_reads_it(name: str) -> None:
    need(triton_missing())
    text = CASES[name]
    assert triton_normalize(print_module(parse_ir(text))) == triton_normalize(text)


@pytest.mark.triton
@pytest.mark.parametrize("name", sorted(CASES))
def test_canonicalize_and_cse_as_tritons(name: str) -> None:
    need(triton_missing())
    ours, triton = compare(CASES[name], "canonicalize,cse")
    assert ours == triton
