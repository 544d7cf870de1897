"""sccp: MLIR's sparse conditional constant propagation, compared with Triton's."""

from __future__ import annotations

import pytest
from _pytest.mark import ParameterSet

from passviz.compilers.mlir.passes.sccp import UNKNOWN, ConstantValue, SCCPSolver
from passviz.pipelines import parse_ir, record
from passviz.recording.recorder import RecordOptions
from passviz.recording.replay import Replayer
from tests.conftest import need, parse_or_skip, peer_cases
from tests.triton_oracle import compare, triton_missing

CASES = {
    "loops": """
tt.func @f(%x: i32, %p: !tt.ptr<i32>) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  %c6 = arith.constant 6 : i32
  %r = scf.for %i = %c0 to %c0 step %c1 iter_args(%a = %c5) -> (i32) : i32 {
    scf.yield %c6 : i32
  }
  %r2 = scf.for %i = %c0 to %c5 step %c1 iter_args(%a = %c5) -> (i32) : i32 {
    tt.store %p, %a : !tt.ptr<i32>
    scf.yield %c5 : i32
  }
  tt.return %r, %r2 : i32, i32
}
""",
    "arith": """
tt.func @g(%x: i32) -> i32 {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %a = arith.addi %x, %c2 : i32
  %b = arith.muli %c2, %c3 : i32
  %c = arith.addi %b, %c3 : i32
  %d = arith.addi %a, %c : i32
  %e = arith.subi %b, %c2 : i32
  %f = arith.addi %d, %e : i32
  tt.return %f : i32
}
""",
    "cf": """
tt.func @h(%c: i1, %x: i32) -> i32 {
  %true = arith.constant true
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  cf.cond_br %true, ^bb1(%c1 : i32), ^bb2(%c2 : i32)
^bb1(%a: i32):
  %s = arith.addi %a, %c1 : i32
  cf.br ^bb3(%s : i32)
^bb2(%b: i32):
  %t = arith.addi %b, %x : i32
  cf.br ^bb3(%t : i32)
^bb3(%r: i32):
  %u = arith.muli %r, %c2 : i32
  tt.return %u : i32
}
""",
    "if": """
tt.func @i(%c: i1, %x: i32, %p: !tt.ptr<i32>) -> (i32, i32, i32) {
  %true = arith.constant true
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %r = scf.if %true -> (i32) {
    scf.yield %c1 : i32
  } else {
    scf.yield %x : i32
  }
  %s = scf.if %c -> (i32) {
    scf.yield %c2 : i32
  } else {
    %t = arith.addi %c1, %c1 : i32
    scf.yield %t : i32
  }
  %u = scf.if %c -> (i32) {
    tt.store %p, %x : !tt.ptr<i32>
    scf.yield %c2 : i32
  } else {
    scf.yield %c2 : i32
  }
  tt.return %r, %s, %u : i32, i32, i32
}
""",
    "for_iter": """
tt.func @j(%n: i32, %x: i32) -> (i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c7 = arith.constant 7 : i32
  %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c7, %b = %c0, %d = %c1) -> (i32, i32, i32) : i32 {
    %m = arith.muli %a, %c1 : i32
    %s = arith.addi %b, %c1 : i32
    %k = arith.muli %d, %i : i32
    scf.yield %m, %s, %d : i32, i32, i32
  }
  tt.return %r#0, %r#1, %r#2 : i32, i32, i32
}
""",
    "while": """
tt.func @w(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %r = scf.while (%a = %c3) : (i32) -> i32 {
    %cond = arith.cmpi slt, %a, %n : i32
    scf.condition(%cond) %a : i32
  } do {
  ^bb0(%b: i32):
    %d = arith.addi %b, %c0 : i32
    scf.yield %d : i32
  }
  tt.return %r : i32
}
""",
    "calls": """
tt.func public @kernel(%x: i32) -> (i32, i32) {
  %c4 = arith.constant 4 : i32
  %a = tt.call @helper(%c4) : (i32) -> i32
  %b = tt.call @opaque(%x) : (i32) -> i32
  tt.return %a, %b : i32, i32
}
tt.func private @helper(%y: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %z = arith.addi %y, %c1 : i32
  tt.return %z : i32
}
tt.func private @opaque(%y: i32) -> i32 {
  tt.return %y : i32
}
tt.func public @other(%x: i32) -> i32 {
  %c5 = arith.constant 5 : i32
  %a = tt.call @opaque(%c5) : (i32) -> i32
  tt.return %a : i32
}
""",
    "dead_function": """
tt.func private @unused(%y: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %z = arith.addi %c2, %c1 : i32
  tt.return %z : i32
}
tt.func public @kernel(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %z = arith.addi %x, %c1 : i32
  tt.return %z : i32
}
""",
    "floats": """
tt.func @fl(%x: f32) -> (f32, f32, f32, i1) {
  %a = arith.constant 1.5 : f32
  %b = arith.constant 2.25 : f32
  %s = arith.addf %a, %b : f32
  %m = arith.mulf %s, %x : f32
  %d = arith.divf %a, %b : f32
  %c = arith.cmpf olt, %a, %b : f32
  %n = arith.negf %a : f32
  %k = arith.addf %n, %d : f32
  tt.return %s, %m, %k, %c : f32, f32, f32, i1
}
""",
    "partial": """
tt.func @pf(%x: i32, %c: i1) -> (i32, i32, i1, i32) {
  %c0 = arith.constant 0 : i32
  %a = arith.muli %x, %c0 : i32
  %b = arith.subi %x, %x : i32
  %e = arith.cmpi eq, %x, %x : i32
  %s = arith.select %c, %x, %x : i32
  %t = arith.andi %x, %c0 : i32
  tt.return %a, %b, %e, %t : i32, i32, i1, i32
}
""",
    "cf_loop": """
tt.func @cfl(%n: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c9 = arith.constant 9 : i32
  cf.br ^head(%c0, %c9 : i32, i32)
^head(%i: i32, %k: i32):
  %cond = arith.cmpi slt, %i, %n : i32
  cf.cond_br %cond, ^body, ^exit
^body:
  %next = arith.addi %i, %c1 : i32
  %k2 = arith.addi %k, %c0 : i32
  cf.br ^head(%next, %k2 : i32, i32)
^exit:
  tt.return %i, %k : i32, i32
}
""",
    "same_successor": """
tt.func @ss(%c: i1) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  cf.cond_br %c, ^bb1(%c1 : i32), ^bb1(%c2 : i32)
^bb1(%a: i32):
  tt.return %a : i32
}
""",
    "switch": """
tt.func @sw(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  cf.switch %c2 : i32, [
    default: ^bb1(%c1 : i32),
    1: ^bb1(%c2 : i32),
    2: ^bb2(%c3 : i32)
  ]
^bb1(%a: i32):
  tt.return %a : i32
^bb2(%b: i32):
  %d = arith.addi %b, %b : i32
  tt.return %d : i32
}
""",
    "nested_regions": """
tt.func @nr(%n: i32, %c: i1, %p: !tt.ptr<i32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i = %c0 to %n step %c1 : i32 {
    %c10 = arith.constant 10 : i32
    %x = arith.addi %c10, %c1 : i32
    scf.if %c {
      %c20 = arith.constant 20 : i32
      %y = arith.addi %c20, %x : i32
      tt.store %p, %y : !tt.ptr<i32>
    }
    %z = arith.addi %x, %i : i32
    tt.store %p, %z : !tt.ptr<i32>
  }
  tt.return
}
""",
    "two_functions": """
tt.func @first() -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %a = arith.addi %c1, %c2 : i32
  tt.return %a : i32
}
tt.func @second() -> i32 {
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  %a = arith.addi %c1, %c5 : i32
  tt.return %a : i32
}
""",
    "two_callers": """
tt.func public @k1() -> i32 {
  %c4 = arith.constant 4 : i32
  %a = tt.call @helper(%c4) : (i32) -> i32
  tt.return %a : i32
}
tt.func public @k2() -> i32 {
  %c5 = arith.constant 5 : i32
  %a = tt.call @helper(%c5) : (i32) -> i32
  tt.return %a : i32
}
tt.func private @helper(%y: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %z = arith.muli %y, %c0 : i32
  tt.return %z : i32
}
""",
    "recursion": """
tt.func public @k() -> i32 {
  %c3 = arith.constant 3 : i32
  %a = tt.call @rec(%c3) : (i32) -> i32
  tt.return %a : i32
}
tt.func private @rec(%y: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %z = tt.call @rec(%y) : (i32) -> i32
  %w = arith.muli %z, %c1 : i32
  tt.return %y : i32
}
""",
    "loops_with_known_trip_counts": """
tt.func @f(%x: i32, %p: !tt.ptr<i32>) -> (i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  %c6 = arith.constant 6 : i32
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%a = %c5) -> (i32) : i32 {
    tt.store %p, %a : !tt.ptr<i32>
    scf.yield %c6 : i32
  }
  %r2 = scf.for %i = %c5 to %c0 step %c1 iter_args(%a = %c5) -> (i32) : i32 {
    tt.store %p, %a : !tt.ptr<i32>
    scf.yield %c6 : i32
  }
  %r3 = scf.for %i = %c0 to %x step %c1 iter_args(%a = %c5) -> (i32) : i32 {
    tt.store %p, %a : !tt.ptr<i32>
    scf.yield %c6 : i32
  }
  tt.return %r, %r2, %r3 : i32, i32, i32
}
""",
    "pure_execute_regions": """
tt.func @g(%x: i32) -> (i32, i32) {
  %c1 = arith.constant 1 : i32
  %r = scf.execute_region -> i32 {
    %a = arith.addi %x, %c1 : i32
    scf.yield %a : i32
  }
  %r2 = scf.execute_region -> i32 {
    %a = arith.addi %c1, %c1 : i32
    scf.yield %a : i32
  }
  %r3 = scf.execute_region -> i32 {
    %a = arith.addi %x, %c1 : i32
    scf.yield %a : i32
  }
  tt.return %r2, %r3 : i32, i32
}
""",
    "execute_region": """
tt.func @er(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %r = scf.execute_region -> i32 {
    %a = arith.addi %c1, %c1 : i32
    scf.yield %a : i32
  }
  tt.return %r : i32
}
""",
    "index_switch": """
tt.func @is(%x: i32) -> i32 {
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : i32
  %r = scf.index_switch %c1 -> i32
  case 0 {
    scf.yield %x : i32
  }
  case 1 {
    scf.yield %c5 : i32
  }
  default {
    scf.yield %x : i32
  }
  tt.return %r : i32
}
""",
    "while_false": """
tt.func @wf(%p: !tt.ptr<i32>) -> i32 {
  %false = arith.constant false
  %c3 = arith.constant 3 : i32
  %r = scf.while (%a = %c3) : (i32) -> i32 {
    scf.condition(%false) %a : i32
  } do {
  ^bb0(%b: i32):
    %d = arith.addi %b, %b : i32
    tt.store %p, %d : !tt.ptr<i32>
    scf.yield %d : i32
  }
  tt.return %r : i32
}
""",
    "dead_loop_value": """
tt.func @dl(%n: i32, %p: !tt.ptr<i32>) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c1) -> (i32) : i32 {
    %b = arith.muli %a, %a : i32
    scf.yield %b : i32
  }
  tt.return %r : i32
}
""",
    "load_erased": """
tt.func @le(%p: !tt.ptr<i32>, %x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %l = tt.load %p : !tt.ptr<i32>
  %m = arith.muli %l, %c0 : i32
  tt.return %m : i32
}
""",
    "index_and_casts": """
tt.func @ic(%x: index) -> (index, i64, f32, i32) {
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %a = arith.muli %c3, %c4 : index
  %b = arith.index_cast %a : index to i64
  %c = arith.sitofp %b : i64 to f32
  %d = arith.constant 300 : i32
  %e = arith.trunci %d : i32 to i8
  %f = arith.extsi %e : i8 to i32
  tt.return %a, %b, %c, %f : index, i64, f32, i32
}
""",
    "tt_kernel": """
tt.func public @kernel(%arg0: !tt.ptr<f32>, %n: i32) {
  %c256 = arith.constant 256 : i32
  %c0 = arith.constant 0 : i32
  %pid = tt.get_program_id x : i32
  %start = arith.muli %pid, %c256 : i32
  %range = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
  %s = tt.splat %start : i32 -> tensor<256xi32>
  %z = tt.splat %c0 : i32 -> tensor<256xi32>
  %off = arith.addi %s, %range : tensor<256xi32>
  %off2 = arith.addi %off, %z : tensor<256xi32>
  %p = tt.splat %arg0 : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
  %ptrs = tt.addptr %p, %off2 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
  %v = tt.load %ptrs : tensor<256x!tt.ptr<f32>>
  tt.store %ptrs, %v : tensor<256x!tt.ptr<f32>>
  tt.return
}
""",
    "tensor_arith": """
tt.func @t(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %c = arith.constant dense<2> : tensor<4xi32>
  %d = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %a = arith.addi %c, %d : tensor<4xi32>
  %m = arith.muli %x, %c : tensor<4xi32>
  %z = arith.subi %x, %x : tensor<4xi32>
  tt.return %a, %m, %z : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}
""",
    "splat_broadcast": """
tt.func @sb() -> (tensor<4x8xf32>, tensor<1x8xi32>) {
  %c = arith.constant 1.0 : f32
  %s = tt.splat %c : f32 -> tensor<8xf32>
  %e = tt.expand_dims %s {axis = 0 : i32} : tensor<8xf32> -> tensor<1x8xf32>
  %b = tt.broadcast %e : tensor<1x8xf32> -> tensor<4x8xf32>
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %re = tt.expand_dims %r {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  tt.return %b, %re : tensor<4x8xf32>, tensor<1x8xi32>
}
""",
    "loop_invariant_iter_arg": """
tt.func @li(%n: i32, %p: !tt.ptr<i32>) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c3, %b = %c3) -> (i32, i32) : i32 {
    %x = arith.addi %a, %c0 : i32
    %y = arith.addi %b, %c1 : i32
    tt.store %p, %x : !tt.ptr<i32>
    scf.yield %x, %y : i32, i32
  }
  tt.return %r#0, %r#1 : i32, i32
}
""",
    "if_in_loop": """
tt.func @il(%n: i32, %p: !tt.ptr<i32>) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %false = arith.constant false
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (i32) : i32 {
    %x = scf.if %false -> (i32) {
      %y = arith.addi %a, %c1 : i32
      scf.yield %y : i32
    } else {
      scf.yield %a : i32
    }
    scf.yield %x : i32
  }
  tt.return %r : i32
}
""",
    "select_and_cmp": """
tt.func @sc(%x: i32) -> (i32, i1, i1) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %t = arith.cmpi sgt, %c2, %c1 : i32
  %s = arith.select %t, %x, %c1 : i32
  %u = arith.cmpi ult, %x, %x : i32
  %v = arith.cmpi uge, %x, %x : i32
  tt.return %s, %u, %v : i32, i1, i1
}
""",
    "divisions": """
tt.func @dv(%x: i32) -> (i32, i32, i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c7 = arith.constant 7 : i32
  %cm2 = arith.constant -2 : i32
  %a = arith.divsi %c7, %cm2 : i32
  %b = arith.remsi %c7, %cm2 : i32
  %c = arith.divui %c7, %c0 : i32
  %d = arith.ceildivsi %c7, %cm2 : i32
  %e = arith.floordivsi %c7, %cm2 : i32
  tt.return %a, %b, %c, %d, %e : i32, i32, i32, i32, i32
}
""",
    "existing_duplicate_constants": """
tt.func @dup(%x: i32) -> (i32, i32) {
  %c1 = arith.constant 1 : i32
  %c1b = arith.constant 1 : i32
  %a = arith.addi %x, %c1 : i32
  %b = arith.addi %x, %c1b : i32
  tt.return %a, %b : i32, i32
}
""",
    "multi_result_region": """
tt.func @mr(%c: i1, %x: i32) -> (i32, i32) {
  %c1 = arith.constant 1 : i32
  %r:2 = scf.if %c -> (i32, i32) {
    scf.yield %c1, %x : i32, i32
  } else {
    scf.yield %c1, %c1 : i32, i32
  }
  tt.return %r#0, %r#1 : i32, i32
}
""",
    "nested_module": """
module {
  module @inner {
    tt.func public @f() -> i32 {
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %a = arith.addi %c1, %c2 : i32
      tt.return %a : i32
    }
  }
}
""",
    "parallel": """
tt.func @par(%n: index, %p: !tt.ptr<i32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : i32
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = arith.addi %c5, %c5 : i32
    tt.store %p, %x : !tt.ptr<i32>
    scf.reduce
  }) : (index, index, index) -> ()
  tt.return
}
""",
    "reduce": """
tt.func @red(%x: tensor<4xi32>) -> (i32, i32) {
  %c1 = arith.constant 1 : i32
  %r = "tt.reduce"(%x) <{axis = 0 : i32}> ({
  ^bb0(%a: i32, %b: i32):
    %s = arith.addi %a, %b : i32
    %t = arith.addi %c1, %c1 : i32
    tt.reduce.return %s : i32
  }) : (tensor<4xi32>) -> i32
  %u = arith.addi %c1, %c1 : i32
  tt.return %r, %u : i32, i32
}
""",
    "external_call": """
tt.func private @decl(i32) -> i32
tt.func public @k() -> i32 {
  %c1 = arith.constant 1 : i32
  %a = tt.call @decl(%c1) : (i32) -> i32
  tt.return %a : i32
}
""",
    "non_call_use": """
module attributes {tt.ref = @helper} {
  tt.func public @k() -> i32 {
    %c4 = arith.constant 4 : i32
    %a = tt.call @helper(%c4) : (i32) -> i32
    tt.return %a : i32
  }
  tt.func private @helper(%y: i32) -> i32 {
    %c1 = arith.constant 1 : i32
    %z = arith.addi %y, %c1 : i32
    tt.return %z : i32
  }
  tt.func private @user() {
    %c = arith.constant {tt.fn = @helper2} 0 : i32
    tt.return
  }
  tt.func private @helper2(%y: i32) -> i32 {
    tt.return %y : i32
  }
}
""",
    "poison": """
tt.func @po(%x: i32) -> i32 {
  %p = ub.poison : i32
  %a = arith.addi %p, %x : i32
  %b = arith.muli %p, %p : i32
  tt.return %b : i32
}
""",
    "multi_block_callee": """
tt.func public @k(%c: i1) -> i32 {
  %a = tt.call @two(%c) : (i1) -> i32
  tt.return %a : i32
}
tt.func private @two(%c: i1) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  tt.return %c1 : i32
^bb2:
  %d = arith.subi %c2, %c1 : i32
  tt.return %d : i32
}
""",
    "float_ops": """
tt.func @fo(%x: f32) -> (f32, f32, f32, f16, i32, f32) {
  %a = arith.constant 0.1 : f32
  %b = arith.constant 3.0 : f32
  %c = arith.mulf %a, %b : f32
  %d = arith.subf %c, %a : f32
  %e = arith.maximumf %a, %b : f32
  %f = arith.truncf %d : f32 to f16
  %g = arith.fptosi %b : f32 to i32
  %h = math.sqrt %b : f32
  tt.return %c, %d, %e, %f, %g, %h : f32, f32, f32, f16, i32, f32
}
""",
    "tensor_compare_and_trunc": """
tt.func @t(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi1>, i32) {
  %c = arith.constant dense<2> : tensor<4xi32>
  %d = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %a = arith.addi %c, %d : tensor<4xi32>
  %m = arith.muli %x, %c : tensor<4xi32>
  %z = arith.subi %x, %x : tensor<4xi32>
  %cmp = arith.cmpi slt, %c, %d : tensor<4xi32>
  %e = arith.constant 5 : i64
  %t = arith.trunci %e : i64 to i32
  tt.return %a, %cmp, %t : tensor<4xi32>, tensor<4xi1>, i32
}
""",
}
"""Hand-written modules, by what they exercise."""


