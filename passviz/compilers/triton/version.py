"""Which Triton passviz's tt dialect and TTIR passes behave as: 3.6 or 3.9.

By default that is the installed Triton (``pip install triton``), so that
``make-ttir`` on a kernel's frontend IR gives what that Triton's
``make_ttir`` gives.  Without Triton, or for a version between the two,
passviz behaves as the newest modelled version not newer than it (3.6 when
none is installed).  ``use_triton_version`` picks another for a block of code.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from functools import cache
from importlib.metadata import PackageNotFoundError, version

TritonVersion = tuple[int, int]
"""A Triton version as (major, minor)."""

MODELLED: tuple[TritonVersion, ...] = ((3, 6), (3, 9))
"""The Triton versions whose passes and syntax passviz reproduces."""

_CHOSEN: ContextVar[TritonVersion | None] = ContextVar("passviz_triton_version", default=None)
"""The version ``use_triton_version`` picked, if any (context-local, not global)."""


def parse_triton_version(text: str) -> TritonVersion:
    """``"3.9.0"`` or ``"3.9"`` as the modelled version passviz behaves as; ValueError if unreadable."""
    parts = text.split(".")
    try:
        wanted = (int(parts[0]), int(parts[1]))
    except (IndexError, ValueError):
        raise ValueError(f"not a Triton version: {text!r} (expected MAJOR.MINOR, such as 3.9)") from None
    older = [modelled for modelled in MODELLED if modelled <= wanted]
    return older[-1] if older else MODELLED[0]


@cache
def installed_triton_version() -> TritonVersion:
    """The modelled version of the installed Triton; 3.6 without one.

    A cache, not state: the installed package does not change under a running process."""
    try:
        return parse_triton_version(version("triton"))
    except (PackageNotFoundError, ValueError):
        return MODELLED[0]


def triton_version() -> TritonVersion:
    """The Triton version passviz behaves as here."""
    return _CHOSEN.get() or installed_triton_version()


@contextmanager
def use_triton_version(chosen: TritonVersion | str) -> Iterator[TritonVersion]:
    """Behave as Triton ``chosen`` (``"3.9"`` or ``(3, 9)``) inside the ``with`` block."""
    resolved = (
        parse_triton_version(chosen)
        if isinstance(chosen, str)
        else parse_triton_version(".".join(map(str, chosen)))
    )
    token = _CHOSEN.set(resolved)
    try:
        yield resolved
    finally:
        _CHOSEN.reset(token)


SYNTAX_KEY = "triton"
"""The key of the Triton version in a trace's ``meta.syntax``."""


def recorded_syntax() -> dict[str, str]:
    """What a trace records of the syntax its IR texts are written in (its ``meta.syntax``)."""
    major, minor = triton_version()
    return {SYNTAX_KEY: f"{major}.{minor}"}


def use_recorded_syntax(syntax: Mapping[str, str] | None) -> contextlib.AbstractContextManager[object]:
    """Read and print IR as the trace whose ``meta.syntax`` is ``syntax`` was written; a trace
    that records none (written before passviz recorded it) reads as the installed Triton."""
    version = recorded_triton_version(syntax)
    return nullcontext() if version is None else use_triton_version(version)


def recorded_triton_version(syntax: Mapping[str, str] | None) -> TritonVersion | None:
    """The Triton version a trace's ``meta.syntax`` records; None when it records none, or (the
    trace is untrusted) something that is no version: the installed Triton then reads it."""
    text = (syntax or {}).get(SYNTAX_KEY)
    if text is None:
        return None
    try:
        return parse_triton_version(text)
    except ValueError:
        return None
