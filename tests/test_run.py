"""The CPU interpreter (``passviz.run``) runs Triton's kernels at their first and last step of
``make-ttir`` and matches numpy; ops it lacks are located errors."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from passviz.interpret.values import RunError, UnsupportedOpError
from passviz.ir.printer import print_module
from passviz.pipelines import parse_ir, record
from passviz.run.launch import Argument, launch
from tests.gpu_cases import CASES
from tests.triton_oracle import frontend_ir


@functools.cache
def first_and_last(name: str) -> tuple[str, str]:
    """A tutorial kernel's TTIR as Triton's frontend makes it, and after passviz's ``make-ttir``."""
    initial = frontend_ir(name)
    run = record(initial, "make-ttir", filename=f"{name}.ttir")
    assert run.trace.status == "ok"
    return initial, print_module(run.module)


def run_both(name: str, arguments: list[Argument], grid: tuple[int, ...]) -> list[dict[str, np.ndarray]]:
    """The outputs of the kernel's initial and final IR on the same arguments."""
    return [launch(parse_ir(text), arguments, grid).outputs for text in first_and_last(name)]


WRITTEN = {
    "vector_add": {"out"},
    "fused_softmax": {"out"},
    "matmul": {"c"},
    "layer_norm": {"Y", "Mean", "Rstd"},
}
"""The buffers each tutorial kernel writes: what ``launch`` hands back."""


@pytest.mark.triton
@pytest.mark.parametrize("name", list(CASES))
def test_tutorial_kernels_match_numpy(name: str) -> None:
    """The GPU tests' cases (masked tails, fewer programs than rows, blocks that do not divide) on the CPU."""
    case = CASES[name]()
    for outputs in run_both(name, case.arguments, case.grid):
        assert set(outputs) == WRITTEN[name]
        case.check(outputs)


REDUCE_SCAN = """
tt.func public @k(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %arg: !tt.ptr<i32>) {
  %r = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>
  %xs = tt.splat %x : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %xp = tt.addptr %xs, %r : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  %v = tt.load %xp : tensor<8x!tt.ptr<f32>>
  %s = "tt.scan"(%v) <{axis = 0 : i32, reverse = false}> ({
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tt.scan.return %c : f32
  }) : (tensor<8xf32>) -> tensor<8xf32>
  %os = tt.splat %out : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
  %op = tt.addptr %os, %r : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
  tt.store %op, %s : tensor<8x!tt.ptr<f32>>
  %m:2 = "tt.reduce"(%v, %r) <{axis = 0 : i32}> ({
  ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
    %gt = arith.cmpf ogt, %a, %b : f32
    %va = arith.select %gt, %a, %b : f32
    %vi = arith.select %gt, %ai, %bi : i32
    tt.reduce.return %va, %vi : f32, i32
  }) : (tensor<8xf32>, tensor<8xi32>) -> (f32, i32)
  %one = arith.constant 1 : i32
  %old = tt.atomic_rmw add, acq_rel, gpu, %arg, %one : (!tt.ptr<i32>, i32) -> i32
  %slot = tt.addptr %arg, %one : !tt.ptr<i32>, i32
  tt.store %slot, %m#1 : !tt.ptr<i32>
  tt.return
}
"""


def test_scan_reduce_with_two_operands_and_atomics() -> None:
    x = np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.float32)
    counter = np.array([10, 0], dtype=np.int32)
    result = launch(
        parse_ir(REDUCE_SCAN), [("x", x), ("out", np.zeros(8, np.float32)), ("counter", counter)], (3,)
    )
    np.testing.assert_array_equal(result.outputs["out"], np.cumsum(x))
    # Three programs each added one; the argmax of x is 5.
    np.testing.assert_array_equal(result.outputs["counter"], [13, 5])


def test_masked_load_uses_other_and_out_of_bounds_is_an_error() -> None:
    text = """
    tt.func public @k(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>) {
      %r = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
      %two = arith.constant dense<2> : tensor<4xi32>
      %m = arith.cmpi slt, %r, %two : tensor<4xi32>
      %other = arith.constant dense<-1.0> : tensor<4xf32>
      %xs = tt.splat %x : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
      %xp = tt.addptr %xs, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
      %v = tt.load %xp, %m, %other : tensor<4x!tt.ptr<f32>>
      %os = tt.splat %out : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
      %op = tt.addptr %os, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
      tt.store %op, %v : tensor<4x!tt.ptr<f32>>
      tt.return
    }
    """
    module = parse_ir(text)
    x = np.array([5, 6], dtype=np.float32)  # only two elements: the mask keeps the load inside
    result = launch(module, [("x", x), ("out", np.zeros(4, np.float32))], (1,))
    np.testing.assert_array_equal(result.outputs["out"], [5, 6, -1, -1])
    with pytest.raises(RunError, match=r"out-of-bounds access: element 3 of 'out', which has 3 elements"):
        launch(module, [("x", x), ("out", np.zeros(3, np.float32))], (1,))


