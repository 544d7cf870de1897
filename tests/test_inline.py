"""inline: MLIR's inliner, compared with Triton's, and its trace step by step."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import StringAttr

from passviz.ir.printer import print_module
from passviz.pipelines import parse_ir, record
from passviz.recording.recorder import UNANNOUNCED, RecordOptions
from passviz.recording.replay import Replayer
from passviz.rewrite.callgraph import CallGraph, CallGraphNode, UseList
from tests.conftest import need
from tests.triton_oracle import compare, passviz_run, triton_missing, triton_normalize, triton_run

FOO = """
  tt.func private @foo(%c: i1, %a: i32, %b: i32) -> i32 {
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    tt.return %a : i32
  ^bb2:
    tt.return %b : i32
  }
"""
"""The seed's multi-block function."""

LOOP = """
  tt.func private @loop(%n: i32) -> i32 {
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    cf.br ^head(%zero : i32)
  ^head(%i: i32):
    %done = arith.cmpi sge, %i, %n : i32
    cf.cond_br %done, ^exit, ^body
  ^body:
    %next = arith.addi %i, %one : i32
    cf.br ^head(%next : i32)
  ^exit:
    tt.return %i : i32
  }
"""
"""A multi-block function that stays multi-block under canonicalize (a loop)."""

SEED = f"""module {{{FOO}
  tt.func public @caller(%c: i1, %a: i32, %n: i32) -> i32 {{
    %lb = arith.constant 0 : i32
    %st = arith.constant 1 : i32
    %r = scf.for %iv = %lb to %n step %st iter_args(%acc = %a) -> (i32) : i32 {{
      %v = tt.call @foo(%c, %acc, %iv) : (i1, i32, i32) -> i32
      scf.yield %v : i32
    }}
    tt.return %r : i32
  }}
}}"""
"""Seed 000: the multi-block @foo called from an scf.for body."""

LOOP_IN_FOR = f"""module {{{LOOP}
  tt.func public @k(%n: i32) -> i32 {{
    %lb = arith.constant 0 : i32
    %st = arith.constant 1 : i32
    %r = scf.for %iv = %lb to %n step %st iter_args(%acc = %n) -> (i32) : i32 {{
      %v = tt.call @loop(%acc) : (i32) -> i32
      %w = arith.addi %v, %iv : i32
      scf.yield %w : i32
    }}
    tt.return %r : i32
  }}
}}"""

LOOP_IN_BODY = f"""module {{{LOOP}
  tt.func public @k(%n: i32) -> i32 {{
    %r = tt.call @loop(%n) : (i32) -> i32
    %s = arith.muli %r, %n : i32
    tt.return %s : i32
  }}
}}"""

TWO_CALLS = """module {
  tt.func private @sq(%a: i32) -> i32 {
    %r = arith.muli %a, %a : i32
    tt.return %r : i32
  }
  tt.func public @caller(%x: i32) -> i32 {
    %y = tt.call @sq(%x) : (i32) -> i32
    %z = tt.call @sq(%y) : (i32) -> i32
    tt.return %z : i32
  }
}"""

RECURSION = """module {
  tt.func private @rec(%a: i32) -> i32 {
    %r = tt.call @rec(%a) : (i32) -> i32
    tt.return %r : i32
  }
  tt.func public @caller(%x: i32) -> i32 {
    %y = tt.call @rec(%x) : (i32) -> i32
    tt.return %y : i32
  }
}"""

THREE_CYCLE = """module {
  tt.func private @p(%a: i32) -> i32 {
    %r = tt.call @q(%a) : (i32) -> i32
    tt.return %r : i32
  }
  tt.func private @q(%a: i32) -> i32 {
    %r = tt.call @s(%a) : (i32) -> i32
    tt.return %r : i32
  }
  tt.func private @s(%a: i32) -> i32 {
    %r = tt.call @p(%a) : (i32) -> i32
    tt.return %r : i32
  }
  tt.func public @k(%a: i32) -> i32 {
    %r = tt.call @p(%a) : (i32) -> i32
    tt.return %r : i32
  }
}"""

FUNC_DIALECT = """module {
  func.func private @f(%c: i1, %a: i32, %b: i32) -> i32 {
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    func.return %a : i32
  ^bb2:
    %z = arith.addi %b, %b : i32
    func.return %z : i32
  }
  func.func @g(%c: i1, %a: i32, %b: i32) -> i32 {
    %v = func.call @f(%c, %a, %b) : (i1, i32, i32) -> i32
    %w = func.call @f(%c, %v, %b) : (i1, i32, i32) -> i32
    func.return %w : i32
  }
}"""

