"""Fewer cyclic garbage collections, or none, while a module is parsed and recorded or a dump
imported.

Parsing and recording allocate tens of thousands of objects that live until
the run ends (ops, attributes, the shadow's records, step deltas) and free
almost none of them: CPython's default threshold (a young collection every
700 net allocations) keeps collecting, and promoting, objects that are all
still alive.  Collecting twenty times less often makes ``make-ttir`` on
Triton's tutorial kernels 5-15% faster; reference counting still frees what
is freed, and a cycle waits a little longer.
"""

from __future__ import annotations

import gc
from collections.abc import Generator
from contextlib import contextmanager

RECORDING_THRESHOLD = 20_000
"""Net allocations between young collections while recording (CPython's default is 700)."""


@contextmanager
def fewer_collections(threshold: int = RECORDING_THRESHOLD) -> Generator[None]:
    """Raise the young generation's threshold to ``threshold`` inside, as it was after.

    A collector that is disabled, or already set to collect less often, is left alone."""
    previous = gc.get_threshold()
    if not gc.isenabled() or previous[0] == 0 or previous[0] >= threshold:
        yield
        return
    gc.set_threshold(threshold, *previous[1:])
    try:
        yield
    finally:
        gc.set_threshold(*previous)


@contextmanager
def collector_paused(*, promote: bool = False) -> Generator[None]:
    """Python's cyclic garbage collector paused for the block's duration (as it was after), for a
    bulk of small allocations that the block frees itself (or that live on) and whose number
    would set off collections going through all of them, again and again.

    With ``promote``, what the block made and still holds goes on to the oldest generation as
    the collector comes back on, where it would be after surviving collections, without the
    young collection that would otherwise go through all of it at once (a twentieth of a second
    after a long import; ``gc.freeze`` and ``unfreeze`` move the generations' lists, no more):
    the next full collection sees it, as it would. Where the caller has frozen objects (passviz's
    command line freezes what its imports made, for its one command), what the block made joins
    them instead, and theirs stay frozen. For a block run once (an import), not in a loop:
    cycles made inside wait for a full collection."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if promote:
                frozen = gc.get_freeze_count()
                gc.freeze()
                if not frozen:
                    gc.unfreeze()
            gc.enable()
