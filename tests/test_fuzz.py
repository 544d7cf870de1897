"""A bounded, seeded fuzz campaign (``tests/fuzz.py``) ends with a clean answer for every input.

Every hand-made reproducer (deep nesting, huge literals and shapes, alias
bombs, pathological strings, invalid UTF-8, hostile trace files) runs first,
then mutations of the peer files and of traces recorded from them.  A case
fails on a traceback, a hang past the time limit, memory past the worker's
limit, or anything but one ``passviz: error:`` line on a non-zero exit.
"""

from __future__ import annotations

import pytest

from tests.fuzz import ACCEPTABLE, HOSTILE_MLIR, PEER, campaign, run_campaign, summary

CASES = 200
"""Enough for every hand-made case and a spread of mutations, in a few minutes on 2 cores."""


@pytest.mark.slow
def test_fuzz_campaign() -> None:
    if not PEER.is_dir():
        pytest.skip(f"the peer files are not at {PEER}")
    cases = campaign(CASES, seed=20261125)
    assert {c.name for c in cases} >= set(HOSTILE_MLIR)
    assert sum(c.kind == "trace" for c in cases) > CASES // 5  # traces were recorded and mutated
    outcomes = run_campaign(cases, time_limit=20.0)
    assert len(outcomes) == len(cases)
    bad = [o for o in outcomes if o.outcome not in ACCEPTABLE]
    assert not bad, summary(outcomes)
    assert any(o.outcome == "ok" for o in outcomes)  # not everything is refused
