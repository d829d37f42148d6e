"""A large append goes to LOG as atomic batches on a real nats-server: in order, with contiguous
sequences; a retried append (ids already in LOG) is stored once; a stream without atomic batches
still takes the append, one message at a time."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.js.api import StreamConfig
from nats.js.client import JetStreamContext

from codememory.bus import JetStreamEventLog, ensure_streams
from codememory.bus import eventlog as eventlog_module
from codememory.bus.streams import StreamSettings, stream_configs
from codememory.events import Envelope, MemoryStored, decode_envelope, new_envelope
from codememory.runtime.natsd import NatsServer
from codememory.topology import LOG


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[NatsServer]:
    with NatsServer(tmp_path / "nats") as running:
        yield running


def _envelopes(n: int) -> list[Envelope]:
    return [
        new_envelope(
            MemoryStored(memory_id=str(uuid.uuid4()), text=f"m{i}"), event_id=str(uuid.uuid4()), tenant="t"
        )
        for i in range(n)
    ]


async def _texts(log: JetStreamEventLog) -> list[str]:
    return [decode_envelope(r.data).payload.text async for r in log.read(1)]  # type: ignore[union-attr]


async def test_a_large_append_is_atomic_batches_and_a_retry_stores_nothing_twice(
    server: NatsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    nc = await nats.connect(server.url)
    js: JetStreamContext = nc.jetstream()
    await ensure_streams(js)
    log = JetStreamEventLog(js)
    each: list[int] = []
    real_each = log._append_each

    def counted(envelopes: Any, encoded: Any) -> Any:
        each.append(len(envelopes))
        return real_each(envelopes, encoded)

    monkeypatch.setattr(log, "_append_each", counted)
    monkeypatch.setattr(eventlog_module, "ATOMIC_MAX", 120)
    envelopes = _envelopes(300)
    appended = await log.append(envelopes)
    assert [a.seq for a in appended] == list(range(1, 301)) and not any(a.duplicate for a in appended)
    assert each == []  # three atomic batches (120, 120, 60), nothing one by one
    assert await _texts(log) == [f"m{i}" for i in range(300)]
    again = await log.append(envelopes)  # a retried append: every id is in LOG already
    assert [a.seq for a in again] == list(range(1, 301)) and all(a.duplicate for a in again)
    assert each == [120, 120, 60] and log._atomic  # refused whole, then deduped one by one
    assert await log.last_seq() == 300
    await nc.close()


async def test_a_stream_without_atomic_batches_takes_the_append_one_by_one(server: NatsServer) -> None:
    nc = await nats.connect(server.url)
    js: JetStreamContext = nc.jetstream()
    config = next(c for c in stream_configs(StreamSettings()) if c.name == LOG)
    await js.add_stream(StreamConfig.from_response({**config.as_dict(), "allow_atomic": False}))
    log = JetStreamEventLog(js)
    appended = await log.append(_envelopes(100))
    assert [a.seq for a in appended] == list(range(1, 101))
    assert not log._atomic  # not tried again on this stream
    assert await _texts(log) == [f"m{i}" for i in range(100)]
    await nc.close()


async def test_ensure_streams_lets_a_log_made_before_atomic_appends_take_them(server: NatsServer) -> None:
    nc = await nats.connect(server.url)
    js: JetStreamContext = nc.jetstream()
    config = next(c for c in stream_configs(StreamSettings()) if c.name == LOG)
    await js.add_stream(StreamConfig.from_response({**config.as_dict(), "allow_atomic": False}))
    await ensure_streams(js)
    assert (await js.stream_info(LOG)).config.allow_atomic
    log = JetStreamEventLog(js)
    assert [a.seq for a in await log.append(_envelopes(100))] == list(range(1, 101)) and log._atomic
    await nc.close()


async def test_envelopes_encoded_by_the_caller_are_appended_as_they_are(server: NatsServer) -> None:
    from codememory.events.codec import encode_envelopes

    nc = await nats.connect(server.url)
    js: JetStreamContext = nc.jetstream()
    await ensure_streams(js)
    log = JetStreamEventLog(js)
    envelopes = _envelopes(100)
    encoded = encode_envelopes(envelopes)
    appended = await log.append_encoded(envelopes, encoded)
    assert [a.seq for a in appended] == list(range(1, 101))
    assert [r.data async for r in log.read(1)] == encoded
    with pytest.raises(ValueError, match="one encoded message per envelope"):
        await log.append_encoded(envelopes, encoded[:-1])
    await nc.close()
