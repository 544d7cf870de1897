"""``passviz import`` benchmark: a real compile's IR dump as a trace, against the compile that wrote it.

An MLP (``--layers`` linalg.matmul + bias + relu layers on tensors, written
here as a .mlir file) goes through ``iree-compile`` for the CPU with
``--mlir-print-ir-after-all --mlir-disable-threading``: about 20 MB of dump,
every pass's IR (the module, or the one op a pass ran on, which the importer
splices into the module).  Side by side in one run:

- iree-compile: the compile writing that dump to a file (best of ``--runs``);
- import: ``passviz import DUMP -o TRACE`` in a fresh process, reading the
  dump, matching ops from snapshot to snapshot and writing the trace (best of
  ``--runs``; target: at most 1x iree-compile's time);
- size: the trace's bytes against the dump's (target: at most 0.2x), as
  ``.passviz.json`` and as ``.passviz.json.gz`` (``passviz import``'s default);
- viewer: the trace exported with ``passviz export --html`` and opened in
  headless Chromium (``viewer_page.mjs``, as ``benchmarks/viewer.py``
  measures): open until the first step is drawn and painted (target: at most
  3 s) and the p95 of pressing → to the next step drawn and painted, from the
  first step and from the middle of the compile (target: at most 100 ms).

And the dump ``passviz triton`` reads: Triton's ``MLIR_ENABLE_DUMP`` of the
tutorial matmul's compile (``tests/triton_kernels.py``), the compile with the
dump against ``import_text`` of it, each in a fresh process (the capture's
goal, at most 1.3x the compile with the dump, leaves the import well under a
second; ``--no-triton`` skips it, as does a missing Triton).

``--busy N`` measures everything again with N other processes each keeping a
core busy.  The figures are printed with their ratios to the targets, never
asserted.  Needs ``iree-compile`` on PATH (``pip install iree-base-compiler``)
and, for the viewer figures, node and Chromium (``--no-viewer`` skips them).

    python benchmarks/import_dump.py [--layers 5] [--runs 3] [--steps 30] [--busy 1]
                                     [--no-viewer] [--no-triton]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from busy import idle_and_busy  # noqa: E402  (this folder: the script's own)
from viewer import measure_page, p95  # noqa: E402  (this folder: the script's own)

TIME_TARGET = 1.0
SIZE_TARGET = 0.2
OPEN_TARGET_S = 3.0
STEP_TARGET_MS = 100.0

IREE_FLAGS = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
    "--mlir-print-ir-after-all",
    "--mlir-disable-threading",
)

PASSVIZ = (
    "import sys\n"
    f"sys.path.insert(0, {str(ROOT)!r})\n"
    "from passviz.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
"""``passviz`` as its console script runs it, whatever PATH holds."""


TRITON = """
import os, sys, time
sys.path.insert(0, {root!r})
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tests.triton_kernels import KERNELS
kernel = KERNELS["matmul"]
start = time.perf_counter()
triton.compile(ASTSource(kernel.fn, kernel.signature, kernel.constexprs), target=GPUTarget("cuda", 90, 32))
print(time.perf_counter() - start)
"""
"""Triton's compile of the matmul, its dump written where ``MLIR_DUMP_PATH`` says."""

IMPORT_TEXT = """
import sys, time
sys.path.insert(0, {root!r})
from passviz.importer import import_text
text = open({dump!r}, encoding="utf-8").read()
start = time.perf_counter()
steps = len(import_text(text).trace.steps)
print(time.perf_counter() - start, steps)
"""


def mlp_source(layers: int, batch: int = 16) -> str:
    """A func.func of ``layers`` dense layers (matmul, bias, relu) on tensors, each of its own
    width (layers alike would share one dispatch)."""
    sizes = [64] + [128 + 16 * i for i in range(layers - 1)] + [10]
    args = [f"%x: tensor<{batch}x{sizes[0]}xf32>"]
    lines: list[str] = []
    current = "%x"
    maps = (
        "[affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]"
    )
    for i, (k, n) in enumerate(zip(sizes, sizes[1:], strict=False)):
        args += [f"%w{i}: tensor<{k}x{n}xf32>", f"%b{i}: tensor<{n}xf32>"]
        out = f"tensor<{batch}x{n}xf32>"
        lines += [
            f"  %e{i} = tensor.empty() : {out}",
            f"  %z{i} = arith.constant 0.0 : f32",
            f"  %f{i} = linalg.fill ins(%z{i} : f32) outs(%e{i} : {out}) -> {out}",
            f"  %m{i} = linalg.matmul ins({current}, %w{i} : tensor<{batch}x{k}xf32>, tensor<{k}x{n}xf32>) "
            f"outs(%f{i} : {out}) -> {out}",
            f'  %a{i} = linalg.generic {{indexing_maps = {maps}, iterator_types = ["parallel", "parallel"]}} '
            f"ins(%m{i}, %b{i} : {out}, tensor<{n}xf32>) outs(%e{i} : {out}) {{",
            "  ^bb0(%in: f32, %bias: f32, %acc: f32):",
            "    %s = arith.addf %in, %bias : f32",
            f"    %r = arith.maximumf %s, %z{i} : f32",
            "    linalg.yield %r : f32",
            f"  }} -> {out}",
        ]
        current = f"%a{i}"
    result = f"tensor<{batch}x{sizes[-1]}xf32>"
    header = f"func.func @mlp({', '.join(args)}) -> {result} {{"
    return "\n".join([header, *lines, f"  return {current} : {result}", "}", ""])


