"""``has_trait`` for hot paths: the answer per op class and trait, computed once.

xDSL's ``Operation.has_trait`` scans the class's traits with ``isinstance`` on
every call; a greedy rewrite asks it several times per op per iteration.
Traits belong to the op class, so the answer can be kept per (class, trait).
Upstream candidate: cache ``Operation.get_trait`` per class.
"""

from __future__ import annotations

from functools import cache

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Operation
from xdsl.traits import OpTrait


@cache
def _class_has_trait(op_type: type[Operation], trait: type[OpTrait] | OpTrait) -> bool:
    """A cache, not state: an op class's traits never change."""
    return op_type.has_trait(trait)


def has_trait(op: Operation, trait: type[OpTrait] | OpTrait, *, value_if_unregistered: bool = True) -> bool:
    """``op.has_trait(trait, value_if_unregistered=...)``, answered from a per-class cache."""
    if isinstance(op, UnregisteredOp):
        return value_if_unregistered
    try:
        return _class_has_trait(type(op), trait)
    except TypeError:  # an unhashable trait instance
        return op.has_trait(trait, value_if_unregistered=value_if_unregistered)
