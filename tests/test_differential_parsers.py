"""passviz refuses invalid IR where real MLIR refuses it, and accepts what it accepts.

A seeded differential fuzz run (``tests/differential.py``): the peer test files' chunks and the
tests' own IR that the oracle accepts, unchanged, then 1,000 seeded mutations of them, each given
to passviz (parsed and verified as ``passviz trace`` reads its input) and to the oracle: Triton's
own parser and verifier for Triton IR, ``iree-opt`` 3.13 for the rest.  The verdicts agree on
every input, and where both refuse, on the line.  The disagreements where passviz is deliberately
stricter (a resource limit) are listed in ``tests.differential.ALLOWED`` with the reason, and
printed; so are the seeds written in ops passviz does not model (left out).

By hand: ``python -m tests.differential --oracle iree --count 3000 --seed 7`` prints the
disagreements of a longer run.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.conftest import iree_opt_missing, need
from tests.differential import MUTATIONS, Outcome, allowed, campaign, compare, report, seed_pool

MUTATED = 1_000
"""Mutated inputs per oracle (the seeds unchanged come on top)."""

SEED = 0
"""The generator's seed: the same inputs on every run."""


def _run(oracle: str, capsys: pytest.CaptureFixture[str]) -> None:
    pool = seed_pool(oracle)
    outcomes = compare(campaign(pool, MUTATED, SEED), oracle)
    with capsys.disabled():
        print(f"\n{oracle}: {len(pool.seeds)} seeds, {len(outcomes)} inputs")
        for seed, verdict in pool.unmodelled:
            print(f"  left out, written in ops passviz does not model: {seed.name}: {verdict.message}")
        for line in report(outcomes):
            print("  " + line.replace("\n", "\n  "))
    mutated = Counter(o.input.mutation for o in outcomes if o.input.mutation != "unchanged")
    assert sum(mutated.values()) >= MUTATED
    assert set(mutated) == set(MUTATIONS), f"classes that found no seed: {set(MUTATIONS) - set(mutated)}"
    crashed = [o for o in outcomes if o.oracle_crashed]
    assert len(crashed) <= len(outcomes) // 100, [o.describe() for o in crashed]
    disagreements = [o for o in outcomes if not o.agrees and not o.oracle_crashed and allowed(o) is None]
    assert not disagreements, _described(disagreements)


def _described(outcomes: list[Outcome]) -> str:
    shown = "\n".join(o.describe() for o in outcomes[:12])
    more = f"\n... and {len(outcomes) - 12} more" if len(outcomes) > 12 else ""
    return f"{len(outcomes)} inputs where passviz and the oracle disagree:\n{shown}{more}"


@pytest.mark.triton
def test_triton_reads_every_input_as_passviz_does(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.triton_oracle import triton_missing

    need(triton_missing())
    _run("triton", capsys)


@pytest.mark.iree
def test_iree_opt_reads_every_input_as_passviz_does(capsys: pytest.CaptureFixture[str]) -> None:
    need(iree_opt_missing())
    _run("iree", capsys)
