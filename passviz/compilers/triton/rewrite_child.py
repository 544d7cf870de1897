"""Runs single Triton passes on given IR with MLIR's pattern log on: the child process of
``passviz.compilers.triton.rewrites`` (``python -m passviz.compilers.triton.rewrite_child``).

A child, because Triton turns LLVM's debug output on for the rest of the process once
``TRITON_LLVM_DEBUG_ONLY`` is read.  It reads a JSON request on standard input::

    {"target": "cuda:90", "options": {...}, "jobs": [{"pass": ARG, "ir": PATH, "log": PATH}]}

and for each job parses the IR (a file: Triton parses files) in a context with Triton's
dialects, runs a pass manager holding only the pass whose argument is ARG, with its log (file
descriptor 2) going to PATH.  It answers one JSON object on standard output: ``known`` (every
pass argument it can add), and per job ``pipeline`` (what it ran) or ``error``.  Imports
Triton and nothing of passviz.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
from collections.abc import Callable
from typing import Any

DEBUG_ONLY = "greedy-rewriter,pattern-application:2"
"""The LLVM debug types that log each pattern application and the IR after it."""

Arguments = Callable[[Any, int], tuple[object, ...]]
"""The arguments an ``add_*`` function takes after the pass manager, from the compile options
and the target's compute capability, as the backend's stages pass them."""

_ARGUMENTS: dict[str, Arguments] = {
    "add_convert_to_ttgpuir": lambda opt, cap: (f"cuda:{cap}", opt.num_warps, 32, opt.num_ctas),
    "add_f32_dot_tc": lambda opt, cap: (cap // 10 >= 8,),
    "add_optimize_dot_operands": lambda opt, cap: (cap >= 80,),
    "add_pipeline": lambda opt, cap: (opt.num_stages, False),
    "add_assign_latencies": lambda opt, cap: (opt.num_stages,),
    "add_hopper_warpspec": lambda opt, cap: (opt.num_stages, False),
    "add_warp_specialize": lambda opt, cap: (opt.num_stages,),
    "add_hoist_tmem_alloc": lambda opt, cap: (False,),
    "add_fence_insertion": lambda opt, cap: (cap,),
    "add_proxy_fence_insertion": lambda opt, cap: (cap,),
    "add_schedule_loops": lambda opt, cap: (),
    "add_loop_unroll": lambda opt, cap: (),
}
"""The ``add_*`` functions that take more than the pass manager (the rest take nothing more)."""

_PIPELINE = re.compile(r"^[\w.]+\((.*)\)$")


def _modules(libtriton: Any, backend: str) -> list[tuple[str, Any]]:
    """Triton's pass modules: the common ones, then the backend's."""
    found: list[tuple[str, Any]] = []
    for owner, prefix in ((libtriton.passes, "passes"), (getattr(libtriton, backend, None), backend)):
        if owner is None:
            continue
        holder = getattr(owner, "passes", owner) if owner is not libtriton.passes else owner
        for name in dir(holder):
            module = getattr(holder, name)
            if not name.startswith("_") and type(module).__name__ == "module":
                found.append((f"{prefix}.{name}", module))
    return found


def known_passes(
    libtriton: Any, context: Any, backend: str, opt: Any, capability: int
) -> dict[str, Callable[[Any], None]]:
    """Each pass argument an ``add_*`` function adds alone, and how to add it to a pass manager."""
    table: dict[str, Callable[[Any], None]] = {}
    for _, module in _modules(libtriton, backend):
        for name in sorted(dir(module)):
            if not name.startswith("add_"):
                continue
            function = getattr(module, name)
            make = _ARGUMENTS.get(name)
            try:
                arguments = make(opt, capability) if make is not None else ()
                manager = libtriton.ir.pass_manager(context)
                function(manager, *arguments)
                pipeline = str(manager.get_pipeline_str())
            except Exception:  # an add function this table cannot call: its pass is not offered
                continue
            found = _PIPELINE.match(pipeline)
            inner = found.group(1) if found else pipeline
            argument = re.sub(r"\{.*\}$", "", inner)
            # Only functions that add one pass, unnested (``add_to_llvmir`` adds several).
            if not argument or re.search(r"[,(]", argument) or argument in table:
                continue
            table[argument] = lambda manager, f=function, a=arguments: f(manager, *a)
    return table


def main() -> int:
    request: dict[str, Any] = json.load(sys.stdin)
    libtriton: Any = importlib.import_module("triton._C.libtriton")
    compiler: Any = importlib.import_module("triton.compiler.compiler")
    backends: Any = importlib.import_module("triton.backends.compiler")
    backend_name, _, arch = str(request["target"]).partition(":")
    target = backends.GPUTarget(
        backend_name, int(arch) if arch.isdigit() else arch, 32 if backend_name == "cuda" else 64
    )
    backend = compiler.make_backend(target)
    opt = backend.parse_options(dict(request.get("options") or {}))
    capability = int(arch) if arch.isdigit() else 0
    context = libtriton.ir.context()
    libtriton.ir.load_dialects(context)
    backend.load_dialects(context)
    table = known_passes(libtriton, context, "amd" if backend_name == "hip" else "nvidia", opt, capability)
    answers: list[dict[str, str]] = []
    for job in request["jobs"]:
        add = table.get(job["pass"])
        if add is None:
            answers.append({"error": "unknown"})
            continue
        try:
            module = libtriton.ir.parse_mlir_module(job["ir"], context)
        except Exception as exc:  # the IR Triton cannot read back: said to the parent
            answers.append({"error": f"Triton cannot parse the IR before the pass: {exc}"})
            continue
        manager = libtriton.ir.pass_manager(context)
        add(manager)
        answers.append({"pipeline": str(manager.get_pipeline_str())})
        sys.stderr.flush()
        saved = os.dup(2)
        with open(job["log"], "wb") as log:
            os.dup2(log.fileno(), 2)
            os.environ["TRITON_LLVM_DEBUG_ONLY"] = DEBUG_ONLY
            try:
                manager.run(module, "passviz-rewrites")
            except Exception as exc:  # the pass failed: its log up to there is still read
                answers[-1]["error"] = f"the pass failed: {exc}"
            finally:
                os.environ.pop("TRITON_LLVM_DEBUG_ONLY", None)
                os.dup2(saved, 2)
                os.close(saved)
    json.dump({"known": sorted(table), "jobs": answers}, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
