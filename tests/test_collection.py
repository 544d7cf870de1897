"""Recording collects garbage less often, an import not at all, and both leave the collector as they
found it."""

from __future__ import annotations

import gc
from collections.abc import Generator

import pytest

from passviz.ir.collection import RECORDING_THRESHOLD, collector_paused, fewer_collections
from passviz.pipelines import record


@pytest.fixture
def collector() -> Generator[None]:
    """The collector's settings, restored after the test whatever it does."""
    threshold, enabled = gc.get_threshold(), gc.isenabled()
    yield
    gc.set_threshold(*threshold)
    (gc.enable if enabled else gc.disable)()


@pytest.mark.usefixtures("collector")
def test_the_threshold_is_raised_inside_and_restored_after() -> None:
    gc.enable()
    gc.set_threshold(700, 10, 10)
    with fewer_collections():
        assert gc.get_threshold() == (RECORDING_THRESHOLD, 10, 10)
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.usefixtures("collector")
def test_a_failure_inside_restores_the_threshold() -> None:
    gc.set_threshold(700, 10, 10)
    with pytest.raises(RuntimeError), fewer_collections():
        raise RuntimeError("inside")
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.usefixtures("collector")
@pytest.mark.parametrize("threshold", [0, 50_000])
def test_a_collector_set_by_the_caller_is_left_alone(threshold: int) -> None:
    """Off (0) or already collecting less often than recording would."""
    gc.set_threshold(threshold, 10, 10)
    with fewer_collections():
        assert gc.get_threshold() == (threshold, 10, 10)
    assert gc.get_threshold() == (threshold, 10, 10)


@pytest.mark.usefixtures("collector")
def test_record_leaves_the_collector_as_it_was() -> None:
    gc.set_threshold(700, 10, 10)
    run = record("func.func @f() {\n  func.return\n}\n", "canonicalize")
    assert run.trace.status == "ok"
    assert gc.get_threshold() == (700, 10, 10)


@pytest.fixture
def unfrozen(collector: None) -> Generator[None]:
    """No object frozen to begin with (``passviz.cli.main``, which tests call, freezes what
    exists), none left frozen after."""
    gc.unfreeze()
    yield
    gc.unfreeze()


@pytest.mark.usefixtures("unfrozen")
def test_an_import_pauses_the_collector_and_leaves_what_it_made_to_the_oldest_generation() -> None:
    gc.enable()
    gc.collect()
    with collector_paused(promote=True):
        assert not gc.isenabled()
        made = [[index] for index in range(50_000)]
        assert gc.get_count()[0] >= 50_000
    assert gc.isenabled()
    # No young collection owed: what the block made is where survivors of collections go.
    assert gc.get_count()[0] < 100 and gc.get_freeze_count() == 0
    assert any(item is made for item in gc.get_objects(generation=2))


@pytest.mark.usefixtures("unfrozen")
def test_what_an_import_made_joins_the_callers_frozen_objects() -> None:
    gc.enable()
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    with collector_paused(promote=True):
        made = [[index] for index in range(1_000)]
    assert gc.isenabled() and gc.get_freeze_count() >= frozen + len(made)
    assert gc.get_count()[0] < 100
    assert not any(item is made for generation in range(3) for item in gc.get_objects(generation))


@pytest.mark.usefixtures("collector")
def test_a_paused_collector_stays_paused() -> None:
    gc.disable()
    with collector_paused(promote=True):
        pass
    assert not gc.isenabled()
