"""IREE's dispatch passes (form dispatch regions, convert them to workgroups, outline
them) on their peer test files: for each input chunk, ``iree-opt`` prints passviz's
output of the file's RUN-line pipeline exactly as it prints its own output of it,
and that print passes the chunk's CHECK lines."""

from __future__ import annotations

import re
import shlex
import subprocess

import pytest
from _pytest.mark import ParameterSet
from xdsl.dialects.builtin import ModuleOp

from passviz.dialects import make_context
from passviz.pipelines import RecordOptions, TraceRun, record
from passviz.trace.irtext import print_module
from passviz.trace.mlir_parser import MLIRParser
from passviz.trace.replay import Replayer
from tests.conftest import PEER, filecheck, iree_opt, iree_opt_missing, need, peer_file, split_chunks

pytestmark = pytest.mark.iree

FILES = {
    "form_dispatch_workgroups": "iree/compiler/src/iree/compiler/DispatchCreation/test/form_dispatch_workgroups.mlir",
    "convert_region_to_workgroups": (
        "iree/compiler/src/iree/compiler/DispatchCreation/test/convert_region_to_workgroups.mlir"
    ),
    "outline_dispatch_regions": "iree/compiler/src/iree/compiler/Dialect/Flow/Transforms/test/outline_dispatch_regions.mlir",
}
"""Each peer file, by name."""

SKIPS: dict[str, str] = {}
"""Chunks passviz does not make equal to iree-opt's output, and why."""

_PRINT_FLAGS = ("--allow-unregistered-dialect", "--mlir-print-local-scope")
"""RUN-line flags that change how iree-opt reads or prints, not what runs."""


def _run_line(relative: str) -> tuple[list[str], list[str]]:
    """The RUN line's pass flags (``--pass-pipeline=...`` or ``--iree-...``) and its print flags."""
    line = peer_file(relative).read_text().splitlines()[0].removeprefix("// RUN:")
    words = shlex.split(line.split("|")[0])
    passes = [w for w in words if w.startswith("--pass-pipeline=") or re.match(r"--iree-[\w-]+$", w)]
    flags = [w for w in words if w in _PRINT_FLAGS]
    return passes, flags


def passviz_pipeline(passes: list[str]) -> str:
    """The passviz pipeline of a RUN line's passes: MLIR's nesting (``builtin.module(util.func(...))``)
    dropped, since passviz runs every pass on the whole module."""
    if passes[0].startswith("--pass-pipeline="):
        spec = passes[0].removeprefix("--pass-pipeline=")
        spec = re.sub(r"[\w.]+\(", "", spec).replace(")", "")
        return ",".join(name.strip() for name in spec.split(","))
    return ",".join(p.removeprefix("--") for p in passes)


def _cases() -> list[ParameterSet]:
    cases: list[ParameterSet] = []
    for stem, relative in FILES.items():
        path = PEER / relative
        chunks = split_chunks(path.read_text()) if path.exists() else [""]
        for index in range(len(chunks)):
            case_id = f"{stem}-{index}"
            marks = [pytest.mark.skip(reason=SKIPS[case_id])] if case_id in SKIPS else []
            cases.append(pytest.param(relative, index, id=case_id, marks=marks))
    return cases


def _chunk(relative: str, index: int) -> str:
    return split_chunks(peer_file(relative).read_text())[index]


def _checks(chunk: str) -> str:
    """The chunk's FileCheck directives (the CHECK lines, input lines blanked)."""
    return "\n".join(line if re.match(r"\s*//\s*CHECK", line) else "" for line in chunk.splitlines())


def _record(chunk: str, pipeline: str, flags: list[str], options: RecordOptions | None = None) -> TraceRun:
    """passviz's run of ``pipeline`` on ``chunk``, reading unknown ops where the RUN line lets iree-opt."""
    allow = "--allow-unregistered-dialect" in flags
    source: str | ModuleOp = (
        MLIRParser(make_context(allow_unregistered=True), chunk).parse_module() if allow else chunk
    )
    return record(source, pipeline, options=options or RecordOptions())


def _iree_opt(text: str, *flags: str) -> str:
    done = subprocess.run([iree_opt(), *flags, "-"], input=text, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(("relative", "index"), _cases())
def test_output_is_iree_opts(relative: str, index: int) -> None:
    """iree-opt prints passviz's output of the RUN line's passes as its own, and it passes the CHECK lines."""
    need(iree_opt_missing())
    chunk = _chunk(relative, index)
    passes, flags = _run_line(relative)
    run = _record(chunk, passviz_pipeline(passes), flags)
    assert run.trace.status == "ok", run.trace.failed_steps
    ours = _iree_opt(print_module(run.module), *flags)
    assert ours == _iree_opt(chunk, *flags, *passes)
    filecheck(ours, _checks(chunk))


@pytest.mark.parametrize(("relative", "index"), _cases())
def test_every_step_replays(relative: str, index: int) -> None:
    """The trace replays to the live IR at every step, verifying after every rewrite."""
    chunk = _chunk(relative, index)
    passes, flags = _run_line(relative)
    run = _record(chunk, passviz_pipeline(passes), flags, RecordOptions(check=True, verify_each="rewrite"))
    assert run.trace.status == "ok", run.trace.failed_steps
    replayer = Replayer(run.trace)
    for step_index, step in enumerate(run.trace.steps):
        replayer.advance_to(step_index)
        assert replayer.text() == run.tracer.snapshots[step_index + 1], f"step {step_index} ({step.name})"


def test_workgroups_steps_list_the_dispatch_members() -> None:
    """Each conversion is one step whose dispatch field holds the workgroups op and its body's ops."""
    chunk = _chunk(FILES["convert_region_to_workgroups"], 0)
    run = record(chunk, "iree-dispatch-creation-convert-dispatch-regions-to-workgroups")
    steps = [s for s in run.trace.steps if s.name == "ConvertDispatchRegionToWorkgroups"]
    assert len(steps) == 2
    last = steps[-1].dispatch
    assert last is not None and len(last) == 2
    # The second workgroups op holds two loads, the empty, fill, matmul, the store (and its constant).
    assert len(last[1]) == 1 + 7