def test_an_unsupported_op_is_a_located_error() -> None:
    text = 'tt.func public @k(%x: !tt.ptr<f32>) {\n  %c = arith.constant 1 : i64\n  %p = tt.int_to_ptr %c : i64 -> !tt.ptr<f32> loc("kernel.py":7:3)\n  tt.return\n}\n'
    with pytest.raises(
        UnsupportedOpError,
        match=r"^kernel\.py:7:3: tt\.int_to_ptr: the interpreter does not support tt\.int_to_ptr$",
    ):
        launch(parse_ir(text), [("x", np.zeros(1, np.float32))], (1,))


def test_scalar_arguments_must_fit_their_type() -> None:
    module = parse_ir("tt.func public @k(%n: i32) {\n  tt.return\n}\n")
    for value in (1.5, 2**40):
        with pytest.raises(
            RunError, match=rf"^@k: tt.func: argument 'n' is i32; {value} is no 32-bit integer$"
        ):
            launch(module, [("n", value)], (1,))
    launch(module, [("n", 2**32 - 1)], (1,))  # i32 is signless: 0xFFFFFFFF is -1


def test_cf_switch_branches_per_program() -> None:
    text = """
    tt.func public @k(%out: !tt.ptr<i32>) {
      %pid = tt.get_program_id x : i32
      %ten = arith.constant 10 : i32
      %twenty = arith.constant 20 : i32
      cf.switch %pid : i32, [
        default: ^bb1(%ten : i32),
        1: ^bb1(%twenty : i32),
        2: ^bb2
      ]
    ^bb1(%v: i32):
      %p = tt.addptr %out, %pid : !tt.ptr<i32>, i32
      tt.store %p, %v : !tt.ptr<i32>
      tt.return
    ^bb2:
      %ok = arith.constant true
      cf.assert %ok, "never fails"
      tt.return
    }
    """
    out = launch(parse_ir(text), [("out", np.full(4, -1, np.int32))], (4,)).outputs["out"]
    np.testing.assert_array_equal(out, [10, 20, -1, 10])


def test_a_failed_assert_names_the_program() -> None:
    text = """
    tt.func public @k(%n: i32) {
      %pid = tt.get_program_id x : i32
      %ok = arith.cmpi slt, %pid, %n : i32
      tt.assert %ok, "pid < n" : i1
      tt.return
    }
    """
    with pytest.raises(RunError, match=r"assertion failed in program \(2, 0, 0\): pid < n"):
        launch(parse_ir(text), [("n", 2)], (4,))


@pytest.mark.triton
def test_the_construct_kernels_match_numpy() -> None:
    n = 300
    x = np.arange(n, dtype=np.float32)
    p = 0.5
    for outputs in run_both(
        "dropout", [("x", x), ("o", np.zeros(n, np.float32)), ("n", n), ("p", p), ("seed", 123)], (3,)
    ):
        kept = outputs["o"] != 0
        np.testing.assert_array_equal(outputs["o"][kept], x[kept] / (1 - p))
        assert 0.3 < kept.mean() < 0.7
    lock = [("lock", np.zeros(1, np.int32)), ("sum", np.zeros(1, np.float32)), ("x", x[:128].copy())]
    for outputs in run_both("spin_lock", lock, (4,)):
        assert outputs["sum"][0] == 4 * x[:128].sum() and outputs["lock"][0] == 0
    for outputs in run_both(
        "assume", [("x", x), ("o", np.zeros(n, np.float32)), ("n", n), ("stride", 1)], (3,)
    ):
        np.testing.assert_array_equal(outputs["o"], x)
    for outputs in run_both("debug_barrier", [("x", x[:128].copy()), ("o", np.zeros(128, np.float32))], (1,)):
        np.testing.assert_array_equal(outputs["o"], 2 * x[:128][::-1] + x[:128])
    for outputs in run_both("early_return", [("x", x), ("o", np.zeros(n, np.float32)), ("n", n)], (5,)):
        np.testing.assert_array_equal(outputs["o"], 3 * x)


