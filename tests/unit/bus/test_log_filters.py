"""Services read only the LOG kinds they fold, on a real nats-server, and fold the same as before.

A LOG of real hook events (every sample payload through ingest) and of memories, vectors, code facts and
consolidation results is followed twice: whole, as before, and filtered to the projection's ``FOLDS``.
The filtered follower receives exactly the events of those kinds, and the projection it builds equals
the one built from all of LOG. A durable consumer made for all of LOG is narrowed in place when its
service starts with kinds, keeps its position, and starts again with the same configuration.
"""

from __future__ import annotations

import asyncio
import json
import pickle
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import nats
import pytest
from durablerun import running  # type: ignore[import-not-found]
from nats.js.client import JetStreamContext

from codememory import subjects
from codememory.bus import ACK, Delivery, JetStreamEventLog, Outcome, ensure_streams
from codememory.bus.follower import Follower, last_on
from codememory.bus.logbatches import follow
from codememory.bus.streams import LOG
from codememory.consolidate.view import ConsolidationView
from codememory.events import (
    CommitRecorded,
    CommitReviewed,
    ConsolidationCompleted,
    EmbeddingModelRequested,
    Envelope,
    Event,
    MemoriesMerged,
    MemoryEmbedded,
    MemoryForgotten,
    MemoryStored,
    SymbolsEmbedded,
    SymbolsExtracted,
    ToolObserved,
    log_filters,
    new_envelope,
)
from codememory.ingest.message import to_envelopes
from codememory.projection import LiveProjection
from codememory.reviews.view import ReviewsView
from codememory.runtime.natsd import NatsServer
from codememory.topology import Consumer, Service
from shared_data import HOOKS_DATA  # type: ignore[import-not-found]


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[NatsServer]:
    with NatsServer(tmp_path / "nats") as running:
        yield running


@pytest.fixture
async def js(server: NatsServer) -> AsyncIterator[JetStreamContext]:
    nc = await nats.connect(server.url)
    await ensure_streams(nc.jetstream())
    yield nc.jetstream()
    await nc.close()


def _hook_envelopes() -> list[Envelope]:
    """Every sample hook payload as ingest turns it into events."""
    envelopes = []
    for path in sorted(HOOKS_DATA.glob("*.json")):
        agent = path.name.split("_", 1)[0]
        message = {
            "v": 1,
            "agent": agent,
            "event": "",
            "tenant": "acme",
            "received_at": "2026-11-22T06:00:00.123456Z",
            "dedupe_key": uuid.uuid4().hex,
            "repo": "r",
            "repo_root": "/r",
            "branch": "main",
            "user": "u",
            "trimmed": [],
            "payload": json.loads(path.read_text()),
        }
        message["event"] = message["payload"].get("hook_event_name", "")
        envelopes += to_envelopes(json.dumps(message).encode())
    return envelopes


def _other_events() -> list[Event]:
    vector = (0.6, 0.8, 0.0)
    events: list[Event] = []
    for i in range(4):
        memory_id = f"m{i}"
        events.append(MemoryStored(memory_id=memory_id, text=f"decision {i}"))
        events.append(MemoryEmbedded(memory_id=memory_id, model="x", text_digest="d", vector=vector))
    events += [
        SymbolsExtracted(repo="r", path="a.py", content_hash="h"),
        SymbolsEmbedded(repo="r", path="a.py", content_hash="h", model="x", qualnames=(), vectors=()),
        CommitRecorded(repo="r", sha="abc"),
        CommitReviewed(review_id="rv", repo="r", sha="abc"),
        MemoriesMerged(canonical_id="m0", merged_ids=("m1",)),
        MemoryForgotten(memory_id="m2"),
        ConsolidationCompleted(cycle_id="c", up_to_seq=3),
        EmbeddingModelRequested(model="x"),
    ]
    return events


async def _fill(js: JetStreamContext) -> list[Envelope]:
    hooks = _hook_envelopes()
    others = [new_envelope(e, event_id=uuid.uuid4().hex, tenant="acme") for e in _other_events()]
    envelopes = [e for pair in zip(hooks, others, strict=False) for e in pair]
    envelopes += hooks[len(others) :] + others[len(hooks) :]
    await JetStreamEventLog(js).append(envelopes)
    return envelopes


def _kinds_at(envelopes: Sequence[Envelope], kinds: Sequence[type[Event]]) -> list[int]:
    return [seq for seq, e in enumerate(envelopes, 1) if isinstance(e.payload, tuple(kinds))]