# The two modules below are Triton 3.6's frontend output (``ASTSource.make_ir``
# for sm_90, before any pass) for these kernels, so they hold tt.call and
# tt.func exactly as Triton emits them (unreachable ``ub.poison`` blocks
# included):
#
#   @triton.jit
#   def _clamp(x, lo, hi):
#       return tl.minimum(tl.maximum(x, lo), hi)
#   @triton.jit
#   def _scale(x, s):
#       if s > 0:
#           return x * s
#       return x
#   @triton.jit(noinline=True)
#   def _noinl(x):
#       return x + 1
#   @triton.jit
#   def kern(x_ptr, out_ptr, n, s, BLOCK: tl.constexpr):  # BLOCK=128
#       pid = tl.program_id(0)
#       offs = pid * BLOCK + tl.arange(0, BLOCK)
#       m = offs < n
#       x = tl.load(x_ptr + offs, mask=m)
#       for i in range(0, 4):
#           x = _clamp(x, 0.0, 1.0)
#           x = _scale(x, s)  # two returns: refused inside the scf.for
#       s = _noinl(s)
#       tl.store(out_ptr + offs, x, mask=m)
#
#   @triton.jit
#   def _sign(x):
#       if x > 0:
#           return 1.0
#       return -1.0
#   @triton.jit
#   def _add(a, b):
#       return a + b
#   @triton.jit
#   def _sq_add(a, b):
#       return _add(a * a, b)
#   @triton.jit
#   def kern2(x_ptr, out_ptr, s, BLOCK: tl.constexpr):  # BLOCK=128
#       offs = tl.arange(0, BLOCK)
#       x = tl.load(x_ptr + offs)
#       t = tl.reduce(x, 0, _add)
#       u = _sq_add(t, s)
#       v = _sign(s) * u
#       tl.store(out_ptr, v)

FRONTEND_HELPERS_IN_LOOP = """module {
  tt.func public @kern(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>, %arg2: i32, %arg3: f32) attributes {noinline = false} {
    %0 = tt.get_program_id x : i32
    %c128_i32 = arith.constant 128 : i32
    %c128_i32_0 = arith.constant 128 : i32
    %1 = arith.extsi %0 : i32 to i64
    %2 = arith.extsi %c128_i32_0 : i32 to i64
    %3 = arith.muli %1, %2 : i64
    %c2147483647_i64 = arith.constant 2147483647 : i64
    %c-2147483648_i64 = arith.constant -2147483648 : i64
    %4 = arith.cmpi sle, %3, %c2147483647_i64 : i64
    %5 = arith.cmpi sge, %3, %c-2147483648_i64 : i64
    %6 = arith.andi %4, %5 : i1
    %7 = arith.muli %0, %c128_i32_0 : i32
    %8 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %9 = tt.splat %7 : i32 -> tensor<128xi32>
    %10 = arith.extsi %9 : tensor<128xi32> to tensor<128xi64>
    %11 = arith.extsi %8 : tensor<128xi32> to tensor<128xi64>
    %12 = arith.addi %10, %11 : tensor<128xi64>
    %c2147483647_i64_1 = arith.constant 2147483647 : i64
    %c-2147483648_i64_2 = arith.constant -2147483648 : i64
    %cst = arith.constant dense<2147483647> : tensor<128xi64>
    %13 = arith.cmpi sle, %12, %cst : tensor<128xi64>
    %cst_3 = arith.constant dense<-2147483648> : tensor<128xi64>
    %14 = arith.cmpi sge, %12, %cst_3 : tensor<128xi64>
    %15 = arith.andi %13, %14 : tensor<128xi1>
    %16 = arith.addi %9, %8 : tensor<128xi32>
    %17 = tt.splat %arg2 : i32 -> tensor<128xi32>
    %18 = arith.cmpi slt, %16, %17 : tensor<128xi32>
    %19 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %20 = tt.addptr %19, %16 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %21 = tt.load %20, %18 : tensor<128x!tt.ptr<f32>>
    %c0_i32 = arith.constant 0 : i32
    %c4_i32 = arith.constant 4 : i32
    %c1_i32 = arith.constant 1 : i32
    %22 = arith.bitcast %c0_i32 : i32 to i32
    %23 = arith.bitcast %c4_i32 : i32 to i32
    %24 = arith.bitcast %c1_i32 : i32 to i32
    %25 = ub.poison : i32
    %26 = scf.for %arg4 = %22 to %23 step %24 iter_args(%arg5 = %21) -> (tensor<128xf32>)  : i32 {
      %30 = tt.call @"kernels._clamp__fp32S128S__(1,)cconstexpr_0_d_0__(2,)cconstexpr_1_d_0_"(%arg5) : (tensor<128xf32>) -> tensor<128xf32>
      %31 = tt.call @kernels._scale__fp32S128S_fp32__(%30, %arg3) : (tensor<128xf32>, f32) -> tensor<128xf32>
      scf.yield %31 : tensor<128xf32>
    }
    %27 = tt.call @kernels._noinl__fp32__(%arg3) : (f32) -> f32
    %28 = tt.splat %arg1 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %29 = tt.addptr %28, %16 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    tt.store %29, %26, %18 : tensor<128x!tt.ptr<f32>>
    tt.return
  }
  tt.func private @"kernels._clamp__fp32S128S__(1,)cconstexpr_0_d_0__(2,)cconstexpr_1_d_0_"(%arg0: tensor<128xf32>) -> tensor<128xf32> attributes {noinline = false} {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128xf32>
    %0 = arith.maxnumf %arg0, %cst_0 : tensor<128xf32>
    %cst_1 = arith.constant 1.000000e+00 : f32
    %cst_2 = arith.constant dense<1.000000e+00> : tensor<128xf32>
    %1 = arith.minnumf %0, %cst_2 : tensor<128xf32>
    tt.return %1 : tensor<128xf32>
  ^bb1:  // no predecessors
    %2 = ub.poison : tensor<128xf32>
    tt.return %2 : tensor<128xf32>
  }
  tt.func private @kernels._scale__fp32S128S_fp32__(%arg0: tensor<128xf32>, %arg1: f32) -> tensor<128xf32> attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %0 = arith.sitofp %c0_i32 : i32 to f32
    %1 = arith.cmpf ogt, %arg1, %0 : f32
    cf.cond_br %1, ^bb1, ^bb2
  ^bb1:  // pred: ^bb0
    %2 = tt.splat %arg1 : f32 -> tensor<128xf32>
    %3 = arith.mulf %arg0, %2 : tensor<128xf32>
    tt.return %3 : tensor<128xf32>
  ^bb2:  // pred: ^bb0
    cf.br ^bb4
  ^bb3:  // no predecessors
    cf.br ^bb4
  ^bb4:  // 2 preds: ^bb2, ^bb3
    tt.return %arg0 : tensor<128xf32>
  ^bb5:  // no predecessors
    %4 = ub.poison : tensor<128xf32>
    tt.return %4 : tensor<128xf32>
  }
  tt.func private @kernels._noinl__fp32__(%arg0: f32) -> f32 attributes {noinline = true} {
    %c1_i32 = arith.constant 1 : i32
    %cst = arith.constant 1.000000e+00 : f32
    %0 = arith.addf %arg0, %cst : f32
    tt.return %0 : f32
  ^bb1:  // no predecessors
    %1 = ub.poison : f32
    tt.return %1 : f32
  }
}"""

