"""A replay serves its fold while the HNSW is built apart, and recall answers the same throughout.

Real nats-server, real Qdrant Edge, the real query model (all-MiniLM-L6-v2), the gateway in this
process over gRPC. LOG holds 8,000 memories (enough for Qdrant Edge to build an HNSW graph): 200
texts embedded by the model plus filler memories with random vectors, appended as the services write
them. After Replay returns, Status says the index is building; recall during the build (an exact
scan) gives the same top hits as before the replay and after the HNSW is swapped in (near-copies
whose totals tie within the int8 quantization's error may trade places), and a memory
stored during the build is recallable at once and still there after the swap.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import grpc
import numpy as np
import pytest

from codememory.bus import JetStreamEventLog, ensure_streams
from codememory.bus.app import service_broker
from codememory.events import MemoryEmbedded, MemoryStored, new_envelope
from codememory.gateway.app import GatewayApp
from codememory.gateway.main import gateway_app, gateway_wiring
from codememory.gateway.settings import GatewaySettings
from codememory.gateway.wiring import load_query_embedder
from codememory.memory import text_digest
from codememory.runtime.natsd import NatsServer
from codememory.v1 import memory_pb2 as pb
from codememory.v1 import memory_pb2_grpc
from codememory.vectorstore import PayloadCachedIndex

META = (("authorization", "Bearer tok"),)
REAL, FILLER = 200, 7800
TOPICS = ("retry budget", "cache eviction", "token refresh", "schema migration", "rate limiter")


def _texts() -> list[str]:
    places = ("payments", "search", "billing", "auth", "ingest", "reports", "mailer", "scheduler")
    return [
        f"{TOPICS[i % 5]} of the {places[i // 5 % 8]} service, note {i}: case {i * 7 % 13}, step {i % 11}"
        for i in range(REAL)
    ]


async def _fill(log: JetStreamEventLog, vectors: list[tuple[float, ...]], texts: list[str]) -> None:
    gen = np.random.default_rng(5)
    batch = []
    for i in range(REAL + FILLER):
        mid = str(uuid.UUID(int=i + 1))
        if i < REAL:
            text, vector = texts[i], vectors[i]
        else:
            text = f"filler memory {i} about nothing in particular"
            raw = gen.standard_normal(384)
            vector = tuple((raw / np.linalg.norm(raw)).tolist())
        stored = MemoryStored(memory_id=mid, text=text)
        embedded = MemoryEmbedded(
            memory_id=mid,
            model="sentence-transformers/all-MiniLM-L6-v2",
            text_digest=text_digest(text),
            vector=vector,
        )
        batch += [new_envelope(e, event_id=str(uuid.uuid4()), tenant="alpha") for e in (stored, embedded)]
        if len(batch) >= 1000:
            await log.append(batch)
            batch = []
    await log.append(batch)


@pytest.fixture(scope="module")
async def gateway(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[GatewayApp, memory_pb2_grpc.MemoryServiceStub]]:
    import nats

    tmp = tmp_path_factory.mktemp("replay-serving")
    with NatsServer(tmp / "nats", sync_always=False) as server:
        settings = GatewaySettings(
            nats_url=server.url,
            listen="127.0.0.1:0",
            data_dir=tmp / "gateway",
            tokens={"tok": "alpha"},
            admin_tokens=frozenset({"tok"}),
            reflection=False,
        )
        model = load_query_embedder(settings)
        texts = _texts()
        nc = await nats.connect(server.url)
        await ensure_streams(nc.jetstream())
        await _fill(JetStreamEventLog(nc.jetstream()), list(model.embed(texts)), texts)
        await nc.close()
        broker = service_broker(server.url, "gateway")
        wiring = gateway_wiring(settings, broker, lambda: model)
        app = gateway_app(settings, broker, wiring)
        await app.start()
        try:
            assert wiring.app is not None
            async with grpc.aio.insecure_channel(f"127.0.0.1:{wiring.app.port}") as channel:
                yield wiring.app, memory_pb2_grpc.MemoryServiceStub(channel)
        finally:
            await app.stop()


async def _top(stub: memory_pb2_grpc.MemoryServiceStub, text: str) -> list[str]:
    return [memory_id for memory_id, _ in await _ranked(stub, text)]


async def _ranked(stub: memory_pb2_grpc.MemoryServiceStub, text: str) -> list[tuple[str, float]]:
    response = await stub.Recall(pb.RecallRequest(query=text, limit=5), metadata=META, timeout=30)
    return [(h.memory.id, h.score.total) for h in response.hits]


# An int8 HNSW scores with quantized vectors, up to 0.005 from the cosine (``layout.py``), and a
# replay builds a new generation, quantized anew; near-copies whose totals differ by less than this
# may trade places between generations, and the exact scan while one is built may order them either way.
QUANTIZED_TIE = 0.01


def _same_up_to_quantized_ties(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> bool:
    """``a`` and ``b`` rank alike: totals rank by rank within ``QUANTIZED_TIE``, and where the memories
    differ, each is in the other ranking at a total within it, or ties the other's last (the cut)."""
    if len(a) != len(b):
        return False
    totals_a, totals_b = dict(a), dict(b)
    for (id_a, total_a), (id_b, total_b) in zip(a, b, strict=True):
        if abs(total_a - total_b) > QUANTIZED_TIE:
            return False
        for mine, total, theirs, last in (
            (id_a, total_a, totals_b, b[-1][1]),
            (id_b, total_b, totals_a, a[-1][1]),
        ):
            elsewhere = theirs.get(mine)
            if elsewhere is None and abs(total - last) > QUANTIZED_TIE:
                return False
            if elsewhere is not None and abs(total - elsewhere) > QUANTIZED_TIE:
                return False
    return True


