"""Two traces of one input, step by step: where each step of one stands on the other.

``diverge`` aligns two traces pass by pass.  Stepping through both side by
side needs more: for every step of one trace, the step of the other that
shows the same point of the compile.  Exact counterparts are the initial IR,
the end of each pass both ran (as ``diverge`` compares them: what one side
alone ran between two such passes counts with the one before), and inside
such a pass, where both record it step by step, its ``pass-begin`` and its
rewrites in order (as ``diverge`` pairs them to find the first rewrite that
differs).  Every other step has no counterpart; the other side then stands
at the last exact counterpart before it, and the step says why it has none:

- ``within``: a step inside a pass both ran that the other side does not
  record step by step (a real compiler's dump: one step a pass), or one
  rewrite more than the other side made;
- ``alone``: a step of a pass only this side ran;
- ``beyond``: a step after the last pass both ran (a whole compile against
  its first stage).

Pure data, no replay: ``diverge`` has done the comparing.
"""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from passviz.trace.diverge import Divergence, Pass, passes
from passviz.trace.model import Trace
from passviz.trace.query import op_names, step_label

Pairing = Literal["aligned", "within", "alone", "beyond"]
"""How a step stands against the other trace (see the module's docstring)."""

PAIRINGS: tuple[Pairing, ...] = ("aligned", "within", "alone", "beyond")
"""The pairings, in the order the side-by-side page numbers them."""


@dataclass(frozen=True)
class Counterpart:
    """Where the other trace stands when one stands at a step."""

    step: int
    """The other trace's step (-1: its initial IR)."""
    pairing: Pairing
    """``aligned``: the same point of the compile; else why the step has no counterpart, the
    other trace standing at the last step aligned before it."""


@dataclass(frozen=True)
class StepAlignment:
    """Each step of two traces against the other."""

    pairs: list[tuple[int, int]]
    """The exact counterparts, ``(step of A, step of B)``, increasing on both sides; the initial
    IRs first."""
    a: list[Counterpart]
    """For each step of A, from its initial IR (index 0 is step -1), where B stands."""
    b: list[Counterpart]
    """For each step of B, from its initial IR, where A stands."""

    def of_a(self, step: int) -> Counterpart:
        """Where B stands when A stands at ``step`` (-1: the initial IR)."""
        return self.a[step + 1]

    def of_b(self, step: int) -> Counterpart:
        """Where A stands when B stands at ``step``."""
        return self.b[step + 1]


def _own_span(trace_passes: list[Pass], after: int, aligned: Pass) -> tuple[int, int] | None:
    """The steps of the pass ``aligned`` names, itself only (not what is folded into it), as
    ``(last step before it, its last step)``; None if no pass of that name ends in the span."""
    for index, candidate in enumerate(trace_passes):
        if after < candidate.step <= aligned.step and candidate.key == aligned.key:
            before = trace_passes[index - 1].step if index > 0 else -1
            return max(before, after), candidate.step
    return None


def _inner_pairs(
    a: Trace, span_a: tuple[int, int], b: Trace, span_b: tuple[int, int]
) -> list[tuple[int, int]]:
    """Inside one pass both record step by step: its ``pass-begin`` and its rewrites, in order."""
    steps_a = a.steps[span_a[0] + 1 : span_a[1] + 1]
    steps_b = b.steps[span_b[0] + 1 : span_b[1] + 1]
    pairs: list[tuple[int, int]] = []
    begin_a = next((s.index for s in steps_a if s.kind == "pass-begin"), None)
    begin_b = next((s.index for s in steps_b if s.kind == "pass-begin"), None)
    if begin_a is not None and begin_b is not None:
        pairs.append((begin_a, begin_b))
    rewrites_a = [s.index for s in steps_a if s.kind == "rewrite"]
    rewrites_b = [s.index for s in steps_b if s.kind == "rewrite"]
    pairs += zip(rewrites_a, rewrites_b, strict=False)
    return pairs


def _alone_steps(trace_passes: list[Pass], alone: list[Pass]) -> set[int]:
    """The steps of the passes in ``alone`` (each from after the pass before it to its end)."""
    found: set[int] = set()
    ends = {p.step for p in alone}
    previous = -1
    for candidate in trace_passes:
        if candidate.step in ends:
            found.update(range(previous + 1, candidate.step + 1))
        previous = candidate.step
    return found


