"""Which LLVM passviz's MLIR dialects, folders and patterns behave as.

MLIR changes from one LLVM to the next, and each compiler passviz models builds against its own.
passviz models two snapshots, named by the Triton releases that bundle them (3.6 and 3.9), and
IREE 3.13's, which is newer than both (it has Triton 3.9's folds) and no longer folds
``truncf(extf(x))``.

By default the snapshot is that of the installed Triton (``pip install triton``), so that its
passes give what that Triton gives; without Triton, or for a release between the two, the newest
modelled snapshot not newer than it (3.6 when none is installed).  ``use_snapshot`` picks another
for a block of code; each IREE pass's ``run`` behaves as IREE's LLVM with ``behaves_as_iree``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

Snapshot = tuple[int, int]
"""An LLVM snapshot, named by the Triton release (major, minor) that bundles it."""

MODELLED: tuple[Snapshot, ...] = ((3, 6), (3, 9))
"""The snapshots passviz reproduces: those of Triton 3.6 and 3.9, whose passes and syntax passviz
models."""

_CHOSEN: ContextVar[Snapshot | None] = ContextVar("passviz_llvm_snapshot", default=None)
"""The version ``use_snapshot`` picked, if any (context-local, not global)."""


def parse_snapshot(text: str) -> Snapshot:
    """``"3.9.0"`` or ``"3.9"`` as the modelled version passviz behaves as; ValueError if unreadable."""
    parts = text.split(".")
    try:
        wanted = (int(parts[0]), int(parts[1]))
    except (IndexError, ValueError):
        raise ValueError(f"not a Triton version: {text!r} (expected MAJOR.MINOR, such as 3.9)") from None
    older = [modelled for modelled in MODELLED if modelled <= wanted]
    return older[-1] if older else MODELLED[0]


@cache
def installed_snapshot() -> Snapshot:
    """The modelled version of the installed Triton; 3.6 without one.

    A cache, not state: the installed package does not change under a running process."""
    try:
        return parse_snapshot(version("triton"))
    except (PackageNotFoundError, ValueError):
        return MODELLED[0]


def llvm_snapshot() -> Snapshot:
    """The Triton version passviz behaves as here."""
    return _CHOSEN.get() or installed_snapshot()


@contextmanager
def use_snapshot(chosen: Snapshot | str) -> Iterator[Snapshot]:
    """Behave as Triton ``chosen`` (``"3.9"`` or ``(3, 9)``) inside the ``with`` block."""
    resolved = (
        parse_snapshot(chosen) if isinstance(chosen, str) else parse_snapshot(".".join(map(str, chosen)))
    )
    token = _CHOSEN.set(resolved)
    try:
        yield resolved
    finally:
        _CHOSEN.reset(token)


_IREE: ContextVar[bool] = ContextVar("passviz_iree_llvm", default=False)
"""Whether IREE 3.13's LLVM is behaved as here (context-local, not global)."""


def iree_llvm() -> bool:
    """Whether passviz behaves as IREE 3.13's LLVM here (inside an IREE pass)."""
    return _IREE.get()


def llvm_since(release: Snapshot) -> bool:
    """Whether the LLVM behaved as has what snapshot ``release`` has (IREE 3.13's LLVM has all
    that the modelled Triton releases' have)."""
    return _IREE.get() or llvm_snapshot() >= release


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
