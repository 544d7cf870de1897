"""Trace files: NDJSON written as the run goes, read back with validation.

A trace file holds one JSON record per line: a ``header`` (metadata and the
initial IR), one ``step`` per step, and an ``end`` record once the run has
finished, then any ``run`` records (kernel runs at steps, which ``append_runs``
adds after the last record: being last, they never hide a completed step when
a file is cut, and a cut run record is dropped like any cut last line).
A file whose name ends in ``.gz`` is gzip-compressed (reading knows gzip by
its magic bytes, whatever the name).  Each line of a plain file is flushed
when written, so a run that is killed leaves every completed step
on disk; a gzip file is flushed at every pass boundary and every 64 KiB.
Reading never trusts the file: every record is checked against the JSON
Schema, and a file cut off at any byte opens with the steps completed before
the cut and a warning.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from passviz.trace.envelope import record_problem, steps_valid
from passviz.trace.model import (
    Delta,
    Flag,
    InitialState,
    RunRecord,
    Step,
    StepKind,
    Trace,
    TraceMeta,
)
from passviz.trace.records import enclosing_pass, end_record, header_record, step_to_record
from passviz.trace.untrusted import TraceLimitError, check_depth, decode_record, read_bytes, read_chunks

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from xdsl.context import Context


class TraceFormatError(ValueError):
    """A trace file that cannot be read: not a trace, or invalid in the middle."""


@cache
def trace_schema() -> dict[str, Any]:
    """The JSON Schema every record of a trace file satisfies."""
    text = resources.files("passviz.trace").joinpath("trace.schema.json").read_text("utf-8")
    return cast(dict[str, Any], json.loads(text))


@cache
def _validator() -> Draft202012Validator:
    # Imported here: jsonschema takes about a second to import (its format
    # checkers build grammars), which every command would pay before its first step.
    from jsonschema import Draft202012Validator

    return Draft202012Validator(trace_schema())


def schema_errors(record: object) -> list[str]:
    """What is wrong with ``record`` according to the schema (empty if valid)."""
    found: list[Any] = list(_validator().iter_errors(cast(Any, record)))  # pyright: ignore[reportUnknownMemberType]
    errors = sorted(found, key=lambda e: list(e.absolute_path))
    out: list[str] = []
    for error in errors:
        best = _deepest(error)
        where = "/".join(str(p) for p in best.absolute_path) or "(record)"
        out.append(f"{where}: {best.message}")
    return out


def _deepest(error: Any) -> Any:
    """For a ``oneOf`` failure, the branch error that got furthest."""
    context = list(error.context or [])
    if not context:
        return error
    return max(context, key=lambda e: len(list(e.absolute_path)))


def step_from_record(record: dict[str, Any], in_pass: tuple[str, int] | None = None) -> Step:
    """A step from a record that passed schema validation (see ``passviz.trace.records.step_to_record``)."""
    kind = cast(StepKind, record["kind"])
    pass_name, pass_index = record.get("pass"), record.get("pass_index")
    if pass_name is None and in_pass is not None and kind in ("rewrite", "checkpoint", "failure"):
        pass_name, pass_index = in_pass
    return Step(
        index=cast(int, record["index"]),
        kind=kind,
        pass_name=pass_name,
        pass_index=pass_index,
        name=record.get("name"),
        root=record.get("root"),
        delta=cast(Delta, record.get("delta", {})),
        flag=cast(Flag | None, record.get("flag")),
        chain=cast(list[str] | None, record.get("chain")),
        dispatch=cast(list[list[str]] | None, record.get("dispatch")),
    )


def _dumps(record: dict[str, object]) -> str:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


GZIP_FLUSH_BYTES = 1 << 16
"""A gzip trace is flushed once this much NDJSON has gone in since the last flush."""

GZIP_LEVEL = 9
"""zlib's best compression: on the 10,000-op benchmark's trace it is 6% smaller
than the default level 6 (0.136x ``--print-between-passes``, not 0.144x) for
about 2% more recording time."""


class TraceWriter:
    """Writes a trace as it is recorded, one flushed line per record.

    A path ending in ``.gz`` gets a gzip stream.  It is flushed
    (``Z_SYNC_FLUSH``) at every pass boundary, every flagged step, and once
    ``GZIP_FLUSH_BYTES`` of records went in since the last flush: a cut-off
    file decompresses up to its last flush.  Flushing after every record would
    cost a sixth of the file's size; flushing by size, not time, keeps the
    bytes the same from run to run.
    """

    def __init__(self, stream: IO[bytes], *, close: bool = False, compress: bool = False) -> None:
        self._stream = stream
        self._close = close
        self._zip = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31) if compress else None
        self._pending = 0
        """NDJSON bytes compressed since the last flush."""
        self._pass: tuple[str, int] | None = None

    @classmethod
    def to_path(cls, path: str | Path) -> TraceWriter:
        """A writer to a new file at ``path`` (gzip-compressed for ``*.gz``)."""
        return cls(open(path, "wb"), close=True, compress=str(path).endswith(".gz"))

    def _write(self, record: dict[str, object], *, flush: bool = True) -> None:
        data = (_dumps(record) + "\n").encode("utf-8")
        if self._zip is not None:
            self._pending += len(data)
            data = self._zip.compress(data)
            if not flush and self._pending < GZIP_FLUSH_BYTES:
                if data:
                    self._stream.write(data)
                return
            data += self._zip.flush(zlib.Z_SYNC_FLUSH)
            self._pending = 0
        self._stream.write(data)
        self._stream.flush()

    def flush(self) -> None:
        """Put every record written so far on disk (a gzip stream: readable up to here)."""
        if self._zip is not None and self._pending:
            self._stream.write(self._zip.flush(zlib.Z_SYNC_FLUSH))
            self._pending = 0
        self._stream.flush()

    def write_header(self, trace: Trace) -> None:
        """Write the header record."""
        self._write(header_record(trace))

    def write_step(self, step: Step) -> None:
        """Write one step record."""
        self._pass = enclosing_pass(step, self._pass)
        boundary = step.kind in ("pass-begin", "pass-end", "failure") or step.flag is not None
        self._write(step_to_record(step, in_pass=self._pass), flush=boundary)

    def write_end(self, trace: Trace, runs: list[RunRecord] | None = None) -> None:
        """Write the end record (then ``runs``) and close the file if this writer opened it."""
        self._write(end_record(trace))
        for run in runs or ():
            self._write(dict(run))
        if self._zip is not None:
            self._stream.write(self._zip.flush(zlib.Z_FINISH))
        if self._close:
            self._stream.close()


def write_trace(trace: Trace, path: str | Path) -> None:
    """Write a whole trace to ``path``."""
    writer = TraceWriter.to_path(path)
    writer.write_header(trace)
    for step in trace.steps:
        writer.write_step(step)
    writer.write_end(trace, runs=trace.runs)


def append_runs(path: str | Path, runs: list[RunRecord]) -> None:
    """Add run records at the end of the trace file at ``path``.

    A plain file gets the lines appended; a gzip file is rewritten whole
    (through a temporary file renamed over it), as a stream with one member.
    A file cut mid-line is refused: appending would turn its cut line into
    an invalid record in the middle.
    """
    lines = b"".join((_dumps(dict(run)) + "\n").encode("utf-8") for run in runs)
    data = b""
    with open(path, "rb") as stream:
        gzipped = stream.read(2) == b"\x1f\x8b"
        if not gzipped and stream.seek(0, 2):
            stream.seek(-1, 2)
            data = stream.read(1)  # the last byte: a newline unless the file is cut
    if gzipped:
        data = read_bytes(path)
    if data and not data.endswith(b"\n"):
        raise TraceFormatError(f"{path}: the trace is cut off mid-line; run records cannot be appended")
    if not gzipped:
        with open(path, "ab") as stream:
            stream.write(lines)
        return
    target = Path(path)
    temporary = target.with_name(target.name + ".tmp")
    packer = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31)
    temporary.write_bytes(packer.compress(data + lines) + packer.flush())
    temporary.replace(target)


@dataclass
class _Line:
    number: int
    record: dict[str, Any] | None
    problem: str | None
    last: bool
    """Whether the line ends the file (then a problem is a cut, not damage)."""
    head: bytes
    """How the line begins, to tell a header cut short."""
    checked: bool = False
    """Whether the record is known to be valid already (``_prechecked``)."""


_NOT_BLANK = re.compile(rb"[^ \t\n\r\x0b\x0c]")
"""A byte that makes a line more than blank (the whitespace ``bytes.strip`` removes)."""


def _raw_lines(chunks: Iterable[bytes]) -> Iterator[tuple[int, bytes | bytearray, bool]]:
    """The lines of the NDJSON in ``chunks`` that are not blank: number, text, and whether it ends the file.

    A line ends the file when no byte follows its newline, or it has none.
    Runs of blank lines are skipped by searching and counting in C, so a
    file of millions of newlines reads in a moment and in constant memory.
    """
    number = 1
    """The number of the line being read."""
    partial = bytearray()
    """What there is of the line being read, when a chunk ended inside it."""
    held: tuple[int, bytes | bytearray] | None = None
    """The last complete line: whether it ends the file is known once more bytes come, or none."""
    for chunk in chunks:
        pos, size = 0, len(chunk)
        while pos < size:
            if held is not None:
                yield held[0], held[1], False
                held = None
            if not partial:
                found = _NOT_BLANK.search(chunk, pos)
                start = size if found is None else found.start()
                number += chunk.count(b"\n", pos, start)
                pos = start
                if pos == size:
                    break
            end = chunk.find(b"\n", pos)
            if end < 0:
                partial += chunk[pos:]
                break
            if partial:
                partial += chunk[pos:end]
                held, partial = (number, partial), bytearray()
            else:
                held = (number, chunk[pos:end])
            number += 1
            pos = end + 1
    if held is not None:
        yield held[0], held[1], True
    elif partial:
        yield number, partial, True


def _lines(chunks: Iterable[bytes], *, depth: bool) -> Iterator[_Line]:
    """Each line of the NDJSON in ``chunks`` that is not blank, decoded (or what is wrong with it);
    the nesting of each record checked if ``depth`` (see ``decode_record``)."""
    for number, text, last in _raw_lines(chunks):
        head = bytes(text[: len(_HEADER_START) + 8])
        try:
            value = decode_record(text.decode("utf-8"), depth=depth)
            if not isinstance(value, dict):
                check_depth(value)  # told first, as for a record
        except TraceLimitError as exc:
            yield _Line(number, None, str(exc), False, head)  # an error even on the last line
            continue
        except ValueError as exc:  # not UTF-8, not JSON
            yield _Line(number, None, f"not valid JSON ({exc})", last, head)
            continue
        if not isinstance(value, dict):
            yield _Line(number, None, "not a JSON object", last, head)
            continue
        yield _Line(number, cast(dict[str, Any], value), None, last, head)


STEP_BATCH = 256
"""Step records checked at once (``envelope.steps_valid``): a column at a time costs a
fraction of checking each record alone."""


def _prechecked(lines: Iterable[_Line]) -> Iterator[_Line]:
    """``lines`` in order, each run of step records checked as one batch before any is passed on.

    A batch that passes comes with ``checked`` set; one that does not is checked
    record by record when it is read, which finds and locates the problem."""
    batch: list[_Line] = []
    for line in lines:
        if line.record is not None and "record" not in line.record:
            batch.append(line)
            if len(batch) < STEP_BATCH:
                continue
            line = None
        yield from _check_batch(batch)
        batch = []
        if line is not None:
            yield line
    yield from _check_batch(batch)


def _check_batch(batch: list[_Line]) -> list[_Line]:
    records = [line.record for line in batch if line.record is not None]
    if records and steps_valid(records):
        for line in batch:
            line.checked = True
    return batch


def read_trace(
    path: str | Path,
    *,
    context_factory: Callable[[], Context] | None = None,
    validate: bool = False,
) -> Trace:
    """Read a trace file, checking every record, each field of its deltas
    included, before any of it is used: as the schema says by the quick check
    (``envelope``), or with ``validate`` by the schema itself (seconds on a
    long trace: ``passviz validate`` does it).

    A file cut off at any byte yields the steps completed before the cut and
    a warning; anything else that is wrong raises ``TraceFormatError`` with
    the line it is on.
    """
    try:
        # The envelope check bounds the nesting of what it accepts: depth is checked where it fails.
        # jsonschema recurses into what it is given: each record's depth is checked first.
        lines = _lines(read_chunks(path), depth=validate)
        return _read_lines(path, lines if validate else _prechecked(lines), context_factory, validate)
    except TraceLimitError as exc:  # past the size limit, met while reading
        raise TraceFormatError(str(exc)) from None


def _read_lines(
    path: str | Path,
    lines: Iterable[_Line],
    context_factory: Callable[[], Context] | None,
    validate: bool,
) -> Trace:
    """``read_trace``'s work on the decoded lines of the file at ``path``."""
    trace: Trace | None = None
    head = b""
    in_pass: tuple[str, int] | None = None
    warnings: list[str] = []
    ended = False
    for line in lines:
        head = head or line.head
        if line.problem is not None:
            if line.last:
                warnings.append(
                    f"{path}: the trace is cut off at line {line.number}; "
                    "showing the steps completed before the cut"
                )
                break
            raise TraceFormatError(f"{path}:{line.number}: {line.problem}")
        assert line.record is not None
        problem = None if line.checked else _record_problem(line.record, validate)
        if problem is not None:
            try:  # a record nested too deep is told so, not what else is wrong with it
                check_depth(line.record)
            except TraceLimitError as exc:
                raise TraceFormatError(f"{path}:{line.number}: {exc}") from None
            raise TraceFormatError(f"{path}:{line.number}: invalid trace record: {problem}")
        kind = line.record.get("record", "step")
        if trace is None:
            if kind != "header":
                raise TraceFormatError(f"{path}:{line.number}: expected the trace header first")
            trace = Trace(
                meta=cast(TraceMeta, line.record["meta"]),
                initial_ir=line.record.get("initial_ir"),
                initial=cast(InitialState | None, line.record.get("initial")),
                sources=cast(dict[str, str], line.record.get("sources", {})),
                context_factory=context_factory,
                source=str(path),
                record_lines=[line.number],
            )
            continue
        if kind == "run":
            run = cast(RunRecord, line.record)
            if run["step"] >= len(trace.steps):
                raise TraceFormatError(
                    f"{path}:{line.number}: a run record for step {run['step']}, "
                    f"but the trace has {len(trace.steps)} steps"
                )
            trace.runs.append(run)
            continue
        if ended or kind == "header" or trace.runs:
            raise TraceFormatError(f"{path}:{line.number}: unexpected {kind} record")
        if kind == "end":
            trace.status = line.record["status"]
            ended = True
            continue
        step = step_from_record(line.record, in_pass)
        in_pass = enclosing_pass(step, in_pass)
        if step.index != len(trace.steps):
            raise TraceFormatError(
                f"{path}:{line.number}: step {step.index} out of order (expected {len(trace.steps)})"
            )
        trace.steps.append(step)
        trace.record_lines.append(line.number)
    if trace is None:
        if _looks_like_cut_header(head):
            # Cut inside the header: nothing completed before the cut.
            return _empty_trace(path, context_factory, warnings)
        raise TraceFormatError(f"{path}: not a passviz trace")
    if not ended and not warnings:
        warnings.append(f"{path}: the run did not finish (no end record); the trace may be incomplete")
    trace.warnings.extend(warnings)
    return trace


def _record_problem(record: dict[str, Any], validate: bool) -> str | None:
    """The first thing wrong with a record: by the schema, or by the quick check (``envelope``)."""
    if validate:
        errors = schema_errors(record)
        return errors[0] if errors else None
    return record_problem(record)


_HEADER_START = b'{"record":"header"'


def _looks_like_cut_header(line: bytes) -> bool:
    """Whether the first line, ``line``'s beginning, is what a header cut short would leave."""
    head = line.lstrip()[: len(_HEADER_START)]
    return bool(head) and _HEADER_START.startswith(head)


def _empty_trace(
    path: str | Path, context_factory: Callable[[], Context] | None, warnings: list[str]
) -> Trace:
    if not warnings:
        warnings.append(f"{path}: the trace is cut off inside its header")
    meta = TraceMeta(input="", pipeline="", passviz_version="", xdsl_version="", verify_each="off")
    trace = Trace(meta=meta, initial_ir="", context_factory=context_factory)
    trace.warnings.extend(warnings)
    return trace
