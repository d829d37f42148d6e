"""``fewer_collections``: the collector's thresholds raised and the heap frozen while held, restored after."""

from __future__ import annotations

import gc

import pytest

from codememory.collector import REPLAY_THRESHOLDS, ServingCollector, fewer_collections

pytestmark = pytest.mark.usefixtures("ordinary_collector")


def test_while_held_collections_are_rarer_and_the_heap_is_frozen_then_all_is_as_before() -> None:
    kept = [object() for _ in range(10)]  # noqa: F841 - tracked objects that exist before
    with fewer_collections():
        assert gc.get_threshold() == REPLAY_THRESHOLDS
        assert gc.get_freeze_count() > 0
        made = [[i] for i in range(1000)]
        assert all(gc.is_tracked(m) for m in made)
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0
    loop: list[object] = []
    loop.append(loop)  # a cycle made after is collected as ever
    del loop
    assert gc.collect() >= 1


def test_overlapping_holders_restore_once_the_last_one_leaves() -> None:
    first, second = fewer_collections(), fewer_collections()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert gc.get_threshold() == REPLAY_THRESHOLDS  # the second still folds
    assert gc.get_freeze_count() > 0
    second.__exit__(None, None, None)
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


def test_a_freeze_made_before_is_kept_and_higher_thresholds_are_not_lowered() -> None:
    gc.set_threshold(200_000, 10, 10)
    gc.freeze()
    frozen = gc.get_freeze_count()
    with fewer_collections():
        assert gc.get_threshold() == (200_000, 20, 10)
    # not unfrozen (that would leave 0): it was not ours; a frozen object freed meanwhile lowers the count
    assert gc.get_freeze_count() > frozen // 2
    assert gc.get_threshold() == (200_000, 10, 10)


def test_an_error_in_the_fold_still_restores_the_collector() -> None:
    with pytest.raises(RuntimeError), fewer_collections():
        raise RuntimeError("the fold failed")
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


class _Node:
    """A tracked object that can be part of a cycle, and be watched (weakref) for being freed."""

    def __init__(self) -> None:
        self.other: object = None


def test_a_serving_collector_freezes_what_survives_and_a_thaw_reclaims_frozen_cycles() -> None:
    import weakref

    collector = ServingCollector().start()
    try:
        assert collector.active and gc.get_freeze_count() > 0  # the startup heap
        long_lived = [[i] for i in range(2000)]
        a, b = _Node(), _Node()
        a.other, b.other = b, a  # a cycle, alive when the next collections run
        gone = weakref.ref(a)
        gc.collect(1)  # a middle collection: its survivors are frozen
        assert collector.freezes >= 1
        assert all(gc.is_tracked(x) for x in long_lived)
        young = gc.get_objects(generation=0) + gc.get_objects(generation=1) + gc.get_objects(generation=2)
        assert not any(x is long_lived for x in young)  # frozen: no collection walks it
        del a, b  # the cycle becomes garbage while frozen: no collection can see it
        gc.collect(2)
        assert gone() is not None
        assert collector.thaw() >= 2 and collector.thaws == 1  # the whole heap walked: the cycle is reclaimed
        assert gone() is None
        assert gc.get_freeze_count() > 0  # and the survivors frozen again
        loop: list[object] = []
        loop.append(loop)  # a cycle made and dropped between collections is collected as ever
        del loop
        assert gc.collect(0) >= 1
    finally:
        collector.stop()
    assert not collector.active and gc.get_freeze_count() == 0
    assert collector._collected not in gc.callbacks


def test_a_serving_collector_leaves_a_disabled_collector_alone() -> None:
    gc.disable()
    try:
        collector = ServingCollector().start()
        assert not collector.active and gc.get_freeze_count() == 0 and collector.thaw() == 0
        collector.stop()
    finally:
        gc.enable()
