"""Recall: candidates from the index (dense and BM25, filtered by tenant and scope), then hybrid scoring.

Three rounds at most: the candidates and a first ranking; relevance feedback (the top hits' shared
words widen the lexical query that rescores the candidates, see ``feedback``) and a second ranking;
expansion by session links.

The dense and sparse searches each return their own top candidates; a candidate found only by BM25
gets its dense similarity from the engine (scored for just those ids), one found only by the dense
search has no shared term (lexical zero), so every hit is scored on the same parts.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial

import msgspec

from codememory.embedding import Embedder
from codememory.lexical import SparseEncoder, SparseVec, code_terms
from codememory.memory.points import memory_id_of, point_id, point_ids
from codememory.recall.crowding import crowd_topics
from codememory.recall.currency import latest_first, pull_current, superseders
from codememory.recall.feedback import FEEDBACK_DOCS, feedback_query, widens
from codememory.recall.links import session_neighbours
from codememory.recall.query import RecallQuery, query_filter
from codememory.recall.restated import one_per_fact, unit_vectors, window_ids
from codememory.recall.scoring import (
    Candidate,
    ScopeHint,
    ScoreParts,
    Weights,
    relevance,
    score,
    top_lexical_of,
    words_of,
)
from codememory.vectorstore import IndexFilter, VectorIndex, search_pair

_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="recall")
RESTATED_WINDOW = 60  # the top hits compared for restatements (session context asks for 100 and more)


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
        link_parents: int = 5,  # the top hits whose neighbours are added (tuned on LoCoMo conv 0-3)
    ) -> None:
        self._index = index
        self._embedder = embedder
        self._encoder = encoder
        self.weights = weights or Weights()
        self._candidates = candidates
        self._link_parents = link_parents
        self._last_vector: tuple[str, tuple[float, ...]] | None = None

    def _embed(self, text: str) -> tuple[float, ...]:
        """The query's vector; a second recall of the same text (session context) reuses it."""
        last = self._last_vector
        if last is not None and last[0] == text:
            return last[1]
        vector = tuple(self._embedder.embed([text])[0])
        self._last_vector = (text, vector)
        return vector

    def recall(self, query: RecallQuery, *, now: float | None = None) -> list[RecallHit]:
        flt = query_filter(query)
        pool = max(self._candidates, query.limit * 3)
        hint = ScopeHint(
            repo=query.repo,
            branch=query.branch,
            cwd=query.cwd,
            paths=query.paths,
            mentioned=words_of(query.text),
        )
        clock = now if now is not None else time.time()
        found: dict[str, Candidate] = {}
        sparse = SparseVec()
        if query.text.strip():
            sparse = self._encoder.encode_query(code_terms(query.text))
            found = self._candidates_for(query.text, sparse, flt, pool)
        else:
            for stored in self._index.scroll(flt):
                mid = memory_id_of(stored)
                found[mid] = Candidate(
                    memory_id=mid, payload=stored.payload, dense=None, lexical=None, point_id=stored.id
                )
        ranked = score(list(found.values()), self.weights, hint, clock)
        feedback = self.weights.feedback > 0 and query.feedback and bool(ranked)
        if feedback and widens(c.lexical for c in found.values()):
            widened = self._with_feedback(query.text, sparse, ranked, found, flt, pool)
            if widened is not found:
                found = widened
                ranked = score(list(found.values()), self.weights, hint, clock)
        if self.weights.link > 0 and ranked:
            ranked = self._expand(ranked, found, flt, hint, clock, query.limit)
        if query.text.strip() and ranked:
            ranked = self._current_first(query.text, ranked, flt, hint, clock, query.limit)
            ranked = self._one_per_fact(ranked, query.limit, crowd=query.crowd)
        return [RecallHit(c.memory_id, dict(c.payload), parts) for c, parts in ranked[: query.limit]]

    def _current_first(
        self,
        text: str,
        ranked: list[tuple[Candidate, ScoreParts]],
        flt: IndexFilter,
        hint: ScopeHint,
        now: float,
        limit: int,
    ) -> list[tuple[Candidate, ScoreParts]]:
        """The current statement of a rule above the one it replaced (``currency``): superseders of
        superseded hits are read (through merges) and pulled up, then later statements that answer
        the query as well as earlier ones move above them."""
        window = max(2 * limit, 20)
        chain: dict[str, dict[str, object]] = {}
        fetched: dict[str, Candidate] = {}
        known = {c.memory_id for c, _ in ranked}
        frontier = [i for i in superseders(ranked, self.weights, window) if i not in known]
        tenant = str(flt.equals.get("tenant", ""))
        tenant_only = IndexFilter(equals={"tenant": tenant})
        for _ in range(4):  # superseded by a memory that was merged into another ...
            if not frontier:
                break
            only = msgspec.structs.replace(tenant_only, ids=point_ids(tenant, frontier))
            read = self._index.scroll(only, batch=len(frontier))
            chain.update({memory_id_of(p): dict(p.payload) for p in read})
            frontier = [
                nxt
                for p in chain.values()
                for nxt in (p.get("merged_into"), p.get("superseded_by"))
                if isinstance(nxt, str) and nxt and nxt not in chain
            ]
        if chain:
            currents = [i for i, p in chain.items() if p.get("state") == "active"]
            fetched = self._read(self._embed(text), flt, {}, {}, point_ids(tenant, currents))
        inherited: dict[str, float] = {}
        if any(c.payload.get("state") == "superseded" for c, _ in ranked):
            top = top_lexical_of(c for c, _ in ranked)

            def score_one(candidate: Candidate) -> ScoreParts:
                return score([candidate], self.weights, hint, now, top_lexical=top)[0][1]

            ranked, inherited = pull_current(ranked, chain, fetched, self.weights, window, score_one)
        return latest_first(ranked, self.weights, window, inherited)

    def _one_per_fact(
        self, ranked: list[tuple[Candidate, ScoreParts]], limit: int, *, crowd: bool = True
    ) -> list[tuple[Candidate, ScoreParts]]:
        """Restatements of a higher hit below the others (``restated``), then (``crowd``) a topic's
        hits over its cap (``topic_cap``): their dense vectors read by id (nothing else: the hits hold
        payloads)."""
        window = min(max(2 * limit, 20), RESTATED_WINDOW)
        ids = window_ids(ranked, window)
        cap = int(self.weights.topic_cap) if crowd else 0
        if (self.weights.restated <= 0 and cap <= 0) or len(ids) < 2:
            return ranked
        tenant = str(ranked[0][0].payload.get("tenant", ""))
        known = {c.memory_id: c.point_id for c, _ in ranked[:window] if c.point_id}
        # the tenant's points only, by their key
        points = {known.get(mid) or point_id(tenant, mid): mid for mid in ids}
        read = self._index.dense_vectors(list(points))  # the dense vectors alone (cached when wrapped)
        vectors = unit_vectors([(points[p], dense) for p, dense in read.items()])
        w = self.weights
        answer = partial(relevance, weights=w)  # how well a hit answers the query (the lead's test)
        ranked = one_per_fact(
            ranked, vectors, w.restated, window, w.restated_observed, w.topic_lead_margin, answer
        )
        return crowd_topics(
            ranked, vectors, w.topic_similarity, cap, window, w.topic_similarity_derived, w.topic_lead_margin
        )

    def _candidates_for(
        self, text: str, sparse: SparseVec, flt: IndexFilter, pool: int
    ) -> dict[str, Candidate]:
        """The union of the dense and lexical top ``pool``, every candidate with both scores.

        Reading a payload costs the engine more than scoring a point, so the searches bring ids and
        scores only, both in one engine call (``search_pair``) once the query is embedded: the engine
        holds the GIL for parts of each call, so a search in a thread beside the model's forward pass
        slowed both (at a million memories, 15-20 ms for what takes 12 in turn). The engine scores
        the lexical-only hits' dense similarity for just their ids, and the candidates' payloads are
        read once, under the same filter.
        """
        query_vector = self._embed(text)
        nearest, lexical_hits = search_pair(self._index, query_vector, sparse, flt, pool)
        dense = {h.id: h.score for h in nearest}
        lexical = {h.id: h.score for h in lexical_hits}
        return self._read(query_vector, flt, dense, lexical, list(dict.fromkeys([*dense, *lexical])))

    def _read(
        self,
        query_vector: tuple[float, ...],
        flt: IndexFilter,
        dense: dict[str, float],
        lexical: dict[str, float],
        ids: list[str],
    ) -> dict[str, Candidate]:
        """The points ``ids`` as candidates (by memory id; ``dense``, ``lexical``: scores by point id): the
        dense similarity of those without one scored by the engine for just them (no vectors cross into
        Python), payloads read once under ``flt``."""
        if not ids:
            return {}
        unscored = [i for i in ids if i not in dense]
        if unscored:
            only = msgspec.structs.replace(flt, ids=unscored)
            for hit in self._index.search_dense(query_vector, only, len(unscored), with_payload=False):
                dense[hit.id] = hit.score
        found = {}  # a point changed since the searches is read as it is now, or left out if filtered
        for p in self._index.scroll(msgspec.structs.replace(flt, ids=ids), batch=len(ids)):
            mid, dense_score, lexical_score = memory_id_of(p), dense.get(p.id), lexical.get(p.id)
            found[mid] = Candidate(
                memory_id=mid, payload=p.payload, dense=dense_score, lexical=lexical_score, point_id=p.id
            )
        return found

    def _with_feedback(
        self,
        text: str,
        sparse: SparseVec,
        ranked: list[tuple[Candidate, ScoreParts]],
        found: dict[str, Candidate],
        flt: IndexFilter,
        pool: int,
    ) -> dict[str, Candidate]:
        """The candidates scored by the query widened with the top hits' shared words, among their ids
        (``found`` itself when no word was added); with ``feedback_new`` over the tenant, as before
        2026-12-07: that many new hits join, a candidate outside its top ``pool`` loses its lexical part."""
        top_texts = [str(c.payload.get("text") or "") for c, _ in ranked[:FEEDBACK_DOCS]]
        documents = [self._encoder.encode_query(code_terms(t)) for t in top_texts]
        widened = feedback_query(sparse, documents, self.weights.feedback)
        tenant, adding = str(flt.equals.get("tenant", "")), int(self.weights.feedback_new)
        points = {mid: c.point_id or point_id(tenant, mid) for mid, c in found.items()}
        if widened == sparse or not points:  # no ids would mean no restriction: never search so
            return found
        known = set(points.values())
        only = msgspec.structs.replace(flt, ids=[*known])  # the candidates alone, by their ids
        searched, limit = (flt, pool) if adding > 0 else (only, len(known))
        lexical = {h.id: h.score for h in self._index.search_sparse(widened, searched, limit, False)}
        out = {mid: msgspec.structs.replace(c, lexical=lexical.get(points[mid])) for mid, c in found.items()}
        if adding > 0:
            new = [i for i in lexical if i not in known][:adding]
            out.update(self._read(self._embed(text), flt, {}, lexical, new))
        return out

    def _expand(
        self,
        ranked: list[tuple[Candidate, ScoreParts]],
        found: dict[str, Candidate],
        flt: IndexFilter,
        hint: ScopeHint,
        now: float,
        limit: int,
    ) -> list[tuple[Candidate, ScoreParts]]:
        """Add the session neighbours of the top hits, each with a link part from its best parent."""
        parents = [
            (c.memory_id, c.payload, parts.total) for c, parts in ranked[: min(limit, self._link_parents)]
        ]
        weights = self.weights
        semantic = weights.semantic_link / weights.link if weights.link > 0 else 0.0
        neighbours = session_neighbours(self._index, flt, parents, _POOL, semantic=semantic)
        if not neighbours:
            return ranked
        link_of = {mid: parent for mid, (_, parent) in neighbours.items()}
        # neighbours that were not candidates have no dense or lexical part, so they cannot move the
        # normalisation: score just them, on the candidates' lexical scale, and merge
        added = [
            Candidate(memory_id=mid, payload=point.payload, dense=None, lexical=None, point_id=point.id)
            for mid, (point, _) in neighbours.items()
            if mid not in found
        ]
        merged = ranked + score(added, self.weights, hint, now, top_lexical=top_lexical_of(found.values()))
        top = max(parts.total for _, parts in merged) or 1.0
        out = []
        for c, parts in merged:
            parent = link_of.get(c.memory_id)
            if parent is None:
                out.append((c, parts))
                continue
            link = parent / top
            out.append(
                (c, msgspec.structs.replace(parts, link=link, total=parts.total + self.weights.link * link))
            )
        out.sort(key=lambda pair: (-pair[1].total, pair[0].memory_id))
        return out