def _compile(source: Path, dump: Path) -> float:
    """Seconds of iree-compile writing its dump of ``source`` to ``dump``."""
    compiler = shutil.which("iree-compile") or str(Path(sys.executable).parent / "iree-compile")
    started = time.perf_counter()
    with dump.open("wb") as stream:
        subprocess.run(
            [compiler, *IREE_FLAGS, str(source), "-o", str(dump.with_suffix(".vmfb"))],
            stderr=stream,
            stdout=subprocess.DEVNULL,
            check=True,
            timeout=600,
        )
    return time.perf_counter() - started


def _import(dump: Path, trace: Path) -> tuple[float, str]:
    """Seconds of ``passviz import`` of ``dump`` to ``trace`` in a fresh process, and what it said."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PASSVIZ, "import", str(dump), "-o", str(trace)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return time.perf_counter() - started, done.stdout.splitlines()[0]


def _triton(folder: Path, runs: int) -> list[str]:
    """The matmul's compile with its dump, against ``import_text`` of that dump."""
    dump = folder / "matmul.dump.mlir"
    compiled: list[float] = []
    for run in range(runs):
        dump.unlink(missing_ok=True)
        env = {
            **os.environ,
            "MLIR_ENABLE_DUMP": "1",
            "MLIR_DUMP_PATH": str(dump),
            "TRITON_ALWAYS_COMPILE": "1",
            "TRITON_CACHE_DIR": str(folder / f"triton-cache-{run}"),
        }
        done = subprocess.run(
            [sys.executable, "-c", TRITON.format(root=str(ROOT))],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        )
        compiled.append(float(done.stdout.split()[-1]))
    script = IMPORT_TEXT.format(root=str(ROOT), dump=str(dump))
    imports = [
        subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=600
        ).stdout.split()
        for _ in range(runs)
    ]
    seconds = min(float(found[0]) for found in imports)
    return [
        f"triton   matmul compile with MLIR_ENABLE_DUMP {min(compiled):.2f} s "
        f"(dump {dump.stat().st_size / 1e6:.1f} MB), import_text {seconds:.2f} s "
        f"({imports[0][1]} steps) = {seconds / min(compiled):.2f} x the compile"
    ]


def _figures(args: argparse.Namespace, folder: Path) -> list[str]:
    source = folder / "mlp.mlir"
    dump = folder / "mlp.dump.mlir"
    compiled = min(_compile(source, dump) for _ in range(args.runs))
    size = dump.stat().st_size
    plain = folder / "mlp.passviz.json"
    packed = folder / "mlp.passviz.json.gz"
    imported = min(_import(dump, packed)[0] for _ in range(args.runs))
    said = _import(dump, plain)[1]
    steps = re.search(r"imported (\d+) steps", said)
    matched = re.search(r"\((\d+) ops matched", said)
    json_size, gz_size = plain.stat().st_size, packed.stat().st_size
    lines = [
        f"iree-compile {args.layers}-layer MLP, IR after each pass: {compiled:.2f} s, "
        f"dump {size / 1e6:.1f} MB",
        f"import   {imported:.2f} s ({steps.group(1) if steps else '?'} steps, "
        f"{matched.group(1) if matched else '?'} ops matched) = {imported / compiled:.2f} x iree-compile "
        f"(goal <= {TIME_TARGET:g})",
        f"size     .passviz.json {json_size / 1e6:.2f} MB = {json_size / size:.3f} x the dump, "
        f".passviz.json.gz {gz_size / 1e6:.2f} MB = {gz_size / size:.3f} x "
        f"(goal <= {SIZE_TARGET:g})",
    ]
    if not args.no_triton and importlib.util.find_spec("triton") is not None:
        lines += _triton(folder, args.runs)
    if args.no_viewer:
        return lines
    page = folder / "mlp.html"
    subprocess.run(
        [sys.executable, "-c", PASSVIZ, "export", str(packed), "--html", str(page)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    opened = measure_page(page, "open")
    # → pressed from the input IR and from the middle of the compile (the executables' codegen).
    middle = measure_page(page, "step", str(args.steps), str(opened["steps"] // 2))
    stepped = measure_page(page, "step", str(args.steps))
    latencies: list[float] = stepped["latencies"] + middle["latencies"]
    lines += [
        f"open     page {page.stat().st_size / 1e6:.1f} MB, {opened['nodes']} nodes drawn: "
        f"{opened['open']:.2f} s "
        f"= {opened['open'] / OPEN_TARGET_S:.2f} x the {OPEN_TARGET_S:g} s target",
        f"step     {len(latencies)} presses of → (from the first step and from step {opened['steps'] // 2} "
        f"of {opened['steps']}, {max(stepped['nodes'], middle['nodes'])} nodes at most): "
        f"median {statistics.median(latencies):.1f} ms, p95 {p95(latencies):.1f} ms "
        f"= {p95(latencies) / STEP_TARGET_MS:.2f} x the {STEP_TARGET_MS:g} ms target",
    ]
    lines += [f"page errors: {r['errors']}" for r in (opened, stepped, middle) if r["errors"]]
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--layers", type=int, default=5, help="dense layers of the MLP (5: a ~20 MB dump)")
    parser.add_argument(
        "--runs", type=int, default=3, help="timed runs of the compile and the import (best kept)"
    )
    parser.add_argument("--steps", type=int, default=30, help="presses of → from each of two steps")
    parser.add_argument("--busy", type=int, default=0, help="also measure with this many busy processes")
    parser.add_argument("--no-viewer", action="store_true", help="skip the viewer's figures")
    parser.add_argument("--no-triton", action="store_true", help="skip the Triton dump's figures")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        (folder / "mlp.mlir").write_text(mlp_source(args.layers), encoding="utf-8")
        idle_and_busy(args.busy, lambda: _figures(args, folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
