"""``passviz import``: real compilers' IR dumps as traces (issue 23, item 1).

The dumps are made here, at test time: Triton's ``MLIR_ENABLE_DUMP`` of a tutorial kernel's
compile (3.6 in this venv, 3.9 in ``.venv-triton39`` where it exists), ``iree-opt
--mlir-print-ir-after-all`` (module- and op-scoped) and ``--mlir-print-ir-tree-dir``.  Every
step of every imported trace prints (``show``) what its snapshot printed, values, blocks and
aliases renamed consistently; passes that only move or modify ops leave no op unmatched.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from passviz import import_dump
from passviz.cli import main
from passviz.importer import TextReplayer
from passviz.importer.dump import ImportReport, import_path, import_text, split_dump
from passviz.pipelines import load_trace
from tests.conftest import iree_opt, iree_opt_missing, need, triton_39_python
from tests.triton_oracle import dump_environment

ROOT = Path(__file__).resolve().parents[1]

INPUT = """util.func public @f(%arg0: tensor<4xf32>, %arg1: i32) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %cst = arith.constant 1.0 : f32
  %0 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %arg0) -> (tensor<4xf32>) {
    %k = arith.addf %cst, %cst : f32
    %e = tensor.extract %acc[%i] : tensor<4xf32>
    %f = arith.addf %e, %k : f32
    %t = tensor.insert %f into %acc[%i] : tensor<4xf32>
    scf.yield %t : tensor<4xf32>
  }
  %1 = arith.addi %arg1, %arg1 : i32
  %cond = arith.cmpi eq, %1, %arg1 : i32
  %2:2 = scf.if %cond -> (i32, index) {
    scf.yield %1, %c0 : i32, index
  } else {
    scf.yield %arg1, %c1 : i32, index
  }
  cf.br ^bb1(%2#0 : i32)
^bb1(%3: i32):
  util.return %0 : tensor<4xf32>
}
util.func private @g(%arg0: i32) -> i32 {
  %0 = arith.addi %arg0, %arg0 : i32
  %1 = arith.addi %arg0, %arg0 : i32
  %2 = arith.muli %0, %1 : i32
  util.return %2 : i32
}
"""

TRITON_DUMP = """
import sys
sys.path.insert(0, {root!r})
import triton
from triton.compiler import ASTSource
from tests.triton_kernels import TARGET, add_kernel
signature = {{"x_ptr": "*fp32", "y_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32"}}
triton.compile(ASTSource(add_kernel, signature, {{"BLOCK_SIZE": 1024}}), target=TARGET)
"""


# -- the snapshots against the trace, modulo names ------------------------------------------------


def _aliases(text: str) -> str:
    """``text`` with its alias definitions dropped and its aliases written out."""
    text = re.sub(r"^\{-#.*?^#-\}[ \t]*$", "", text, flags=re.S | re.M)
    definitions = dict(re.findall(r"^([#!][\w$.\-]+) = (.*)$", text, re.M))
    text = re.sub(r"^[#!][\w$.\-]+ = .*$", "", text, flags=re.M)
    token = re.compile(r'"(?:[^"\\\n]|\\.)*"|[#!][A-Za-z_][\w$.\-]*')

    expanded: dict[str, str] = {}

    def expand(match: re.Match[str]) -> str:
        name = match.group(0)
        if name not in definitions:
            return name
        if name not in expanded:
            body = definitions[name]
            if body.startswith("loc(") and body.endswith(")"):
                body = body[4:-1]
            expanded[name] = token.sub(expand, body)
        return expanded[name]

    return token.sub(expand, text)


def _renamed(chunk: list[str]) -> list[str]:
    """The lines with values and blocks renamed in order of first appearance."""
    names: dict[str, str] = {}

    def rename(match: re.Match[str]) -> str:
        if match.group(0).startswith('"'):
            return match.group(0)
        return names.setdefault(match.group(0), f"{match.group(0)[0]}{len(names)}")

    pattern = re.compile(r'"(?:[^"\\\n]|\\.)*"|%[\w$.\-]+(?:#\d+)?|\^[\w$.\-]+')
    # One substitution over the chunk (no name or string spans lines), not one per line.
    return pattern.sub(rename, "\n".join(chunk)).split("\n")


def normalized(text: str) -> list[list[str]]:
    """The IR in ``text``, as top-level chunks (the module's ops, each a list of lines) with
    names canonical: aliases written out, ``%x:2`` groups as their values, pred comments gone."""
    # Each substitution over the whole text, line by line (re.M), not a call per line.
    text = re.sub(r"^(\s*\^.*?:)[ \t]*//.*$", r"\1", _aliases(text), flags=re.M)
    text = re.sub(
        r"%([\w$.\-]+):(\d+)(?=[ ,])",
        lambda m: ", ".join(f"%{m.group(1)}#{i}" for i in range(int(m.group(2)))),
        text,
    )
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if not lines:
        return []
    indent = len(lines[0]) - len(lines[0].lstrip())
    lines = [line[indent:] for line in lines]
    if not lines[0].startswith("module"):
        return [_renamed(lines)]
    chunks: list[list[str]] = [[lines[0]], []]
    for line in lines[1:-1]:
        if line.startswith("  ") and not line.startswith("   ") and not line.startswith("  }"):
            if chunks[-1] and not line.startswith("  ^"):
                chunks.append([])
        chunks[-1].append(line[2:])
    return [chunks[0] + [lines[-1]]] + [_renamed(c) for c in chunks[1:] if c]


def assert_same_ir(snapshot: str, shown: str, where: str) -> None:
    """``shown`` (a step's ``show``) prints ``snapshot``'s IR: the whole module, or for an
    op-scoped snapshot, the op it printed."""
    expected = normalized(snapshot)
    got = normalized(shown)
    if len(expected) == 1 and not expected[0][0].startswith("module"):
        symbol = re.search(r"@[\w$.\-]+", expected[0][0])
        assert symbol is not None, where
        # The op that defines the symbol: a function (``@f(``), an executable (``@f {``).
        defines = re.compile(re.escape(symbol.group(0)) + r"(?![\w$.\-])")
        got = [c for c in got[1:] if defines.search(c[0])]
    assert got == expected, where


def snapshots(report: ImportReport, text: str) -> Iterator[tuple[int, str]]:
    """(step, snapshot) pairs to compare: a before-dump's snapshot k+1 is the IR after step k;
    an after-dump's snapshot k the IR after step k (-1: the initial IR)."""
    sections = split_dump(text).banners
    printing = report.trace.meta["imported"]["printing"]
    if printing == "before":
        for index, banner in enumerate(sections):
            yield index - 1, banner.text
    else:
        afters = [b for b in sections if b.when == "after"]
        offset = len(afters) - len(report.trace.steps)
        for index, banner in enumerate(afters):
            yield index - offset, banner.text


def check_replay(report: ImportReport, text: str) -> None:
    """Every step of ``report``'s trace shows its snapshot."""
    trace = report.trace
    replayer = TextReplayer(trace)
    compared = 0
    for step, snapshot in snapshots(report, text):
        replayer.advance_to(step)
        assert_same_ir(snapshot, replayer.text(), f"step {step}")
        compared += 1
    assert compared >= len(trace.steps)


# -- the dumps ----------------------------------------------------------------------------------


def _iree(tmp_path: Path, pipeline: str, *flags: str) -> str:
    need(iree_opt_missing())
    source = tmp_path / "in.mlir"
    source.write_text(INPUT, encoding="utf-8")
    done = subprocess.run(
        [iree_opt(), f"--pass-pipeline={pipeline}", *flags, str(source), "-o", os.devnull],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


def _triton_dump(python: str, tmp_path: Path) -> str:
    dump = tmp_path / "dump.txt"
    env = dump_environment(tmp_path)
    done = subprocess.run(
        [python, "-c", TRITON_DUMP.format(root=str(ROOT))],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return dump.read_text(encoding="utf-8")


# -- the tests ----------------------------------------------------------------------------------


@pytest.mark.iree
def test_iree_after_all_module_scope(tmp_path: Path) -> None:
    pipeline = "builtin.module(loop-invariant-code-motion,canonicalize,cse,symbol-dce)"
    text = _iree(tmp_path, pipeline, "--mlir-print-ir-after-all")
    report = import_text(text, input_ir=INPUT)
    trace = report.trace
    assert [s.pass_name.split("{")[0] for s in trace.steps if s.pass_name] == [
        "loop-invariant-code-motion",
        "canonicalize",
        "cse",
        "symbol-dce",
    ]
    names = ["LoopInvariantCodeMotionPass", "CanonicalizerPass", "CSEPass", "SymbolDCEPass"]
    assert [s.name for s in trace.steps] == names
    check_replay(report, text)
    licm = report.stats[0]
    assert (licm.created, licm.erased, licm.moved) == (0, 0, 1), "licm only moves an op"
    assert trace.steps[0].delta.get("ops_moved")
    assert report.stats[3].erased > 0 and report.stats[3].created == 0, "symbol-dce only erases"


@pytest.mark.iree
def test_iree_op_scoped_dumps_are_spliced(tmp_path: Path) -> None:
    pipeline = "builtin.module(util.func(canonicalize,cse,loop-invariant-code-motion))"
    text = _iree(tmp_path, pipeline, "--mlir-print-ir-after-all")
    assert "\nmodule" not in text
    report = import_text(text, input_ir=INPUT)
    assert len(report.trace.steps) == 6  # each pass on each function
    check_replay(report, text)
    # CSE only erases, licm only moves: neither leaves an op it kept unmatched.
    for step, stats in zip(report.trace.steps, report.stats, strict=True):
        if step.name in ("CSEPass", "LoopInvariantCodeMotionPass"):
            assert stats.created == 0, step.name
    assert any(s.moved and not s.created for s in report.stats)


@pytest.mark.iree
def test_op_scoped_dumps_of_the_whole_module(tmp_path: Path) -> None:
    """``--mlir-print-ir-module-scope`` (as Triton 3.9 prints): a pass on one function prints the
    whole module. Every step shows its snapshot, and each is what the same dump gives with its
    banners scoped to the module, but for the function each step is rooted at."""
    pipeline = "builtin.module(util.func(canonicalize,cse,canonicalize,loop-invariant-code-motion))"
    flags = ("--mlir-print-ir-after-all", "--mlir-print-ir-module-scope", "--mlir-disable-threading")
    text = _iree(tmp_path, pipeline, *flags)
    assert "('util.func' operation: @g)" in text and "\nmodule" in text
    report = import_text(text, input_ir=INPUT)
    check_replay(report, text)
    as_module = re.sub(r"\('util\.func' operation: @\w+\)", "('builtin.module' operation)", text)
    oracle = import_text(as_module, input_ir=INPUT).trace
    steps = report.trace.steps
    assert [step.delta for step in steps] == [step.delta for step in oracle.steps]
    functions = {step.root for step in steps}
    assert len(functions) == 2 and None not in functions
    # Passes that changed nothing print the module as it was: steps without a change.
    assert sum(not step.changed for step in steps) >= 2


MLP = """func.func @mlp(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<4x16xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %z = arith.maximumf %s, %c0 : f32
    linalg.yield %z : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
"""


@pytest.mark.iree
def test_iree_compile_op_scoped_dump(tmp_path: Path) -> None:
    """``iree-compile`` to Flow prints each pass on the op it ran on (functions, executables,
    the module): every snapshot is spliced in, and every step shows what the compiler printed."""
    need(iree_opt_missing())
    compiler = Path(iree_opt()).with_name("iree-compile")
    source = tmp_path / "mlp.mlir"
    source.write_text(MLP, encoding="utf-8")
    done = subprocess.run(
        [
            str(compiler), str(source), "--iree-hal-target-device=local",
            "--iree-hal-local-target-device-backends=llvm-cpu", "--compile-to=flow",
            "--mlir-print-ir-after-all", "--mlir-disable-threading", "-o", os.devnull,
        ],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    report = import_text(done.stderr, input_ir=MLP)
    trace = report.trace
    assert len(trace.steps) == len(split_dump(done.stderr).banners) > 100
    assert not trace.meta["imported"].get("notes"), "no snapshot left out"
    check_replay(report, done.stderr)
    assert any(step.name == "AnnotateDispatchesPass" for step in trace.steps)
    # CSE only erases: no op it kept is unmatched (made anew).
    cse = [stats for step, stats in zip(trace.steps, report.stats, strict=True) if step.name == "CSEPass"]
    assert cse and all(stats.created == 0 for stats in cse)


@pytest.mark.iree
def test_iree_tree_dir_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "tree"
    pipeline = "builtin.module(canonicalize,util.func(cse,loop-invariant-code-motion))"
    text = _iree(tmp_path, pipeline, "--mlir-print-ir-after-all", f"--mlir-print-ir-tree-dir={folder}")
    report = import_path(folder, input_ir=INPUT)
    assert [s.name for s in report.trace.steps] == [
        "CanonicalizerPass",
        "CSEPass",
        "CSEPass",
        "LoopInvariantCodeMotionPass",
        "LoopInvariantCodeMotionPass",
    ] or len(report.trace.steps) == len(split_dump(text).banners)
    out = tmp_path / "t.passviz.json"
    source = tmp_path / "in.mlir"
    assert main(["import", str(folder), "-o", str(out), "--input", str(source)]) == 0
    assert main(["validate", str(out)]) == 0
    assert main(["steps", str(out)]) == 0
    assert main(["dump", str(out)]) == 0
    assert main(["export", str(out), "--html", str(tmp_path / "t.html")]) == 0
    assert "passviz-trace" in (tmp_path / "t.html").read_text(encoding="utf-8")
    capsys.readouterr()
    loaded = load_trace(out)
    for index in range(len(loaded.steps)):
        assert main(["show", str(out), "--step", str(index)]) == 0
        assert capsys.readouterr().out == loaded.ir_at(index)


@pytest.mark.iree
def test_a_failing_pass_is_a_flagged_step(tmp_path: Path) -> None:
    pipeline = "builtin.module(util.func(canonicalize{test-convergence=true max-iterations=1}))"
    need(iree_opt_missing())
    source = tmp_path / "in.mlir"
    source.write_text(INPUT, encoding="utf-8")
    done = subprocess.run(
        [iree_opt(), f"--pass-pipeline={pipeline}", "--mlir-print-ir-after-failure", str(source)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    trace = import_dump(done.stderr, input_ir=INPUT)
    assert trace.status == "failed"
    [failed] = trace.failed_steps
    assert failed.flag is not None and failed.flag["message"] == "CanonicalizerPass failed"


FAILS_TO_BUFFERIZE = """func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


@pytest.mark.iree
def test_a_failing_pass_after_others_carries_its_diagnostic(tmp_path: Path) -> None:
    """The diagnostic printed after the last good pass's IR is the failing pass's (MLIR prints it
    while that pass runs), not the good pass's, nor lost."""
    need(iree_opt_missing())
    source = tmp_path / "e.mlir"
    source.write_text(FAILS_TO_BUFFERIZE, encoding="utf-8")
    pipeline = "builtin.module(canonicalize,one-shot-bufferize{allow-unknown-ops=false})"
    done = subprocess.run(
        [iree_opt(), f"--pass-pipeline={pipeline}", "--mlir-print-ir-after-all", str(source)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and "op was not bufferized" in done.stderr
    trace = import_dump(done.stderr, input_ir=FAILS_TO_BUFFERIZE)
    good, failed = trace.steps
    assert good.flag is None
    assert failed.flag is not None and failed.flag["message"] == "OneShotBufferizePass failed"
    assert "e.mlir:2:8: error: op was not bufferized" in failed.flag.get("detail", "")


def _check_triton(python: str, tmp_path: Path) -> None:
    text = _triton_dump(python, tmp_path)
    report = import_text(text, name="dump.txt")
    trace = report.trace
    banners = split_dump(text).banners
    assert len(trace.steps) == len(banners) - 1
    assert trace.meta["imported"]["printing"] == "before"
    assert any("not in the dump" in note for note in trace.meta["imported"].get("notes", []))
    assert trace.steps[0].pass_name == banners[0].argument
    check_replay(report, text)
    # The layout pass modifies every op (types gain layouts) and creates or erases none.
    to_gpu = next(
        i
        for i, s in enumerate(trace.steps)
        if (s.pass_name or "").split("{")[0] == "convert-triton-to-tritongpu"
    )
    stats = report.stats[to_gpu]
    assert stats.created == stats.erased == stats.moved == 0 and trace.steps[to_gpu].count("ops_modified") > 0
    out = tmp_path / "t.passviz.json"
    dump = tmp_path / "dump.txt"
    assert main(["import", str(dump), "-o", str(out)]) == 0
    assert main(["validate", str(out)]) == 0
    assert main(["export", str(out), "--html", str(tmp_path / "t.html")]) == 0


@pytest.mark.triton
def test_triton_36_dump(tmp_path: Path) -> None:
    from tests.triton_oracle import triton_missing

    need(triton_missing())
    _check_triton(sys.executable, tmp_path)


@pytest.mark.triton
@pytest.mark.slow
def test_triton_39_dump(tmp_path: Path) -> None:
    _check_triton(str(triton_39_python()), tmp_path)
