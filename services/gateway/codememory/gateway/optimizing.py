"""When the gateway asks Qdrant Edge to optimize the memory shard: every few thousand events, and while
a bulk import writes, only each time the shard has doubled.

Why: Edge runs no optimizer of its own; ``optimize`` merges segments and builds the HNSW, holding the
GIL and the projection's lock while it works, and each call rewrites segments about as large as the
shard. Asked every 2,000 events (looked at every 5 s), an import of 50,000 memories optimized 13 times,
each longer than the one before: 16% of the time the gateway's process held the GIL (py-spy), every
fold and append of the import waiting meanwhile. While an import writes (``LiveProjection.
bulk_writers``), the next optimize waits until the events since the last one reach the events before
it: each costs about what the shard holds, so together they cost about twice the shard, and searches
meanwhile scan at most about half of it unindexed (exact, only slower). Once no import writes, the
usual rule applies again, and the rest is optimized at the next look.
"""

from __future__ import annotations

import time
from typing import Any

from codememory.projection import LiveProjection, in_thread


class OptimizePolicy:
    """Whether an optimize is due, and the optimize itself (under the projection's lock)."""

    def __init__(self, after_events: int) -> None:
        self.after_events = after_events
        self.optimized_seq = 0  # the projection's position at the last optimize

    def due(self, live: LiveProjection[Any]) -> bool:
        wanted = self.after_events
        if live.bulk_writers:
            wanted = max(wanted, self.optimized_seq)
        return live.unoptimized >= wanted

    async def optimize(self, live: LiveProjection[Any]) -> float:
        """Optimize now; returns the seconds it took (a stop waits for it, then closes the shard)."""
        async with live.lock:  # applying waits, reads do not
            live.unoptimized = 0
            started = time.perf_counter()
            await in_thread(live.projection.index.optimize)
            self.optimized_seq = live.seq
            return time.perf_counter() - started


__all__ = ["OptimizePolicy"]
