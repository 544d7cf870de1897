"""``passviz toy`` as ``toyc-ch6`` (issue 14): every chapter 6 peer test's RUN line, the
``-emit`` levels and chapters, the named ``toy-chN`` pipelines, and bad input."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from _pytest.mark import ParameterSet

from passviz.cli.toyc import EMITS, run_toy, toy_pipeline
from passviz.compilers.registry import available_passes
from passviz.compilers.toy.interpret import run_main
from passviz.compilers.toy.mlirgen import mlirgen
from passviz.compilers.toy.parser import parse_toy
from passviz.pipelines import NAMED_PIPELINES, parse_pipeline
from tests.conftest import filecheck, run_passviz
from tests.toy_support import TOY, needs_toy_peer, toy_cli

_RUN = re.compile(
    r"RUN: (?P<not>not )?toyc-ch6 (?P<args>[^|\n]*?)(?: 2>&1)?(?: \| FileCheck %s(?: --check-prefix=(?P<prefix>\w+))?)?$",
    re.MULTILINE,
)


def _run_lines() -> list[ParameterSet]:
    """Every RUN line of the chapter 6 tests: the file, ``toyc-ch6``'s arguments, the check prefix."""
    cases: list[ParameterSet] = []
    for path in sorted((TOY / "Ch6").glob("*")):
        for match in _RUN.finditer(path.read_text()):
            args = shlex.split(match["args"])
            cases.append(pytest.param(path, args, match["prefix"], id=f"{path.name}:{' '.join(args)}"))
    return cases


def test_the_chapter_6_run_lines_are_all_here() -> None:
    needs_toy_peer()
    names = sorted({Path(str(case.values[0])).name for case in _run_lines()})
    assert names == [
        "affine-lowering.mlir",
        "ast.toy",
        "codegen.toy",
        "empty.toy",
        "jit.toy",
        "llvm-lowering.mlir",
        "shape_inference.mlir",
        "transpose_transpose.toy",
        "trivial_reshape.toy",
    ]
    assert len(_run_lines()) == 10  # affine-lowering.mlir has two


def _toy_func_input(text: str) -> tuple[str, str | None]:
    """OLD input (pre-2022 ``func @``): read as the ``toy.func`` it meant."""
    return text, re.sub(r"^func @", "toy.func @", text, flags=re.MULTILINE)


def _private_callee(text: str) -> tuple[str, str | None]:
    """OLD CHECK lines from before MLIRGen made every function but ``main`` private (chapter 4 on)."""
    label = "CHECK-LABEL: func @transpose_transpose("
    assert label in text
    return text.replace(label, "CHECK-LABEL: toy.func private @transpose_transpose("), None


def _one_load(text: str) -> tuple[str, str | None]:
    """CHECK lines from before MLIR's CSE merged loads with no write between them (2022):
    ``toy.mul %2, %2`` lowers to two ``affine.load`` of one element, which ``cse`` now
    merges (``iree-opt --cse``, LLVM 24, does), so the product is the one load squared."""
    second = re.search(r"^// CHECK: +\[\[VAL_15:%\.\*\]\] = affine\.load .*\n", text, re.MULTILINE)
    assert second is not None
    text = text[: second.start()] + text[second.end() :]
    return text.replace("arith.mulf [[VAL_14]], [[VAL_15]]", "arith.mulf [[VAL_14]], [[VAL_14]]"), None


OLD_ERA = {
    "shape_inference.mlir": _toy_func_input,
    "transpose_transpose.toy": _private_callee,
    "affine-lowering.mlir": _one_load,
}
"""Peer files of an older MLIR (``../shared/peer/SOURCES.md``), read as today's MLIR
would have them; the rest of each file is checked as it is."""


