"""triton-shared: the ``tts`` dialect and its ``fold-unstructured-ptr`` pass."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.interpreter import InterpreterFunctions

from passviz.compilers.family import Family, lazy


def _interpreter() -> Sequence[InterpreterFunctions]:
    from passviz.compilers.triton_shared.interpret import StructuredFunctions

    return (StructuredFunctions(),)


FAMILY = Family(
    name="triton_shared",
    dialects={"tts": lazy("passviz.compilers.triton_shared.dialect", "TTS")},
    passes={
        "fold-unstructured-ptr": lazy(
            "passviz.compilers.triton_shared.fold_unstructured_ptr", "FoldUnstructuredPtr"
        )
    },
    interpreter=_interpreter,
)
