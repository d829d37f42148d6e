"""The embed service's written models: a requested model is backfilled over LOG and written from then on.

An in-memory LOG and stand-in models (the real ones: the embedding and end-to-end tests). A request at
sequence S embeds every memory up to S with the new model and records the completion; memories after it
get both models' vectors from the live handler; asking for a model already written embeds nothing; a
restarted service learns its models from the model events and finishes an interrupted backfill.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Sequence

import pytest

from codememory.bus import Delivery
from codememory.embed import writers as writers_module
from codememory.embed.handler import EmbedHandler
from codememory.embed.writers import ModelWriters
from codememory.embedding import ModelSpec, parse_model
from codememory.embedding.migration import model_requested
from codememory.events import (
    EmbeddingBackfillCompleted,
    Envelope,
    InMemoryEventLog,
    MemoryEmbedded,
    MemoryStored,
    decode_envelope,
    new_envelope,
)


class Stand:
    def __init__(self, model_id: str, dim: int) -> None:
        self.model_id, self.dim = model_id, dim
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        self.calls += 1
        return [tuple(float(b) / 255 for b in hashlib.sha256(t.encode()).digest()[: self.dim]) for t in texts]


def _stored(n: int) -> Envelope:
    memory_id = str(uuid.UUID(int=n + 1))
    return new_envelope(MemoryStored(memory_id=memory_id, text=f"memory {n}"), event_id=memory_id, tenant="t")


def _events(log: InMemoryEventLog) -> list[Envelope]:
    return [decode_envelope(r.data) for r in log.records]


def _vectors(log: InMemoryEventLog, model: str) -> set[str]:
    return {
        e.payload.memory_id
        for e in _events(log)
        if isinstance(e.payload, MemoryEmbedded) and e.payload.model == model
    }


def _delivery(log: InMemoryEventLog, seq: int) -> Delivery:
    record = log.records[seq - 1]
    return Delivery(seq=seq, subject=record.subject, data=record.data, attempt=1)


async def test_a_requested_model_is_backfilled_then_written_beside_the_default() -> None:
    log = InMemoryEventLog()
    default, extra = Stand("local/a", 4), Stand("local/b", 6)
    loads: list[ModelSpec] = []

    def load(spec: ModelSpec) -> Stand:
        loads.append(spec)
        return extra

    writers = ModelWriters(default, load, log)
    handler = EmbedHandler(log, default, writers)
    await log.append([_stored(n) for n in range(5)])
    await handler([_delivery(log, s) for s in range(1, 6)])
    await log.append([model_requested(parse_model("local:/m/b"))])
    request_seq = await log.last_seq()
    await handler([_delivery(log, request_seq)])
    await asyncio.wait_for(writers.backfills_done(), 10)
    assert [s.model_id for s in loads] == ["local/b"]
    assert _vectors(log, "local/b") == _vectors(log, "local/a") and len(_vectors(log, "local/b")) == 5
    done = [e.payload for e in _events(log) if isinstance(e.payload, EmbeddingBackfillCompleted)]
    assert [(d.model_id, d.until_seq, d.memories) for d in done] == [("local/b", request_seq, 5)]
    await log.append([_stored(5)])
    await handler([_delivery(log, await log.last_seq())])
    assert str(uuid.UUID(int=6)) in _vectors(log, "local/b") & _vectors(log, "local/a")
    before, calls = len(log.records), extra.calls
    await log.append([model_requested(parse_model("local:/m/b"), nonce="again")])
    await handler([_delivery(log, await log.last_seq())])
    assert len(log.records) == before + 1 and extra.calls == calls and len(loads) == 1


async def test_a_model_that_cannot_load_is_dead_lettered_and_the_batch_still_embedded() -> None:
    log = InMemoryEventLog()
    default = Stand("local/a", 4)

    def broken(spec: ModelSpec) -> Stand:
        from codememory.embedding import EmbeddingError

        raise EmbeddingError("not installed here")

    handler = EmbedHandler(log, default, ModelWriters(default, broken, log))
    await log.append([_stored(0), model_requested(parse_model("mpnet"))])
    outcomes = await handler([_delivery(log, 1), _delivery(log, 2)])
    assert outcomes[0].verdict.value == "ack" and "not installed here" in (outcomes[1].reason or "")
    assert len(_vectors(log, "local/a")) == 1


async def test_a_restarted_service_resumes_its_models_and_an_unfinished_backfill() -> None:
    log = InMemoryEventLog()
    default, extra = Stand("local/a", 4), Stand("local/b", 6)
    await log.append([_stored(n) for n in range(3)])
    await log.append([model_requested(parse_model("local:/m/b"))])  # the service stopped right after

    async def model_events() -> list[tuple[int, Envelope]]:
        return [(r.seq, decode_envelope(r.data)) for r in log.records if "embedding" in r.subject]

    writers = ModelWriters(default, lambda spec: extra, log)
    handler = EmbedHandler(log, default, writers, model_events)
    await log.append([_stored(3)])
    await handler([_delivery(log, await log.last_seq())])
    assert [m.model_id for m in writers.memory_models] == ["local/a", "local/b"]
    await asyncio.wait_for(writers.backfills_done(), 10)
    assert len(_vectors(log, "local/b")) == 4


async def test_a_replica_that_did_not_receive_the_request_catches_up_what_it_embedded_meanwhile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log = InMemoryEventLog()
    default = Stand("local/a", 4)

    async def model_events() -> list[tuple[int, Envelope]]:
        return [(r.seq, decode_envelope(r.data)) for r in log.records if "embedding" in r.subject]

    first = ModelWriters(default, lambda spec: Stand("local/b", 6), log)
    second = ModelWriters(default, lambda spec: Stand("local/b", 6), log)
    one, two = (
        EmbedHandler(log, default, first, model_events),
        EmbedHandler(log, default, second, model_events),
    )
    await log.append([_stored(0)])
    await two([_delivery(log, 1)])  # both replicas have started (their first read of the model events)
    await log.append([model_requested(parse_model("local:/m/b"))])
    await one([_delivery(log, await log.last_seq())])  # the request reaches the first replica only
    await log.append([_stored(1)])
    await two([_delivery(log, await log.last_seq())])  # not looked again yet: memory 1 gets model a only
    await asyncio.wait_for(first.backfills_done(), 10)
    assert _vectors(log, "local/b") == {str(uuid.UUID(int=1))}
    monkeypatch.setattr(writers_module, "REFRESH_S", 0.0)
    await log.append([_stored(2)])
    await two([_delivery(log, await log.last_seq())])
    await asyncio.wait_for(second.backfills_done(), 10)
    assert _vectors(log, "local/b") == {str(uuid.UUID(int=n + 1)) for n in range(3)}


async def test_a_request_seen_by_a_refresh_before_its_own_delivery_is_still_backfilled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(writers_module, "REFRESH_S", 0.0)
    log = InMemoryEventLog()
    default = Stand("local/a", 4)

    async def model_events() -> list[tuple[int, Envelope]]:
        return [(r.seq, decode_envelope(r.data)) for r in log.records if "embedding" in r.subject]

    writers = ModelWriters(default, lambda spec: Stand("local/b", 6), log)
    handler = EmbedHandler(log, default, writers, model_events)
    await log.append([_stored(0), _stored(1)])
    await handler([_delivery(log, 1), _delivery(log, 2)])
    await log.append([model_requested(parse_model("local:/m/b"))])
    await handler([_delivery(log, await log.last_seq())])  # its refresh reads the request first
    await asyncio.wait_for(writers.backfills_done(), 10)
    assert len(_vectors(log, "local/b")) == 2


async def test_the_backfill_reads_log_in_windows_and_misses_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writers_module, "READ_WINDOW", 2)
    monkeypatch.setattr(writers_module, "BACKFILL_CHUNK", 1)
    log = InMemoryEventLog()
    default = Stand("local/a", 4)
    writers = ModelWriters(default, lambda spec: Stand("local/b", 6), log)
    await log.append([_stored(n) for n in range(5)])
    await log.append([model_requested(parse_model("local:/m/b"))])
    await EmbedHandler(log, default, writers)([_delivery(log, await log.last_seq())])
    await asyncio.wait_for(writers.backfills_done(), 10)
    assert len(_vectors(log, "local/b")) == 5
