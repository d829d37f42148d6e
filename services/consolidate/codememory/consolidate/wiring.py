"""The consolidate service's parts for a FastStream application: its router, start and stop.

``create_app`` (``main.py``) puts them on the service's own broker; ``codememory up`` on its shared
one. Once the broker has connected, the view starts following LOG from the beginning (it lives in
memory, like the gateway's code projection), and the schedule runs a cycle every ``interval_s`` for
each tenant with something new, and summarises sessions every ``summary_delay_s`` after they end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import structlog
from faststream.nats import NatsBroker, NatsRouter

from codememory.bus import JetStreamEventLog
from codememory.bus.app import BrokerJetStream
from codememory.bus.follower import Follower
from codememory.bus.tasks import stop_task
from codememory.consolidate.consolidator import Consolidator
from codememory.consolidate.phrasing import phraser
from codememory.consolidate.responder import consolidate_router
from codememory.consolidate.settings import ConsolidateSettings
from codememory.consolidate.view import ConsolidationView
from codememory.projection import LiveProjection

log = structlog.get_logger(__name__)

Step = Callable[[], Awaitable[None]]


class ConsolidateWiring:
    def __init__(self, settings: ConsolidateSettings, broker: NatsBroker) -> None:
        self.settings = settings
        self._broker = broker
        self.consolidator: Consolidator | None = None
        self._follower: Follower | None = None
        self._schedule: asyncio.Task[None] | None = None
        self.after_startup: list[Step] = [self.start]
        self.on_shutdown: list[Step] = [self.stop]

    def router(self, jetstream: BrokerJetStream) -> NatsRouter:
        return consolidate_router(lambda: self.consolidator)

    async def start(self) -> None:
        if self.consolidator is not None:
            return
        js = BrokerJetStream(self._broker)()
        live = LiveProjection(ConsolidationView(), name="consolidate")
        self._follower = Follower(js, live, kinds=ConsolidationView.FOLDS)
        self._follower.start()
        settings = self.settings
        self.consolidator = Consolidator(
            live,
            JetStreamEventLog(js),
            settings.policy,
            wait_s=settings.wait_s,
            log_end=self._follower.log_end,
            phraser=phraser(settings.llm_url, settings.llm_model, settings.llm_api_key),
        )
        ticks = [t for t in (self.settings.interval_s, self.settings.summary_delay_s) if t > 0]
        if ticks:
            self._schedule = asyncio.create_task(self._scheduled(min(ticks)), name="consolidate-schedule")

    async def _scheduled(self, tick: float) -> None:
        """Every ``tick``: sessions that ended get their summary; every ``interval_s``: a full cycle."""
        interval, since_full = self.settings.interval_s, 0.0
        while True:
            await asyncio.sleep(tick)
            since_full += tick
            consolidator = self.consolidator
            if consolidator is None:
                continue
            try:
                if interval > 0 and since_full >= interval:
                    since_full = 0.0
                    await consolidator.run_due()
                elif self.settings.summary_delay_s > 0:
                    await consolidator.summarize_sessions()
            except Exception:  # the schedule outlives any one failing cycle
                log.exception("scheduled_consolidation_failed")

    async def stop(self) -> None:
        schedule, self._schedule = self._schedule, None
        if schedule is not None:
            await stop_task(schedule)
        follower, self._follower = self._follower, None
        if follower is not None:
            await follower.stop()
        self.consolidator = None
