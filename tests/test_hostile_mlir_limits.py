"""Hostile .mlir past passviz's size limits: one located error line, in bounded time.

Affine expressions of thousands of terms, ``dense`` hex data that does not
fit its type, integer types wider than MLIR's 16,777,215 bits and location
aliases defined after their use that fan out; and ``passviz.record`` running
on the command line's deep stack.
"""

from __future__ import annotations

import contextvars
import re
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest
from xdsl.dialects.builtin import ArrayAttr, FusedLoc, NameLoc
from xdsl.ir import Attribute

import passviz
from passviz.cli import main
from passviz.ir.affine_text import MAX_AFFINE_TERMS
from passviz.ir.deep import MAX_NESTING, RECURSION_LIMIT, call_deep
from passviz.ir.literals import MAX_INTEGER_WIDTH
from passviz.ir.printer import print_module
from passviz.pipelines import IRParseError, parse_ir
from tests.fuzz import nested_regions

QUICK = 1.0
"""Seconds any refusal here may take (each took 4 s to minutes, or never ended, before)."""


def _refused(text: str, pattern: str) -> IRParseError:
    """The error ``parse_ir(text)`` raises, checked against ``pattern``, within ``QUICK`` seconds."""
    start = time.perf_counter()
    with pytest.raises(IRParseError, match=pattern) as caught:
        parse_ir(text)
    assert time.perf_counter() - start < QUICK
    return caught.value


def _cli_error(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str], *command: str) -> str:
    """The one line ``passviz trace`` (or ``command`` on the trace) prints for ``text``."""
    source, out = tmp_path / "in.mlir", tmp_path / "t.json"
    source.write_text(text)
    start = time.perf_counter()
    status = main(["trace", str(source), "-p", "canonicalize,cse", "-o", str(out)])
    if command:
        assert status == 0
        capsys.readouterr()
        status = main([*command, str(out)])
    assert status == 1 and time.perf_counter() - start < 5
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("passviz: error: ") and "Traceback" not in err
    return err.replace(str(source), "FILE").rstrip("\n")


# -- affine expressions ---------------------------------------------------------------


def _apply(expr: str) -> str:
    return (
        "func.func @f(%i: index, %j: index) -> index {\n"
        f"  %0 = affine.apply affine_map<(d0)[s0] -> ({expr})>(%i)[%j]\n"
        "  func.return %0 : index\n}\n"
    )


def _term_column(text: str, term: str, index: int) -> int:
    """The column of the ``index``-th (from 0) occurrence of ``term`` on line 2 of ``text``."""
    line = text.splitlines()[1]
    return [m.start() for m in re.finditer(re.escape(term), line)][index] + 1


@pytest.mark.parametrize("terms", [3_000, 20_000])
def test_a_sum_of_thousands_of_terms_is_refused_at_the_first_past_the_limit(terms: int) -> None:
    # 3,000 terms raised RecursionError through the Python API; 20,000 took 71 s in the CLI.
    text = _apply(" + ".join(["d0"] * terms))
    column = _term_column(text, "d0", MAX_AFFINE_TERMS + 1)  # d0 of (d0) is the first
    _refused(text, rf"^<input>:2:{column}: affine map or set of more than 256 terms; passviz reads no more$")


@pytest.mark.parametrize(
    "expr",
    [
        " + ".join(f"d0 * {i}" for i in range(3_000)),
        "(" * 5_000 + "d0" + ")" * 5_000,
        "-" * 5_000 + "d0",
        "d0" + " mod 3" * 20,  # xDSL's simplifier doubles the dividend of each mod: 2^20
        "(" + " + ".join(f"d0 * {i}" for i in range(20)) + ")" + " mod 7" * 4,
    ],
    ids=["products", "parentheses", "negations", "nested-mods", "mods-of-a-sum"],
)
def test_affine_expressions_too_big_to_simplify_are_refused(expr: str) -> None:
    _refused(_apply(expr), r"^<input>:2:\d+: affine map or set of more than 256 terms")


