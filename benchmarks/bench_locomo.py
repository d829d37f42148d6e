"""LoCoMo retrieval quality: turn-level evidence recall at 5, 10 and 25, per category, per system.

The conversations in ../shared/data/locomo/locomo_dev.json go in through codememory's public path:
the gateway's Store RPC (what ``codememory import`` calls), one codememory session per LoCoMo
session, each turn with its session date as its time and its speaker and dialog id as metadata, each
conversation as its own repo scope. Questions go through the Recall RPC scoped to their conversation.
Baselines in the same run, on the same turns: BM25 alone and dense alone (MiniLM, "embed every turn,
take the top k"), both on a Qdrant Edge shard in this process. Conversation 4 is reported apart: it
is held out of any tuning.

    .venv/bin/python benchmarks/bench_locomo.py
"""

from __future__ import annotations

import json
import signal
import statistics
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_stack import _start
from results import write_section

from codememory.embedding import load_default_embedder
from codememory.lexical import SparseEncoder, code_terms
from codememory.v1 import memory_pb2 as pb
from codememory.v1 import memory_pb2_grpc
from codememory.vectorstore import EdgeVectorIndex, IndexFilter, IndexPoint

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_dev.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
KS = (5, 10, 25)
HELD_OUT = 4


def _when(text: str) -> str:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC).isoformat()


def turns(conversation: dict) -> list[dict]:  # type: ignore[type-arg]
    """Every dialog turn as an importable memory (the JSON-lines shape of ``codememory export``)."""
    sample = conversation["sample_id"]
    conv = conversation["conversation"]
    rows = []
    for key in sorted(
        (k for k in conv if k.startswith("session_") and not k.endswith("date_time")),
        key=lambda k: int(k.split("_")[1]),
    ):
        date = conv.get(f"{key}_date_time")
        if not date:
            continue
        for turn in conv[key]:
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [shares a photo of {turn['blip_caption']}]"
            rows.append(
                {
                    "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"locomo/{sample}/{turn['dia_id']}")),
                    "text": text,
                    "type": "dialog",
                    "repo": f"locomo-{sample}",
                    "session": f"{sample}-{key}",
                    "time": _when(date),
                    "metadata": {"dia_id": turn["dia_id"], "speaker": turn["speaker"], "session_date": date},
                }
            )
    return rows


def questions(conversation: dict) -> list[tuple[str, int, set[str]]]:  # type: ignore[type-arg]
    out = []
    for qa in conversation["qa"]:
        evidence = {
            e.strip()
            for item in qa.get("evidence", [])
            for e in str(item).replace(",", ";").split(";")
            if e.strip()
        }
        if evidence and qa.get("question"):
            out.append((qa["question"], int(qa["category"]), evidence))
    return out


Search = Callable[[str, str], list[str]]


def evaluate(convs: list[dict], search: Search) -> tuple[dict[str, dict[int, list[float]]], list[float]]:  # type: ignore[type-arg]
    """Per split and category, per-question recall at each k; and the latency of every search."""
    scores: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    latencies = []
    for index, conv in enumerate(convs):
        split = "held-out conv 4" if index == HELD_OUT else "conv 0-3"
        for question, category, evidence in questions(conv):
            started = time.perf_counter()
            ranked = search(f"locomo-{conv['sample_id']}", question)
            latencies.append((time.perf_counter() - started) * 1000)
            for k in KS:
                found = len(evidence & set(ranked[:k])) / len(evidence)
                scores[split][category * 100 + k].append(found)
                scores["all"][category * 100 + k].append(found)
    return scores, latencies


def _table(name: str, scores: dict[str, dict[int, list[float]]], latencies: list[float]) -> list[str]:
    rows = []
    for split in ("all", "conv 0-3", "held-out conv 4"):
        cells = []
        for category in (*CATEGORIES, 0):
            for k in KS:
                values = (
                    [v for c in CATEGORIES for v in scores[split][c * 100 + k]]
                    if category == 0
                    else scores[split][category * 100 + k]
                )
                cells.append(f"{100 * statistics.mean(values):.1f}" if values else "-")
        rows.append(f"| {name} | {split} | " + " | ".join(cells) + f" | {statistics.median(latencies):.1f} |")
    return rows


def main() -> None:
    convs = json.loads(DATA.read_text())
    all_turns = [t for conv in convs for t in turns(conv)]
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        process, _env, runtime = _start(home)
        try:
            stub = memory_pb2_grpc.MemoryServiceStub(grpc.insecure_channel(runtime["grpc_address"]))
            meta = (("authorization", f"Bearer {(home / 'token').read_text().strip()}"),)

            def store(row: dict) -> None:  # type: ignore[type-arg]
                stub.Store(
                    pb.StoreRequest(
                        text=row["text"],
                        type=row["type"],
                        memory_id=row["id"],
                        created_at=row["time"],
                        metadata=row["metadata"],
                        scope=pb.Scope(repo=row["repo"], session_id=row["session"]),
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

            def hybrid(repo: str, question: str) -> list[str]:
                hits = stub.Recall(
                    pb.RecallRequest(query=question, repo=repo, limit=max(KS)), metadata=meta, timeout=30
                ).hits
                return [h.memory.metadata["dia_id"] for h in hits]

            results = {"codememory hybrid (gRPC)": evaluate(convs, hybrid)}
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
        results.update(_baselines(convs, all_turns, Path(tmp) / "baseline"))
    header = [
        "| system | split | "
        + " | ".join(f"{CATEGORIES.get(c, 'overall')} R@{k}" for c in (*CATEGORIES, 0) for k in KS)
        + " | p50 ms |",
        "|---|---|" + "---|" * (len(KS) * (len(CATEGORIES) + 1)) + "---|",
    ]
    rows = [row for name, (scores, lat) in results.items() for row in _table(name, scores, lat)]
    body = "\n".join(header + rows) + (
        f"\n\n{len(all_turns):,} turns from {len(convs)} conversations stored through the Store RPC "
        f"in {ingest_s:.0f} s (embedding included); R@k is the share of a question's evidence turns in the "
        "top k, averaged over questions. Baselines search a Qdrant Edge shard in-process (no gRPC). "
        "mem0 was not run in this session."
    )
    write_section("bench_locomo", "LoCoMo evidence recall (dev conversations 0-4)", body)


def _baselines(
    convs: list[dict], rows: list[dict], path: Path
) -> dict[str, tuple[dict[str, dict[int, list[float]]], list[float]]]:  # type: ignore[type-arg]
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
        hits = index.search_sparse(
            encoder.encode_query(code_terms(question)), IndexFilter(equals={"repo": repo}), max(KS)
        )
        return [str(h.payload["dia_id"]) for h in hits]

    def dense(repo: str, question: str) -> list[str]:
        hits = index.search_dense(embedder.embed([question])[0], IndexFilter(equals={"repo": repo}), max(KS))
        return [str(h.payload["dia_id"]) for h in hits]

    out = {"BM25 alone": evaluate(convs, bm25), "dense alone (MiniLM)": evaluate(convs, dense)}
    index.close()
    return out


if __name__ == "__main__":
    main()
