"""The event log on JetStream: the real implementation of ``codememory.events.EventLog``.

Every service appends through ``EventLog.append``; the deterministic event id goes out as
``Nats-Msg-Id`` so JetStream stores a retried append once. ``read`` walks LOG in sequence order with
an ephemeral pull consumer fetching large batches: that is what replay and ``codememory log`` use.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.client import JetStreamContext

from codememory import subjects
from codememory.bus.logbatches import read_batches
from codememory.bus.streams import LOG
from codememory.events import Appended, Envelope, LogRecord, log_subject
from codememory.events.codec import encode_envelopes

OFF_LOOP = 64  # envelopes from which an append is encoded off the event loop


class JetStreamEventLog:
    """EventLog on the LOG stream."""

    def __init__(self, js: JetStreamContext, *, timeout: float = 5.0, read_batch: int = 1000) -> None:
        self._js = js
        self._timeout = timeout
        self._read_batch = read_batch

    async def append(self, envelopes: Sequence[Envelope]) -> list[Appended]:
        # sealed, their keys durable before LOG has them: a large batch (an import) in a worker
        # thread, so the event loop keeps serving while its keys are written and synced
        if len(envelopes) >= OFF_LOOP:
            encoded = await asyncio.to_thread(encode_envelopes, envelopes)
        else:
            encoded = encode_envelopes(envelopes)
        futures = [
            self._js.publish(
                log_subject(envelope),
                data,
                timeout=self._timeout,
                stream=LOG,
                headers={"Nats-Msg-Id": envelope.event_id},
            )
            for envelope, data in zip(envelopes, encoded, strict=True)
        ]
        acks = await asyncio.gather(*futures)
        return [Appended(seq=ack.seq, duplicate=bool(ack.duplicate)) for ack in acks]

    async def last_seq(self) -> int:
        info = await self._js.stream_info(LOG)
        return int(info.state.last_seq)

    async def read(self, from_seq: int = 1, *, until_seq: int | None = None) -> AsyncIterator[LogRecord]:
        end = until_seq if until_seq is not None else await self.last_seq()
        if end < from_seq:
            return
        config = ConsumerConfig(
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
            opt_start_seq=max(from_seq, 1),
            ack_policy=AckPolicy.NONE,
            inactive_threshold=30.0,
        )
        sub = await self._js.pull_subscribe(subjects.LOG_ALL, stream=LOG, config=config)
        try:
            seq = from_seq - 1
            while seq < end:
                wanted = min(self._read_batch, end - seq)
                for msg in await sub.fetch(wanted, timeout=self._timeout):
                    seq = msg.metadata.sequence.stream
                    yield LogRecord(seq=seq, subject=msg.subject, data=msg.data)
                    if seq >= end:
                        break
        finally:
            await sub.unsubscribe()

    async def read_batches(
        self, from_seq: int = 1, *, until_seq: int | None = None, batch: int = 5000
    ) -> AsyncIterator[list[LogRecord]]:
        """LOG in order in lists of up to ``batch`` (replay: see ``logbatches``)."""
        end = until_seq if until_seq is not None else await self.last_seq()
        async for records in read_batches(self._js, from_seq, end, batch=batch):
            yield records


async def follow(js: JetStreamContext, from_seq: int, *, batch: int = 1024) -> AsyncIterator[list[LogRecord]]:
    """Tail LOG forever from ``from_seq``, yielding what has arrived in batches of up to ``batch``
    (a bulk import folds 1,024 events per index flush; a lone event is yielded at once).

    An ordered consumer: nothing to clean up on the server, restarted by the client on gaps.
    """
    sub = await js.subscribe(
        subjects.LOG_ALL,
        stream=LOG,
        ordered_consumer=True,
        config=ConsumerConfig(deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=max(from_seq, 1)),
        pending_msgs_limit=100_000,
    )
    try:
        while True:
            first = await sub.next_msg(timeout=None)
            records = [LogRecord(seq=first.metadata.sequence.stream, subject=first.subject, data=first.data)]
            while len(records) < batch and sub.pending_msgs > 0:
                msg = await sub.next_msg(timeout=0.1)
                records.append(
                    LogRecord(seq=msg.metadata.sequence.stream, subject=msg.subject, data=msg.data)
                )
            yield records
    finally:
        await sub.unsubscribe()