def run_body(body: str, x: np.ndarray) -> np.ndarray:
    """Run ``body`` on ``%x``, eight f32 loaded from a buffer; it makes ``%r``, eight f32 stored."""
    text = f"""
    tt.func public @k(%xp: !tt.ptr<f32>, %outp: !tt.ptr<f32>) {{
      %range = tt.make_range {{end = 8 : i32, start = 0 : i32}} : tensor<8xi32>
      %xs = tt.splat %xp : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
      %xa = tt.addptr %xs, %range : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
      %x = tt.load %xa : tensor<8x!tt.ptr<f32>>
      {body}
      %os = tt.splat %outp : !tt.ptr<f32> -> tensor<8x!tt.ptr<f32>>
      %oa = tt.addptr %os, %range : tensor<8x!tt.ptr<f32>>, tensor<8xi32>
      tt.store %oa, %r : tensor<8x!tt.ptr<f32>>
      tt.return
    }}
    """
    return launch(parse_ir(text), [("x", x), ("out", np.zeros(8, np.float32))], (1,)).outputs["out"]


TO_2X4 = "%a = tt.reshape %x : tensor<8xf32> -> tensor<2x4xf32>"
TO_4X2 = "%a = tt.reshape %x : tensor<8xf32> -> tensor<4x2xf32>"
SPLIT = f"{TO_4X2}\n %l, %h = tt.split %a : tensor<4x2xf32> -> tensor<4xf32>"
SCAN_BODY = """({
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    tt.scan.return %s : f32
  }) : (tensor<8xf32>) -> tensor<8xf32>"""