def _cases() -> list[ParameterSet]:
    return [pytest.param(name, id=name) for name in sorted(CASES)]


def _solve(text: str) -> dict[str, ConstantValue]:
    """The analysis' state of every named value of ``text``."""
    module = parse_ir(text)
    solver = SCCPSolver(module)
    solver.run()
    return {value.name_hint: state for value, state in solver.values.items() if value.name_hint}


@pytest.mark.parametrize("case", _cases())
def test_matches_triton(case: str) -> None:
    need(triton_missing())
    ours, triton = compare(CASES[case], "sccp")
    assert ours == triton


@pytest.mark.parametrize("chunk", peer_cases())
def test_peer_case_matches_triton(chunk: str) -> None:
    need(triton_missing())
    parse_or_skip(chunk)
    ours, triton = compare(chunk, "sccp")
    assert ours == triton


@pytest.mark.parametrize("case", sorted(CASES))
def test_replays_exactly(case: str) -> None:
    run = record(CASES[case], "sccp", options=RecordOptions(check=True))
    assert run.trace.status == "ok", run.trace.failed_steps
    replayer = Replayer(run.trace)
    for index, step in enumerate(run.trace.steps):
        replayer.advance_to(index)
        assert replayer.text() == run.tracer.snapshots[index + 1], f"step {index} ({step.name})"


