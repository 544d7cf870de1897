"""A captured Triton compile's passes, rewrite by rewrite, from MLIR's own pattern log.

``passviz triton --rewrites PASS`` (``record_rewrites``): for each step of the captured trace
that is PASS, the IR before it (the trace's own state, with locations) is run again through a
pass manager holding only PASS, in a child process (``rewrite_child``) with Triton's
``TRITON_LLVM_DEBUG_ONLY=greedy-rewriter,pattern-application:2``: MLIR's greedy driver logs each
op it takes up (printed in generic form), each pattern it applies (its name, the op it matched,
the ops it inserted, replaced, modified and erased) with the enclosing function printed after
it, and each op it erases as trivially dead.  Each application becomes a ``rewrite`` step named
after its pattern, its function read and matched (``passviz.importer``) against the IR before
it, so that ops keep their ids.  Each run of trivially dead ops the driver erased between two
applications, or after the last, is a ``rewrite`` step of its own (``DEAD_STEP``): the log
prints no IR after those, so each erased op is found in the IR as the one op of its name that
nothing uses and that prints with the value numbers the log printed it with.  So is each run of
constants it replaced by an equal twin as an iteration began (``DEDUPLICATED_STEP``: the one
constant used by the ops the log says it changed, with one twin).  Whatever is left
from there to the pass's output is one last ``rewrite`` step saying so (``UNLOGGED_STEP``, or
``LOCATIONS_STEP`` where only locations differ: the log's dumps print none), so that the last
rewrite step shows the pass's output and the pass's own step after it changes nothing.

What the log cannot show: the pass's own code that rewrites without patterns (the layout
propagation and rematerialization of ``tritongpu-remove-layout-conversions``) runs between
two of its greedy driver runs, unlogged; its changes, and the driver's erasures logged after
them (whose ops the IR known so far cannot tell), land in the next application's step (a note
says which step, and the first change it could not place).  So does a fold (logged, but with
no IR after it) and all the driver did after it up to that step.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from passviz.importer.delta import Flat, diff, flatten, op_text
from passviz.importer.identity import Ids, match
from passviz.importer.reader import Block, Op, ReadError, Region, Use, Value, read_ir
from passviz.importer.text import ir_text
from passviz.ir.errors import InputError
from passviz.trace.apply import IRData, apply_delta, initial_state
from passviz.trace.model import Delta, Step, Trace

_PREFIX = re.compile(r"^\[[\w.-]+(?::\d+| [^\]]*)\] ?")
"""LLVM's debug line prefix (``[greedy-rewriter:1] ``, ``[pattern-application File.cpp:54 2] ``);
older LLVMs write none."""
_PATTERN = re.compile(r"^\s*\* Pattern (.+?) : '(\S+) -> \((.*)\)' \{$")
_EVENT = re.compile(r"^\s*\*\* (Insert|Replace|Modified|Erase|Fold)\s*: '([^']+)'\((0x[0-9a-fA-F]+)\)")
_PROCESSING = re.compile(r"^\s*Processing operation : '([^']+)'\((0x[0-9a-fA-F]+)\)")
_APPLIED = "-> success : pattern applied successfully"
_FAILED = re.compile(r"^\s*\} -> failure\b")
_DUMP = "// *** IR Dump After Pattern Application ***"
_CHILD_SECONDS = 600
"""How long the child may run the passes (each takes seconds; a hang is said, not waited out)."""
_ID = re.compile(r"\b([obrv])(\d+)\b")


Event = tuple[str, str, str]
"""What the log says happened to an op: (``Insert``/``Replace``/``Modified``/``Erase``, its name,
its address)."""

TRIVIALLY_DEAD = "operation is trivially dead"
"""How the greedy driver's log says it erased an op whose results nothing uses."""
DEAD_STEP = "trivially dead ops erased (greedy driver)"
"""The step of the ops the greedy driver erased as trivially dead between two pattern
applications, or after the last one."""
DEDUPLICATED_STEP = "constants deduplicated (greedy driver)"
"""The step of the constants the greedy driver replaced by an equal one and erased as an
iteration began."""
UNLOGGED_STEP = "changes MLIR's log does not show (the pass's own code)"
"""The step of what is left from the last logged change to the pass's output."""
LOCATIONS_STEP = "locations changed (MLIR's log prints none, so not when)"
"""That step where all that is left is ops' locations: the log's IR dumps print no locations."""
_UNPRINTED = "pattern applied, the IR after it not printed"


@dataclass
class DriverAction:
    """What MLIR's greedy driver did to one op outside any pattern, as its log tells it."""

    outcome: str
    """How the log ends the op's processing (``operation is trivially dead``, ``operation was
    folded``); empty for a change logged outside any op's processing."""
    name: str
    address: str
    printed: str
    """The op as the driver printed it when it took it up (generic form, module-wide value
    numbers); empty for an op with regions, which it prints no text of."""
    events: list[Event] = field(default_factory=lambda: list[Event]())


