"""``iree-flow-outline-dispatch-regions``: IREE 3.13's ``OutlineDispatchRegionsPass``
(``Flow/Transforms/OutlineDispatchRegions.cpp``).

Each ``flow.dispatch.workgroups`` of a function ``@f`` (the ``N``-th, in walk
order) moves out into ``flow.executable private @f_dispatch_N``, placed right
before ``@f``: an export ``@f_dispatch_N`` (with the count region, if any) and a
``builtin.module`` holding ``func.func @f_dispatch_N``, whose arguments are the
body's and whose ``flow.return`` becomes ``func.return``.  A ``flow.dispatch
@f_dispatch_N::@f_dispatch_N`` takes the workgroups op's place, with its
workload, arguments, dimensions and ties; dialect attributes
(``stream.affinity``) go to both the export and the dispatch.

One step per dispatch, ``OutlineDispatchWorkgroups``, rooted at the workgroups
op; its ``dispatch`` field lists the dispatch ops left in the functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Operation, Region
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolOpInterface

from passviz.compilers.iree.dialects import flow
from passviz.compilers.iree.passes.dispatch_common import dispatch_regions
from passviz.compilers.mlir.version import behaves_as_iree
from passviz.recording.interface import StepRecorder, TracedPass

STEP = "OutlineDispatchWorkgroups"
"""The step that outlines one workgroups op."""


@dataclass(frozen=True)
class OutlineDispatchRegions(TracedPass):
    """Outline each ``flow.dispatch.workgroups`` into a ``flow.executable`` called by ``flow.dispatch``."""

    name = "iree-flow-outline-dispatch-regions"

    @behaves_as_iree
    def run(self, ctx: Context, op: ModuleOp, recorder: StepRecorder) -> None:
        for function in list(op.body.block.ops):
            symbol = function.get_trait(SymbolOpInterface)
            if symbol is None or not function.regions or isinstance(function, flow.ExecutableOp):
                continue
            name = symbol.get_sym_attr_name(function)
            if name is None:
                continue
            workgroups = [inner for inner in function.walk() if isinstance(inner, flow.DispatchWorkgroupsOp)]
            for index, dispatch in enumerate(workgroups):
                with recorder.step(STEP, dispatch, full=True, dispatch=lambda: dispatch_regions(op)):
                    outline(dispatch, function, f"{name.data}_dispatch_{index}")


def outline(workgroups: flow.DispatchWorkgroupsOp, function: Operation, name: str) -> flow.DispatchOp:
    """Move ``workgroups``' body into ``flow.executable @name`` before ``function``; call it."""
    body = workgroups.workgroup_body
    entry = body.blocks.first
    arg_types = list(entry.arg_types) if entry is not None else []
    for block in body.blocks:
        terminator = block.last_op
        if isinstance(terminator, flow.ReturnOp):
            Rewriter.replace_op(terminator, func.ReturnOp())
    moved = Region()
    body.move_blocks(moved)
    body = moved
    if not body.blocks:
        body.add_block(Block(arg_types=arg_types))
    function_op = func.FuncOp.from_region(name, arg_types, [], body)
    function_op.properties.pop("sym_visibility", None)
    function_op.function_type = FunctionType.from_lists(arg_types, [])

    count = Region()
    workgroups.workgroup_count.move_blocks(count)
    export = flow.ExecutableExportOp(name, name, count)
    export.properties["sym_visibility"] = StringAttr("public")
    dialect_attrs = {k: v for k, v in workgroups.attributes.items() if "." in k}
    export.attributes |= dialect_attrs
    executable = flow.ExecutableOp(name)
    executable.body.block.add_ops([export, ModuleOp([function_op])])
    Rewriter.insert_op(executable, InsertPoint.before(function))

    tied = [t.value.data for t in workgroups.tied_operands.data] if workgroups.tied_operands else []
    call = flow.DispatchOp(
        SymbolRefAttr(name, [name]),
        list(workgroups.workload),
        list(workgroups.arguments),
        list(workgroups.argument_dims),
        list(workgroups.result.types),
        list(workgroups.result_dims),
        tied or [-1] * len(workgroups.results),
    )
    call.attributes |= dialect_attrs
    Rewriter.replace_op(workgroups, call)
    return call
