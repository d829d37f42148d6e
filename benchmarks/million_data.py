"""The memories of ``bench_million``: real texts and questions, their vectors, and the shard they fill.

Memory ``i`` is base text ``i % base`` plus a line of its own (repository, ticket number); its vector
is the base text's real vector plus Gaussian noise, renormalised to a cosine of about ``COSINE`` with it
(``bench_million``'s docstring says why). The memories are folded by the gateway's own projection.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
import uuid
from pathlib import Path

import numpy as np

from shared_data import REPO, SHARED_DATA

DIM = 384
SESSION = 20  # memories per session
COSINE = 0.85  # of a derived vector with its base text's vector


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


def base_text(text: str) -> str:
    """The real text a memory's text derives from: without the line of its own (``_envelopes``)."""
    return text.rsplit("\n(repo", 1)[0]


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


CHUNK = 2500  # memories per folded batch: a whole number of sessions, so a resumed fill links alike


def filled(data_dir: Path) -> int:
    """The memories the shard in ``data_dir`` holds (two events each, in order)."""
    from codememory.memory import Position

    return Position(data_dir / "memories" / "gen-1" / "position.json").seq // 2


def fill(
    data_dir: Path,
    stop: int,
    texts: list[str],
    vectors: np.ndarray,
    model_id: str,
    seconds: float = 0.0,
    layout: str = "",
) -> dict[str, float]:
    """Memories from what ``data_dir`` holds up to ``stop`` folded into its generation 1 (for about
    ``seconds`` at most when set: the position is saved, so the next call continues), then its HNSW built."""
    from codememory.gateway.indexes import IndexGenerations
    from codememory.lexical import SparseEncoder
    from codememory.lexical.pool import TermsPool
    from codememory.vectorstore import layout_named

    chosen = layout_named(layout) if layout else None  # None: the gateway's default
    generations = IndexGenerations(data_dir, DIM, model_id=model_id, layout=chosen)
    projection = generations.projection(1, SparseEncoder())
    generations.commit(1)
    started, seq, folded_s = time.perf_counter(), projection.last_seq, 0.0
    start = seq // 2
    with TermsPool(projection.encoder, 2) as pool:
        projection.terms, projection.deferred_sync = pool, True
        for chunk in range(start, stop, CHUNK):
            if seconds and time.perf_counter() - started > seconds:
                break
            envelopes = _envelopes(chunk, min(stop, chunk + CHUNK), texts, vectors, model_id)
            t0 = time.perf_counter()
            projection.apply_batch([(seq + k + 1, env) for k, env in enumerate(envelopes)])  # type: ignore[misc]
            folded_s += time.perf_counter() - t0
            seq += len(envelopes)
            del envelopes
        projection.sync()
        projection.save_position(seq)
    t0 = time.perf_counter()
    projection.index.optimize()
    hnsw_s = time.perf_counter() - t0
    projection.index.close()
    return {
        "fold_s": folded_s,
        "events": seq - 2 * start,
        "hnsw_s": hnsw_s,
        "fill_s": time.perf_counter() - started,
    }


def relayout(source: Path, data_dir: Path, layout: str) -> None:
    """``source``'s kept shard copied to ``data_dir``, its generation recorded and rebuilt in ``layout``
    (empty: the gateway's default)."""
    from codememory.vectorstore import DEFAULT_LAYOUT, EdgeVectorIndex, layout_named

    layout = layout or DEFAULT_LAYOUT
    t0 = time.perf_counter()
    shutil.copytree(source, data_dir)
    copy_s = time.perf_counter() - t0
    generation = data_dir / "memories" / "gen-1"
    marker = json.loads((generation / "model.json").read_text())
    (generation / "model.json").write_text(json.dumps({**marker, "layout": layout}))
    t0 = time.perf_counter()
    index = EdgeVectorIndex(generation / "shard", DIM, layout=layout_named(layout))
    index.optimize()
    index.close()
    rebuilt_s = time.perf_counter() - t0
    totals_file = data_dir / "fill.json"
    totals = json.loads(totals_file.read_text()) if totals_file.is_file() else {}
    totals.pop("measured", None)
    totals_file.write_text(json.dumps({**totals, "relayout_s": rebuilt_s}))
    print(f"{source} copied in {copy_s:.0f} s, rebuilt as {layout} in {rebuilt_s:.0f} s", flush=True)


def base_vectors(texts: list[str], cache: Path) -> tuple[np.ndarray, str, float]:
    """The base texts' vectors by the real model, kept in ``cache`` (keyed by the texts) between runs;
    the seconds the model took (when these vectors were made)."""
    key = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
    if cache.is_file():
        kept = np.load(cache, allow_pickle=False)
        if str(kept["key"]) == key:
            print(f"{len(texts):,} base vectors read from {cache}", flush=True)
            return kept["vectors"], str(kept["model_id"]), float(kept["embed_s"])
    from codememory.embedding import load_default_embedder

    model = load_default_embedder()
    t0 = time.perf_counter()
    vectors = np.asarray(model.embed(texts), dtype=np.float64)
    embed_s = time.perf_counter() - t0
    print(f"{len(texts):,} real texts embedded in {embed_s:.0f} s", flush=True)
    tmp = cache.with_suffix(".tmp.npz")
    np.savez(tmp, key=key, vectors=vectors, model_id=model.model_id, embed_s=embed_s)
    os.replace(tmp, cache)
    return vectors, model.model_id, embed_s
