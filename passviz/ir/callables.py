"""``CallableOpInterface`` for every function op shaped like ``func.func``.

``toy.func`` and ``tt.func`` (like upstream ``func.func``) keep their body in
their one region and their signature in a ``function_type`` attribute or
property; one interface reads both, whichever dialect the op belongs to.
Upstream candidate: xDSL's ``FuncOpCallableInterface`` asserts ``func.FuncOp``.
"""

from __future__ import annotations

from xdsl.dialects.builtin import FunctionType
from xdsl.ir import Attribute, Operation, Region
from xdsl.traits import CallableOpInterface


def _function_type(op: Operation) -> FunctionType:
    """The ``function_type`` of a function op, as an attribute or a property."""
    found = op.get_attr_or_prop("function_type")
    assert isinstance(found, FunctionType), f"{op.name} has no function_type"
    return found


class FunctionTypeCallable(CallableOpInterface):
    """Callable through its single region, taking and giving the types of its ``function_type``."""

    @classmethod
    def get_callable_region(cls, op: Operation) -> Region:
        return op.regions[0]

    @classmethod
    def get_argument_types(cls, op: Operation) -> tuple[Attribute, ...]:
        return _function_type(op).inputs.data

    @classmethod
    def get_result_types(cls, op: Operation) -> tuple[Attribute, ...]:
        return _function_type(op).outputs.data
