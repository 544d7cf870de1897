"""The interpreter: xDSL's ``Interpreter``, dispatching on op names, with the grid's state.

xDSL's interpreter finds an op's implementation by the op's Python class.  The
IR passviz runs comes from its own parser, where some ops are passviz's
subclasses of xDSL's (``arith.cmpi``, ``scf.while``) and others are xDSL's, so
``KernelInterpreter`` keys implementations by op name instead; xDSL's own
implementations (``scf.if``, ``scf.while``, ``cf.br``, ...) are registered the
same way.  An op without one is an ``UnsupportedOpError`` naming it and its
location; any other failure inside an op's implementation is a ``RunError``
located at that op.

This module knows no op: each compiler family brings the implementations of its
ops (``passviz.compilers.family.Family.interpreter``), upstream MLIR's (functions,
calls, ``scf``, ``cf``) among them; ``passviz.run.interpreters`` registers them all.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import StringAttr
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    OpImpl,
    OpImplResult,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_terminator,
)
from xdsl.ir import Operation, OperationInvT

from passviz.interpret.values import (
    DeclarationCallError,
    RunError,
    RunLimitError,
    RunLimits,
    UnsupportedOpError,
    function_attribute,
    is_function,
)
from passviz.ir.xdsl_compat import implementations
from passviz.rewrite.calls import call_callee

Implementation = Callable[[InterpreterFunctions, Interpreter, Operation, PythonValues], OpImplResult]
"""What ``@impl`` and ``@impl_terminator`` make of an implementation method."""


@dataclass
class KernelInterpreter(Interpreter):
    """xDSL's interpreter for one program of a launch: which program it is, and the launch's memory."""

    grid: tuple[int, int, int] = (1, 1, 1)
    """Programs along each axis."""
    program_id: tuple[int, int, int] = (0, 0, 0)
    """The program being run."""
    memory: Any = None
    """The launch's ``Memory``."""
    implementations: dict[str, tuple[InterpreterFunctions, Implementation]] = field(
        default_factory=lambda: dict[str, tuple[InterpreterFunctions, Implementation]]()
    )
    """Each op name's implementation, and the functions object it belongs to."""
    functions: dict[str, Operation] = field(default_factory=lambda: dict[str, Operation]())
    """The module's functions by symbol name."""
    constants: dict[Operation, Any] = field(default_factory=lambda: dict[Operation, Any]())
    """The values of the constant ops run so far."""
    printed: list[Any] = field(default_factory=lambda: list[Any]())
    """What the program printed (a family's print op appends each array it prints), in order: a
    program whose output is what it prints is compared by these."""
    limits: RunLimits = RunLimits()
    """When the run stops (``RunLimitError``)."""
    ops_run: int = 0
    """Ops interpreted so far, in every program."""
    deadline: float | None = None
    """``time.monotonic()`` past which the run stops; set by ``start_clock``."""

    def start_clock(self) -> None:
        """Start counting the run's time and ops against ``limits``."""
        self.ops_run = 0
        timeout = self.limits.timeout
        self.deadline = time.monotonic() + timeout if timeout is not None else None

    def _check_limits(self, op: Operation) -> None:
        """Stop the run past its op budget, or (looked at every 1,024 ops) its deadline."""
        self.ops_run += 1
        budget = self.limits.max_ops
        if budget is not None and self.ops_run > budget:
            raise RunLimitError(
                f"the run stopped after {budget:,} ops (--max-ops): does a loop never end?", op
            )
        if self.deadline is not None and self.ops_run % 1024 == 0 and time.monotonic() > self.deadline:
            # No op count in the message: two runs stopped by the clock must read the same to bisect.
            raise RunLimitError(
                f"the run stopped after {self.limits.timeout:g} s (--timeout): does a loop never end?", op
            )

    def register_implementations(self, impls: InterpreterFunctions, /, override: bool = False) -> None:
        """Register ``impls``'s op implementations under their ops' names (later ones win)."""
        pairs = cast(
            "list[tuple[type[Operation], Implementation]]",
            implementations(impls),
        )
        for op_type, implementation in pairs:
            self.implementations[op_type.name] = (impls, implementation)

    def _run_op(self, op: Operation, inputs: PythonValues) -> OpImplResult:
        self._check_limits(op)
        found = self.implementations.get(op.name)
        if found is None:
            raise UnsupportedOpError(op)
        functions, implementation = found
        try:
            result = implementation(functions, self, op, inputs)
        except RunError:
            raise
        except Exception as exc:  # an op's own failure (numpy, a bad attribute) is located at the op
            raise RunError(f"{type(exc).__name__}: {exc}", op) from exc
        if len(result.values) != len(op.results):
            raise RunError(f"produced {len(result.values)} values for {len(op.results)} results", op)
        return result

    def function(self, name: str, op: Operation) -> Operation:
        """The function named ``name``, which ``op`` calls."""
        if not self.functions:
            for candidate in self.module.walk():
                sym = function_attribute(candidate, "sym_name")
                if is_function(candidate) and isinstance(sym, StringAttr):
                    self.functions[sym.data] = candidate
        found = self.functions.get(name)
        if found is None:
            raise RunError(f"no function named @{name}", op)
        return found

    def call(self, function: Operation, args: PythonValues, at: Operation | None = None) -> PythonValues:
        """Run ``function``'s body on ``args`` (called ``at`` a call op) and return what it returns."""
        body = function.regions[0] if function.regions else None
        if body is None or not body.blocks:
            name = getattr(function_attribute(function, "sym_name"), "data", "?")
            message = f"@{name} has no body here: a declaration cannot be run"
            raise DeclarationCallError(message, at or function)
        return self.run_ssacfg_region(body, args, str(function_attribute(function, "sym_name")))

    def constant(self, op: Operation, make: Callable[[], Any]) -> Any:
        """The value of a constant op, made once per launch (constants are read-only)."""
        if op not in self.constants:
            value: Any = make()
            if isinstance(value, np.ndarray):
                cast("np.ndarray[Any, Any]", value).flags.writeable = False
            self.constants[op] = value
        return self.constants[op]


