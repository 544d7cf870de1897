"""``toy-shape-inference``: the Toy tutorial's shape inference (chapter 4), one step per op.

In each ``toy.func`` (after inlining, so no call is left): the worklist holds
the ops with an unranked result; the first of them (in program order) whose
operands are all ranked gets its result type from its operands, until none
is left.  ``toy.add``, ``toy.mul`` and ``toy.cast`` take their (first)
operand's type, ``toy.transpose`` the reversed shape.  An op with no such rule
(``toy.generic_call``) or a worklist that stops shrinking fails the pass, with
the tutorial's messages.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType, f64
from xdsl.ir import Attribute, Operation
from xdsl.rewriter import InsertPoint

from passviz.compilers.toy.dialect import AddOp, CastOp, FuncOp, MulOp, TransposeOp
from passviz.ir.locations import located
from passviz.recording.interface import StepRecorder, TracedPass


class ShapeInferenceError(ValueError):
    """Shape inference cannot finish: an op has no rule, or operands stay unranked."""


def _ranked(type_: Attribute) -> bool:
    return isinstance(type_, TensorType)


def _returns_dynamic_shape(op: Operation) -> bool:
    return any(not _ranked(result.type) for result in op.results)


def _all_operands_inferred(op: Operation) -> bool:
    return all(_ranked(operand.type) for operand in op.operands)


def inferred_type(op: Operation) -> Attribute:
    """The tutorial's ``inferShapes`` for ``op``: the type its result gets."""
    if isinstance(op, AddOp | MulOp | CastOp):
        return op.operands[0].type
    if isinstance(op, TransposeOp):
        input_type = op.input.type
        assert isinstance(input_type, TensorType)
        return TensorType(f64, tuple(reversed(input_type.get_shape())))
    raise ShapeInferenceError(
        located(op, f"'{op.name}' op unable to infer shape of operation without shape inference interface")
    )


class ToyShapeInference(TracedPass):
    """Infer every ``toy`` value's shape from the constants and arguments, op by op."""

    name: ClassVar[str] = "toy-shape-inference"  # pyright: ignore[reportIncompatibleVariableOverride]

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        for function in [child for child in op.body.block.ops if isinstance(child, FuncOp)]:
            _infer_function(function, recorder)


def _infer_function(function: FuncOp, recorder: StepRecorder) -> None:
    worklist = [op for op in function.walk() if op is not function and _returns_dynamic_shape(op)]
    while worklist:
        ready = next((op for op in worklist if _all_operands_inferred(op)), None)
        if ready is None:
            break
        worklist.remove(ready)
        new_type = inferred_type(ready)
        with recorder.step(f"infer {ready.name}", root=ready):
            rewriter = recorder.rewriter(InsertPoint.before(ready))
            rewriter.replace_value_with_new_type(ready.results[0], new_type)
    if worklist:
        name, count = function.sym_name.data, len(worklist)
        message = f"Shape inferencing failed, {count} operations couldn't be inferred"
        raise ShapeInferenceError(located(function, f"@{name}: {message}"))
