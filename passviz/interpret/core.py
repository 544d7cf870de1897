"""The interpreter: xDSL's ``Interpreter``, dispatching on op names, with the grid's state.

xDSL's interpreter finds an op's implementation by the op's Python class.  The
IR passviz runs comes from its own parser, where some ops are passviz's
subclasses of xDSL's (``arith.cmpi``, ``scf.while``) and others are xDSL's, so
``KernelInterpreter`` keys implementations by op name instead; xDSL's own
implementations (``scf.if``, ``scf.while``, ``cf.br``, ...) are registered the
same way.  An op without one is an ``UnsupportedOpError`` naming it and its
location; any other failure inside an op's implementation is a ``RunError``
located at that op.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from xdsl.dialects import cf, func, scf, ub
from xdsl.dialects.builtin import StringAttr
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    OpImpl,
    OpImplResult,
    PythonValues,
    ReturnedValues,
    Successor,
    TerminatorValue,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Operation, OperationInvT

from passviz.compilers.mlir.dialects import gpu, llvm
from passviz.compilers.triton.dialects import tt, ttg
from passviz.interpret.values import (
    DeclarationCallError,
    KernelAssertionError,
    RunError,
    RunLimitError,
    RunLimits,
    UnsupportedOpError,
    as_type,
    function_attribute,
    is_function,
    zeros,
)
from passviz.ir.xdsl_compat import implementations

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
    """What ``toy.print`` printed, one array per print, in order."""
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


@register_impls
class CoreFunctions(InterpreterFunctions):
    """Functions, calls, returns, ``scf.for`` with typed induction variables, and poison."""

    @impl(tt.CallOp)
    def run_tt_call(self, interpreter: Interpreter, op: tt.CallOp, args: PythonValues) -> PythonValues:
        state = kernel_state(interpreter)
        return state.call(state.function(op.callee.root_reference.data, op), args, op)

    @impl(func.CallOp)
    def run_func_call(self, interpreter: Interpreter, op: func.CallOp, args: PythonValues) -> PythonValues:
        state = kernel_state(interpreter)
        return state.call(state.function(op.callee.root_reference.data, op), args, op)

    run_tt_return = returns_operands(tt.ReturnOp)

    run_func_return = returns_operands(func.ReturnOp)

    @impl(scf.ForOp)
    def run_for(self, interpreter: Interpreter, op: scf.ForOp, args: PythonValues) -> PythonValues:
        lower, upper, step, *carried = args
        index_type = op.body.block.args[0].type
        values = tuple(carried)
        for index in range(int(lower), int(upper), int(step)):
            induction = as_type(index, index_type, op)
            values = interpreter.run_ssacfg_region(op.body, (induction, *values), "scf.for")
        return values

    @impl(scf.ExecuteRegionOp)
    def run_execute_region(
        self, interpreter: Interpreter, op: scf.ExecuteRegionOp, args: PythonValues
    ) -> PythonValues:
        return interpreter.run_ssacfg_region(op.region, (), "scf.execute_region")

    @impl(gpu.BarrierOp)
    def run_gpu_barrier(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        # Programs run one after another, each in one thread: a barrier has nothing to wait for.
        return ()

    @impl(ttg.BarrierOp)
    def run_ttg_barrier(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return ()

    @impl(llvm.AssumeOp)
    def run_assume(self, interpreter: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        # What the kernel promises; a broken promise is undefined behaviour on the GPU, not checked here.
        return ()

    @impl(cf.AssertOp)
    def run_cf_assert(self, interpreter: Interpreter, op: cf.AssertOp, args: PythonValues) -> PythonValues:
        if not np.all(np.asarray(args[0])):
            state = kernel_state(interpreter)
            raise KernelAssertionError(f"assertion failed in program {state.program_id}: {op.msg.data}", op)
        return ()

    @impl_terminator(cf.SwitchOp)
    def run_switch(
        self, interpreter: Interpreter, op: cf.SwitchOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        flag = int(np.asarray(args[0]))
        cases = list(op.case_values.get_values()) if op.case_values is not None else []
        if flag in cases:
            index = cases.index(flag)
            sizes = list(op.case_operand_segments.get_values())
            start = sum(sizes[:index])
            operands = op.case_operands[start : start + sizes[index]]
            return Successor(op.case_blocks[index], interpreter.get_values(operands)), ()
        return Successor(op.default_block, interpreter.get_values(op.default_operands)), ()

    @impl(ub.PoisonOp)
    def run_poison(self, interpreter: Interpreter, op: ub.PoisonOp, args: PythonValues) -> PythonValues:
        return (zeros(op.result.type, op),)