TENSOR_OPS: dict[str, tuple[str, Any]] = {
    "trans": (
        f"{TO_2X4}\n %t = tt.trans %a {{order = array<i32: 1, 0>}} : tensor<2x4xf32> -> tensor<4x2xf32>\n"
        " %r = tt.reshape %t : tensor<4x2xf32> -> tensor<8xf32>",
        lambda x: x.reshape(2, 4).T.ravel(),
    ),
    "split and join": (
        f"{SPLIT}\n %j = tt.join %h, %l : tensor<4xf32> -> tensor<4x2xf32>\n"
        " %r = tt.reshape %j : tensor<4x2xf32> -> tensor<8xf32>",
        lambda x: x.reshape(4, 2)[:, ::-1].ravel(),
    ),
    "cat": (
        f"{SPLIT}\n %r = tt.cat %h, %l : tensor<4xf32> -> tensor<8xf32>",
        lambda x: np.r_[x[1::2], x[::2]],
    ),
    "fp_to_fp": (
        "%h = tt.fp_to_fp %x, rounding = rtne : tensor<8xf32> -> tensor<8xf16>\n"
        " %r = arith.extf %h : tensor<8xf16> to tensor<8xf32>",
        lambda x: x.astype(np.float16).astype(np.float32),
    ),
    "clampf": (
        "%lo = arith.constant dense<-5.000000e-01> : tensor<8xf32>\n"
        " %hi = arith.constant dense<5.000000e-01> : tensor<8xf32>\n"
        " %r = tt.clampf %x, %lo, %hi, propagateNan = none : tensor<8xf32>",
        lambda x: np.clip(x, -0.5, 0.5),
    ),
    "libdevice": (
        '%r = tt.extern_elementwise %x {libname = "", libpath = "", pure = true, symbol = "__nv_expf"}'
        " : (tensor<8xf32>) -> tensor<8xf32>",
        np.exp,
    ),
    "bitcast": (
        "%i = tt.bitcast %x : tensor<8xf32> -> tensor<8xi32>\n"
        " %sign = arith.constant dense<-2147483648> : tensor<8xi32>\n"
        " %n = arith.xori %i, %sign : tensor<8xi32>\n"
        " %r = tt.bitcast %n : tensor<8xi32> -> tensor<8xf32>",
        np.negative,
    ),
    "precise_sqrt": (
        "%a = math.absf %x : tensor<8xf32>\n %r = tt.precise_sqrt %a : tensor<8xf32>",
        lambda x: np.sqrt(np.abs(x)),
    ),
    "reverse scan": (
        f'%r = "tt.scan"(%x) <{{axis = 0 : i32, reverse = true}}> {SCAN_BODY}',
        lambda x: np.cumsum(x[::-1])[::-1],
    ),
    "gather": (
        "%seven = arith.constant dense<7> : tensor<8xi32>\n"
        " %idx = arith.subi %seven, %range : tensor<8xi32>\n"
        " %r = tt.gather %x[%idx] {axis = 0 : i32} : (tensor<8xf32>, tensor<8xi32>) -> tensor<8xf32>",
        lambda x: x[::-1],
    ),
    "scf.if and scf.while": (
        "%c0 = arith.constant 0 : i32\n %c1 = arith.constant 1 : i32\n %c3 = arith.constant 3 : i32\n"
        " %n = scf.while (%i = %c0) : (i32) -> i32 {\n"
        "   %go = arith.cmpi slt, %i, %c3 : i32\n   scf.condition(%go) %i : i32\n"
        " } do {\n ^bb0(%j: i32):\n   %next = arith.addi %j, %c1 : i32\n   scf.yield %next : i32\n }\n"
        " %three = arith.cmpi eq, %n, %c3 : i32\n"
        " %r = scf.if %three -> (tensor<8xf32>) {\n   %d = arith.addf %x, %x : tensor<8xf32>\n"
        "   scf.yield %d : tensor<8xf32>\n } else {\n   scf.yield %x : tensor<8xf32>\n }",
        lambda x: 2 * x,
    ),
    "map_elementwise": (
        '%r = "tt.map_elementwise"(%x) <{pack = 2 : i32}> ({\n'
        " ^bb0(%g: f32, %h: f32):\n"
        "   %s = arith.subf %h, %g : f32\n"
        "   tt.map_elementwise.return %h, %s : f32, f32\n"
        " }) : (tensor<8xf32>) -> tensor<8xf32>",
        lambda x: np.stack([x[1::2], x[1::2] - x[::2]], axis=-1).ravel(),
    ),
    "integer bit ops": (
        "%i = tt.bitcast %x : tensor<8xf32> -> tensor<8xi32>\n"
        " %pop = math.ctpop %i : tensor<8xi32>\n"
        " %lz = math.ctlz %i : tensor<8xi32>\n"
        " %tz = math.cttz %i : tensor<8xi32>\n"
        " %hundred = arith.constant dense<100> : tensor<8xi32>\n"
        " %a = arith.muli %lz, %hundred : tensor<8xi32>\n"
        " %b = arith.addi %pop, %a : tensor<8xi32>\n"
        " %c = arith.muli %tz, %hundred : tensor<8xi32>\n"
        " %d = arith.muli %c, %hundred : tensor<8xi32>\n"
        " %e = arith.addi %b, %d : tensor<8xi32>\n"
        " %r = arith.sitofp %e : tensor<8xi32> to tensor<8xf32>",
        lambda x: np.array([_bits(v) for v in x.view(np.uint32).tolist()]),
    ),
}
"""Tensor ops run on eight floats: the body, and what numpy makes of the same floats."""


def _bits(value: int) -> int:
    """popcount + 100 * leading zeros + 10000 * trailing zeros of a 32-bit value."""
    trailing = 32 if value == 0 else (value & -value).bit_length() - 1
    return bin(value).count("1") + 100 * (32 - value.bit_length()) + 10000 * trailing


@pytest.mark.parametrize("name", TENSOR_OPS)
def test_tensor_ops_match_numpy(name: str) -> None:
    body, want = TENSOR_OPS[name]
    x = np.array([0.25, -1.5, 3.0, 0.1, -0.75, 2.5, 1e-3, -4.0], dtype=np.float32)
    np.testing.assert_allclose(run_body(body, x), want(x).astype(np.float32), rtol=1e-6)


