"""What ``passviz run`` and ``passviz bisect`` print."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from passviz.interpret.values import Array, describe_location
from passviz.recording.replay import Replayer
from passviz.run.bisect import INITIAL, BisectResult
from passviz.trace.model import Step, Trace
from passviz.trace.query import op_names, step_label


def step_name(step: int) -> str:
    """``step 3``, or ``the initial IR``."""
    return "the initial IR" if step == INITIAL else f"step {step}"


def summarize(name: str, data: Array, shown: int = 6) -> str:
    """One line about an output buffer: size, type, range, mean and its first elements."""
    head = ", ".join(f"{v:.6g}" if isinstance(v, float) else str(v) for v in data[:shown].tolist())
    more = ", ..." if data.size > shown else ""
    line = f"{name}: {data.size} x {data.dtype.name}  [{head}{more}]"
    if data.size == 0 or not np.issubdtype(data.dtype, np.number):
        return line
    wide = data.astype(np.float64)
    finite = wide[np.isfinite(wide)]
    if finite.size == 0:
        return f"{line}  no finite element"
    return f"{line}  min {finite.min():.6g}  max {finite.max():.6g}  mean {finite.mean():.6g}"


def matched_location(trace: Trace, step: Step) -> str | None:
    """Where the op the step matched is, in the IR just before the step (its source line when the
    IR has locations), or None when the step matched no op."""
    if step.root is None:
        return None
    replayer = Replayer(trace)
    replayer.advance_to(step.index - 1)
    op = replayer.ops.get(step.root)
    return describe_location(op, step.root) if op is not None else None


def _ranges(steps: list[int]) -> str:
    """``0-5, 8, 10-11``: sorted step indices, consecutive ones as ranges."""
    parts: list[str] = []
    start = previous = None
    for step in [*steps, None]:
        if start is not None and previous is not None and (step is None or step != previous + 1):
            parts.append(str(start) if start == previous else f"{start}-{previous}")
            start = None
        if start is None:
            start = step
        previous = step
    return ", ".join(parts) or "none"


def _number(value: object) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def save_outputs(path: str, outputs: dict[str, Array]) -> None:
    """Save the written buffers to an ``.npz`` file, each under its argument's name."""
    np.savez(path, **cast("dict[str, Any]", outputs))


def describe_bisect(trace: Trace, result: BisectResult) -> list[str]:
    """The lines ``passviz bisect`` prints: the verdict, the step, the elements that changed."""
    ran = _ranges(sorted(step for step in result.runs if step != INITIAL))
    reference = result.runs[result.reference]
    count = len(result.runs) - 1
    lines = [f"ran the initial IR and {count} step{'s' * (count != 1)}: {ran}"]
    if result.reference != INITIAL:
        lines.append(f"compared with {step_name(result.reference)}, the first IR that runs")
    if reference.error is not None:
        lines.append(f"{step_name(result.reference)} fails: {reference.error}")
    for outcome in result.runs.values():
        if not outcome.runnable:
            lines.append(f"{step_name(outcome.step)} cannot run, stepped around: {outcome.error}")
    if result.first is None or result.step is None or result.comparison is None:
        lines.append(
            f"no step changes the outputs: the last step that runs matches {step_name(result.reference)}"
        )
        return lines
    step = result.step
    names = op_names(trace.initial["delta"] if trace.initial else None, trace.steps)
    root = f" on {names.get(step.root, step.root)}" if step.root else ""
    where = matched_location(trace, step)
    root += f" at {where}" if where else ""
    lines.append(
        f"first differing step: {step.index}  {step.kind}  {step.pass_name or '-'}  "
        f"{step_label(step, names)}{root}"
    )
    comparison = result.comparison
    if comparison.reason is not None:
        lines.append(f"  {comparison.reason}")
    else:
        lines.append(f"  {comparison.count} elements differ, max error {comparison.max_error:.6g}")
    for difference in comparison.differences:
        expected, got = _number(difference.expected), _number(difference.got)
        lines.append(f"  {difference.buffer}[{difference.index}]: expected {expected}, got {got}")
    return lines
