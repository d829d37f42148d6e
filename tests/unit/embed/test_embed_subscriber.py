"""The embed handler behind its FastStream subscriber, in memory (``TestNatsBroker``), with the real model.

A stored memory's text is embedded and a ``memory.embedded`` event appended; bytes that are not an
event are dead-lettered with the decode error; the model's vector has the model's size.
"""

from __future__ import annotations

from datetime import UTC, datetime

from faststream.nats import NatsBroker, NatsRouter, TestNatsBroker

from codememory.bus import InMemoryDeadLetters
from codememory.bus.durable import DurableSettings, subscribe_durable
from codememory.embed.handler import EmbedHandler
from codememory.embedding import Embedder
from codememory.events import (
    InMemoryEventLog,
    MemoryEmbedded,
    MemoryStored,
    decode_envelope,
    encode_envelope,
    log_subject,
    new_envelope,
)
from codememory.topology import EMBED


async def test_a_stored_memory_is_embedded_and_garbage_is_dead_lettered(embedder: Embedder) -> None:
    event_log, dead = InMemoryEventLog(), InMemoryDeadLetters()
    broker, router = NatsBroker(), NatsRouter()
    subscribe_durable(
        router,
        EMBED,
        DurableSettings(batch=8),
        lambda js: EmbedHandler(event_log, embedder),
        dead_letters=lambda js, service, consumer: dead,
        jetstream=lambda: None,  # type: ignore[arg-type, return-value]
    )
    broker.include_router(router)
    stored = new_envelope(
        MemoryStored(memory_id="m1", text="we validate JWTs in the middleware"),
        event_id="e1",
        tenant="t",
        occurred_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    async with TestNatsBroker(broker) as test_broker:
        await test_broker.publish(encode_envelope(stored), log_subject(stored))
        await test_broker.publish(b"\x00 not an event", "cm.log.t.memory.stored")
    embedded = [decode_envelope(r.data).payload for r in event_log.records]
    assert len(embedded) == 1 and isinstance(embedded[0], MemoryEmbedded)
    assert embedded[0].memory_id == "m1" and len(embedded[0].vector) == embedder.dim
    assert len(dead.parked) == 1 and dead.parked[0][1].startswith("EventDecodeError")
