"""The MLIR Toy tutorial: the ``toy`` dialect, its frontend (``passviz toy``), its passes and
``toyc -opt``'s pipelines, chapters 3 to 6."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.interpreter import InterpreterFunctions

from passviz.compilers.family import Family, NamedPipeline, lazy

_P = "passviz.compilers.toy.passes"

TOY_OPT = "inline,toy-shape-inference,canonicalize,cse"
"""``toyc-ch4``'s ``-opt`` (and, from chapter 5, what runs before any lowering):
the inliner on the module, then shape inference, canonicalize and CSE on each ``toy.func``."""

TOY_AFFINE = "toy-lower-to-affine,canonicalize,cse"
"""Chapter 5's partial lowering to affine, then canonicalize and CSE on each ``func.func``."""

TOY_AFFINE_OPT = "affine-loop-fusion,affine-scalrep"
"""What ``-opt`` adds after the affine cleanups: loop fusion, then scalar replacement."""

TOY_PIPELINES: dict[str, str] = {
    "toy-ch3": "canonicalize",
    "toy-ch4": TOY_OPT,
    "toy-ch5": f"{TOY_OPT},{TOY_AFFINE},{TOY_AFFINE_OPT}",
    "toy-ch6": f"{TOY_OPT},{TOY_AFFINE},{TOY_AFFINE_OPT},toy-lower-to-llvm",
}
"""``toyc-chN -opt``'s passes after MLIRGen, down to the chapter's deepest MLIR
(``-emit=mlir`` for chapters 3 and 4, ``mlir-affine`` for 5, ``mlir-llvm`` for 6).
``passviz.cli.toyc.toy_pipeline`` gives each ``-emit`` level's."""

_EMITS = {"toy-ch3": "mlir", "toy-ch4": "mlir", "toy-ch5": "mlir-affine", "toy-ch6": "mlir-llvm"}


def _interpreter() -> Sequence[InterpreterFunctions]:
    from passviz.compilers.toy.interpret_ops import BufferFunctions, ToyFunctions

    return (ToyFunctions(), BufferFunctions())


FAMILY = Family(
    name="toy",
    dialects={"toy": lazy("passviz.compilers.toy.dialect", "Toy")},
    passes={
        "toy-shape-inference": lazy(f"{_P}.shape_inference", "ToyShapeInference"),
        "toy-lower-to-affine": lazy(f"{_P}.lower_to_affine", "ToyLowerToAffine"),
        "toy-lower-to-llvm": lazy(f"{_P}.lower_to_llvm", "ToyLowerToLLVM"),
    },
    pipelines={
        name: NamedPipeline(f"toyc-{name[4:]} -emit={_EMITS[name]} -opt", lambda spec=spec: spec)
        for name, spec in TOY_PIPELINES.items()
    },
    interpreter=_interpreter,
)
