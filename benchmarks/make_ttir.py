"""``make-ttir`` benchmark: passviz recording Triton's ``make_ttir`` stage against Triton itself.

For each tutorial kernel of ``tests/triton_kernels.py`` (vector add, fused
softmax, matmul, layer norm), side by side in one run:

- Triton: its own ``make_ttir`` stage (``backend.make_ttir``) on the frontend's
  module, in memory, as ``triton.compile`` runs it;
- passviz: ``record(frontend IR text, "make-ttir")`` with the verifier after
  every pass (the default), writing the trace: parsing the text, recording
  every rewrite and writing it included.  The trace is written gzip-compressed
  (``*.passviz.json.gz``, what ``passviz trace`` writes by default) and again
  as plain NDJSON; both are printed, labelled.

The goal is passviz at most 10x Triton.  A third figure compares passviz with what a user
runs today to see the IR pass by pass: Triton's ``make_ttir`` with ``MLIR_ENABLE_DUMP=1``, the
dumps written to a file (``MLIR_DUMP_PATH``), in a child process since Triton latches the dump
path per process (goal: passviz at most 1.0x).  Under each kernel a second line says
where passviz's time goes, each part the fastest of its runs: parsing the
text, verifying the input, the passes run untraced (a ``NullRecorder``), and
the rest, what recording the steps and writing the trace add.  Needs
``pip install -e '.[triton]'``.

    python benchmarks/make_ttir.py [--runs 3]

The figures are printed as ratios, never asserted; the script exits 0.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xdsl.passes import PassPipeline  # noqa: E402

from passviz.compilers.registry import make_context  # noqa: E402
from passviz.compilers.triton.frontend import TRITON_TARGET, triton_frontend_ir  # noqa: E402
from passviz.ir.collection import fewer_collections  # noqa: E402
from passviz.pipelines import parse_located, parse_pipeline, record  # noqa: E402
from passviz.recording.recorder import RecordOptions  # noqa: E402
from tests.triton_kernels import KERNELS  # noqa: E402


def triton_make_ttir(text: str, runs: int) -> float:
    """The fastest of ``runs`` runs of Triton's ``make_ttir`` on ``text`` (parsed outside the timer)."""
    libtriton: Any = importlib.import_module("triton._C.libtriton")
    backends: Any = importlib.import_module("triton.backends.compiler")
    compiler: Any = importlib.import_module("triton.compiler.compiler")
    target = backends.GPUTarget(*TRITON_TARGET)
    backend = compiler.make_backend(target)
    options = backend.parse_options({})
    best = float("inf")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "frontend.mlir"
        path.write_text(text, encoding="utf-8")
        for _ in range(runs):
            context = libtriton.ir.context()
            libtriton.ir.load_dialects(context)
            backend.load_dialects(context)
            module = libtriton.ir.parse_mlir_module(str(path), context)
            module.context = context
            start = time.perf_counter()
            backend.make_ttir(module, {}, options, target.arch)
            best = min(best, time.perf_counter() - start)
    return best


