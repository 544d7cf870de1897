"""What IREE's dispatch passes share: dispatch regions as a trace shows them, fusion
decisions as steps, captured values, dynamic dimensions and tied operands (IREE's
``Util`` helpers)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Attribute, Operation, OpResult, Region, SSAValue
from xdsl.irdl import IRDLOperation

from passviz.compilers.iree.dialects import flow, hal
from passviz.compilers.mlir.dialects.linalg import is_structured
from passviz.recording.interface import StepRecorder

DispatchBox = flow.DispatchRegionOp | flow.DispatchWorkgroupsOp
"""The ops a trace's ``dispatch`` field draws as boxes."""


def dispatch_regions(root: Operation) -> list[list[Operation]]:
    """Each dispatch region or workgroups op under ``root``, then its body's ops but the terminators."""
    found: list[list[Operation]] = []
    for op in root.walk():
        if isinstance(op, DispatchBox):
            body = op.body if isinstance(op, flow.DispatchRegionOp) else op.workgroup_body
            members = [
                inner for block in body.blocks for inner in block.ops if not isinstance(inner, flow.ReturnOp)
            ]
            found.append([op, *members])
    return found


def record_decision(recorder: StepRecorder, name: str, op: Operation) -> None:
    """A fusion decision (a root chosen, a fusion made or refused) as a step rooted at ``op``
    that changes nothing: the trace tells what was decided, and why, where it was decided."""
    with recorder.step(name, op):
        pass


def record_no_fusion(recorder: StepRecorder, op: Operation, where: str, why: str, what: str = "") -> None:
    """The step ``NoFusion: <op> stays out of <where> (<why>)`` for a fusion refused;
    ``what`` names ``op`` where its op name alone would not tell it apart."""
    record_decision(recorder, f"NoFusion: {what or op.name} stays out of {where} ({why})", op)


def dynamic_count(type_: Attribute) -> int:
    """How many dynamic dimensions a tensor of ``type_`` has (0 for other types)."""
    if not isinstance(type_, TensorType):
        return 0
    return sum(1 for d in type_.get_shape() if d == DYNAMIC_INDEX)


def is_inside(value: SSAValue, op: Operation) -> bool:
    """Whether ``value`` is defined inside a region of ``op``."""
    owner = value.owner
    holder = owner.parent_op() if not isinstance(owner, Operation) else owner
    while holder is not None:
        if holder is op:
            return owner is not op
        holder = holder.parent_op()
    return False


def nested_in(op: Operation, holder: Operation) -> bool:
    """Whether ``op`` is nested inside ``holder`` (``holder`` itself is not)."""
    parent = op.parent_op()
    while parent is not None:
        if parent is holder:
            return True
        parent = parent.parent_op()
    return False


def replace_uses_within(value: SSAValue, new: SSAValue, holder: Operation) -> None:
    """Replace the uses of ``value`` by ops nested in ``holder`` with ``new``."""
    if value is new:
        return
    for use in list(value.uses):
        if nested_in(use.operation, holder):
            use.operation.operands[use.index] = new


def used_values_defined_above(region: Region, op: Operation) -> list[SSAValue]:
    """MLIR's ``getUsedValuesDefinedAbove``: the values ``region``'s ops use from
    outside ``op``, first use first, nested ops before the op holding them (a post-order walk)."""
    found: dict[SSAValue, None] = {}
    for block in region.blocks:
        for inner in block.ops:
            for nested in inner.walk(region_first=True):
                for operand in nested.operands:
                    if not is_inside(operand, op):
                        found.setdefault(operand, None)
    return list(found)


def result_dims_of(op: Operation, result: OpResult) -> list[SSAValue] | None:
    """The dynamic dimensions a shape-aware op (IREE's ``ShapeAwareOpInterface``) gives ``result``."""
    dims: Sequence[SSAValue]
    if isinstance(op, flow.DispatchRegionOp | flow.DispatchWorkgroupsOp | flow.DispatchOp):
        dims = op.result_dims
    elif isinstance(op, hal.TensorImportOp):
        dims = op.target_encoding_dims
    elif isinstance(op, flow.TensorTieShapeOp):
        dims = op.dynamic_dims
    elif isinstance(op, flow.TensorReshapeOp):
        dims = op.result_dims
    else:
        return None
    start = sum(dynamic_count(r.type) for r in op.results[: result.index])
    return list(dims[start : start + dynamic_count(result.type)])


_INIT_OPERANDS = ("outputs", "init", "output")
"""How passviz's and xDSL's linalg ops name their ``outs`` operands."""


def is_linalg(op: Operation) -> bool:
    """Whether ``op`` is a linalg op on tensors (a destination-passing op of the ``linalg`` dialect)."""
    return op.dialect_name() == "linalg" and dps_inits(op) is not None


def dps_inits(op: Operation) -> Sequence[SSAValue] | None:
    """A linalg op's ``outs`` operands, or None for other ops."""
    if op.dialect_name() != "linalg":
        return None
    if not isinstance(op, IRDLOperation):
        return None
    names = {name for name, _ in op.get_irdl_definition().operands}
    for name in _INIT_OPERANDS:
        if name in names:
            inits: SSAValue | Sequence[SSAValue] = getattr(op, name)
            return [inits] if isinstance(inits, SSAValue) else list(inits)
    return None


def tied_operand(value: SSAValue) -> SSAValue | None:
    """The operand ``value``'s op writes in place to make it (IREE's ``TiedOpInterface``), if any."""
    if not isinstance(value, OpResult):
        return None
    op = value.op
    inits = dps_inits(op)
    if inits is not None:
        # IREE ties the results of MLIR's structured ops (LinalgStructuredOps.td) to their
        # inits; linalg.softmax is not one: its init is read, and a fresh output written.
        if not is_structured(op):
            return None
        return inits[value.index] if value.index < len(inits) else None
    if isinstance(op, tensor.InsertSliceOp):
        return op.dest
    if isinstance(op, flow.DispatchWorkgroupsOp | flow.DispatchOp) and op.tied_operands is not None:
        tie = op.tied_operands.data[value.index].value.data
        return op.arguments[tie] if tie >= 0 else None
    return None


def find_dynamic_dims(value: SSAValue) -> list[SSAValue] | None:
    """IREE's ``findDynamicDims``: ``value``'s dynamic dimensions as a shape-aware op up
    its tied chain gives them, or None."""
    work: SSAValue | None = value
    while isinstance(work, OpResult):
        dims = result_dims_of(work.op, work)
        if dims is not None:
            return dims
        work = tied_operand(work)
    return None
