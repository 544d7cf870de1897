"""A captured Triton compile's passes, rewrite by rewrite, from MLIR's own pattern log.

``passviz triton --rewrites PASS`` (``record_rewrites``): for each step of the captured trace
that is PASS, the IR before it (the trace's own state, with locations) is run again through a
pass manager holding only PASS, in a child process (``rewrite_child``) with Triton's
``TRITON_LLVM_DEBUG_ONLY=greedy-rewriter,pattern-application:2``: MLIR's greedy driver logs each
pattern it applies (its name, the op it matched, the ops it inserted, replaced, modified and
erased) and prints the enclosing function after each application.  Each application becomes a
``rewrite`` step named after its pattern, its function read and matched (``passviz.importer``)
against the IR before it, so that ops keep their ids; the pass's own step follows, with what
the log does not show (work the pass does outside its patterns after the last one).

What the log cannot show: changes between two applications that are no pattern's (the greedy
driver's folds and trivially-dead erasures, and the pass's own code that rewrites without
patterns, such as the layout propagation of ``tritongpu-remove-layout-conversions``) land in
the next application's step; changes after the last one in the pass's own step.
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
from passviz.importer.reader import Block, Op, ReadError, Region, Value, read_ir
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


@dataclass
class Application:
    """One pattern application as MLIR's log tells it."""

    pattern: str
    """The pattern's debug name (``mlir::triton::gpu::CanonicalizeConvertFromConvert``)."""
    root: str
    """The name of the op it matched."""
    root_address: str | None
    events: list[tuple[str, str, str]] = field(default_factory=lambda: list[tuple[str, str, str]]())
    """What it did, in order: (``Insert``/``Replace``/``Modified``/``Erase``, op name, address)."""
    outside: list[tuple[str, str, str]] = field(default_factory=lambda: list[tuple[str, str, str]]())
    """What the driver did since the application before, outside any pattern (a trivially dead
    op erased, a fold): it is in this application's IR too."""
    ir: str = ""
    """The enclosing function (or module) after it, as MLIR printed it."""


def read_log(text: str) -> list[Application]:
    """Each successful pattern application in MLIR's greedy-rewriter and pattern-application log,
    with the IR printed after it (an application printed no IR after is left out)."""
    applications: list[Application] = []
    current: Application | None = None
    applied: Application | None = None
    outside: list[tuple[str, str, str]] = []
    address: str | None = None
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
        if (found := _PROCESSING.match(line)) is not None:
            address = found.group(2)
        elif (found := _PATTERN.match(line)) is not None:
            current = Application(found.group(1), found.group(2), address, outside=outside)
        elif (found := _EVENT.match(line)) is not None:
            event = (found.group(1), found.group(2), found.group(3))
            (current.events if current is not None else outside).append(event)
        elif _APPLIED in line and current is not None:
            applied, current, outside = current, None, []
        elif _FAILED.match(line) and current is not None:
            # A pattern that failed changed nothing; the driver's work before it still counts.
            outside = current.outside
            current = None
    end_dump()
    return [a for a in applications if a.ir.strip()]


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
    """The snapshots of one pass's pattern applications, matched one to the next."""

    deltas: list[Delta]
    roots: list[str | None]
    last: Op
    flat: Flat


def _chain(before: Op, applications: Sequence[Application], base: Ids, known: _Known) -> _Chain:
    """Each application's IR spliced into the module and matched against the one before."""
    ids = Ids(next=base.next.copy())
    top = before
    flat = flatten(top)
    known.learn(top)
    deltas: list[Delta] = []
    roots: list[str | None] = []
    for number, application in enumerate(applications):
        try:
            printed = read_ir(application.ir).top
        except ReadError as exc:
            raise InputError(
                f"{application.pattern} (application {number + 1}): its IR does not read: {exc}"
            ) from None
        old = _scoped(top, printed)
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
        if old is top:
            top = printed
        else:
            block = old.parent
            assert block is not None
            printed.parent = block
            block.ops[block.ops.index(old)] = printed
        known.learn(printed)
        new_flat = flatten(top)
        delta = diff(flat, new_flat)
        deltas.append(delta)
        roots.append(_root(application, delta, flat))
        flat = new_flat
    base.next = ids.next
    return _Chain(deltas, roots, top, flat)


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


def _expand(
    target: _Target, applications: Sequence[Application], base: Ids
) -> tuple[_Chain, Delta, dict[str, str]]:
    """The pattern steps of one pass, what is left from the last one to the pass's output, and
    the ids the steps after the pass must take: the chain's matching decides which op of the
    output is which (its op by op view), where the trace's matched the pass's input to its
    output at once and may have told alike ops apart otherwise."""
    assert target.before is not None and target.after is not None
    scratch = Ids(next=base.next.copy())
    first = _chain(_read_state(target.before), applications, scratch, _Known())
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
    second = _chain(_read_state(target.before), applications, base, known)
    base.next = scratch.next
    return second, diff(second.flat, flatten(output)), ids


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
    ``tritongpu-remove-layout-conversions``, or names) expanded into one ``rewrite`` step per
    pattern application MLIR's log shows, each named after its pattern, before the pass's own
    step (what is left after the last application).  ``target`` (``cuda:90``) and ``options``: the
    compile's, for passes that take options; ``python``: the interpreter with the Triton that compiled it."""
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
        applications = _applications(item, answer, log, known)
        if not applications:
            notes.append(f"--rewrites {item.argument} (step {item.index}): the pass applied no pattern")
            result.steps.append(dataclasses.replace(step, index=len(result.steps)))
            continue
        chain, residual, ids = _expand(
            dataclasses.replace(item, before=before, after=state), applications, base
        )
        renames.append(ids)
        state = before
        for application, root, change in zip(applications, chain.roots, chain.deltas, strict=True):
            apply_delta(state, change)
            result.steps.append(
                Step(
                    index=len(result.steps),
                    kind="rewrite",
                    pass_name=step.pass_name,
                    pass_index=step.pass_index,
                    name=application.pattern,
                    root=root,
                    delta=change,
                )
            )
        apply_delta(state, residual)
        end = dataclasses.replace(step, index=len(result.steps), delta=residual)
        if end.changed:
            notes.append(
                f"--rewrites {item.argument} (step {item.index}): the pass changed the IR after its last "
                "pattern application (the greedy driver's erasures of dead ops, or its own code); its step "
                "holds those changes"
            )
        result.steps.append(end)
    if notes:
        imported = result.meta.get("imported")
        if imported is not None:
            imported["notes"] = [*imported.get("notes", []), *notes]
    return result


def _applications(
    item: _Target, answer: Mapping[str, str], log: str, known: Sequence[str]
) -> list[Application]:
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
