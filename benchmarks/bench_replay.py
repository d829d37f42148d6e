"""Replay rate without re-embedding: LOG (JetStream, real nats-server) folded into a fresh Edge shard.

The log holds N memories as ``memory.stored`` plus ``memory.embedded`` (384-d vectors) pairs, as the
services write them. Replay reads LOG in order and applies every event; no model runs. Baseline in
the same run: reading LOG alone (decode included) without applying.

    .venv/bin/python benchmarks/bench_replay.py [--memories 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
import uuid
from pathlib import Path

import nats
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import write_section

from codememory.bus import JetStreamEventLog, ensure_streams
from codememory.events import MemoryEmbedded, MemoryStored, decode_envelope, new_envelope
from codememory.gateway.replay import rebuild_memory
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position, text_digest
from codememory.projection import LiveProjection
from codememory.runtime.natsd import NatsServer
from codememory.vectorstore import EdgeVectorIndex


async def fill_log(log: JetStreamEventLog, memories: int) -> int:
    """``memories`` stored memories, each with a random unit vector, appended to LOG (also used by
    ``bench_event_path``)."""
    gen = np.random.default_rng(3)
    batch = []
    for i in range(memories):
        mid = str(uuid.UUID(int=i + 1))
        text = f"memory {i}: the retry budget of service{i % 50} is {i % 7} attempts with jittered backoff"
        vector = gen.standard_normal(384)
        vector /= np.linalg.norm(vector)
        batch.append(
            new_envelope(MemoryStored(memory_id=mid, text=text), event_id=str(uuid.uuid4()), tenant="bench")
        )
        embedded = MemoryEmbedded(
            memory_id=mid, model="m", text_digest=text_digest(text), vector=tuple(vector.tolist())
        )
        batch.append(new_envelope(embedded, event_id=str(uuid.uuid4()), tenant="bench"))
        if len(batch) >= 500:
            await log.append(batch)
            batch = []
    if batch:
        await log.append(batch)
    return await log.last_seq()


async def _run(memories: int) -> tuple[int, float, float, float]:
    with tempfile.TemporaryDirectory() as tmp, NatsServer(Path(tmp) / "nats") as server:
        nc = await nats.connect(server.url)
        js = nc.jetstream()
        await ensure_streams(js)
        log = JetStreamEventLog(js)
        events = await fill_log(log, memories)
        started = time.perf_counter()
        count = 0
        async for record in log.read(1):
            decode_envelope(record.data)
            count += 1
        read_s = time.perf_counter() - started
        assert count == events
        live = LiveProjection(
            MemoryProjection(EdgeVectorIndex(Path(tmp) / "live", 384), SparseEncoder(), Position(None))
        )
        fresh = MemoryProjection(EdgeVectorIndex(Path(tmp) / "fresh", 384), SparseEncoder(), Position(None))
        rebuilt = await rebuild_memory(live, log, fresh)
        assert rebuilt.events == events, (rebuilt.events, events)
        await nc.close()
    return events, read_s, rebuilt.fold_s, rebuilt.prepare_s


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    args = parser.parse_args()
    events, read_s, fold_s, index_s = asyncio.run(_run(args.memories))
    body = (
        "| events | fold s | fold events/s | + HNSW build s | events/s incl. HNSW "
        "| LOG read+decode only, events/s | fold / read-only time |\n"
        "|---|---|---|---|---|---|---|\n"
        f"| {events:,} | {fold_s:.2f} | {events / fold_s:,.0f} | {index_s:.2f} "
        f"| {events / (fold_s + index_s):,.0f} "
        f"| {events / read_s:,.0f} | {fold_s / read_s:.2f}x |\n\n"
        f"{args.memories:,} memories as stored + embedded pairs (384-d); no model runs. "
        "Target: at least 10,000 events/s."
    )
    write_section("bench_replay", "Replay rate (no re-embedding)", body)


if __name__ == "__main__":
    main()
