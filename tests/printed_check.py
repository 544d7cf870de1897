"""Every trace the suite records, read two ways at every step: the IR pane's text from the pure
data (``apply_delta`` then ``passviz.view.printed``) and the CLI's, from the IR replayed onto live
xDSL ops (``Replayer.text``).  The two must be the same text, names and aliases included.

``tests/conftest.py`` records each trace a test makes through ``passviz.pipelines.record`` and
checks it when the test ends.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re

from passviz.recording.initial import ensure_initial
from passviz.recording.replay import Replayer
from passviz.trace.apply import apply_delta, initial_state
from passviz.trace.model import ReplayError, Trace
from passviz.view.printed import printed_text

_RESOURCE = re.compile(r"dense_resource<([\w.$-]+)>")


def _resources_as_recorded(cli: str, pane: str) -> str:
    """``cli`` with each resource handle the replay's parse renamed (xDSL's handles are one table
    per process: a handle parsed again gets a ``_N`` suffix) written as the trace recorded it."""
    recorded = set(_RESOURCE.findall(pane))

    def original(match: re.Match[str]) -> str:
        handle = match.group(1)
        base = handle.rsplit("_", 1)[0]
        return f"dense_resource<{base}>" if handle not in recorded and base in recorded else match.group(0)

    return _RESOURCE.sub(original, cli)


def trace_digest(trace: Trace) -> str:
    """What ``trace`` holds, as a digest: tests record the same input through the same pipeline
    again and again, and one check of each trace is enough."""
    steps = [(s.kind, s.name, s.root, s.flag is not None, s.delta) for s in trace.steps]
    # What shapes the text, not where the input came from or which versions recorded it.
    shaping = {key: trace.meta.get(key) for key in ("syntax", "aliases", "dispatch")}
    blob = json.dumps([shaping, trace.initial, steps], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


WORK = 150_000
"""Steps times ops a trace is compared at in full; past it (the stress traces of thousands of
steps on thousand-op modules) at every n-th step and the last, n making it about this much work:
each comparison prints the whole module twice, and one such trace compared at every step took
two minutes of the suite."""


def text_mismatch(trace: Trace) -> str | None:
    """Where the pane's text of ``trace`` first differs from the CLI's, as a diff; None if never.

    The comparison stops at a step flagged for breaking the IR (a use of an erased value, an op
    inside its own region): the live IR after it holds what no trace state can.  A trace that
    live xDSL cannot replay or print (nesting past Python's recursion limit, an affine map past
    the parser's) has nothing to compare with; ``tests/test_replay.py`` covers replay itself.
    """
    if not trace.steps and trace.initial is None:
        return None
    state = initial_state(ensure_initial(trace))
    stride = max(1, -(-len(trace.steps) * len(state.ops) // WORK))
    try:
        replayer = Replayer(trace)
    except (ReplayError, RecursionError):
        return None
    for index in range(-1, len(trace.steps)):
        if index >= 0:
            if trace.steps[index].flag is not None:
                return None
            apply_delta(state, trace.steps[index].delta)
            if index % stride and index != len(trace.steps) - 1:
                continue
        try:
            if index >= 0:
                replayer.advance_to(index)
            cli = replayer.text()
        except (ReplayError, RecursionError):
            return None
        pane = printed_text(state, trace.meta)
        cli = _resources_as_recorded(cli, pane)
        if cli != pane:
            diff = difflib.unified_diff(cli.splitlines(True), pane.splitlines(True), "cli", "pane", n=2)
            return f"step {index} of {trace.meta.get('pipeline')}:\n" + "".join(list(diff)[:60])
    return None
