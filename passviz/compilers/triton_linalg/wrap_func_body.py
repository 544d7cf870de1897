"""``wrap-func-body-with-single-block`` (triton-linalg).

Wraps every multi-block function body in an ``scf.execute_region`` so that
the function itself has a single block.  This is what lets the inliner inline
such a function into a single-block region (an ``scf.for`` body, say).  The
seven sub-steps of triton-linalg's ``encapsulateMultiBlock`` each end with a
checkpoint, so a trace shows them one by one.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import cf, scf
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.rewriter import BlockInsertPoint, InsertPoint, Rewriter
from xdsl.traits import CallableOpInterface, ReturnLike

from passviz.compilers.mlir.dialects.scf import ExecuteRegionOp
from passviz.recording.interface import StepRecorder, TracedPass

CHECKPOINTS = (
    "new entry block",
    "scf.execute_region inserted",
    "blocks spliced in",
    "entry arguments replaced",
    "yield block",
    "branches inserted",
    "returns removed",
)
"""The pass's sub-steps, in order, as they are named in traces."""


@dataclass(frozen=True)
class WrapFuncBodyWithSingleBlock(TracedPass):
    """Wrap multi-block function bodies into an ``scf.execute_region``."""

    name = "wrap-func-body-with-single-block"
    announces_every_edit = True

    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        functions = [f for f in op.walk() if _is_function(f)]
        for function in functions:
            _encapsulate_multi_block(function, recorder)


def _is_function(op: Operation) -> bool:
    return op.has_trait(CallableOpInterface) and len(op.regions) == 1


def _function_type(op: Operation) -> FunctionType:
    function_type = op.properties.get("function_type") or op.attributes.get("function_type")
    if not isinstance(function_type, FunctionType):
        raise ValueError(f"{op.name} has no function_type")
    return function_type


def _encapsulate_multi_block(function: Operation, recorder: StepRecorder) -> None:
    body = function.regions[0]
    if len(body.blocks) <= 1:
        return
    entry = body.blocks[0]
    rewriter = recorder.rewriter(InsertPoint.at_start(entry))

    # 1. A new entry block with the entry block's argument types.
    new_entry = Block(arg_types=entry.arg_types)
    for new_arg, old_arg in zip(new_entry.args, entry.args, strict=True):
        new_arg.name_hint = old_arg.name_hint
    Rewriter.insert_block(new_entry, BlockInsertPoint.before(entry))
    recorder.checkpoint(CHECKPOINTS[0])

    # 2. An scf.execute_region returning the function's results.
    container = ExecuteRegionOp(_function_type(function).outputs.data, Region())
    rewriter.insert(container, InsertPoint.at_start(new_entry))
    recorder.checkpoint(CHECKPOINTS[1])

    # 3. Every original block moves into the container's region.
    container_region = container.region
    for block in list(body.blocks)[1:]:
        body.detach_block(block)
        container_region.add_block(block)
    recorder.checkpoint(CHECKPOINTS[2])

    # 4. The old entry's arguments become the new entry's (execute_region
    #    bodies take no arguments).
    old_entry = container_region.blocks[0]
    for arg in list(old_entry.args):
        rewriter.replace_all_uses_with(arg, new_entry.args[arg.index])
    for arg in reversed(old_entry.args):
        rewriter.erase_block_argument(arg)
    recorder.checkpoint(CHECKPOINTS[3])

    # 5. One block that yields the values the returns returned.
    returns = [op for block in container_region.blocks for op in block.ops if op.has_trait(ReturnLike)]
    if not returns:
        raise ValueError(f"function {function.name} has no return-like op to wrap")
    yield_block = Block(arg_types=returns[0].operand_types)
    Rewriter.insert_block(yield_block, BlockInsertPoint.at_end(container_region))
    rewriter.insert(scf.YieldOp(*yield_block.args), InsertPoint.at_end(yield_block))
    recorder.checkpoint(CHECKPOINTS[4])

    # 6. Each return first branches to the yield block.
    for return_op in returns:
        rewriter.insert(cf.BranchOp(yield_block, *return_op.operands), InsertPoint.before(return_op))
    recorder.checkpoint(CHECKPOINTS[5])

    # 7. One return survives: it returns the container's results from the
    #    new entry block; the others go.
    terminator = returns.pop()
    for return_op in returns:
        rewriter.erase(return_op)
    terminator.operands = container.results
    terminator.detach()
    rewriter.insert(terminator, InsertPoint.at_end(new_entry))
    recorder.checkpoint(CHECKPOINTS[6])
