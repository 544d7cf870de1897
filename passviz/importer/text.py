"""An imported trace's IR as text, printed from the trace's data alone (``trace.apply``'s
``IRData``): no dialect needs to be known, so no xDSL."""

from __future__ import annotations

from passviz.ir.placeholder import REGION_PATTERN
from passviz.trace.apply import IRData, apply_delta, initial_state
from passviz.trace.model import ReplayError, Trace

INDENT = "  "


def ir_text(state: IRData) -> str:
    """The module in ``state`` as MLIR prints it, values and blocks named by their ids, each op
    with its location (``loc(...)``) where it has one, aliases written out."""
    lines: list[str] = []
    stack: list[str | tuple[str, int, int]] = [(state.root, 0, 0)] if state.root in state.ops else []
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            lines.append(item)
            continue
        op_id, depth, index = item
        op = state.op(op_id)
        pad = INDENT * depth
        loc = f" {op.loc}" if op.loc else ""
        text = op.text.replace("\n", "\n" + pad)
        if not op.regions:
            lines.append(pad + text + loc)
            continue
        parts = REGION_PATTERN.split(text)
        heads = parts[0::3]
        flags = list(zip(parts[1::3], parts[2::3], strict=True))
        if index == len(op.regions):
            tail = heads[index] if len(heads) > index else ""
            lines.append(f"{pad}}}{tail}{loc}")
            continue
        head = heads[0] if index == 0 else "}" + (heads[index] if index < len(heads) else ", ")
        lines.append(pad + head + "{")
        args_in_header = flags[index][0] if index < len(flags) else None
        region = state.regions.get(op.regions[index])
        work: list[str | tuple[str, int, int]] = []
        for block_index, block_id in enumerate(region.blocks if region is not None else []):
            block = state.block(block_id)
            shown = block.args if block_index > 0 or not args_in_header else []
            if block_index > 0 or shown:
                args = ", ".join(
                    f"%{a}: {state.values[a].type}" if a in state.values else f"%{a}" for a in shown
                )
                work.append(f"{pad}^{block_id}{f'({args})' if args else ''}:")
            work.extend((child, depth + 1, 0) for child in block.ops)
        stack.append((op_id, depth, index + 1))
        stack.extend(reversed(work))
    return "\n".join(lines) + "\n"


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