def test_extended_arithmetic_gives_both_halves() -> None:
    text = """
    tt.func public @k(%out: !tt.ptr<i32>) {
      %a = arith.constant -1 : i32
      %b = arith.constant 3 : i32
      %sum, %carry = arith.addui_extended %a, %b : i32, i1
      %low, %high = arith.mului_extended %a, %b : i32
      %slow, %shigh = arith.mulsi_extended %a, %b : i32
      %wide = arith.extui %carry : i1 to i32
      %two = arith.constant 2 : i32
      %minus = arith.constant -2 : i32
      %p = math.ipowi %b, %two : i32
      %q = math.ipowi %b, %minus : i32
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c2 = arith.constant 2 : i32
      %c3 = arith.constant 3 : i32
      %c4 = arith.constant 4 : i32
      %c5 = arith.constant 5 : i32
      %c6 = arith.constant 6 : i32
      %c7 = arith.constant 7 : i32
      %p0 = tt.addptr %out, %c0 : !tt.ptr<i32>, i32
      tt.store %p0, %sum : !tt.ptr<i32>
      %p1 = tt.addptr %out, %c1 : !tt.ptr<i32>, i32
      tt.store %p1, %wide : !tt.ptr<i32>
      %p2 = tt.addptr %out, %c2 : !tt.ptr<i32>, i32
      tt.store %p2, %low : !tt.ptr<i32>
      %p3 = tt.addptr %out, %c3 : !tt.ptr<i32>, i32
      tt.store %p3, %high : !tt.ptr<i32>
      %p4 = tt.addptr %out, %c4 : !tt.ptr<i32>, i32
      tt.store %p4, %slow : !tt.ptr<i32>
      %p5 = tt.addptr %out, %c5 : !tt.ptr<i32>, i32
      tt.store %p5, %shigh : !tt.ptr<i32>
      %p6 = tt.addptr %out, %c6 : !tt.ptr<i32>, i32
      tt.store %p6, %p : !tt.ptr<i32>
      %p7 = tt.addptr %out, %c7 : !tt.ptr<i32>, i32
      tt.store %p7, %q : !tt.ptr<i32>
      tt.return
    }
    """
    out = launch(parse_ir(text), [("out", np.zeros(8, np.int32))], (1,)).outputs["out"]
    # 0xFFFFFFFF + 3 wraps to 2 with a carry; as unsigned, 0xFFFFFFFF * 3 = 2 * 2**32 + (2**32 - 3);
    # as signed, -1 * 3 = -3, whose high half is all ones.
    np.testing.assert_array_equal(out, [2, 1, -3, 2, -3, -1, 9, 0])


def test_atomics_apply_in_order_with_their_old_values() -> None:
    text = """
    tt.func public @k(%acc: !tt.ptr<f32>, %old: !tt.ptr<f32>, %umax: !tt.ptr<i32>) {
      %range = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
      %zero = arith.constant dense<0> : tensor<4xi32>
      %accs = tt.splat %acc : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
      %same = tt.addptr %accs, %zero : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
      %val = arith.sitofp %range : tensor<4xi32> to tensor<4xf32>
      %mask = arith.constant dense<[true, true, false, true]> : tensor<4xi1>
      %prev = tt.atomic_rmw fadd, acq_rel, gpu, %same, %val, %mask : (tensor<4x!tt.ptr<f32>>, tensor<4xf32>, tensor<4xi1>) -> tensor<4xf32>
      %olds = tt.splat %old : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
      %oldp = tt.addptr %olds, %range : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
      tt.store %oldp, %prev, %mask : tensor<4x!tt.ptr<f32>>
      %minus = arith.constant -1 : i32
      %u = tt.atomic_rmw umax, acq_rel, gpu, %umax, %minus : (!tt.ptr<i32>, i32) -> i32
      tt.return
    }
    """
    result = launch(
        parse_ir(text),
        [
            ("acc", np.array([10], np.float32)),
            ("old", np.zeros(4, np.float32)),
            ("umax", np.array([5], np.int32)),
        ],
        (2,),
    )
    # Two programs add 0 + 1 + 3 each; the second program saw the first one's sum.
    assert result.outputs["acc"][0] == 18
    np.testing.assert_array_equal(result.outputs["old"], [14, 14, 0, 15])
    assert result.outputs["umax"][0] == -1  # 0xFFFFFFFF is the unsigned maximum


@pytest.mark.triton
def test_tensor_descriptor_blocks_are_cut_to_the_view() -> None:
    m, n = 100, 64  # the second program's 64-row block reaches past row 100: those rows stay untouched
    a = np.random.default_rng(4).standard_normal((m, n)).astype(np.float32)
    out = np.full((m + 8, n), 7.0, dtype=np.float32)
    for outputs in run_both("tensordesc", [("a", a), ("out", out), ("M", m), ("N", n)], (2,)):
        np.testing.assert_array_equal(outputs["out"].reshape(m + 8, n)[:m], 2 * a)
        assert (outputs["out"].reshape(m + 8, n)[m:] == 7).all()