FRONTEND_REDUCE_NESTED_EARLY_RETURN = """module {
  tt.func public @kern2(%arg0: !tt.ptr<f32>, %arg1: !tt.ptr<f32>, %arg2: f32) attributes {noinline = false} {
    %0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>>
    %2 = tt.addptr %1, %0 : tensor<128x!tt.ptr<f32>>, tensor<128xi32>
    %3 = tt.load %2 : tensor<128x!tt.ptr<f32>>
    %4 = "tt.reduce"(%3) <{axis = 0 : i32}> ({
    ^bb0(%arg3: f32, %arg4: f32):
      %8 = tt.call @kernels2._add__fp32_fp32__(%arg3, %arg4) : (f32, f32) -> f32
      tt.reduce.return %8 : f32
    }) : (tensor<128xf32>) -> f32
    %5 = tt.call @kernels2._sq_add__fp32_fp32__(%4, %arg2) : (f32, f32) -> f32
    %6 = tt.call @kernels2._sign__fp32__(%arg2) : (f32) -> f32
    %7 = arith.mulf %6, %5 : f32
    tt.store %arg1, %7 : !tt.ptr<f32>
    tt.return
  }
  tt.func private @kernels2._add__fp32_fp32__(%arg0: f32, %arg1: f32) -> f32 attributes {noinline = false} {
    %0 = arith.addf %arg0, %arg1 : f32
    tt.return %0 : f32
  ^bb1:  // no predecessors
    %1 = ub.poison : f32
    tt.return %1 : f32
  }
  tt.func private @kernels2._sq_add__fp32_fp32__(%arg0: f32, %arg1: f32) -> f32 attributes {noinline = false} {
    %0 = arith.mulf %arg0, %arg0 : f32
    %1 = tt.call @kernels2._add__fp32_fp32__(%0, %arg1) : (f32, f32) -> f32
    tt.return %1 : f32
  ^bb1:  // no predecessors
    %2 = ub.poison : f32
    tt.return %2 : f32
  }
  tt.func private @kernels2._sign__fp32__(%arg0: f32) -> f32 attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %0 = arith.sitofp %c0_i32 : i32 to f32
    %1 = arith.cmpf ogt, %arg0, %0 : f32
    cf.cond_br %1, ^bb1, ^bb2
  ^bb1:  // pred: ^bb0
    %cst = arith.constant 1.000000e+00 : f32
    tt.return %cst : f32
  ^bb2:  // pred: ^bb0
    cf.br ^bb4
  ^bb3:  // no predecessors
    cf.br ^bb4
  ^bb4:  // 2 preds: ^bb2, ^bb3
    %cst_0 = arith.constant -1.000000e+00 : f32
    tt.return %cst_0 : f32
  ^bb5:  // no predecessors
    %2 = ub.poison : f32
    tt.return %2 : f32
  }
}"""