@dataclass
class Application:
    """One pattern application as MLIR's log tells it."""

    pattern: str
    """The pattern's debug name (``mlir::triton::gpu::CanonicalizeConvertFromConvert``)."""
    root: str
    """The name of the op it matched."""
    root_address: str | None
    events: list[Event] = field(default_factory=lambda: list[Event]())
    """What it did, in order."""
    outside: list[DriverAction] = field(default_factory=lambda: list[DriverAction]())
    """What the driver did since the application before, outside any pattern (a trivially dead
    op erased, a fold): it is in this application's IR too."""
    ir: str = ""
    """The enclosing function (or module) after it, as MLIR printed it."""


@dataclass
class DriverLog:
    """A pass's run as MLIR's greedy-rewriter and pattern-application log tells it."""

    applications: list[Application]
    """Each successful pattern application with the IR printed after it."""
    after: list[DriverAction]
    """What the driver did after the last of them (an application that printed no IR included)."""


_OUTCOME = re.compile(r"^\} -> (?:success|failure) : (.*)$")
_MATCHED = "at least one pattern matched"


def read_log(text: str) -> DriverLog:
    """The pattern applications and the driver's own changes (trivially dead ops erased, folds)
    in MLIR's greedy-rewriter and pattern-application log, in order."""
    applications: list[Application] = []
    current: Application | None = None
    applied: Application | None = None
    outside: list[DriverAction] = []
    processing: DriverAction | None = None
    expect_print = False
    dump: list[str] | None = None

    def end_dump() -> None:
        if dump is not None and applications:
            applications[-1].ir = "\n".join(dump).strip("\n") + "\n"

    for raw in text.split("\n"):
        prefix = _PREFIX.match(raw)
        line = raw[prefix.end() :] if prefix else raw
        if dump is not None:
            # The dump's lines carry the pattern-application prefix; an LLVM without prefixes
            # ends it at the first blank line.
            if (prefix is not None and "pattern-application" in prefix.group(0)) or (
                prefix is None and line.strip()
            ):
                dump.append(line)
                continue
            end_dump()
            dump = None
        if line.startswith(_DUMP):
            if applied is not None:
                applications.append(applied)
                applied = None
                dump = []
            continue
        if expect_print and processing is not None and line.strip()[:1] in ("%", '"'):
            processing.printed = line.strip()
        expect_print = False
        if (found := _PROCESSING.match(line)) is not None:
            processing = DriverAction("", found.group(1), found.group(2), "")
            expect_print = True
        elif (found := _PATTERN.match(line)) is not None:
            address = processing.address if processing is not None else None
            current = Application(found.group(1), found.group(2), address)
        elif (found := _EVENT.match(line)) is not None:
            event = (found.group(1), found.group(2), found.group(3))
            if current is not None:
                current.events.append(event)
            elif processing is not None:
                processing.events.append(event)
            else:
                # A change outside any op's processing (constants deduplicated as an iteration
                # begins: Replace, Modified users, Erase), one action until its op is erased.
                last = outside[-1] if outside else None
                if last is None or last.outcome or last.events[-1][0] == "Erase":
                    outside.append(DriverAction("", event[1], event[2], "", [event]))
                else:
                    last.events.append(event)
        elif _APPLIED in line and current is not None:
            current.outside, outside = outside, []
            applied, current = current, None
        elif _FAILED.match(line) and current is not None:
            current = None
        elif (found := _OUTCOME.match(line)) is not None and processing is not None:
            # The op's processing ends: what the driver did to it itself (not a pattern) counts.
            if found.group(1) != _MATCHED and processing.events:
                processing.outcome = found.group(1).strip()
                outside.append(processing)
            processing = None
    end_dump()
    if applied is not None:  # applied last, its IR never printed
        applied.outside, outside = [], [*applied.outside, *outside]
        applications.append(applied)
    return _printed_only(applications, outside)


def _printed_only(applications: Sequence[Application], after: list[DriverAction]) -> DriverLog:
    """The applications that printed their IR; each other one's changes go, as one driver action
    that no erasure can be taken for, to what follows it."""
    kept: list[Application] = []
    carry: list[DriverAction] = []
    for application in applications:
        if application.ir.strip():
            application.outside = [*carry, *application.outside]
            carry = []
            kept.append(application)
            continue
        unprinted = DriverAction(
            _UNPRINTED, application.root, application.root_address or "", "", application.events
        )
        carry += [*application.outside, unprinted]
    return DriverLog(kept, [*carry, *after])


_GENERIC_OP = re.compile(r'^(?:(%[^=]+?)\s*=\s*)?"[^"]+"\(([^)]*)\)')
"""An op as the driver prints it (generic form): its results and its operands."""


