"""The passes ``toyc``'s ``-emit=mlir-affine`` runs after MLIRGen (chapters 5 and 6)."""

from __future__ import annotations

from xdsl.passes import ModulePass

from passviz.pipelines import parse_pipeline

TOY_CLEANUP = "inline,toy-shape-inference,canonicalize,cse"
"""What ``toyc-ch5`` runs before lowering, with or without ``-opt``: the inliner on the
module, then shape inference, canonicalize and CSE on each ``toy.func``."""

AFFINE_CLEANUP = "toy-lower-to-affine,canonicalize,cse"
"""The lowering, then canonicalize and CSE on each ``func.func``."""

AFFINE_OPT = "affine-loop-fusion,affine-scalrep"
"""What ``-opt`` adds after the lowering's cleanups: loop fusion, then store-to-load forwarding."""


def affine_pipeline(opt: bool) -> str:
    """``toyc-ch5 -emit=mlir-affine [-opt]``'s passes, as a pipeline string."""
    stages = [TOY_CLEANUP, AFFINE_CLEANUP]
    if opt:
        stages.append(AFFINE_OPT)
    return ",".join(stages)


def affine_passes(opt: bool) -> list[ModulePass]:
    """``toyc-ch5 -emit=mlir-affine [-opt]``'s passes after MLIRGen (chapter 6 runs the same)."""
    return list(parse_pipeline(affine_pipeline(opt)))
