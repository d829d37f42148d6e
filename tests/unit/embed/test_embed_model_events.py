"""The embed service's read of the model events in LOG, on a real nats-server: all of them, in order,
and over as soon as the last one is read (it runs in the handler's path every ``REFRESH_S``)."""

from __future__ import annotations

import asyncio
import uuid

from nats.js.client import JetStreamContext

from codememory.bus import JetStreamEventLog
from codememory.embed.main import read_model_events
from codememory.embedding.migration import MODELS_TENANT
from codememory.events import (
    EmbeddingBackfillCompleted,
    EmbeddingModelRequested,
    Envelope,
    MemoryStored,
    new_envelope,
)

# the old read ended at a fetch that timed out after 1 s; one that stops at the last event is far below
WITHOUT_A_TIMEOUT_S = 0.8


def _stored(i: int) -> Envelope:
    event = MemoryStored(memory_id=str(uuid.uuid4()), text=f"memory {i}")
    return new_envelope(event, event_id=str(uuid.uuid4()), tenant="t")


def _model(event: EmbeddingModelRequested | EmbeddingBackfillCompleted) -> Envelope:
    return new_envelope(event, event_id=str(uuid.uuid4()), tenant=MODELS_TENANT)


async def test_no_model_event_is_an_empty_answer_at_once(js: JetStreamContext) -> None:
    await JetStreamEventLog(js).append([_stored(i) for i in range(50)])
    assert await asyncio.wait_for(read_model_events(js), WITHOUT_A_TIMEOUT_S) == []


async def test_every_model_event_in_order_and_nothing_else(js: JetStreamContext) -> None:
    log = JetStreamEventLog(js)
    requested = EmbeddingModelRequested(model="all-mpnet-base-v2")
    completed = EmbeddingBackfillCompleted(model="all-mpnet-base-v2", until_seq=120, memories=100)
    again = EmbeddingModelRequested(model="all-MiniLM-L6-v2")
    await log.append([_stored(i) for i in range(100)])
    await log.append([_model(requested)])
    await log.append([_stored(i) for i in range(100, 200)])
    await log.append([_model(completed), _model(again)])
    found = await asyncio.wait_for(read_model_events(js), WITHOUT_A_TIMEOUT_S)
    assert [envelope.payload for _, envelope in found] == [requested, completed, again]
    assert [seq for seq, _ in found] == [101, 202, 203]
