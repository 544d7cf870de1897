"""A seeded fuzz campaign against the passviz command line.

Inputs are mutations of the peer test files (``../shared/peer``) and of
traces recorded from them, plus hand-made hostile inputs (deep nesting, huge
literals, invalid UTF-8, alias bombs, crafted trace records).  Each case runs
one command in a worker process with a memory limit; a case that outlives its
time limit kills the worker, which starts again at the next case.

Every case ends in one of these outcomes:

- ``ok``: exit status 0, output free of control characters;
- ``error``: a non-zero status with one line ``passviz: error: ...``;
- ``traceback``: an exception escaped the command (or it printed a traceback);
- ``unclean``: a non-zero status with some other message, or raw control
  characters on the terminal;
- ``memory``: ``MemoryError`` under the worker's memory limit;
- ``hang``: the command ran past the time limit.

Only ``ok`` and ``error`` are acceptable.  Run a campaign by hand with
``python -m tests.fuzz --cases 2400 --seed 1``.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
import queue
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

PEER = Path(__file__).resolve().parents[2] / "shared" / "peer"
if not PEER.is_dir():
    PEER = Path("/tmp/shared/peer")

ACCEPTABLE = {"ok", "error"}
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b]")
"""Characters that must never reach a terminal raw (tab and newline are fine)."""


@dataclass
class Case:
    """One input and the command run on it."""

    name: str
    """What made the input, for the report."""
    kind: str
    """``mlir`` or ``trace``: which file the command reads."""
    data: str
    """The input file's bytes, as latin-1 text so that any byte survives JSON."""
    argv: list[str]
    """The command, with ``{input}`` and ``{out}`` for the file paths."""


@dataclass
class Outcome:
    """What one case did."""

    index: int
    name: str
    outcome: str
    seconds: float
    detail: str = ""


# -- inputs -------------------------------------------------------------------------


def peer_chunks() -> list[str]:
    """The peer ``.mlir`` files, split at ``// -----`` as their tools split them."""
    chunks: list[str] = []
    for path in sorted(PEER.rglob("*.mlir")):
        text = path.read_text("utf-8")
        chunks.extend(c for c in re.split(r"^// -----\s*$", text, flags=re.MULTILINE) if c.strip())
    return chunks


TOKENS = [
    "{", "}", "(", ")", "<", ">", "[", "]", '"', "%", "^bb0", "@", "#", "!", ":", "=", "->", ",",
    "dense<", "0x", "9" * 5000, "-" + "9" * 400, "1e99999", "tensor<300000000xi8>", "tensor<?x?x",
    "\x00", "\x1b]0;pwned\x07", "\u202e", "\\", '"' + "a" * 40, "%_0", "%0#1", "^bb99", "loc(",
    "i1234567", "f8E4M3", "memref<", "affine_map<(d0) -> (d0)>", "#map = ", "!tt.ptr<", "}}}}", "((((",
]  # fmt: skip
"""Fragments that parsers trip on, inserted at random places."""


def mutate_text(text: str, rng: random.Random) -> str:
    """``text`` with one to three random edits."""
    for _ in range(rng.randint(1, 3)):
        if not text:
            text = rng.choice(TOKENS)
        at = rng.randrange(len(text) + 1)
        span = rng.randint(1, 40)
        choice = rng.randrange(6)
        if choice == 0:
            text = text[:at] + text[at + span :]
        elif choice == 1:
            text = text[:at] + text[at : at + span] * rng.randint(2, 4) + text[at:]
        elif choice == 2:
            text = text[:at] + rng.choice(TOKENS) + text[at:]
        elif choice == 3:
            lines = text.splitlines(keepends=True)
            if len(lines) > 2:
                i, j = rng.sample(range(len(lines)), 2)
                lines[i], lines[j] = lines[j], lines[i]
            text = "".join(lines)
        elif choice == 4:
            digits = re.compile(r"\d+")
            found = list(digits.finditer(text))
            if found:
                m = rng.choice(found)
                text = text[: m.start()] + rng.choice(["0", "-1", "4294967296", "9" * 30]) + text[m.end() :]
        else:
            text = text[:at]  # truncated
    return text


