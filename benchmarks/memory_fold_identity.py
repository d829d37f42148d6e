"""The memory fold of a bulk import, alone: where its time goes, and digests to compare across codes.

Builds N ``MemoryStored`` events as ``codememory import`` appends them (deterministic ids, sessions of
50, tagged, sealed as LOG holds them when ``--sealed``), then an update part that exercises every
other path of the fold: a dense vector for every 3rd memory, a refinement of every 11th, a
deprecation of every 13th and a forgetting of every 17th. LOG records are folded as the gateway
follows them (``fold_records`` in deliveries of ``--batch``) into a ``MemoryProjection`` over a Qdrant
Edge shard under the payload cache (the gateway's index), and, for comparison, into the two other
readers of LOG in the gateway's process (the code projection and consolidate's view).

Prints each part's seconds and memories/s, and two digests: every point (``index_digest``: id,
payload, both vectors) and the hits of a few lexical searches. Run it with each code on
``PYTHONPATH`` (e.g. a ``git archive`` of main) and compare the digests; ``--profile`` prints
cProfile's top functions of the memory fold.

    .venv/bin/python benchmarks/memory_fold_identity.py [--memories 5000] [--sealed] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import pstats
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from codememory.events import (
    Envelope,
    LogRecord,
    MemoryDeprecated,
    MemoryEmbedded,
    MemoryForgotten,
    MemoryRefined,
    MemoryScope,
    MemoryStored,
    log_subject,
    new_envelope,
)
from codememory.events.codec import encode_envelopes
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position, text_digest
from codememory.projection.fold import fold_records
from codememory.vectorstore import EdgeVectorIndex, IndexFilter, PayloadCachedIndex, index_digest

TENANT = "bench"
TOPICS = ("retry loop", "auth token", "cache layer", "parser", "deploy script")
ACTIONS = ("fixed", "reviewed", "rewrote", "documented", "tested")
QUERIES = ("retry loop fixed", "auth token", "parser tested release 7", "deploy script", "zqab", "note 42")
DIM = 8


def _at(i: int) -> datetime:
    """Fixed times (a day apart every 500 events): the digests must not depend on when it runs."""
    return datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=173 * i)


def _memory_id(i: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"memory-fold-identity/{i}"))


def stored_events(n: int) -> list[Envelope]:
    out = []
    for i in range(n):
        text = f"note {i}: {TOPICS[i % 5]} {ACTIONS[(i // 5) % 5]} since release {i // 25} zq{i:x}"
        event = MemoryStored(
            memory_id=_memory_id(i),
            text=text,
            memory_type="fact",
            scope=MemoryScope(repo=f"repo{i % 3}", session_id=f"s{i // 50}"),
            tags=("bench",),
            source="import",
        )
        ident = str(uuid.uuid5(uuid.NAMESPACE_OID, str(i)))
        out.append(new_envelope(event, event_id=ident, tenant=TENANT, occurred_at=_at(i)))
    return out


def update_events(n: int) -> list[Envelope]:
    out: list[Envelope] = []

    def add(event: Any) -> None:
        ident = str(uuid.uuid5(uuid.NAMESPACE_OID, f"update/{len(out)}"))
        out.append(new_envelope(event, event_id=ident, tenant=TENANT, occurred_at=_at(n + len(out))))

    for i in range(n):
        text = f"note {i}: {TOPICS[i % 5]} {ACTIONS[(i // 5) % 5]} since release {i // 25} zq{i:x}"
        mid = _memory_id(i)
        if i % 3 == 0:
            vector = tuple(((i * 7 + d) % 13) / 13.0 + 0.01 for d in range(DIM))
            add(MemoryEmbedded(memory_id=mid, model="m", vector=vector, text_digest=text_digest(text)))
        if i % 11 == 0:
            add(MemoryRefined(memory_id=mid, text=f"{text} refined"))
        if i % 13 == 0:
            add(MemoryDeprecated(memory_id=mid, reason="old"))
        if i % 17 == 0:
            add(MemoryForgotten(memory_id=mid, reason="asked"))
    return out


def records(envelopes: list[Envelope], first_seq: int) -> list[LogRecord]:
    data = encode_envelopes(envelopes)
    return [
        LogRecord(seq=first_seq + i, subject=log_subject(e), data=d)
        for i, (e, d) in enumerate(zip(envelopes, data, strict=True))
    ]


def fold_in(projection: Any, recs: list[LogRecord], batch: int, name: str) -> float:
    started = time.perf_counter()
    for at in range(0, len(recs), batch):
        folded = fold_records(projection, recs[at : at + batch], name=name)
        if folded.poisoned:
            raise SystemExit(f"{name}: poisoned {folded.poisoned[0].reason}")
    return time.perf_counter() - started


def search_digest(index: Any, encoder: SparseEncoder) -> str:
    digest = hashlib.sha256()
    for query in QUERIES:
        hits = index.search_sparse(encoder.encode_query(query), IndexFilter(equals={"tenant": TENANT}), 50)
        scored = sorted((-round(h.score, 4), h.id) for h in hits)
        if len(hits) == 50:  # hits tied with the last may be cut in any order: only those above it
            scored = [s for s in scored if s[0] < scored[-1][0]]
        digest.update(json.dumps(scored).encode())
    return digest.hexdigest()


def memory_projection(root: Path, encoder: SparseEncoder) -> MemoryProjection:
    shard = EdgeVectorIndex(root / "shard", DIM)
    return MemoryProjection(PayloadCachedIndex(shard, 20_000), encoder, Position(root / "position.json"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--batch", type=int, default=256, help="records per delivery to the fold")
    parser.add_argument("--sealed", action="store_true", help="LOG sealed, as codememory up writes it")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--others", action="store_true", help="also fold into the code projection and view")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if args.sealed:
            from codememory.sealing import SealingSettings, install_sealing

            install_sealing(SealingSettings(keystore_dir=root / "keys"))
        stored = records(stored_events(args.memories), 1)
        updates = records(update_events(args.memories), len(stored) + 1)
        encoder = SparseEncoder()
        projection = memory_projection(root / "memory", encoder)
        profiler = cProfile.Profile() if args.profile else None
        if profiler is not None:
            profiler.enable()
        import_s = fold_in(projection, stored, args.batch, "memory")
        if profiler is not None:
            profiler.disable()
        update_s = fold_in(projection, updates, args.batch, "memory")
        n = args.memories
        print(f"memory fold, import: {import_s:.2f} s, {n / import_s:,.0f} memories/s")
        print(f"memory fold, updates ({len(updates)} events): {update_s:.2f} s")
        if args.others:
            from codememory.consolidate.view import ConsolidationView
            from codememory.gateway.indexes import code_projection

            code = code_projection(root, 1, DIM, encoder)
            print(f"code projection, import: {fold_in(code, stored, args.batch, 'code'):.2f} s")
            view_s = fold_in(ConsolidationView(), stored, args.batch, "view")
            print(f"consolidate view, import: {view_s:.2f} s")
        print("points digest:", index_digest(projection.index, IndexFilter()))
        print("search digest:", search_digest(projection.index, encoder))
        if profiler is not None:
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
