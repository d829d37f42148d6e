"""One fact, one place in the results: a hit that restates one ranked above it moves below the others.

A preference restated in ten sessions would fill ten of the top ten. A consolidation cycle merges
most restatements into one canonical memory (merged ones leave recall), but not all: paraphrases of
one fact lie at MiniLM cosine 0.3-0.7, the range of different facts about the same topic, and a
merge cannot be that unsure (it takes the restatement out of recall). At recall the query has chosen
the subject, so within the top ``window`` a hit that says what a higher hit says can give up its place:

- a restatement: the two are at least ``Weights.restated`` alike by their vectors and ``same_fact``
  holds (not a question against a statement, no two values that set one thing differently, not the
  same sentence about another thing, no change said by one only, a shared value or subject words,
  counting the words an identifier is made of),
  so "Admin endpoints allow 20 requests a minute" never gives way to "the search endpoint allows
  100", nor "the load target is Snowflake now" to "the pipeline loads into Redshift";
- of two statements of one fact, the one stated more often takes the place of the other when it
  answers the query nearly as well (its relevance, meaning and words, at least
  ``Weights.topic_lead_margin`` of the other's: as a topic's canonical wording leads it in
  ``crowding``) and the other was not said after its latest restatement. A cycle's canonical memory
  holds the restatements it merged (``restated``), and recall, with the query choosing the subject,
  recognises wordings the cycle could not merge ("runs must be reproducible: seed_everything(42)"
  under "use seed 42, we compare runs across people"). The margin keeps an exception in its place:
  for "which timezone does the reporting export use?", "the reporting export writes local times"
  answers far better than the rule it looks like, "timestamps go into the DB as UTC", stated five
  times;
- a statement and an observation need only ``Weights.restated_observed`` (a tool's output says what
  the user said in other words: "Read Makefile: lint: ruff check" and "we lint with ruff"), and the
  statement keeps the place whichever ranked higher: what someone stated outranks what a tool
  observed of the same fact;
- an insight drawn from a memory (``metadata.evidence``, or a restatement merged into the memory:
  its ``sources``) shares that memory's place: a stated memory keeps it (a convention repeats its
  words), and an insight keeps it from what tools observed (a fix lesson holds the failure, the
  command and the edit that made it pass: what was learnt from them, where a raw failure or diff is
  one part of it);
- only what someone stated, what a tool observed and insights: conversation turns (``dialog``),
  commits and session summaries keep their order, and only active hits (a superseded hit is already
  ranked as history).

A hit that gives up its place follows every hit that did not (``give_way``: its total just below
the last of them), so it takes no place a new fact could fill and is still there for a caller asking
for more. Pure: vectors come in as arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import msgspec
import numpy as np

from codememory.memory.cues import CHANGE_CUES, NOT_CHANGE_CUES, cues_of
from codememory.memory.kinds import OBSERVED_TYPES, STATED_TYPES
from codememory.memory.statements import PARALLEL_RATIO, same_statement
from codememory.memory.terms import analyse, subject_overlap
from codememory.recall.scoring import Candidate, ScoreParts, stated_at

Ranked = list[tuple[Candidate, ScoreParts]]
MIN_OVERLAP = 0.25  # share of the smaller one's subject words two restatements without a common value share
_TYPES = frozenset((*STATED_TYPES, *OBSERVED_TYPES, "insight"))
_STATED, _OBSERVED = frozenset(STATED_TYPES), frozenset(OBSERVED_TYPES)


def evidence_of(payload: Mapping[str, object]) -> frozenset[str]:
    """The memories an insight was drawn from (``metadata.evidence``); empty for anything else."""
    metadata = payload.get("metadata")
    raw = metadata.get("evidence") if isinstance(metadata, Mapping) else None
    return frozenset(p for p in raw.split(",") if p) if isinstance(raw, str) else frozenset()


def stands_for(memory_id: str, payload: Mapping[str, object]) -> frozenset[str]:
    """The memory and the restatements merged into it (its ``sources``): an insight drawn from one of
    them was drawn from what this memory says."""
    sources = payload.get("sources")
    listed = sources if isinstance(sources, list) else []
    merged = [s.get("memory_id") for s in listed if isinstance(s, Mapping)]
    return frozenset((memory_id, *(m for m in merged if isinstance(m, str) and m)))


def statement(payload: Mapping[str, object]) -> str:
    """What a hit states: its text; an insight's first line (its lesson; the lines under it describe
    where it was learnt, "stated in 5 sessions", which is no value of the fact)."""
    text = str(payload.get("text", ""))
    return text.split("\n", 1)[0] if payload.get("type") == "insight" else text


def eligible(candidate: Candidate) -> bool:
    return candidate.payload.get("type") in _TYPES and candidate.payload.get("state") == "active"


def same_fact(a: str, b: str) -> bool:
    """Two texts alike in meaning that state one fact: ``same_statement``, neither says that something
    changed where the other does not (an amendment is not a restatement of the rule it amends, and
    before a cycle nothing says which replaced which), and they share a value or at least
    ``MIN_OVERLAP`` of the smaller one's subject words ("success toasts disappear after 4 seconds" and
    "error toasts stay until closed" share only "toast")."""
    if not same_statement(a, b, PARALLEL_RATIO, strict=False):
        return False
    if cues_of(a, CHANGE_CUES, NOT_CHANGE_CUES) != cues_of(b, CHANGE_CUES, NOT_CHANGE_CUES):
        return False
    return bool(analyse(a)[1] & analyse(b)[1]) or subject_overlap(a, b, named=True) >= MIN_OVERLAP


def window_ids(ranked: Sequence[tuple[Candidate, ScoreParts]], window: int) -> list[str]:
    """The hits whose vectors ``one_per_fact`` compares (eligible ones in the top ``window``)."""
    return [c.memory_id for c, _ in ranked[:window] if eligible(c)]


def unit_vectors(points: Sequence[tuple[str, Sequence[float] | None]]) -> dict[str, np.ndarray]:
    """Id to unit vector for the points that have one."""
    present = [(point_id, dense) for point_id, dense in points if dense]
    if not present:
        return {}
    raw = np.asarray([dense for _, dense in present], dtype=np.float32)
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    unit = raw / np.where(norms > 0, norms, 1.0)
    return {point_id: unit[n] for n, (point_id, _) in enumerate(present) if norms[n, 0] > 0}


class _Window:
    """The kept hits so far, with their rows in the window's similarity matrix (computed once)."""

    def __init__(self, ranked: Sequence[tuple[Candidate, ScoreParts]], vectors: Mapping[str, np.ndarray]):
        ids = [c.memory_id for c, _ in ranked if eligible(c) and c.memory_id in vectors]
        self.row = {memory_id: n for n, memory_id in enumerate(ids)}
        matrix = np.stack([vectors[i] for i in ids]) if ids else np.zeros((0, 1), dtype=np.float32)
        self.sims = matrix @ matrix.T
        self.kept: Ranked = []
        self.rows: list[int] = []  # each kept hit's row (-1: not compared by vector)
        self.insights: list[int] = []  # positions of kept insights with evidence

    def place_of(self, candidate: Candidate, threshold: float, observed: float) -> int | None:
        """The position of the first kept hit that ``candidate`` restates, if any."""
        evidence = evidence_of(candidate.payload)
        alike: set[int] = set()
        if self.insights:  # most windows hold none: the candidate's merged sources are not read then
            covers = stands_for(candidate.memory_id, candidate.payload)
            alike = {p for p in self.insights if covers & evidence_of(self.kept[p][0].payload)}
        if evidence:
            kept = enumerate(self.kept)
            alike |= {p for p, (k, _) in kept if stands_for(k.memory_id, k.payload) & evidence}
        found = min(alike) if alike else None
        row = self.row.get(candidate.memory_id)
        if row is not None and self.rows:
            rows = np.asarray(self.rows)
            needed = np.full(len(rows), threshold, dtype=np.float32)
            kind = candidate.payload.get("type")
            other = _STATED if kind in _OBSERVED else _OBSERVED if kind in _STATED else frozenset()
            mixed = [p for p, (k, _) in enumerate(self.kept) if k.payload.get("type") in other]
            needed[mixed] = observed  # a statement and an observation of it need less
            close = np.flatnonzero((rows >= 0) & (self.sims[row, np.maximum(rows, 0)] >= needed))
            text = statement(candidate.payload)
            for position in close.tolist():  # ascending: the first kept hit it restates is its place
                if found is not None and position >= found:
                    break  # the texts of hits below a place already found cannot move it
                if same_fact(text, statement(self.kept[position][0].payload)):
                    found = position
                    break
        return found

    def lessons_of(self, candidate: Candidate, besides: int) -> list[int]:
        """Positions of kept insights drawn from what ``candidate`` stands for, other than ``besides``."""
        if not self.insights or candidate.payload.get("type") not in _STATED:
            return []
        covers = stands_for(candidate.memory_id, candidate.payload)
        return [p for p in self.insights if p != besides and covers & evidence_of(self.kept[p][0].payload)]

    def release(self, positions: list[int]) -> Ranked:
        """Take the kept hits at ``positions`` out (they give way after all)."""
        gone = set(positions)
        out = [self.kept[p] for p in sorted(gone)]
        stay = [p for p in range(len(self.kept)) if p not in gone]
        new_place = {old: new for new, old in enumerate(stay)}
        self.kept = [self.kept[p] for p in stay]
        self.rows = [self.rows[p] for p in stay]
        self.insights = [new_place[p] for p in self.insights if p in new_place]
        return out

    def keep(self, item: tuple[Candidate, ScoreParts], position: int | None = None) -> None:
        candidate = item[0]
        row = self.row.get(candidate.memory_id, -1) if eligible(candidate) else -1
        lesson = candidate.payload.get("type") == "insight" and bool(evidence_of(candidate.payload))
        if position is not None:  # a statement in the place of the insight drawn from it, or the other way
            self.kept[position], self.rows[position] = item, row
            self.insights = [p for p in self.insights if p != position] + ([position] if lesson else [])
            return
        if lesson:
            self.insights.append(len(self.kept))
        self.kept.append(item)
        self.rows.append(row)