def _generic_names(top: Op) -> dict[Value, str]:
    """Each value's name as MLIR's printer numbers it in generic form from ``top`` (which prints
    unique names: no numbering starts again): region by region, the last region pushed the
    first numbered, each op's regions pushed once the region holding it is numbered; entry block
    arguments ``argN``, an op's results one number (``%5``, ``%5#1`` when several)."""
    names: dict[Value, str] = {}
    value = argument = 0
    work: list[Region] = list(top.regions)
    while work:
        region = work.pop()
        for number, block in enumerate(region.blocks):
            for arg in block.args:
                if number == 0:
                    names[arg] = f"arg{argument}"
                    argument += 1
                else:
                    names[arg] = str(value)
                    value += 1
            for op in block.ops:
                if not op.results:
                    continue
                if len(op.results) == 1:
                    names[op.results[0]] = str(value)
                else:
                    for index, result in enumerate(op.results):
                        names[result] = f"{value}#{index}"
                value += 1
        work.extend(r for b in region.blocks for op in b.ops for r in op.regions)
    return names


def _printed_as(op: Op, names: Mapping[Value, str]) -> tuple[str, list[str]]:
    """How ``op``'s results and operands print in generic form: ``%5`` (``%5:2``), ``[%3, %arg0]``."""
    results = ""
    if len(op.results) == 1:
        results = "%" + names.get(op.results[0], "?")
    elif op.results:
        results = "%" + names.get(op.results[0], "?").partition("#")[0] + f":{len(op.results)}"
    return results, sorted("%" + names.get(v, "?") for v in op.operands)


def _follow(top: Op, action: DriverAction) -> Op | None:
    """Do in ``top`` what ``action`` says the driver did, where it is an op erased as trivially
    dead or a constant deduplicated: the op erased, or None (nothing done) where ``action`` is
    neither or its op is not one op of ``top``."""
    kinds = [kind for kind, _, _ in action.events]
    if action.outcome == TRIVIALLY_DEAD and kinds == ["Erase"]:
        return _erase_dead(top, action)
    replaced = action.events[0] if action.events else None
    if (
        action.outcome
        or replaced is None
        or kinds[0] != "Replace"
        or kinds[-1] != "Erase"
        or action.events[-1][2] != replaced[2]
        or any(kind != "Modified" for kind in kinds[1:-1])
    ):
        return None
    return _deduplicate(top, replaced[1], sorted(name for _, name, _ in action.events[1:-1]))


def _erase_dead(top: Op, action: DriverAction) -> Op | None:
    """Erase the op the driver erased as trivially dead: the one op of its name whose results
    nothing uses and that prints as the log printed it (generic value numbers)."""
    used = {value for op in top.walk() for value in op.operands}
    found = [
        op
        for op in top.walk()
        if op.name == action.name
        and op is not top
        and op.parent is not None
        and not any(value in used for value in op.results)
    ]
    printed = _GENERIC_OP.match(action.printed)
    if printed is not None:
        names = _generic_names(top)
        wanted = (
            (printed.group(1) or "").strip(),
            sorted(v.strip() for v in printed.group(2).split(",") if v.strip()),
        )
        found = [op for op in found if _printed_as(op, names) == wanted]
    elif action.printed:
        return None
    if len(found) != 1:
        return None
    return _erase(found[0])


def _deduplicate(top: Op, name: str, users: list[str]) -> Op | None:
    """Replace a constant by its twin and erase it, as the driver does as an iteration begins:
    the one op of ``name`` (no operands, no regions, one result) used by ops of the names
    ``users`` (one per use, as the log's ``Modified`` lines), with one twin of the same text in
    the same top-level op."""
    constants = [
        op
        for op in top.walk()
        if op.name == name and op is not top and not op.operands and not op.regions and len(op.results) == 1
    ]
    uses: dict[Value, list[str]] = {}
    for op in top.walk():
        for value in op.operands:
            uses.setdefault(value, []).append(op.name)
    texts = {op: op_text(op).partition(" = ")[2] for op in constants}
    found: list[tuple[Op, Op]] = []
    for op in constants:
        if sorted(uses.get(op.results[0], [])) != users:
            continue
        twins = [
            other
            for other in constants
            if other is not op and texts[other] == texts[op] and _outermost(other, top) is _outermost(op, top)
        ]
        if len(twins) == 1:
            found.append((op, twins[0]))
    if len(found) == 2 and found[0] == found[1][::-1]:
        # Twins used alike: the driver keeps the one it knew first, which it moved to the front
        # of its block when it came to know it; the other comes later.
        order = {op: index for index, op in enumerate(constants)}
        found = [max(found, key=lambda pair: order[pair[0]])]
    if len(found) != 1:
        return None
    op, twin = found[0]
    for user in top.walk():
        for part in user.parts:
            if isinstance(part, Use) and part.value is op.results[0]:
                part.value = twin.results[0]
    return _erase(op)


