"""``record_rewrites``: a captured Triton compile's pass expanded rewrite by rewrite from MLIR's
pattern log, checked against Triton itself on the tutorial matmul, under Triton 3.6 and (slow)
3.9: the last rewrite step of each expanded pass shows the IR that ``MLIR_ENABLE_DUMP`` printed
after the pass (the compile's raw dump, cut at its banners here), and the pass's own step after
it changes nothing."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from passviz.importer import TextReplayer
from passviz.ir.errors import InputError
from passviz.trace.apply import apply_delta, initial_state
from passviz.trace.model import Step, Trace
from passviz.trace.store import read_trace, write_trace
from tests.conftest import iree_opt, iree_opt_missing, need, triton_39_python
from tests.test_import_dump import assert_same_ir
from tests.triton_oracle import dump_environment

PASS = "tritongpu-remove-layout-conversions"
ROOT = Path(__file__).resolve().parents[1]
PATTERN_NAME = r"^[\w:() ]+::\w+$"
"""A C++ pattern class's qualified name, as MLIR's log prints it."""
BANNER = r"^// -----// IR Dump Before (\w+)\b.*//----- //$"
"""A pass's banner in ``MLIR_ENABLE_DUMP``'s output: the IR after it is the next banner's."""


def dump_snapshots(dump: str) -> list[tuple[str, str]]:
    """Each pass of the raw dump (its class's name) and the IR printed before it, in order."""
    parts = re.split(BANNER, dump, flags=re.M)
    return [(parts[i], parts[i + 1].strip()) for i in range(1, len(parts) - 1, 2)]


COMPILE = """
import sys
sys.path.insert(0, {root!r})
import triton
from triton.compiler import ASTSource
from tests.triton_kernels import KERNELS, TARGET
kernel = KERNELS[{kernel!r}]
triton.compile(ASTSource(kernel.fn, kernel.signature, kernel.constexprs), target=TARGET)
"""
"""A tutorial kernel compiled for ``cuda:90`` by the Triton of the interpreter that runs it."""


