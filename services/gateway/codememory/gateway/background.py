"""The gateway's background loops: the watchdog, centrality, HNSW optimisation, recorded accesses, the
collector's walk of the whole heap.

Kept apart from ``app.py``, which assembles the gateway and owns its start and stop: these are the
periodic jobs that run off the query path while it serves. Each loop outlives its own failures (they
are logged, the next round runs) and ends only when cancelled, even if nats-py lost the cancellation
(``bus.tasks``); ``stop`` reports the loops that did not end in time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import structlog

from codememory.bus.tasks import cancelling, stop_task
from codememory.collector import ServingCollector
from codememory.gateway.accesses import AccessRecorder
from codememory.gateway.codecore import CodeCore
from codememory.gateway.deadletters import LogDeadLetters
from codememory.gateway.optimizing import OptimizePolicy
from codememory.gateway.watchdog import Watchdog
from codememory.projection import LiveProjection

__all__ = ["ACCESS_FLUSH_S", "BackgroundLoops"]

log = structlog.get_logger(__name__)

ACCESS_FLUSH_S = 2.0  # how often what recall returned is appended to LOG (memories.recalled)


class BackgroundLoops:
    """The loops of one gateway, started once it serves and stopped before its shards close."""

    def __init__(
        self,
        watchdog: Watchdog,
        dead_letters: LogDeadLetters,
        code: CodeCore,
        accesses: AccessRecorder,
        optimizing: OptimizePolicy,
        live: LiveProjection[Any],
        replaying: Callable[[], bool],
        *,
        centrality_every_s: float,
        optimize_every_s: float,
        collector: ServingCollector | None = None,
        gc_thaw_s: float = 0.0,
    ) -> None:
        self.watchdog, self.dead_letters, self.code = watchdog, dead_letters, code
        self.accesses, self.optimizing, self.live = accesses, optimizing, live
        self._replaying = replaying  # a replay builds its fold's HNSW apart (``indexbuild``)
        self._centrality_every_s, self._optimize_every_s = centrality_every_s, optimize_every_s
        self._collector, self._gc_thaw_s = collector, gc_thaw_s
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        self._spawn(self._watch(), "gateway-watchdog")
        self._spawn(self._every(self._centrality_every_s, self._refresh_centrality), "gateway-centrality")
        self._spawn(self._every(self._optimize_every_s, self._optimize), "gateway-optimize")
        self._spawn(self._record_accesses(), "gateway-accesses")
        if self._collector is not None and self._collector.active and self._gc_thaw_s > 0:
            self._spawn(self._every(self._gc_thaw_s, self._thaw), "gateway-gc-thaw")

    async def stop(self) -> list[str]:
        """Cancel every loop until it ends; the names of those that did not end in time."""
        stopped = await asyncio.gather(*(stop_task(t) for t in self._tasks))
        return [t.get_name() for t, ok in zip(self._tasks, stopped, strict=True) if not ok]

    def _spawn(self, work: Coroutine[Any, Any, None], name: str) -> None:
        self._tasks.append(asyncio.create_task(work, name=name))

    async def _watch(self) -> None:
        while True:
            try:
                await self.watchdog.check()
            except Exception:
                if cancelling():
                    raise asyncio.CancelledError from None
                log.exception("watchdog_failed")
            try:
                await self.dead_letters.flush()  # poison that could not be parked when it was met
            except Exception as exc:
                if cancelling():
                    raise asyncio.CancelledError from None
                log.warning("dead_letters_pending", pending=self.dead_letters.pending, error=repr(exc))
            await asyncio.sleep(self.watchdog.every_s)

    @staticmethod
    async def _every(seconds: float, work: Callable[[], Awaitable[None]]) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                await work()
            except Exception:
                if cancelling():
                    raise asyncio.CancelledError from None
                log.exception("background_failed", task=work.__name__)

    async def _refresh_centrality(self) -> None:
        """Off the query path: PageRank and betweenness recomputed in a worker thread when a graph moved."""
        refreshed = await asyncio.to_thread(self.code.refresh_centrality)
        if refreshed:
            log.info("centrality_refreshed", graphs=refreshed)

    async def _thaw(self) -> None:
        """The whole heap walked once (a pause of a full collection, on the event loop as any would be);
        not while a replay folds: it walks the heap once it has swapped its projections in."""
        assert self._collector is not None
        if self._replaying():
            return
        t0 = time.perf_counter()
        found = self._collector.thaw()
        log.info("heap_walked", unreachable=found, seconds=round(time.perf_counter() - t0, 3))

    async def _record_accesses(self) -> None:
        """Every ``ACCESS_FLUSH_S``, or at once after a session context (``AccessRecorder.wake``)."""
        while True:
            await self.accesses.due(ACCESS_FLUSH_S)
            try:
                await self.accesses.flush()
            except Exception:
                if cancelling():
                    raise asyncio.CancelledError from None
                log.exception("background_failed", task="record_accesses")

    async def _optimize(self) -> None:
        """Off the query path: Qdrant Edge builds HNSW only when asked (``optimizing``)."""
        if self._replaying() or not self.optimizing.due(self.live):
            return  # a replay swaps in a fold whose HNSW it builds apart: not here too (``indexbuild``)
        seconds = await self.optimizing.optimize(self.live)
        log.info("index_optimized", projection_seq=self.live.seq, seconds=round(seconds, 3))
