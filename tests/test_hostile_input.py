"""Malformed or extreme .mlir input: a clean, located answer in bounded time and memory."""

from __future__ import annotations

import re
import signal
import threading
import time
from pathlib import Path

import pytest
from xdsl.dialects.builtin import StringAttr

from passviz.cli import main
from passviz.ir.deep import MAX_NESTING, call_deep
from passviz.pipelines import IRParseError, parse_ir, record, record_file
from tests.fuzz import alias_bomb, nested_regions


@pytest.mark.parametrize("length", [32, 100_000])
def test_an_unterminated_string_is_rejected_at_once(length: int) -> None:
    text = '"test.op"() {a = "' + "a" * length + "\n} : () -> ()\n"
    start = time.perf_counter()
    with pytest.raises(IRParseError, match=r"^<input>:1:18: "):
        parse_ir(text)
    assert time.perf_counter() - start < 1  # xDSL 0.74's own lexer: 151 s at 32 characters


def test_strings_with_escapes_still_read() -> None:
    module = parse_ir('"test.op"() {a = "x\\"y\\0Az\\\\", b = "' + "b" * 10_000 + '"} : () -> ()\n')
    op = next(iter(module.body.block.ops))
    assert op.attributes["a"] == StringAttr('x"y\nz\\') and op.attributes["b"] == StringAttr("b" * 10_000)


# -- encodings --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (b"func.func @f() {\n  func.return\n}\n\xff\xfe\xc0\x80", "4:1"),
        ('"test.op"() {a = "\u00e9\u00e9'.encode() + b'\xc3(x"} : () -> ()\n', "1:21"),
    ],
)
def test_invalid_utf8_is_located_at_its_first_bad_byte(tmp_path: Path, data: bytes, where: str) -> None:
    source = tmp_path / "bad.mlir"
    source.write_bytes(data)
    with pytest.raises(IRParseError, match=rf"^{re.escape(str(source))}:{where}: invalid UTF-8: byte 0x"):
        record_file(source, "cse")


def test_invalid_utf8_on_the_command_line_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "bad.mlir"
    source.write_bytes(b"func.func @f() {\n  func.return\n}\n\xff")
    assert main(["trace", str(source), "-p", "cse", "-o", str(tmp_path / "t.json")]) == 1
    assert (
        capsys.readouterr().err
        == f"passviz: error: {source}:4:1: invalid UTF-8: byte 0xff (invalid start byte)\n"
    )


# -- nesting ----------------------------------------------------------------------


def test_a_thousand_nested_regions_are_traced_and_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "deep.mlir", tmp_path / "deep.json"
    source.write_text(nested_regions(1000))
    assert main(["trace", str(source), "-p", "cse", "-o", str(out)]) == 0
    assert main(["show", str(out)]) == 0
    shown = capsys.readouterr().out
    assert shown.count("scf.execute_region") == 1000 and "%c = arith.constant 1 : i32" in shown


def test_nesting_past_the_limit_is_located() -> None:
    # The function's region is the first level, each execute_region one more, a line each.
    with pytest.raises(IRParseError, match=rf"^<input>:{MAX_NESTING + 1}:\d+: nested more than 2,500 levels"):
        call_deep(lambda: parse_ir(nested_regions(MAX_NESTING + 10)))
    brackets = "func.func private @f() -> " + "tuple<" * 100_000 + "i32" + ">" * 100_000
    with pytest.raises(IRParseError, match=r"^<input>:1:\d+: nested more than 2,500 levels"):
        call_deep(lambda: parse_ir(brackets))


def test_nesting_past_the_python_stack_is_located_outside_the_command_line() -> None:
    # In a notebook, parse_ir runs on the caller's stack, with Python's usual limit.
    with pytest.raises(IRParseError, match=r"^<input>:\d+:\d+: nested too deeply for the Python stack"):
        parse_ir(nested_regions(2000))


def test_ctrl_c_reaches_the_deep_worker() -> None:
    started = threading.Event()

    def work() -> str:
        started.set()
        try:
            while True:
                time.sleep(0.01)
        except KeyboardInterrupt:
            return "interrupted"

    def press_ctrl_c() -> None:
        started.wait()
        main_thread = threading.main_thread().ident
        assert main_thread is not None
        signal.pthread_kill(main_thread, signal.SIGINT)

    # Ctrl-C as a terminal delivers it, even where this process was started with SIGINT
    # ignored (a shell's background job): then nothing would ever stop ``work``.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=press_ctrl_c).start()
        assert call_deep(work) == "interrupted"
    finally:
        signal.signal(signal.SIGINT, previous)