def restated_count(payload: Mapping[str, object]) -> int:
    """How many times a memory's fact was stated: 1 + the restatements a cycle merged into it."""
    restated = payload.get("restated")
    return restated if isinstance(restated, int) and restated > 0 else 1


def _represents(lower: Candidate, higher: Candidate) -> bool:
    """Whether ``lower`` takes ``higher``'s place rather than giving way: of an insight and a memory
    it was drawn from, the memory when someone stated it and the insight when a tool observed it;
    a statement over an observation of the same fact (what someone stated outranks it)."""
    kind, lower_kind = higher.payload.get("type"), lower.payload.get("type")
    if kind == "insight":
        drawn = stands_for(lower.memory_id, lower.payload) & evidence_of(higher.payload)
        return bool(drawn) and lower_kind in _STATED
    if lower_kind == "insight":
        return kind in _OBSERVED and bool(
            stands_for(higher.memory_id, higher.payload) & evidence_of(lower.payload)
        )
    return kind in _OBSERVED and lower_kind in _STATED


def _leads(lower: Candidate, higher: Candidate) -> bool:
    """Whether ``lower``, a statement of the fact ``higher`` states too, is its canonical wording: stated
    more often (a cycle merged restatements into it) and stated again since ``higher`` was said (a
    later wording may be an amendment no cycle caught: which one is current is ``currency``'s)."""
    if higher.payload.get("type") not in _STATED or lower.payload.get("type") not in _STATED:
        return False
    stated_since = stated_at(lower.payload, 0.0) >= stated_at(higher.payload, 0.0)
    return stated_since and restated_count(lower.payload) > restated_count(higher.payload)


