"""Building the ops that patterns create, as passviz registers them.

passviz's ``arith`` dialect (``passviz.compilers.mlir.dialects.arith``) subclasses some of
xDSL's ops so that they take tensors as MLIR's do.  Patterns match on xDSL's
classes (subclasses match too) but build with the registered ones, so that a
new op verifies and prints like a parsed one.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TypeVar

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from passviz.compilers.mlir.dialects.arith import Arith

_OpT = TypeVar("_OpT", bound=Operation)

_REGISTERED: Mapping[str, type[Operation]] = MappingProxyType({op.name: op for op in Arith.operations})
"""passviz's arith op classes, by name."""

ARITH_OP_NAMES: frozenset[str] = frozenset(_REGISTERED)
"""The names of the arith ops passviz registers."""


def registered(kind: type[_OpT]) -> type[_OpT]:
    """The class passviz registers for ``kind``'s op name (``kind`` itself if none)."""
    found = _REGISTERED.get(kind.name)
    return found if found is not None and issubclass(found, kind) else kind


def registered_by_name(name: str) -> type[Operation]:
    """The class passviz registers for the arith op ``name`` (one xDSL lacks)."""
    return _REGISTERED[name]


def binary(kind: type[_OpT], lhs: SSAValue, rhs: SSAValue, flags: frozenset[str] | None = None) -> _OpT:
    """A new binary op of ``kind`` (with overflow flags when ``flags`` is given)."""
    properties: dict[str, Attribute] = {}
    if flags is not None:
        properties["overflowFlags"] = overflow_attr(flags)
    return registered(kind).create(operands=[lhs, rhs], result_types=[lhs.type], properties=properties)


def unary(
    kind: type[_OpT], operand: SSAValue, type: Attribute, properties: dict[str, Attribute] | None = None
) -> _OpT:
    """A new one-operand op (a cast) of ``kind`` to ``type``."""
    return registered(kind).create(operands=[operand], result_types=[type], properties=properties or {})


def cmpi(predicate: int, lhs: SSAValue, rhs: SSAValue, type: Attribute) -> arith.CmpiOp:
    """A new ``arith.cmpi`` giving ``type`` (``i1``, or shaped ``i1``)."""
    return registered(arith.CmpiOp).create(
        operands=[lhs, rhs], result_types=[type], properties={"predicate": IntegerAttr(predicate, 64)}
    )


def select(cond: SSAValue, true_value: SSAValue, false_value: SSAValue) -> arith.SelectOp:
    """A new ``arith.select``."""
    return registered(arith.SelectOp).create(
        operands=[cond, true_value, false_value], result_types=[true_value.type]
    )


def constant(value: Attribute) -> arith.ConstantOp:
    """A new ``arith.constant`` of a typed attribute."""
    return arith.ConstantOp(value)  # pyright: ignore[reportArgumentType]


def i1_constant(value: bool) -> arith.ConstantOp:
    """A new ``arith.constant`` of ``i1`` (what patterns build for known conditions)."""
    return arith.ConstantOp(IntegerAttr(int(value), IntegerType(1), truncate_bits=True))


def overflow_attr(flags: frozenset[str]) -> arith.IntegerOverflowAttr:
    """``#arith.overflow<...>`` of ``flags`` (``none`` when empty)."""
    return arith.IntegerOverflowAttr([arith.IntegerOverflowFlag(flag) for flag in sorted(flags)] or "none")


def dim_ops(value: SSAValue) -> tuple[list[Operation], list[SSAValue]]:
    """``tensor::getMixedSizes``' dynamic sizes of the tensor ``value``: an index constant and a
    ``tensor.dim`` of it per dynamic dimension (for the caller to insert), and their sizes."""
    type_ = value.type
    assert isinstance(type_, TensorType)
    ops: list[Operation] = []
    sizes: list[SSAValue] = []
    for index, size in enumerate(type_.get_shape()):
        if size != DYNAMIC_INDEX:
            continue
        constant = arith.ConstantOp(IntegerAttr(index, IndexType()))
        dim = tensor.DimOp(value, constant.result)
        ops += [constant, dim]
        sizes.append(dim.result)
    return ops, sizes
