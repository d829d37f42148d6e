"""Recall with one tenant of up to a million memories: p50/p99 over gRPC, gateway memory, shard open time.

The memories go through the gateway's real projection: ``memory.stored`` and ``memory.embedded``
envelopes folded by ``MemoryProjection`` (payloads, session context, code-aware BM25 vectors on the
replay's ``TermsPool``) into a Qdrant Edge shard laid out as the gateway's generation 1, then its HNSW
built (what a replay does). Embedding a million texts with the model would take about an hour here,
so the stored vectors are made as follows, and said so in RESULTS.md: ``--base`` real texts (LoCoMo
dialogue turns and observations, CoSQA code, this repository's documentation paragraphs) are
embedded by the real model (all-MiniLM-L6-v2); memory ``i`` is base text ``i % base`` plus a line of
its own (repository, ticket number), and its vector the base vector plus Gaussian noise, renormalised
to a cosine of about 0.85 with it (a near-paraphrase). Memories come in sessions of 20 over a year.

For each size, a separate process plays the restarted gateway: it loads the query model as the
gateway does (``configured_query_model``: ONNX Runtime by default), opens the shard as the gateway
does (``IndexGenerations.projection``, payload cache included; timed), and serves Recall over gRPC.
This process sends real questions (LoCoMo questions, CoSQA queries) with the query embedding done by
the server, and reads the server's peak resident memory (VmHWM) afterwards. Sizes grow in one shard:
the second size adds memories to the first one's.

    .venv/bin/python benchmarks/bench_million.py [--sizes 100000 300000] [--base 12000] [--queries 300]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import median, percentile, write_section

from shared_data import REPO, SHARED_DATA

DIM = 384
SESSION = 20  # memories per session
COSINE = 0.85  # of a derived vector with its base text's vector
FIRST_S_PER_MEMORY = 0.003  # a guess for the first size (fill, HNSW, queries) before one was measured


def real_texts(limit: int) -> list[str]:
    """LoCoMo turns and observations, CoSQA code, this repository's doc paragraphs: distinct, in order."""
    texts: list[str] = []
    for sample in json.loads((SHARED_DATA / "locomo" / "locomo_dev.json").read_text()):
        for key, turns in sample["conversation"].items():
            if key.startswith("session_") and isinstance(turns, list):
                texts.extend(f"{t['speaker']}: {t['text']}" for t in turns)
        for facts in sample.get("observation", {}).values():
            for speaker_facts in facts.values() if isinstance(facts, dict) else ():
                texts.extend(str(f[0]) for f in speaker_facts if f)
    texts.extend(json.loads((SHARED_DATA / "cosqa" / "code_idx_map.txt").read_text()))
    for doc in sorted([*REPO.glob("docs/**/*.md"), *REPO.glob("*.md")]):
        texts.extend(p.strip() for p in doc.read_text().split("\n\n") if len(p.strip()) > 80)
    return list(dict.fromkeys(t[:1500] for t in texts if t.strip()))[:limit]


