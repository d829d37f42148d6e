"""Hybrid scoring: the parts of a memory's score, and the weights that combine them.

Dense similarity (MiniLM cosine) is strong on code and weak on conversation, BM25 the other way round,
so neither alone decides: both are normalised over the candidate set and mixed with recency,
importance, scope match and author match (the query names the person the memory came from: "what did
Sam decide about retries" prefers Sam's memories over replies that merely address Sam). Every part
comes back with the hit so a caller can see why it ranked.
Pure functions: no index, no model, no network.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

import msgspec

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class Weights:
    dense: float = 0.45
    lexical: float = 0.35
    recency: float = 0.08
    importance: float = 0.07
    scope: float = 0.05
    author: float = 0.04  # the query names the memory's user (scope.user)
    link: float = 0.1  # share of a top hit's score lent to its session neighbours (0: no expansion)
    # ... and to the memories a consolidation cycle linked it to by meaning (0: not expanded by them;
    # at link's 0.1 they cost LoCoMo 1.4 R@10, benchmarks/RESULTS.md quality_consolidation)
    semantic_link: float = 0.0
    feedback: float = 0.3  # weight of terms the top hits share, added to the query (0: no feedback)
    # a count: new candidates the widened query may bring in by searching the whole tenant again (the
    # behaviour before 2026-12-07); 0: it rescores the candidates alone, by their ids (at a million
    # memories 2.6 ms where the tenant-wide search took 5.3, and LoCoMo lost nothing; ``feedback``)
    feedback_new: float = 0
    recency_half_life_days: float = 14.0
    superseded: float = 0.3  # multiplier of a memory a later one superseded (history, below the current)
    # a later stated memory (another session) whose relevance is at least this share of an earlier
    # one's ranks above it: the query names the subject, the later statement is the rule as it stands
    # (``currency``; 0: off)
    latest_margin: float = 0.8
    # a hit at least this alike by vector (and stating the same thing) to one ranked above it gives up
    # its place in the top results: one fact, one place (``restated``; 0: off)
    restated: float = 0.5
    restated_observed: float = 0.45  # the same for an observation below a stated memory
    # at most ``topic_cap`` hits of one topic (at least ``topic_similarity`` alike by vector, sharing a
    # subject word or value) in the top results, the rest below the others (``crowding``; 0: off)
    topic_cap: float = 2
    topic_similarity: float = 0.4
    topic_similarity_derived: float = 0.25  # the same for a pair with an observation or an insight
    # a topic's more often stated hit leads it only when its total is at least this share of the
    # first's (``crowding``); a fact's canonical wording takes a restatement's place only when its
    # relevance, dense and BM25 parts, is at least this share of the other's (``restated``)
    topic_lead_margin: float = 0.8


def parse_floats(spec: str, kind: Callable[..., T], known: Collection[str]) -> T:
    """``name=0.4,other=0.1`` over ``kind``'s defaults (``known``: its field names); unknown names and
    bad numbers are errors. One parser for every weights object set from the environment."""
    values: dict[str, float] = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep or name not in known:
            raise ValueError(f"bad weight {item!r}: expected one of {sorted(known)} as name=number")
        try:
            values[name] = float(raw)
        except ValueError as exc:
            raise ValueError(f"bad weight {item!r}: {raw!r} is not a number") from exc
    return kind(**values)


def parse_weights(spec: str) -> Weights:
    """``dense=0.4,lexical=0.4`` over the defaults."""
    return parse_floats(spec, Weights, Weights.__dataclass_fields__)


class Candidate(msgspec.Struct, frozen=True, kw_only=True):
    """A memory found for a query, with its search scores (a Struct: recall builds a hundred per query)."""

    memory_id: str
    payload: Mapping[str, object]
    dense: float | None
    lexical: float | None
    point_id: str = ""  # its point in the index, when the search named it (else derived when needed)


class ScoreParts(msgspec.Struct, frozen=True, kw_only=True):
    """A hit's score and its parts (a Struct: recall builds one per candidate, ~20x cheaper than a
    frozen dataclass)."""

    dense: float
    lexical: float
    recency: float
    importance: float
    scope: float
    total: float
    author: float = 0.0
    link: float = 0.0


@dataclass(frozen=True, kw_only=True)
class ScopeHint:
    repo: str = ""
    branch: str = ""
    cwd: str = ""
    paths: tuple[str, ...] = ()
    mentioned: frozenset[str] = frozenset()  # the query's words, lowercase: who it names


_HISTORY_STATES = frozenset({"deprecated", "merged", "archived"})
_WORD = re.compile(r"[^\W\d_]+")


def words_of(text: str) -> frozenset[str]:
    """The lowercase words of a text (letters only: ``Sam's`` gives ``sam`` and ``s``)."""
    return frozenset(w.lower() for w in _WORD.findall(text))


@lru_cache(maxsize=4096)
def _name_words(user: str) -> frozenset[str]:
    """The words of a user's name that can identify them: before any ``@``, three letters or more
    (cached: a recall scores each candidate up to three times, and users are few)."""
    return frozenset(w for w in words_of(user.partition("@")[0]) if len(w) >= 3)


def author_named(payload: Mapping[str, object], mentioned: frozenset[str]) -> float:
    """1.0 when the query names the memory's user: a word of the name (before any ``@``, three letters
    or more) is among the query's words."""
    user = payload.get("user")
    if not mentioned or not isinstance(user, str) or not user:
        return 0.0
    return 0.0 if mentioned.isdisjoint(_name_words(user)) else 1.0


def relevance(parts: ScoreParts, weights: Weights) -> float:
    """How well a memory matches the query's meaning and words (not its age, importance or scope)."""
    return weights.dense * parts.dense + weights.lexical * parts.lexical


def stated_at(payload: Mapping[str, object], now: float) -> float:
    """When a memory's fact was last stated: its own time, or the latest restatement a cycle merged
    into it (``last_stated``, kept by the projection's fold of merges). A convention restated
    yesterday is current, however old its best wording."""
    created = _as_float(payload.get("created_at"), now)
    return max(created, _as_float(payload.get("last_stated"), created))


def recency(created_at: float, now: float, half_life_days: float) -> float:
    age_days = max(0.0, now - created_at) / 86400.0
    return math.pow(0.5, age_days / half_life_days) if half_life_days > 0 else 0.0


def scope_match(payload: Mapping[str, object], hint: ScopeHint) -> float:
    """Fraction of the caller's known scope (repo, branch, working directory, paths) the memory shares."""
    checks: list[bool] = []
    if hint.repo:
        checks.append(payload.get("repo") == hint.repo)
    if hint.branch:
        checks.append(payload.get("branch") == hint.branch)
    raw_paths = payload.get("paths")
    paths = [str(p) for p in raw_paths] if isinstance(raw_paths, list | tuple) else []
    if hint.cwd:
        checks.append(any(p.startswith(hint.cwd) or hint.cwd.endswith(p) for p in paths))
    if hint.paths:
        checks.append(any(p in hint.paths for p in paths))
    return sum(checks) / len(checks) if checks else 0.0


def _as_float(value: object, default: float) -> float:
    return float(value) if isinstance(value, int | float) else default


def top_lexical_of(candidates: Iterable[Candidate]) -> float:
    """What lexical scores are normalised by: the best among the candidates."""
    return max((c.lexical or 0.0 for c in candidates), default=0.0)


def score(
    candidates: Sequence[Candidate],
    weights: Weights,
    hint: ScopeHint,
    now: float,
    *,
    top_lexical: float | None = None,
) -> list[tuple[Candidate, ScoreParts]]:
    """Score and sort candidates, best first; ``top_lexical`` scores late additions on the scale of
    the set they join (default: the best lexical score among ``candidates``)."""
    if top_lexical is None:
        top_lexical = top_lexical_of(candidates)
    scored: list[tuple[Candidate, ScoreParts]] = []
    for c in candidates:
        dense = max(0.0, min(1.0, c.dense or 0.0))
        lexical = (c.lexical or 0.0) / top_lexical if top_lexical > 0 else 0.0
        rec = recency(stated_at(c.payload, now), now, weights.recency_half_life_days)
        imp = max(0.0, min(1.0, _as_float(c.payload.get("importance"), 0.5)))
        scope = scope_match(c.payload, hint)
        author = author_named(c.payload, hint.mentioned)
        total = (
            weights.dense * dense
            + weights.lexical * lexical
            + weights.recency * rec
            + weights.importance * imp
            + weights.scope * scope
            + weights.author * author
        )
        state = c.payload.get("state")
        if state == "superseded":
            total *= weights.superseded
        elif state in _HISTORY_STATES:
            total *= 0.5
        parts = ScoreParts(
            dense=dense,
            lexical=lexical,
            recency=rec,
            importance=imp,
            scope=scope,
            author=author,
            total=total,
        )
        scored.append((c, parts))
    scored.sort(key=lambda pair: (-pair[1].total, pair[0].memory_id))
    return scored
