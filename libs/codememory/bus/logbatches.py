"""LOG read in large batches for replay: an ordered push consumer whose callback fills lists.

Why not the pull consumer of ``JetStreamEventLog.read``: ``fetch`` costs nats-py an awaited future per
message and read about 12,000 events/s here, below the replay target on its own; an ordered consumer
handing each message to a callback that only appends reads about 33,000 events/s. Flow control keeps
memory bounded: the callback waits while ``ahead`` batches are unread, the client stops answering the
server's flow-control requests, and the server stops sending. The consumer is ephemeral (nothing to
clean up on the server) and restarts itself on a gap.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from nats.aio.msg import Msg
from nats.js.api import ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext

from codememory import subjects
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
) -> AsyncIterator[list[LogRecord]]:
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