def nested_regions(depth: int) -> str:
    """A valid module with ``depth`` nested ``scf.execute_region``s."""
    open_ = "".join(f"  %r{i} = scf.execute_region -> i32 {{\n" for i in range(depth))
    close = "".join(f"  scf.yield %r{i} : i32\n  }}\n" for i in reversed(range(1, depth)))
    return (
        "func.func @deep() -> i32 {\n"
        f"{open_}  %c = arith.constant 1 : i32\n  scf.yield %c : i32\n  }}\n{close}"
        "  func.return %r0 : i32\n}\n"
    )


def alias_bomb(depth: int) -> str:
    """Type aliases that each double the one before."""
    lines = ["!t0 = tuple<i32, i32>"]
    lines += [f"!t{i} = tuple<!t{i - 1}, !t{i - 1}>" for i in range(1, depth)]
    return "\n".join(lines) + f"\nfunc.func private @f(!t{depth - 1})\n"


HOSTILE_MLIR: dict[str, Callable[[], str]] = {
    "nesting-200": lambda: nested_regions(200),
    "nesting-1000": lambda: nested_regions(1000),
    "nesting-5000": lambda: nested_regions(5000),
    "brackets-100000": lambda: "func.func @f() -> " + "tuple<" * 100_000 + "i32" + ">" * 100_000,
    "long-string": lambda: 'func.func @f() attributes {s = "' + "a" * 32 + "\n}",
    "long-string-escapes": lambda: '"' + "\\" * 5000 + "a" * 40,
    "huge-int": lambda: "%0 = arith.constant " + "9" * 5000 + " : i32",
    "huge-dense": lambda: (
        "func.func @f() -> tensor<300000000xi8> {\n"
        "  %0 = arith.constant dense<0> : tensor<300000000xi8>\n  func.return %0 : tensor<300000000xi8>\n}\n"
    ),
    "huge-dense-2d": lambda: "%0 = arith.constant dense<1.0> : tensor<100000x100000xf32>",
    "alias-bomb-20": lambda: alias_bomb(20),
    "alias-bomb-40": lambda: alias_bomb(40),
    "invalid-utf8": lambda: "func.func @f() {\n  func.return\n}\n\xff\xfe\xc0\x80",
    "undefined-value": lambda: "func.func @f() -> i32 {\n  func.return %nope : i32\n}\n",
    "control-chars": lambda: (
        'func.func @f() attributes {s = "\x1b]52;c;cHduZWQ=\x07\x1b[2J"} {\n  func.return\n}\n'
    ),
    "not-verifying": lambda: "func.func @f() -> i32 {\n  func.return\n}\n",
}
"""Hand-made inputs from the issue's reproducers, as bytes in latin-1 text (so that
``invalid-utf8`` holds bytes that are not UTF-8)."""


def _utf8(text: str) -> str:
    """``text``'s UTF-8 bytes as latin-1 text, as ``Case.data`` holds file contents."""
    return text.encode("utf-8").decode("latin-1")


def recorded_traces(chunks: list[str], count: int) -> list[str]:
    """Trace files recorded from the first ``count`` peer chunks that passviz traces."""
    from passviz.cli import main

    traces: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        for i, chunk in enumerate(chunks):
            if len(traces) >= count:
                break
            source, out = Path(folder, f"{i}.mlir"), Path(folder, f"{i}.json")
            source.write_text(chunk, "utf-8")
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                try:
                    if main(["trace", str(source), "-p", "canonicalize,cse", "-o", str(out)]) != 0:
                        continue
                except BaseException:  # noqa: BLE001 - a chunk passviz cannot trace is no seed
                    continue
            traces.append(out.read_bytes().decode("latin-1"))
    return traces


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():  # pyright: ignore[reportUnknownVariableType]
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
            yield from _paths(item, (*path, i))


RAW = "\x00RAW\x00"
"""Marks a value to be spliced into the JSON text as it is (numbers JSON cannot write)."""

REPLACEMENTS: list[Any] = [
    None, True, -1, 2**64, 2**1000, 1e308, "", "o3\n", "x" * 100_000, "\x1b]0;pwned\x07\x1b[2J",
    "</script><script>window.__pwned=1</script>", [], {}, [[[[]]]], {"kind": "nope"},
    RAW + "9" * 5000, RAW + "NaN", RAW + "-Infinity", RAW + "1e99999",
]  # fmt: skip