CASES: dict[str, str] = {
    "frontend_helpers_in_loop": FRONTEND_HELPERS_IN_LOOP,
    "frontend_reduce_nested_early_return": FRONTEND_REDUCE_NESTED_EARLY_RETURN,
    "seed_multi_block_in_for_refused": SEED,
    "single_block": """module {
  tt.func private @callee(%a: i32) -> i32 {
    %c = arith.constant 1 : i32
    %r = arith.addi %a, %c : i32
    tt.return %r : i32
  }
  tt.func public @caller(%x: i32) -> i32 {
    %y = tt.call @callee(%x) : (i32) -> i32
    tt.return %y : i32
  }
}""",
    "single_block_twice": TWO_CALLS,
    "single_block_no_results": """module {
  tt.func private @st(%p: !tt.ptr<i32>, %v: i32) {
    tt.store %p, %v : !tt.ptr<i32>
    tt.return
  }
  tt.func public @k(%p: !tt.ptr<i32>, %v: i32) {
    tt.call @st(%p, %v) : (!tt.ptr<i32>, i32) -> ()
    tt.call @st(%p, %v) : (!tt.ptr<i32>, i32) -> ()
    tt.return
  }
}""",
    "unused_result": """module {
  tt.func private @sq(%a: i32) -> i32 {
    %r = arith.muli %a, %a : i32
    tt.return %r : i32
  }
  tt.func public @caller(%x: i32) -> i32 {
    %y = tt.call @sq(%x) : (i32) -> i32
    tt.return %x : i32
  }
}""",
    "callee_with_for_and_constants": """module {
  tt.func private @sum(%n: i32, %p: !tt.ptr<i32>) -> i32 {
    %lb = arith.constant 0 : i32
    %st = arith.constant 1 : i32
    %r = scf.for %iv = %lb to %n step %st iter_args(%acc = %lb) -> (i32) : i32 {
      %w = arith.addi %acc, %iv : i32
      tt.store %p, %w : !tt.ptr<i32>
      scf.yield %w : i32
    }
    tt.return %r : i32
  }
  tt.func public @caller(%n: i32, %p: !tt.ptr<i32>) -> i32 {
    %c = arith.constant 1 : i32
    %y = tt.call @sum(%n, %p) : (i32, !tt.ptr<i32>) -> i32
    %z = arith.addi %y, %c : i32
    tt.return %z : i32
  }
}""",
    "constants_shared_with_caller": """module {
  tt.func private @add5(%a: i32) -> i32 {
    %c = arith.constant 5 : i32
    %r = arith.addi %a, %c : i32
    tt.return %r : i32
  }
  tt.func public @k(%a: i32, %p: !tt.ptr<i32>) {
    %c = arith.constant 5 : i32
    %x = arith.muli %a, %c : i32
    tt.store %p, %x : !tt.ptr<i32>
    %y = tt.call @add5(%x) : (i32) -> i32
    tt.store %p, %y : !tt.ptr<i32>
    %z = tt.call @add5(%y) : (i32) -> i32
    tt.store %p, %z : !tt.ptr<i32>
    tt.return
  }
}""",
    "multi_block_into_func_body": f"""module {{{FOO}
  tt.func public @caller(%c: i1, %a: i32, %b: i32) -> i32 {{
    %v = tt.call @foo(%c, %a, %b) : (i1, i32, i32) -> i32
    %w = arith.addi %v, %a : i32
    tt.return %w : i32
  }}
}}""",
    "multi_block_loop_into_func_body": LOOP_IN_BODY,
    "multi_block_loop_in_for_refused": LOOP_IN_FOR,
    "multi_block_into_multi_block_caller": f"""module {{{FOO}
  tt.func public @caller(%c: i1, %a: i32, %b: i32) -> i32 {{
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    %v = tt.call @foo(%c, %a, %b) : (i1, i32, i32) -> i32
    tt.return %v : i32
  ^bb2:
    %w = tt.call @foo(%c, %b, %a) : (i1, i32, i32) -> i32
    tt.return %w : i32
  }}
}}""",
    "multi_block_no_results": """module {
  tt.func private @st(%c: i1, %p: !tt.ptr<i32>, %v: i32) {
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    tt.store %p, %v : !tt.ptr<i32>
    tt.return
  ^bb2:
    tt.return
  }
  tt.func public @k(%c: i1, %p: !tt.ptr<i32>, %v: i32) {
    tt.call @st(%c, %p, %v) : (i1, !tt.ptr<i32>, i32) -> ()
    %w = arith.addi %v, %v : i32
    tt.store %p, %w : !tt.ptr<i32>
    tt.return
  }
}""",
    "multi_block_two_results": """module {
  tt.func private @mm(%c: i1, %a: i32, %b: f32) -> (i32, f32) {
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    tt.return %a, %b : i32, f32
  ^bb2:
    %z = arith.constant 0 : i32
    %f = arith.addf %b, %b : f32
    tt.return %z, %f : i32, f32
  }
  tt.func public @k(%c: i1, %a: i32, %b: f32, %p: !tt.ptr<f32>) -> i32 {
    %r:2 = tt.call @mm(%c, %a, %b) : (i1, i32, f32) -> (i32, f32)
    tt.store %p, %r#1 : !tt.ptr<f32>
    tt.return %r#0 : i32
  }
}""",
    "multi_block_in_execute_region": f"""module {{{FOO}
  tt.func public @caller(%c: i1, %a: i32, %b: i32) -> i32 {{
    %r = scf.execute_region -> i32 {{
      %v = tt.call @foo(%c, %a, %b) : (i1, i32, i32) -> i32
      scf.yield %v : i32
    }}
    tt.return %r : i32
  }}
}}""",
    "multi_block_in_execute_region_in_for": f"""module {{{FOO}
  tt.func public @k(%c: i1, %a: i32, %n: i32) -> i32 {{
    %lb = arith.constant 0 : i32
    %st = arith.constant 1 : i32
    %r = scf.for %iv = %lb to %n step %st iter_args(%acc = %a) -> (i32) : i32 {{
      %e = scf.execute_region -> i32 {{
        %v = tt.call @foo(%c, %acc, %iv) : (i1, i32, i32) -> i32
        scf.yield %v : i32
      }}
      scf.yield %e : i32
    }}
    tt.return %r : i32
  }}
}}""",
    "multi_block_in_if_refused": f"""module {{{FOO}
  tt.func public @caller(%c: i1, %a: i32, %b: i32) -> i32 {{
    %r = scf.if %c -> (i32) {{
      %v = tt.call @foo(%c, %a, %b) : (i1, i32, i32) -> i32
      scf.yield %v : i32
    }} else {{
      scf.yield %a : i32
    }}
    tt.return %r : i32
  }}
}}""",
    "multi_block_in_while_refused": f"""module {{{FOO}
  tt.func public @caller(%c: i1, %a: i32, %b: i32) -> i32 {{
    %r = scf.while (%x = %a) : (i32) -> i32 {{
      %v = tt.call @foo(%c, %x, %b) : (i1, i32, i32) -> i32
      %d = arith.cmpi slt, %v, %b : i32
      scf.condition(%d) %v : i32
    }} do {{
    ^bb0(%y: i32):
      scf.yield %y : i32
    }}
    tt.return %r : i32
  }}
}}""",
    "reduce_combine_calls": """module {
  tt.func private @comb(%a: f32, %b: f32) -> f32 {
    %r = arith.addf %a, %b : f32
    tt.return %r : f32
  }
  tt.func private @comb_mb(%a: f32, %b: f32) -> f32 {
    %c = arith.cmpf olt, %a, %b : f32
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    tt.return %a : f32
  ^bb2:
    tt.return %b : f32
  }
  tt.func public @k(%x: tensor<8xf32>) -> (f32, f32) {
    %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %r = tt.call @comb(%a, %b) : (f32, f32) -> f32
      tt.reduce.return %r : f32
    }) : (tensor<8xf32>) -> f32
    %m = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %r = tt.call @comb_mb(%a, %b) : (f32, f32) -> f32
      tt.reduce.return %r : f32
    }) : (tensor<8xf32>) -> f32
    tt.return %s, %m : f32, f32
  }
}""",
    "nested_calls": """module {
  tt.func private @c(%a: i32) -> i32 {
    %r = arith.muli %a, %a : i32
    tt.return %r : i32
  }
  tt.func private @b(%a: i32) -> i32 {
    %r = tt.call @c(%a) : (i32) -> i32
    %s = arith.addi %r, %a : i32
    tt.return %s : i32
  }
  tt.func public @a(%x: i32) -> i32 {
    %y = tt.call @b(%x) : (i32) -> i32
    %z = tt.call @b(%y) : (i32) -> i32
    tt.return %z : i32
  }
}""",
    "nested_call_in_if": """module {
  tt.func private @leaf(%a: i32) -> i32 {
    %r = arith.muli %a, %a : i32
    tt.return %r : i32
  }
  tt.func private @mid(%c: i1, %a: i32) -> i32 {
    %r = scf.if %c -> (i32) {
      %v = tt.call @leaf(%a) : (i32) -> i32
      scf.yield %v : i32
    } else {
      scf.yield %a : i32
    }
    tt.return %r : i32
  }
  tt.func public @top(%c: i1, %a: i32) -> i32 {
    %r = tt.call @mid(%c, %a) : (i1, i32) -> i32
    tt.return %r : i32
  }
}""",
    "multi_block_callee_with_calls": """module {
  tt.func private @leaf(%a: i32) -> i32 {
    %r = arith.muli %a, %a : i32
    tt.return %r : i32
  }
  tt.func private @mid(%c: i1, %a: i32) -> i32 {
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    %v = tt.call @leaf(%a) : (i32) -> i32
    tt.return %v : i32
  ^bb2:
    tt.return %a : i32
  }
  tt.func public @top(%c: i1, %a: i32, %n: i32) -> i32 {
    %lb = arith.constant 0 : i32
    %st = arith.constant 1 : i32
    %x = tt.call @mid(%c, %a) : (i1, i32) -> i32
    %r = scf.for %iv = %lb to %n step %st iter_args(%acc = %x) -> (i32) : i32 {
      %v = tt.call @mid(%c, %acc) : (i1, i32) -> i32
      scf.yield %v : i32
    }
    tt.return %r : i32
  }
}""",
    "diamond": """module {
  tt.func public @a(%x: i32) -> i32 {
    %1 = tt.call @b(%x) : (i32) -> i32
    %2 = tt.call @c(%1) : (i32) -> i32
    tt.return %2 : i32
  }
  tt.func private @b(%x: i32) -> i32 {
    %1 = tt.call @d(%x) : (i32) -> i32
    %c = arith.constant 3 : i32
    %2 = arith.muli %1, %c : i32
    tt.return %2 : i32
  }
  tt.func private @c(%x: i32) -> i32 {
    %1 = tt.call @d(%x) : (i32) -> i32
    %c = arith.constant 3 : i32
    %2 = arith.addi %1, %c : i32
    tt.return %2 : i32
  }
  tt.func private @d(%x: i32) -> i32 {
    %c = arith.constant 7 : i32
    %2 = arith.xori %x, %c : i32
    tt.return %2 : i32
  }
}""",
    "two_callers": """module {
  tt.func private @sq(%a: i32) -> i32 {
    %r = arith.muli %a, %a : i32
    tt.return %r : i32
  }
  tt.func public @f(%x: i32) -> i32 {
    %y = tt.call @sq(%x) : (i32) -> i32
    tt.return %y : i32
  }
  tt.func public @g(%x: i32) -> i32 {
    %y = tt.call @sq(%x) : (i32) -> i32
    tt.return %y : i32
  }
}""",
    "public_callee_kept": """module {
  tt.func public @sq(%a: i32) -> i32 {
    %r = arith.muli %a, %a : i32
    tt.return %r : i32
  }
  tt.func public @caller(%x: i32) -> i32 {
    %y = tt.call @sq(%x) : (i32) -> i32
    tt.return %y : i32
  }
}""",
    "noinline": """module {
  tt.func private @sq(%a: i32) -> i32 attributes {noinline = true} {
    %r = arith.muli %a, %a : i32
    tt.return %r : i32
  }
  tt.func public @caller(%x: i32) -> i32 {
    %y = tt.call @sq(%x) : (i32) -> i32
    tt.return %y : i32
  }
}""",
    "noinline_false": """module {
  tt.func private @sq(%a: i32) -> i32 attributes {noinline = false} {
    %r = arith.muli %a, %a : i32
    tt.return %r : i32
  }
  tt.func public @caller(%x: i32) -> i32 {
    %y = tt.call @sq(%x) : (i32) -> i32
    tt.return %y : i32
  }
}""",
    "declaration_not_inlined": """module {
  tt.func private @ext(i32) -> i32
  tt.func public @k(%a: i32) -> i32 {
    %r = tt.call @ext(%a) : (i32) -> i32
    tt.return %r : i32
  }
}""",
    "recursion": RECURSION,
    "self_recursion_public": """module {
  tt.func public @r(%a: i32) -> i32 {
    %c = arith.constant 1 : i32
    %b = arith.subi %a, %c : i32
    %r = tt.call @r(%b) : (i32) -> i32
    tt.return %r : i32
  }
}""",
    "mutual_recursion": """module {
  tt.func private @p(%a: i32) -> i32 {
    %r = tt.call @q(%a) : (i32) -> i32
    tt.return %r : i32
  }
  tt.func private @q(%a: i32) -> i32 {
    %r = tt.call @p(%a) : (i32) -> i32
    tt.return %r : i32
  }
  tt.func public @k(%a: i32) -> i32 {
    %r = tt.call @p(%a) : (i32) -> i32
    tt.return %r : i32
  }
}""",
    "three_cycle": THREE_CYCLE,
    "no_calls_still_canonicalized": """module {
  tt.func public @f(%x: i32) -> i32 {
    %c = arith.constant 0 : i32
    %r = arith.addi %x, %c : i32
    tt.return %r : i32
  }
  tt.func private @dead(%x: i32) -> i32 {
    tt.return %x : i32
  }
}""",
    "dead_private_caller_keeps_callee": """module {
  tt.func private @c(%a: i32) -> i32 {
    tt.return %a : i32
  }
  tt.func private @d(%a: i32) -> i32 {
    %r = tt.call @c(%a) : (i32) -> i32
    tt.return %r : i32
  }
  tt.func public @k(%a: i32) -> i32 {
    tt.return %a : i32
  }
}""",
    "nested_module": """module {
  module @m {
    tt.func private @f(%a: i32) -> i32 {
      %r = arith.addi %a, %a : i32
      tt.return %r : i32
    }
    tt.func public @g(%a: i32) -> i32 {
      %r = tt.call @f(%a) : (i32) -> i32
      tt.return %r : i32
    }
  }
}""",
    "referenced_by_attribute": """module attributes {tt.refs = [@keep]} {
  tt.func private @keep(%a: i32) -> i32 {
    %r = arith.addi %a, %a : i32
    tt.return %r : i32
  }
  tt.func private @unused_kept() attributes {tt.other = @keep} {
    tt.return
  }
  tt.func public @g(%a: i32) -> i32 {
    %r = tt.call @keep(%a) : (i32) -> i32
    tt.return %r : i32
  }
}""",
    "referenced_by_public_function_attribute": """module {
  tt.func private @keep(%a: i32) -> i32 {
    %r = arith.addi %a, %a : i32
    tt.return %r : i32
  }
  tt.func public @h() attributes {tt.other = @keep} {
    tt.return
  }
  tt.func public @g(%a: i32) -> i32 {
    %r = tt.call @keep(%a) : (i32) -> i32
    tt.return %r : i32
  }
}""",
    "callee_with_math_and_gpu_ops": """module {
  tt.func private @b(%a: f32) -> f32 {
    "gpu.barrier"() : () -> ()
    %r = math.exp %a : f32
    tt.return %r : f32
  }
  tt.func public @k(%a: f32) -> f32 {
    %r = tt.call @b(%a) : (f32) -> f32
    tt.return %r : f32
  }
}""",
    "callee_with_ub_poison": """module {
  tt.func private @b(%a: f32) -> f32 {
    %p = ub.poison : f32
    %r = arith.addf %a, %p : f32
    tt.return %r : f32
  }
  tt.func public @k(%a: f32) -> f32 {
    %r = tt.call @b(%a) : (f32) -> f32
    tt.return %r : f32
  }
}""",
}
"""Handwritten modules, each compared with Triton's ``inline``."""

