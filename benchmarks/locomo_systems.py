"""The systems ``quality.py`` compares on LoCoMo: codememory through its gRPC stack, the baselines, and
the ablations (the same events folded in-process, one mechanism off at a time).

``stack`` runs ``codememory up`` and stores every turn through the Store RPC (what ``codememory
import`` calls); ``baselines`` are BM25 alone and dense alone over the bare turn texts on one Qdrant
Edge shard in this process; ``ablations`` fold the same Store events through ``MemoryProjection`` and
ask ``Recaller`` with one enrichment or weight switched off.
"""

from __future__ import annotations

import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench_locomo import KS, Scores, Search, evaluate, interleaved, questions, turns


@contextmanager
def stack(
    convs: list[dict[str, Any]], home: Path, *, consolidate: bool = False
) -> Iterator[tuple[Search, float, Callable[[], None] | None]]:
    """``codememory up`` in ``home``, every turn stored through the Store RPC; yields the Recall search,
    the ingest seconds, and (with ``consolidate``) a function that runs one consolidation cycle."""
    import signal

    import grpc
    from bench_stack import _start

    from codememory.v1 import memory_pb2 as pb
    from codememory.v1 import memory_pb2_grpc

    process, _env, runtime = _start(home)
    try:
        stub = memory_pb2_grpc.MemoryServiceStub(grpc.insecure_channel(runtime["grpc_address"]))
        meta = (("authorization", f"Bearer {(home / 'token').read_text().strip()}"),)

        def store(row: dict[str, Any]) -> None:
            stub.Store(
                pb.StoreRequest(
                    text=row["text"],
                    type=row["type"],
                    memory_id=row["id"],
                    created_at=row["time"],
                    metadata=row["metadata"],
                    scope=pb.Scope(repo=row["repo"], session_id=row["session"], user=row["user"]),
                ),
                metadata=meta,
                timeout=60,
            )

        started = time.perf_counter()
        # one thread per conversation, each storing its turns in order (as `codememory import` does)
        with ThreadPoolExecutor(max_workers=len(convs)) as pool:
            list(pool.map(lambda conv: [store(row) for row in turns(conv)], convs))
        while True:
            status = stub.Status(pb.StatusRequest(), metadata=meta, timeout=30)
            if status.caught_up and not any(status.consumer_pending.values()):
                break
            time.sleep(0.5)
        ingest_s = time.perf_counter() - started

        def recall(repo: str, question: str) -> list[str]:
            request = pb.RecallRequest(query=question, repo=repo, limit=max(KS))
            hits = stub.Recall(request, metadata=meta, timeout=30).hits
            return [h.memory.metadata["dia_id"] for h in hits]

        def cycle() -> None:
            stub.Consolidate(pb.ConsolidateRequest(), metadata=meta, timeout=1800)

        yield recall, ingest_s, (cycle if consolidate else None)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)


def baselines(convs: list[dict[str, Any]], path: Path) -> Iterator[tuple[str, Search]]:
    """BM25 alone and dense alone over the bare turn texts, on one Qdrant Edge shard in-process."""
    from codememory.embedding import load_default_embedder
    from codememory.lexical import SparseEncoder, code_terms
    from codememory.vectorstore import EdgeVectorIndex, IndexFilter, IndexPoint

    rows = [t for conv in convs for t in turns(conv)]
    embedder = load_default_embedder()
    encoder = SparseEncoder()
    vectors = embedder.embed([r["text"] for r in rows])
    index = EdgeVectorIndex(path, embedder.dim)
    index.upsert(
        [
            IndexPoint(
                id=r["id"],
                payload={"repo": r["repo"], "dia_id": r["metadata"]["dia_id"]},
                dense=v,
                sparse=encoder.encode_document(code_terms(r["text"])),
            )
            for r, v in zip(rows, vectors, strict=True)
        ]
    )
    index.optimize()

    def bm25(repo: str, question: str) -> list[str]:
        query = encoder.encode_query(code_terms(question))
        hits = index.search_sparse(query, IndexFilter(equals={"repo": repo}), max(KS))
        return [str(h.payload["dia_id"]) for h in hits]

    def dense(repo: str, question: str) -> list[str]:
        hits = index.search_dense(embedder.embed([question])[0], IndexFilter(equals={"repo": repo}), max(KS))
        return [str(h.payload["dia_id"]) for h in hits]

    try:
        yield "BM25 alone", bm25
        yield "dense alone (MiniLM)", dense
    finally:
        index.close()


