"""``record_rewrites``: a captured Triton compile's pass expanded rewrite by rewrite from MLIR's
pattern log, checked against Triton itself (the pass's output as ``MLIR_ENABLE_DUMP`` printed
it in the capture) on the tutorial matmul, under Triton 3.6 and (slow) 3.9."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from passviz.importer import TextReplayer
from passviz.ir.errors import InputError
from passviz.trace.model import Step, Trace
from passviz.trace.store import read_trace, write_trace
from tests.conftest import need, triton_39_python
from tests.test_import_dump import assert_same_ir

PASS = "tritongpu-remove-layout-conversions"
ROOT = Path(__file__).resolve().parents[1]
PATTERN_NAME = r"^[\w:() ]+::\w+$"
"""A C++ pattern class's qualified name, as MLIR's log prints it."""


@pytest.fixture(scope="module")
def matmul() -> tuple[Trace, Trace]:
    """The tutorial matmul captured by the installed Triton, and the same with the pass expanded."""
    from tests.triton_oracle import triton_missing

    need(triton_missing())
    import passviz
    from passviz.compilers.triton.rewrites import record_rewrites
    from tests.triton_kernels import KERNELS

    kernel = KERNELS["matmul"]
    captured = passviz.capture_triton(kernel.fn, kernel.signature, dict(kernel.constexprs))
    return captured, record_rewrites(captured, [PASS], target="cuda:90")


def _texts(trace: Trace, wanted: set[int]) -> dict[int, str]:
    """The IR after each ``wanted`` step of ``trace``, replayed from its deltas."""
    replayer = TextReplayer(trace)
    texts: dict[int, str] = {}
    for index in sorted(wanted):
        replayer.advance_to(index)
        texts[index] = replayer.text()
    return texts


def _runs(trace: Trace) -> list[tuple[list[Step], Step]]:
    """Each expanded run of the pass: its pattern steps and the pass's own step after them."""
    runs: list[tuple[list[Step], Step]] = []
    patterns: list[Step] = []
    for step in trace.steps:
        if step.kind == "rewrite":
            patterns.append(step)
        elif patterns:
            runs.append((patterns, step))
            patterns = []
    return runs


@pytest.mark.triton
def test_pass_expands_into_pattern_steps_ending_at_its_output(matmul: tuple[Trace, Trace]) -> None:
    captured, expanded = matmul
    runs = _runs(expanded)
    assert runs, "the pass applied no pattern in the matmul"
    passes = [s for s in captured.steps if s.name == "TritonGPURemoveLayoutConversions"]
    assert len(runs) <= len(passes)
    assert len(expanded.steps) == len(captured.steps) + sum(len(p) for p, _ in runs)
    for patterns, end in runs:
        assert end.name == "TritonGPURemoveLayoutConversions" and end.kind == "pass-end"
        for step in patterns:
            assert re.match(PATTERN_NAME, step.name or ""), step.name
            assert step.changed, f"step {step.index} ({step.name}) changed nothing"
            assert step.pass_index == end.pass_index and step.pass_name == end.pass_name
        # What the log cannot show is after the last application: the greedy driver erasing
        # the ops left dead; nothing created, no op's text changed.
        residual = end.delta
        assert not residual.get("ops_created") and not residual.get("texts"), end.index
        for change in residual.get("ops_modified", []):
            assert set(change) <= {"id", "loc"}, change
    # The pass's steps show the IR Triton printed after the pass, and every step after (their ids
    # renamed to the expansion's) the IR the capture showed, to the last one.
    original = {
        s.index: s.index - sum(1 for r in expanded.steps[: s.index] if r.kind == "rewrite")
        for s in expanded.steps
    }
    checked = {end.index for _, end in runs} | {end.index + 1 for _, end in runs} | {len(expanded.steps) - 1}
    checked = {i for i in checked if i < len(expanded.steps)}
    texts = _texts(expanded, checked)
    oracle = _texts(captured, {original[i] for i in checked})
    for index in checked:
        assert_same_ir(oracle[original[index]], texts[index], f"step {index}")


@pytest.mark.triton
def test_expanded_trace_is_written_and_read_back(matmul: tuple[Trace, Trace], tmp_path: Path) -> None:
    _, expanded = matmul
    write_trace(expanded, tmp_path / "matmul.passviz.json.gz")
    back = read_trace(tmp_path / "matmul.passviz.json.gz")
    assert [(s.kind, s.name, s.pass_name, s.delta) for s in back.steps] == [
        (s.kind, s.name, s.pass_name, s.delta) for s in expanded.steps
    ]


@pytest.mark.triton
def test_each_application_shows_what_the_pattern_does(matmul: tuple[Trace, Trace]) -> None:
    """CanonicalizeConvertFromConvert replaces a ``ttg.convert_layout`` (Triton's pattern folds a
    convert of a convert): each of its steps erases or makes one; a step's root is an op it
    erased or changed."""
    _, expanded = matmul
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


@pytest.mark.triton
def test_a_pass_it_cannot_expand_says_so(matmul: tuple[Trace, Trace]) -> None:
    from passviz.compilers.triton.rewrites import record_rewrites

    captured, _ = matmul
    with pytest.raises(InputError, match="ran no such pass.*tritongpu-remove-layout-conversions"):
        record_rewrites(captured, ["no-such-pass"], target="cuda:90")
    # A pass the compile ran that no add function of Triton's adds alone.
    with pytest.raises(InputError, match="cannot run this pass alone.*it can run:.*tritongpu-coalesce"):
        record_rewrites(captured, ["ConvertTritonGPUToLLVM"], target="cuda:90")


TRITON_39 = """
import json, sys
sys.path.insert(0, {root!r})
import passviz
from passviz.compilers.triton.rewrites import record_rewrites
from passviz.importer import TextReplayer
from tests.triton_kernels import KERNELS
kernel = KERNELS["matmul"]
captured = passviz.capture_triton(kernel.fn, kernel.signature, dict(kernel.constexprs))
expanded = record_rewrites(captured, [{name!r}], target="cuda:90")
replayer = TextReplayer(expanded)
replayer.advance_to(len(expanded.steps) - 1)
final = TextReplayer(captured)
final.advance_to(len(captured.steps) - 1)
steps = [dict(kind=s.kind, name=s.name, changed=s.changed, delta=s.delta) for s in expanded.steps]
json.dump(dict(steps=steps, count=len(captured.steps), final=replayer.text(), oracle=final.text()), sys.stdout)
"""


@pytest.mark.triton
@pytest.mark.slow
def test_triton_39_log_expands_the_same_way() -> None:
    python = triton_39_python()
    script = textwrap.dedent(TRITON_39.format(root=str(ROOT), name=PASS))
    done = subprocess.run(
        [str(python), "-c", script], capture_output=True, text=True, check=False, cwd=ROOT, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout)
    rewrites = [s for s in result["steps"] if s["kind"] == "rewrite"]
    assert len(rewrites) >= 5 and all(s["changed"] for s in rewrites)
    assert len(result["steps"]) == result["count"] + len(rewrites)
    assert_same_ir(result["oracle"], result["final"], "the last step")
    print(len(rewrites), "pattern steps under Triton 3.9", file=sys.stderr)
