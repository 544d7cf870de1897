"""A real compiler run as a trace: any tool of MLIR's opt driver (``iree-opt``, ``mlir-opt``,
``triton-opt``) runs the pipeline itself, and its ``--mlir-print-ir-after-all`` output is imported,
one step per pass; a pass that applies patterns can be recorded rewrite by rewrite through MLIR's
debug counter (``--mlir-debug-counter=apply-pattern-count=N``), which a release build has too."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from passviz.importer.dump import Banner, ImportReport, import_text, split_dump
from passviz.importer.text import TextReplayer
from passviz.ir.errors import InputError, PipelineError
from passviz.trace.apply import IRData, apply_delta, initial_state
from passviz.trace.model import Delta, Step, StepKind, Trace

PRINTING = (
    "--mlir-print-ir-after-all",
    "--mlir-print-ir-module-scope",
    "--mlir-disable-threading",
    "--mlir-print-debuginfo",
)
"""How the tool prints: the whole module after every pass execution, one execution at a time (so
that snapshots follow each other), with locations (so that ops keep their source lines)."""

_ANCHORED = re.compile(r"\s*[\w.]+\s*\(")
"""An MLIR pipeline anchored on an op, ``builtin.module(...)``: handed to the tool as it is."""

_PARSER_ERROR = re.compile(r"PassPipeline Parser:(\d+):(\d+): error: (.*)")
_FAILED_TO_ADD = re.compile(r"failed to add `([^`]+)`")
_ERROR = re.compile(r"^(.*?: error: .*)$", re.M)

_DIAGNOSTIC = re.compile(
    r"^(?:[^\s:][^:\n]*:\d+:\d+|<unknown>:\d+(?::\d+)?): (?:error|warning|note|remark): .*$", re.M
)
"""A diagnostic the tool printed, located as it locates it (``file:line:col``)."""

_EXECUTION = re.compile(r"Action `pass-execution` running `([^`]*)` on Operation `([^`]*)`")
_COMPLETED = re.compile(r"completed `pass-execution`")
_ATTEMPT = re.compile(r"Action `apply-pattern pattern: (.*)`\s*$")
_ANONYMOUS = "(anonymous namespace)::"

WITHOUT_PATTERNS = "folds and edits without a pattern"
"""The step of what a pass did before its first pattern applied (with the counter at 0 for it)."""


@dataclass
class Execution:
    """One run of a pass on one op, as the tool's action log shows it."""

    pass_class: str
    """The pass's class (``CanonicalizerPass``)."""
    patterns: list[str] = field(default_factory=lambda: list[str]())
    """Each pattern the pass attempted, in order (the debug counter counts each attempt)."""
    ops: list[str] = field(default_factory=lambda: list[str]())
    """The op each attempt was on, as the log prints it."""
    nested: bool = False
    """Whether passes ran inside it (a pass manager's adaptor, which the IR printing skips)."""


@dataclass
class RewriteRecord:
    """One execution recorded rewrite by rewrite."""

    execution: int
    """Its position among the printed executions."""
    argument: str
    """The pass as the dump names it (with its options)."""
    first: int
    """The counter value before its first attempt: the attempts of every earlier execution."""
    attempts: int
    changes: list[int]
    """The counter values at which the IR changed: each a pattern application (the ``changes``-th attempt)."""
    runs: int
    snapshots: dict[int, str]
    """Each counter value run, and what the tool printed after the execution."""
    patterns: list[str]
    """The pattern of each attempt of the execution, in order."""
    ops: list[str] = field(default_factory=lambda: list[str]())
    """The op each attempt was on, as the action log prints it."""

    def pattern(self, count: int) -> str:
        """The pattern whose application made the change at counter value ``count``."""
        return self.patterns[count - self.first - 1]

    def op(self, count: int) -> str:
        """The op that application matched, as the action log printed it ("" where it did not)."""
        index = count - self.first - 1
        return self.ops[index] if index < len(self.ops) else ""


class _CounterBreaks(Exception):
    """A pass that fails when the debug counter refuses some of its patterns (a dialect conversion)."""

    def __init__(self, count: int) -> None:
        super().__init__(count)
        self.count = count


def resolve_tool(name: str) -> str:
    """The path of the compiler ``name`` (a path, or a name on ``PATH``)."""
    if os.sep in name or (os.altsep and os.altsep in name):
        if Path(name).is_file() and os.access(name, os.X_OK):
            return name
        raise InputError(f"{name}: no such executable (--compiler takes a tool's name on PATH or its path)")
    found = shutil.which(name)
    if found is None:
        raise InputError(f"{name}: not found on PATH (--compiler takes a tool's name on PATH or its path)")
    return found