def mutate_trace(text: str, rng: random.Random) -> str:
    """A recorded trace with one hostile edit: a field replaced, a record dropped or the file cut."""
    lines = text.splitlines()
    choice = rng.randrange(5)
    if choice == 0:
        return text[: rng.randrange(len(text))]
    if choice == 1 and len(lines) > 2:
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines) + "\n"
    if choice == 2:
        depth = rng.choice([1000, 10_000, 100_000])
        line = rng.randrange(len(lines))
        lines[line] = "[" * depth + "]" * depth
        return "\n".join(lines) + "\n"
    try:
        line = rng.randrange(len(lines))
        record = json.loads(lines[line])
    except ValueError:
        return mutate_text(text, rng)
    path = rng.choice(list(_paths(record))[1:] or [()])
    value = rng.choice(REPLACEMENTS)
    if not path:
        record = value
    else:
        holder = record
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = value
    dumped = json.dumps(record, ensure_ascii=False, default=str)
    dumped = re.sub(r'"\\u0000RAW\\u0000([^"]*)"', r"\1", dumped)
    lines[line] = dumped
    return "\n".join(lines) + "\n"


def gzip_bomb(megabytes: int) -> str:
    """A small gzip file that expands to ``megabytes`` of spaces (a valid JSON prefix)."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9) as out:
        block = b" " * (1 << 20)
        for _ in range(megabytes):
            out.write(block)
    return buffer.getvalue().decode("latin-1")


MLIR_COMMANDS = [
    ["trace", "{input}", "-p", "canonicalize,cse", "-o", "{out}"],
    ["trace", "{input}", "-p", "cse", "-o", "{out}"],
]
TRACE_COMMANDS = [
    ["steps", "{input}"],
    ["show", "{input}", "--step", "-1"],
    ["show", "{input}", "--step", "1", "--diff"],
    ["validate", "{input}"],
    ["dump", "{input}"],
    ["export", "{input}", "--html", "{out}"],
]


def campaign(cases: int, seed: int) -> list[Case]:
    """``cases`` cases from ``seed``: the hand-made ones first, then mutations of peer files and traces."""
    rng = random.Random(seed)
    chunks = peer_chunks()
    traces = recorded_traces(chunks, 8)
    made: list[Case] = []
    for name, build in HOSTILE_MLIR.items():
        made.append(Case(name, "mlir", build(), rng.choice(MLIR_COMMANDS)))
    if traces:
        made.append(Case("gzip-bomb-trace", "trace", gzip_bomb(512), ["steps", "{input}"]))
        made.append(Case("deep-json-trace", "trace", "[" * 10_000 + "]" * 10_000, ["show", "{input}"]))
    while len(made) < cases:
        if traces and rng.random() < 0.4:
            made.append(
                Case(
                    "trace-mutation",
                    "trace",
                    mutate_trace(rng.choice(traces), rng),
                    rng.choice(TRACE_COMMANDS),
                )
            )
        else:
            mutated = mutate_text(rng.choice(chunks), rng)
            made.append(Case("mlir-mutation", "mlir", _utf8(mutated), MLIR_COMMANDS[0]))
    return made[:cases]


# -- running ------------------------------------------------------------------------


def _classify(status: int | None, raised: BaseException | None, out: str, err: str) -> tuple[str, str]:
    if isinstance(raised, MemoryError):
        return "memory", "MemoryError"
    if raised is not None:
        return "traceback", f"{type(raised).__name__}: {str(raised)[:200]}"
    if "Traceback (most recent call last)" in out + err:
        return "traceback", err[-300:]
    if CONTROL.search(out) or CONTROL.search(err):
        return "unclean", "control characters on the terminal"
    if status == 0:
        return "ok", ""
    lines = [line for line in err.strip().splitlines() if not line.startswith("passviz: warning: ")]
    if len(lines) == 1 and lines[0].startswith("passviz: error: "):
        return "error", lines[0][:200]
    return "unclean", err.strip()[:300]


def _worker(cases_file: str, start: int, memory_mb: int) -> None:
    """Run cases from ``start`` on, one JSON line per case on stdout."""
    import resource

    limit = memory_mb << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from passviz.cli import main

    cases = [Case(**c) for c in json.loads(Path(cases_file).read_text("utf-8"))]
    report = sys.stdout
    with tempfile.TemporaryDirectory() as folder:
        for index in range(start, len(cases)):
            case = cases[index]
            suffix = ".mlir" if case.kind == "mlir" else ".passviz.json"
            source, out = Path(folder, f"in{suffix}"), Path(folder, "out")
            source.write_bytes(case.data.encode("latin-1"))
            argv = [a.replace("{input}", str(source)).replace("{out}", str(out)) for a in case.argv]
            stdout, stderr = io.StringIO(), io.StringIO()
            raised: BaseException | None = None
            status: int | None = None
            began = time.perf_counter()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                try:
                    status = main(argv)
                except SystemExit as exc:  # argparse's usage errors
                    status = exc.code if isinstance(exc.code, int) else 1
                    if status == 2:
                        stderr = io.StringIO("passviz: error: usage\n")
                except BaseException as exc:  # noqa: BLE001 - what the campaign looks for
                    raised = exc
            outcome, detail = _classify(status, raised, stdout.getvalue(), stderr.getvalue())
            seconds = time.perf_counter() - began
            line = Outcome(index, case.name, outcome, round(seconds, 3), detail)
            report.write(json.dumps(asdict(line)) + "\n")
            report.flush()


def _pump(stream: Any, lines: queue.Queue[str | None]) -> None:
    """Hand a worker's report lines to ``lines``, then ``None`` when it ends."""
    for line in stream:
        lines.put(line)
    lines.put(None)


