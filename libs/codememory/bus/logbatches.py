"""LOG read in large batches: an ordered push consumer whose callback fills lists (replay, following).

Why not the pull consumer of ``JetStreamEventLog.read``: ``fetch`` costs nats-py an awaited future per
message and read about 12,000 events/s here, below the replay target on its own; an ordered consumer
handing each message to a callback that only appends reads about 33,000 events/s. The consumer is
ephemeral (nothing to clean up on the server) and nats-py restarts it on a gap it sees.

Why the callback never waits: nats-py queues what the socket brings for the callback and, once that
queue holds ``pending_bytes`` (or ``pending_msgs``), drops messages as a slow consumer, and its ordered
consumer has already counted a dropped message as delivered, so nothing restarts it: the message is
lost in silence (a replay of 1,000,000 events whose fold waited for room lost 3,587 of them). So that
queue is unbounded here, and the callback only keeps what arrives, up to ``limit`` records the reader
has not taken; there it pauses the consumer (unsubscribes: the server stops) and the reader starts a
new one from the first sequence not kept once it has taken half of them. A gap in the consumer's
delivery sequence (a message nats-py dropped all the same) pauses it too, so the read starts again at
the first record missing; what an old subscription still delivers is ignored, and a record is kept
once, in LOG order.

Live following (``follow``) reads the same way: ``next_msg`` per event also made nats-py draw a
``uuid4`` (a syscall that gives up the GIL) and create a task and a timeout, about 40 us of the event
loop per event and projection; during a bulk import that was a fifth of the loop's time. A follower
that folds a few kinds reads only those (``filters``: ``events.log_filters``); the server sends it
nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence

from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js.api import ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext

from codememory import subjects
from codememory.bus.headers import use_fast_headers
from codememory.bus.streams import LOG
from codememory.events import LogRecord

_V1_TOKENS = 9


def _sequences(msg: Msg) -> tuple[int, int]:
    """The message's LOG (stream) sequence and its consumer's delivery sequence. ``msg.metadata``
    parses every field of the reply subject, its timestamp included (about 7 us, a tenth of replay's
    budget per event); the two are the sixth and seventh tokens of the common form
    ``$JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>...``."""
    tokens = msg.reply.split(".") if msg.reply else []
    if len(tokens) == _V1_TOKENS and tokens[0] == "$JS" and tokens[1] == "ACK":
        return int(tokens[5]), int(tokens[6])
    sequence = msg.metadata.sequence  # the form with a domain and an account: let nats-py parse it
    return sequence.stream, sequence.consumer


class _Consumer:
    """LOG from ``next_seq`` through an ordered push consumer that pauses instead of waiting (see
    module): ``take`` hands out what arrived, in order, each record once."""

    def __init__(
        self,
        js: JetStreamContext,
        from_seq: int,
        *,
        limit: int,
        filters: Sequence[str] = (subjects.LOG_ALL,),
        until_seq: int | None = None,
        pending_msgs: int = 0,
        pending_bytes: int = 0,
    ) -> None:
        self.next_seq = max(from_seq, 1)  # the first sequence not kept yet
        self.until_seq = until_seq
        self.records: list[LogRecord] = []
        self._js, self._filters, self._limit = js, tuple(filters), max(limit, 1)
        self._pending = (pending_msgs, pending_bytes)
        self._sub: Subscription | None = None
        self._generation = 0  # bumped at each pause: an old subscription's deliveries are ignored
        self._stopping: set[asyncio.Task[None]] = set()
        self._arrived = asyncio.Event()
        use_fast_headers(js._nc)  # each message's headers: see ``headers``

    @property
    def finished(self) -> bool:
        return self.until_seq is not None and self.next_seq > self.until_seq

    def _callback(self, generation: int) -> Callable[[Msg], Awaitable[None]]:
        last_delivered = 0  # this subscription's delivery sequence

        async def received(msg: Msg) -> None:
            nonlocal last_delivered
            if generation != self._generation:
                return
            seq, delivered = _sequences(msg)
            if delivered not in (last_delivered + 1, 1):  # 1: nats-py started the consumer again
                self._pause()  # a message went missing between the two: read again from it
                return
            last_delivered = delivered
            if seq < self.next_seq:  # already kept (nats-py's restart overlaps what it queued)
                return
            if self.until_seq is not None and seq > self.until_seq:  # past the range: it is read
                self.next_seq = self.until_seq + 1
                self._pause()
                return
            self.records.append(LogRecord(seq=seq, subject=msg.subject, data=msg.data))
            self.next_seq = seq + 1
            self._arrived.set()
            if self.finished or len(self.records) >= self._limit:
                self._pause()

        return received

    async def _start(self) -> None:
        config = ConsumerConfig(deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=self.next_seq)
        if len(self._filters) > 1:
            config.filter_subjects = list(self._filters)
        msgs, size = self._pending
        self._sub = await self._js.subscribe(
            self._filters[0],
            stream=LOG,
            ordered_consumer=True,
            cb=self._callback(self._generation),
            config=config,
            pending_msgs_limit=msgs,
            pending_bytes_limit=size,
        )

    def _pause(self) -> None:
        self._generation += 1
        sub, self._sub = self._sub, None
        if sub is not None:  # not awaited here: the callback runs in the task it cancels
            task = asyncio.ensure_future(sub.unsubscribe())
            self._stopping.add(task)
            task.add_done_callback(self._stopped)
        self._arrived.set()

    def _stopped(self, task: asyncio.Task[None]) -> None:
        self._stopping.discard(task)
        if not task.cancelled():
            task.exception()  # a connection closed meanwhile: nothing left to stop, nothing to report

    async def take(self, at_least: int, at_most: int, idle_s: float | None = None) -> list[LogRecord]:
        """Up to ``at_most`` records, once ``at_least`` have arrived (fewer when ``until_seq`` is reached).
        Raises ``TimeoutError`` when nothing arrives for ``idle_s``, twice in a row when ``until_seq``
        is set (the consumer is started again between the two)."""
        restarted = False  # a dropped tail shows no gap: the consumer is started again once first
        while len(self.records) < at_least and not self.finished:
            if self._sub is None:
                await self._start()
            self._arrived.clear()
            kept = self.next_seq
            try:
                await asyncio.wait_for(self._arrived.wait(), idle_s)
            except TimeoutError:
                if restarted or self.until_seq is None:
                    raise
                self._pause()
                restarted = True
            if self.next_seq != kept:
                restarted = False  # it moved: a later silence gets its own restart
        taken = self.records[:at_most]
        del self.records[:at_most]
        if self._sub is None and not self.finished and len(self.records) <= self._limit // 2:
            await self._start()  # paused and half drained: the server sends again meanwhile
        return taken

    async def close(self) -> None:
        self._pause()
        for task in list(self._stopping):
            with contextlib.suppress(Exception):  # a closed connection: nothing left to stop
                await task


async def read_batches(
    js: JetStreamContext,
    from_seq: int,
    until_seq: int,
    *,
    batch: int = 5000,
    ahead: int = 4,
    idle_s: float = 10.0,
    pending_msgs: int = 0,
    pending_bytes: int = 0,
) -> AsyncGenerator[list[LogRecord], None]:
    """LOG from ``from_seq`` to ``until_seq`` (inclusive) in order, in lists of up to ``batch``; at most
    ``ahead`` batches arrive before the reader takes them. ``pending_*``: the bounds of nats-py's
    queue for the callback (0: none; the pause bounds it, see module).

    Raises ``TimeoutError`` when nothing arrives for ``idle_s`` (twice) before ``until_seq``.
    """
    if until_seq < max(from_seq, 1):
        return
    consumer = _Consumer(
        js,
        from_seq,
        limit=batch * ahead,
        until_seq=until_seq,
        pending_msgs=pending_msgs,
        pending_bytes=pending_bytes,
    )
    try:
        while records := await consumer.take(batch, batch, idle_s):
            yield records
    finally:
        await consumer.close()


async def follow(
    js: JetStreamContext,
    from_seq: int,
    *,
    batch: int = 1024,
    ahead: int = 4,
    filters: Sequence[str] = (subjects.LOG_ALL,),
    pending_msgs: int = 0,
    pending_bytes: int = 0,
) -> AsyncGenerator[list[LogRecord], None]:
    """Tail LOG forever from ``from_seq``, yielding what has arrived in lists of up to ``batch`` (a
    bulk import folds 1,024 events per index flush; a lone event is yielded at once); at most
    ``ahead`` batches wait unread before the consumer pauses. Only the events on ``filters``;
    ``pending_*`` as in ``read_batches``."""
    consumer = _Consumer(
        js,
        from_seq,
        limit=batch * ahead,
        filters=filters,
        pending_msgs=pending_msgs,
        pending_bytes=pending_bytes,
    )
    try:
        while True:
            yield await consumer.take(1, batch)
    finally:
        await consumer.close()