def compiled(python: str, folder: Path, kernel: str = "matmul") -> tuple[Trace, Trace, str]:
    """The tutorial ``kernel`` compiled by ``python``'s Triton with ``MLIR_ENABLE_DUMP`` on: its
    dump imported, the same with the pass expanded (by that Triton), and the raw dump."""
    from passviz.compilers.triton.rewrites import record_rewrites
    from passviz.importer import import_text

    dump = folder / "dump.txt"
    env = dump_environment(folder)
    done = subprocess.run(
        [python, "-c", COMPILE.format(root=str(ROOT), kernel=kernel)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=folder,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    text = dump.read_text(encoding="utf-8")
    captured = import_text(text, name=kernel).trace
    return captured, record_rewrites(captured, [PASS], target="cuda:90", python=python), text


@pytest.fixture(scope="module")
def matmul(tmp_path_factory: pytest.TempPathFactory) -> tuple[Trace, Trace, str]:
    """The tutorial matmul compiled by the installed Triton (``compiled``)."""
    from tests.triton_oracle import triton_missing

    need(triton_missing())
    return compiled(sys.executable, tmp_path_factory.mktemp("matmul"))


def _texts(trace: Trace, wanted: set[int]) -> dict[int, str]:
    """The IR after each ``wanted`` step of ``trace``, replayed from its deltas."""
    replayer = TextReplayer(trace)
    texts: dict[int, str] = {}
    for index in sorted(wanted):
        replayer.advance_to(index)
        texts[index] = replayer.text()
    return texts


def _runs(trace: Trace) -> list[tuple[list[Step], Step]]:
    """Each expanded run of the pass: its rewrite steps and the pass's own step after them."""
    runs: list[tuple[list[Step], Step]] = []
    patterns: list[Step] = []
    for step in trace.steps:
        if step.kind == "rewrite":
            patterns.append(step)
        elif patterns:
            runs.append((patterns, step))
            patterns = []
    return runs


def _dead_when_erased(trace: Trace, steps: set[int]) -> None:
    """Each op that a step of ``steps`` erases had its results used by no op outside the step's
    erasures: it was dead, as the greedy driver's log says."""
    assert trace.initial is not None
    state = initial_state(trace.initial)
    for step in trace.steps[: max(steps) + 1]:
        if step.index in steps:
            erased = set(step.delta.get("ops_erased", []))
            values = {v for i in erased for v in state.ops[i].results}
            users = {i for i, op in state.ops.items() if i not in erased and values & set(op.operands)}
            assert not users, f"step {step.index} erases ops that {sorted(users)} use"
        apply_delta(state, step.delta)


def check_expansion(captured: Trace, expanded: Trace, dump: str, *, raw: bool = True) -> None:
    """``expanded`` (``captured`` with the pass expanded) against Triton's raw dump ``dump``:
    each expanded pass's last rewrite step shows the IR printed after the pass (``raw``: as cut
    from the dump; else as ``captured``, its import, shows it), and its own step changes
    nothing; the driver's erasures are steps of their own, of dead ops; the last step shows the
    capture's last IR."""
    from passviz.compilers.triton.rewrites import DEAD_STEP, DEDUPLICATED_STEP, LOCATIONS_STEP, UNLOGGED_STEP

    runs = _runs(expanded)
    assert runs, "the pass applied no pattern in the matmul"
    passes = [s for s in captured.steps if s.name == "TritonGPURemoveLayoutConversions"]
    assert len(runs) <= len(passes)
    assert len(expanded.steps) == len(captured.steps) + sum(len(p) for p, _ in runs)
    snapshots = dump_snapshots(dump)
    assert [name for name, _ in snapshots][: len(captured.steps)] == [
        re.sub(r"\W.*", "", s.name or "") for s in captured.steps
    ]
    original = {
        s.index: s.index - sum(1 for r in expanded.steps[: s.index] if r.kind == "rewrite")
        for s in expanded.steps
    }
    texts = _texts(expanded, {p[-1].index for p, _ in runs} | {len(expanded.steps) - 1})
    named = (DEAD_STEP, DEDUPLICATED_STEP, LOCATIONS_STEP, UNLOGGED_STEP)
    for patterns, end in runs:
        assert end.name == "TritonGPURemoveLayoutConversions" and end.kind == "pass-end"
        assert not any(end.delta.values()), f"step {end.index} changes the IR"
        for step in patterns:
            assert re.match(PATTERN_NAME, step.name or "") or step.name in named, step.name
            assert step.changed, f"step {step.index} ({step.name}) changed nothing"
            assert step.pass_index == end.pass_index and step.pass_name == end.pass_name
            if step.name == DEAD_STEP:
                assert set(step.delta) == {"ops_erased"}, step.delta
            if step.name == DEDUPLICATED_STEP:
                # Constants erased, their users changed to use an equal one.
                assert set(step.delta) == {"ops_erased", "ops_modified", "texts"}, step.delta
        # The last rewrite step shows what Triton printed after the pass: the banner after its own.
        argument, after = snapshots[original[end.index] + 1]
        if not raw:
            after = _texts(captured, {original[end.index]})[original[end.index]]
        assert_same_ir(after, texts[patterns[-1].index], f"step {patterns[-1].index} (before {argument})")
    # After the last pattern application of the first run, the greedy driver erased dead ops.
    first = [s.name for s in runs[0][0]]
    applied = max(i for i, name in enumerate(first) if name not in named)
    assert DEAD_STEP in first[applied + 1 :], first
    _dead_when_erased(expanded, {s.index for s in expanded.steps if s.name == DEAD_STEP})
    # Past the expansions, the steps (their ids renamed to the expansion's) show the capture's IR.
    final = _texts(captured, {len(captured.steps) - 1})[len(captured.steps) - 1]
    assert_same_ir(final, texts[len(expanded.steps) - 1], "the last step")


@pytest.mark.triton
def test_pass_expands_into_rewrite_steps_ending_at_its_output(matmul: tuple[Trace, Trace, str]) -> None:
    check_expansion(*matmul)


@pytest.mark.triton
def test_expanded_trace_is_written_and_read_back(matmul: tuple[Trace, Trace, str], tmp_path: Path) -> None:
    _, expanded, _ = matmul
    write_trace(expanded, tmp_path / "matmul.passviz.json.gz")
    back = read_trace(tmp_path / "matmul.passviz.json.gz")
    assert [(s.kind, s.name, s.pass_name, s.delta) for s in back.steps] == [
        (s.kind, s.name, s.pass_name, s.delta) for s in expanded.steps
    ]


@pytest.mark.triton
def test_each_application_shows_what_the_pattern_does(matmul: tuple[Trace, Trace, str]) -> None:
    """CanonicalizeConvertFromConvert replaces a ``ttg.convert_layout`` (Triton's pattern folds a
    convert of a convert): each of its steps erases or makes one; a step's root is an op it
    erased or changed."""
    _, expanded, _ = matmul
    rewrites = [s for s in expanded.steps if s.kind == "rewrite"]
    assert any(s.root is not None for s in rewrites)
    names: dict[str, str] = {}
    for step in [*expanded.steps]:
        for info in step.delta.get("ops_created", []):
            names[info["id"]] = info["name"]
    assert expanded.initial is not None
    for info in expanded.initial["delta"].get("ops_created", []):
        names[info["id"]] = info["name"]
    for step in rewrites:
        if step.root is not None:
            assert step.root in step.delta.get("ops_erased", []) or step.root in {
                c["id"] for c in step.delta.get("ops_modified", [])
            }
        if step.name == "mlir::triton::gpu::CanonicalizeConvertFromConvert":
            touched = [
                *step.delta.get("ops_erased", []),
                *(c["id"] for c in step.delta.get("ops_created", [])),
            ]
            assert "ttg.convert_layout" in {names.get(i) for i in touched}, step.index


NESTED = """func.func @f(%a: i32, %b: i1, %n: index) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %a, %y = %a) -> (i32, i32) {
    %s = arith.addi %x, %y : i32
    %t = scf.if %b -> i32 {
      %u = arith.muli %s, %s : i32
      scf.yield %u : i32
    } else {
      %v = arith.subi %s, %x : i32
      scf.yield %v : i32
    }
    scf.yield %t, %s : i32, i32
  }
  %w = arith.addi %r#0, %r#1 : i32
  cf.br ^bb1(%w : i32)
^bb1(%z: i32):
  return %z : i32
}
func.func @g(%p: i32) -> i32 {
  %q = arith.addi %p, %p : i32
  return %q : i32
}
"""
"""Sibling functions and regions, a multi-result op, a block with arguments: where the numbering
of MLIR's generic form goes its own way."""


@pytest.mark.iree
def test_values_are_numbered_as_mlirs_generic_form_numbers_them(tmp_path: Path) -> None:
    """The greedy driver prints an op it takes up in generic form; an erased op is found by the
    value numbers it printed: passviz numbers the custom form's values as iree-opt's MLIR prints
    the generic form."""
    from passviz.compilers.triton.rewrites import _generic_names  # pyright: ignore[reportPrivateUsage]
    from passviz.importer.reader import Op, Value, read_ir

    need(iree_opt_missing())
    source = tmp_path / "nested.mlir"
    source.write_text(NESTED, encoding="utf-8")

    def printed(*flags: str) -> Op:
        done = subprocess.run([iree_opt(), str(source), *flags], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        return read_ir(done.stdout).top

    def values(op: Op) -> list[Value]:
        return [*op.results, *(arg for region in op.regions for block in region.blocks for arg in block.args)]

    custom, generic = printed(), printed("--mlir-print-op-generic")
    names = _generic_names(custom)
    mine = [(op.name, [names[v] for v in values(op)]) for op in custom.walk()]
    assert mine == [(op.name, [v.name for v in values(op)]) for op in generic.walk()]
    assert ("func.func", ["arg0"]) in mine  # @g, numbered first


@pytest.mark.triton
def test_a_pass_it_cannot_expand_says_so(matmul: tuple[Trace, Trace, str]) -> None:
    from passviz.compilers.triton.rewrites import record_rewrites

    captured, _, _ = matmul
    with pytest.raises(InputError, match="ran no such pass.*tritongpu-remove-layout-conversions"):
        record_rewrites(captured, ["no-such-pass"], target="cuda:90")
    # A pass the compile ran that no add function of Triton's adds alone.
    with pytest.raises(InputError, match="cannot run this pass alone.*it can run:.*tritongpu-coalesce"):
        record_rewrites(captured, ["ConvertTritonGPUToLLVM"], target="cuda:90")


@pytest.mark.triton
@pytest.mark.slow
def test_triton_39_log_expands_the_same_way(tmp_path: Path) -> None:
    check_expansion(*compiled(str(triton_39_python()), tmp_path))


@pytest.mark.triton
@pytest.mark.slow
def test_flash_attention_constants_deduplicated_are_steps(tmp_path: Path) -> None:
    """The greedy driver deduplicates constants in the flash attention kernel (two loops, their
    regions siblings): steps of their own, and the expansion still ends at Triton's output."""
    from passviz.compilers.triton.rewrites import DEDUPLICATED_STEP
    from tests.triton_oracle import TRITON_VERSION, installed_triton, triton_missing

    need(triton_missing())
    if installed_triton() != TRITON_VERSION:
        # What it checks is passviz's reading of the driver's log, which both Tritons print
        # alike (the matmul's tests run under each): one Triton keeps CI under 15 minutes.
        pytest.skip(f"checked under Triton {TRITON_VERSION}, CI's first stage")
    captured, expanded, dump = compiled(sys.executable, tmp_path, "flash_attention")
    # Against the dump as passviz imports it: the test's normalizing of a raw dump takes the
    # reduce regions' blocks, all ``^bb0``, for one block.
    check_expansion(captured, expanded, dump, raw=False)
    steps = {s.index for s in expanded.steps if s.name == DEDUPLICATED_STEP}
    assert steps
    assert expanded.initial is not None
    state = initial_state(expanded.initial)
    for step in expanded.steps[: max(steps) + 1]:
        before = {i: op.text.partition(" = ")[2] for i, op in state.ops.items()}
        apply_delta(state, step.delta)
        if step.index not in steps:
            continue
        # Each constant erased has a twin left, which the ops that used it use now.
        for erased in step.delta.get("ops_erased", []):
            twins = [i for i, op in state.ops.items() if op.text.partition(" = ")[2] == before[erased]]
            assert len(twins) == 1, (step.index, erased)
            twin = state.ops[twins[0]].results[0]
            assert all(twin in state.ops[c["id"]].operands for c in step.delta.get("ops_modified", []))