def run_campaign(cases: list[Case], time_limit: float = 20.0, memory_mb: int = 3072) -> list[Outcome]:
    """Run ``cases`` in worker processes; a case past ``time_limit`` seconds is a hang."""
    with tempfile.TemporaryDirectory() as folder:
        cases_file = Path(folder, "cases.json")
        cases_file.write_text(json.dumps([asdict(c) for c in cases]), "utf-8")
        outcomes: list[Outcome] = []
        while len(outcomes) < len(cases):
            start = len(outcomes)
            worker = subprocess.Popen(
                [sys.executable, "-m", "tests.fuzz", "--worker", str(cases_file), str(start), str(memory_mb)],
                cwd=Path(__file__).resolve().parents[1],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            lines: queue.Queue[str | None] = queue.Queue()

            threading.Thread(target=_pump, args=(worker.stdout, lines), daemon=True).start()
            # The first case of a worker also pays for importing passviz.
            deadline = time.monotonic() + time_limit + 30
            while True:
                try:
                    line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    index = len(outcomes)
                    outcomes.append(Outcome(index, cases[index].name, "hang", time_limit))
                    worker.kill()
                    break
                if line is None:  # the worker died, or finished
                    worker.wait()
                    if len(outcomes) < len(cases):
                        index = len(outcomes)
                        died = f"worker exited {worker.returncode}: {worker.stderr.read()[-300:] if worker.stderr else ''}"
                        kind = "memory" if worker.returncode and worker.returncode < 0 else "traceback"
                        outcomes.append(Outcome(index, cases[index].name, kind, 0.0, died))
                    break
                outcomes.append(Outcome(**json.loads(line)))
                deadline = time.monotonic() + time_limit
            if worker.poll() is None:
                worker.kill()
            worker.wait()
        return outcomes


def summary(outcomes: list[Outcome]) -> str:
    """Counts by outcome, then each unacceptable case."""
    counts = Counter(o.outcome for o in outcomes)
    lines = [", ".join(f"{k}: {counts[k]}" for k in sorted(counts))]
    lines += [
        f"  #{o.index} {o.name}: {o.outcome} {o.detail}" for o in outcomes if o.outcome not in ACCEPTABLE
    ]
    return "\n".join(lines)


def _main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        _worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=20.0)
    parser.add_argument("--json", help="write every outcome here")
    args = parser.parse_args()
    outcomes = run_campaign(campaign(args.cases, args.seed), args.time_limit)
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(o) for o in outcomes], indent=1))
    print(summary(outcomes))
    os._exit(0 if all(o.outcome in ACCEPTABLE for o in outcomes) else 1)


if __name__ == "__main__":
    _main()
