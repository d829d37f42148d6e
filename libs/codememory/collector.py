"""The cyclic garbage collector set for the work at hand: a replay's bulk fold, and a serving process.

**Fewer collections while a replay folds: they took a third of its process's time.**

Why: measured with ``gc.callbacks`` in the replay of ``bench_replay_serving`` (100,000 events, 50,000
memories), the collector took 4.5 s of the replaying process's 14.4 s of CPU (and 9 of 23 s on a busy
machine): ~2,600 young collections, ~240 middle ones and ~21 full ones of 145-300 ms each. Per event
a replay allocates the decoded envelope, its 384-float vector (a tuple the collector walks item by
item before it untracks it), the point's payload and its lists; batches of 5,000 of them live across
several young collections, so they are promoted, and the growth of the old generation then triggers
full collections, each walking the whole heap (in a gateway, the live projections' objects too).

While ``fewer_collections`` is held, the heap as it was is frozen (``gc.freeze``: not walked until
the last holder leaves), a young collection runs every 100,000 tracked allocations instead of 700 (by
then reference counting has freed most of what a batch allocated, so each walks little) and the older
generations run about once a million events. Nothing goes uncollected: cycles made meanwhile (a replay
makes about two cyclic objects per event, asyncio's) wait in the young generations, and when the last
holder leaves the thresholds are restored and the heap unfrozen. Holders nest and may overlap (two
rebuilds at once): the first one in changes the collector, the last one out restores it. The process
is one, so the gateway's serving meets the same collector meanwhile: fewer pauses, each a bit longer.
In a serving gateway the heap is frozen already (``ServingCollector``): the replay then neither freezes
nor unfreezes it, what survives its middle collections is frozen too, and the gateway walks the whole
heap once the replay has swapped its projections in (``ServingCollector.thaw``).

The worker processes a replay starts (the ``ShardBuilder`` child, the ``TermsPool`` workers) hold it
for their whole life, which is one bulk fold's: the child collected 691 times (0.37 s of its ~8.7 s).
A module of its own, outside ``projection``: those workers import it and nothing else of ours.

**A serving process's heap frozen after each older collection** (``ServingCollector``). A gateway holds
a long-lived heap that keeps growing to its caps: the payload cache (20,000 payloads with their lists),
the text analyses recall caches per memory (frozensets). Recall makes no cyclic garbage
(``test_recaller.test_recall_leaves_no_cyclic_garbage``), yet every full collection walked that whole
heap, the pause landing in one recall: over gRPC, 2 full collections per 320 recalls, the longest pause
164 ms at 100,000 memories and 192 ms at a million (``bench_million.py``, RESULTS.md). So after each
collection of the middle or old generation the survivors are frozen (``gc.freeze``): later collections,
full ones too, walk only what was allocated since (the same servings: no full collection, the longest
pause 7 and 11 ms; p99 at a million 61.6 against 68.5 ms). What is frozen and later dies by reference
counting is freed as usual; only a cycle through frozen objects would wait, until ``thaw`` walks the
whole heap once (the gateway does every ``GC_THAW_S`` and after a replay). In ``codememory up`` every
service shares the gateway's process, and its collector.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["REPLAY_THRESHOLDS", "ServingCollector", "fewer_collections"]

REPLAY_THRESHOLDS = (100_000, 20, 10)  # young every 100,000 allocations; middle 20x, full 200x rarer

_lock = threading.Lock()
_holders = 0
_saved: tuple[tuple[int, int, int], bool] | None = None  # thresholds, and whether we froze the heap


@contextmanager
def fewer_collections(thresholds: tuple[int, int, int] = REPLAY_THRESHOLDS) -> Iterator[None]:
    """The collector as a bulk fold wants it, until the last holder leaves (see module)."""
    global _holders, _saved
    with _lock:
        _holders += 1
        if _holders == 1:
            threshold0, threshold1, threshold2 = gc.get_threshold()
            freeze = gc.isenabled() and gc.get_freeze_count() == 0  # someone else's freeze: kept
            _saved = ((threshold0, threshold1, threshold2), freeze)
            if freeze:
                gc.freeze()
            if threshold0:  # 0: automatic collection is off, and stays so
                wanted = zip(thresholds, (threshold0, threshold1, threshold2), strict=True)
                gc.set_threshold(*(max(mine, theirs) for mine, theirs in wanted))
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _saved is not None:
                (threshold0, threshold1, threshold2), froze = _saved
                _saved = None
                gc.set_threshold(threshold0, threshold1, threshold2)
                if froze:
                    gc.unfreeze()


class ServingCollector:
    """Survivors of every middle or full collection frozen, so none walks the long-lived heap again."""

    def __init__(self) -> None:
        self.active = False
        self.freezes = 0  # collections whose survivors were frozen
        self.thaws = 0  # walks of the whole heap (``thaw``)

    def start(self) -> ServingCollector:
        """Freeze the heap as it is (the process's startup: modules, models, shards) and every
        collection's survivors from now on; nothing when automatic collection is off."""
        if not self.active and gc.isenabled():
            gc.freeze()
            gc.callbacks.append(self._collected)
            self.active = True
        return self

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        if self.active and phase == "stop" and info["generation"] >= 1:
            gc.freeze()  # O(1): the generations' lists are moved to the permanent one
            self.freezes += 1

    def thaw(self) -> int:
        """Walk the whole heap once: a cycle through frozen objects is reclaimed. The objects found
        unreachable; the survivors are frozen again (also when another thread's collection was
        running and this one did not: the heap is not left unfrozen)."""
        if not self.active:
            return 0
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        self.thaws += 1
        return found

    def stop(self) -> None:
        """The default collector again: the callback removed, the heap unfrozen."""
        if self.active:
            gc.callbacks.remove(self._collected)
            gc.unfreeze()
            self.active = False
