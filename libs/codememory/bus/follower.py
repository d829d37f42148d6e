"""A task that follows LOG into one or more live projections, and can be restarted by a watchdog.

One ordered consumer per follower, whatever the number of projections it feeds: the gateway follows
LOG once for its memory, code and given projections (``Follower(js, memory, code, given)``). Two
consumers of the same LOG on one connection had read every event twice and could each hold a
flow-control window in flight (the server cut the gateway off as a slow consumer while it caught
up). The read starts after the lowest of the projections' positions, and each projection skips what
it holds already.

An error while following (a transient store failure, a connection lost mid-batch) is logged and the
follower starts again from the lowest position; what it cannot survive (its task cancelled or ended by
a bug) the watchdog sees as a dead follower and restarts. The watchdog looks at each projection through
``views()`` (health per projection; one follower's restarts). A stop always ends it, even when nats-py
loses the cancellation (``tasks.py``).

A follower of projections that fold only some kinds of events reads only those (``kinds``, the
projection's own list: ``ReviewsView.FOLDS``): during a bulk import the reviews service had received
and decoded every memory and vector. Its projections' position is then the last event of those kinds
they folded, so "has it read LOG to the end" is asked of ``log_end`` (the last event on its filters),
not of LOG's last sequence.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any

import structlog
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext

from codememory import subjects
from codememory.bus import follow
from codememory.bus.streams import LOG
from codememory.bus.tasks import cancelling, stop_task
from codememory.events import Event, LogRecord, log_filters
from codememory.projection import LiveProjection, decode_records

log = structlog.get_logger(__name__)

DECODE_INLINE = 32  # records decoded on the event loop (about 20 us each) rather than in a thread


class Follower:
    def __init__(
        self,
        js: JetStreamContext,
        live: LiveProjection[Any],
        *more: LiveProjection[Any],
        retry_s: float = 0.5,
        kinds: Sequence[type[Event]] = (),
    ) -> None:
        self._js = js
        self.lives: tuple[LiveProjection[Any], ...] = (live, *more)
        self.filters = log_filters(kinds) if kinds else (subjects.LOG_ALL,)  # kinds: all it folds
        self._retry_s = retry_s
        self._task: asyncio.Task[None] | None = None
        self.restarts = 0

    @property
    def live(self) -> LiveProjection[Any]:
        """The first projection (the only one of a single-projection follower)."""
        return self.lives[0]

    @property
    def name(self) -> str:
        return "+".join(live.name for live in self.lives)

    @property
    def seq(self) -> int:
        """Where following starts again: every projection holds LOG up to here."""
        return min(live.seq for live in self.lives)

    @property
    def alive(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def runner(self) -> Follower:
        return self

    async def log_end(self) -> int:
        """The last LOG event this follower reads (of its kinds): its projections have read LOG to its
        end once they reach it."""
        return await last_on(self._js, self.filters)

    def views(self) -> list[Followed]:
        """One per projection, for the watchdog (``Followed``)."""
        return [Followed(self, live) for live in self.lives]

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"follow-{self.name}")

    async def restart(self) -> None:
        await self.stop()
        self.restarts += 1
        self.start()
        log.warning("follower_restarted", projection=self.name, seq=self.seq, restarts=self.restarts)

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None and not await stop_task(task):
            log.warning("follower_slow_to_stop", projection=self.name)  # it ends at its next turn

    async def _run(self) -> None:
        me = asyncio.current_task()
        while self._task is me:  # a stopped or replaced run ends at its next turn
            try:
                async for records in follow(self._js, self.seq + 1, filters=self.filters):
                    await self._apply(records)
            except asyncio.CancelledError:
                raise
            except Exception:
                if cancelling():
                    raise asyncio.CancelledError from None
                log.exception("follow_failed", projection=self.name, seq=self.seq)
                await asyncio.sleep(self._retry_s)

    async def _apply(self, records: Sequence[LogRecord]) -> None:
        """Into every projection not already past ``records``, at once (each folds in a thread of its
        own); each is waited for, and the first failure raised (following starts again from the lowest
        position: what one projection holds it skips)."""
        behind = [live for live in self.lives if records and records[-1].seq > live.seq]
        if len(behind) == 1:
            await behind[0].apply(records)
            return
        if len(behind) > 1:  # decoded once for all of them; a lone event here, a long batch in a thread
            small = len(records) <= DECODE_INLINE
            records = decode_records(records) if small else await asyncio.to_thread(decode_records, records)
        results = await asyncio.gather(*(live.apply(records) for live in behind), return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result


async def last_on(js: JetStreamContext, filters: Sequence[str]) -> int:
    """The sequence of the last LOG event on any of ``filters`` (0 when there is none): an ephemeral
    consumer starting at the last match (the server picks the latest over several filters)."""
    if tuple(filters) == (subjects.LOG_ALL,):
        return int((await js.stream_info(LOG)).state.last_seq)
    config = ConsumerConfig(
        deliver_policy=DeliverPolicy.LAST, ack_policy=AckPolicy.NONE, inactive_threshold=10.0
    )
    if len(filters) > 1:
        config.filter_subjects = list(filters)
    sub = await js.pull_subscribe(filters[0], stream=LOG, config=config)
    name = (info := await sub.consumer_info()).name
    try:
        if not info.num_pending:
            return 0
        [msg] = await sub.fetch(1, timeout=5.0)
        return int(msg.metadata.sequence.stream)
    finally:
        await sub.unsubscribe()
        with contextlib.suppress(Exception):  # or it goes on its own once inactive
            await js.delete_consumer(LOG, name)


class Followed:
    """One projection of a ``Follower``, as the watchdog sees it: its own position and health, the
    follower's task and restarts (a restart restarts the follower, for every projection it feeds)."""

    def __init__(self, runner: Follower, live: LiveProjection[Any]) -> None:
        self.runner = runner
        self.live = live

    @property
    def name(self) -> str:
        return self.live.name

    @property
    def alive(self) -> bool:
        return self.runner.alive

    @property
    def restarts(self) -> int:
        return self.runner.restarts

    async def restart(self) -> None:
        await self.runner.restart()
