"""Dialects: passviz's own (tt, ...) next to xDSL's standard ones."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.ir import Dialect

from passviz.ir.names import keep_suffix_only_names


def make_context(*, allow_unregistered: bool = False) -> Context:
    """A context that knows every xDSL dialect and passviz's own.

    Dialects are registered lazily, so parsing only pays for the ones used.
    passviz's dialects take precedence over xDSL ones of the same name.
    """
    keep_suffix_only_names()  # Triton's frontend names values %_0
    ctx = Context(allow_unregistered=allow_unregistered)
    ours = _our_dialect_factories()
    for name, factory in get_all_dialects().items():
        if name not in ours:
            ctx.register_dialect(name, factory)
    for name, factory in ours.items():
        ctx.register_dialect(name, factory)
    return ctx


ALIASED_ATTRIBUTES: dict[str, str] = {"#ttg.blocked<": "blocked", "#iree_encoding.testing<": "encoding"}
"""The attributes printed by alias (``passviz.ir.printer.AliasedAttribute``): how each one's text
begins, and its alias.  A trace records it (``meta.aliases``) so that the viewer aliases what the
CLI aliases; spelled out here so that recording loads no dialect it does not use, and checked
against the classes by ``tests/test_ir_aliases.py``."""


def _our_dialect_factories() -> dict[str, Callable[[], Dialect]]:
    return {
        "tt": _load_tt,
        "ttg": _load_ttg,
        "tts": _load_tts,
        "scf": _load_scf,
        "arith": _load_arith,
        "gpu": _load_gpu,
        "llvm": _load_llvm,
        "toy": _load_toy,
        "util": _load_util,
        "hal": _load_hal,
        "flow": _load_flow,
        "iree_tensor_ext": _load_iree_tensor_ext,
        "linalg": _load_linalg,
        "check": _load_check,
        "iree_encoding": _load_iree_encoding,
        "tensor": _load_tensor,
        "affine": _load_affine,
    }


def _load_tt() -> Dialect:
    from passviz.compilers.triton.dialects.tt import TT

    return TT


def _load_ttg() -> Dialect:
    from passviz.compilers.triton.dialects.ttg import TTG

    return TTG


def _load_tts() -> Dialect:
    from passviz.compilers.triton_shared.dialect import TTS

    return TTS


def _load_arith() -> Dialect:
    from passviz.compilers.mlir.dialects.arith import Arith

    return Arith


def _load_scf() -> Dialect:
    from passviz.compilers.mlir.dialects.scf import SCF

    return SCF


def _load_gpu() -> Dialect:
    from passviz.compilers.mlir.dialects.gpu import GPU

    return GPU


def _load_llvm() -> Dialect:
    from passviz.compilers.mlir.dialects.llvm import LLVM

    return LLVM


def _load_toy() -> Dialect:
    from passviz.compilers.toy.dialect import Toy

    return Toy


def _load_util() -> Dialect:
    from passviz.compilers.iree.dialects.util import Util

    return Util


def _load_hal() -> Dialect:
    from passviz.compilers.iree.dialects.hal import HAL

    return HAL


def _load_flow() -> Dialect:
    from passviz.compilers.iree.dialects.flow import Flow

    return Flow


def _load_iree_tensor_ext() -> Dialect:
    from passviz.compilers.iree.dialects.iree_tensor_ext import IREETensorExt

    return IREETensorExt


def _load_linalg() -> Dialect:
    from passviz.compilers.mlir.dialects.linalg import Linalg

    return Linalg


def _load_affine() -> Dialect:
    from passviz.compilers.mlir.dialects.affine import Affine

    return Affine


def _load_check() -> Dialect:
    from passviz.compilers.iree.dialects.check import Check

    return Check


def _load_iree_encoding() -> Dialect:
    from passviz.compilers.iree.dialects.iree_encoding import IREEEncoding

    return IREEEncoding


def _load_tensor() -> Dialect:
    from passviz.compilers.mlir.dialects.tensor import Tensor

    return Tensor
