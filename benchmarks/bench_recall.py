"""Recall over gRPC at 10K and 100K memories, query embedding included.

A real gRPC server on a port, the real model for each query, a real Qdrant Edge shard on disk. The
memories get synthetic texts (a code-and-prose vocabulary) and random unit vectors: embedding 100K
texts would take about 8 minutes here and HNSW latency does not depend on what the vectors mean.
Each size is measured with the query embedded by PyTorch (the baseline), by ONNX Runtime (on
`--query-threads`, default the gateway's 2), and by ONNX Runtime with payloads read through the
gateway's payload cache (its default), on the same shard; also the query embedding alone and the Edge
dense search alone. ``--layouts`` builds one shard per shard layout (``vectorstore.layout``: ``ram``,
``int8``, ``disk``) with the same memories and measures each; ``--runtimes`` picks the query paths.

    .venv/bin/python benchmarks/bench_recall.py [--sizes 10000 100000] [--queries 200] \
        [--layouts ram int8] [--runtimes torch onnx "onnx + payload cache"] [--section NAME]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

import grpc
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import median, percentile, write_section

from codememory.embedding import Embedder, load_default_embedder, query_embedder
from codememory.events import InMemoryEventLog
from codememory.gateway.coderpc import CodeServicer
from codememory.gateway.core import GatewayCore
from codememory.gateway.rpc import MemoryServicer
from codememory.gateway.server import create_server
from codememory.gateway.settings import GatewaySettings
from codememory.lexical import SparseEncoder, code_terms
from codememory.memory import MemoryDraft, MemoryProjection, Position, draft_payload
from codememory.projection import LiveProjection
from codememory.v1 import memory_pb2 as pb
from codememory.v1 import memory_pb2_grpc
from codememory.vectorstore import (
    DEFAULT_LAYOUT,
    LAYOUTS,
    EdgeVectorIndex,
    IndexFilter,
    IndexPoint,
    PayloadCachedIndex,
    layout_named,
)

WORDS = [
    "token",
    "validate",
    "session",
    "cache",
    "retry",
    "budget",
    "deploy",
    "canary",
    "migration",
    "schema",
    "index",
    "query",
    "parser",
    "lexer",
    "handler",
    "middleware",
    "auth",
    "jwt",
    "refresh",
    "expiry",
    "config",
    "loader",
    "plugin",
    "registry",
    "graph",
    "node",
    "edge",
    "commit",
    "branch",
    "merge",
    "conflict",
    "test",
    "fixture",
    "mock",
    "server",
    "client",
    "socket",
    "timeout",
    "backoff",
    "queue",
    "consumer",
    "producer",
    "stream",
    "validateToken",
    "parseConfig",
    "RetryPolicy",
    "src/auth/jwt_utils.py",
    "api/routes.py",
    "db/models.py",
]
RUNTIMES = ("torch", "onnx", "onnx + payload cache")
QUERIES = [
    "how do we validate tokens",
    "where is the retry budget configured",
    "canary deploy steps",
    "database migration order",
    "jwt refresh expiry",
    "consumer backoff on timeout",
    "parse config loader",
]


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 30)))


def _load(index: EdgeVectorIndex, size: int, dim: int) -> float:
    rng = random.Random(7)
    gen = np.random.default_rng(7)
    encoder = SparseEncoder()
    started = time.perf_counter()
    batch: list[IndexPoint] = []
    now = time.time()
    for i in range(size):
        draft = MemoryDraft(
            memory_id=str(uuid.UUID(int=i + 1)),
            tenant="bench",
            text=_text(rng),
            memory_type="note",
            repo=f"repo{i % 20}",
            created_at=now - rng.random() * 90 * 86400,
        )
        vector = gen.standard_normal(dim)
        vector /= np.linalg.norm(vector)
        batch.append(
            IndexPoint(
                id=draft.memory_id,
                payload=draft_payload(draft, i + 1),
                dense=tuple(vector.tolist()),
                sparse=encoder.encode_document(code_terms(draft.text)),
            )
        )
        if len(batch) == 1000:
            index.upsert(batch)
            batch = []
    if batch:
        index.upsert(batch)
    index.flush()
    index.optimize()  # what the gateway's background optimizer does after every few thousand events
    return time.perf_counter() - started


async def _measure_runtime(  # type: ignore[no-untyped-def]
    index: EdgeVectorIndex, size: int, queries: int, embedder, payload_cache: int
) -> dict[str, float]:
    position = Position(None)
    position.seq = size
    cache = PayloadCachedIndex(index, payload_cache) if payload_cache else None  # starts empty
    live = LiveProjection(MemoryProjection(cache or index, SparseEncoder(), position))
    core = GatewayCore(live, InMemoryEventLog(), embedder, SparseEncoder())
    servicer = MemoryServicer(core, {"t": "bench"}, None, None)  # type: ignore[arg-type]
    code_servicer = CodeServicer(None, {"t": "bench"})  # type: ignore[arg-type]  # not exercised here
    server, port, _ = await create_server(servicer, code_servicer, "127.0.0.1:0", reflection_enabled=False)
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    stub = memory_pb2_grpc.MemoryServiceStub(channel)
    meta = (("authorization", "Bearer t"),)
    texts = [f"{QUERIES[i % len(QUERIES)]} {i}" for i in range(queries)]
    for text in texts[:10]:  # warm-up
        await stub.Recall(pb.RecallRequest(query=text, limit=10), metadata=meta)
    grpc_ms, server_ms, embed_ms, search_ms = [], [], [], []
    for text in texts:
        t0 = time.perf_counter()
        response = await stub.Recall(pb.RecallRequest(query=text, limit=10), metadata=meta)
        grpc_ms.append((time.perf_counter() - t0) * 1000)
        server_ms.append(response.took_ms)
        assert len(response.hits) == 10
        t0 = time.perf_counter()
        vector = embedder.embed([text])[0]
        embed_ms.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        index.search_dense(vector, IndexFilter(equals={"tenant": "bench"}), 10)
        search_ms.append((time.perf_counter() - t0) * 1000)
    await channel.close()
    await server.stop(None)
    hits, reads = (cache.hits, cache.hits + cache.misses) if cache else (0, 0)
    return {
        "cache_hits": 100 * hits / reads if reads else 0.0,
        "p50": median(grpc_ms),
        "p95": percentile(grpc_ms, 95),
        "p99": percentile(grpc_ms, 99),
        "server_p50": median(server_ms),
        "embed_p50": median(embed_ms),
        "search_p50": median(search_ms),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--query-threads", type=int, default=GatewaySettings().query_threads, help="ONNX Runtime threads"
    )
    parser.add_argument("--layouts", nargs="+", default=[DEFAULT_LAYOUT], choices=list(LAYOUTS))
    parser.add_argument("--section", default="bench_recall", help="RESULTS.md section to write")
    parser.add_argument(
        "--runtimes", nargs="+", default=list(RUNTIMES), choices=list(RUNTIMES), help="torch: the baseline"
    )
    args = parser.parse_args()
    model = load_default_embedder()
    rows = [
        "| memories | layout | query runtime | recall p50 ms | p95 | p99 | in the servicer p50 "
        "| embed-only p50 | Edge dense search p50 "
        "| p50 / torch p50 | payload cache hits | load s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as cache:
        onnx = query_embedder("onnx", Path(cache), threads=args.query_threads, model=lambda: model)
        cached = GatewaySettings().payload_cache
        every: dict[str, tuple[Embedder, int]] = {
            "torch": (model, 0),
            "onnx": (onnx, 0),
            "onnx + payload cache": (onnx, cached),
        }
        runtimes = {name: every[name] for name in RUNTIMES if name in args.runtimes}
        for size, layout in ((s, layout_named(n)) for s in args.sizes for n in args.layouts):
            with tempfile.TemporaryDirectory() as tmp:
                index = EdgeVectorIndex(Path(tmp) / "shard", model.dim, layout=layout)
                load_s = _load(index, size, model.dim)
                measured = {
                    name: asyncio.run(_measure_runtime(index, size, args.queries, embedder, entries))
                    for name, (embedder, entries) in runtimes.items()
                }
                index.close()
            base = measured.get("torch")
            for name, r in measured.items():
                cells = [
                    f"{size:,}",
                    layout.name,
                    name,
                    *(f"{r[k]:.1f}" for k in ("p50", "p95", "p99", "server_p50", "embed_p50")),
                    f"{r['search_p50']:.2f}",
                    f"{r['p50'] / base['p50']:.2f}x" if base else "-",
                    f"{r['cache_hits']:.0f}%" if r["cache_hits"] else "-",
                    f"{load_s:.0f}",
                ]
                rows.append("| " + " | ".join(cells) + " |")
                print(rows[-1], flush=True)
    body = "\n".join(rows) + (
        f"\n\n{args.queries} queries per size and runtime over gRPC (hybrid: dense + BM25 candidates, "
        "scoring, 10 hits), the same shard for every runtime (one shard per layout, the same memories: "
        "`SHARD_LAYOUT`); torch is the baseline (the query through "
        "PyTorch, as before), onnx through ONNX Runtime (`QUERY_RUNTIME`), and onnx + payload cache what "
        "the gateway runs by default (`PAYLOAD_CACHE`, empty at the first query; the queries cycle through "
        f"{len(QUERIES)} phrasings, each with its own number, so lexical candidates repeat and dense ones, "
        "over random vectors, mostly do not). "
        "Targets at 100K: p50 <= 20 ms, p99 <= 50 ms."
    )
    write_section(args.section, "Recall latency over gRPC", body)


if __name__ == "__main__":
    main()
