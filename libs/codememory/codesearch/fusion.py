"""Hybrid fusion for code search: several ranked lists in, one ranking out, each hit with its parts.

On code, MiniLM over natural-language texts is strong and BM25 weak (CoSQA: dense MRR 54, BM25 33), so a
fixed linear mix of normalised scores drags dense down: BM25 scores are spiky, and min-max or z-scores
over a whole list let one lucky term outvote the semantics. This fusion is rank based instead:

- each list (dense over a symbol's summary, dense over its code, BM25) contributes ``weight / (k + rank)``
  for the symbols it ranks within its ``depth`` (weighted reciprocal-rank fusion);
- a list's weight is *query adaptive*: it is scaled by how peaked the list is at the top, i.e. how far its
  best score stands above the scores of its next candidates, in units of their spread (a z-score of the
  top). A BM25 list whose best hit shares one common word with the query is flat and counts little; one
  that matched a rare identifier stands out and counts fully.

Pure: lists of (key, score) in, ``Fused`` out, no index and no model. Every parameter is in
``FusionConfig``; its defaults are the ones measured best by ``benchmarks/bench_codesearch.py``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from codememory.codesearch.errors import InvalidCodeInputError

__all__ = ["Fused", "FusionConfig", "FusionParts", "RankedList", "by_best_score", "fuse", "peakedness"]

ListKind = Literal["dense", "lexical"]


@dataclass(frozen=True, kw_only=True)
class FusionConfig:
    """How lists are fused; ``weights`` maps a list name to its base weight (absent: 0, ignored)."""

    weights: Mapping[str, float] = field(
        default_factory=lambda: {"summary": 0.3, "code": 1.0, "lexical": 0.5}
    )
    rrf_k: float = 20.0
    depth: int = 100  # candidates read from each list
    adaptive: bool = True
    peak_window: int = 10  # the scores after the top that define "the rest" for peakedness
    peak_floor: float = 0.25  # a flat list still keeps this share of its weight
    peak_scale: float = 3.0  # a top this many spreads above the rest gets the full weight

    def __post_init__(self) -> None:
        if self.rrf_k <= 0 or self.depth < 1 or self.peak_window < 2:
            raise InvalidCodeInputError("rrf_k must be > 0, depth >= 1 and peak_window >= 2")
        if not 0.0 <= self.peak_floor <= 1.0 or self.peak_scale <= 0:
            raise InvalidCodeInputError("peak_floor must be in [0, 1] and peak_scale > 0")
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
    """Why a hit ranked: its best dense cosine and BM25 score (None: not among that kind's candidates),
    its best rank in each kind (1-based, 0: absent), and the fused score."""

    dense: float | None
    lexical: float | None
    dense_rank: int
    lexical_rank: int
    fused: float


@dataclass(frozen=True)
class Fused:
    key: str
    parts: FusionParts


def peakedness(scores: Sequence[float], window: int) -> float:
    """How far the best score stands above the next ``window`` ones, in their standard deviations."""
    if len(scores) < 3:
        return 0.0
    rest = scores[1 : 1 + window]
    mean = sum(rest) / len(rest)
    spread = math.sqrt(sum((s - mean) ** 2 for s in rest) / len(rest))
    gap = scores[0] - mean
    if spread <= 1e-12:
        return 0.0 if gap <= 1e-12 else math.inf
    return gap / spread


def _list_weight(ranked: RankedList, config: FusionConfig) -> float:
    base = config.weights.get(ranked.name, 0.0)
    if not config.adaptive or base == 0.0:
        return base
    peak = peakedness([s for _, s in ranked.hits[: config.peak_window + 1]], config.peak_window)
    share = min(1.0, peak / config.peak_scale)
    return base * (config.peak_floor + (1.0 - config.peak_floor) * share)


def fuse(lists: Sequence[RankedList], config: FusionConfig, limit: int) -> list[Fused]:
    """The top ``limit`` keys over all lists, best first (ties broken by key for a stable order)."""
    if limit < 0:
        raise InvalidCodeInputError(f"limit must be >= 0, got {limit}")
    fused: dict[str, float] = {}
    best: dict[tuple[str, str], tuple[float, int]] = {}  # (key, kind) -> (best score, best rank)
    for ranked in lists:
        weight = _list_weight(ranked, config)
        for rank, (key, score) in enumerate(ranked.hits[: config.depth], start=1):
            if weight > 0.0:
                fused[key] = fused.get(key, 0.0) + weight / (config.rrf_k + rank)
            seen = best.get((key, ranked.kind))
            if seen is None:
                best[(key, ranked.kind)] = (score, rank)
            else:
                best[(key, ranked.kind)] = (max(score, seen[0]), min(rank, seen[1]))
    order = sorted(fused, key=lambda k: (-fused[k], k))[:limit]
    out = []
    for key in order:
        dense = best.get((key, "dense"))
        lexical = best.get((key, "lexical"))
        parts = FusionParts(
            dense=dense[0] if dense else None,
            lexical=lexical[0] if lexical else None,
            dense_rank=dense[1] if dense else 0,
            lexical_rank=lexical[1] if lexical else 0,
            fused=fused[key],
        )
        out.append(Fused(key, parts))
    return out


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