def triton_make_ttir_dumped(text: str, runs: int) -> tuple[float, int]:
    """The fastest of ``runs`` runs of Triton's ``make_ttir`` on ``text`` with ``MLIR_ENABLE_DUMP=1``
    writing the per-pass IR to a file, in a child process; and the dump's bytes."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "frontend.mlir"
        source.write_text(text, encoding="utf-8")
        dump = Path(folder) / "dump.mlir"
        env = {**os.environ, "MLIR_ENABLE_DUMP": "1", "MLIR_DUMP_PATH": str(dump)}
        child = subprocess.run(
            [sys.executable, __file__, "--dumped-child", str(source), "--runs", str(runs)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        best = float(json.loads(child.stdout.strip().splitlines()[-1])["best"])
        return best, dump.stat().st_size // max(runs, 1) if dump.exists() else 0


def passviz_make_ttir(text: str, runs: int, name: str) -> tuple[float, int]:
    """The fastest of ``runs`` traced ``make-ttir`` runs on ``text`` writing the
    trace to a file called ``name``, and the steps recorded."""
    best, steps = float("inf"), 0
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / name
        for _ in range(runs):
            start = time.perf_counter()
            run = record(text, "make-ttir", output=str(output), options=RecordOptions(verify_each="pass"))
            best = min(best, time.perf_counter() - start)
            steps = len(run.trace.steps)
            if run.trace.status != "ok":
                print(f"warning: the trace's status is {run.trace.status}")
    return best, steps


def passviz_parts(text: str, runs: int) -> tuple[float, float, float]:
    """The fastest of ``runs`` times of parsing ``text``, verifying the module,
    and running ``make-ttir`` on it untraced (collecting garbage as ``record`` does)."""
    parse = verify = passes = float("inf")
    for _ in range(runs):
        with fewer_collections():
            start = time.perf_counter()
            module = parse_located(text).module
            parsed = time.perf_counter()
            module.verify()
            verified = time.perf_counter()
            PassPipeline(parse_pipeline("make-ttir")).apply(make_context(), module)
            ran = time.perf_counter()
        parse, verify, passes = (
            min(parse, parsed - start),
            min(verify, verified - parsed),
            min(passes, ran - verified),
        )
    return parse, verify, passes


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each side (best is kept)")
    parser.add_argument("--dumped-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.dumped_child:
        best = triton_make_ttir(Path(args.dumped_child).read_text(encoding="utf-8"), args.runs)
        print(json.dumps({"best": best}))
        return 0
    dumped_ratios: list[float] = []
    ratios: list[float] = []
    plain_ratios: list[float] = []
    for name, kernel in KERNELS.items():
        text = triton_frontend_ir(kernel.fn, kernel.signature, kernel.constexprs)
        theirs = triton_make_ttir(text, args.runs)
        ours, steps = passviz_make_ttir(text, args.runs, "trace.passviz.json.gz")
        plain, _ = passviz_make_ttir(text, args.runs, "trace.passviz.json")
        ratios.append(ours / theirs)
        plain_ratios.append(plain / theirs)
        print(
            f"{name:<14} Triton make_ttir {theirs * 1e3:8.1f} ms   passviz make-ttir traced "
            f"({steps} steps): gzip (default) {ours * 1e3:8.1f} ms ratio {ours / theirs:6.1f}   "
            f"plain NDJSON {plain * 1e3:8.1f} ms ratio {plain / theirs:6.1f}  (goal <= 10)"
        )
        dumped, dump_bytes = triton_make_ttir_dumped(text, args.runs)
        dumped_ratios.append(ours / dumped)
        print(
            f"{'':<14} Triton make_ttir with MLIR_ENABLE_DUMP=1 {dumped * 1e3:8.1f} ms "
            f"({dump_bytes / 1e3:.0f} kB of dumps)   passviz traced / that {ours / dumped:5.2f}"
            "  (goal <= 1.0)"
        )
        parse, verify, passes = passviz_parts(text, args.runs)
        rest = ours - parse - verify - passes
        print(
            f"{'':<14} of which: parse {parse * 1e3:6.1f} ms ({parse / theirs:5.1f}x Triton)   "
            f"verify input {verify * 1e3:5.1f} ms ({verify / theirs:4.1f}x)   "
            f"passes untraced {passes * 1e3:6.1f} ms ({passes / theirs:5.1f}x)   "
            f"recording and writing {rest * 1e3:6.1f} ms ({rest / theirs:5.1f}x)"
        )
    print(
        f"worst ratio: gzip (default) {max(ratios):.1f}   plain NDJSON {max(plain_ratios):.1f}  (goal <= 10)"
    )
    print(f"worst ratio against MLIR_ENABLE_DUMP=1: {max(dumped_ratios):.2f}  (goal <= 1.0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