def _outermost(op: Op, top: Op) -> Op:
    """The op of ``top``'s own blocks that holds ``op`` (a function)."""
    while (block := op.parent) is not None and (region := block.region) is not None:
        holder = region.op
        if holder is None or holder is top:
            break
        op = holder
    return op


def _erase(op: Op) -> Op:
    assert op.parent is not None
    op.parent.ops.remove(op)
    return op


def _adopt(top: Op, state: IRData) -> None:
    """Give ``top`` (read from ``ir_text(state)``) the ids, locations and value names ``state``
    holds: the snapshot as the trace knows it."""
    work: list[tuple[Op, str]] = [(top, state.root)]
    while work:
        op, op_id = work.pop()
        data = state.ops[op_id]
        if (
            op.name != data.name
            or len(op.results) != len(data.results)
            or len(op.regions) != len(data.regions)
        ):
            raise ReadError(f"{op_id}: the IR printed from the trace reads back as another op ({op.name})")
        op.id, op.loc = op_id, data.loc
        _name_values(op.results, data.results, state)
        for region, region_id in zip(op.regions, data.regions, strict=True):
            region.id = region_id
            blocks = state.regions[region_id].blocks
            if len(region.blocks) != len(blocks):
                raise ReadError(f"{region_id}: the IR printed from the trace reads back with other blocks")
            for block, block_id in zip(region.blocks, blocks, strict=True):
                block_data = state.blocks[block_id]
                block.id = block_id
                _name_values(block.args, block_data.args, state)
                if len(block.ops) != len(block_data.ops):
                    raise ReadError(f"{block_id}: the IR printed from the trace reads back with other ops")
                work.extend(zip(block.ops, block_data.ops, strict=True))


def _name_values(values: Sequence[Value], ids: Sequence[str], state: IRData) -> None:
    if len(values) != len(ids):
        raise ReadError("the IR printed from the trace reads back with other values")
    for value, value_id in zip(values, ids, strict=True):
        value.id = value_id
        value.name = state.values[value_id].name or ""


def _nodes(top: Op) -> Iterator[Op | Region | Block | Value]:
    """Every node under ``top`` that has an id."""
    for op in top.walk():
        yield op
        yield from op.results
        for region in op.regions:
            yield region
            for block in region.blocks:
                yield block
                yield from block.args


def _scoped(top: Op, printed: Op) -> Op | None:
    """The op of ``top`` that ``printed`` (a function a pattern dump printed) stands for."""
    if printed.name == top.name:
        return top
    symbol = printed.symbol()
    found = [op for op in top.walk() if op.name == printed.name and op.symbol() == symbol and op is not top]
    return found[0] if len(found) == 1 else None


@dataclass
class _Known:
    """What a chain of matches carries from snapshot to snapshot: the locations and value names
    the log's dumps do not print (they print no debug information), by id."""

    locs: dict[str, str | None] = field(default_factory=lambda: dict[str, str | None]())
    names: dict[str, str] = field(default_factory=lambda: dict[str, str]())

    output_names: dict[str, str] = field(default_factory=lambda: dict[str, str]())
    """The value names of the pass's output: MLIR's printer numbers names afresh each time it
    prints (``offs_am_10``), so a value takes its final name from the first step on."""

    def learn(self, top: Op) -> None:
        for node in _nodes(top):
            if isinstance(node, Op):
                self.locs[node.id] = node.loc
            elif isinstance(node, Value):
                self.names[node.id] = self.output_names.get(node.id, node.name)

    def learn_output(self, top: Op) -> None:
        self.learn(top)
        self.output_names = dict(self.names)

    def fill(self, top: Op) -> None:
        for node in _nodes(top):
            if isinstance(node, Op):
                node.loc = self.locs.get(node.id, node.loc)
            elif isinstance(node, Value):
                node.name = self.names.get(node.id, node.name)


def _match_unlocated(old: Op, new: Op, ids: Ids) -> None:
    """``match(old, new)`` as if neither printed locations (the log's dumps print none, so a
    location would only tell the snapshot it came from); ``old``'s are put back."""
    saved = [(op, op.loc) for op in old.walk()]
    for op, _ in saved:
        op.loc = None
    for op in new.walk():
        op.loc = None
    try:
        match(old, new, ids)
    finally:
        for op, loc in saved:
            op.loc = loc


@dataclass
class _Chain:
    """The snapshots of one pass's pattern applications (and of the greedy driver's logged work
    between and after them), matched one to the next."""

    names: list[str]
    """Each step's name: its pattern's, or the driver's work (``DEAD_STEP``, ``DEDUPLICATED_STEP``)."""
    deltas: list[Delta]
    roots: list[str | None]
    last: Op
    flat: Flat
    unplaced: dict[int, list[DriverAction]] = field(default_factory=lambda: dict[int, list[DriverAction]]())
    """By step: the driver's logged changes before it (or, for the last step, after the last
    application) that no step of their own shows, so that it holds them."""


