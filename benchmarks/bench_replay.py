"""Replay rate without re-embedding: LOG (JetStream, real nats-server) folded into a fresh Edge shard.

The log holds N memories as ``memory.stored`` plus ``memory.embedded`` (384-d vectors) pairs, as the
services write them. Replay reads LOG in order and applies every event; no model runs. In the same
run, on the same LOG, interleaved: reading LOG alone (decode included); the rebuild as it was before
(``rebuild_memory(apart=False)``: the fold and the shard's writes in the gateway's process, lexical
vectors on two worker processes); and the rebuild as the gateway runs it now (``rebuild_memory``: the
shard written by a ``ShardBuilder`` child while the gateway folds), its HNSW built on the engine's
choice of threads (one on 2 cores, the gateway's default) and on 2 (``REBUILD_INDEXING_THREADS=2``).
Every rebuilt projection must have the same digest. ``--paths`` picks some of them (a shorter run).

    .venv/bin/python benchmarks/bench_replay.py [--memories 50000] [--runs 3] [--paths before,now,now2]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

import nats
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import median, write_section

from codememory.bus import JetStreamEventLog, ensure_streams
from codememory.events import MemoryEmbedded, MemoryStored, decode_envelope, new_envelope
from codememory.gateway.replay import rebuild_memory
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position, text_digest
from codememory.projection import LiveProjection, Rebuilt
from codememory.runtime.natsd import NatsServer
from codememory.vectorstore import EdgeVectorIndex, IndexFilter, index_digest


async def fill_log(log: JetStreamEventLog, memories: int, *, record: bool = False) -> int:
    """``memories`` stored memories, each with a random unit vector, appended to LOG (also used by
    ``bench_event_path``). ``record``: as the embed service writes it, each vector names its memory's
    record and holds float32 values (the model's), so a sealer installed in the codec (``seal_log``)
    seals it too, packed as float32 (``sealed_vector``)."""
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
            memory_id=mid,
            model="m",
            text_digest=text_digest(text),
            vector=tuple((vector.astype(np.float32) if record else vector).tolist()),
            record=f"m:{mid}" if record else "",
        )
        batch.append(new_envelope(embedded, event_id=str(uuid.uuid4()), tenant="bench"))
        if len(batch) >= 500:
            await log.append(batch)
            batch = []
    if batch:
        await log.append(batch)
    return await log.last_seq()


def seal_log(keys: Path | None) -> None:
    """This process seals what it appends to LOG and opens what it reads, with the key store at
    ``keys`` (a ``FileKeyStore``, as ``codememory up`` makes it under its home); None: no sealing."""
    from codememory.events.codec import install_sealer
    from codememory.sealing import SealingSettings, install_sealing

    if keys is None:
        install_sealer(None)
    else:
        install_sealing(SealingSettings(keystore_dir=keys))


def _fresh(path: Path) -> MemoryProjection:
    return MemoryProjection(EdgeVectorIndex(path, 384), SparseEncoder(), Position(None))


PATHS = {  # key: (row, apart, HNSW build threads)
    "before": ("before: fold and shard writes in one process", False, 0),
    "now": ("now: shard written by a child (`ShardBuilder`), HNSW on the engine's threads", True, 0),
    "now2": ("now, HNSW on 2 threads (`REBUILD_INDEXING_THREADS=2`)", True, 2),
}


async def _rebuild(
    live: LiveProjection[MemoryProjection], log: JetStreamEventLog, path: Path, *, apart: bool, threads: int
) -> tuple[Rebuilt[MemoryProjection], str]:
    fresh = _fresh(path)
    rebuilt = await rebuild_memory(live, log, fresh, readers_s=0, apart=apart, indexing_threads=threads)
    return rebuilt, index_digest(live.projection.index, IndexFilter())


async def _run(memories: int, runs: int, paths: list[str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp, NatsServer(Path(tmp) / "nats") as server:
        nc = await nats.connect(server.url)
        js = nc.jetstream()
        await ensure_streams(js)
        log = JetStreamEventLog(js)
        started = time.perf_counter()
        events = await fill_log(log, memories)
        fill_s = time.perf_counter() - started
        started = time.perf_counter()
        count = 0
        async for records in log.read_batches(1, until_seq=events, batch=5000):
            for record in records:
                decode_envelope(record.data)
            count += len(records)
        read_s = time.perf_counter() - started
        assert count == events
        live = LiveProjection(_fresh(Path(tmp) / "empty"))
        timings: dict[str, list[float]] = {}
        digests = set()
        for run in range(runs):
            for key in paths:
                _, apart, threads = PATHS[key]
                where = Path(tmp) / f"{key}-{run}"
                rebuilt, digest = await _rebuild(live, log, where, apart=apart, threads=threads)
                shutil.rmtree(rebuilt.old.index.path, ignore_errors=True)  # type: ignore[attr-defined]
                assert rebuilt.events == events, (rebuilt.events, events)
                digests.add(digest)
                timings.setdefault(f"{key}_fold_s", []).append(rebuilt.fold_s)
                timings.setdefault(f"{key}_hnsw_s", []).append(rebuilt.prepare_s)
                print(key, run, f"fold {rebuilt.fold_s:.2f}s hnsw {rebuilt.prepare_s:.2f}s", flush=True)
        assert len(digests) == 1, "the rebuilt projections differ"
        live.projection.index.close()
        await nc.close()
    medians = {k: median(v) for k, v in timings.items()}
    return {"events": events, "fill_s": fill_s, "read_s": read_s, **medians}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print only (while iterating)")
    parser.add_argument("--paths", default="before,now,now2", help=f"some of {','.join(PATHS)}")
    args = parser.parse_args()
    paths = [p for p in args.paths.split(",") if p]
    if not paths or set(paths) - set(PATHS):
        parser.error(f"--paths: some of {', '.join(PATHS)}")
    r = asyncio.run(_run(args.memories, args.runs, paths))
    events = r["events"]
    rows = [
        "| rebuild | events | fold s | fold events/s | + HNSW build s | events/s incl. HNSW |",
        "|---|---|---|---|---|---|",
    ]
    for key in paths:
        name = PATHS[key][0]
        fold_s, hnsw_s = r[f"{key}_fold_s"], r[f"{key}_hnsw_s"]
        rows.append(
            f"| {name} | {events:,.0f} | {fold_s:.2f} | {events / fold_s:,.0f} | {hnsw_s:.2f} "
            f"| {events / (fold_s + hnsw_s):,.0f} |"
        )
        print(rows[-1], flush=True)
    ratios = []
    if "before" in paths and "now" in paths:
        ratios.append(f"Fold now / before: {r['before_fold_s'] / r['now_fold_s']:.2f}x faster")
    if "now2" in paths and "now" in paths:
        one, two = r["now_hnsw_s"], r["now2_hnsw_s"]
        ratios.append(f"HNSW build on 2 threads / the engine's: {one / two:.2f}x faster")
    body = "\n".join(rows) + (
        f"\n\n{'; '.join(ratios)}; medians of {args.runs} "
        f"interleaved runs; every rebuilt projection has the same digest. {args.memories:,} memories as "
        "stored + embedded pairs (384-d); no model runs. "
        f"Reading LOG alone (batched, decode included): {events / r['read_s']:,.0f} events/s. "
        "Both: chunks of 5,000 events, lexical vectors on 2 worker processes, one flush before the HNSW "
        "build. Before: the Edge shard written in the folding process (handing a point to Qdrant Edge costs "
        "~140 us of GIL-held time there, its ~20 payload values converted one by one). Now: a `ShardBuilder` "
        "child process owns the shard while the gateway folds (batch n written while n+1 is folded), reads "
        "answered from the last batches sent or by the child behind the writes, and payload values most "
        "points of a batch share handed to the engine once (`set_payload` over their ids). "
        "Target: at least 10,000 events/s."
    )
    if not args.no_write:
        write_section("bench_replay", "Replay rate (no re-embedding)", body)


if __name__ == "__main__":
    main()