async def test_a_follower_receives_the_kinds_it_folds_and_nothing_else(js: JetStreamContext) -> None:
    envelopes = await _fill(js)
    for kinds in (ReviewsView.FOLDS, ConsolidationView.FOLDS):
        wanted = _kinds_at(envelopes, kinds)
        assert 0 < len(wanted) < len(envelopes)  # the mix has kinds on both sides of the filter
        received: list[int] = []
        batches = follow(js, 1, filters=log_filters(kinds))
        async with asyncio.timeout(10):
            async for records in batches:
                received += [r.seq for r in records]
                tags = {r.subject.split(".", 3)[3] for r in records}
                assert all(subjects.log_of_kind(tag) in log_filters(kinds) for tag in tags)
                if len(received) >= len(wanted):
                    break
        await batches.aclose()
        assert received == wanted
        assert await last_on(js, log_filters(kinds)) == wanted[-1]


async def test_log_end_is_the_last_event_of_the_kinds_or_nothing(js: JetStreamContext) -> None:
    envelopes = await _fill(js)
    assert await last_on(js, log_filters([ToolObserved])) == _kinds_at(envelopes, [ToolObserved])[-1]
    assert await last_on(js, (subjects.LOG_ALL,)) == len(envelopes)
    assert await last_on(js, log_filters([MemoriesMerged, SymbolsEmbedded])) == max(
        _kinds_at(envelopes, [MemoriesMerged, SymbolsEmbedded])
    )
    assert await last_on(js, log_filters([MemoriesMerged, CommitRecorded])) == max(
        _kinds_at(envelopes, [MemoriesMerged, CommitRecorded])
    )
    from codememory.events import DataErased

    assert await last_on(js, log_filters([DataErased])) == 0  # none in LOG
    info = await js.stream_info(LOG)
    assert info.state.consumer_count == 0  # the consumers asked are gone


async def _followed(js: JetStreamContext, view: Any, kinds: Sequence[type[Event]]) -> Any:
    live: LiveProjection[Any] = LiveProjection(view, name="t")
    follower = Follower(js, live, kinds=kinds)
    follower.start()
    try:
        assert await live.wait_for(await follower.log_end(), 10.0)
    finally:
        await follower.stop()
    return view


async def test_a_filtered_projection_equals_the_one_folded_from_all_of_log(js: JetStreamContext) -> None:
    await _fill(js)
    whole = await _followed(js, ReviewsView(), ())
    part = await _followed(js, ReviewsView(), ReviewsView.FOLDS)
    assert pickle.dumps(part.tenants) == pickle.dumps(whole.tenants)
    assert [(s, e.event_id) for s, e in part._deferred] == [(s, e.event_id) for s, e in whole._deferred]
    assert part._deferred and any(t.sessions._by_id for t in part.tenants.values())
    whole = await _followed(js, ConsolidationView(), ())
    part = await _followed(js, ConsolidationView(), ConsolidationView.FOLDS)
    assert pickle.dumps(part.tenants) == pickle.dumps(whole.tenants)
    assert part.tenants["acme"].memories and part.tenants["acme"].sessions
    assert part.last_seq < whole.last_seq  # the last events of LOG are of kinds it does not fold


class Recording:
    def __init__(self) -> None:
        self.seqs: list[int] = []

    async def __call__(self, deliveries: Sequence[Delivery]) -> list[Outcome]:
        self.seqs += [d.seq for d in deliveries]
        return [ACK for _ in deliveries]


async def _consume(server: NatsServer, service: Service, until: Callable[[Recording], bool]) -> Recording:
    handler = Recording()
    async with running(server, service, handler):
        async with asyncio.timeout(15):
            while not until(handler):
                await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # nothing more comes
    return handler


async def test_a_durable_of_all_of_log_is_narrowed_in_place_and_restarts(
    server: NatsServer, js: JetStreamContext
) -> None:
    first = await _fill(js)
    old = Service(name="rv", consumers=(Consumer(stream=LOG, durable="rv", filter_subject=subjects.LOG_ALL),))
    done = await _consume(server, old, lambda h: len(h.seqs) >= len(first))
    assert done.seqs == list(range(1, len(first) + 1))

    second = await _fill(js)
    kinds = (CommitRecorded, ToolObserved)
    new = Service(name="rv", consumers=(Consumer(stream=LOG, durable="rv", kinds=kinds),))
    wanted = [len(first) + seq for seq in _kinds_at(second, kinds)]
    narrowed = await _consume(server, new, lambda h: len(h.seqs) >= len(wanted))
    assert narrowed.seqs == wanted  # only its kinds, from where it was
    info = await js.consumer_info(LOG, "rv")
    assert sorted(info.config.filter_subjects or ()) == sorted(log_filters(kinds))

    third = await _fill(js)  # a restart with the durable as it is now
    wanted = [len(first) + len(second) + seq for seq in _kinds_at(third, kinds)]
    again = await _consume(server, new, lambda h: len(h.seqs) >= len(wanted))
    assert again.seqs == wanted