XFAIL: dict[str, str] = {}
"""Cases whose output cannot equal Triton's yet, with the reason."""

INLINE_STEPS = ("inline body of", "split block at call", "inline blocks of", "erase call to")
"""Prefixes of the inliner's own step names."""


def _case(name: str) -> object:
    reason = XFAIL.get(name)
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", [_case(name) for name in CASES])
def test_matches_triton(name: str) -> None:
    need(triton_missing())
    ours, theirs = compare(CASES[name], "inline")
    assert ours == theirs


# -- seed 000: wrap-func-body-with-single-block makes @foo inlinable ----------


def _step_names(text: str, pipeline: str) -> list[str]:
    run = record(text, pipeline)
    assert run.trace.status == "ok", run.trace.failed_steps
    return [step.name or "" for step in run.trace.steps if step.pass_name == "inline"]


@pytest.mark.parametrize("text", [SEED, LOOP_IN_FOR], ids=["seed_foo", "loop"])
def test_seed_multi_block_callee_in_for_is_refused(text: str) -> None:
    run = record(text, "inline")
    names = [step.name or "" for step in run.trace.steps]
    assert not [n for n in names if n.startswith(INLINE_STEPS)]
    out = print_module(run.module)
    assert out.count("tt.call") == 1  # still inside the scf.for body
    assert "tt.func private @" in out  # and the callee is kept


