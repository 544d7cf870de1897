"""Running the IR at any step on the CPU: an interpreter for ``tt``, ``arith``, ``math``, ``scf``, ``cf``
and functions (on xDSL's ``Interpreter``, with numpy), grid launches, and bisection over a trace.

``values`` holds what the interpreter computes with, ``core`` the interpreter
itself, ``arith`` and ``tt_ops`` the ops, ``launch`` the grid, ``inputs`` the
argument specs of the command line, ``bisect`` the search for the first step
that changes a kernel's results, ``report`` what the command line prints.

    from passviz.run import bisect, launch
    outputs = launch(parse_ir(text), [("x", x), ("out", out), ("n", n)], grid=(4,)).outputs
    found = bisect(load_trace("t.passviz.json"), [("x", x), ("out", out), ("n", n)], grid=(4,))
"""

from passviz.interpret.values import KernelAssertionError, RunError, UnsupportedOpError
from passviz.run.bisect import BisectResult, bisect, run_step
from passviz.run.launch import LaunchResult, launch

__all__ = [
    "BisectResult",
    "KernelAssertionError",
    "LaunchResult",
    "RunError",
    "UnsupportedOpError",
    "bisect",
    "launch",
    "run_step",
]