ABLATIONS: tuple[tuple[str, dict[str, bool], str], ...] = (
    ("all mechanisms (defaults)", {}, ""),
    ("without the previous memory as context", {"previous": False}, ""),
    ("without date words", {"date": False}, ""),
    ("without session-neighbour links", {}, "link=0"),
    ("without relevance feedback", {}, "feedback=0"),
    ("without author match", {}, "author=0"),
    ("without feedback and author match (as on 2026-11-22)", {}, "feedback=0,author=0"),
    ("before issue 3: bare text, neighbour links", {"previous": False, "date": False}, "feedback=0,author=0"),
    ("bare text, nothing else", {"previous": False, "date": False}, "link=0,feedback=0,author=0"),
)


def ablations(convs: list[dict[str, Any]]) -> dict[str, Scores]:
    """Each configuration: the same Store events folded by ``MemoryProjection``, asked of ``Recaller``."""
    from codememory.embed.texts import embedded_events, jobs_for
    from codememory.embedding import load_default_embedder
    from codememory.events import MemoryScope, MemoryStored, new_envelope
    from codememory.lexical import SparseEncoder
    from codememory.memory import Enrichment, MemoryProjection, Position
    from codememory.recall import Recaller, RecallQuery, parse_weights
    from codememory.vectorstore import EdgeVectorIndex

    embedder = load_default_embedder()
    envelopes = [
        new_envelope(
            MemoryStored(
                memory_id=row["id"],
                text=row["text"],
                memory_type=row["type"],
                scope=MemoryScope(repo=row["repo"], session_id=row["session"], user=row["user"]),
                metadata=row["metadata"],
                created_at=row["time"],
            ),
            event_id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"stored/{row['id']}")),
            tenant="bench",
        )
        for row in interleaved(convs)
    ]
    jobs = jobs_for(envelopes)
    embedded = embedded_events(jobs, embedder.embed([j.text for j in jobs]), embedder.model_id)
    asked = [q for conv in convs for q, _, _ in questions(conv)]
    query_vectors = dict(zip(asked, embedder.embed(asked), strict=True))

    class Cached:  # the same model's query vectors, computed once for every configuration
        dim, model_id = embedder.dim, embedder.model_id

        def embed(self, texts: list[str]) -> list[tuple[float, ...]]:
            return [query_vectors.get(t) or embedder.embed([t])[0] for t in texts]

    out: dict[str, Scores] = {}
    built: dict[tuple[tuple[str, bool], ...], Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, enrich, weights in ABLATIONS:
            key = tuple(sorted(enrich.items()))
            if key not in built:
                index = EdgeVectorIndex(Path(tmp) / str(len(built)), embedder.dim)
                projection = MemoryProjection(index, SparseEncoder(), Position(None), Enrichment(**enrich))
                projection.apply_batch(list(enumerate([*envelopes, *embedded], start=1)))
                index.optimize()
                built[key] = index
            recaller = Recaller(built[key], Cached(), SparseEncoder(), parse_weights(weights))  # type: ignore[arg-type]

            def search(repo: str, question: str, recaller: Recaller = recaller) -> list[str]:
                hits = recaller.recall(RecallQuery(tenant="bench", text=question, repo=repo, limit=max(KS)))
                return [str(h.payload["metadata"]["dia_id"]) for h in hits]  # type: ignore[index]

            out[name] = evaluate(convs, search)[0]
        for index in built.values():
            index.close()
    return out