def _chain(before: Op, log: DriverLog, base: Ids, known: _Known) -> _Chain:
    """Each application's IR spliced into the module and matched against the one before; what
    the driver did before it, and after the last, done as the log says (ops erased as trivially
    dead, constants deduplicated), each run of one kind a step, up to the first action it cannot
    follow (the rest is in the step after, ``unplaced``)."""
    ids = Ids(next=base.next.copy())
    top = before
    flat = flatten(top)
    known.learn(top)
    chain = _Chain([], [], [], top, flat)

    def step(name: str, root: str | None) -> None:
        new_flat = flatten(chain.last)
        delta = diff(chain.flat, new_flat)
        chain.names.append(name)
        chain.deltas.append(delta)
        chain.roots.append(root)
        chain.flat = new_flat

    def follow(actions: Sequence[DriverAction]) -> None:
        run: list[Op] = []
        name = ""
        for number, action in enumerate(actions):
            kind = DEAD_STEP if action.outcome == TRIVIALLY_DEAD else DEDUPLICATED_STEP
            if run and kind != name:
                step(name, run[0].id if len(run) == 1 else None)
                run = []
            erased = _follow(chain.last, action)
            if erased is None:
                chain.unplaced[len(chain.names) + bool(run)] = list(actions[number:])
                break
            name = kind
            run.append(erased)
        if run:
            step(name, run[0].id if len(run) == 1 else None)

    for number, application in enumerate(log.applications):
        follow(application.outside)
        try:
            printed = read_ir(application.ir).top
        except ReadError as exc:
            raise InputError(
                f"{application.pattern} (application {number + 1}): its IR does not read: {exc}"
            ) from None
        old = _scoped(chain.last, printed)
        if old is None:
            raise InputError(
                f"{application.pattern} (application {number + 1}): the {printed.name} "
                f"{printed.symbol() or ''} it printed is not in the module"
            )
        located = {op.id: op for op in old.walk()}
        _match_unlocated(old, printed, ids)
        _follow_log(application, located, printed, ids)
        known.fill(printed)
        _keep_located_text(printed, located)
        if old is chain.last:
            chain.last = printed
        else:
            block = old.parent
            assert block is not None
            printed.parent = block
            block.ops[block.ops.index(old)] = printed
        known.learn(printed)
        before_flat = chain.flat
        step(application.pattern, None)
        chain.roots[-1] = _root(application, chain.deltas[-1], before_flat)
    follow(log.after)
    base.next = ids.next
    return chain


def _follow_log(application: Application, old: Mapping[str, Op], printed: Op, ids: Ids) -> None:
    """Where the log says the pattern replaced an op by a new one of its kind (``convert_layout``
    by another) and the match took the new one for the old, changed: the new one gets new ids,
    so the step erases the old op and creates the new, as the rewriter did."""
    inserted = {address for kind, _, address in application.events if kind == "Insert"}
    erased = Counter(
        name for kind, name, address in application.events if kind == "Erase" and address not in inserted
    )
    made = Counter(
        name
        for kind, name, address in application.events
        if kind == "Insert" and address not in {a for k, _, a in application.events if k == "Erase"}
    )
    kept = {op.id for op in printed.walk()}
    gone = Counter(op.name for op in old.values() if op.id not in kept)
    renewed = False
    for name, count in erased.items():
        wanted = min(count - gone[name], made[name])
        for op in printed.walk():
            if wanted <= 0:
                break
            was = old.get(op.id)
            if op.name != name or was is None or op.regions or op_text(op) == op_text(was):
                continue
            op.id = ""
            for value in op.results:
                value.id = ""
            wanted -= 1
            renewed = True
    if renewed:
        ids.fresh(printed)


def _unlocated(text: str) -> str:
    """``text`` without its ``loc(...)`` parts (a function's header prints its arguments' locations)."""
    out: list[str] = []
    position = 0
    while (start := text.find(" loc(", position)) >= 0:
        out.append(text[position:start])
        depth, index = 0, start + 4
        while index < len(text):
            depth += {"(": 1, ")": -1}.get(text[index], 0)
            index += 1
            if depth == 0:
                break
        position = index
    out.append(text[position:])
    return "".join(out)


def _keep_located_text(printed: Op, located: Mapping[str, Op]) -> None:
    """Each op of ``printed`` whose text is its old op's but for the locations in it takes the
    old op's text: the log prints no locations, the trace does."""
    for op in printed.walk():
        old = located.get(op.id)
        if old is None or old.name != op.name:
            continue
        new_text, old_text = op_text(op), op_text(old)
        if new_text != old_text and _unlocated(new_text) == _unlocated(old_text):
            op.parts = old.parts