def test_seed_inlined_after_wrapping() -> None:
    run = record(SEED, "wrap-func-body-with-single-block,inline")
    assert run.trace.status == "ok"
    out = print_module(run.module)
    assert "tt.call" not in out and "@foo" not in out
    assert "arith.select" in out  # the branches folded into the scf.for body
    names = _step_names(SEED, "wrap-func-body-with-single-block,inline")
    # canonicalize first shrinks the wrapped @foo to a single block, so its
    # body is spliced in place of the call
    assert names.index("inline body of @foo") < names.index("erase call to @foo")
    assert names[-2:] == ["erase dead function @foo", "Inline"]


def test_wrapped_loop_is_unwrapped_before_inlining() -> None:
    """A callee that stays multi-block gains nothing from the wrap: the inliner
    canonicalizes @loop first, and MLIR's ``MultiBlockExecuteInliner`` moves the
    scf.execute_region's blocks back into the function (Triton does the same)."""
    run = record(LOOP_IN_FOR, "wrap-func-body-with-single-block,inline")
    assert run.trace.status == "ok"
    out = print_module(run.module)
    assert out.count("tt.call @loop") == 1 and "scf.execute_region" not in out
    names = _step_names(LOOP_IN_FOR, "wrap-func-body-with-single-block,inline")
    assert "MultiBlockExecuteInliner" in names
    assert not [n for n in names if n.startswith(INLINE_STEPS)]


