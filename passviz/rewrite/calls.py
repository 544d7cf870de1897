"""MLIR's ``CallOpInterface`` (``mlir/Interfaces/CallInterfaces.td``), which xDSL lacks.

xDSL has ``CallableOpInterface`` for what may be called (``func.func``; passviz's function
ops take ``passviz.ir.callables.FunctionTypeCallable``), but nothing for a call.  A call op
declares ``CallOpInterface`` among its traits (``DirectCall`` for a call that names its callee
in ``callee`` and passes it every operand, as ``func.call`` does), so that the call graph, the
inliner and ``sccp`` find the calls of every dialect without knowing their ops.  xDSL's own
``func.call`` cannot declare it: ``call_interface`` gives it ``DirectCall``.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Operation, SSAValue
from xdsl.traits import OpTrait


class CallOpInterface(OpTrait, abc.ABC):
    """A call: an op that transfers control to a callable and back (MLIR's ``CallOpInterface``)."""

    @classmethod
    @abc.abstractmethod
    def get_callee(cls, op: Operation) -> SymbolRefAttr | None:
        """The symbol the call names (``getCallableForCallee``); None for an indirect call."""
        raise NotImplementedError()

    @classmethod
    @abc.abstractmethod
    def get_argument_operands(cls, op: Operation) -> tuple[SSAValue, ...]:
        """The values the call passes to its callee's arguments (``getArgOperands``)."""
        raise NotImplementedError()


@dataclass(frozen=True)
class DirectCall(CallOpInterface):
    """A call of the symbol in its ``callee`` (a property or an attribute) with all its operands
    as arguments: ``func.call``, ``tt.call``, ``toy.generic_call``."""

    @classmethod
    def get_callee(cls, op: Operation) -> SymbolRefAttr | None:
        callee = op.get_attr_or_prop("callee")
        return callee if isinstance(callee, SymbolRefAttr) else None

    @classmethod
    def get_argument_operands(cls, op: Operation) -> tuple[SSAValue, ...]:
        return tuple(op.operands)


def call_interface(op: Operation) -> CallOpInterface | None:
    """``dyn_cast<CallOpInterface>(op)``: how ``op`` calls, or None if it is no call."""
    trait = op.get_trait(CallOpInterface)
    if trait is None and isinstance(op, func.CallOp):
        return DirectCall()
    return trait


def is_call(op: Operation) -> bool:
    """Whether ``op`` is a call (``isa<CallOpInterface>``)."""
    return call_interface(op) is not None


def call_callee(op: Operation) -> SymbolRefAttr | None:
    """The symbol a call names, or None for an indirect call or an op that is no call."""
    interface = call_interface(op)
    return interface.get_callee(op) if interface is not None else None


def call_arguments(op: Operation) -> tuple[SSAValue, ...]:
    """The values a call passes to its callee (none for an op that is no call)."""
    interface = call_interface(op)
    return interface.get_argument_operands(op) if interface is not None else ()
