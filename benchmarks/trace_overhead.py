"""Trace overhead benchmark: ``passviz trace`` against ``xdsl-opt`` on the same pipeline.

Generates a deterministic module of N arith ops and runs ``canonicalize,cse``
repeated R times, side by side in one run:

- in process, the pipeline alone: xDSL's own passes, passviz's passes
  recording nothing, and passviz's passes recorded;
- whole commands, process start included: ``xdsl-opt IN -p P`` against
  ``passviz trace IN -p P -o T`` (goal: at most 1.25x);
- growth: ``passviz trace`` at 4N ops against N ops (goal: at most 4.4x), with
  ``xdsl-opt``'s own growth on the same inputs beside it;
- size: the trace against ``xdsl-opt --print-between-passes`` (goal: at most
  0.15x), and whether two runs write byte-identical traces;
- reading: ``passviz steps T`` and ``passviz show T --step -1`` (goal: 1 s each).

Each figure is measured for the trace a user gets by default, gzip-compressed
(``T`` ending in ``.passviz.json.gz``, the name ``passviz trace`` picks
without ``-o``), and again for plain NDJSON (``-o T.passviz.json``), labelled.

    python benchmarks/trace_overhead.py [--ops 10000] [--repeat 5] [--runs 2]
                                        [--no-growth] [--profile]

The figures are printed as ratios, never asserted; the script exits 0.
"""

from __future__ import annotations

import argparse
import cProfile
import gzip
import json
import pstats
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import NamedTuple

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

import passviz
from passviz.compilers.registry import make_context
from passviz.pipelines import parse_ir, parse_pipeline
from passviz.recording.recorder import RecordOptions, Tracer
from passviz.trace.model import TraceMeta
from passviz.trace.store import TraceWriter

# -- IR generation -------------------------------------------------------------

INT_TYPES = ("i32", "i64", "index")
INT_BINOPS = ("addi", "muli", "subi", "andi", "ori", "xori")
PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")

# Kinds of op the generator emits, with their weights.  Most are live and not
# foldable; "fold", "dup" and "dead" are the deliberate easy pickings.
KINDS: dict[str, int] = {
    "int2": 40,  # int binop on two distinct non-constant values
    "intc": 10,  # int binop of a value and a fresh non-trivial constant
    "shli": 5,  # shift left by a small constant
    "cmpi": 8,
    "select": 8,
    "float": 14,  # addf / mulf on f32
    "fold": 6,  # x+0, x*1, x|0, x-0, constant arithmetic
    "dup": 5,  # an earlier op again: for CSE
    "dead": 4,  # an op whose result nobody uses
}