def test_rankings_alike_up_to_quantized_ties() -> None:
    one = [("a", 0.90), ("b", 0.800), ("c", 0.799), ("d", 0.5), ("e", 0.40)]
    assert _same_up_to_quantized_ties(one, one)
    assert _same_up_to_quantized_ties(one, [("a", 0.90), ("c", 0.801), ("b", 0.800), ("d", 0.5), ("e", 0.40)])
    assert _same_up_to_quantized_ties(one, [*one[:4], ("f", 0.405)])  # a tie at the cut
    assert not _same_up_to_quantized_ties(one, [("b", 0.90), ("a", 0.80), *one[2:]])  # not a tie
    assert not _same_up_to_quantized_ties(one, [*one[:4], ("f", 0.30)])
    assert not _same_up_to_quantized_ties(one, one[:4])


async def _status(stub: memory_pb2_grpc.MemoryServiceStub) -> pb.StatusResponse:
    return await stub.Status(pb.StatusRequest(), metadata=META, timeout=30)  # type: ignore[no-any-return]


async def _caught_up(stub: memory_pb2_grpc.MemoryServiceStub) -> None:
    """Until the gateway has applied the 16,000 events. While it first applies them its NATS
    connection has been seen to break and come back (the gateway logs ``follower_restarted``), and
    Status then fails until it is back: that is retried here, this test is about the replay."""
    async with asyncio.timeout(240):
        while True:
            try:
                s = await _status(stub)
            except grpc.aio.AioRpcError as exc:
                if exc.code() not in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE):
                    raise
                await asyncio.sleep(0.5)
                continue
            if s.projection_seq >= s.log_last_seq >= 2 * (REAL + FILLER):
                return
            await asyncio.sleep(0.2)


async def test_recall_answers_the_same_while_the_replay_builds_its_index(gateway) -> None:  # type: ignore[no-untyped-def]
    app, stub = gateway
    await _caught_up(stub)
    queries = [f"{topic} of the billing service" for topic in TOPICS]
    before = [await _ranked(stub, q) for q in queries]
    assert all(len(hits) == 5 for hits in before)
    thawed = app.collector.thaws
    replay = asyncio.ensure_future(stub.Replay(pb.ReplayRequest(), metadata=META, timeout=120))
    async with asyncio.timeout(60):
        while not (await _status(stub)).index_building:
            assert not replay.done(), "the replay ended before its index was built apart"
            await asyncio.sleep(0.05)
    served = app.live.projection.index
    assert isinstance(served, PayloadCachedIndex)
    assert served.inner.indexed_vectors() == REAL + FILLER  # the sparse ones only: dense searches scan
    late = await stub.Store(
        pb.StoreRequest(text="stored while the replay indexed: the canary flag"), metadata=META, timeout=30
    )
    during: list[list[list[tuple[str, float]]]] = []
    canary: list[str] = []
    while (await _status(stub)).index_building:
        during.append([await _ranked(stub, q) for q in queries])
        canary.append((await _top(stub, "the canary flag stored while the replay indexed"))[0])
    assert during, "the index was built before a recall could run during it"
    done = await replay
    assert done.digest_after == done.digest_before and done.events >= 2 * (REAL + FILLER), done
    assert app.collector.thaws == thawed + 1  # the whole heap walked once the old projections were let go
    assert 0 < done.fold_seconds <= done.seconds <= done.index_seconds, done
    after = [await _ranked(stub, q) for q in queries]
    assert all(map(_same_up_to_quantized_ties, before, after)), (before, after)
    assert all(
        _same_up_to_quantized_ties(x, y) for answers in during for x, y in zip(answers, after, strict=True)
    ), (
        during,
        after,
    )
    assert set(canary) == {late.memory_id}, canary
    assert (await _top(stub, "the canary flag stored while the replay indexed"))[0] == late.memory_id
    indexed = app.live.projection.index
    assert isinstance(indexed, PayloadCachedIndex) and indexed.inner.indexed_vectors() >= 2 * (REAL + FILLER)
    assert indexed.inner.path.parent.name == f"gen-{app.generations.current()}"
    status = await _status(stub)
    assert not status.index_building and status.memories == REAL + FILLER + 1
