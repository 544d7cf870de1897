"""Which LLVM passviz's shared MLIR folders and patterns behave as: Triton's or IREE 3.13's.

MLIR's folders change from one LLVM to the next.  Triton's passes behave as the
LLVM of the Triton release passviz behaves as (``triton_version``); IREE's
passes behave as the LLVM that IREE 3.13 builds against, which is newer than
both modelled Triton releases' (it has Triton 3.9's folds) and no longer folds
``truncf(extf(x))``.  Each IREE pass's ``run`` takes that on with
``behaves_as_iree``; everything else is unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

from passviz.compilers.triton.version import TritonVersion, triton_version

P = ParamSpec("P")
R = TypeVar("R")

_IREE: ContextVar[bool] = ContextVar("passviz_iree_llvm", default=False)
"""Whether IREE 3.13's LLVM is behaved as here (context-local, not global)."""


def iree_llvm() -> bool:
    """Whether passviz behaves as IREE 3.13's LLVM here (inside an IREE pass)."""
    return _IREE.get()


def llvm_since(release: TritonVersion) -> bool:
    """Whether the LLVM behaved as has what the LLVM of Triton ``release`` has
    (IREE 3.13's LLVM has all that the modelled Triton releases' have)."""
    return _IREE.get() or triton_version() >= release


@contextmanager
def use_iree_llvm() -> Iterator[None]:
    """Behave as IREE 3.13's LLVM inside the ``with`` block."""
    token = _IREE.set(True)
    try:
        yield
    finally:
        _IREE.reset(token)


def behaves_as_iree(run: Callable[P, R]) -> Callable[P, R]:
    """``run`` (an IREE pass's), behaving as IREE 3.13's LLVM while it runs."""

    @functools.wraps(run)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        with use_iree_llvm():
            return run(*args, **kwargs)

    return wrapped
