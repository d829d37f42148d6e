"""Runs cycles: on request and on a schedule, one at a time per tenant, and appends their events.

A requested cycle first lets the view catch up with LOG as it is now and waits (``wait_s`` at most)
for the vectors of new memories, so ``codememory consolidate`` right after a store sees that store.
The cycle reads the view under the projection's lock (the follower folds nothing meanwhile), its
events go to LOG with ids derived from their inputs, and the view folds them before the next cycle
of the tenant starts. No NATS here: LOG comes in as an ``EventLog``.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable

import msgspec
import structlog

from codememory.consolidate.cycle import run_cycle
from codememory.consolidate.output import CycleOutput
from codememory.consolidate.phrasing import Extracted, Phraser
from codememory.consolidate.policy import ConsolidationPolicy
from codememory.consolidate.session_cycle import run_session_cycle, unsummarized
from codememory.consolidate.view import ConsolidationView
from codememory.cycles import CycleReport
from codememory.events import Event, EventLog, InsightDerived, new_envelope
from codememory.memory.kinds import DERIVED_TYPES
from codememory.projection import LiveProjection

log = structlog.get_logger(__name__)


class NotCaughtUpError(RuntimeError):
    """The view has not read LOG to its end within ``wait_s`` (a replica that just started)."""


class Consolidator:
    def __init__(
        self,
        live: LiveProjection[ConsolidationView],
        event_log: EventLog,
        policy: ConsolidationPolicy,
        *,
        wait_s: float = 20.0,
        clock: Callable[[], float] = time.time,
        phraser: Phraser | None = None,
        log_end: Callable[[], Awaitable[int]] | None = None,
    ) -> None:
        self.live = live
        self._log = event_log
        # where LOG ends for the view (its follower reads only the kinds it folds: ``Follower.log_end``)
        self._log_end = log_end or event_log.last_seq
        self.policy = policy
        self._wait_s = wait_s
        self._clock = clock
        self._phraser = phraser or Extracted()
        self._locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    def _unembedded(self, tenant: str) -> int:
        view = self.live.projection.tenants.get(tenant)
        if view is None:
            return 0
        return sum(
            1
            for m in view.memories.values()
            if m.vector is None and m.state == "active" and m.memory_type not in DERIVED_TYPES
        )

    async def _settle(self, tenant: str) -> None:
        """Let the view reach LOG's end, then wait (bounded) for new memories' vectors."""
        deadline = time.monotonic() + self._wait_s
        if not await self.live.wait_for(await self._log_end(), self._wait_s):
            raise NotCaughtUpError(f"still reading LOG (at {self.live.seq}): try again shortly")
        while self._unembedded(tenant) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)

    async def run(self, tenant: str, trigger: str = "request") -> CycleReport:
        async with self._locks[tenant]:
            started = time.perf_counter()
            if trigger == "request":
                await self._settle(tenant)
            async with self.live.lock:
                view = self.live.projection.tenant(tenant)
                up_to = self.live.seq
                without_vectors = self._unembedded(tenant)  # the cycle compares them next time
                out = await asyncio.to_thread(
                    run_cycle, view, tenant, self.policy, now=self._clock(), up_to_seq=up_to, trigger=trigger
                )
            last = await self._append(tenant, out) or up_to
            report = CycleReport(
                cycle_id=out.cycle_id,
                up_to_seq=up_to,
                last_seq=last,
                took_ms=round((time.perf_counter() - started) * 1000, 1),
                merged=out.counts.get("merged", 0),
                superseded=out.counts.get("superseded", 0),
                archived=out.counts.get("archived", 0),
                decayed=out.counts.get("decayed", 0),
                insights=out.counts.get("insights", 0),
                summaries=out.counts.get("summaries", 0),
                linked=out.counts.get("linked", 0),
                without_vectors=without_vectors,
            )
            log.info("consolidation_cycle", tenant=tenant, trigger=trigger, **msgspec.structs.asdict(report))
            return report

    async def summarize_sessions(self) -> int:
        """Lessons and summaries of sessions that finished since the last look; returns for how many
        tenants."""
        written = 0
        for tenant, view in list(self.live.projection.tenants.items()):
            async with self._locks[tenant]:
                now = self._clock()
                async with self.live.lock:
                    if not unsummarized(view, tenant, self.policy, now):
                        continue
                    out = await asyncio.to_thread(run_session_cycle, view, tenant, self.policy, now=now)
                written += 1 if await self._append(tenant, out) else 0
        return written

    def _phrased(self, event: Event) -> Event:
        return self._phraser.phrase(event) if isinstance(event, InsightDerived) else event

    async def _append(self, tenant: str, out: CycleOutput) -> int:
        """Word its lessons (when a phraser is configured), append a cycle's events and wait until the
        view has folded them; returns the last sequence written (0 for none)."""
        events = await asyncio.to_thread(lambda: [(eid, self._phrased(e)) for eid, e in out.events])
        envelopes = [new_envelope(event, event_id=eid, tenant=tenant) for eid, event in events]
        if not envelopes:
            return 0
        last = max(a.seq for a in await self._log.append(envelopes))
        await self.live.wait_for(last, self._wait_s)
        return last

    def due(self) -> list[str]:
        """Tenants with events the last cycle did not see."""
        tenants = self.live.projection.tenants
        return [name for name, tenant in tenants.items() if tenant.activity_seq > tenant.done_up_to]

    async def run_due(self) -> list[CycleReport]:
        reports = []
        for tenant in self.due():
            try:
                reports.append(await self.run(tenant, "schedule"))
            except Exception:  # one tenant's failure never stops the others' cycles
                log.exception("consolidation_failed", tenant=tenant)
        return reports
