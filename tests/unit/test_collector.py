"""``fewer_collections``: the collector's thresholds raised and the heap frozen while held, restored after."""

from __future__ import annotations

import gc

import pytest

from codememory.collector import REPLAY_THRESHOLDS, fewer_collections

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
