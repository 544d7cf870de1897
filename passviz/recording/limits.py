"""The limits of a recorded pass: its time, its iterations and rewrites, and how a pass that
hits one is described (the patterns that kept firing)."""

from __future__ import annotations

import ctypes
import signal
import threading
from collections.abc import Generator
from contextlib import contextmanager

from passviz.recording.interface import PassTimeout

DEFAULT_MAX_ITERATIONS = 10
"""Iterations of xDSL's walker before a traced pass counts as not converging."""


@contextmanager
def pass_time_limit(timeout: float | None) -> Generator[None]:
    """Bound the pass run inside by ``timeout`` seconds (None: no bound).

    Step boundaries check the time; a pass that makes no steps is stopped
    by an alarm in the main thread of a POSIX process, and elsewhere (the
    command line records in a worker thread) by a timer that raises
    ``PassTimeout`` in the recording thread at its next bytecode."""
    if timeout is None:
        yield
        return
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        with _timer(timeout + 0.05):
            yield
        return

    def expire(signum: int, frame: object) -> None:
        raise PassTimeout(f"the pass ran past the {seconds(timeout)} timeout")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, timeout + 0.05)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def nonconvergence_message(
    limit: str, recent: list[str], *, rewrites: bool, running: str | None, done: int
) -> tuple[str, list[str]]:
    """What a pass that hit ``limit`` is told, and the cycle of patterns it shows: ``recent`` are
    the last rewrites' names, ``rewrites`` whether the limit counts rewrites (else it is a timeout,
    stopped in pattern ``running`` after ``done`` rewrites)."""
    repeating = _repeating(recent)
    cycle = _find_cycle(recent) if rewrites else repeating
    # A cycle is shown closing on itself; the last rewrites, when there is none, as they came.
    shown = " → ".join([*repeating, repeating[0]] if repeating else cycle) or "none"
    if rewrites:
        return f"greedy rewrite did not converge within {limit}; patterns kept firing: {shown}", cycle
    where = f" in pattern {running}" if running is not None else ""
    message = f"the pass did not finish within {limit}: stopped{where} after {count(done, 'rewrite')}"
    if cycle:
        message += f"; patterns kept firing: {shown}"
    return message, cycle


def _find_cycle(names: list[str]) -> list[str]:
    """The shortest period that the tail of ``names`` repeats (three times or more), else its last four."""
    return _repeating(names) or names[-4:]


def _repeating(names: list[str]) -> list[str]:
    """The shortest period that the tail of ``names`` repeats three times or more ([] if none)."""
    for period in range(1, 17):
        if len(names) < 3 * period:
            break
        tail = names[-3 * period :]
        if all(tail[i] == tail[i % period] for i in range(len(tail))):
            return tail[:period]
    return []


@contextmanager
def _timer(seconds: float) -> Generator[None]:
    """Raise ``PassTimeout`` in this thread if the context is still open after ``seconds``."""
    target = threading.get_ident()
    lock = threading.Lock()
    open_ = [True]

    def expire() -> None:
        with lock:  # never after the context closed
            if open_[0]:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(
                    ctypes.c_ulong(target), ctypes.py_object(PassTimeout)
                )

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            open_[0] = False
        timer.cancel()


def count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def seconds(value: float | None) -> str:
    return f"{value:g} s" if value is not None else "no"