@pytest.mark.parametrize(
    "text",
    [
        '"test.op"() {s = affine_set<(d0) : (' + " + ".join(["d0"] * 300) + " >= 0)>} : () -> ()\n",
        '"test.op"() {s = affine_set<(d0) : (d0 >= 0' + ", d0 - 1 >= 0" * 200 + ")>} : () -> ()\n",
        "func.func @f(%m: memref<4xf32>, %i: index) -> f32 {\n"
        f"  %0 = affine.load %m[{' + '.join(['%i'] * 300)}] : memref<4xf32>\n"
        "  func.return %0 : f32\n}\n",
    ],
    ids=["set", "set-of-many-constraints", "load-indices"],
)
def test_sets_and_access_maps_have_the_same_bound(text: str) -> None:
    _refused(text, r"^<input>:\d+:\d+: affine map or set of more than 256 terms")


def test_the_python_api_and_the_command_line_refuse_a_long_affine_map(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _apply(" + ".join(f"d0 * {i}" for i in range(20_000)))
    with pytest.raises(IRParseError, match=r"^<input>:2:\d+: affine map or set of more than 256 terms"):
        passviz.record(text, "canonicalize,cse")
    assert re.fullmatch(
        r"passviz: error: FILE:2:\d+: affine map or set of more than 256 terms; passviz reads no more",
        _cli_error(tmp_path, text, capsys),
    )


AT_THE_LIMIT: dict[str, str] = {
    "sum": " + ".join(["d0"] * MAX_AFFINE_TERMS),
    "products": " + ".join(f"d0 * {i}" for i in range(MAX_AFFINE_TERMS // 2)),
    "parentheses": "(" * (MAX_AFFINE_TERMS - 1) + "d0" + ")" * (MAX_AFFINE_TERMS - 1),
    "right-nested": "d0 + (" * (MAX_AFFINE_TERMS // 2 - 1) + "d0" + ")" * (MAX_AFFINE_TERMS // 2 - 1),
    "floordivs": "d0" + " floordiv 2" * (MAX_AFFINE_TERMS // 2 - 1),
    "mods": "d0" + " mod 3" * 6,
}
"""Affine expressions at (or just under) the limit, each of a different shape."""


@pytest.mark.parametrize("expr", AT_THE_LIMIT.values(), ids=AT_THE_LIMIT.keys())
def test_affine_maps_up_to_the_limit_read_print_and_record_at_pythons_default_limit(expr: str) -> None:
    # A notebook runs at Python's default recursion limit: parse_ir and printing do not
    # go through call_deep, so the bound must keep them within it.
    assert sys.getrecursionlimit() < 2_000
    text = _apply(expr)
    start = time.perf_counter()
    assert "affine_map<(d0)[s0] -> (" in print_module(parse_ir(text))
    trace = passviz.record(text, "canonicalize,cse")
    assert trace.status == "ok" and time.perf_counter() - start < 5


def test_real_affine_maps_still_read() -> None:
    text = (
        "#map = affine_map<(d0, d1)[s0] -> (d0 * 16 + d1 floordiv 4, (d0 + s0) mod 8, -d1 ceildiv 2)>\n"
        "#set = affine_set<(d0)[s0] : (d0 - s0 >= 0, -d0 + 127 >= 0)>\n"
        '"test.op"() {m = #map, s = #set} : () -> ()\n'
    )
    printed = print_module(parse_ir(text))
    assert "d0 * 16 + d1 floordiv 4" in printed and "(d0 + s0) mod 8" in printed


# -- dense hex data -------------------------------------------------------------------


def _constant(literal: str, type: str) -> str:
    return (
        f"func.func @f() -> {type} {{\n"
        f"  %0 = arith.constant dense<{literal}> : {type}\n"
        f"  func.return %0 : {type}\n}}\n"
    )


@pytest.mark.parametrize(
    ("literal", "type"),
    [
        ('"0x000080"', "tensor<2xf32>"),  # not a whole element
        ('"0x000080"', "tensor<0xf32>"),  # printed as ValueError: Buffer length 3 not product of ...
        ('"0x0102"', "tensor<0xi32>"),
        ('"0x000000000100000002"', "tensor<2x0xi32>"),
        ('"0x0000803F0000"', "tensor<1xf32>"),
        ('"0x0000803F00000040"', "tensor<3xf32>"),  # two elements of three
        ('"0x01020304050607"', "tensor<0xf64>"),
        ('"0x0000"', "tensor<2xcomplex<f32>>"),
    ],
)
def test_hex_data_that_does_not_fit_the_type_is_refused_at_the_literal(literal: str, type: str) -> None:
    # MLIR's words (TensorLiteralParser::getHexAttr), at the string.
    _refused(
        _constant(literal, type),
        rf"^<input>:2:29: elements hex data size is invalid for provided type: {re.escape(type)}$",
    )


@pytest.mark.parametrize("literal", ['"0x0000803"', '"0000803F"', '"0xZZ"', '"0x00 80"', '"0X0000803F"'])
def test_hex_data_that_is_not_hex_is_refused_at_the_literal(literal: str) -> None:
    _refused(
        _constant(literal, "tensor<1xf32>"),
        r"^<input>:2:29: expected string containing hex digits starting with `0x`$",
    )


def test_hex_data_in_an_attribute_is_located_too() -> None:
    text = 'func.func @f() attributes {d = dense<"0x000080"> : tensor<2xf32>} {\n  func.return\n}\n'
    _refused(text, r"^<input>:1:38: elements hex data size is invalid for provided type: tensor<2xf32>$")


@pytest.mark.parametrize(
    ("literal", "type", "printed"),
    [
        ('"0x0000803F"', "tensor<0xf32>", "dense<> : tensor<0xf32>"),  # a splat of no elements, as MLIR
        ('"0x"', "tensor<0xf32>", "dense<> : tensor<0xf32>"),
        ('"0x"', "tensor<2x0xi32>", "dense<> : tensor<2x0xi32>"),
        ('"0x0000803F"', "tensor<2xf32>", "dense<1.000000e+00> : tensor<2xf32>"),
        ('"0x0000803F00000040"', "tensor<2xf32>", "dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>"),
        ('"0x0100000002000000"', "tensor<2xi32>", "dense<[1, 2]> : tensor<2xi32>"),
        ('"0xff"', "tensor<3xi8>", "dense<-1> : tensor<3xi8>"),
        ('"0x0000803F00000040"', "tensor<1xcomplex<f32>>", "dense<(1.000000e+00,2.000000e+00)>"),
    ],
)
def test_hex_data_of_one_element_or_all_still_reads(literal: str, type: str, printed: str) -> None:
    assert printed in print_module(parse_ir(_constant(literal, type)))


def test_a_zero_element_hex_constant_traces_runs_shows_and_exports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "hex0.mlir", tmp_path / "t.json"
    source.write_text(
        _constant('"0x0000803F"', "tensor<0xf32>").replace(
            "  func.return %0", "  %1 = arith.addf %0, %0 : tensor<0xf32>\n  func.return %1"
        )
    )
    assert main(["trace", str(source), "-p", "canonicalize,cse", "-o", str(out)]) == 0
    assert main(["show", str(out)]) == 0
    assert main(["export", "--html", str(tmp_path / "t.html"), str(out)]) == 0
    assert main(["run", str(out)]) == 0
    captured = capsys.readouterr()
    assert "dense<> : tensor<0xf32>" in captured.out and "Error" not in captured.err


def test_hex_data_that_does_not_fit_is_one_line_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _cli_error(tmp_path, _constant('"0x000080"', "tensor<0xf32>"), capsys)
    assert (
        err == "passviz: error: FILE:2:29: elements hex data size is invalid for provided type: tensor<0xf32>"
    )


# -- integer widths -------------------------------------------------------------------


@pytest.mark.parametrize(
    "type",
    ["i16777216", "i2000000000", "si99999999", "ui4294967296", "i18446744073709551617", "i" + "9" * 5_000],
)
def test_integer_types_wider_than_mlir_allows_are_refused_at_the_type(type: str) -> None:
    _refused(
        f"%0 = arith.constant 1 : {type}\n",
        r"^<input>:1:25: integer bitwidth is limited to 16777215 bits$",
    )
    _refused(f"func.func private @f(tensor<2x{type}>)\n", r"^<input>:1:31: integer bitwidth is limited")


@pytest.mark.parametrize("type", [f"i{MAX_INTEGER_WIDTH}", f"si{MAX_INTEGER_WIDTH}", "ui1", "i0", "i00032"])
def test_integer_types_up_to_mlirs_limit_still_read(type: str) -> None:
    parse_ir(f"func.func private @f({type}) -> {type}\n")


def test_a_wide_integer_constant_is_one_line_in_trace_and_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # i2000000000 was read, then its constant cost gigabytes (MemoryError) downstream.
    wide = (
        "func.func @f() -> i2000000000 {\n"
        "  %0 = arith.constant 1 : i2000000000\n"
        "  func.return %0 : i2000000000\n}\n"
    )
    err = _cli_error(tmp_path, wide, capsys)
    assert err == "passviz: error: FILE:1:19: integer bitwidth is limited to 16777215 bits"
    widest = wide.replace("i2000000000", f"i{MAX_INTEGER_WIDTH}")
    err = _cli_error(tmp_path, widest, capsys, "run")
    assert "values of type i16777215 are not supported by the interpreter" in err


# -- late location aliases ------------------------------------------------------------


def _late_fanout(depth: int, level: Callable[[int], str]) -> str:
    """A module using ``#l0``, then aliases ``#l{i}`` each naming ``#l{i+1}`` as ``level`` says."""
    module = "func.func @f() {\n  func.return loc(#l0)\n}\n"
    aliases = [f"#l{i} = loc({level(i + 1)})" for i in range(depth)] + [f'#l{depth} = loc("f.py":1:2)']
    return module + "\n".join(aliases) + "\n"


FANOUT: dict[str, Callable[[int], str]] = {
    "fused": lambda i: f"fused[#l{i}, #l{i}]",
    "callsite": lambda i: f"callsite(#l{i} at #l{i})",
    "named": lambda i: f'"n"(fused[#l{i}, "x"(#l{i})])',
    "fused-of-three": lambda i: f"fused[#l{i}, #l{i}, #l{i}]",
}
"""How each alias names the next, two or three times."""


@pytest.mark.parametrize("level", FANOUT.values(), ids=FANOUT.keys())
def test_late_aliases_that_fan_out_are_refused_at_the_first_use(level: Callable[[int], str]) -> None:
    # /tmp/repro/locfan.mlir and locfan2.mlir: 2^40 locations, past 40 s before.
    _refused(
        _late_fanout(40, level),
        r"^<input>:2:19: the aliases used so far stand for [\d,]+ attributes and types, "
        r"more than passviz reads in an input of this size \([\d,]+\)$",
    )


def test_late_alias_fan_out_is_one_line_on_the_command_line_and_in_the_api(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _late_fanout(40, FANOUT["fused"])
    assert _cli_error(tmp_path, text, capsys).startswith("passviz: error: FILE:2:19: the aliases used so far")
    with pytest.raises(IRParseError, match=r"^<input>:2:19: the aliases used so far stand for"):
        passviz.record(text, "canonicalize,cse")


def _return_location(text: str) -> Attribute:
    """The location of the ``func.return`` of ``_late_fanout``'s module, read from ``text``."""
    function = next(iter(parse_ir(text).body.block.ops))
    returned = function.regions[0].block.last_op
    assert returned is not None
    return returned.location


def test_a_small_late_fan_out_resolves_each_alias_once() -> None:
    location = _return_location(_late_fanout(10, FANOUT["fused"]))
    assert isinstance(location, FusedLoc)
    first, second = cast(ArrayAttr[Attribute], location.locations).data
    assert first is second  # shared, as the aliases are, not copied
    assert "f.py" in str(location)


def test_early_aliases_of_a_late_fan_out_count_every_use() -> None:
    # Each op's loc(#e) stands for the late #l0's 2^17 locations twice: counted per op.
    uses = "".join(f"  %c{i} = arith.constant 1 : i32 loc(#e)\n" for i in range(50))
    text = "#e = loc(fused[#l0, #l0])\n" + _late_fanout(16, FANOUT["fused"]).replace(
        "  func.return loc(#l0)\n", uses + "  func.return\n"
    )
    _refused(text, r"^<input>:\d+:\d+: the aliases used so far stand for")


def test_a_late_alias_chain_deeper_than_the_nesting_limit_is_refused() -> None:
    depth = MAX_NESTING + 100
    text = _late_fanout(depth, lambda i: f'"n"(#l{i})')
    start = time.perf_counter()
    with pytest.raises(IRParseError, match=r"^<input>:\d+:\d+: nested more than 2,500 levels"):
        call_deep(lambda: parse_ir(text))
    assert time.perf_counter() - start < 5


def test_a_late_alias_chain_within_the_limit_reads() -> None:
    location = call_deep(lambda: _return_location(_late_fanout(1_000, lambda i: f'"n"(#l{i})')))
    assert isinstance(location, NameLoc)


def test_a_dictionary_alias_bomb_is_refused() -> None:
    lines = ['#a0 = {x = "leaf"}'] + [f"#a{i} = {{p = #a{i - 1}, q = #a{i - 1}}}" for i in range(1, 40)]
    text = "\n".join(lines) + "\nfunc.func @f() attributes {x = #a39} {\n  func.return\n}\n"
    _refused(text, r"^<input>:\d+:\d+: the aliases used so far stand for")


# -- the Python API on the deep stack -------------------------------------------------


def test_record_reads_a_thousand_nested_regions_at_pythons_default_limit() -> None:
    limit = sys.getrecursionlimit()
    trace = passviz.record(nested_regions(1000), "cse")
    assert trace.status == "ok" and sys.getrecursionlimit() == limit


def test_call_deep_runs_in_the_callers_context() -> None:
    chosen: contextvars.ContextVar[str] = contextvars.ContextVar("chosen", default="none")
    token = chosen.set("mine")
    try:
        assert call_deep(chosen.get) == "mine"
    finally:
        chosen.reset(token)


def test_concurrent_deep_calls_keep_the_limit_until_the_last_ends() -> None:
    before = sys.getrecursionlimit()
    both_running = threading.Barrier(2)
    first_done = threading.Event()
    seen: list[int] = []

    def first() -> None:
        call_deep(both_running.wait)
        first_done.set()

    def second() -> None:
        def work() -> int:
            both_running.wait()
            first_done.wait(10)
            return sys.getrecursionlimit()

        seen.append(call_deep(work))

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert first_done.is_set() and seen == [RECURSION_LIMIT]
    assert sys.getrecursionlimit() == before


WIDE_ARITH = """\
func.func @f() -> i16777215 {
  %0 = arith.constant -1 : i16777215
  %c = arith.constant 3 : i16777215
  %1 = arith.muli %0, %0 : i16777215
  %2 = arith.addi %1, %c : i16777215
  %3 = arith.divsi %2, %c : i16777215
  func.return %3 : i16777215
}
"""
"""Arithmetic on MLIR's widest integers: folding it used to run for minutes."""


def test_the_widest_integers_canonicalize_in_bounded_time(tmp_path: Path) -> None:
    from passviz.rewrite.folders import MAX_FOLD_WIDTH

    source = tmp_path / "wide.mlir"
    source.write_text(WIDE_ARITH)
    began = time.perf_counter()
    assert main(["trace", str(source), "-p", "canonicalize,cse", "-o", str(tmp_path / "t.json")]) == 0
    assert time.perf_counter() - began < 10
    assert MAX_FOLD_WIDTH < 16_777_215  # such constants are left unfolded, by design


def test_apint_wraps_as_modulo_does() -> None:
    from passviz.rewrite.matchers import APInt

    for value, width in [(-1, 8), (300, 8), (-129, 8), (5, 1), (-(1 << 70), 64), (1 << 64, 64)]:
        assert APInt.of(value, width).bits == value % (1 << width)
