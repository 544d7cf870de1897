"""IREE 3.13: the ``flow``, ``hal``, ``util``, ``iree_tensor_ext``, ``iree_encoding`` and ``check``
dialects, the Flow and DispatchCreation passes, and the ``iree-flow`` pipeline."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.interpreter import InterpreterFunctions

from passviz.compilers.family import DispatchHints, Family, NamedPipeline, lazy

_D = "passviz.compilers.iree.dialects"
_P = "passviz.compilers.iree.passes"

IREE_FLOW = (
    "iree-preprocessing-convert-1x1-filter-conv2d-to-matmul,iree-global-opt-convert-conv2d-to-img2col,"
    "iree-global-opt-detach-elementwise-from-named-ops,iree-flow-canonicalize,cse,"
    "iree-dispatch-creation-elementwise-op-fusion,iree-dispatch-creation-fuse-multi-use-elementwise-producer,"
    "iree-flow-canonicalize,cse,iree-dispatch-creation-split-reduction-ops,"
    "iree-dispatch-creation-form-dispatch-regions,iree-dispatch-creation-clone-producers-into-dispatch-regions,"
    "iree-dispatch-creation-convert-dispatch-regions-to-workgroups,iree-flow-canonicalize,cse,"
    "iree-flow-outline-dispatch-regions,iree-flow-canonicalize,cse,symbol-dce"
)
"""The seed's Flow pipeline (``buildFlowTransformPassPipeline``) under IREE 3.13's pass names,
the passes passviz has in the seed's order: conv 1x1 to matmul, img2col, detach
elementwise, fusion of tensor ops, split reduction, dispatch regions, workgroups and
outlining, with the canonicalize and CSE the seed runs around them (IREE 3.13's
``iree-flow-canonicalize``) and its closing symbol DCE."""


DISPATCH = DispatchHints(
    dispatch_ops=("flow.dispatch.region", "flow.dispatch.workgroups", "flow.dispatch"),
    function_ops=("util.func", "func.func"),
    return_ops=("util.return", "func.return"),
    plumbing_ops=(
        "flow.return",
        "flow.dispatch.workgroup_count_from_dag_root",
        "flow.dispatch.workgroup_count_from_slice",
        "iree_tensor_ext.dispatch.tensor.load",
        "iree_tensor_ext.dispatch.tensor.store",
        "iree_tensor_ext.dispatch.workload.ordinal",
        "flow.dispatch.tensor.load",
        "flow.dispatch.tensor.store",
        "tensor.empty",
        "func.return",
        "linalg.yield",
    ),
    container_ops=("builtin.module", "flow.executable.export"),
    executable_op="flow.executable",
    call_op="flow.dispatch",
    entry_points="entry_points",
)
"""What ``--iree-flow-dump-dispatch-graph`` draws: a region, its workgroups or, once outlined, a
``flow.dispatch`` is one dispatch in a ``util.func`` or ``func.func``; an outlined
``flow.executable`` (its ``builtin.module`` of functions) is what a ``flow.dispatch`` calls."""


def _interpreter() -> Sequence[InterpreterFunctions]:
    from passviz.compilers.iree.interpret import LinalgFunctions

    return (LinalgFunctions(),)


FAMILY = Family(
    name="iree",
    dialects={
        "util": lazy(f"{_D}.util", "Util"),
        "hal": lazy(f"{_D}.hal", "HAL"),
        "flow": lazy(f"{_D}.flow", "Flow"),
        "iree_tensor_ext": lazy(f"{_D}.iree_tensor_ext", "IREETensorExt"),
        "check": lazy(f"{_D}.check", "Check"),
        "iree_encoding": lazy(f"{_D}.iree_encoding", "IREEEncoding"),
    },
    passes={
        "iree-preprocessing-convert-1x1-filter-conv2d-to-matmul": lazy(
            f"{_P}.conv1x1_to_matmul", "Convert1X1FilterConv2DToMatmul"
        ),
        "iree-global-opt-convert-conv2d-to-img2col": lazy(
            f"{_P}.conv2d_to_img2col", "ConvertConv2DToImg2Col"
        ),
        "iree-global-opt-detach-elementwise-from-named-ops": lazy(
            f"{_P}.detach_elementwise", "DetachElementwiseFromNamedOps"
        ),
        "iree-dispatch-creation-elementwise-op-fusion": lazy(
            f"{_P}.elementwise_op_fusion", "ElementwiseOpFusion"
        ),
        "iree-dispatch-creation-fuse-multi-use-elementwise-producer": lazy(
            f"{_P}.fuse_multi_use", "FuseMultiUseElementwiseProducer"
        ),
        "iree-dispatch-creation-split-reduction-ops": lazy(f"{_P}.split_reduction", "SplitReductionOps"),
        "iree-dispatch-creation-form-dispatch-regions": lazy(
            f"{_P}.form_dispatch_regions", "FormDispatchRegions"
        ),
        "iree-dispatch-creation-clone-producers-into-dispatch-regions": lazy(
            f"{_P}.form_dispatch_regions", "CloneProducersIntoDispatchRegions"
        ),
        "iree-dispatch-creation-convert-dispatch-regions-to-workgroups": lazy(
            f"{_P}.dispatch_workgroups", "ConvertDispatchRegionsToWorkgroups"
        ),
        "iree-flow-canonicalize": lazy(f"{_P}.dispatch_workgroups", "FlowCanonicalize"),
        "iree-flow-outline-dispatch-regions": lazy(
            f"{_P}.outline_dispatch_regions", "OutlineDispatchRegions"
        ),
    },
    pipelines={"iree-flow": NamedPipeline("IREE 3.13's Flow passes in the seed's order", lambda: IREE_FLOW)},
    interpreter=_interpreter,
    aliases={"#iree_encoding.testing<": "encoding"},
    dispatch=DISPATCH,
)