@pytest.mark.parametrize(
    "text", [SEED, LOOP_IN_FOR, FRONTEND_HELPERS_IN_LOOP], ids=["seed_foo", "loop", "frontend"]
)
def test_wrap_then_inline_matches_triton(text: str) -> None:
    """Triton has no wrap pass: its ``inline`` runs on passviz's wrapped module."""
    need(triton_missing())
    wrapped = print_module(record(text, "wrap-func-body-with-single-block").module)
    ours = passviz_run(text, "wrap-func-body-with-single-block,inline")
    assert ours == triton_run(wrapped, "inline")


# -- the trace ------------------------------------------------------------------


def test_multi_block_steps_in_order() -> None:
    run = record(LOOP_IN_BODY, "inline")
    assert run.trace.status == "ok"
    steps = [s for s in run.trace.steps if s.kind == "rewrite"]
    names = [s.name for s in steps]
    assert names[:6] == [
        "split block at call to @loop",
        "inline blocks of @loop",
        "results of @loop become block arguments",
        "returns of @loop become branches",
        "merge entry block of @loop",
        "erase call to @loop",
    ]
    assert names[-1] == "erase dead function @loop"
    split, blocks, results, returns, merge, erase = (s.delta for s in steps[:6])
    assert len(split.get("blocks_split", [])) == 1
    assert len(blocks.get("blocks_moved", [])) == 4  # @loop's body is moved: its last call
    assert len(results.get("args_added", [])) == 1
    assert [o["name"] for o in returns.get("ops_created", [])] == ["cf.br"]
    assert len(returns.get("ops_erased", [])) == 1
    assert len(merge.get("blocks_erased", [])) == 1 and len(merge.get("ops_moved", [])) == 3
    assert len(erase.get("ops_erased", [])) == 1
    # canonicalize then simplifies the caller between the two
    assert len(steps) > 7