def _root(application: Application, delta: Delta, before: Flat) -> str | None:
    """The id of the op the pattern matched: the one op of its name the step erased (where the
    log says it was replaced or erased) or modified, else None."""
    gone = any(
        kind in ("Replace", "Erase") and where == application.root_address
        for kind, _, where in application.events
    )
    if gone:
        candidates = [
            i
            for i in delta.get("ops_erased", [])
            if i in before.ops and before.ops[i].name == application.root
        ]
    else:
        candidates = [
            c["id"]
            for c in delta.get("ops_modified", [])
            if c["id"] in before.ops and before.ops[c["id"]].name == application.root
        ]
    return candidates[0] if len(candidates) == 1 else None


def _read_state(state: IRData) -> Op:
    """The module in ``state`` read as the importer reads a dump, with the trace's ids."""
    top = read_ir(ir_text(state)).top
    _adopt(top, state)
    return top


@dataclass
class _Target:
    """A step of the trace to expand: the pass's argument, and the IR before it (as text, for
    Triton to parse) and around it (as the trace holds it, once the steps before are final)."""

    index: int
    argument: str
    text: str
    before: IRData | None = None
    after: IRData | None = None


def _pass_steps(trace: Trace) -> list[tuple[str, str]]:
    """Each step's pass: its argument (``tritongpu-remove-layout-conversions``) and name
    (``TritonGPURemoveLayoutConversions``), as the dump's banners say them."""
    pipeline = str(trace.meta.get("pipeline", ""))
    arguments = pipeline.split(",") if pipeline else []
    if len(arguments) != len(trace.steps):
        arguments = [""] * len(trace.steps)
    return [
        (re.sub(r"\{.*\}$", "", argument.strip()), (step.name or "").split(" ('")[0])
        for argument, step in zip(arguments, trace.steps, strict=True)
    ]


def _targets(trace: Trace, passes: Sequence[str]) -> list[_Target]:
    """The steps of ``passes`` (arguments or names), with the IR before and after each."""
    if trace.initial is None or not trace.meta.get("imported"):
        raise InputError("--rewrites: the trace is no imported Triton compile")
    steps = _pass_steps(trace)
    wanted: dict[int, str] = {}
    for name in passes:
        found = [i for i, (argument, label) in enumerate(steps) if name in (argument, label)]
        if not found:
            ran = ", ".join(dict.fromkeys(a or n for a, n in steps))
            raise InputError(f"--rewrites {name}: the compile ran no such pass (it ran: {ran})")
        for index in found:
            argument = steps[index][0]
            if not argument:
                raise InputError(f"--rewrites {name}: the dump does not say the pass's argument")
            wanted[index] = argument
    state = initial_state(trace.initial)
    targets: list[_Target] = []
    for step in trace.steps:
        if step.index in wanted:
            targets.append(_Target(step.index, wanted[step.index], ir_text(state)))
            if len(targets) == len(wanted):
                break
        apply_delta(state, step.delta)
    return targets


