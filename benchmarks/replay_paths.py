"""The paths ``bench_replay_serving`` times, each run in a process of its own (``--worker KIND``).

``base`` folds LOG with the old tree's ``rebuild_memory`` (HNSW built before the swap); ``now`` (and
``head``: the same function on the old tree's modules) replays with ``Replayer`` as the gateway does,
under its serving collector, and times dense searches on the index that serves while the HNSW is
built and on the indexed one after. LOG is filled here too (``fill``), resumed where a kept one stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from pathlib import Path

import nats
import numpy as np
from results import median

from codememory.bus import JetStreamEventLog, ensure_streams

PACKAGES = (
    "apps",
    "libs",
    *(f"services/{s}" for s in ("consolidate", "embed", "gateway", "graph", "ingest")),
)
QUERIES = 20  # dense searches timed on each index


async def fill(url: str, memories: int, sealed: bool) -> int:
    """LOG filled up to ``memories`` pairs (resumed where an earlier run stopped), sealed or not."""
    from bench_replay import fill_log

    nc = await nats.connect(url)
    js = nc.jetstream()
    await ensure_streams(js)
    log = JetStreamEventLog(js)
    have = await log.last_seq()
    if have < 2 * memories:
        assert have == 0, f"LOG holds {have} events, not a multiple of this fill: use a fresh --nats-dir"
        await fill_log(log, memories, record=sealed)
    events = await log.last_seq()
    async for first in log.read_batches(1, until_seq=2, batch=2):  # a stored memory and its vector
        assert all((b'"cmseal1:' in r.data) == sealed for r in first), f"LOG not sealed={sealed}: --nats-dir"
    await nc.close()
    return events


def _queries(vectors: np.ndarray) -> list[list[float]]:
    gen = np.random.default_rng(11)
    picked = vectors[gen.choice(len(vectors), QUERIES, replace=False)]
    noisy = picked + gen.standard_normal(picked.shape) * (0.3 / np.sqrt(picked.shape[1]))  # cos ~0.96
    return (noisy / np.linalg.norm(noisy, axis=1, keepdims=True)).tolist()  # type: ignore[no-any-return]


def _search(index, queries: list[list[float]]) -> tuple[list[list[str]], float]:  # type: ignore[no-untyped-def]
    from codememory.vectorstore import IndexFilter

    flt, tops, took = IndexFilter(equals={"tenant": "bench"}), [], []
    for query in queries:
        started = time.perf_counter()
        tops.append([h.id for h in index.search_dense(query, flt, 10, with_payload=False)])
        took.append(time.perf_counter() - started)
    return tops, median(took) * 1000


async def _base(url: str, where: Path) -> dict[str, object]:
    from codememory.gateway.replay import rebuild_memory
    from codememory.lexical import SparseEncoder
    from codememory.memory import MemoryProjection, Position
    from codememory.projection import LiveProjection
    from codememory.vectorstore import EdgeVectorIndex

    def fresh(path: Path) -> MemoryProjection:
        return MemoryProjection(EdgeVectorIndex(path, 384), SparseEncoder(), Position(None))

    nc = await nats.connect(url)
    log = JetStreamEventLog(nc.jetstream())
    live = LiveProjection(fresh(where / "empty"))
    rebuilt = await rebuild_memory(live, log, fresh(where / "rebuilt"), readers_s=0)
    live.projection.index.close()  # digested by the parent, with this tree's ``index_digest``
    await nc.close()
    return {"events": rebuilt.events, "fold_s": rebuilt.fold_s, "hnsw_s": rebuilt.prepare_s}


async def _now(url: str, where: Path) -> dict[str, object]:
    from codememory.collector import ServingCollector
    from codememory.gateway.settings import GatewaySettings

    collector = ServingCollector()  # the gateway's collector while it serves (GC_THAW_S=0: CPython's)
    if GatewaySettings.from_env().gc_thaw_s > 0:
        collector.start()
    try:
        return await _replayed(url, where)
    finally:
        collector.stop()


async def _replayed(url: str, where: Path) -> dict[str, object]:
    from codememory.gateway.indexes import IndexGenerations, code_projection
    from codememory.gateway.replay import Replayer
    from codememory.lexical import SparseEncoder
    from codememory.projection import LiveProjection
    from codememory.vectorstore import IndexUnavailableError

    nc = await nats.connect(url)
    log = JetStreamEventLog(nc.jetstream())
    encoder = SparseEncoder()
    generations = IndexGenerations(where, 384, payload_cache=20_000, model_id="m")
    live = LiveProjection(generations.projection(generations.current(), encoder))
    code = LiveProjection(code_projection(where, 0, 384, encoder), name="code")
    replayer = Replayer(log, generations, encoder, live, code, data_dir=where, dense_size=384, readers_s=0.5)
    task = asyncio.create_task(replayer.replay())
    while not replayer.indexing and not task.done():
        await asyncio.sleep(0.02)
    serving = live.projection.index  # the fold, swapped in before its HNSW: searches scan exactly
    ids = [_point(i) for i in range(1, 2001, 7)]
    sample = [p.dense for p in await asyncio.to_thread(serving.get, ids, True)]
    queries = _queries(np.array(sample))
    exact, exact_ms = await asyncio.to_thread(_search, serving, queries)
    if os.environ.get("BENCH_SERVING_ONLY"):  # the HNSW build abandoned: a shorter locked run
        await replayer.stop()
        with contextlib.suppress(IndexUnavailableError):
            await task
        live.projection.index.close()
        code.projection.shard.close()
        await nc.close()
        assert replayer.served is not None
        events, fold_s, memory_s, served_s = replayer.served
        return {
            "events": events,
            "fold_s": fold_s,
            "memory_s": memory_s,
            "serving_s": served_s,
            "exact_ms": exact_ms,
        }
    during = 1
    while replayer.indexing:  # as recall does: whichever index serves now, 4 rounds a second
        await asyncio.to_thread(_search, live.projection.index, queries)
        await asyncio.sleep(0.25)
        during += 1
    done = await task
    assert replayer.served is not None
    indexed, indexed_ms = _search(live.projection.index, queries)
    agree = sum(a[:1] == b[:1] for a, b in zip(exact, indexed, strict=True)) / len(queries)
    live.projection.index.close()
    code.projection.shard.close()
    await nc.close()
    return {
        "events": done.events,
        "fold_s": done.fold_seconds,
        "serving_s": done.seconds,
        "memory_s": replayer.served[2],
        "index_s": done.index_seconds,
        "digest": done.digest_after,
        "exact_ms": exact_ms,
        "indexed_ms": indexed_ms,
        "top10_agree": agree,
        "rounds_during": during,
    }


def _point(i: int) -> str:
    """The point id of memory ``i`` of ``fill_log`` (ids are derived from tenant and memory id)."""
    import uuid

    from codememory.memory import point_id

    return point_id("bench", str(uuid.UUID(int=i)))


def worker(kind: str, url: str, where: str) -> None:  # head: ``_now`` on the old tree's modules
    run = _base if kind == "base" else _now
    if keys := os.environ.get("BENCH_KEYS"):  # --sealed: opened as the gateway opens it
        from bench_replay import seal_log

        seal_log(Path(keys))
    print("RESULT " + json.dumps(asyncio.run(run(url, Path(where)))), flush=True)
