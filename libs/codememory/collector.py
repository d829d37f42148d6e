"""Fewer cyclic garbage collections while a replay folds: they took a third of its process's time.

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

The worker processes a replay starts (the ``ShardBuilder`` child, the ``TermsPool`` workers) hold it
for their whole life, which is one bulk fold's: the child collected 691 times (0.37 s of its ~8.7 s).
A module of its own, outside ``projection``: those workers import it and nothing else of ours.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["REPLAY_THRESHOLDS", "fewer_collections"]

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
