"""Searching the code collection: each retriever's own list, and the hybrid's complete evidence.

A single mode (``dense``, ``dense:summary``, ``dense:code``, ``lexical``) ranks one retriever's list by
its raw scores. Hybrid takes the union of every list's candidates, asks the engine for the scores the
lists did not reach (a dense or BM25 search restricted to just those ids), adds how much of the query
each symbol's name says, and hands the complete evidence to ``fusion.fuse``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import msgspec

from codememory.codesearch.documents import REPRESENTATIONS, name_words
from codememory.codesearch.fusion import (
    LEXICAL_SIGNAL,
    Fused,
    FusionConfig,
    FusionParts,
    RankedList,
    by_best_score,
    fuse,
    name_overlap,
)
from codememory.lexical import SparseEncoder, SparseVec, code_terms
from codememory.vectorstore import Hit, IndexFilter, VectorIndex

__all__ = ["CodeSearch", "SearchMode"]

SearchMode = Literal["hybrid", "dense", "dense:summary", "dense:code", "lexical"]
Payloads = dict[str, Mapping[str, Any]]  # candidate key -> payload of one of its points
PointId = Callable[[str, str, str], str]  # (repo, qualname, representation) -> point id


class CodeSearch:
    """One search over ``index`` within ``scope`` (tenant always; repo and path prefix if asked)."""

    def __init__(
        self,
        index: VectorIndex,
        encoder: SparseEncoder,
        config: FusionConfig,
        point_id: PointId,
        scope: IndexFilter,
    ) -> None:
        self._index = index
        self._encoder = encoder
        self.config = config
        self._point_id = point_id
        self._scope = scope

    def run(
        self, query_text: str, query_vector: Sequence[float] | None, mode: SearchMode, limit: int
    ) -> list[tuple[Mapping[str, Any], FusionParts]]:
        """The best ``limit`` symbols as (payload, parts), best first."""
        payloads: Payloads = {}
        sparse = self._encoder.encode_query(code_terms(query_text))
        lists = self._lists(sparse, query_vector, mode, limit, payloads)
        if mode == "hybrid":
            fused = self._hybrid(sparse, query_vector, lists, payloads, limit)
        else:
            fused = by_best_score(lists, limit)
        return [(payloads[f.key], f.parts) for f in fused]

    def _scoped(self, rep: str, ids: Sequence[str] = ()) -> IndexFilter:
        scope = self._scope
        return msgspec.structs.replace(scope, equals={**scope.equals, "rep": rep}, ids=list(ids))

    def _lists(
        self,
        sparse: SparseVec,
        query_vector: Sequence[float] | None,
        mode: SearchMode,
        limit: int,
        payloads: Payloads,
    ) -> list[RankedList]:
        """Each retriever's own top list (what a single mode ranks by, and where hybrid's candidates
        come from); the payload of every symbol seen goes into ``payloads``."""
        depth = max(self.config.depth, limit)
        lists: list[RankedList] = []

        def ranked(name: str, kind: Literal["dense", "lexical"], hits: list[Hit]) -> RankedList:
            for h in hits:
                payloads.setdefault(_key(h.payload), h.payload)
            return RankedList(name, kind, [(_key(h.payload), h.score) for h in hits])

        if query_vector is not None:
            for rep in REPRESENTATIONS:
                if mode in ("hybrid", "dense") or mode == f"dense:{rep}":
                    hits = self._index.search_dense(query_vector, self._scoped(rep), depth)
                    lists.append(ranked(rep, "dense", hits))
        if mode in ("hybrid", "lexical") and sparse.indices:
            hits = self._index.search_sparse(sparse, self._scoped(REPRESENTATIONS[0]), depth)
            lists.append(ranked(LEXICAL_SIGNAL, "lexical", hits))
        return lists

    def _hybrid(
        self,
        sparse: SparseVec,
        query_vector: Sequence[float] | None,
        lists: list[RankedList],
        payloads: Payloads,
        limit: int,
    ) -> list[Fused]:
        """Every candidate of any list scored on every signal (see ``fusion``), then fused."""
        signals: dict[str, dict[str, float]] = {r.name: dict(r.hits) for r in lists}
        candidates = list(payloads)

        if query_vector is not None:
            vector = query_vector

            def dense(only: IndexFilter, n: int) -> list[Hit]:
                return self._index.search_dense(vector, only, n, with_payload=False)

            for rep in REPRESENTATIONS:
                self._complete(signals[rep], candidates, payloads, rep, dense)
            code, summary = signals["code"], signals["summary"]
            for key in candidates:  # a symbol whose code is its summary has one dense text for both
                code.setdefault(key, summary.get(key, 0.0))
        if LEXICAL_SIGNAL in signals:

            def lexical(only: IndexFilter, n: int) -> list[Hit]:
                return self._index.search_sparse(sparse, only, n)

            self._complete(signals[LEXICAL_SIGNAL], candidates, payloads, REPRESENTATIONS[0], lexical)
        query_terms = set(sparse.indices)
        signals["name"] = {
            key: name_overlap(query_terms, self._name_terms(payloads[key])) for key in candidates
        }
        return fuse(signals, self.config, limit)

    def _complete(
        self,
        scores: dict[str, float],
        candidates: Sequence[str],
        payloads: Payloads,
        rep: str,
        search: Callable[[IndexFilter, int], list[Hit]],
    ) -> None:
        """Ask the engine for the scores of the candidates a list did not reach (just those ids)."""
        missing = {
            self._point_id(str(payloads[k]["repo"]), str(payloads[k]["qualname"]), rep): k
            for k in candidates
            if k not in scores
        }
        if not missing:
            return
        for hit in search(self._scoped(rep, list(missing)), len(missing)):
            scores[missing[hit.id]] = hit.score

    def _name_terms(self, payload: Mapping[str, Any]) -> frozenset[int]:
        name = str(payload["qualname"]).rsplit(".", 1)[-1].split("#", 1)[0]
        return frozenset(self._encoder.encode_query(name_words(name) or name).indices)


def _key(payload: Mapping[str, Any]) -> str:
    return f"{payload['repo']}\x1f{payload['qualname']}"
