"""One fact, one place in the results: a hit that restates one ranked above it moves below the others.

A preference restated in ten sessions would fill ten of the top ten. A consolidation cycle merges
most restatements into one canonical memory (merged ones leave recall), but not all: paraphrases of
one fact lie at MiniLM cosine 0.3-0.7, the range of different facts about the same topic, and a
merge cannot be that unsure (it takes the restatement out of recall). At recall the query has chosen
the subject, so within the top ``window`` a hit that says what a higher hit says can give up its place:

- ``restates``: the two are at least ``Weights.restated`` alike by their vectors and ``same_fact``
  holds (not a question against a statement, no value on each side that the other lacks, not the
  same sentence about another thing, no change said by one only, a shared value or subject words),
  so "Admin endpoints allow 20 requests a minute" never gives way to "the search endpoint allows
  100", nor "the load target is Snowflake now" to "the pipeline loads into Redshift";
- an insight drawn from a memory (``metadata.evidence``) shares that memory's place, and the stated
  memory keeps it (the insight repeats its words);
- only what someone stated, what a tool observed and insights: conversation turns (``dialog``),
  commits and session summaries keep their order, and only active hits (a superseded hit is already
  ranked as history).

A hit that gives up its place follows the window's other hits (its total just below the last of
them), so it is still there for a caller asking for more. Pure: vectors come in as arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec
import numpy as np

from codememory.memory.kinds import OBSERVED_TYPES, STATED_TYPES
from codememory.memory.terms import (
    CHANGE_CUES,
    NOT_CHANGE_CUES,
    analyse,
    cues_of,
    same_statement,
    subject_overlap,
)
from codememory.recall.scoring import Candidate, ScoreParts

Ranked = list[tuple[Candidate, ScoreParts]]
PARALLEL_RATIO = 0.6  # token sequences this alike say the same sentence of another thing (as consolidation)
MIN_OVERLAP = 0.25  # share of the smaller one's subject words two restatements without a common value share
_TYPES = frozenset((*STATED_TYPES, *OBSERVED_TYPES, "insight"))


def _evidence(payload: Mapping[str, object]) -> frozenset[str]:
    metadata = payload.get("metadata")
    raw = metadata.get("evidence") if isinstance(metadata, Mapping) else None
    return frozenset(p for p in raw.split(",") if p) if isinstance(raw, str) else frozenset()


def _eligible(candidate: Candidate) -> bool:
    return candidate.payload.get("type") in _TYPES and candidate.payload.get("state") == "active"


def restates(
    lower: Candidate, higher: Candidate, vectors: Mapping[str, np.ndarray], threshold: float
) -> bool:
    """Whether ``lower`` says what ``higher`` says (see the module docstring)."""
    if lower.memory_id in _evidence(higher.payload) or higher.memory_id in _evidence(lower.payload):
        return True
    a, b = vectors.get(lower.memory_id), vectors.get(higher.memory_id)
    if a is None or b is None or float(a @ b) < threshold:
        return False
    return same_fact(str(lower.payload.get("text", "")), str(higher.payload.get("text", "")))


def same_fact(a: str, b: str) -> bool:
    """Two texts alike in meaning that state one fact: ``same_statement``, neither says that something
    changed where the other does not (an amendment is not a restatement of the rule it amends, and
    before a cycle nothing says which replaced which), and they share a value or at least
    ``MIN_OVERLAP`` of the smaller one's subject words ("success toasts disappear after 4 seconds" and
    "error toasts stay until closed" share only "toast")."""
    if not same_statement(a, b, PARALLEL_RATIO):
        return False
    if cues_of(a, CHANGE_CUES, NOT_CHANGE_CUES) != cues_of(b, CHANGE_CUES, NOT_CHANGE_CUES):
        return False
    return bool(analyse(a)[1] & analyse(b)[1]) or subject_overlap(a, b) >= MIN_OVERLAP


def window_ids(ranked: Sequence[tuple[Candidate, ScoreParts]], window: int) -> list[str]:
    """The hits whose vectors ``one_per_fact`` compares (eligible ones in the top ``window``)."""
    return [c.memory_id for c, _ in ranked[:window] if _eligible(c)]


def unit_vectors(points: Sequence[tuple[str, Sequence[float] | None]]) -> dict[str, np.ndarray]:
    """Id to unit vector for the points that have one."""
    out: dict[str, np.ndarray] = {}
    for point_id, dense in points:
        if dense:
            vector = np.asarray(dense, dtype=np.float32)
            norm = float(np.linalg.norm(vector))
            if norm > 0:
                out[point_id] = vector / norm
    return out


def _restated_place(
    candidate: Candidate, kept: Ranked, vectors: Mapping[str, np.ndarray], threshold: float
) -> int | None:
    """The position of the first kept hit that ``candidate`` restates, if any."""
    for i, (higher, _) in enumerate(kept):
        if _eligible(higher) and restates(candidate, higher, vectors, threshold):
            return i
    return None


def one_per_fact(
    ranked: Sequence[tuple[Candidate, ScoreParts]],
    vectors: Mapping[str, np.ndarray],
    threshold: float,
    window: int,
) -> Ranked:
    """The top ``window`` with each hit that restates a higher kept hit moved below the kept ones; an
    insight's evidence takes the insight's place when it ranks below it. ``threshold`` 0: unchanged."""
    if threshold <= 0 or not ranked:
        return list(ranked)
    kept: Ranked = []
    moved: Ranked = []
    for item in ranked[:window]:
        candidate = item[0]
        place = _restated_place(candidate, kept, vectors, threshold) if _eligible(candidate) else None
        if place is None:
            kept.append(item)
            continue
        holder = kept[place]
        if holder[0].payload.get("type") == "insight" and candidate.memory_id in _evidence(holder[0].payload):
            kept[place] = (candidate, msgspec.structs.replace(item[1], total=holder[1].total))
            item = holder  # the statement takes the insight's place; the insight gives way
        moved.append(item)
    if not moved:
        return list(ranked)
    floor = kept[-1][1].total
    below = [(c, msgspec.structs.replace(p, total=floor - 1e-9 * (n + 1))) for n, (c, p) in enumerate(moved)]
    return kept + below + list(ranked[window:])


__all__ = ["one_per_fact", "restates", "same_fact", "unit_vectors", "window_ids"]
