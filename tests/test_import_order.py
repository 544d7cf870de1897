"""Which ops of a block stay where they were across a pass: the stretches difflib's
``SequenceMatcher`` matches between the block's two orders (its oracle here), found from the runs
the two orders share."""

from __future__ import annotations

import difflib
import random

import pytest

from passviz.importer.delta import kept_in_order


def _moved(items: list[str], kind: int, rnd: random.Random) -> list[str]:
    """``items`` reordered as passes reorder a block: some ops moved one by one, some hoisted to
    the front, stretches swapped, all of it reversed or shuffled."""
    after = items[:]
    if kind == 0:
        for _ in range(rnd.randint(1, 4)):
            item = after.pop(rnd.randrange(len(after)))
            after.insert(rnd.randrange(len(after) + 1), item)
    elif kind == 1:
        hoisted = [item for item in after if rnd.random() < 0.2]
        after = hoisted + [item for item in after if item not in hoisted]
    elif kind == 2:
        cuts = sorted(rnd.sample(range(len(after) + 1), min(3, len(after) + 1)))
        parts = [after[start:end] for start, end in zip([0, *cuts], [*cuts, len(after)], strict=True)]
        rnd.shuffle(parts)
        after = [item for part in parts for item in part]
    elif kind == 3:
        after.reverse()
    else:
        rnd.shuffle(after)
    return after


@pytest.mark.parametrize("seed", range(8))
def test_the_stretches_kept_are_difflibs(seed: int) -> None:
    rnd = random.Random(seed)
    for _ in range(300):
        before = [f"o{index}" for index in range(rnd.choice([1, 2, 3, 5, 8, 20, 60, 200]))]
        after = _moved(before, rnd.randrange(5), rnd)
        matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
        expected = sorted((start, size) for _, start, size in matcher.get_matching_blocks() if size)
        assert sorted(kept_in_order(before, after)) == expected, (before, after)