# -- literals -----------------------------------------------------------------------


@pytest.mark.parametrize("literal", ["9" * 5000, "-" + "9" * 4301, "0x" + "F" * 3600])
def test_huge_integers_are_located(literal: str) -> None:
    with pytest.raises(
        IRParseError, match=r"^<input>:1:2\d: integer literal too large: .* 4,300 decimal digits"
    ):
        parse_ir(f"%0 = arith.constant {literal} : i32\n")


def test_integers_up_to_the_limit_still_read() -> None:
    module = parse_ir(f'"test.op"() {{a = {"9" * 4300} : i16000, b = 0x{"F" * 3571} : i16000}} : () -> ()\n')
    op = next(iter(module.body.block.ops))
    assert str(op.attributes["a"]).startswith("99999")


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("%0 = arith.constant dense<0> : tensor<300000000xi8>\n", "300,000,000"),
        ("%0 = arith.constant dense<1.0> : tensor<100000x100000xf32>\n", "10,000,000,000"),
        ('%0 = arith.constant dense<"0x00"> : tensor<300000000xi8>\n', "300,000,000"),
    ],
)
def test_huge_dense_literals_are_refused_before_allocating(text: str, count: str) -> None:
    with pytest.raises(
        IRParseError, match=rf"^<input>:1:\d+: dense literal of {count} elements .* 1,048,576"
    ):
        parse_ir(text)


def test_dense_literals_up_to_the_limit_still_read() -> None:
    module = parse_ir("%0 = arith.constant dense<7> : tensor<1024x1024xi8>\n")
    assert "dense<7> : tensor<1024x1024xi8>" in str(module)


# -- aliases ------------------------------------------------------------------------


def test_a_type_alias_bomb_is_refused() -> None:
    with pytest.raises(
        IRParseError, match=r"^<input>:\d+:\d+: the aliases used so far stand for [\d,]+ attributes"
    ):
        parse_ir(alias_bomb(26))


def test_an_attribute_alias_bomb_is_refused() -> None:
    lines = ["#a0 = [1, 2]", *(f"#a{i} = [#a{i - 1}, #a{i - 1}]" for i in range(1, 27))]
    text = "\n".join(lines) + '\n"test.op"() {a = #a26} : () -> ()\n'
    with pytest.raises(IRParseError, match=r"^<input>:\d+:\d+: the aliases used so far stand for"):
        parse_ir(text)


def test_aliases_used_often_still_read() -> None:
    header = "#layout = {order = [0, 1], sizes = [1, 4], warps = [4, 1], threads = [8, 4]}\n"
    ops = "".join('"test.op"() {l = #layout} : () -> ()\n' for _ in range(5000))
    module = parse_ir(header + ops)
    assert len(module.body.block.ops) == 5000


# -- errors the parser and verifier raise -------------------------------------------


def test_an_attribute_that_does_not_verify_while_parsing_is_located() -> None:
    text = (
        'func.func @f() {\n  %0 = "arith.constant"() {value = 4294967296 : i32} : () -> i32\n'
        "  func.return\n}\n"
    )
    with pytest.raises(
        IRParseError, match=r"^<input>:2:36: Integer value 4294967296 is out of range for type i32"
    ):
        parse_ir(text)


def test_verifier_errors_on_the_input_name_the_op_line_and_column() -> None:
    text = "func.func @f() -> i32 {\n  %c = arith.constant 1 : i32\n    func.return\n}\n"
    with pytest.raises(
        IRParseError, match=r"^<input>:3:5: the input does not verify: 'func.return' op Expected arguments"
    ):
        record(text, "cse")


# -- validate -----------------------------------------------------------------------


def test_validate_checks_replay_against_the_recorded_texts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, out = tmp_path / "in.mlir", tmp_path / "t.json"
    source.write_text(
        "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  %1 = arith.addi %a, %a : i32\n"
        "  %2 = arith.muli %0, %1 : i32\n  func.return %2 : i32\n}\n"
    )
    assert main(["trace", str(source), "-p", "cse", "-o", str(out)]) == 0
    assert main(["validate", str(out)]) == 0
    recorded = out.read_text()
    assert recorded.count('"%v3 = arith.muli %v1, %v1 : i32"') == 1
    out.write_text(recorded.replace('"%v3 = arith.muli %v1, %v1 : i32"', '"%v3 = arith.muli %v1, %v2 : i32"'))
    capsys.readouterr()
    assert main(["validate", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"passviz: error: {out}: step 1: replay and the recorded text disagree on op o4: ")
    assert err.count("\n") == 1