def test_single_block_steps_clone_then_move() -> None:
    run = record(TWO_CALLS, "inline", options=RecordOptions(check=True))
    names = [s.name for s in run.trace.steps if s.kind == "rewrite"]
    assert names == [
        "inline body of @sq",
        "erase call to @sq",
        "inline body of @sq",
        "erase call to @sq",
        "erase dead function @sq",
    ]
    # the first call gets a copy, the last one the body itself
    after_first, after_second = run.tracer.snapshots[2], run.tracer.snapshots[4]
    assert "tt.func private @sq(%a: i32) -> i32 {" in after_first
    assert "tt.func private @sq(i32) -> i32\n" in after_second


@pytest.mark.parametrize("text", [RECURSION, THREE_CYCLE], ids=["recursion", "three_cycle"])
def test_recursive_calls_stay(text: str) -> None:
    out = print_module(record(text, "inline").module)
    assert "tt.call @" in out


@pytest.mark.parametrize("name", [_case(name) for name in CASES])
def test_replay_matches_live_ir(name: str) -> None:
    """Every edit lands in the step that made it, announced."""
    run = record(CASES[name], "inline", options=RecordOptions(check=True))
    assert run.trace.status == "ok"
    assert not [s for s in run.trace.steps if s.name in (UNANNOUNCED, "direct edits")]
    replayer = Replayer(run.trace)
    for index in range(len(run.trace.steps)):
        replayer.advance_to(index)
        assert replayer.text() == run.tracer.snapshots[index + 1], run.trace.steps[index].name


def test_max_iterations_option() -> None:
    """One round inlines but leaves the caller as inlined (MLIR canonicalizes the next round)."""
    text = CASES["multi_block_into_func_body"]
    one = print_module(record(text, "inline{max-iterations=1}").module)
    assert "cf.cond_br" in one and "tt.call" not in one
    assert "cf.cond_br" not in print_module(record(text, "inline").module)


def test_op_without_inliner_interface_blocks_inlining() -> None:
    """MLIR refuses a callee holding an op whose dialect has no inliner interface
    (xDSL's ``test`` dialect stands for one here)."""
    text = """module {
  tt.func private @b(%a: i32) -> i32 {
    "test.op"() : () -> ()
    tt.return %a : i32
  }
  tt.func public @k(%a: i32) -> i32 {
    %r = tt.call @b(%a) : (i32) -> i32
    tt.return %r : i32
  }
}"""
    out = print_module(record(text, "inline").module)
    assert "tt.call @b" in out and "tt.func private @b" in out


# -- func.call / func.func -------------------------------------------------------


def _as_tt(text: str) -> str:
    return (
        text.replace("func.func", "tt.func")
        .replace("func.return", "tt.return")
        .replace("func.call", "tt.call")
    )


def test_func_dialect_matches_triton_on_tt_spelling() -> None:
    """Triton does not load ``func``; the same module spelled with tt ops is the oracle."""
    need(triton_missing())
    ours = print_module(record(FUNC_DIALECT, "inline").module)
    assert "func.call" not in ours and "func.func @g" in ours
    assert triton_normalize(_as_tt(ours)) == triton_run(_as_tt(FUNC_DIALECT), "inline")


# -- the call graph --------------------------------------------------------------


def _names(nodes: list[CallGraphNode]) -> list[str]:
    names = [node.callable.properties["sym_name"] for node in nodes if not node.is_external]
    return [name.data for name in names if isinstance(name, StringAttr)]


def test_sccs_are_bottom_up_in_llvm_order() -> None:
    graph = CallGraph(parse_ir(THREE_CYCLE))
    sccs = [_names(scc) for scc in graph.sccs()]
    assert [scc for scc in sccs if scc] == [["s", "q", "p"], ["k"]]


def test_use_counts_of_private_functions() -> None:
    module = parse_ir(CASES["nested_calls"])
    graph = CallGraph(module)
    uses = UseList(module, graph)
    counts = {name: uses.counts.get(node) for node in graph.nodes.values() for name in _names([node])}
    assert counts == {"c": 1, "b": 2, "a": None}
