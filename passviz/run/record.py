"""Run records: what a run or a bisect found, in the trace format (``RunRecord``).

A record names the step that ran, a digest of the inputs (arguments and grid)
and of the outputs, and the verdict against the reference, the initial IR's
run on the same inputs: ``same`` within the tolerance, ``differs``, or
``error`` when the run could not be compared (it failed where the reference
did not, or the other way round).  The first differing elements travel with
it.  JSON has no NaN or infinity: such elements are written as strings.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np

from passviz.interpret.values import Array
from passviz.run.bisect import BisectResult, Comparison, Outcome, compare
from passviz.run.launch import Argument
from passviz.trace.model import RunDifference, RunRecord, Verdict

if TYPE_CHECKING:
    from passviz.run.gpu_launch import GpuRun

DIGEST_LENGTH = 16
"""Hex digits kept of a SHA-256 digest: enough to tell inputs apart at a glance."""


def _feed(digest: hashlib._Hash, name: str, value: Array | int | float) -> None:  # pyright: ignore[reportPrivateUsage]
    digest.update(name.encode("utf-8") + b"\0")
    if isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value)
        digest.update(f"{data.dtype.str}{data.shape}".encode())
        digest.update(data.tobytes())
    else:
        digest.update(repr(value).encode())


def inputs_digest(arguments: Sequence[Argument], grid: Sequence[int]) -> str:
    """A digest of the arguments (names, types, shapes, elements, scalars) and the grid."""
    digest = hashlib.sha256()
    for name, value in arguments:
        _feed(digest, name, value)
    digest.update(f"grid{tuple(grid)}".encode())
    return digest.hexdigest()[:DIGEST_LENGTH]


def outputs_digest(outputs: dict[str, Array]) -> str:
    """A digest of the buffers a run wrote, by name."""
    digest = hashlib.sha256()
    for name in sorted(outputs):
        _feed(digest, name, outputs[name])
    return digest.hexdigest()[:DIGEST_LENGTH]


SIGNIFICANT = 11
"""Significant digits kept of a float: trace readers refuse numbers of more than 15 digits, and
``0.000123...`` spends four of them on zeros."""


def _fits(text: str) -> bool:
    return len(text.lower().partition("e")[0].replace(".", "").lstrip("-")) <= 15


def json_number(value: object) -> float | int | bool | str:
    """``value`` as a trace reader takes it: NaN and infinities become ``nan``, ``inf``, ``-inf``,
    floats keep ``SIGNIFICANT`` digits, and numbers still too long to read back become strings."""
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value if _fits(str(value)) else str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        short = float(f"{value:.{SIGNIFICANT}g}")
        return short if _fits(repr(short)) else f"{value:.{SIGNIFICANT}g}"
    return str(value)


def json_float(value: float) -> float:
    """A finite, non-negative float as a trace reader takes it (rounded up to fit: an error bound)."""
    short = json_number(value)
    return short if isinstance(short, float) else float(f"{value:.6e}")


def run_record(
    outcome: Outcome,
    comparison: Comparison | None,
    digest: str,
    *,
    spec: str | None = None,
    origin: Literal["run", "bisect"] = "run",
    first: bool = False,
) -> RunRecord:
    """The record of ``outcome``, judged by ``comparison`` against the reference (None: no
    reference to judge by, the verdict says only whether the run failed)."""
    verdict: Verdict = "same" if comparison is None or comparison.same else "differs"
    if outcome.error is not None and (comparison is None or not comparison.same):
        verdict = "error"
    record = RunRecord(record="run", step=outcome.step, backend="cpu", inputs=digest, verdict=verdict)
    record["origin"] = origin
    if first:
        record["first"] = True
    if spec is not None:
        record["spec"] = spec
    if outcome.error is None:
        record["outputs"] = outputs_digest(outcome.outputs)
    if comparison is not None and not comparison.same:
        record["count"] = comparison.count
        if math.isfinite(comparison.max_error):
            record["max_error"] = json_float(comparison.max_error)
        record["differences"] = [
            RunDifference(
                buffer=d.buffer, index=d.index, expected=json_number(d.expected), got=json_number(d.got)
            )
            for d in comparison.differences
        ]
    elif comparison is not None:
        record["max_error"] = 0.0
    message = (comparison.reason if comparison is not None else None) or outcome.error
    if message is not None:
        record["message"] = message
    return record


def gpu_run_record(
    step: int,
    gpu: GpuRun,
    comparison: Comparison | None,
    digest: str,
    *,
    spec: str | None = None,
) -> RunRecord:
    """The record of a GPU run of ``step``, judged against the CPU interpreter's run of the same
    step (``comparison``, as ``gpu_launch.compare_with_cpu`` gives it; None when the CPU could not
    run it, said in its message): ``error`` when the launch was flagged, its device, kernel time and
    GB/s when it ran."""
    outcome = Outcome(step, {name: gpu.buffers[name] for name in sorted(gpu.changed)}, error=gpu.error)
    record = run_record(outcome, comparison if gpu.error is None else None, digest, spec=spec)
    record["backend"] = "gpu"
    record["reference"] = "cpu"
    if gpu.device:
        record["device"] = gpu.device
    if gpu.milliseconds is not None:
        record["time_ms"] = json_float(gpu.milliseconds)
    if gpu.gbps is not None:
        record["gbps"] = json_float(gpu.gbps)
    if gpu.error is None and comparison is None:
        # The verdict cannot say "unchecked"; the message does.
        record["message"] = "not checked: the CPU interpreter cannot run this step"
    return record


def bisect_records(
    result: BisectResult,
    digest: str,
    *,
    spec: str | None = None,
    tolerance: tuple[float, float] | None = None,
) -> list[RunRecord]:
    """One record for every step a bisect ran, in step order (the initial IR's first); the step
    it found is marked ``first``."""
    reference = result.runs[result.reference]
    records: list[RunRecord] = []
    for step in sorted(result.runs):
        outcome = result.runs[step]
        if not outcome.runnable:
            continue
        comparison = None if step == result.reference else compare(reference, outcome, tolerance=tolerance)
        records.append(
            run_record(outcome, comparison, digest, spec=spec, origin="bisect", first=step == result.first)
        )
    return records
