"""LOG read in large batches: an ordered push consumer whose callback fills lists (replay, following).

Why not the pull consumer of ``JetStreamEventLog.read``: ``fetch`` costs nats-py an awaited future per
message and read about 12,000 events/s here, below the replay target on its own; an ordered consumer
handing each message to a callback that only appends reads about 33,000 events/s. Flow control keeps
memory bounded: the callback waits while ``ahead`` batches are unread, the client stops answering the
server's flow-control requests, and the server stops sending. The consumer is ephemeral (nothing to
clean up on the server) and restarts itself on a gap.

Live following (``follow``) reads the same way: ``next_msg`` per event also made nats-py draw a
``uuid4`` (a syscall that gives up the GIL) and create a task and a timeout, about 40 us of the event
loop per event and projection; during a bulk import that was a fifth of the loop's time. A follower
that folds a few kinds reads only those (``filters``: ``events.log_filters``); the server sends it
nothing else.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence

from nats.aio.msg import Msg
from nats.js.api import ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext

from codememory import subjects
from codememory.bus.headers import use_fast_headers
from codememory.bus.streams import LOG
from codememory.events import LogRecord

_V1_TOKENS = 9


def _stream_seq(msg: Msg) -> int:
    """The message's LOG sequence. ``msg.metadata`` parses every field of the reply subject, its
    timestamp included (about 7 us, a tenth of replay's budget per event); the stream sequence is the
    sixth token of the common form ``$JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>...``."""
    tokens = msg.reply.split(".") if msg.reply else []
    if len(tokens) == _V1_TOKENS and tokens[0] == "$JS" and tokens[1] == "ACK":
        return int(tokens[5])
    return msg.metadata.sequence.stream  # the form with a domain and an account: let nats-py parse it


async def read_batches(
    js: JetStreamContext,
    from_seq: int,
    until_seq: int,
    *,
    batch: int = 5000,
    ahead: int = 4,
    idle_s: float = 10.0,
) -> AsyncGenerator[list[LogRecord], None]:
    """LOG from ``from_seq`` to ``until_seq`` (inclusive) in order, in lists of up to ``batch``.

    Raises ``TimeoutError`` when nothing arrives for ``idle_s`` before ``until_seq`` was reached.
    """
    from_seq = max(from_seq, 1)
    if until_seq < from_seq:
        return
    ready: asyncio.Queue[list[LogRecord] | None] = asyncio.Queue(maxsize=ahead)
    pending: list[LogRecord] = []
    finished = False

    async def received(msg: Msg) -> None:
        nonlocal pending, finished
        if finished:
            return
        seq = _stream_seq(msg)
        pending.append(LogRecord(seq=seq, subject=msg.subject, data=msg.data))
        if seq >= until_seq:
            finished = True
            await ready.put(pending)
            await ready.put(None)  # the end
        elif len(pending) >= batch:
            full, pending = pending, []
            await ready.put(full)

    config = ConsumerConfig(deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=from_seq)
    use_fast_headers(js._nc)  # each message's headers: see ``headers``
    sub = await js.subscribe(
        subjects.LOG_ALL,
        stream=LOG,
        ordered_consumer=True,
        cb=received,
        config=config,
        pending_msgs_limit=1_000_000,
        pending_bytes_limit=1 << 30,
    )
    try:
        while (records := await asyncio.wait_for(ready.get(), idle_s)) is not None:
            yield records
    finally:
        finished = True
        await sub.unsubscribe()


class _Arrivals:
    """What the callback has received and the follower not yet taken, bounded by ``limit``."""

    def __init__(self, limit: int) -> None:
        self.records: list[LogRecord] = []
        self.limit = limit
        self._ready = asyncio.Event()
        self._room = asyncio.Event()

    async def received(self, msg: Msg) -> None:
        while len(self.records) >= self.limit:  # the follower is behind: hold the server back
            self._room.clear()
            await self._room.wait()
        self.records.append(LogRecord(seq=_stream_seq(msg), subject=msg.subject, data=msg.data))
        self._ready.set()

    async def take(self, batch: int) -> list[LogRecord]:
        while not self.records:
            self._ready.clear()
            await self._ready.wait()
        taken = self.records[:batch]
        del self.records[:batch]
        self._room.set()
        return taken


async def follow(
    js: JetStreamContext,
    from_seq: int,
    *,
    batch: int = 1024,
    ahead: int = 4,
    filters: Sequence[str] = (subjects.LOG_ALL,),
) -> AsyncGenerator[list[LogRecord], None]:
    """Tail LOG forever from ``from_seq``, yielding what has arrived in lists of up to ``batch`` (a
    bulk import folds 1,024 events per index flush; a lone event is yielded at once); at most
    ``ahead`` batches wait unread before the server is held back. Only the events on ``filters``."""
    arrivals = _Arrivals(batch * ahead)
    use_fast_headers(js._nc)
    config = ConsumerConfig(deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=max(from_seq, 1))
    if len(filters) > 1:
        config.filter_subjects = list(filters)
    sub = await js.subscribe(
        filters[0],
        stream=LOG,
        ordered_consumer=True,
        cb=arrivals.received,
        config=config,
        pending_msgs_limit=100_000,
    )
    try:
        while True:
            yield await arrivals.take(batch)
    finally:
        await sub.unsubscribe()