@pytest.mark.parametrize(("path", "args", "prefix"), _run_lines())
def test_every_chapter_6_run_line(
    path: Path, args: list[str], prefix: str | None, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``toyc-ch6 <args>`` as the RUN line says: its output (stdout and stderr, as ``2>&1``)
    passes the file's CHECK lines under the RUN line's prefix; ``-emit=jit`` prints what the
    program prints."""
    if "-opt" in args and any(level in args for level in ("-emit=mlir-affine", "-emit=llvm")):
        missing = [
            name for name in ("affine-loop-fusion", "affine-scalrep") if name not in available_passes()
        ]
        if missing:
            pytest.skip(f"-opt's affine passes are not registered yet: {', '.join(missing)}")
    text = path.read_text()
    source = path
    if path.name in OLD_ERA:
        text, input_text = OLD_ERA[path.name](text)
        if input_text is not None:
            source = tmp_path / path.name
            source.write_text(input_text)
    argv = [str(source) if arg == "%s" else arg for arg in args]
    status, out, err = toy_cli(capsys, *argv)
    if "-emit=jit" in args:
        assert status == 0, err
        assert out == run_main(mlirgen(parse_toy(text, str(path)), chapter=6))
        return
    filecheck(out + err, text, prefix or "CHECK")


def test_jit_toy_prints_its_matrix(capsys: pytest.CaptureFixture[str]) -> None:
    needs_toy_peer()
    status, out, err = toy_cli(capsys, "-emit=jit", str(TOY / "Ch6/jit.toy"))
    assert (status, err) == (0, "")
    assert out == "1.000000 2.000000 \n3.000000 4.000000 \n"


def test_the_command_line_offers_every_level() -> None:
    from passviz.cli import _parser  # pyright: ignore[reportPrivateUsage]

    assert EMITS == ("ast", "mlir", "mlir-affine", "mlir-llvm", "llvm", "jit")
    for emit in EMITS:
        assert _parser().parse_args(["toy", "f.toy", f"-emit={emit}", "-opt"]).emit == emit


def test_emit_mlir_llvm_prints_the_llvm_dialect(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    needs_toy_peer()
    out_file = tmp_path / "t.passviz.json"
    status, out, err = toy_cli(capsys, str(TOY / "Ch6/codegen.toy"), "-emit=mlir-llvm", "-o", str(out_file))
    assert status == 0, err
    assert out.startswith("module {\n")
    assert "llvm.func @main() {" in out and "llvm.call @printf" in out
    assert not re.search(r"\b(toy|affine|memref|arith|scf|cf|func)\.", out)
    assert out_file.is_file()


@pytest.mark.parametrize(
    ("chapter", "emit", "opt", "spec"),
    [
        (2, "mlir", True, ""),
        (3, "mlir", False, ""),
        (3, "mlir", True, "canonicalize"),
        (4, "mlir", False, ""),
        (4, "mlir", True, "inline,toy-shape-inference,canonicalize,cse"),
        (5, "mlir", True, "inline,toy-shape-inference,canonicalize,cse"),
        (
            5,
            "mlir-affine",
            False,
            "inline,toy-shape-inference,canonicalize,cse,toy-lower-to-affine,canonicalize,cse",
        ),
        (
            5,
            "mlir-affine",
            True,
            "inline,toy-shape-inference,canonicalize,cse,toy-lower-to-affine,canonicalize,cse,"
            "affine-loop-fusion,affine-scalrep",
        ),
        (
            6,
            "mlir-llvm",
            False,
            "inline,toy-shape-inference,canonicalize,cse,toy-lower-to-affine,canonicalize,cse,toy-lower-to-llvm",
        ),
        (
            6,
            "jit",
            True,
            "inline,toy-shape-inference,canonicalize,cse,toy-lower-to-affine,canonicalize,cse,"
            "affine-loop-fusion,affine-scalrep,toy-lower-to-llvm",
        ),
    ],
)
def test_each_chapter_and_level_runs_toycs_passes(chapter: int, emit: str, opt: bool, spec: str) -> None:
    """``toyc-chN``'s pass manager: from chapter 5 any lowering first inlines and infers shapes,
    ``-opt`` or not; ``-opt`` adds fusion and scalar replacement after the affine cleanups."""
    assert toy_pipeline(chapter, emit, opt) == spec  # pyright: ignore[reportArgumentType]


def test_the_named_pipelines_are_each_chapters_deepest_opt() -> None:
    assert NAMED_PIPELINES["toy-ch3"] == toy_pipeline(3, "mlir", True)
    assert NAMED_PIPELINES["toy-ch4"] == toy_pipeline(4, "mlir", True)
    assert NAMED_PIPELINES["toy-ch5"] == toy_pipeline(5, "mlir-affine", True)
    assert NAMED_PIPELINES["toy-ch6"] == toy_pipeline(6, "mlir-llvm", True)


def test_a_named_pipeline_stands_for_its_passes() -> None:
    assert [type(p).name for p in parse_pipeline("toy-ch4")] == [
        "inline",
        "toy-shape-inference",
        "canonicalize",
        "cse",
    ]


def test_passviz_passes_lists_the_chapter_pipelines() -> None:
    done = run_passviz("passes")
    assert done.returncode == 0, done.stderr
    for chapter in (3, 4, 5, 6):
        assert re.search(rf"^\s+toy-ch{chapter}\s+toyc-ch{chapter} -emit=", done.stdout, re.MULTILINE)
    assert re.search(r"^\s+toy-lower-to-llvm\s+Lower affine-level Toy IR", done.stdout, re.MULTILINE)


def test_a_level_the_chapter_lacks_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = tmp_path / "p.toy"
    source.write_text("def main() { print([1, 2]); }\n")
    status, out, err = toy_cli(capsys, str(source), "-emit=mlir-affine", "--chapter", "4")
    assert (status, out) == (1, "")
    assert err == "passviz: error: -emit=mlir-affine needs --chapter 5 or later (toyc-ch4 lacks it)\n"
    status, out, err = toy_cli(capsys, str(source), "-emit=jit", "--chapter", "5")
    assert (status, out) == (1, "")
    assert err.count("\n") == 1 and "-emit=jit needs --chapter 6" in err


def test_jit_without_main_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    source = tmp_path / "lib.toy"
    source.write_text("def f(a) { return a; }\n")
    status, out, err = toy_cli(capsys, str(source), "-emit=jit")
    assert (status, out) == (1, "")
    assert err.count("\n") == 1 and err.startswith(f"passviz: error: {source}: ")


def test_jit_output_is_the_programs_alone(tmp_path: Path) -> None:
    """From the shell too: the printed matrix and nothing else on stdout, nothing on stderr."""
    source = tmp_path / "p.toy"
    source.write_text("def main() { var a<2, 2> = [1, 2, 3, 4]; print(transpose(a) * a); }\n")
    done = run_passviz("toy", str(source), "-emit=jit")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "1.000000 6.000000 \n6.000000 16.000000 \n"


def test_run_toy_gives_the_same_text_as_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "p.toy"
    source.write_text("def main() { print([[1, 2], [3, 4]] + [[1, 1], [1, 1]]); }\n")
    for emit in ("mlir-affine", "mlir-llvm", "jit"):
        status, out, _ = toy_cli(capsys, str(source), f"-emit={emit}")
        assert status == 0 and out == run_toy(str(source), emit).text  # pyright: ignore[reportArgumentType]


def test_llvm_the_converter_cannot_translate_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = tmp_path / "assume.mlir"
    source.write_text(
        "llvm.func @main() {\n  %0 = llvm.mlir.constant(true) : i1\n  llvm.intr.assume %0 : i1\n  llvm.return\n}\n"
    )
    for emit in ("llvm", "jit"):
        status, out, err = toy_cli(capsys, str(source), f"-emit={emit}")
        assert (status, out) == (1, "")
        assert err == (
            f"passviz: error: {source}: cannot translate to LLVM IR: "
            "Conversion not implemented for op: llvm.intr.assume\n"
        )


def test_run_and_bisect_read_a_toy_trace_down_to_llvm(tmp_path: Path) -> None:
    """A ``passviz toy -o`` trace starts from an empty module (MLIRGen builds it) and ends in the
    llvm dialect: ``run`` and ``bisect`` take MLIRGen's module as the reference, run every step the
    interpreter reaches, and say in one line where the IR has gone past it."""
    needs_toy_peer()
    trace = tmp_path / "codegen.passviz.json"
    built = run_passviz("toy", str(TOY / "Ch6/codegen.toy"), "-emit=mlir-llvm", "-opt", "-o", str(trace))
    assert built.returncode == 0, built.stderr
    steps = run_passviz("steps", str(trace)).stdout.splitlines()
    lowering = next(line for line in steps if "pass-begin" in line and "toy-lower-to-llvm" in line)
    before_llvm = int(lowering.split()[0])

    done = run_passviz("run", str(trace), "--step", str(before_llvm))
    assert done.returncode == 0, done.stderr
    assert "inputs from the kernel's signature: none" in done.stdout
    assert "[1, 16, 4, 25, 9, 36]" in done.stdout

    last = run_passviz("run", str(trace))
    assert last.returncode == 1
    assert last.stderr.strip().count("\n") == 0
    assert "llvm dialect" in last.stderr and "Traceback" not in last.stderr

    search = run_passviz("bisect", str(trace))
    assert search.returncode == 0, search.stderr
    assert "no step changes the outputs" in search.stdout
    assert "cannot run, stepped around" in search.stdout


def test_the_run_panel_reads_a_toy_trace_as_the_command_line_does() -> None:
    """The widget's run panel takes a Toy trace's inputs (none: ``main`` takes no arguments) from
    MLIRGen's module, runs an affine-level step, and bisects with MLIRGen's run as the reference."""
    from passviz.cli.toyc import run_toy_text
    from passviz.run.panel import bisect_at, default_inputs, run_at

    needs_toy_peer()
    source = (TOY / "Ch6/codegen.toy").read_text()
    run = run_toy_text(source, "mlir-affine", opt=True).run
    assert run is not None
    trace = run.trace
    inputs = default_inputs(trace)
    assert inputs.specs == []
    last = len(trace.steps) - 1
    ran = run_at(trace, last, inputs.text())
    assert any("[1, 16, 4, 25, 9, 36]" in line for line in ran.lines), ran.lines
    found = bisect_at(trace, inputs.text())
    assert found.found is None
    assert any("no step changes the outputs" in line for line in found.lines)
