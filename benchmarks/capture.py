"""``passviz triton`` benchmark: capturing a whole Triton compile against Triton's own dump of it.

For each tutorial kernel of ``tests/triton_kernels.py`` (vector add, fused
softmax, matmul, layer norm, flash attention), side by side in one run, each in
a fresh child process with a fresh cache (a cache hit compiles and dumps
nothing):

- Triton: ``triton.compile`` with ``MLIR_ENABLE_DUMP=1`` and the dump written to
  a file (``MLIR_DUMP_PATH``), what a user runs today to see the IR pass by pass;
- passviz: ``passviz.capture_triton`` of the same kernel: the same compile with
  the dump, read into a trace (every pass a step, ops matched from pass to
  pass), the LLVM IR, PTX and SASS kept.

Goal: passviz at most 1.3x Triton, in wall-clock time; the CPU time (the
process's and its children's: passviz compiles in a fork) is printed beside it.
passviz reads the dump while the fork compiles; what it cannot overlap is the
SASS (``nvdisasm``, a quarter of a second whatever the kernel, which needs the
cubin: the fork disassembles it as soon as the compile has built it, while the
parent still reads), timed apart and printed as the least ratio it leaves.
``--busy N`` measures again with N other processes each keeping a core busy.
``--profile KERNEL`` prints where a capture of that kernel spends its time
(cProfile, the capturing process; the fork's compile shows as ``waitpid``).  The
figures are printed as ratios, never asserted.  Needs ``pip install -e '.[triton]'``.

    python benchmarks/capture.py [--runs 3] [--busy 1] [--profile matmul]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from busy import idle_and_busy  # noqa: E402  (this folder: the script's own)

GOAL = 1.3
KERNELS = ("vector_add", "fused_softmax", "matmul", "layer_norm", "flash_attention")

CHILD = """
import json, os, resource, sys, time
sys.path.insert(0, {root!r})
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
import passviz
from tests.triton_kernels import KERNELS
kernel = KERNELS[{name!r}]

def cpu():
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(usage.ru_utime + usage.ru_stime for usage in used)

start, used = time.perf_counter(), cpu()
sass = 0.0
if {side!r} == "triton":
    source = ASTSource(kernel.fn, kernel.signature, kernel.constexprs)
    triton.compile(source, target=GPUTarget("cuda", 90, 32))
    steps = 0
else:
    trace = passviz.capture_triton(kernel.fn, kernel.signature, dict(kernel.constexprs))
    steps = len(trace.steps)
seconds, used = time.perf_counter() - start, cpu() - used
if {side!r} == "passviz" and "kernel" in trace.meta["imported"]:
    # The SASS alone (which needs the cubin: it is made after the compile), timed apart, made as
    # the capture's fork makes it.
    import base64
    from passviz.compilers.triton.sass import disassemble
    cubin = base64.b64decode(trace.meta["imported"]["kernel"]["binary"])
    begun = time.perf_counter()
    disassemble(cubin, 90, fast=True)
    sass = time.perf_counter() - begun
print(json.dumps({{"seconds": seconds, "cpu": used, "steps": steps, "sass": sass}}))
"""


def _timed(side: str, name: str, folder: Path) -> tuple[float, float, int, int, float]:
    """Seconds (wall-clock, then CPU) of one compile of kernel ``name`` by ``side`` in a fresh
    process, the steps captured, the bytes of the dump Triton wrote (0 for passviz, whose dump
    goes with its temporary folder), and the seconds of the cubin's disassembly alone (passviz)."""
    dump = folder / f"{side}-{name}.mlir"
    env = {
        **os.environ,
        "TRITON_ALWAYS_COMPILE": "1",
        "TRITON_CACHE_DIR": str(folder / f"cache-{side}-{name}"),
    }
    if side == "triton":
        env.update(MLIR_ENABLE_DUMP="1", MLIR_DUMP_PATH=str(dump))
    script = CHILD.format(root=str(ROOT), name=name, side=side)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    size = dump.stat().st_size if dump.exists() else 0
    return float(result["seconds"]), float(result["cpu"]), int(result["steps"]), size, float(result["sass"])


def _figures(runs: int) -> list[str]:
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        for name in KERNELS:
            tritons = [_timed("triton", name, folder) for _ in range(runs)]
            captured = [_timed("passviz", name, folder) for _ in range(runs)]
            triton, triton_cpu = min(t[0] for t in tritons), min(t[1] for t in tritons)
            passviz, passviz_cpu = min(c[0] for c in captured), min(c[1] for c in captured)
            steps, dumped = captured[0][2], tritons[0][3]
            sass = min(c[4] for c in captured)
            lines.append(
                f"{name:<15} triton.compile + MLIR_ENABLE_DUMP {triton:6.2f} s ({dumped / 1e6:.1f} MB)   "
                f"passviz triton {passviz:6.2f} s ({steps} passes)   "
                f"= {passviz / triton:.2f} x (goal <= {GOAL}); CPU {passviz_cpu:.2f} / {triton_cpu:.2f} s "
                f"= {passviz_cpu / triton_cpu:.2f} x; the SASS alone {sass:.2f} s "
                f"(after the compile: {(triton + sass) / triton:.2f} x at the least)"
            )
    return lines


def _profile(name: str) -> None:
    """cProfile's top functions of a capture of kernel ``name`` (after one of the vector add, so
    that the imports and Triton's first compile are not counted)."""
    import cProfile
    import pstats

    import passviz
    from tests.triton_kernels import KERNELS

    warm = KERNELS["vector_add"]
    passviz.capture_triton(warm.fn, warm.signature, dict(warm.constexprs))
    kernel = KERNELS[name]
    profile = cProfile.Profile()
    profile.runcall(passviz.capture_triton, kernel.fn, kernel.signature, dict(kernel.constexprs))
    stats = pstats.Stats(profile)
    stats.sort_stats("cumulative").print_stats(25)
    stats.sort_stats("tottime").print_stats(15)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each side (best is kept)")
    parser.add_argument("--busy", type=int, default=0, help="also measure with this many busy processes")
    parser.add_argument("--profile", metavar="KERNEL", help="print where a capture of KERNEL spends its time")
    args = parser.parse_args(argv)
    if args.profile:
        _profile(args.profile)
        return 0
    idle_and_busy(args.busy, lambda: _figures(args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
