"""A trace as the records of its file: the format's name and versions, and the JSON record of
the header, of each step and of the end.

Writing (``passviz.trace.store``) and the notebook's MIME data (``passviz.trace.summary``) both
use these.  This module reads only the fields of the ``Trace`` and ``Step`` it is given: it
imports the model for type checking alone, so the model's own displays can use it.  Reading
records back into a ``Trace`` is ``passviz.trace.store``'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from passviz.trace.model import Step, Trace

TRACE_FORMAT = "passviz-trace"
"""The value of the ``format`` key of every trace header."""

TRACE_VERSION = 2
"""The version of the trace format this module writes.

Version 2 stores the initial IR once, as the structured ``initial`` delta;
version 1 also stored it as MLIR text (``initial_ir``), and may lack
``initial``.  Both are read."""

READ_VERSIONS = (1, 2)
"""The trace format versions ``passviz.trace.store`` reads."""


def step_to_record(step: Step, *, in_pass: tuple[str, int] | None = None) -> dict[str, object]:
    """The JSON record of a step.

    Inside a pass (``in_pass``: the name and index of the last pass-begin),
    rewrites and checkpoints leave out the pass: the reader takes it from
    the pass-begin record.  Traces have thousands of steps; this keeps them small.
    """
    record: dict[str, object] = {"index": step.index, "kind": step.kind}
    inherited = step.kind in ("rewrite", "checkpoint", "failure") and in_pass == (
        step.pass_name,
        step.pass_index,
    )
    if step.pass_name is not None and not inherited:
        record["pass"] = step.pass_name
    if step.pass_index is not None and not inherited:
        record["pass_index"] = step.pass_index
    if step.name is not None:
        record["name"] = step.name
    if step.root is not None:
        record["root"] = step.root
    if step.delta:
        record["delta"] = step.delta
    if step.flag is not None:
        record["flag"] = step.flag
    if step.chain is not None:
        record["chain"] = step.chain
    if step.dispatch is not None:
        record["dispatch"] = step.dispatch
    return record


def enclosing_pass(step: Step, current: tuple[str, int] | None) -> tuple[str, int] | None:
    """The pass that the records after ``step`` inherit: ``step``'s own if it begins one."""
    if step.kind == "pass-begin" and step.pass_name is not None and step.pass_index is not None:
        return (step.pass_name, step.pass_index)
    return current


def header_record(trace: Trace) -> dict[str, object]:
    """The JSON record that opens a trace file.

    A trace with its ``initial`` delta gets a version 2 header, which stores the
    initial IR that way only; one read from a version 1 file without it keeps
    its version 1 header (the initial IR as text).
    """
    record: dict[str, object] = {"record": "header", "format": TRACE_FORMAT}
    if trace.initial is not None:
        record.update(version=TRACE_VERSION, meta=trace.meta, initial=trace.initial)
    elif trace.initial_ir is not None:
        record.update(version=1, meta=trace.meta, initial_ir=trace.initial_ir)
    else:
        raise ValueError("a trace without its initial IR cannot be written")
    if trace.sources:
        record["sources"] = trace.sources
    return record


def end_record(trace: Trace) -> dict[str, object]:
    """The JSON record that closes a trace file."""
    return {
        "record": "end",
        "status": "failed" if trace.status == "failed" else "ok",
        "steps": len(trace.steps),
    }


def trace_records(trace: Trace) -> list[dict[str, object]]:
    """Every record of the trace, as its file holds them: header, steps, end."""
    records = [header_record(trace)]
    in_pass: tuple[str, int] | None = None
    for step in trace.steps:
        in_pass = enclosing_pass(step, in_pass)
        records.append(step_to_record(step, in_pass=in_pass))
    if trace.status != "incomplete":
        records.append(end_record(trace))
    records.extend(dict(run) for run in trace.runs)
    return records