BLOCK_POINTERS = """
tt.func public @k(%src: !tt.ptr<f32>, %dst: !tt.ptr<f32>, %rows: i32, %cols: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c8 = arith.constant 8 : i32
  %one = arith.constant 1 : i64
  %pid = tt.get_program_id x : i32
  %row = arith.muli %pid, %c8 : i32
  %m = arith.extsi %rows : i32 to i64
  %n = arith.extsi %cols : i32 to i64
  %in = tt.make_tensor_ptr %src, [%m, %n], [%n, %one], [%row, %c0] {order = array<i32: 1, 0>} : !tt.ptr<tensor<8x8xf32>>
  %out = tt.make_tensor_ptr %dst, [%m, %n], [%n, %one], [%row, %c0] {order = array<i32: 1, 0>} : !tt.ptr<tensor<8x8xf32>>
  %two = arith.constant dense<2.000000e+00> : tensor<8x8xf32>
  %a, %b = scf.for %i = %c0 to %c2 step %c1 iter_args(%p = %in, %q = %out) -> (!tt.ptr<tensor<8x8xf32>>, !tt.ptr<tensor<8x8xf32>>) : i32 {
    %x = tt.load %p {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<8x8xf32>>
    %y = arith.mulf %x, %two : tensor<8x8xf32>
    tt.store %q, %y {boundaryCheck = array<i32: 0, 1>} : !tt.ptr<tensor<8x8xf32>>
    %p2 = tt.advance %p, [%c0, %c8] : !tt.ptr<tensor<8x8xf32>>
    %q2 = tt.advance %q, [%c0, %c8] : !tt.ptr<tensor<8x8xf32>>
    scf.yield %p2, %q2 : !tt.ptr<tensor<8x8xf32>>, !tt.ptr<tensor<8x8xf32>>
  }
  tt.return
}
"""


def test_block_pointers_before_and_after_rewrite_tensor_pointer_match_numpy() -> None:
    from passviz.compilers.triton.version import use_triton_version

    rows, cols = 10, 12  # 8x8 blocks: the view's edges cut the second block of each row and column
    src = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    with use_triton_version("3.6"):
        run = record(BLOCK_POINTERS, "triton-rewrite-tensor-pointer")
        assert run.trace.status == "ok"
        texts = [BLOCK_POINTERS, print_module(run.module)]
        assert "tt.make_tensor_ptr" not in texts[1]
        for text in texts:
            dst = np.full((rows + 2, cols), -1.0, dtype=np.float32)
            arguments: list[Argument] = [("src", src), ("dst", dst), ("rows", rows), ("cols", cols)]
            out = launch(parse_ir(text), arguments, (2,)).outputs["dst"].reshape(rows + 2, cols)
            np.testing.assert_array_equal(out[:rows], 2 * src)
            assert (out[rows:] == -1).all()


STRUCTURED = """
tt.func @k(%src: !tt.ptr<f32>, %dst: !tt.ptr<f32>, %off: i32) {
  %c5 = arith.constant 5 : index
  %o = arith.index_cast %off : i32 to index
  %three = arith.constant 3 : index
  %in = tts.make_tptr %src to sizes: [4, 8], strides: [1, %c5], offsets: [%o, 0], shape: [0, 0], order: [] : <f32> to tensor<4x8x!tt.ptr<f32>>
  %x = "tts.load"(%in, %three) <{operandSegmentSizes = array<i32: 1, 1, 0>, static_mask_dims = array<i64: -9223372036854775808, 8>}> : (tensor<4x8x!tt.ptr<f32>>, index) -> tensor<4x8xf32>
  %out = tts.make_tptr %dst to sizes: [4, 8], strides: [8, 1], offsets: [0, 0], shape: [0, 0], order: [] : <f32> to tensor<4x8x!tt.ptr<f32>>
  "tts.store"(%out, %x) <{static_mask_dims = array<i64>}> : (tensor<4x8x!tt.ptr<f32>>, tensor<4x8xf32>) -> ()
  tt.return
}
"""


def test_structured_pointers_read_their_tile_under_mask_dims() -> None:
    src = np.arange(64, dtype=np.float32)
    out = launch(parse_ir(STRUCTURED), [("src", src), ("dst", np.full(32, -1, np.float32)), ("off", 2)], (1,))
    rows, cols = np.meshgrid(np.arange(4), np.arange(8), indexing="ij")
    want = np.where(rows < 3, src[2 + rows + 5 * cols], 0)  # mask_dims [3, 8]: the fourth row reads zero
    np.testing.assert_array_equal(out.outputs["dst"].reshape(4, 8), want)
