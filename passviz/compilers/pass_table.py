"""Passes: passviz's traced passes, plus every xDSL pass (recorded per pass)."""

from __future__ import annotations

import re
from collections.abc import Callable

from xdsl.passes import ModulePass
from xdsl.transforms import get_all_passes


def traced_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Passes recorded rewrite by rewrite, by name."""

    def wrap() -> type[ModulePass]:
        from passviz.compilers.triton_linalg.wrap_func_body import WrapFuncBodyWithSingleBlock

        return WrapFuncBodyWithSingleBlock

    def canonicalize() -> type[ModulePass]:
        from passviz.compilers.mlir.passes.canonicalize import Canonicalize

        return Canonicalize

    def cse() -> type[ModulePass]:
        from passviz.compilers.mlir.passes.cse import CommonSubexpressionElimination

        return CommonSubexpressionElimination

    def dce() -> type[ModulePass]:
        from passviz.compilers.mlir.passes.dce import DeadCodeElimination

        return DeadCodeElimination

    def loop_unroll() -> type[ModulePass]:
        from passviz.compilers.triton.passes.loop_unroll import TritonLoopUnroll

        return TritonLoopUnroll

    def licm() -> type[ModulePass]:
        from passviz.compilers.mlir.passes.licm import LoopInvariantCodeMotion

        return LoopInvariantCodeMotion

    def triton_licm() -> type[ModulePass]:
        from passviz.compilers.mlir.passes.licm import TritonLoopInvariantCodeMotion

        return TritonLoopInvariantCodeMotion

    def symbol_dce() -> type[ModulePass]:
        from passviz.compilers.mlir.passes.symbol_dce import SymbolDCE

        return SymbolDCE

    def sccp() -> type[ModulePass]:
        from passviz.compilers.mlir.passes.sccp import SCCP

        return SCCP

    def inline() -> type[ModulePass]:
        from passviz.compilers.mlir.passes.inline import Inline

        return Inline

    def combine() -> type[ModulePass]:
        from passviz.compilers.triton.passes.combine import TritonCombine

        return TritonCombine

    def reorder_broadcast() -> type[ModulePass]:
        from passviz.compilers.triton.passes.reorder_broadcast import TritonReorderBroadcast

        return TritonReorderBroadcast

    def fold_unstructured_ptr() -> type[ModulePass]:
        from passviz.compilers.triton_shared.fold_unstructured_ptr import FoldUnstructuredPtr

        return FoldUnstructuredPtr

    def rewrite_tensor_pointer() -> type[ModulePass]:
        from passviz.compilers.triton.passes.rewrite_tensor_pointer import RewriteTensorPointer

        return RewriteTensorPointer

    def toy_shape_inference() -> type[ModulePass]:
        from passviz.compilers.toy.passes.shape_inference import ToyShapeInference

        return ToyShapeInference

    def toy_lower_to_affine() -> type[ModulePass]:
        from passviz.compilers.toy.passes.lower_to_affine import ToyLowerToAffine

        return ToyLowerToAffine

    def affine_loop_fusion() -> type[ModulePass]:
        from passviz.compilers.mlir.passes.affine_loop_fusion import AffineLoopFusion

        return AffineLoopFusion

    def affine_scalrep() -> type[ModulePass]:
        from passviz.compilers.mlir.passes.affine_scalrep import AffineScalarReplacement

        return AffineScalarReplacement

    def lower_affine() -> type[ModulePass]:
        from passviz.compilers.mlir.passes.lower_affine import LowerAffine

        return LowerAffine

    def toy_lower_to_llvm() -> type[ModulePass]:
        from passviz.compilers.toy.passes.lower_to_llvm import ToyLowerToLLVM

        return ToyLowerToLLVM

    def iree_conv1x1_to_matmul() -> type[ModulePass]:
        from passviz.compilers.iree.passes.conv1x1_to_matmul import Convert1X1FilterConv2DToMatmul

        return Convert1X1FilterConv2DToMatmul

    def iree_conv2d_to_img2col() -> type[ModulePass]:
        from passviz.compilers.iree.passes.conv2d_to_img2col import ConvertConv2DToImg2Col

        return ConvertConv2DToImg2Col

    def iree_detach_elementwise() -> type[ModulePass]:
        from passviz.compilers.iree.passes.detach_elementwise import DetachElementwiseFromNamedOps

        return DetachElementwiseFromNamedOps

    def iree_form_dispatch_regions() -> type[ModulePass]:
        from passviz.compilers.iree.passes.form_dispatch_regions import FormDispatchRegions

        return FormDispatchRegions

    def iree_clone_producers() -> type[ModulePass]:
        from passviz.compilers.iree.passes.form_dispatch_regions import CloneProducersIntoDispatchRegions

        return CloneProducersIntoDispatchRegions

    def iree_dispatch_workgroups() -> type[ModulePass]:
        from passviz.compilers.iree.passes.dispatch_workgroups import ConvertDispatchRegionsToWorkgroups

        return ConvertDispatchRegionsToWorkgroups

    def iree_flow_canonicalize() -> type[ModulePass]:
        from passviz.compilers.iree.passes.dispatch_workgroups import FlowCanonicalize

        return FlowCanonicalize

    def iree_outline_dispatch_regions() -> type[ModulePass]:
        from passviz.compilers.iree.passes.outline_dispatch_regions import OutlineDispatchRegions

        return OutlineDispatchRegions

    def iree_elementwise_op_fusion() -> type[ModulePass]:
        from passviz.compilers.iree.passes.elementwise_op_fusion import ElementwiseOpFusion

        return ElementwiseOpFusion

    def iree_fuse_multi_use() -> type[ModulePass]:
        from passviz.compilers.iree.passes.fuse_multi_use import FuseMultiUseElementwiseProducer

        return FuseMultiUseElementwiseProducer

    def iree_split_reduction() -> type[ModulePass]:
        from passviz.compilers.iree.passes.split_reduction import SplitReductionOps

        return SplitReductionOps

    return {
        "wrap-func-body-with-single-block": wrap,
        "canonicalize": canonicalize,
        "cse": cse,
        "dce": dce,
        "triton-rewrite-tensor-pointer": rewrite_tensor_pointer,
        "triton-combine": combine,
        "triton-reorder-broadcast": reorder_broadcast,
        "triton-loop-unroll": loop_unroll,
        "loop-invariant-code-motion": licm,
        "triton-licm": triton_licm,
        "symbol-dce": symbol_dce,
        "sccp": sccp,
        "inline": inline,
        "fold-unstructured-ptr": fold_unstructured_ptr,
        "toy-shape-inference": toy_shape_inference,
        "toy-lower-to-affine": toy_lower_to_affine,
        "affine-loop-fusion": affine_loop_fusion,
        "affine-scalrep": affine_scalrep,
        "lower-affine": lower_affine,
        "toy-lower-to-llvm": toy_lower_to_llvm,
        "iree-preprocessing-convert-1x1-filter-conv2d-to-matmul": iree_conv1x1_to_matmul,
        "iree-global-opt-convert-conv2d-to-img2col": iree_conv2d_to_img2col,
        "iree-global-opt-detach-elementwise-from-named-ops": iree_detach_elementwise,
        "iree-dispatch-creation-elementwise-op-fusion": iree_elementwise_op_fusion,
        "iree-dispatch-creation-fuse-multi-use-elementwise-producer": iree_fuse_multi_use,
        "iree-dispatch-creation-split-reduction-ops": iree_split_reduction,
        "iree-dispatch-creation-form-dispatch-regions": iree_form_dispatch_regions,
        "iree-dispatch-creation-clone-producers-into-dispatch-regions": iree_clone_producers,
        "iree-dispatch-creation-convert-dispatch-regions-to-workgroups": iree_dispatch_workgroups,
        "iree-flow-canonicalize": iree_flow_canonicalize,
        "iree-flow-outline-dispatch-regions": iree_outline_dispatch_regions,
    }


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass a pipeline may name: passviz's traced ones override xDSL's."""
    return {**get_all_passes(), **traced_passes()}


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
"""Where a sentence ends: after ``.``, ``!`` or ``?``, before the next one's capital."""

_RST_MARKUP = re.compile(r"(?::\w+:)?`+([^`]*)`+")
"""RST inline literals and roles (````x````, ```x```, ``:class:`x```)."""


def pass_summary(pass_type: type) -> str:
    """The first sentence of ``pass_type``'s own docstring, on one line, without RST markup.

    Empty when the class has no docstring of its own (a dataclass's generated
    ``Name(field: type)`` does not count).  The sentence is never cut.
    """
    doc = pass_type.__doc__ or ""
    if doc.startswith(f"{pass_type.__name__}("):
        return ""
    paragraph = " ".join(doc.strip().split("\n\n")[0].split())
    sentence = _SENTENCE_END.split(paragraph, maxsplit=1)[0]
    return _RST_MARKUP.sub(r"\1", sentence)
