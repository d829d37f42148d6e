"""A consolidation cycle over 100,000 memories: fold and cycle time, peak memory, and recall beside it.

A worker process (the consolidate service's place) folds N memories (``memory.stored`` and
``memory.embedded`` envelopes with 384-dimension vectors in clusters: restatements, changed values and
unrelated memories) into a ``ConsolidationView`` and runs one full cycle, the first over the store,
where every memory is new. It reports fold and cycle seconds and its peak RSS. Meanwhile this process
serves recall as the gateway does (``Recaller`` over a Qdrant Edge shard of the same N memories,
queries embedded by the real model through ONNX Runtime): p50 while idle, then p50 while the cycle
runs, same run. The worker gets one BLAS thread (the consolidate Deployment's CPU limit is one core).

    .venv/bin/python benchmarks/bench_consolidation_scale.py [--memories 100000] [--quick]
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
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import median, write_section

DIM = 384
_WORD_LIST = """cache retry timeout client server queue worker index schema migration deploy release
branch lint format test fixture config logging metrics tracing token session payment cart order user
invoice search graph parser module service gateway stream consumer batch vector model"""
WORDS = _WORD_LIST.split()
QUERIES = (
    "how do we retry failed payments",
    "which port does the gateway listen on",
    "what is the release branch naming rule",
    "where are metrics exported",
    "how long is the client timeout",
)


def generate(n: int, seed: int = 7) -> list[tuple[str, str, np.ndarray, float]]:
    """(id, text, unit vector, created_at) in clusters of about ten: near copies and changed values."""
    rng = np.random.default_rng(seed)
    rows = []
    start = 1_700_000_000.0
    clusters = max(1, n // 10)
    centers = rng.normal(size=(clusters, DIM)).astype(np.float32)
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    for i in range(n):
        c = int(rng.integers(clusters))
        noise = 0.012 if c % 2 == 0 else 0.03  # even clusters restate, odd ones drift apart
        vector = centers[c] + rng.normal(scale=noise, size=DIM).astype(np.float32)
        vector /= np.linalg.norm(vector)
        words = [WORDS[(c * 7 + k) % len(WORDS)] for k in range(5)]
        value = f" set to {int(rng.integers(3))}" if c % 3 == 0 else ""
        text = f"The {words[0]} {words[1]} uses {words[2]} for {words[3]} {words[4]}{value}"
        rows.append((str(uuid.UUID(int=i + 1)), text, vector, start + i * 30.0))
    return rows


def worker(n: int) -> None:
    from codememory.consolidate.cycle import run_cycle
    from codememory.consolidate.policy import ConsolidationPolicy
    from codememory.consolidate.view import ConsolidationView
    from codememory.events import MemoryEmbedded, MemoryScope, MemoryStored, new_envelope
    from codememory.memory import text_digest

    view = ConsolidationView()
    fold_s = 0.0
    batch = []
    for i, (mid, text, vector, at) in enumerate(generate(n)):  # folded in batches, as the follower does
        when = datetime.fromtimestamp(at, UTC)
        scope = MemoryScope(repo="shop", session_id=f"s{i // 40}")
        kind = "decision" if i % 4 else "note"
        stored = MemoryStored(memory_id=mid, text=text, memory_type=kind, scope=scope)
        vec = tuple(float(x) for x in vector)
        embedded = MemoryEmbedded(memory_id=mid, model="m", text_digest=text_digest(text), vector=vec)
        batch.append((2 * i + 1, new_envelope(stored, event_id=mid, tenant="t", occurred_at=when)))
        batch.append((2 * i + 2, new_envelope(embedded, event_id=f"e{mid}", tenant="t", occurred_at=when)))
        if len(batch) >= 2000:
            started = time.perf_counter()
            view.apply_batch(batch)
            fold_s += time.perf_counter() - started
            batch = []
    view.apply_batch(batch)
    folded_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("cycle-started", flush=True)
    started = time.perf_counter()
    out = run_cycle(view.tenant("t"), "t", ConsolidationPolicy(), now=time.time(), up_to_seq=view.last_seq)
    cycle_s = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "fold_s": fold_s,
                "cycle_s": cycle_s,
                "peak_mb": peak_mb,
                "folded_mb": folded_mb,
                "counts": dict(out.counts),
            }
        ),
        flush=True,
    )


def recall_index(n: int, path: Path):  # type: ignore[no-untyped-def]
    from codememory.embedding import query_embedder
    from codememory.lexical import SparseEncoder, code_terms
    from codememory.recall import Recaller
    from codememory.vectorstore import EdgeVectorIndex, IndexPoint

    index = EdgeVectorIndex(path, DIM)
    encoder = SparseEncoder()
    batch = []
    for mid, text, vector, at in generate(n):
        payload = {
            "tenant": "t",
            "memory_id": mid,
            "text": text,
            "type": "decision",
            "repo": "shop",
            "state": "active",
            "created_at": at,
            "importance": 0.5,
            "created_seq": 0,
        }
        sparse = encoder.encode_document(code_terms(text))
        batch.append(
            IndexPoint(id=mid, payload=payload, dense=tuple(float(x) for x in vector), sparse=sparse)
        )
        if len(batch) == 2000:
            index.upsert(batch)
            batch = []
    index.upsert(batch)
    index.optimize()
    embedder = query_embedder("onnx", path.parent / "models", threads=1)
    return Recaller(index, embedder, encoder)


def recall_times(recaller, count: int, stop=None) -> list[float]:  # type: ignore[no-untyped-def]
    from codememory.recall import RecallQuery

    times = []
    i = 0
    while (stop is None and i < count) or (stop is not None and stop.poll() is None and i < 100_000):
        started = time.perf_counter()
        recaller.recall(RecallQuery(tenant="t", text=QUERIES[i % len(QUERIES)] + f" {i}", repo="shop"))
        times.append((time.perf_counter() - started) * 1000)
        i += 1
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="10,000 memories, no RESULTS.md section")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return
    n = 10_000 if args.quick else args.memories
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        recaller = recall_index(n, Path(tmp) / "shard")
        build_s = time.perf_counter() - started
        idle = recall_times(recaller, 300)
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", str(n)], stdout=subprocess.PIPE, text=True, env=env
        )
        assert proc.stdout is not None
        while proc.stdout.readline().strip() != "cycle-started":
            if proc.poll() is not None:
                raise SystemExit("the worker ended before its cycle")
        during = recall_times(recaller, 0, stop=proc)
        report = json.loads(proc.stdout.readline())
        proc.wait()
        idle_after = recall_times(recaller, 300)
    idle_p50, during_p50 = median(idle + idle_after), median(during)
    counts = ", ".join(f"{v:,} {k}" for k, v in sorted(report["counts"].items()))
    rows = [
        f"| memories | {n:,} |",
        f"| fold of {2 * n:,} LOG events into the view | {report['fold_s']:.1f} s |",
        f"| one full cycle (every memory new) | {report['cycle_s']:.1f} s |",
        f"| worker peak RSS after the fold | {report['folded_mb']:,.0f} MB |",
        f"| worker peak RSS after the cycle | {report['peak_mb']:,.0f} MB |",
        f"| recall p50 idle (before and after) | {idle_p50:.1f} ms ({len(idle) + len(idle_after)} recalls) |",
        f"| recall p50 during the cycle | {during_p50:.1f} ms ({len(during)} recalls) |",
        f"| ratio during / idle | {during_p50 / idle_p50:.2f}x |",
    ]
    body = (
        "| | |\n|---|---|\n" + "\n".join(rows) + f"\n\nThe cycle concluded: {counts}. "
        f"Recall index built in {build_s:.0f} s (Qdrant Edge, same memories, synthetic vectors; queries "
        "embedded by MiniLM through ONNX Runtime). 2 cores shared by both processes; the worker has one "
        "BLAS thread."
    )
    print(body)
    if not args.quick:
        write_section(
            "bench_consolidation_scale",
            "Consolidation at 100,000 memories: cycle time, memory, recall beside it",
            body,
        )


if __name__ == "__main__":
    main()