def _counterparts(
    count: int, exact: dict[int, int], anchors: list[tuple[int, int]], last: int, alone: set[int]
) -> list[Counterpart]:
    """For each step of one side (from -1), where the other stands: ``exact`` maps a step to its
    counterpart; ``anchors`` are the pairs as (this side, other side), increasing."""
    keys = [mine for mine, _ in anchors]
    out: list[Counterpart] = []
    for step in range(-1, count):
        if step in exact:
            out.append(Counterpart(exact[step], "aligned"))
            continue
        other = anchors[bisect.bisect_right(keys, step) - 1][1]
        pairing: Pairing = "beyond" if step > last else "alone" if step in alone else "within"
        out.append(Counterpart(other, pairing))
    return out


def align_steps(a: Trace, b: Trace, result: Divergence) -> StepAlignment:
    """Each step of ``a`` and ``b`` against the other, from ``diverge(a, b)``'s passes."""
    passes_a, passes_b = passes(a), passes(b)
    pairs: list[tuple[int, int]] = [(-1, -1)]
    for pass_a, pass_b in result.aligned:
        after_a, after_b = pairs[-1]
        span_a = _own_span(passes_a, after_a, pass_a)
        span_b = _own_span(passes_b, after_b, pass_b)
        if span_a is not None and span_b is not None:
            pairs += _inner_pairs(a, span_a, b, span_b)
        pairs.append((pass_a.step, pass_b.step))
    last_a = result.aligned[-1][0].step if result.aligned else -1
    last_b = result.aligned[-1][1].step if result.aligned else -1
    to_b = dict(pairs)
    to_a = {j: i for i, j in pairs}
    return StepAlignment(
        pairs,
        _counterparts(len(a.steps), to_b, pairs, last_a, _alone_steps(passes_a, result.only_a)),
        _counterparts(
            len(b.steps), to_a, [(j, i) for i, j in pairs], last_b, _alone_steps(passes_b, result.only_b)
        ),
    )


def describe(trace: Trace) -> str:
    """One trace in a line: its input, where it comes from and its length."""
    source = "imported" if "imported" in trace.meta else "recorded"
    return f"{trace.meta.get('input', '?')} ({source}, {len(trace.steps)} steps)"


def _alone(alone: list[Pass]) -> str:
    counts = Counter(p.key for p in alone)
    return ", ".join(f"{key} x{n}" if n > 1 else key for key, n in counts.items())


def _label(trace: Trace, step: int) -> str:
    names = op_names(trace.initial["delta"] if trace.initial else None, trace.steps)
    return step_label(trace.steps[step], names)


def summary(a: Trace, b: Trace, result: Divergence) -> list[str]:
    """What ``passviz diverge`` says of ``diverge(a, b)``, line by line (the diff aside)."""
    lines = [f"A: {describe(a)}", f"B: {describe(b)}", f"aligned {len(result.aligned)} passes both ran"]
    for side, alone in (("A", result.only_a), ("B", result.only_b)):
        if alone:
            lines.append(
                f"{side} alone ran: {_alone(alone)} (between aligned passes: counted with the one before)"
            )
    if result.initial_differs:
        lines.append("the initial IRs differ: the traces are not of the same input")
        return lines
    if result.first is None:
        lines.append(f"no divergence: the IR agrees after each of the {len(result.aligned)} passes")
        return lines
    pass_a, pass_b = result.aligned[result.first]
    lines.append(
        f"first divergence: after pass {result.first + 1} of {len(result.aligned)}, "
        f"A step {pass_a.step} ({pass_a.label}), B step {pass_b.step} ({pass_b.label})"
    )
    if result.steps is not None:
        step_a, step_b = result.steps
        label_a, label_b = _label(a, step_a), _label(b, step_b)
        lines.append(f"  within it, first at A step {step_a} ({label_a}), B step {step_b} ({label_b})")
    return lines


def divergence_steps(result: Divergence) -> tuple[int, int] | None:
    """The steps, one of each trace, after which the two first differ (the initial IRs: -1, -1);
    None where they agree throughout."""
    if result.initial_differs:
        return (-1, -1)
    if result.first is None:
        return None
    if result.steps is not None:
        return result.steps
    pass_a, pass_b = result.aligned[result.first]
    return (pass_a.step, pass_b.step)
