"""passviz behaves as Triton 3.6 or 3.9: syntax, folds and combine follow the chosen version."""

from __future__ import annotations

from pathlib import Path

import pytest

from passviz.cli import main
from passviz.compilers.triton.version import (
    installed_triton_version,
    parse_triton_version,
    triton_version,
    use_triton_version,
)
from passviz.ir.printer import print_module
from passviz.pipelines import load_trace, parse_ir, record

SPLIT_JOIN_BITCAST = """\
tt.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>, %x: tensor<4x2xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4x2xf32>, tensor<4xi32>) {
  %j = tt.join %a, %b : tensor<4xf32> -> tensor<4x2xf32>
  %l, %r = tt.split %j : tensor<4x2xf32> -> tensor<4xf32>
  %d = arith.subf %l, %r : tensor<4xf32>
  %s0, %s1 = tt.split %x : tensor<4x2xf32> -> tensor<4xf32>
  %jj = tt.join %s0, %s1 : tensor<4xf32> -> tensor<4x2xf32>
  %c = tt.bitcast %i : tensor<4xi32> -> tensor<4xi32>
  tt.return %d, %jj, %c : tensor<4xf32>, tensor<4x2xf32>, tensor<4xi32>
}
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [("3.6.0", (3, 6)), ("3.7.1", (3, 6)), ("3.9.0", (3, 9)), ("4.0", (3, 9)), ("2.3", (3, 6))],
)
def test_a_version_behaves_as_the_newest_modelled_one_not_newer(text: str, expected: tuple[int, int]) -> None:
    assert parse_triton_version(text) == expected


def test_an_unreadable_version_is_refused() -> None:
    with pytest.raises(ValueError, match="not a Triton version"):
        parse_triton_version("three")


def test_the_chosen_version_holds_inside_the_block_only() -> None:
    with use_triton_version("3.9"):
        assert triton_version() == (3, 9)
        with use_triton_version((3, 6)):
            assert triton_version() == (3, 6)
        assert triton_version() == (3, 9)
    assert triton_version() == installed_triton_version()


def test_tensordesc_reads_and_prints_as_the_chosen_triton() -> None:
    old, new = "!tt.tensordesc<tensor<64x64xf32>>", "!tt.tensordesc<64x64xf32>"
    with use_triton_version("3.9"):
        for spelling in (old, new):
            module = parse_ir(f"tt.func @f(%d: {spelling}) {{\n  tt.return\n}}\n")
            assert new in print_module(module)
    with use_triton_version("3.6"):
        assert old in print_module(module)
        # As Triton 3.6, which cannot read the new spelling.
        with pytest.raises(Exception, match="expected"):
            parse_ir(f"tt.func @f(%d: {new}) {{\n  tt.return\n}}\n")


def test_cache_policy_and_ttg_barrier_print_as_read() -> None:
    text = """\