def tool_pipeline(spec: str) -> tuple[str, int]:
    """The ``--pass-pipeline`` value for passviz's pipeline ``spec`` (``canonicalize,cse{...}``, or
    MLIR's own ``builtin.module(...)`` as it is), and where in ``spec`` the pipeline parser's
    column 1 is (its columns count from inside the anchor's parentheses)."""
    if not spec.strip():
        raise PipelineError("the pipeline is empty: name at least one pass, e.g. -p canonicalize")
    _check_balanced(spec)
    anchored = _ANCHORED.match(spec)
    if anchored is not None:
        return spec.strip(), anchored.end()
    return f"builtin.module({spec})", 0


def _check_balanced(spec: str) -> None:
    """Refuse a ``spec`` whose brackets or quotes do not pair: wrapped in ``builtin.module(...)``
    it would mean something else to the tool than to its writer."""
    closing = {"(": ")", "{": "}", "[": "]"}
    open_at: list[tuple[str, int]] = []
    quote: tuple[str, int] | None = None
    for index, char in enumerate(spec):
        if quote is not None:
            quote = None if char == quote[0] else quote
        elif char in "\"'":
            quote = (char, index)
        elif char in closing:
            open_at.append((char, index))
        elif char in ")}]":
            if not open_at or closing[open_at[-1][0]] != char:
                raise PipelineError(_at(spec, index + 1, f"{char!r} closes nothing"))
            open_at.pop()
        elif char in "\n\r\0":
            raise PipelineError(_at(spec, index + 1, "a pipeline is one line"))
    if quote is not None:
        raise PipelineError(_at(spec, quote[1] + 1, f"this {quote[0]} is never closed"))
    if open_at:
        char, index = open_at[-1]
        raise PipelineError(_at(spec, index + 1, f"this {char!r} is never closed"))


def _at(spec: str, column: int, message: str) -> str:
    """``message`` at ``column`` (from 1) of ``spec``, as passviz's own pipeline errors say it."""
    return f"pipeline {spec!r}, column {column}: {message}"


def pipeline_error(tool: str, spec: str, offset: int, stderr: str) -> PipelineError:
    """The tool's refusal of the pipeline, located in ``spec``."""
    name = Path(tool).name
    parsed = _PARSER_ERROR.search(stderr)
    if parsed is not None and parsed.group(1) == "1":
        return PipelineError(_at(spec, offset + int(parsed.group(2)), f"{name}: {parsed.group(3).strip()}"))
    message = _first_error(stderr)
    added = _FAILED_TO_ADD.search(stderr)
    if added is not None and (column := _pass_column(spec, added.group(1))) is not None:
        return PipelineError(_at(spec, column, f"{name}: {message}"))
    if "unable to schedule pass" in message:
        message += (
            " (the pass runs on another op than the module: nest it in the pipeline, "
            "e.g. -p 'builtin.module(func.func(PASS))')"
        )
    return PipelineError(f"pipeline {spec!r}: {name}: {message}")


def _pass_column(spec: str, name: str) -> int | None:
    """The column of the pass ``name`` in ``spec``, where a pass name starts."""
    found = re.search(rf"(?:^|[(,\s]){re.escape(name)}(?=$|[{{,)\s])", spec)
    return None if found is None else found.start() + (found.group(0)[0] != name[0]) + 1


def _first_error(stderr: str) -> str:
    """The tool's first error, without MLIR's ``<unknown>:0: error:`` that says nothing."""
    found = _ERROR.search(stderr)
    if found is None:
        lines = [line for line in stderr.splitlines() if line.strip()]
        return lines[0].strip() if lines else "it failed without a message"
    return re.sub(r"^<unknown>:0: error: ", "", found.group(1)).strip()


@dataclass(frozen=True)
class CompilerRun:
    """How to run the tool: its path, the flags every run gets, and a time limit per run."""

    tool: str
    flags: tuple[str, ...] = ()
    timeout: float | None = None

    def call(self, input_path: str, *flags: str) -> subprocess.CompletedProcess[str]:
        """The tool run on ``input_path`` with ``flags`` (and ``self.flags``)."""
        command = [self.tool, input_path, *self.flags, *flags]
        try:
            return subprocess.run(
                command, capture_output=True, text=True, errors="replace", timeout=self.timeout, check=False
            )
        except subprocess.TimeoutExpired:
            raise InputError(f"{Path(self.tool).name} ran past {self.timeout:g} s (--timeout)") from None
        except OSError as exc:
            raise InputError(f"{self.tool}: cannot run it: {exc.strerror or exc}") from None