def test_loop_carried_values_meet_in_the_lattice() -> None:
    state = _solve(CASES["cf_loop"])
    # %i is 0 on entry and 1, 2, ... around the loop; %k stays 9 on both edges.
    assert state["i"] == UNKNOWN
    assert state["k"].constant is not None and state["k"].dialect == "arith"
    assert state["next"] == UNKNOWN


def test_unreachable_code_stays_uninitialized() -> None:
    state = _solve(CASES["cf"])
    # The false edge of a `cond_br true` is dead: its block is never visited.
    assert "b" not in state and "t" not in state
    assert state["a"].constant is not None


def test_interprocedural_constants_only_through_private_callees() -> None:
    state = _solve(CASES["calls"])
    # @helper is private and called once with 4; @opaque is also called by a
    # public function with another value.
    assert state["z"].constant is not None  # in @helper: 4 + 1
    assert state["b"] == UNKNOWN  # in @kernel: @opaque's result


def test_each_replacement_is_a_step_and_constants_go_to_the_entry_block() -> None:
    run = record(CASES["arith"], "sccp")
    steps = [s for s in run.trace.steps if s.kind == "rewrite"]
    names = [s.name for s in steps]
    # Two existing constants and three folded values, each replaced then erased.
    assert names == ["replace-with-constant", "erase-dead-op"] * 5
    for step in steps:
        assert step.root is not None
    created = [s.delta["ops_created"][0] for s in steps if s.delta.get("ops_created")]
    assert [o["props"]["value"] for o in created] == ["2 : i32", "3 : i32", "6 : i32", "9 : i32", "4 : i32"]
    entry_placements = [p for s in steps for p in s.delta.get("placed", []) if p["after"] is None]
    assert len(entry_placements) == 5  # each new constant goes first in the entry block