tt.func @f(%p: !tt.ptr<f32>) {
  %x = tt.load %p {cachePolicy = #tt.cache_policy<cache_modifier = cg, eviction_policy = evict_last>} : !tt.ptr<f32>
  ttg.barrier local|global_write
  ttg.barrier all
  tt.store %p, %x {cachePolicy = #tt.cache_policy<cache_modifier = cs, eviction_policy = evict_normal>} : !tt.ptr<f32>
  tt.return
}
"""
    printed = print_module(parse_ir(text))
    for line in text.splitlines()[1:5]:
        assert line.strip() in printed


def test_a_bad_cache_policy_is_a_located_error() -> None:
    text = "tt.func @f(%p: !tt.ptr<f32>) {\n  %x = tt.load %p {cachePolicy = #tt.cache_policy<cache_modifier = xx, eviction_policy = evict_last>} : !tt.ptr<f32>\n  tt.return\n}\n"
    with pytest.raises(Exception, match="xx is not a cache_modifier"):
        parse_ir(text)


@pytest.mark.parametrize(("version", "folds"), [("3.6", False), ("3.9", True)])
def test_split_join_and_identity_bitcast_fold_in_3_9_only(version: str, folds: bool) -> None:
    with use_triton_version(version):
        run = record(SPLIT_JOIN_BITCAST, "canonicalize")
        printed = print_module(run.module)
    for name in ("tt.split", "tt.join", "tt.bitcast"):
        assert (name in printed) != folds, printed


TENSORDESC_ARG = """\
tt.func @f(%d: !tt.tensordesc<tensor<64x64xf32>>) {
  tt.return
}
"""


SPELLINGS = ("!tt.tensordesc<tensor<64x64xf32>>", "!tt.tensordesc<64x64xf32>")
"""How Triton 3.6 and 3.9 spell one tensor descriptor type."""


@pytest.mark.parametrize(
    ("version", "rewrites_block_pointers", "spelling"),
    [("3.6", True, SPELLINGS[0]), ("3.9", False, SPELLINGS[1])],
)
def test_trace_make_ttir_as_the_chosen_triton(
    tmp_path: Path, version: str, rewrites_block_pointers: bool, spelling: str
) -> None:
    source = tmp_path / "k.mlir"
    source.write_text(TENSORDESC_ARG)
    output = tmp_path / "k.json"
    argv = ["trace", str(source), "-p", "make-ttir", "--triton-version", version, "-o", str(output)]
    assert main(argv) == 0
    trace = load_trace(str(output))
    passes = {step.pass_name for step in trace.steps if step.pass_name}
    assert ("triton-rewrite-tensor-pointer" in passes) == rewrites_block_pointers
    assert "triton-combine" in passes
    # The recorded op texts are spelled as the chosen Triton spells them.
    recorded = output.read_text()
    assert spelling in recorded
    assert not any(other in recorded for other in SPELLINGS if other != spelling)


def test_trace_refuses_an_unreadable_triton_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "k.mlir"
    source.write_text(TENSORDESC_ARG)
    with pytest.raises(SystemExit) as exit:
        main(["trace", str(source), "-p", "make-ttir", "--triton-version", "three"])
    assert exit.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--triton-version" in error and "not a Triton version: 'three'" in error


def test_pointer_address_spaces_read_and_print_as_the_chosen_triton() -> None:
    text = 'tt.func @f(%c: !tt.ptr<f32, "constant">, %g: !tt.ptr<f32, "global">, %s: !tt.ptr<f32, 3>) {\n  tt.return\n}\n'
    with use_triton_version("3.9"):
        module = parse_ir(text)
        assert '(%c: !tt.ptr<f32, "constant">, %g: !tt.ptr<f32>, %s: !tt.ptr<f32, 3>)' in print_module(module)
        with pytest.raises(Exception, match="invalid pointer address space 'shared'"):
            parse_ir('tt.func @f(%p: !tt.ptr<f32, "shared">) {\n  tt.return\n}\n')
    with use_triton_version("3.6"):
        assert "(%c: !tt.ptr<f32, 4>, %g: !tt.ptr<f32>, %s: !tt.ptr<f32, 3>)" in print_module(module)
        # As Triton 3.6, which numbers its address spaces.
        with pytest.raises(Exception, match="Expected integer literal"):
            parse_ir(text)


def test_a_trace_reads_in_the_syntax_it_was_recorded_in_whatever_triton_is_installed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Recorded as the Triton that is not installed, a trace still shows, dumps and validates."""
    other = "3.9" if installed_triton_version() == (3, 6) else "3.6"
    spelling = SPELLINGS[other == "3.9"]
    source = tmp_path / "k.mlir"
    source.write_text(f"tt.func @f(%d: {spelling}) {{\n  tt.return\n}}\n")
    output = tmp_path / "k.json"
    assert (
        main(["trace", str(source), "-p", "canonicalize", "--triton-version", other, "-o", str(output)]) == 0
    )
    assert load_trace(output).meta.get("syntax") == {"triton": other}
    capsys.readouterr()
    for command in (["show"], ["show", "--step", "0", "--diff"], ["dump"], ["validate"]):
        assert main([command[0], str(output), *command[1:]]) == 0, capsys.readouterr().err
        out = capsys.readouterr().out
        assert command[0] == "validate" or "--diff" in command or spelling in out
    # From Python too, outside any use_triton_version block: a loaded trace, and one just recorded.
    assert spelling in load_trace(output).ir_at(-1)
    with use_triton_version(other):
        recorded = record(source.read_text(), "cse").trace
    assert spelling in recorded.ir_at(-1)


def test_a_trace_without_recorded_syntax_reads_as_the_installed_triton(tmp_path: Path) -> None:
    """Traces written before passviz recorded the syntax (no meta.syntax) still open."""
    output = tmp_path / "old.json"
    assert main(["trace", str(_write(tmp_path, TENSORDESC_ARG)), "-p", "cse", "-o", str(output)]) == 0
    lines = output.read_text().splitlines()
    lines[0] = lines[0].replace(f',"syntax":{{"triton":"{_installed()}"}}', "")
    assert '"syntax"' not in lines[0]
    output.write_text("\n".join(lines) + "\n")
    assert "tt.func @f" in load_trace(output).ir_at(-1)


def _write(folder: Path, text: str) -> Path:
    path = folder / "in.mlir"
    path.write_text(text)
    return path


def _installed() -> str:
    major, minor = installed_triton_version()
    return f"{major}.{minor}"


def test_an_unreadable_recorded_syntax_reads_as_the_installed_triton_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "t.json"
    assert main(["trace", str(_write(tmp_path, TENSORDESC_ARG)), "-p", "cse", "-o", str(output)]) == 0
    lines = output.read_text().splitlines()
    lines[0] = lines[0].replace(f'"syntax":{{"triton":"{_installed()}"}}', '"syntax":{"triton":"x"}')
    output.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["show", str(output)]) == 0
    captured = capsys.readouterr()
    assert "tt.func @f" in captured.out
    assert f"meta.syntax.triton 'x' is no Triton version; it is read as Triton {_installed()}" in captured.err
