"""Passes: passviz's traced passes, plus every xDSL pass (recorded per pass)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass
from xdsl.transforms import get_all_passes


def traced_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Passes recorded rewrite by rewrite, by name."""

    def wrap() -> type[ModulePass]:
        from passviz.passes.wrap_func_body import WrapFuncBodyWithSingleBlock

        return WrapFuncBodyWithSingleBlock

    def canonicalize() -> type[ModulePass]:
        from passviz.passes.canonicalize import Canonicalize

        return Canonicalize

    def cse() -> type[ModulePass]:
        from passviz.passes.cse import CommonSubexpressionElimination

        return CommonSubexpressionElimination

    def dce() -> type[ModulePass]:
        from passviz.passes.dce import DeadCodeElimination

        return DeadCodeElimination

    return {
        "wrap-func-body-with-single-block": wrap,
        "canonicalize": canonicalize,
        "cse": cse,
        "dce": dce,
    }


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass a pipeline may name: passviz's traced ones override xDSL's."""
    return {**get_all_passes(), **traced_passes()}
