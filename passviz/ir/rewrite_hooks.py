"""Hooks into xDSL's rewrite machinery, so that a plain pass is observed rewrite by rewrite.

xDSL has no global rewrite observer: its ``PatternRewriteWalker``, its
``GreedyRewritePatternApplier`` and the rewriters a pass builds take their
listeners from the pass itself, and ``Rewriter``'s static methods notify no
one.  This module stands in for such an upstream hook (MLIR's
``RewriterBase::Listener`` attached to every rewriter of a pass, plus its
``PatternApplicator`` callbacks): while ``observing(observer)`` is active, it
wraps

- ``PatternRewriteWalker.rewrite_region`` (so ``rewrite_module`` too),
- ``GreedyRewritePatternApplier.match_and_rewrite``,
- ``PatternRewriter.__init__`` (rewriters a pass builds by itself),
- ``Rewriter``'s static editing methods, called from outside xDSL's own
  rewriters,

and hands each call to the observer.  The hooks are installed once, when the
first ``observing`` context opens in any thread, and the originals put back
when the last one closes: contexts nest, recordings in several threads each
see their own rewrites (the observer is context-local), and nothing stays
patched afterwards.  The patches are made through ``passviz.ir.xdsl_compat.patch``, whose
``PATCHES`` lists each method replaced here.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import FrameType
from typing import Any, Protocol

from xdsl.ir import Operation, Region
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import Rewriter

from passviz.ir.xdsl_compat import REWRITER_EDITS, XDSL_REWRITER_MODULES, patch


class RewriteObserver(Protocol):
    """What the hooks report to: each method runs the original itself, through ``run``."""

    def rewrite_region(self, walker: PatternRewriteWalker, region: Region, run: Callable[[], bool]) -> bool:
        """A walker starts on ``region``; ``run()`` walks it."""
        ...

    def apply_patterns(
        self, applier: GreedyRewritePatternApplier, op: Operation, run: Callable[[], None]
    ) -> None:
        """An applier tries its patterns on ``op``; ``run()`` tries them."""
        ...

    def rewriter_created(self, rewriter: PatternRewriter, internal: bool) -> None:
        """A rewriter was built: by xDSL's walker (``internal``) or by a pass itself."""
        ...

    def direct_edit(self, method: str, internal: bool = False) -> None:
        """A pass is about to call ``Rewriter.<method>``: itself, or (``internal``) through
        an xDSL rewriter or builder, which announces the edit to its listeners afterwards."""
        ...


_ACTIVE: ContextVar[RewriteObserver | None] = ContextVar("passviz_rewrite_observer", default=None)
"""The observer of the innermost ``observing`` context, if any."""


def active_observer() -> RewriteObserver | None:
    """The observer hooks report to now (None outside ``observing``)."""
    return _ACTIVE.get()


class _Installation:
    """The hooks' installation into xDSL's classes, shared by every ``observing`` context.

    Patching a class is process-wide, so this is the one piece of shared state
    the hooks need: how many contexts are open, and what to put back after the
    last.  A context that saved and restored the patches itself would, with two
    threads, unpatch xDSL under the other thread's recording and then restore
    the first thread's hooks for good."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users = 0
        self._saved: list[tuple[type, str, Any]] = []

    def acquire(self) -> None:
        """One more open context: install the hooks if it is the first."""
        with self._lock:
            if self._users == 0:
                self._saved = _patch()
            self._users += 1

    def release(self) -> None:
        """One context fewer: put xDSL's originals back after the last."""
        with self._lock:
            self._users -= 1
            if self._users == 0:
                for owner, name, original in reversed(self._saved):
                    patch(owner, name, original)
                self._saved = []

    @property
    def installed(self) -> bool:
        """Whether xDSL is patched now."""
        return self._users > 0


_INSTALLATION = _Installation()


def hooks_installed() -> bool:
    """Whether the hooks are in xDSL's classes now (only while some ``observing`` context is open)."""
    return _INSTALLATION.installed


