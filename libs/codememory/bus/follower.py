"""A task that follows LOG into one live projection, and can be restarted by a watchdog.

Each replica follows LOG with its own ordered consumer per projection (nothing shared on the server).
An error while following (a transient store failure, a connection lost mid-batch) is logged and the
follower starts again from its projection's position; what it cannot survive (its task cancelled or
ended by a bug) the watchdog sees as a dead follower and restarts. A stop always ends it, even when
nats-py loses the cancellation (``tasks.py``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import structlog
from nats.js.client import JetStreamContext

from codememory.bus import follow
from codememory.bus.tasks import cancelling, stop_task
from codememory.projection import LiveProjection

log = structlog.get_logger(__name__)


class Follower:
    def __init__(self, js: JetStreamContext, live: LiveProjection[Any], *, retry_s: float = 0.5) -> None:
        self._js = js
        self.live = live
        self._retry_s = retry_s
        self._task: asyncio.Task[None] | None = None
        self.restarts = 0

    @property
    def name(self) -> str:
        return self.live.name

    @property
    def alive(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"follow-{self.name}")

    async def restart(self) -> None:
        await self.stop()
        self.restarts += 1
        self.start()
        log.warning("follower_restarted", projection=self.name, seq=self.live.seq, restarts=self.restarts)

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None and not await stop_task(task):
            log.warning("follower_slow_to_stop", projection=self.name)  # it ends at its next turn

    async def _run(self) -> None:
        me = asyncio.current_task()
        while self._task is me:  # a stopped or replaced run ends at its next turn
            try:
                async for records in follow(self._js, self.live.seq + 1):
                    await self.live.apply(records)
            except asyncio.CancelledError:
                raise
            except Exception:
                if cancelling():
                    raise asyncio.CancelledError from None
                log.exception("follow_failed", projection=self.name, seq=self.live.seq)
                await asyncio.sleep(self._retry_s)