def _run_child(
    python: str, target: str, options: Mapping[str, object], jobs: list[tuple[str, str]], folder: Path
) -> tuple[list[str], list[dict[str, str]], list[str]]:
    """Each job's pass run alone on its IR in a child Python: the passes the child can run, its
    answer per job, and each job's log."""
    request: dict[str, Any] = {"target": target, "options": dict(options), "jobs": []}
    for number, (argument, text) in enumerate(jobs):
        ir = folder / f"job{number}.mlir"
        ir.write_text(text, encoding="utf-8")
        request["jobs"].append({"pass": argument, "ir": str(ir), "log": str(folder / f"job{number}.log")})
    with open(folder / "stderr.txt", "wb") as stderr:
        try:
            done = subprocess.run(
                [python, "-m", "passviz.compilers.triton.rewrite_child"],
                input=json.dumps(request, default=str).encode(),
                stdout=subprocess.PIPE,
                stderr=stderr,
                check=False,
                timeout=_CHILD_SECONDS,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise InputError(f"--rewrites: running the passes alone in Triton failed: {exc}") from None
    try:
        answer: dict[str, Any] = json.loads(done.stdout)
    except ValueError:
        tail = (folder / "stderr.txt").read_text(encoding="utf-8", errors="replace")[-2000:]
        raise InputError(f"--rewrites: running the passes alone in Triton failed:\n{tail}") from None
    logs: list[str] = []
    for job in request["jobs"]:
        path = Path(job["log"])
        logs.append(path.read_text(encoding="utf-8", errors="replace") if path.exists() else "")
    return list(answer["known"]), list(answer["jobs"]), logs


def _next_ids(trace: Trace) -> Ids:
    """Ids past every id the trace gives (new ones never meet the trace's own)."""
    ids = Ids()
    text = json.dumps([trace.initial, [step.delta for step in trace.steps]])
    for found in _ID.finditer(text):
        ids.next[found.group(1)] = max(ids.next[found.group(1)], int(found.group(2)) + 1)
    return ids


def _expand(target: _Target, log: DriverLog, base: Ids) -> tuple[_Chain, dict[str, str]]:
    """The steps of one pass, the last ending at its output (what is left after the last change
    the log shows is a step of its own, ``UNLOGGED_STEP``), and the ids the steps after the pass
    must take: the chain's matching decides which op of the output is which (its op by op view),
    where the trace's matched the pass's input to its output at once and may have told alike
    ops apart otherwise."""
    assert target.before is not None and target.after is not None
    scratch = Ids(next=base.next.copy())
    first = _chain(_read_state(target.before), log, scratch, _Known())
    output = _read_state(target.after)
    after_text = ir_text(target.after)
    probe = read_ir(after_text).top
    if not _align(first.last, probe):
        probe = read_ir(after_text).top
        _match_unlocated(first.last, probe, scratch)
    ids: dict[str, str] = {}
    for mine, theirs in zip(_nodes(probe), _nodes(output), strict=True):
        if mine.id != theirs.id:
            ids[theirs.id] = mine.id
        theirs.id = mine.id
    known = _Known()
    known.learn_output(output)
    second = _chain(_read_state(target.before), log, base, known)
    base.next = scratch.next
    rest = diff(second.flat, flatten(output))
    if any(rest.values()):
        only_locations = set(rest) == {"ops_modified"} and all(
            set(change) <= {"id", "loc"} for change in rest.get("ops_modified", [])
        )
        second.names.append(LOCATIONS_STEP if only_locations else UNLOGGED_STEP)
        second.deltas.append(rest)
        second.roots.append(None)
    return second, ids


def _align(last: Op, output: Op) -> bool:
    """Give ``output``'s nodes the ids of ``last``'s where ``output`` is ``last`` with some ops
    taken out (the greedy driver erases dead ops after the last application, unprinted): each
    op the same text as the op it stands for, in order.  False (ids half given) if it is not."""
    if not _fits(last, output, check_text=False):
        return False
    work: list[tuple[Op, Op]] = [(last, output)]
    while work:
        old, new = work.pop()
        for region, was in zip(new.regions, old.regions, strict=True):
            for block, old_block in zip(region.blocks, was.blocks, strict=True):
                pairs = _subsequence(old_block.ops, block.ops)
                if pairs is None:
                    return False
                work.extend(reversed(pairs))
    return True


def _fits(old: Op, new: Op, *, check_text: bool = True) -> bool:
    """Whether ``new`` prints as ``old`` once it has ``old``'s ids (which it is given)."""
    if old.name != new.name or len(old.results) != len(new.results) or len(old.regions) != len(new.regions):
        return False
    if any(len(r.blocks) != len(w.blocks) for r, w in zip(new.regions, old.regions, strict=True)):
        return False
    new.id = old.id
    for value, was in zip(new.results, old.results, strict=True):
        value.id = was.id
    for region, was in zip(new.regions, old.regions, strict=True):
        region.id = was.id
        for block, old_block in zip(region.blocks, was.blocks, strict=True):
            if len(block.args) != len(old_block.args):
                return False
            block.id = old_block.id
            for value, old_value in zip(block.args, old_block.args, strict=True):
                value.id = old_value.id
    return not check_text or op_text(new) == op_text(old)


def _subsequence(old: Sequence[Op], new: Sequence[Op]) -> list[tuple[Op, Op]] | None:
    """``new``'s ops paired in order with ``old``'s that print the same, skipping old ones (the
    erased); None if some new op finds none."""
    pairs: list[tuple[Op, Op]] = []
    position = 0
    for op in new:
        while position < len(old) and not _fits(old[position], op):
            position += 1
        if position == len(old):
            return None
        pairs.append((old[position], op))
        position += 1
    return pairs


_REFERENCE = re.compile(r"([%^])([obrv]\d+)\b")


def _renamed(data: Any, ids: Mapping[str, str]) -> Any:
    """``data`` (a step's delta, as JSON data) with each id ``ids`` names replaced, in fields and
    keys and in the op texts that name values (``%v3``) and blocks (``^b2``); names are kept."""
    if isinstance(data, str):
        if data in ids:
            return ids[data]
        if "%" in data or "^" in data:
            return _REFERENCE.sub(lambda m: m.group(1) + ids.get(m.group(2), m.group(2)), data)
        return data
    if isinstance(data, list):
        return [_renamed(item, ids) for item in cast(list[Any], data)]
    if isinstance(data, dict):
        table = cast(dict[str, Any], data)
        return {
            ids.get(key, key): (value if key == "name" else _renamed(value, ids))
            for key, value in table.items()
        }
    return data


def record_rewrites(
    trace: Trace,
    passes: Sequence[str],
    *,
    target: str,
    options: Mapping[str, object] | None = None,
    python: str | None = None,
) -> Trace:
    """``trace`` (``capture_triton``'s) with each step of ``passes`` (pass arguments such as
    ``tritongpu-remove-layout-conversions``, or names) expanded into ``rewrite`` steps: one per
    pattern application MLIR's log shows, named after its pattern, one per run of trivially dead
    ops the greedy driver erased or constants it deduplicated, and one of what is left to the
    pass's output, if anything; the pass's own step after them changes nothing.  ``target``
    (``cuda:90``) and ``options``: the compile's, for passes that take options; ``python``: the
    interpreter with the Triton that compiled it."""
    if not passes:
        return trace
    targets = _targets(trace, passes)
    with tempfile.TemporaryDirectory(prefix="passviz-rewrites-") as work:
        known, answers, logs = _run_child(
            python or sys.executable,
            target,
            options or {},
            [(t.argument, t.text) for t in targets],
            Path(work),
        )
    jobs = {item.index: (item, answer, log) for item, answer, log in zip(targets, answers, logs, strict=True)}
    notes: list[str] = []
    base = _next_ids(trace)
    renames: list[dict[str, str]] = []
    assert trace.initial is not None  # _targets said so
    state = initial_state(trace.initial)
    result = dataclasses.replace(trace, steps=[], meta=copy.deepcopy(trace.meta))
    # Past the last pass expanded, the steps are only renamed: no state to keep.
    last = max(jobs)
    for step in trace.steps:
        delta = step.delta
        root = step.root
        for ids in renames:
            delta = cast(Delta, _renamed(delta, ids))
            root = ids.get(root, root) if root is not None else None
        step = dataclasses.replace(step, delta=delta, root=root)
        job = jobs.get(step.index)
        if job is None:
            if step.index < last:
                apply_delta(state, delta)
            result.steps.append(dataclasses.replace(step, index=len(result.steps)))
            continue
        before = copy.deepcopy(state)
        apply_delta(state, delta)
        item, answer, log = job
        driver = _applications(item, answer, log, known)
        if not driver.applications:
            notes.append(f"--rewrites {item.argument} (step {item.index}): the pass applied no pattern")
            result.steps.append(dataclasses.replace(step, index=len(result.steps)))
            continue
        chain, ids = _expand(dataclasses.replace(item, before=before, after=state), driver, base)
        renames.append(ids)
        # The steps after the pass follow the chain's ids: the state does too.
        state = before
        for position, (name, root, change) in enumerate(
            zip(chain.names, chain.roots, chain.deltas, strict=True)
        ):
            apply_delta(state, change)
            if position in chain.unplaced:
                notes.append(
                    f"--rewrites {item.argument}: step {len(result.steps)} ({name}) also holds "
                    + _unplaced(chain.unplaced[position])
                )
            result.steps.append(
                Step(
                    index=len(result.steps),
                    kind="rewrite",
                    pass_name=step.pass_name,
                    pass_index=step.pass_index,
                    name=name,
                    root=root,
                    delta=change,
                )
            )
        if chain.names[-1] in (UNLOGGED_STEP, LOCATIONS_STEP):
            notes.append(
                f"--rewrites {item.argument} (step {item.index}): the pass changed the IR after the last "
                f"change MLIR's log shows; the step '{chain.names[-1]}' holds those changes"
            )
        end = dataclasses.replace(step, index=len(result.steps), delta=Delta())
        result.steps.append(end)
    if notes:
        imported = result.meta.get("imported")
        if imported is not None:
            imported["notes"] = [*imported.get("notes", []), *notes]
    return result


def _unplaced(actions: Sequence[DriverAction]) -> str:
    """What the log says of ``actions``, the driver's changes that no step of their own shows."""
    first = actions[0]
    if first.outcome == TRIVIALLY_DEAD:
        why = (
            f"the first, {first.name} erased as trivially dead, is no one op of the IR known there "
            "(the log shows no IR after changes such as the pass's own code between two greedy driver runs)"
        )
    elif first.outcome:
        why = f"the first, {first.name}: {first.outcome}, has no IR printed after it"
    else:
        kinds = ", ".join(dict.fromkeys(kind for kind, _, _ in first.events))
        why = (
            f"the first, {kinds} of {first.name} outside any op's processing, is no constant "
            "deduplicated into one twin of the IR known there"
        )
    return f"{len(actions)} changes the greedy driver logged before it, without a step of their own: {why}"


def _applications(item: _Target, answer: Mapping[str, str], log: str, known: Sequence[str]) -> DriverLog:
    """The pattern applications the child's log of ``item`` shows, or InputError saying why not."""
    where = f"--rewrites {item.argument} (step {item.index})"
    error = answer.get("error")
    if error == "unknown":
        raise InputError(
            f"--rewrites {item.argument}: passviz cannot run this pass alone in this Triton; "
            f"it can run: {', '.join(known)}"
        )
    if error is not None:
        raise InputError(f"{where}: {error}")
    if "Processing operation" not in log and "* Pattern" not in log:
        raise InputError(
            f"{where}: Triton logged no pattern rewriting for the pass (a Triton built without "
            "LLVM's debug output, or a pass that applies no patterns)"
        )
    return read_log(log)
