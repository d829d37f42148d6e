"""The EventLog contract, run against the in-memory log and the JetStream LOG stream."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
from nats.aio.client import Client

from codememory.bus import JetStreamEventLog
from codememory.events import EventLog, InMemoryEventLog, MemoryStored, decode_envelope, new_envelope


@pytest.fixture(params=["memory", "jetstream"])
async def event_log(request: pytest.FixtureRequest, nc: Client) -> AsyncIterator[EventLog]:
    if request.param == "memory":
        yield InMemoryEventLog()
    else:
        yield JetStreamEventLog(nc.jetstream())


def _stored(text: str, tenant: str = "t"):  # type: ignore[no-untyped-def]
    return new_envelope(
        MemoryStored(memory_id=str(uuid.uuid4()), text=text), event_id=str(uuid.uuid4()), tenant=tenant
    )


async def test_append_then_read_in_order(event_log: EventLog) -> None:
    start = await event_log.last_seq()
    envelopes = [_stored(f"m{i}") for i in range(5)]
    appended = await event_log.append(envelopes)
    seqs = [a.seq for a in appended]
    assert seqs == sorted(seqs) and seqs[0] == start + 1 and not any(a.duplicate for a in appended)
    read = [r async for r in event_log.read(start + 1)]
    assert [decode_envelope(r.data).event_id for r in read] == [e.event_id for e in envelopes]


async def test_same_event_id_is_stored_once(event_log: EventLog) -> None:
    envelope = _stored("once")
    first = (await event_log.append([envelope]))[0]
    second = (await event_log.append([envelope]))[0]
    assert second.duplicate and second.seq == first.seq
    assert await event_log.last_seq() == first.seq


async def test_read_range_is_bounded(event_log: EventLog) -> None:
    start = await event_log.last_seq()
    await event_log.append([_stored(f"r{i}") for i in range(4)])
    read = [r.seq async for r in event_log.read(start + 2, until_seq=start + 3)]
    assert read == [start + 2, start + 3]


async def test_read_past_the_end_is_empty(event_log: EventLog) -> None:
    last = await event_log.last_seq()
    assert [r async for r in event_log.read(last + 1)] == []