def one_per_fact(
    ranked: Sequence[tuple[Candidate, ScoreParts]],
    vectors: Mapping[str, np.ndarray],
    threshold: float,
    window: int,
    observed: float | None = None,
    lead_margin: float | None = None,
    relevance: Callable[[ScoreParts], float] | None = None,
) -> Ranked:
    """The top ``window`` with each hit that restates a higher kept hit moved below the kept ones; an
    insight's evidence takes the insight's place when it ranks below it, and so does a fact's
    canonical wording when its ``relevance`` (default: its total) is at least ``lead_margin`` of the
    higher hit's (``_leads``; None: never). Hits that gave way follow in their order.
    ``observed``: the threshold for an observation under a statement (default ``threshold``).
    ``threshold`` 0: unchanged."""
    if threshold <= 0 or not ranked:
        return list(ranked)
    state = _Window(ranked[:window], vectors)
    answer = relevance or (lambda parts: parts.total)
    moved: Ranked = []
    for item in ranked[:window]:
        candidate = item[0]
        needed = threshold if observed is None else observed
        place = state.place_of(candidate, threshold, needed) if eligible(candidate) else None
        if place is None:
            state.keep(item)
            continue
        holder = state.kept[place]
        leads = lead_margin is not None and _leads(candidate, holder[0])
        leads = leads and answer(item[1]) >= (lead_margin or 0.0) * answer(holder[1])
        if leads or _represents(candidate, holder[0]):
            state.keep((candidate, msgspec.structs.replace(item[1], total=holder[1].total)), place)
            item = holder  # the statement takes the place of the insight drawn from it, or of an observation
            # ... and a lesson drawn from it that kept another place gives way too (one fact, one place)
            moved.extend(state.release(state.lessons_of(candidate, place)))
        moved.append(item)
    if not moved:
        return list(ranked)
    rank = {c.memory_id: n for n, (c, _) in enumerate(ranked[:window])}
    moved.sort(key=lambda one: rank[one[0].memory_id])  # a holder gave way when it lost its place
    return give_way(state.kept, moved, ranked[window:])


def give_way(kept: Ranked, moved: Ranked, rest: Sequence[tuple[Candidate, ScoreParts]]) -> Ranked:
    """``kept``, then ``rest``, then ``moved`` with totals just below the last of them: a hit that gave
    up its place comes after every hit that did not, so it fills no place a new one could."""
    others = [*kept, *rest]
    floor = others[-1][1].total if others else 0.0
    below = [(c, msgspec.structs.replace(p, total=floor - 1e-9 * (n + 1))) for n, (c, p) in enumerate(moved)]
    return others + below


__all__ = [
    "eligible",
    "evidence_of",
    "give_way",
    "one_per_fact",
    "restated_count",
    "same_fact",
    "stands_for",
    "statement",
    "unit_vectors",
    "window_ids",
]