@dataclass
class FuncGen:
    """Generates the body of one ``func.func``, tracking live values per type."""

    rng: random.Random
    name: str
    lines: list[str] = field(default_factory=list[str])
    count: int = 0
    pool: dict[str, list[str]] = field(default_factory=dict[str, list[str]])
    unused: dict[str, list[str]] = field(default_factory=dict[str, list[str]])
    consts: dict[str, list[str]] = field(default_factory=dict[str, list[str]])
    history: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])
    _next: int = 0

    def __post_init__(self) -> None:
        args = {"i32": "a", "i64": "b", "index": "n", "f32": "x"}
        for ty, prefix in args.items():
            values = [f"%{prefix}{i}" for i in range(2)]
            self.pool[ty] = list(values)
            self.unused[ty] = list(values)
            self.consts[ty] = []
        self.pool["i1"] = []
        self.unused["i1"] = []
        self.consts["i1"] = []

    def fresh(self) -> str:
        """A new SSA name."""
        self._next += 1
        return f"%v{self._next}"

    def emit(self, rhs: str, ty: str, *, live: bool = True, remember: bool = True) -> str:
        """Emit ``%r = rhs`` of type ``ty``; live results join the operand pools."""
        result = self.fresh()
        self.lines.append(f"    {result} = {rhs}")
        self.count += 1
        if live:
            self.pool[ty].append(result)
            self.unused[ty].append(result)
        if remember:
            self.history.append((rhs, ty))
        return result

    def constant(self, ty: str, value: int | float) -> str:
        """A constant: mostly fresh, sometimes an earlier one (fresh duplicates feed CSE)."""
        if self.consts[ty] and self.rng.random() < 0.3:
            return self.rng.choice(self.consts[ty])
        literal = f"{value:.3f}" if ty == "f32" else str(value)
        result = self.emit(f"arith.constant {literal} : {ty}", ty, live=False, remember=False)
        self.consts[ty].append(result)
        return result

    def operand(self, ty: str, avoid: str | None = None) -> str:
        """A non-constant operand, preferring values nobody uses yet (keeps ops live)."""
        unused = self.unused[ty]
        for _ in range(4):
            if unused and self.rng.random() < 0.8:
                index = self.rng.randrange(len(unused))
                unused[index], unused[-1] = unused[-1], unused[index]
                value = unused.pop()
            else:
                value = self.rng.choice(self.pool[ty])
            if value != avoid:
                return value
            unused.append(value)
        return next(v for v in self.pool[ty] if v != avoid)

    def pair(self, ty: str) -> tuple[str, str]:
        """Two distinct non-constant operands."""
        lhs = self.operand(ty)
        return lhs, self.operand(ty, avoid=lhs)

    def condition(self) -> str:
        """An ``i1`` computed by a comparison (emits one if none is around)."""
        if not self.pool["i1"]:
            self.gen_cmpi()
        return self.operand("i1")

    def nontrivial(self, ty: str) -> int | float:
        """A constant value that no identity pattern folds away."""
        if ty == "f32":
            return self.rng.choice((0.5, 1.5, 2.25, 3.0, -1.75))
        return self.rng.randint(2, 1000) * self.rng.choice((1, -1))

    # -- op kinds -------------------------------------------------------------

    def gen_int2(self) -> None:
        ty = self.rng.choice(INT_TYPES)
        lhs, rhs = self.pair(ty)
        self.emit(f"arith.{self.rng.choice(INT_BINOPS)} {lhs}, {rhs} : {ty}", ty)

    def gen_intc(self) -> None:
        ty = self.rng.choice(INT_TYPES)
        value = self.operand(ty)
        cst = self.constant(ty, self.nontrivial(ty))
        op = self.rng.choice(("addi", "muli", "subi", "xori", "andi"))
        self.emit(f"arith.{op} {value}, {cst} : {ty}", ty)

    def gen_shli(self) -> None:
        ty = self.rng.choice(INT_TYPES)
        value = self.operand(ty)
        amount = self.constant(ty, self.rng.randint(1, 7))
        self.emit(f"arith.shli {value}, {amount} : {ty}", ty)

    def gen_cmpi(self) -> None:
        ty = self.rng.choice(INT_TYPES)
        lhs, rhs = self.pair(ty)
        self.emit(f"arith.cmpi {self.rng.choice(PREDICATES)}, {lhs}, {rhs} : {ty}", "i1")

    def gen_select(self) -> None:
        cond = self.condition()
        ty = self.rng.choice((*INT_TYPES, "f32"))
        lhs, rhs = self.pair(ty)
        self.emit(f"arith.select {cond}, {lhs}, {rhs} : {ty}", ty)

    def gen_float(self) -> None:
        op = self.rng.choice(("addf", "mulf"))
        lhs = self.operand("f32")
        if self.rng.random() < 0.2:
            rhs = self.constant("f32", self.nontrivial("f32"))
        else:
            rhs = self.operand("f32", avoid=lhs)
        self.emit(f"arith.{op} {lhs}, {rhs} : f32", "f32")

    def gen_fold(self) -> None:
        ty = self.rng.choice(INT_TYPES)
        choice = self.rng.randrange(4)
        if choice == 3:  # constant arithmetic
            lhs = self.constant(ty, self.nontrivial(ty))
            rhs = self.constant(ty, self.nontrivial(ty))
            op = self.rng.choice(("addi", "muli", "subi"))
        else:  # identities: x+0, x*1, x|0
            op, unit = (("addi", 0), ("muli", 1), ("ori", 0))[choice]
            lhs, rhs = self.operand(ty), self.constant(ty, unit)
        self.emit(f"arith.{op} {lhs}, {rhs} : {ty}", ty, remember=False)

    def gen_dup(self) -> None:
        if not self.history:
            self.gen_int2()
            return
        rhs, ty = self.rng.choice(self.history[-200:])
        self.emit(rhs, ty, remember=False)

    def gen_dead(self) -> None:
        ty = self.rng.choice(INT_TYPES)
        lhs, rhs = self.rng.sample(self.pool[ty], 2)
        self.emit(f"arith.{self.rng.choice(INT_BINOPS)} {lhs}, {rhs} : {ty}", ty, live=False, remember=False)

    # -- assembling -----------------------------------------------------------

    def pending(self) -> int:
        """Ops the final reduction will still emit."""
        return sum(max(0, len(v) - 1) for v in self.unused.values())

    def fill(self, target: int) -> None:
        """Emit random ops until the body (with its final reduction) has ``target`` ops."""
        kinds, weights = list(KINDS), list(KINDS.values())
        while self.count + self.pending() < target:
            kind = self.rng.choices(kinds, weights)[0]
            getattr(self, f"gen_{kind}")()

    def reduce(self, ty: str) -> str:
        """Fold every not-yet-used value of ``ty`` into one, so all of them stay live."""
        values = self.unused[ty]
        if not values:
            values.append(self.pool[ty][-1] if self.pool[ty] else self.emit(f"arith.constant 1 : {ty}", ty))
        op = {"f32": "addf", "i1": "ori"}.get(ty, "addi")
        acc = values.pop()
        while values:
            acc = self.emit(f"arith.{op} {acc}, {values.pop()} : {ty}", ty, live=False, remember=False)
        return acc

    def text(self) -> str:
        """The whole ``func.func``, returning one reduced value per type."""
        types = (*INT_TYPES, "f32", "i1")
        results = [self.reduce(ty) for ty in types]
        args = ", ".join(
            f"%{p}{i}: {t}"
            for p, t in (("a", "i32"), ("b", "i64"), ("n", "index"), ("x", "f32"))
            for i in range(2)
        )
        head = f"  func.func @{self.name}({args}) -> ({', '.join(types)}) {{"
        ret = f"    func.return {', '.join(results)} : {', '.join(types)}"
        return "\n".join([head, *self.lines, ret, "  }"])


