"""A bounded, seeded fuzz campaign (``tests/fuzz.py``) ends with a clean answer for every input.

Every hand-made reproducer (deep nesting, huge literals and shapes, alias
bombs, pathological strings, invalid UTF-8, hostile trace files) runs first,
then the generated classes in turn: mutations of the peer files and of traces
recorded from them, type-confused trace records, huge or deep expressions,
late alias fan-out and gzip traces of a high compression ratio.  A case fails
on a traceback, a hang past the time limit, memory past the worker's limit, or
anything but one ``passviz: error:`` line on a non-zero exit.
"""

from __future__ import annotations

import gzip
import json
import random
from collections import Counter

import pytest

from tests.fuzz import (
    ACCEPTABLE,
    CLASSES,
    HOSTILE_MLIR,
    MIB,
    PEER,
    campaign,
    decompression_ratio,
    expression_depth,
    gzip_member,
    late_alias_fanout,
    run_campaign,
    summary,
    type_confused_trace,
)

CASES = 100
"""Enough for every hand-made case and ten or more of each generated class (a score of each
mutation), in about half a minute on 2 cores (``python -m tests.fuzz --cases 2400 --seed 1`` runs a longer campaign)."""

TRACE = (
    '{"record":"header","format":"passviz-trace","version":2,"meta":{"input":"in.mlir","pipeline":"cse",'
    '"passviz_version":"0.1.0","xdsl_version":"0.74.0","verify_each":"pass"},"initial":{"root":"o0","delta":'
    '{"blocks_created":[{"id":"b0","args":[]}],"ops_created":[{"id":"o0","name":"builtin.module",'
    '"operands":[],"results":[],"regions":["r0"]}],"region_blocks":{"r0":["b0"]},'
    '"texts":{"o0":"builtin.module {\\n}"}}}}\n'
    '{"index":0,"kind":"pass-begin","pass":"cse","pass_index":0,"name":"CommonSubexpressionElimination"}\n'
    '{"index":1,"kind":"pass-end","pass":"cse","pass_index":0,"name":"CommonSubexpressionElimination"}\n'
    '{"record":"end","status":"ok","steps":2}\n'
)
"""A small trace in the shape passviz records, for the generators that start from one."""


def test_gzip_member_inflates_to_its_parts() -> None:
    member = gzip_member([(b"head\n", 1), (b"\n" * MIB, 5), (b"tail", 2)])
    assert gzip.decompress(member) == b"head\n" + b"\n" * (5 * MIB) + b"tailtail"
    assert len(member) < 8 << 10  # a thousandfold: the ratio deflate allows


def test_generators_are_seeded() -> None:
    def draw(seed: int) -> list[tuple[str, str]]:
        rng = random.Random(seed)
        made = [type_confused_trace(TRACE, rng) for _ in range(20)]
        made += [expression_depth(rng) for _ in range(10)]
        made += [late_alias_fanout(rng) for _ in range(10)]
        made += [decompression_ratio(TRACE, rng) for _ in range(3)]
        return made

    assert draw(7) == draw(7)
    assert draw(7) != draw(8)


def test_type_confused_records_are_json_lines() -> None:
    rng = random.Random(3)
    variants = set[str]()
    for _ in range(200):
        text, variant = type_confused_trace(TRACE, rng)
        text.encode("ascii")  # lone surrogates travel as JSON escapes
        assert all(json.loads(line) is not None for line in text.splitlines())
        variants.add(variant)
    assert any(v.startswith("step.kind=list") for v in variants)
    assert any(v.startswith("surrogate:") for v in variants)
    assert any("-without-" in v for v in variants)  # an object missing a required key


@pytest.mark.slow
def test_fuzz_campaign() -> None:
    if not PEER.is_dir():
        pytest.skip(f"the peer files are not at {PEER}")
    cases = campaign(CASES, seed=20261125)
    names = Counter(c.name for c in cases)
    assert set(names) >= set(HOSTILE_MLIR)
    assert set(names) >= set(CLASSES)  # every generated class ...
    assert min(names[n] for n in CLASSES) >= CASES // 10  # ... a score of times or more
    assert sum(c.kind == "trace" for c in cases) > CASES // 5  # traces were recorded and mutated
    outcomes = run_campaign(cases, time_limit=20.0)
    assert len(outcomes) == len(cases)
    bad = [o for o in outcomes if o.outcome not in ACCEPTABLE]
    assert not bad, summary(outcomes)
    assert any(o.outcome == "ok" for o in outcomes)  # not everything is refused