def kernel_state(interpreter: Interpreter) -> KernelInterpreter:
    """``interpreter`` as the ``KernelInterpreter`` passviz's implementations run in."""
    assert isinstance(interpreter, KernelInterpreter)
    return interpreter


def returns_operands(op_type: type[OperationInvT]) -> OpImpl[InterpreterFunctions, OperationInvT]:
    """The impl of ``op_type``: a terminator ending its region with its operands as the region's results."""

    def run(
        functions: InterpreterFunctions, interpreter: Interpreter, op: OperationInvT, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()

    return impl_terminator(op_type)(run)


def calls_callee(op_type: type[OperationInvT]) -> OpImpl[InterpreterFunctions, OperationInvT]:
    """The impl of ``op_type``: a direct call, which runs the function its ``callee`` names on its
    operands and gives what that returns."""

    def run(
        functions: InterpreterFunctions, interpreter: Interpreter, op: OperationInvT, args: PythonValues
    ) -> PythonValues:
        state = kernel_state(interpreter)
        callee = call_callee(op)
        assert callee is not None, "a direct call names its callee"
        return state.call(state.function(callee.root_reference.data, op), args, op)

    return impl(op_type)(run)


def runs_first_region(op_type: type[OperationInvT]) -> OpImpl[InterpreterFunctions, OperationInvT]:
    """The impl of ``op_type``: an op that runs its first region, without arguments, once, and gives
    what the region yields."""

    def run(
        functions: InterpreterFunctions, interpreter: Interpreter, op: OperationInvT, args: PythonValues
    ) -> PythonValues:
        return interpreter.run_ssacfg_region(op.regions[0], (), op.name)

    return impl(op_type)(run)


def does_nothing(op_type: type[OperationInvT]) -> OpImpl[InterpreterFunctions, OperationInvT]:
    """The impl of ``op_type``: an op without results that has nothing to do when interpreted."""

    def run(
        functions: InterpreterFunctions, interpreter: Interpreter, op: OperationInvT, args: PythonValues
    ) -> PythonValues:
        return ()

    return impl(op_type)(run)
