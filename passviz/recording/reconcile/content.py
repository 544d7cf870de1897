"""Diffing an op's content: operands, results, successors, regions, attributes, properties, location."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from xdsl.ir import ErasedSSAValue, Operation

from passviz.recording.reconcile.blocks import BlockChanges
from passviz.recording.reconcile.records import OpRec
from passviz.trace.model import OpChange

_T = TypeVar("_T")

_MAX_RETRIES = 16
"""How often an op's operands may be looked up again before they count as unresolvable."""


def _known_ids(items: Sequence[_T], ids: Mapping[_T, str], queue: list[_T]) -> list[str] | None:
    """The ids of ``items`` (an op's successors or regions); None where one has none yet, each
    such item queued to be registered."""
    unknown = [item for item in items if item not in ids]
    queue.extend(unknown)
    return None if unknown else [ids[item] for item in items]


class ContentDiff(BlockChanges):
    """Comparing each op's fields with its record; the differences become ``OpChange``s."""

    def _check_content(self, op: Operation) -> None:
        op_id = self.s.op_ids.get(op)
        if op_id is None:
            return
        rec = self.s.ops[op_id]
        missing = False
        operands: list[str] = []
        for value in op.operands:
            value_id = self.s.value_ids.get(value)
            if value_id is None:
                dangling = self._dangling(value)
                if dangling is not None or self.retries.get(op, 0) >= _MAX_RETRIES:
                    self._bad_operand(op, value, dangling or "a value the IR does not define")
                    # The IR still names the value (an ErasedSSAValue stands for the
                    # value it replaced): so does the trace, for replay to match.
                    known = value.old_value if isinstance(value, ErasedSSAValue) else value
                    old = self.s.value_ids.get(known) or self.graveyard.get(known)
                    if old is not None:
                        operands.append(old)
                    continue
                missing = True
                self._enqueue_owner(value)
                continue
            operands.append(value_id)
        successors = _known_ids(op.successors, self.s.block_ids, self.block_queue)
        regions = _known_ids(op.regions, self.s.region_ids, self.region_queue)
        if missing or successors is None or regions is None:
            self.retries[op] = self.retries.get(op, 0) + 1
            self.to_check.append(op)
            return
        if op_id in self.created_set:  # nothing to compare with: take it as it is
            self._take_content(rec)
            return
        results, results_changed = self._result_ids(rec)
        change = OpChange(id=op_id)
        if tuple(operands) != rec.operands:
            self._set_operands(rec, tuple(operands))
            change["operands"] = operands
        if results_changed:
            rec.results = results
            change["results"] = [self.s.value_info(v) for v in results]
        if tuple(successors) != rec.successors:
            rec.successors = tuple(successors)
            change["successors"] = successors
        if tuple(regions) != rec.regions:
            rec.regions = tuple(regions)
            change["regions"] = regions
        if op.attributes != rec.attrs:
            rec.attrs = dict(op.attributes)
            change["attrs"] = self.s.attr_texts(rec.attrs)
        if op.properties != rec.props:
            rec.props = dict(op.properties)
            change["props"] = self.s.attr_texts(rec.props)
        if op.location != rec.loc:
            rec.loc = op.location
            change["loc"] = self.s.attrs.text(op.location)  # `loc(unknown)` too
        if len(change) > 1:
            self.changes[op_id] = change

    def _result_ids(self, rec: OpRec) -> tuple[tuple[str, ...], bool]:
        changed = False
        ids: list[str] = []
        for result in rec.op.results:
            value_id = self.s.value_ids.get(result)
            if value_id is None:
                value_id = self._register_value(result)
                self.op_queue.extend(use.operation for use in result.uses)
                changed = True
            elif self._check_value_meta(value_id, result):
                changed = True
            ids.append(value_id)
        if tuple(ids) != rec.results:
            for old in rec.results:
                if old not in ids:
                    self._forget_value(old)
            changed = True
        return tuple(ids), changed
