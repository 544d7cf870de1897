"""An imported trace's IR as text, printed from the trace's data alone (``trace.apply``'s
``IRData``): no dialect needs to be known, so no xDSL."""

from __future__ import annotations

from passviz.trace.apply import IRData, apply_delta, initial_state, ir_lines
from passviz.trace.model import ReplayError, Trace


def ir_text(state: IRData) -> str:
    """The module in ``state`` as MLIR prints it, values and blocks named by their ids, each op
    with its location (``loc(...)``) where it has one, aliases written out."""
    return "".join(f"{line.text}\n" for line in ir_lines(state, locations=True))


class TextReplayer:
    """Replays an imported trace as data (``Trace.replayer`` for a trace with ``meta.imported``)."""

    def __init__(self, trace: Trace) -> None:
        if trace.initial is None:
            raise ReplayError(f"{trace.where()}this imported trace has no initial IR")
        self.trace = trace
        self.state = initial_state(trace.initial)
        self.position = -1

    def advance_to(self, index: int) -> None:
        if index < self.position:
            raise ReplayError("a replayer only moves forward; make a new one to go back")
        while self.position < index:
            self.position += 1
            step = self.trace.steps[self.position]
            try:
                apply_delta(self.state, step.delta)
            except Exception as exc:
                where = self.trace.where(self.position)
                raise ReplayError(f"{where}step {step.index}: cannot apply its delta: {exc}") from exc

    def text(self) -> str:
        return ir_text(self.state)
