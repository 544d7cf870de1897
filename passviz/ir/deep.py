"""Running work on deeply nested IR: a big stack and a higher recursion limit, for one call.

xDSL parses, verifies, walks and prints nested regions recursively, a few
Python frames per level, so Python's default limit of 1,000 frames stops at
about 160 nested regions.  ``call_deep`` runs a function in a thread whose
stack is large enough for ``RECURSION_LIMIT`` frames, with that limit in
force only while the function runs, and in the caller's context (its context
variables: the Triton version chosen, say).  ``MLIRParser`` refuses input
that nests deeper than ``MAX_NESTING`` with a located error, so that no
command on accepted IR reaches the limit.
"""

from __future__ import annotations

import contextvars
import ctypes
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

MAX_NESTING = 2_500
"""The deepest nesting that passviz reads: regions, attributes and types
inside one another, each one level (1,000 nested regions are 1,000 levels).
Deeper input is refused where it goes past the limit."""

RECURSION_LIMIT = 150_000
"""The recursion limit while ``call_deep`` runs: about 15 frames for each
of ``MAX_NESTING`` levels, with room for the passes' own recursion."""

_SIGNAL_POLL = 0.1
"""Seconds between the waiting thread's looks for a Ctrl-C it has not yet handled."""

STACK_SIZE = 1 << 30
"""The worker thread's stack in bytes: reserved address space, used as needed."""


def call_deep(function: Callable[[], T]) -> T:
    """``function()``, run where recursion ``RECURSION_LIMIT`` deep fits.

    Ctrl-C in the waiting thread is passed on to the worker as
    ``KeyboardInterrupt``, so the function can handle it as if it ran in the
    main thread.  Calls in several threads at once each get the raised limit.
    """
    outcome: list[T] = []
    failure: list[BaseException] = []
    done = threading.Event()
    context = contextvars.copy_context()

    def run() -> None:
        try:
            outcome.append(context.run(function))
        except BaseException as exc:  # handed to the caller below
            failure.append(exc)
        finally:
            done.set()

    worker = threading.Thread(target=run, name="passviz-deep", daemon=True)
    with _DEEP.limit_raised():
        interrupted = _DEEP.start(worker)
        _wait(worker, done, interrupted)
    if failure:
        raise failure[0].with_traceback(failure[0].__traceback__)
    return outcome[0]


class _DeepThreads:
    """The process-wide settings ``call_deep`` changes while its workers run.

    The recursion limit and the stack size of new threads are one for the
    whole process: two calls in two threads that each saved and restored them
    could leave the limit low under a running worker (a ``RecursionError`` on
    accepted IR), or high for good (a crash past the main thread's stack
    instead of a ``RecursionError``).  So they are changed under one lock, and
    the limit restored when the last worker is done."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        """How many ``call_deep`` calls are under way."""
        self._saved_limit = 0
        """The recursion limit before the first of them."""

    @contextmanager
    def limit_raised(self) -> Iterator[None]:
        """The recursion limit at least ``RECURSION_LIMIT`` inside; as it was before the first
        such block once the last ends."""
        with self._lock:
            if self._running == 0:
                self._saved_limit = sys.getrecursionlimit()
                sys.setrecursionlimit(max(self._saved_limit, RECURSION_LIMIT))
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                if self._running == 0:
                    sys.setrecursionlimit(self._saved_limit)

    def start(self, worker: threading.Thread) -> bool:
        """Start ``worker`` on a ``STACK_SIZE`` stack; True if Ctrl-C came while it started
        (it started all the same)."""
        with self._lock:
            old_size = threading.stack_size(STACK_SIZE)
            try:
                worker.start()
            except KeyboardInterrupt:  # passed on to the worker like any other
                return True
            finally:
                threading.stack_size(old_size)
        return False


_DEEP = _DeepThreads()
"""The one keeper of the process's recursion limit and thread stack size (themselves global)."""


def _wait(worker: threading.Thread, done: threading.Event, interrupted: bool) -> None:
    """Wait for ``worker`` to set ``done``, passing each Ctrl-C on to it
    (and one at once if ``interrupted``).

    ``Thread.join`` is no way to wait here: interrupted, Python 3.11's join
    marks the thread as stopped, and the next join returns at once while the
    thread still runs.  An ``Event`` can be waited on again."""
    while True:
        try:
            if interrupted:
                interrupted = False
                _raise_in(worker, done, KeyboardInterrupt)
            # A signal that lands just before the wait blocks would not end
            # an untimed wait: the handler runs when the wait times out.
            while not done.wait(_SIGNAL_POLL):
                pass
            break
        except KeyboardInterrupt:
            interrupted = True
    worker.join()


def _raise_in(worker: threading.Thread, done: threading.Event, exception: type[BaseException]) -> None:
    """Raise ``exception`` in ``worker`` at its next bytecode (CPython's only way to do so),
    unless it has done its work (then it is too late to stop anything)."""
    while worker.ident is None and not done.is_set():  # still starting
        done.wait(0.001)
    if done.is_set() or worker.ident is None:
        return
    set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
    set_async_exc(ctypes.c_ulong(worker.ident), ctypes.py_object(exception))