def generate_module(ops: int, *, funcs: int = 4, seed: int = 1234) -> str:
    """A module of about ``ops`` arith ops spread over ``funcs`` functions."""
    rng = random.Random(seed)
    bodies: list[str] = []
    for index in range(funcs):
        gen = FuncGen(rng, f"kernel{index}")
        gen.fill(ops // funcs + (1 if index < ops % funcs else 0))
        bodies.append(gen.text())
    return "builtin.module {\n" + "\n".join(bodies) + "\n}\n"


def count_ops(module: ModuleOp) -> Counter[str]:
    """Ops per dialect in ``module`` (the module itself excluded)."""
    return Counter(op.name.split(".")[0] for op in module.walk() if op is not module)


# -- runs ----------------------------------------------------------------------


def pipeline_spec(repeat: int) -> str:
    """``canonicalize,cse`` ``repeat`` times."""
    return ",".join(["canonicalize,cse"] * repeat)


def run_xdsl(text: str, repeat: int) -> tuple[float, ModuleOp]:
    """xDSL's own passes; times the pipeline only (not parsing)."""
    module = parse_ir(text)
    ctx = make_context()
    passes: list[ModulePass] = []
    for _ in range(repeat):
        passes += [CanonicalizePass(), CommonSubexpressionElimination()]
    start = time.perf_counter()
    PassPipeline(tuple(passes)).apply(ctx, module)
    return time.perf_counter() - start, module


def run_untraced(text: str, spec: str) -> tuple[float, ModuleOp]:
    """passviz's passes recording nothing (``TracedPass.apply``); times the pipeline only."""
    module = parse_ir(text)
    ctx = make_context()
    passes = parse_pipeline(spec)
    start = time.perf_counter()
    PassPipeline(passes).apply(ctx, module)
    return time.perf_counter() - start, module


def run_traced(text: str, spec: str, output: Path) -> tuple[float, Tracer]:
    """passviz's recorder writing ``output``.

    Times what recording costs beyond parsing: ``Tracer(...)`` construction
    (shadow, header write) plus ``tracer.run``.  Parsing the IR and the
    pipeline spec stay outside the timer.
    """
    passes, module, meta, ctx = _prepare(text, spec, output)
    start = time.perf_counter()
    tracer = _tracer(text, module, meta, output)
    tracer.run(ctx, passes)
    return time.perf_counter() - start, tracer


def _prepare(
    text: str, spec: str, output: Path
) -> tuple[tuple[ModulePass, ...], ModuleOp, TraceMeta, Context]:
    """What ``passviz.pipelines.record`` sets up before recording: not timed."""
    meta = TraceMeta(
        input="<benchmark>",
        pipeline=spec,
        passviz_version=passviz.__version__,
        xdsl_version=version("xdsl"),
        verify_each="off",
    )
    return parse_pipeline(spec), parse_ir(text, str(output)), meta, make_context()


def _tracer(text: str, module: ModuleOp, meta: TraceMeta, output: Path) -> Tracer:
    options = RecordOptions(verify_each="off")
    return Tracer(module, meta, writer=TraceWriter.to_path(output), options=options, initial_ir=text)


class Run(NamedTuple):
    """One command run to completion."""

    wall: float
    """Wall seconds, process start included."""
    cpu: float
    """User plus system CPU seconds of the process: steadier than wall time
    on a machine other work shares."""
    printed: int
    """Bytes it wrote to stdout and stderr."""


def command(argv: list[str]) -> Run:
    """Run a command to completion."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if proc.returncode != 0:
        print(f"warning: {' '.join(argv[:2])} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return Run(elapsed, cpu, len(proc.stdout) + len(proc.stderr))


def tool(name: str) -> str:
    """The console script ``name`` installed beside this Python."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        raise SystemExit(f"benchmark needs `{name}` on PATH")
    return found


def best_of(runs: int, func: Callable[[], tuple[float, object]]) -> tuple[float, object]:
    """The fastest of ``runs`` calls of ``func`` (which returns ``(seconds, result)``)."""
    best: tuple[float, object] | None = None
    for _ in range(runs):
        outcome = func()
        if best is None or outcome[0] < best[0]:
            best = outcome
    assert best is not None
    return best


def best_command(runs: int, argv: list[str]) -> Run:
    """The least wall and the least CPU time of ``runs`` runs of a command."""
    return side_by_side(runs, {"": argv})[""]


def side_by_side(runs: int, argvs: dict[str, list[str]]) -> dict[str, Run]:
    """The least wall and CPU time of ``runs`` runs of each command, taking turns
    (so a change in the machine's load falls on all of them alike)."""
    done: dict[str, list[Run]] = {name: [] for name in argvs}
    for _ in range(runs):
        for name, argv in argvs.items():
            done[name].append(command(argv))
    return {
        name: Run(min(r.wall for r in rs), min(r.cpu for r in rs), rs[0].printed) for name, rs in done.items()
    }


# -- reporting -----------------------------------------------------------------


def _json_size(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def delta_key_bytes(trace_path: Path) -> tuple[Counter[str], int, int]:
    """Bytes per ``delta`` key over the step records, the header's size, and the
    bytes of the step records outside their ``delta`` (of the uncompressed NDJSON)."""
    sizes: Counter[str] = Counter()
    header = envelope = 0
    data = trace_path.read_bytes()
    if data.startswith(b"\x1f\x8b"):
        data = gzip.decompress(data)
    for line in data.decode("utf-8").splitlines():
        record = json.loads(line)
        if record.get("record") == "header":
            header = len(line.encode())
            continue
        delta = record.pop("delta", {})
        envelope += _json_size(record)
        for key, value in delta.items():
            sizes[key] += _json_size(value)
    return sizes, header, envelope


def profile_traced(text: str, spec: str, output: Path, top: int = 15) -> None:
    """cProfile the traced run (construction + run only) and print the top entries."""
    passes, module, meta, ctx = _prepare(text, spec, output)
    profiler = cProfile.Profile()
    profiler.enable()
    _tracer(text, module, meta, output).run(ctx, passes)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=sys.stdout).strip_dirs()
    for key in ("cumulative", "tottime"):
        print(f"\n== cProfile of the traced run, top {top} by {key} ==")
        stats.sort_stats(key).print_stats(top)


def ratio_line(what: str, ours: float, theirs: float, goal: str, unit: str = "s") -> str:
    """One figure: both measurements and their ratio against its goal."""
    return f"{what}: {ours:.2f} {unit} vs {theirs:.2f} {unit}  ratio {ours / theirs:.2f}  (goal {goal})"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ops", type=int, default=10_000, help="arith ops to generate")
    parser.add_argument("--repeat", type=int, default=5, help="times `canonicalize,cse` is repeated")
    parser.add_argument("--runs", type=int, default=2, help="timed runs of each variant (best is kept)")
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--no-growth", action="store_true", help="skip the run at 4x the ops")
    parser.add_argument("--profile", action="store_true", help="also cProfile one traced run")
    parser.add_argument("--keep", type=Path, help="directory to keep the inputs and traces in")
    args = parser.parse_args(argv)

    text = generate_module(args.ops, seed=args.seed)
    spec = pipeline_spec(args.repeat)
    counts = count_ops(parse_ir(text))
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="passviz-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    input_path = workdir / "input.mlir"
    # The name `passviz trace` picks without -o (gzip), then plain NDJSON.
    formats = {
        "gzip (default)": workdir / "input.passviz.json.gz",
        "plain NDJSON": workdir / "input.passviz.json",
    }
    input_path.write_text(text, encoding="utf-8")
    print(f"input: {input_path}  ops: {sum(counts.values())} ({dict(counts)})  pipeline: {spec}")
    xdsl_opt, passviz_cli = tool("xdsl-opt"), tool("passviz")

    # In process: the pipeline alone, three ways (the recorder writes gzip, the default).
    xdsl_s, xdsl_module = best_of(args.runs, lambda: run_xdsl(text, args.repeat))
    untraced_s, untraced_module = best_of(args.runs, lambda: run_untraced(text, spec))
    traced_s, tracer_obj = best_of(args.runs, lambda: run_traced(text, spec, workdir / "inproc.json.gz"))
    assert isinstance(xdsl_module, ModuleOp) and isinstance(untraced_module, ModuleOp)
    assert isinstance(tracer_obj, Tracer)
    if str(untraced_module) != str(tracer_obj.module):
        print("WARNING: traced and untraced final IR differ")
    final = count_ops(tracer_obj.module)
    steps = tracer_obj.trace.steps
    rewrites = sum(1 for s in steps if s.kind == "rewrite")
    print(
        f"ops after: {final['arith']} (xDSL's passes: {count_ops(xdsl_module)['arith']})  "
        f"rewrites recorded: {rewrites}  steps: {len(steps)}  status: {tracer_obj.trace.status}"
    )
    print(
        f"pipeline only, in process:  xDSL untraced {xdsl_s:.2f} s   passviz untraced {untraced_s:.2f} s   "
        f"passviz traced {traced_s:.2f} s   (passviz untraced/xDSL {untraced_s / xdsl_s:.2f}, "
        f"traced/untraced {traced_s / untraced_s:.2f})"
    )

    # Whole commands, process start included, side by side.
    opt_argv = [xdsl_opt, str(input_path), "-p", spec, "-o", str(workdir / "out.mlir")]
    trace_argvs = {
        label: [passviz_cli, "trace", str(input_path), "-p", spec, "-o", str(path)]
        for label, path in formats.items()
    }
    whole = side_by_side(args.runs, {"xdsl-opt": opt_argv, **trace_argvs})
    opt = whole.pop("xdsl-opt")
    print(
        f"whole commands, wall (CPU): xdsl-opt {opt.wall:.2f} s ({opt.cpu:.2f} s)   "
        + "   ".join(f"passviz trace, {label} {r.wall:.2f} s ({r.cpu:.2f} s)" for label, r in whole.items())
    )
    for label, r in whole.items():
        print(
            ratio_line(f"  passviz trace ({label}) vs xdsl-opt", r.wall, opt.wall, "<= 1.25")
            + f"   CPU-time ratio {r.cpu / opt.cpu:.2f}"
        )

    between_bytes = command([xdsl_opt, str(input_path), "-p", spec, "--print-between-passes"]).printed
    for label, path in formats.items():
        first = path.read_bytes()
        command(trace_argvs[label])
        identical = path.read_bytes() == first
        print(
            f"trace size, {label}: {len(first)} bytes vs xdsl-opt --print-between-passes "
            f"{between_bytes} bytes  ratio {len(first) / between_bytes:.3f}  (goal <= 0.15)   "
            f"byte-identical on a second run: {identical}"
        )
    sizes, header, envelope = delta_key_bytes(formats["plain NDJSON"])
    top = "  ".join(f"{k}={v}" for k, v in sizes.most_common())
    print(f"  uncompressed bytes by delta key: {top}   header: {header}   outside delta: {envelope}")

    for label, path in formats.items():
        steps = best_command(args.runs, [passviz_cli, "steps", str(path)])
        show = best_command(args.runs, [passviz_cli, "show", str(path), "--step", "-1"])
        print(
            f"reading the trace, {label}: passviz steps {steps.wall:.2f} s (CPU {steps.cpu:.2f} s)   "
            f"passviz show --step -1 {show.wall:.2f} s (CPU {show.cpu:.2f} s)  (goal <= 1 s each)"
        )

    if not args.no_growth:
        big_path = workdir / f"input{4 * args.ops}.mlir"
        big_path.write_text(generate_module(4 * args.ops, seed=args.seed), encoding="utf-8")
        big_trace = workdir / f"input{4 * args.ops}.passviz.json.gz"
        # The same statistic on both sides (the least of --runs runs), and
        # xdsl-opt's own growth on the same inputs for reference.
        big = side_by_side(
            args.runs,
            {
                "passviz": [passviz_cli, "trace", str(big_path), "-p", spec, "-o", str(big_trace)],
                "xdsl-opt": [xdsl_opt, str(big_path), "-p", spec, "-o", str(workdir / "out-big.mlir")],
            },
        )
        small = whole["gzip (default)"]
        what = f"growth: passviz trace (gzip, default) at {4 * args.ops} ops vs {args.ops} ops"
        print(
            ratio_line(what, big["passviz"].wall, small.wall, "<= 4.4")
            + f"   CPU-time ratio {big['passviz'].cpu / small.cpu:.2f}"
        )
        theirs = big["xdsl-opt"]
        print(
            f"  for reference, xdsl-opt's growth: {theirs.wall:.2f} s vs {opt.wall:.2f} s  "
            f"ratio {theirs.wall / opt.wall:.2f}   CPU-time ratio {theirs.cpu / opt.cpu:.2f}"
        )

    if args.profile:
        profile_traced(text, spec, workdir / "trace-profile.ndjson")
    return 0


if __name__ == "__main__":
    sys.exit(main())
