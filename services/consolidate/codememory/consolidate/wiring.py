"""The consolidate service's parts for a FastStream application: its router, start and stop.

``create_app`` (``main.py``) puts them on the service's own broker; ``codememory up`` on its shared
one. Once the broker has connected, the view starts following LOG from the beginning (it lives in
memory, like the gateway's code projection), and the schedule runs a cycle every ``interval_s`` for
each tenant with something new.
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
        self._follower = Follower(js, live)
        self._follower.start()
        self.consolidator = Consolidator(
            live, JetStreamEventLog(js), self.settings.policy, wait_s=self.settings.wait_s
        )
        if self.settings.interval_s > 0:
            self._schedule = asyncio.create_task(
                self._every(self.settings.interval_s), name="consolidate-schedule"
            )

    async def _every(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            if self.consolidator is not None:
                try:
                    await self.consolidator.run_due()
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