@contextmanager
def observing(observer: RewriteObserver) -> Generator[None]:
    """Report xDSL's rewrites in this context (this thread) to ``observer`` while the context is active."""
    _INSTALLATION.acquire()
    token = _ACTIVE.set(observer)
    try:
        yield
    finally:
        _ACTIVE.reset(token)
        _INSTALLATION.release()


def _patch() -> list[tuple[type, str, Any]]:
    """Install the hooks; return what they replaced, to be put back."""
    saved: list[tuple[type, str, Any]] = []

    def replace(owner: type, name: str, hook: Any) -> None:
        saved.append((owner, name, patch(owner, name, hook)))

    original_walk = PatternRewriteWalker.rewrite_region

    def rewrite_region(self: PatternRewriteWalker, region: Region) -> bool:
        observer = _ACTIVE.get()
        if observer is None:
            return original_walk(self, region)
        return observer.rewrite_region(self, region, lambda: original_walk(self, region))

    original_apply = GreedyRewritePatternApplier.match_and_rewrite

    def match_and_rewrite(
        self: GreedyRewritePatternApplier, op: Operation, rewriter: PatternRewriter
    ) -> None:
        observer = _ACTIVE.get()
        if observer is None:
            return original_apply(self, op, rewriter)
        observer.apply_patterns(self, op, lambda: original_apply(self, op, rewriter))

    original_init = PatternRewriter.__init__

    def init(self: PatternRewriter, insert_point: Any) -> None:
        original_init(self, insert_point)
        observer = _ACTIVE.get()
        if observer is not None:
            observer.rewriter_created(self, _caller_module(2) in XDSL_REWRITER_MODULES)

    replace(PatternRewriteWalker, "rewrite_region", rewrite_region)
    replace(GreedyRewritePatternApplier, "match_and_rewrite", match_and_rewrite)
    replace(PatternRewriter, "__init__", init)
    for name in REWRITER_EDITS:
        replace(Rewriter, name, staticmethod(_direct(name, getattr(Rewriter, name))))
    return saved


def _direct(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    def hook(*args: Any, **kwargs: Any) -> Any:
        observer = _ACTIVE.get()
        if observer is not None:
            # Internal calls too: they come before the edit, where a new step must begin,
            # and a rewriter's listeners hear of it only after.
            observer.direct_edit(name, _caller_module(2) in XDSL_REWRITER_MODULES)
        return original(*args, **kwargs)

    hook.__name__ = name
    hook.__doc__ = original.__doc__
    return hook


def _caller_module(depth: int) -> str | None:
    """The module of the function ``depth`` frames up (0: this one; 1: its caller)."""
    frame = sys._getframe(depth)  # pyright: ignore[reportPrivateUsage]
    return frame.f_globals.get("__name__")


def calling_pattern(limit: int = 64) -> tuple[RewritePattern, Operation | None, FrameType] | None:
    """The innermost ``match_and_rewrite`` on the call stack: its pattern, its op and its frame.

    This is how an edit made outside any walker is attributed to the pattern
    making it.  ``limit`` bounds how many frames are looked at."""
    for frame in _frames(sys._getframe(1), limit):  # pyright: ignore[reportPrivateUsage]
        if frame.f_code.co_name != "match_and_rewrite":
            continue
        pattern = frame.f_locals.get("self")
        if isinstance(pattern, RewritePattern) and not isinstance(pattern, GreedyRewritePatternApplier):
            names = frame.f_code.co_varnames
            op = frame.f_locals.get(names[1]) if frame.f_code.co_argcount > 1 else None
            return pattern, op if isinstance(op, Operation) else None, frame
    return None


def _frames(frame: FrameType | None, limit: int) -> Iterator[FrameType]:
    while frame is not None and limit > 0:
        yield frame
        frame = frame.f_back
        limit -= 1
