"""Triton's frontend: the TTIR a ``@triton.jit`` kernel becomes before any pass."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from passviz.ir.errors import InputError

TRITON_TARGET: tuple[str, int, int] = ("cuda", 90, 32)
"""The Triton target ``triton_frontend_ir`` specializes for (backend, arch, warp
size): ``make-ttir`` is Triton 3.6's ``make_ttir`` for this target."""


def triton_frontend_ir(
    kernel: object,
    signature: Mapping[str, str],
    constexprs: Mapping[str, object] | None = None,
    *,
    target: tuple[str, int, int] = TRITON_TARGET,
    locations: bool = True,
) -> str:
    """The TTIR that Triton's frontend makes of ``kernel``, before any pass: the
    input of ``make-ttir`` (``triton.compile``'s first stage), with each op's
    ``file:line:col`` in the kernel's source unless ``locations`` is off.

    ``kernel`` is a ``@triton.jit`` function; ``signature`` gives each argument's
    Triton type (``"*fp32"``, ``"i32"``, ``"constexpr"``) and ``constexprs`` the
    values of the ``tl.constexpr`` ones. Needs ``pip install 'passviz[triton]'``.
    """
    try:
        libtriton: Any = importlib.import_module("triton._C.libtriton")
        backends: Any = importlib.import_module("triton.backends.compiler")
        compiler: Any = importlib.import_module("triton.compiler.compiler")
    except ImportError as exc:
        raise InputError(f"capturing a Triton kernel needs pip install 'passviz[triton]': {exc}") from None
    gpu_target = backends.GPUTarget(*target)
    backend = compiler.make_backend(gpu_target)
    options = backend.parse_options({})
    context = libtriton.ir.context()
    libtriton.ir.load_dialects(context)
    backend.load_dialects(context)
    source = compiler.ASTSource(kernel, signature=dict(signature), constexprs=dict(constexprs or {}))
    codegen = backend.get_codegen_implementation(options)
    module = source.make_ir(gpu_target, options, codegen, backend.get_module_map(), context)
    return str(module.str() if locations else module.str_nodebug())