def read_executions(log: str) -> list[Execution]:
    """The pass executions that an ``--log-actions-to`` log shows, in the order they began, each
    with the patterns it attempted (those of passes nested in it go to the nested pass)."""
    executions: list[Execution] = []
    open_: list[Execution] = []
    for line in log.splitlines():
        if (begun := _EXECUTION.search(line)) is not None:
            if open_:
                open_[-1].nested = True
            execution = Execution(begun.group(1))
            executions.append(execution)
            open_.append(execution)
        elif _COMPLETED.search(line) is not None:
            if open_:
                open_.pop()
        elif (attempt := _ATTEMPT.search(line)) is not None and open_:
            pattern, op = _split_attempt(attempt.group(1))
            open_[-1].patterns.append(pattern)
            open_[-1].ops.append(op)
    return [e for e in executions if not e.nested]


def _split_attempt(text: str) -> tuple[str, str]:
    """An attempt's log text ``NAME (the op it was tried on)`` as the pattern's name and the op."""
    op = ""
    depth = 0
    for index in range(len(text) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(text[index], 0)
        if depth == 0 and text[index] == "(":
            text, op = text[:index], text[index + 1 : -1]
            break
    return _pattern_name(text), op


def _pattern_name(text: str) -> str:
    """A pattern's name as passviz's own steps say it: its class (``mlir::linalg::FoldX`` is ``FoldX``)."""
    text = text.strip().replace(_ANONYMOUS, "")
    depth = 0
    for index in range(len(text) - 1, 0, -1):
        depth += {">": 1, "<": -1}.get(text[index], 0)
        if depth == 0 and text[index - 1 : index + 1] == "::":
            return text[index + 1 :]
    return text


def candidates(patterns: Sequence[str], ops: Sequence[str]) -> tuple[list[int], list[int]]:
    """Which attempts (numbered from 1) may have applied, and which surely did, by the log alone.

    The pattern applicator tries an op's patterns in one order and stops at the first that
    applies, so an application ends a run of attempts on one op (the same text, no pattern twice):
    only a run's last attempt may be one.  A run shorter than the longest run on an op of that
    name stopped early: its last attempt applied."""
    ends: list[int] = []
    longest: dict[str, int] = {}
    runs: list[tuple[str, int]] = []
    start = 0
    for index in range(len(patterns)):
        last = index + 1 == len(patterns)
        if last or ops[index + 1] != ops[index] or patterns[index + 1] in patterns[start : index + 1]:
            name = _op_name(ops[index])
            runs.append((name, index + 1 - start))
            longest[name] = max(longest.get(name, 0), index + 1 - start)
            ends.append(index + 1)
            start = index + 1
    sure = [end for end, (name, size) in zip(ends, runs, strict=True) if size < longest[name]]
    return ends, sure


def _op_name(op: str) -> str:
    """The name of the op a log prints (``%0 = arith.addi %a, %b : i32`` is ``arith.addi``)."""
    found = re.match(r'(?:%[^=]*=\s*)?("[^"]*"|[\w.$-]+)', op)
    return found.group(1) if found else op


def change_points(
    evaluate: Callable[[int], str], points: Sequence[int], jobs: int, first: Sequence[int] = ()
) -> list[int]:
    """The counter values among ``points[1:]`` at which ``evaluate``'s snapshot changes, the
    snapshot changing nowhere else in ``points[0]..points[-1]``: every interval whose ends differ
    split, ``jobs`` runs at a time, after running ``first`` (values likely to bound changes).  An
    interval whose ends print alike counts as unchanged (a rewrite that a later one undoes
    within it goes unseen)."""
    cache: dict[int, str] = {}
    position = {point: index for index, point in enumerate(points)}

    def runs(values: Sequence[int]) -> None:
        todo = sorted(set(values) - set(cache))
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            cache.update(zip(todo, pool.map(evaluate, todo), strict=True))

    known = sorted({points[0], points[-1], *(p for p in first if p in position)}, key=position.__getitem__)
    runs(known)
    intervals = [
        (position[a], position[b]) for a, b in zip(known, known[1:], strict=False) if cache[a] != cache[b]
    ]
    while any(b - a > 1 for a, b in intervals):
        wide = [(a, b) for a, b in intervals if b - a > 1]
        parts = max(2, jobs // len(wide) + 1)
        cuts = {(a, b): sorted({a, b, *(a + (b - a) * k // parts for k in range(1, parts))}) for a, b in wide}
        runs([points[index] for indices in cuts.values() for index in indices])
        intervals = [interval for interval in intervals if interval[1] - interval[0] <= 1]
        for indices in cuts.values():
            intervals += [
                (a, b)
                for a, b in zip(indices, indices[1:], strict=False)
                if cache[points[a]] != cache[points[b]]
            ]
    return sorted(points[b] for _, b in intervals)


def _banner_line(banner: Banner, name: str | None = None) -> str:
    """The banner line that ``banner`` was read from (``name`` in place of its pass's name)."""
    scope = ""
    if banner.scope_op is not None:
        scope = f" ('{banner.scope_op}' operation" + (
            f": {banner.scope_symbol})" if banner.scope_symbol else ")"
        )
    failed = " Failed" if banner.failed else ""
    return f"// -----// IR Dump After {name or banner.name}{failed}: {banner.argument}{scope} //----- //"


def _diagnose(steps: Sequence[Step], before: Sequence[str]) -> None:
    """Give each failed pass step the diagnostics the tool printed ahead of its dump (``before``:
    each step's), where the import gave it none."""
    for step, text in zip(steps, before, strict=True):
        if step.flag is None or "detail" in step.flag:
            continue
        found = [m.group(0) for m in _DIAGNOSTIC.finditer(text)]
        if found:
            step.flag["detail"] = "\n".join(found)


def _base(argument: str) -> str:
    """A pass's argument without its options: ``canonicalize{...}`` is ``canonicalize``."""
    return argument.split("{", 1)[0].strip()


@dataclass
class _Planned:
    """A step of the trace to build: its kind, name and whether a banner of the dump makes it."""

    kind: StepKind
    pass_name: str
    name: str
    banner: bool = True
    before: str = ""
    """What the tool printed between the dump before and this step's (its diagnostics)."""
    matched: str = ""
    """A pattern step's: the op its pattern matched, as the action log printed it."""


def trace_compiler(
    run: CompilerRun,
    input_path: str,
    spec: str,
    *,
    rewrites: bool | frozenset[str] = False,
    jobs: int | None = None,
) -> ImportReport:
    """Run ``spec`` through the tool on ``input_path`` and import what it printed: one step per
    pass execution; those of the passes in ``rewrites`` (True: every pass that applies patterns)
    one step per pattern application, between a pass-begin and a pass-end, each with its root:
    the op the action log says the pattern was tried on, found by its location."""
    pipeline, offset = tool_pipeline(spec)
    name = Path(run.tool).name
    if any(flag.lstrip("-").startswith("split-input-file") for flag in run.flags):
        raise InputError(
            f"{name} --split-input-file makes several runs of one pipeline: trace one module at a time"
        )
    printed = run.call(input_path, "--mlir-print-debuginfo", "-o", "-")
    if printed.returncode != 0:
        raise InputError(f"{name} fails on the input: {_first_error(printed.stderr)}")
    with tempfile.TemporaryDirectory(prefix="passviz-") as folder:
        log = Path(folder, "actions.log")
        logging = (f"--log-actions-to={log}",) if rewrites else ()
        main = run.call(input_path, f"--pass-pipeline={pipeline}", *PRINTING, *logging, "-o", os.devnull)
        if "// -----// IR Dump" not in main.stderr:
            if main.returncode != 0:
                raise pipeline_error(run.tool, spec, offset, main.stderr)
            raise InputError(f"{name} printed no IR for --pass-pipeline={pipeline} (is it an MLIR opt tool?)")
        banners = [b for b in split_dump(main.stderr).banners if b.when == "after"]
        notes = [
            f"{name} ran the pipeline {pipeline} ({run.tool}): each pass step is a pass execution "
            "as its --mlir-print-ir-after-all printed the module"
        ]
        records: dict[int, RewriteRecord] = {}
        if rewrites:
            executions = (
                read_executions(log.read_text(encoding="utf-8", errors="replace")) if log.exists() else []
            )
            records = _record_rewrites(run, input_path, pipeline, banners, executions, rewrites, jobs, notes)
    return _build(name, input_path, printed.stdout, main.stderr, banners, records, notes, pipeline)


def _record_rewrites(
    run: CompilerRun,
    input_path: str,
    pipeline: str,
    banners: list[Banner],
    executions: list[Execution],
    rewrites: bool | frozenset[str],
    jobs: int | None,
    notes: list[str],
) -> dict[int, RewriteRecord]:
    """Each chosen execution's pattern applications, found with the debug counter."""
    name = Path(run.tool).name
    if len(executions) != len(banners):
        notes.append(
            f"{name}'s action log shows {len(executions)} pass executions where it printed "
            f"{len(banners)}: no pass is recorded rewrite by rewrite"
        )
        return {}
    seen = sorted({_base(b.argument) for b, e in zip(banners, executions, strict=True) if e.patterns})
    notes.append(
        "the passes whose pattern applications the debug counter (apply-pattern) sees: "
        + (", ".join(seen) or "none")
    )
    if isinstance(rewrites, frozenset):
        for wanted in sorted(rewrites - set(seen)):
            ran = any(_base(b.argument) == wanted for b in banners)
            why = "it applies no pattern the counter sees" if ran else "it is not in the pipeline"
            notes.append(f"--rewrites {wanted}: {why}; recorded as pass steps")
    records: dict[int, RewriteRecord] = {}
    first = 0
    for index, (banner, execution) in enumerate(zip(banners, executions, strict=True)):
        start, first = first, first + len(execution.patterns)
        chosen = rewrites is True or (isinstance(rewrites, frozenset) and _base(banner.argument) in rewrites)
        if not chosen or not execution.patterns:
            continue
        if banner.failed:
            notes.append(f"step of {banner.label}: the pass failed; recorded as one step")
            continue
        rank = sum(_base(b.argument) == _base(banner.argument) for b in banners[:index])
        try:
            record = _bisect(run, input_path, pipeline, banner, rank, start, execution, jobs)
        except _CounterBreaks as broken:
            notes.append(
                f"{_base(banner.argument)} ({banner.label}) fails with the debug counter at {broken.count} "
                "(a dialect conversion fails when some of its patterns may not apply): recorded as one step"
            )
            continue
        record.execution = index
        records[index] = record
        found = len(record.changes)
        notes.append(
            f"{_base(banner.argument)} ({banner.label}): {found} pattern application{'s' * (found != 1)} "
            f"among {record.attempts} attempt{'s' * (record.attempts != 1)}, found in {record.runs} runs "
            f"with --mlir-debug-counter=apply-pattern-count=N (N from {start} to {start + record.attempts})"
        )
    if any(record.changes for record in records.values()):
        notes.append(
            "the debug counter stops pattern applications only: folds, constants moved and deduplicated, "
            "dead ops erased, regions simplified and a pass's own edits are no patterns, so a rewrite step "
            "holds, with its pattern's application, those made before the next pattern applies (the step "
            f"'{WITHOUT_PATTERNS}', those before the first); a rewrite that a later one undoes between two "
            "runs compared goes unseen"
        )
    return records


def _bisect(
    run: CompilerRun,
    input_path: str,
    pipeline: str,
    banner: Banner,
    rank: int,
    start: int,
    execution: Execution,
    jobs: int | None,
) -> RewriteRecord:
    """The pattern applications of the ``rank``-th execution of ``banner``'s pass, its attempts
    numbered ``start + 1`` to ``start + attempts`` by the counter (earlier passes' attempts first)."""
    argument = _base(banner.argument)
    runs = [0]

    def snapshot(count: int) -> str:
        runs[0] += 1
        done = run.call(
            input_path,
            f"--pass-pipeline={pipeline}",
            *PRINTING[1:],
            f"--mlir-print-ir-after={argument}",
            f"--mlir-debug-counter=apply-pattern-count={count}",
            "-o",
            os.devnull,
        )
        # Passes after this one run with every pattern refused and may fail: what it printed stands.
        after = (
            [b for b in split_dump(done.stderr).banners if b.when == "after"]
            if "IR Dump" in done.stderr
            else []
        )
        if len(after) > rank and after[rank].failed:
            raise _CounterBreaks(count)
        if len(after) <= rank:
            raise InputError(
                f"{Path(run.tool).name} printed no IR after {banner.label} with the debug counter "
                f"at {count}: {_first_error(done.stderr)}"
            )
        return after[rank].text

    evaluate: dict[int, str] = {}

    def remembered(count: int) -> str:
        evaluate[count] = snapshot(count)
        return evaluate[count]

    ends, sure = candidates(execution.patterns, execution.ops)
    points = [start, *(start + end for end in ends)]
    # An application surely made is a change to see: the runs just before and at it bound it.
    surely = set(sure)
    first = [point for i, end in enumerate(ends) if end in surely for point in (points[i], points[i + 1])]
    changes = change_points(remembered, points, jobs or os.cpu_count() or 1, first)
    attempts = len(execution.patterns)
    return RewriteRecord(
        -1, banner.argument, start, attempts, changes, runs[0], evaluate, execution.patterns, execution.ops
    )


def _build(
    name: str,
    input_path: str,
    input_ir: str,
    dump: str,
    banners: list[Banner],
    records: dict[int, RewriteRecord],
    notes: list[str],
    pipeline: str,
) -> ImportReport:
    """The trace: the main dump's steps, each recorded execution's rewrites spliced in before its own."""
    preamble = dump[: dump.find("// -----// IR Dump")]
    sections: list[str] = [preamble]
    planned: list[_Planned] = []
    for index, banner in enumerate(banners):
        record = records.get(index)
        argument = banner.argument
        if record is not None and record.changes:
            planned.append(_Planned("pass-begin", argument, banner.label, banner=False))
            start = record.snapshots[record.first]
            previous = banners[index - 1].text if index else input_ir
            if start.strip() != previous.strip():
                sections.append(_banner_line(banner, "folds") + start)
                planned.append(_Planned("rewrite", argument, WITHOUT_PATTERNS))
            for count in record.changes:
                pattern = record.pattern(count)
                sections.append(_banner_line(banner, "rewrite") + record.snapshots[count])
                planned.append(_Planned("rewrite", argument, pattern, matched=record.op(count)))
        sections.append(_banner_line(banner) + banner.text)
        before = banners[index - 1].text if index else preamble
        planned.append(_Planned("pass-end", argument, banner.label, before=before))
    report = import_text("\n".join(sections), name=input_path, input_ir=input_ir)
    trace = report.trace
    imported = [p for p in planned if p.banner]
    if len(trace.steps) != len(imported):
        raise InputError(
            f"{input_path}: {name}'s dump imported as {len(trace.steps)} steps, not {len(imported)} "
            f"({'; '.join(trace.meta.get('imported', {}).get('notes', []))})"
        )
    _diagnose(trace.steps, [p.before for p in imported])
    steps = iter(trace.steps)
    out: list[Step] = []
    pass_index = -1
    for plan in planned:
        if plan.kind == "pass-begin" or (plan.kind == "pass-end" and (not out or out[-1].kind != "rewrite")):
            pass_index += 1
        step = next(steps) if plan.banner else Step(index=len(out), kind="pass-begin", delta=Delta())
        step.index = len(out)
        step.kind = plan.kind
        step.pass_name = _base(plan.pass_name)
        step.pass_index = pass_index
        step.name = plan.name
        out.append(step)
    trace.steps = out
    _give_roots(trace, [p.matched for p in planned])
    info = trace.meta.get("imported")
    if info is not None:
        info["notes"] = [*notes, *info.get("notes", [])]
    trace.meta["pipeline"] = pipeline
    trace.replayer = TextReplayer
    return report


_LOCATED = re.compile(r"\s(loc\(.*\))\s*$")
"""An op's location at the end of its printed text (``--mlir-print-debuginfo``)."""


def _give_roots(trace: Trace, matched: Sequence[str]) -> None:
    """Give each pattern step (``matched``: each step's op, as the action log printed it) the id
    of that op in the IR before it: the one op of its name at its location, or, where several
    are (a pattern's new ops take the location of the op they replace), the one of them that the
    step erased or changed; no root where that is not one op."""
    if trace.initial is None or not any(matched):
        return
    state = initial_state(trace.initial)
    for step, text in zip(trace.steps, matched, strict=True):
        if text:
            step.root = _matched_op(state, text, step.delta)
        apply_delta(state, step.delta)


def _matched_op(state: IRData, text: str, delta: Delta) -> str | None:
    """The id of the op that the action log printed as ``text``, in ``state``, or None."""
    name = _op_name(text).strip('"')
    located = _LOCATED.search(text)
    if located is None:
        return None
    loc = _spaceless(located.group(1))
    found = [i for i, op in state.ops.items() if op.name == name and _spaceless(op.loc or "") == loc]
    if len(found) > 1:
        changed = {*delta.get("ops_erased", []), *(c["id"] for c in delta.get("ops_modified", []))}
        found = [i for i in found if i in changed]
    return found[0] if len(found) == 1 else None


def _spaceless(text: str) -> str:
    return re.sub(r"\s+", "", text)
