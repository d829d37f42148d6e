"""Hybrid fusion for code search: every signal of every candidate, standardised, mixed by weight.

On code, MiniLM over natural-language texts is strong and BM25 weak (CoSQA: dense MRR 54, BM25 32), and
the two disagree in scale: cosines sit in a narrow band, BM25 scores are spiky. Mixing raw or min-max
scores lets one lucky term outvote the semantics; reciprocal-rank fusion throws away how far apart the
candidates are. So the fusion works on *complete* evidence instead:

- the candidates are the union of each retriever's top ``depth`` (dense over the code text, dense over
  the summary, BM25 over all the symbol's terms); the caller scores every candidate on every signal
  (a dense score missing from a list is asked of the engine for just those ids; BM25 likewise, and a
  candidate sharing no term scores 0), and adds the *name* signal: how much of the query the symbol's
  own name says (``name_overlap``), a field BM25 over all terms dilutes;
- each signal is standardised over the candidates (z-score: how far above the candidates' mean, in
  their standard deviation), so a signal counts by how clearly it separates a candidate, not by its
  units; the fused score is the weighted sum.

Pure: scores in, ``Fused`` out, no index and no model. Every parameter is in ``FusionConfig``; its
defaults are the ones ``benchmarks/bench_codesearch.py`` measured (see RESULTS.md).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from codememory.codesearch.errors import InvalidCodeInputError

__all__ = [
    "DENSE_SIGNALS",
    "Fused",
    "FusionConfig",
    "FusionParts",
    "RankedList",
    "by_best_score",
    "fuse",
    "name_overlap",
]

ListKind = Literal["dense", "lexical"]
DENSE_SIGNALS = ("summary", "code")
LEXICAL_SIGNAL = "lexical"


@dataclass(frozen=True, kw_only=True)
class FusionConfig:
    """How signals are mixed; ``weights`` maps a signal name to its weight (absent or 0: not mixed)."""

    weights: Mapping[str, float] = field(
        default_factory=lambda: {"code": 1.0, "summary": 0.1, "lexical": 0.2, "name": 0.2}
    )
    depth: int = 100  # candidates read from each retriever's list

    def __post_init__(self) -> None:
        if self.depth < 1:
            raise InvalidCodeInputError("depth must be >= 1")
        for name, weight in self.weights.items():
            if weight < 0 or math.isnan(weight):
                raise InvalidCodeInputError(f"weight of {name!r} must be >= 0, got {weight}")


@dataclass(frozen=True)
class RankedList:
    """One retriever's answer: ``hits`` as (key, score), best first; ``kind`` says which part it feeds."""

    name: str
    kind: ListKind
    hits: Sequence[tuple[str, float]]


@dataclass(frozen=True, kw_only=True)
class FusionParts:
    """Why a hit ranked: its best dense cosine and its BM25 score (None: not known), its rank by each
    among the candidates (1-based, 0: no score), its name overlap and the fused score."""

    dense: float | None
    lexical: float | None
    dense_rank: int
    lexical_rank: int
    fused: float
    name: float = 0.0


@dataclass(frozen=True)
class Fused:
    key: str
    parts: FusionParts


def name_overlap(query_terms: Collection[int], name_terms: Collection[int]) -> float:
    """Jaccard of the query's terms and the name's terms (both as the BM25 encoder's term ids)."""
    if not query_terms or not name_terms:
        return 0.0
    query, name = set(query_terms), set(name_terms)
    shared = len(query & name)
    return shared / len(query | name) if shared else 0.0


def _standardised(values: Sequence[float]) -> list[float]:
    mean = sum(values) / len(values)
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    if spread <= 1e-12:
        return [0.0] * len(values)  # a signal that cannot tell the candidates apart says nothing
    return [(v - mean) / spread for v in values]


def _ranks(values: Mapping[str, float]) -> dict[str, int]:
    order = sorted(values, key=lambda k: (-values[k], k))
    return {key: rank for rank, key in enumerate(order, start=1) if values[key] > 0}


def fuse(signals: Mapping[str, Mapping[str, float]], config: FusionConfig, limit: int) -> list[Fused]:
    """The top ``limit`` candidates by the weighted sum of standardised signals, best first.

    ``signals[name][key]`` is the raw score of candidate ``key`` on signal ``name``; the candidates are
    every key of any signal, and a key missing from a signal scores 0 there. Ties break by key.
    """
    if limit < 0:
        raise InvalidCodeInputError(f"limit must be >= 0, got {limit}")
    keys = sorted({key for scores in signals.values() for key in scores})
    if not keys:
        return []
    total = dict.fromkeys(keys, 0.0)
    for name, scores in signals.items():
        weight = config.weights.get(name, 0.0)
        if weight == 0.0:
            continue
        for key, z in zip(keys, _standardised([scores.get(k, 0.0) for k in keys]), strict=True):
            total[key] += weight * z
    dense_names = [n for n in DENSE_SIGNALS if n in signals]
    dense_best = {k: max(signals[n].get(k, 0.0) for n in dense_names) for k in keys} if dense_names else {}
    dense_rank = _ranks(dense_best)
    lexical = signals.get(LEXICAL_SIGNAL, {})
    lexical_rank = _ranks({k: lexical.get(k, 0.0) for k in keys})
    names = signals.get("name", {})
    order = sorted(keys, key=lambda k: (-total[k], k))[:limit]
    return [
        Fused(
            key,
            FusionParts(
                dense=dense_best[key] if dense_names else None,
                lexical=lexical.get(key, 0.0) if LEXICAL_SIGNAL in signals else None,
                dense_rank=dense_rank.get(key, 0),
                lexical_rank=lexical_rank.get(key, 0),
                fused=total[key],
                name=names.get(key, 0.0),
            ),
        )
        for key in order
    ]


def by_best_score(lists: Sequence[RankedList], limit: int) -> list[Fused]:
    """One method alone: keys ranked by their best raw score over ``lists`` (max-sim over a symbol's
    dense texts); the lists should be of one kind, as their scores are compared directly."""
    best: dict[str, tuple[float, str, int]] = {}
    for ranked in lists:
        for rank, (key, score) in enumerate(ranked.hits, start=1):
            if key not in best or score > best[key][0]:
                best[key] = (score, ranked.kind, rank)
    order = sorted(best, key=lambda k: (-best[k][0], k))[:limit]
    out = []
    for key in order:
        score, kind, rank = best[key]
        dense = kind == "dense"
        parts = FusionParts(
            dense=score if dense else None,
            lexical=None if dense else score,
            dense_rank=rank if dense else 0,
            lexical_rank=0 if dense else rank,
            fused=score,
        )
        out.append(Fused(key, parts))
    return out
