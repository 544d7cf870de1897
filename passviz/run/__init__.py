"""Running the IR at any step on the CPU: an interpreter for ``tt``, ``arith``, ``math``, ``scf``, ``cf``
and functions (on xDSL's ``Interpreter``, with numpy), grid launches, and bisection over a trace.

``values`` holds what the interpreter computes with, ``core`` the interpreter
itself, ``arith`` and ``tt_ops`` the ops, ``launch`` the grid, ``inputs`` the
argument specs of the command line, ``bisect`` the search for the first step
that changes a kernel's results.
"""

from passviz.run.launch import LaunchResult, launch
from passviz.run.values import KernelAssertionError, RunError, UnsupportedOpError

__all__ = ["KernelAssertionError", "LaunchResult", "RunError", "UnsupportedOpError", "launch"]