def questions(count: int) -> list[str]:
    asked = [qa["question"] for s in json.loads((SHARED_DATA / "locomo" / "locomo_dev.json").read_text())
             for qa in s["qa"]]  # fmt: skip
    asked += [
        q["doc"] for q in json.loads((SHARED_DATA / "cosqa" / "cosqa-retrieval-dev-500.json").read_text())
    ]
    return [asked[i * len(asked) // count] for i in range(count)]


def _envelopes(start: int, stop: int, texts: list[str], vectors: np.ndarray, model_id: str) -> list[object]:
    from codememory.events import MemoryEmbedded, MemoryScope, MemoryStored, new_envelope
    from codememory.memory import text_digest

    gen = np.random.default_rng(start)
    sigma = np.sqrt((1 / COSINE**2 - 1) / DIM)
    noise = gen.standard_normal((stop - start, DIM)) * sigma
    out: list[object] = []
    year = 365 * 86400
    for n, i in enumerate(range(start, stop)):
        base = i % len(texts)
        text = f"{texts[base]}\n(repo{i % 37}, ticket CM-{i})"
        vector = vectors[base] + noise[n]
        vector /= np.linalg.norm(vector)
        mid = str(uuid.UUID(int=i + 1))
        created = f"{time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(1.7e9 + i * year / 1e6))}Z"
        scope = MemoryScope(repo=f"repo{i % 37}", session_id=f"s{i // SESSION}")
        stored = MemoryStored(memory_id=mid, text=text, scope=scope, created_at=created)
        embedded = MemoryEmbedded(
            memory_id=mid, model=model_id, text_digest=text_digest(text), vector=tuple(vector.tolist())
        )
        out += [new_envelope(e, event_id=str(uuid.UUID(int=(1 << 64) + 2 * i + k)), tenant="bench")
                for k, e in enumerate((stored, embedded))]  # fmt: skip
    return out


def fill(
    data_dir: Path, start: int, stop: int, texts: list[str], vectors: np.ndarray, model_id: str
) -> dict[str, float]:
    """Memories ``start``..``stop`` folded into generation 1 of ``data_dir``, then its HNSW built."""
    from codememory.gateway.indexes import IndexGenerations
    from codememory.lexical import SparseEncoder
    from codememory.lexical.pool import TermsPool

    generations = IndexGenerations(data_dir, DIM, model_id=model_id)
    projection = generations.projection(1, SparseEncoder())
    generations.commit(1)
    started, seq, folded_s = time.perf_counter(), projection.last_seq, 0.0
    with TermsPool(projection.encoder, 2) as pool:
        projection.terms, projection.deferred_sync = pool, True
        for chunk in range(start, stop, 2500):
            envelopes = _envelopes(chunk, min(stop, chunk + 2500), texts, vectors, model_id)
            t0 = time.perf_counter()
            projection.apply_batch([(seq + k + 1, env) for k, env in enumerate(envelopes)])  # type: ignore[misc]
            folded_s += time.perf_counter() - t0
            seq += len(envelopes)
        projection.sync()
    t0 = time.perf_counter()
    projection.index.optimize()
    hnsw_s = time.perf_counter() - t0
    projection.index.close()
    return {
        "fold_s": folded_s,
        "events": 2 * (stop - start),
        "hnsw_s": hnsw_s,
        "fill_s": time.perf_counter() - started,
    }


def serve(data_dir: Path, ready: Path) -> None:
    """The restarted gateway's serving path (run in its own process): model, shard, gRPC Recall."""
    import asyncio

    from codememory.events import InMemoryEventLog
    from codememory.gateway.coderpc import CodeServicer
    from codememory.gateway.core import GatewayCore
    from codememory.gateway.indexes import IndexGenerations
    from codememory.gateway.querymodels import configured_query_model
    from codememory.gateway.rpc import MemoryServicer
    from codememory.gateway.server import create_server
    from codememory.gateway.settings import GatewaySettings
    from codememory.lexical import SparseEncoder
    from codememory.projection import LiveProjection

    settings = GatewaySettings.from_env()
    t0 = time.perf_counter()
    embedder = configured_query_model(settings)
    model_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    generations = IndexGenerations(
        data_dir, DIM, payload_cache=settings.payload_cache, model_id=embedder.model_id
    )
    memory = generations.projection(generations.current(), SparseEncoder())
    open_s = time.perf_counter() - t0

    async def run() -> None:
        core = GatewayCore(
            LiveProjection(memory), InMemoryEventLog(), embedder, SparseEncoder(), weights=settings.weights
        )
        servicer = MemoryServicer(core, {"t": "bench"}, None, None)  # type: ignore[arg-type]
        code = CodeServicer(None, {"t": "bench"})  # type: ignore[arg-type]  # not exercised here
        server, port, _ = await create_server(servicer, code, "127.0.0.1:0", reflection_enabled=False)
        await server.start()
        ready.write_text(json.dumps({"port": port, "open_s": open_s, "model_s": model_s}))
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the parent closes it
        await server.stop(None)

    asyncio.run(run())


def _memory_kib(pid: int) -> dict[str, int]:
    """VmHWM (peak resident), VmRSS, and the resident anonymous and file-backed (mapped shard) parts."""
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    fields = ("VmHWM", "VmRSS", "RssAnon", "RssFile")
    return {line.split(":")[0]: int(line.split()[1]) for line in status if line.startswith(fields)}


def measure(data_dir: Path, queries: list[str]) -> dict[str, float]:
    import grpc

    from codememory.v1 import memory_pb2 as pb
    from codememory.v1 import memory_pb2_grpc

    ready = data_dir / "ready.json"
    ready.unlink(missing_ok=True)
    child = subprocess.Popen([sys.executable, __file__, "--serve", str(data_dir)], stdin=subprocess.PIPE)
    try:
        while not ready.is_file():
            if child.poll() is not None:
                raise SystemExit("the serving process died")
            time.sleep(0.1)
        info = json.loads(ready.read_text())
        channel = grpc.insecure_channel(f"127.0.0.1:{info['port']}")
        stub = memory_pb2_grpc.MemoryServiceStub(channel)
        meta = (("authorization", "Bearer t"),)
        t0 = time.perf_counter()
        stub.Recall(pb.RecallRequest(query=queries[0], limit=10), metadata=meta)
        first_ms = (time.perf_counter() - t0) * 1000
        for text in queries[1:21]:  # warm-up
            stub.Recall(pb.RecallRequest(query=text, limit=10), metadata=meta)
        took, server = [], []
        for text in queries:
            t0 = time.perf_counter()
            response = stub.Recall(pb.RecallRequest(query=text, limit=10), metadata=meta)
            took.append((time.perf_counter() - t0) * 1000)
            server.append(response.took_ms)
            assert len(response.hits) == 10, len(response.hits)
        kib = _memory_kib(child.pid)
        channel.close()
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=60)
    return {
        "p50": median(took),
        "p99": percentile(took, 99),
        "server_p50": median(server),
        "first_ms": first_ms,
        "open_s": info["open_s"],
        "peak_gib": kib["VmHWM"] / 2**20,
        "anon_gib": kib["RssAnon"] / 2**20,
        "file_gib": kib["RssFile"] / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 300_000])
    parser.add_argument("--base", type=int, default=12_000, help="real texts embedded by the model")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument(
        "--stop-by", type=float, default=0.0, help="epoch seconds: skip sizes that would end later"
    )
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.serve / "ready.json")
        return
    from codememory.embedding import load_default_embedder

    model = load_default_embedder()
    texts = real_texts(args.base)
    t0 = time.perf_counter()
    vectors = np.asarray(model.embed(texts), dtype=np.float64)
    embed_s = time.perf_counter() - t0
    print(f"{len(texts):,} real texts embedded in {embed_s:.0f} s", flush=True)
    model_id = model.model_id
    del model
    asked = questions(args.queries)
    skipped: list[int] = []
    rows = [
        "| memories | recall p50 ms | p99 ms | in the servicer p50 | first recall after restart ms "
        "| shard open s | gateway peak RSS GiB | of it now: anonymous / mapped files GiB | fold events/s "
        "| HNSW build s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    done: list[str] = []
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        data_dir, filled, spent = Path(tmp), 0, 0.0
        for size in sorted(args.sizes):
            # the last size's seconds per memory, a third more for the larger HNSW: skip what cannot finish
            needed = spent / filled * (size - filled) * 1.33 if filled else size * FIRST_S_PER_MEMORY
            if args.stop_by and time.time() + needed > args.stop_by:
                skipped.append(size)
                continue
            t0 = time.time()
            f = fill(data_dir, filled, size, texts, vectors, model_id)
            m = measure(data_dir, asked)
            spent, filled = spent + time.time() - t0, size
            cells = [f"{size:,}", f"{m['p50']:.1f}", f"{m['p99']:.1f}", f"{m['server_p50']:.1f}",
                     f"{m['first_ms']:.0f}", f"{m['open_s']:.2f}", f"{m['peak_gib']:.2f}",
                     f"{m['anon_gib']:.2f} / {m['file_gib']:.2f}",
                     f"{f['events'] / f['fold_s']:,.0f}", f"{f['hnsw_s']:.0f}"]  # fmt: skip
            done.append("| " + " | ".join(cells) + " |")
            print(done[-1], flush=True)
            _write(args, rows + done, texts, embed_s, skipped)
    if skipped and done:
        _write(args, rows + done, texts, embed_s, skipped)


def _write(
    args: argparse.Namespace, rows: list[str], texts: list[str], embed_s: float, skipped: list[int]
) -> None:
    fill_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    left_out = (
        " Not measured in this run (would not have finished in the session's time): "
        + ", ".join(f"{size:,}" for size in skipped)
        + "."
        if skipped
        else ""
    )
    body = "\n".join(rows) + (
        f"\n\nOne tenant; {args.queries} questions (LoCoMo questions and CoSQA queries) over gRPC, 10 hits, "
        "the query embedded by the server (ONNX Runtime, the gateway's default), after 20 warm-up queries. "
        "The serving process is a restarted gateway's serving path in its own process: query model and "
        "shard opened as the gateway opens them (payload cache on), Recall over gRPC; its peak RSS is VmHWM "
        f"after the queries. Vectors: {len(texts):,} real texts embedded by all-MiniLM-L6-v2 "
        f"({embed_s:.0f} s); "
        f"memory i is text i mod {len(texts):,} plus its own line (repository, ticket), its vector that "
        f"text's vector plus Gaussian noise, renormalised to a cosine of about {COSINE} with it. Memories "
        f"were folded by the gateway's projection (sessions of {SESSION}, lexical vectors on the replay's "
        f"worker pool), sizes growing in one shard. Peak RSS of the filling process: {fill_peak:.2f} GiB. "
        "Targets at 1,000,000: p50 <= 25 ms, p99 <= 60 ms, gateway RSS <= 4 GiB." + left_out
    )
    write_section("bench_million", "Recall at a million memories in one tenant", body)


if __name__ == "__main__":
    main()
