"""Recall: candidates from the index (dense and BM25, filtered by tenant and scope), then hybrid scoring.

The dense and sparse searches each return their own top candidates; a candidate found by only one of
them gets its other part computed here (cosine from its stored vector) or set to zero (no shared term),
so every hit is scored on the same parts.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import msgspec

from codememory.embedding import Embedder
from codememory.lexical import SparseEncoder, code_terms
from codememory.recall.query import RecallQuery, query_filter
from codememory.recall.scoring import Candidate, ScopeHint, ScoreParts, Weights, score
from codememory.vectorstore import VectorIndex

_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="recall")


@dataclass(frozen=True)
class RecallHit:
    memory_id: str
    payload: dict[str, object]
    parts: ScoreParts


class Recaller:
    def __init__(
        self,
        index: VectorIndex,
        embedder: Embedder,
        encoder: SparseEncoder,
        weights: Weights | None = None,
        *,
        candidates: int = 50,
    ) -> None:
        self._index = index
        self._embedder = embedder
        self._encoder = encoder
        self.weights = weights or Weights()
        self._candidates = candidates

    def recall(self, query: RecallQuery, *, now: float | None = None) -> list[RecallHit]:
        flt = query_filter(query)
        pool = max(self._candidates, query.limit * 3)
        found: dict[str, Candidate] = {}
        query_vector: tuple[float, ...] | None = None
        if query.text.strip():
            sparse = self._encoder.encode_query(code_terms(query.text))
            # the lexical search runs while the model embeds the query: both release the GIL
            lexical_future = (
                _POOL.submit(self._index.search_sparse, sparse, flt, pool) if sparse.indices else None
            )
            query_vector = self._embedder.embed([query.text])[0]
            for hit in self._index.search_dense(query_vector, flt, pool):
                found[hit.id] = Candidate(
                    memory_id=hit.id, payload=hit.payload, dense=hit.score, lexical=None
                )
            lexical_hits = lexical_future.result() if lexical_future is not None else []
            missing_dense = []
            for hit in lexical_hits:
                prior = found.get(hit.id)
                found[hit.id] = Candidate(
                    memory_id=hit.id,
                    payload=hit.payload,
                    dense=prior.dense if prior else None,
                    lexical=hit.score,
                )
                if prior is None:
                    missing_dense.append(hit.id)
            if missing_dense:  # the engine scores just these ids: no vectors cross into Python
                only = msgspec.structs.replace(flt, ids=missing_dense)
                for hit in self._index.search_dense(query_vector, only, len(missing_dense)):
                    c = found[hit.id]
                    found[hit.id] = Candidate(
                        memory_id=c.memory_id, payload=c.payload, dense=hit.score, lexical=c.lexical
                    )
        else:
            for stored in self._index.scroll(flt):
                found[stored.id] = Candidate(
                    memory_id=stored.id, payload=stored.payload, dense=None, lexical=None
                )
        hint = ScopeHint(repo=query.repo, branch=query.branch, cwd=query.cwd, paths=query.paths)
        ranked = score(list(found.values()), self.weights, hint, now if now is not None else time.time())
        return [RecallHit(c.memory_id, dict(c.payload), parts) for c, parts in ranked[: query.limit]]
