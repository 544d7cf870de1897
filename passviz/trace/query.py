"""Questions asked of a recorded trace: an op's lineage, and which steps to show.

Both read only the deltas, so they work on a trace read from disk without
replaying it.  The model is imported for type checking alone: ``Trace.lineage``
and ``Trace.filter_steps`` are this module's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from passviz.trace.model import Delta, Step

LineageAction = Literal["created", "modified", "moved", "replaced", "erased"]
"""What a step did to an op."""

_ACTION_ORDER: dict[LineageAction, int] = {
    "created": 0,
    "modified": 1,
    "moved": 2,
    "replaced": 3,
    "erased": 4,
}


@dataclass(frozen=True)
class LineageEvent:
    """One thing a step did to one op of a lineage."""

    step: int
    """The index of the step."""
    op: str
    """The op's stable id."""
    action: LineageAction
    """What the step did to the op."""
    by: tuple[str, ...] = ()
    """For ``replaced``: the ops whose results took over the op's uses."""
    text: str | None = None
    """The op's text as the step left it (before erasure, for ``erased``)."""
    pattern: str | None = None
    """The pattern or checkpoint name of the step."""


def touched_ops(delta: Delta) -> set[str]:
    """Every op id a delta mentions: created, erased, changed, moved or replaced."""
    found: set[str] = set(delta.get("ops_erased", ()))
    found.update(info["id"] for info in delta.get("ops_created", ()))
    found.update(change["id"] for change in delta.get("ops_modified", ()))
    found.update(delta.get("ops_moved", ()))
    found.update(p["id"] for p in delta.get("placed", ()))
    for replacement in delta.get("replaced", ()):
        found.add(replacement["op"])
        found.update(replacement["by"])
    return found


def _events_of(step: Step) -> Iterable[LineageEvent]:
    delta = step.delta
    texts = delta.get("texts", {})

    def event(op_id: str, action: LineageAction, by: tuple[str, ...] = ()) -> LineageEvent:
        return LineageEvent(step.index, op_id, action, by, texts.get(op_id), step.name)

    for info in delta.get("ops_created", ()):
        yield event(info["id"], "created")
    for change in delta.get("ops_modified", ()):
        yield event(change["id"], "modified")
    for op_id in delta.get("ops_moved", ()):
        yield event(op_id, "moved")
    for replacement in delta.get("replaced", ()):
        yield event(replacement["op"], "replaced", tuple(replacement["by"]))
    for op_id in delta.get("ops_erased", ()):
        yield event(op_id, "erased")


def lineage(steps: Sequence[Step], op_id: str) -> list[LineageEvent]:
    """The steps that created, changed, replaced or erased ``op_id`` and its kin.

    Replace links are followed both ways: forward to the ops that took over
    the op's uses (and on to theirs), and backward to the ops it took over
    from.  A folded chain thus reads as one story, from the first op of the
    chain to the op that is left.
    """
    events: dict[str, list[LineageEvent]] = {}
    forward: dict[str, set[str]] = {}
    backward: dict[str, set[str]] = {}
    for step in steps:
        for item in _events_of(step):
            events.setdefault(item.op, []).append(item)
            if item.action != "replaced":
                continue
            for new in item.by:
                if new == item.op:
                    continue
                forward.setdefault(item.op, set()).add(new)
                backward.setdefault(new, set()).add(item.op)
    kin = _reachable(op_id, forward) | _reachable(op_id, backward)
    found = [item for op in kin for item in events.get(op, ())]
    found.sort(key=lambda e: (e.step, _ACTION_ORDER[e.action], e.op))
    return found


def _reachable(start: str, links: dict[str, set[str]]) -> set[str]:
    seen = {start}
    todo = [start]
    while todo:
        for nxt in links.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


@dataclass(frozen=True)
class StepFilter:
    """Which steps to show: every criterion given must hold.

    Flagged steps (failures, verifier errors, rewrite loops) are kept by
    ``changed_only``, since a failure that changed nothing is still news.
    """

    changed_only: bool = False
    """Hide steps that changed nothing (pass boundaries, empty checkpoints)."""
    pass_name: str | None = None
    """Only the steps of this pass (exact name)."""
    pattern: str | None = None
    """Only the steps whose pattern or checkpoint name contains this, ignoring case."""
    touching: str | None = None
    """Only the steps that created, erased, changed, moved or replaced this op id."""

    def matches(self, step: Step) -> bool:
        """True if ``step`` passes every criterion."""
        if self.changed_only and not step.changed and step.flag is None:
            return False
        if self.pass_name is not None and step.pass_name != self.pass_name:
            return False
        if self.pattern and self.pattern.lower() not in (step.name or "").lower():
            return False
        if self.touching is not None and self.touching not in _mentions(step):
            return False
        return True

    def apply(self, steps: Iterable[Step]) -> list[Step]:
        """The steps that match, in order."""
        return [step for step in steps if self.matches(step)]


def _mentions(step: Step) -> set[str]:
    found = touched_ops(step.delta)
    if step.root is not None:
        found.add(step.root)
    return found


AUTOMATIC_NAMES = frozenset(
    {"fold", "erase-dead-op", "unique-constant", "hoist-constant", "simplify-regions", "cse"}
)
"""Step names that say what was done, not which pattern did it: lists name their op too."""


def op_names(initial: Delta | None, steps: Iterable[Step]) -> dict[str, str]:
    """Every op's name by id, from the initial IR and every step's created ops."""
    names: dict[str, str] = {}
    deltas: list[Delta] = [initial] if initial is not None else []
    for delta in [*deltas, *(step.delta for step in steps)]:
        for info in delta.get("ops_created", ()):
            names[info["id"]] = info["name"]
    return names


def step_label(step: Step, names: dict[str, str]) -> str:
    """The step's name as lists show it: ``fold arith.addi → %v12`` for the greedy driver's own steps.

    The viewer's ``stepLabel`` (``extension/src/model/steps.ts``) is its twin.
    """
    name = step.name or step.kind
    if step.name not in AUTOMATIC_NAMES or step.root is None:
        return name
    op = names.get(step.root, step.root)
    into = [
        f"%{new}"
        for replacement in step.delta.get("replaced", ())
        if replacement["op"] == step.root
        for _, new in replacement["values"]
        if new is not None
    ]
    return f"{name} {op} → {', '.join(into)}" if into else f"{name} {op}"
