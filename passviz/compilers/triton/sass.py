"""A cubin's SASS as Triton gives it (``compiled.asm["sass"]``: ``triton.tools.disasm.get_sass``).

Triton runs ``cuobjdump -sass``, which runs ``nvdisasm -pb -hex -novliw`` on the
cubin's code and prints what it prints.  A third of a second goes to that,
whatever the kernel, and a quarter of it to nvdisasm's dataflow analysis, which
labels the jumps made through the GPU's branch stack: GPUs from Volta (compute
capability 7.0) on have none, so for them the analysis adds nothing to the
text.  ``disassemble(..., fast=True)`` has Triton's own ``get_sass`` run that
``nvdisasm`` call itself with the analysis off (``-ndf``): the same text, sooner.
It swaps the ``subprocess`` Triton's disassembler calls for the duration, so it
is for a process of the capture's own (its forked compile), not a user's.
"""

from __future__ import annotations

import contextlib
import importlib
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

NO_BRANCH_STACK = 70
"""The first compute capability (Volta's) with no branch stack: nvdisasm's dataflow analysis,
which only labels the jumps made through one, changes nothing in its SASS."""

NVDISASM_OPTIONS = ("-pb", "-hex", "-novliw")
"""The options ``cuobjdump -sass`` runs ``nvdisasm`` with (as ``strace -f`` shows it)."""


def disassemble(cubin: bytes, capability: int | None = None, *, fast: bool = False) -> str | None:
    """The SASS of ``cubin`` as ``triton.tools.disasm.get_sass`` gives it, or None where there is no
    ``cuobjdump`` for the platform. With ``fast`` and a ``capability`` of 7.0 or later, nvdisasm
    runs without its dataflow analysis (the module's docstring): only in a process of the
    capture's own. Where that ``nvdisasm`` fails (one without the option), as Triton runs it."""
    try:
        disasm: Any = importlib.import_module("triton.tools.disasm")
        nvdisasm = _nvdisasm(disasm) if fast and (capability or 0) >= NO_BRANCH_STACK else None
        if nvdisasm is not None:
            with contextlib.suppress(Exception), _running_instead(disasm, _WithoutDataflow(nvdisasm)):
                return str(disasm.get_sass(cubin))
        return str(disasm.get_sass(cubin))
    except Exception:  # no cuobjdump for this target or platform: the trace goes without SASS
        return None


def _nvdisasm(disasm: Any) -> str | None:
    """The ``nvdisasm`` that Triton's ``cuobjdump`` runs: the one in its folder (None if none)."""
    path = Path(str(disasm.path_to_cuobjdump())).with_name("nvdisasm")
    return str(path) if path.is_file() else None


class _WithoutDataflow:
    """``subprocess`` for Triton's disassembler, but that ``cuobjdump -sass FILE`` is the ``nvdisasm``
    call it makes, with the dataflow analysis off (``-ndf``); any other command as asked."""

    def __init__(self, nvdisasm: str) -> None:
        self.nvdisasm = nvdisasm

    def check_output(self, args: Sequence[str], **options: Any) -> Any:
        if len(args) == 3 and args[1] == "-sass":
            args = [self.nvdisasm, "-ndf", *NVDISASM_OPTIONS, args[2]]
        run: Any = subprocess.check_output
        return run(args, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(subprocess, name)


@contextmanager
def _running_instead(disasm: ModuleType, runner: object) -> Iterator[None]:
    """Triton's disassembler calling ``runner`` in place of ``subprocess`` for the duration."""
    before = disasm.subprocess
    disasm.subprocess = runner  # type: ignore[attr-defined]
    try:
        yield
    finally:
        disasm.subprocess = before  # type: ignore[attr-defined]


__all__ = ["NO_BRANCH_STACK", "NVDISASM_OPTIONS", "disassemble"]
