"""At most a few hits per topic in the top results: a topic's further hits move below the others.

``one_per_fact`` moves a hit that states what a higher one states. What it cannot move are the other
things said about one topic: "define new features as Feast feature views in feature_repo/", "after
changing a feature view, run feast apply" and "feature definitions live in feature_repo/, one file
per entity" are three statements, each true, and a question about the feature store would get all
of them and every further wording of each before anything else. A user restating a convention in
ten sessions, each time from another angle, fills the context budget ten times. Search engines know
the problem as host crowding (at most two results per site, the rest behind "more from this site");
here the site is a topic.

Two hits are of one topic when their vectors are at least ``Weights.topic_similarity`` alike and
they share a subject word or a value (counting the words an identifier is made of: ``slog.Info``
names ``slog``), so two memories that are alike only in their phrasing ("remember to ..."), or in
what kind of thing they say, are not. A topic is what such pairs chain together: a hit alike to two
kept hits that were not alike to each other joins them into one topic. A tool's output or an
insight says again what someone stated, in other words ("Read auth/passwords.py: hasher =
PasswordHasher(...)" and "we hash passwords with argon2id" lie at cosine 0.3-0.6), so a pair with
such a derived hit needs only ``Weights.topic_similarity_derived``.

A hit that already has ``Weights.topic_cap`` kept hits of its topic above it gives up its place: it
follows every hit that did not (``give_way``), so a caller asking for more still gets it. Within a
topic, what someone stated comes first:

- arriving at a full topic that holds a derived hit below the topic's first, it keeps its place and
  the lowest such derived hit gives way in its stead (a topic's first hit, whatever its kind, is its
  best answer to the query and keeps its place);
- it takes the place of the topic's first hit (the two exchange places) when that one was stated
  too, fewer times (``restated``), the two are ``topic_similarity`` alike, and it answers the query
  nearly as well (its total at least ``Weights.topic_lead_margin`` of the first's): the canonical
  wording of a fact leads it. A derived first hit keeps its place (a topic is looser than a fact),
  and so does a first hit far better than it: for how often the bot token is rotated, "Slack
  retries an event we don't ack within 3 seconds", stated four times, scored about a third of "the
  bot's Slack token is rotated every 90 days": another fact of the topic, not a wording of the answer;
- two versions of a rule (two stated hits that set one thing differently, ``conflicting_values``)
  are not crowded and do not exchange places: which one is current is ``currency``'s to say.

The same kinds as ``one_per_fact``: what someone stated, what a tool observed, insights;
conversation turns, commits and summaries keep their order. Pure: vectors come in as arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import msgspec
import numpy as np

from codememory.memory.cues import address_words
from codememory.memory.kinds import OBSERVED_TYPES
from codememory.memory.statements import conflicting_values
from codememory.memory.terms import analyse, subject_words
from codememory.recall.restated import Ranked, eligible, give_way, restated_count, statement
from codememory.recall.scoring import Candidate, ScoreParts

# words that address the listener, not a subject ("reminder: ...", "just so you know, ..."), as stems
ADDRESS_WORDS = address_words()


def same_topic(a: str, b: str) -> bool:
    """Whether two texts (already alike by vector) share what they are about: a value or a subject
    word other than ``ADDRESS_WORDS``, identifiers' words included."""
    if analyse(a)[1] & analyse(b)[1]:
        return True
    return bool((subject_words(a) & subject_words(b)) - ADDRESS_WORDS)


@dataclass(frozen=True)
class _Row:
    """A kept eligible hit as the topics see it."""

    vector: np.ndarray
    text: str
    derived: bool  # a tool's observation or an insight: what a memory someone stated says again
    restated: int

    @classmethod
    def of(cls, candidate: Candidate, vector: np.ndarray) -> _Row:
        kind = candidate.payload.get("type")
        return cls(
            vector,
            statement(candidate.payload),
            kind in OBSERVED_TYPES or kind == "insight",
            restated_count(candidate.payload),
        )


def _versions(a: _Row, b: _Row) -> bool:
    """Two versions of one rule, not two sides of a topic: two things someone stated that set one
    thing differently ("named stg_<source>_<table>" / "a double underscore: stg__shopify__orders").
    A tool's output is full of numbers and names that set nothing, so it never counts."""
    return not (a.derived or b.derived) and conflicting_values(a.text, b.text)


class _Topics:
    """The kept hits so far, grouped into topics: a hit joins every topic it is alike to (so two
    topics one hit links become one), and a topic holds at most ``cap`` kept hits."""

    def __init__(self, similarity: float, derived_similarity: float) -> None:
        self.similarity, self.derived_similarity = similarity, derived_similarity
        self.rows: list[_Row] = []
        self.topic: list[int] = []  # each row's topic (the row that founded it; negative: gave way)
        self.position: list[int] = []  # each row's position in the kept list

    def members(self, hit: _Row) -> list[int]:
        """The rows of every topic the hit is alike to (by vector, and sharing a subject word or value)."""
        topics: set[int] = set()
        for row, other in enumerate(self.rows):
            if self.topic[row] < 0 or self.topic[row] in topics:
                continue
            needed = self.derived_similarity if hit.derived or other.derived else self.similarity
            if float(hit.vector @ other.vector) >= needed and same_topic(hit.text, other.text):
                topics.add(self.topic[row])
        return [row for row, topic in enumerate(self.topic) if topic in topics]

    def add(self, hit: _Row, members: list[int], position: int) -> None:
        founder = len(self.rows)
        self.rows.append(hit)
        self.topic.append(founder)
        self.position.append(position)
        for row in members:
            self.topic[row] = founder

    def drop(self, row: int) -> None:
        """A kept hit gave way: it no longer counts in any topic."""
        self.topic[row] = -1 - row

    def lead_to_take(self, hit: _Row, members: list[int]) -> int | None:
        """The topic's first kept hit when ``hit``, something someone stated, should lead the topic
        instead: the first is a stated one, alike to it by ``similarity`` itself (not only through
        the chain), stated fewer times, and no other version of it: the canonical wording of a fact
        leads it. A derived first hit keeps its place: a topic is looser than a fact, and which of a
        fact's statement and its observation answers better is ``one_per_fact``'s to say."""
        if hit.derived or not members:
            return None
        first = min(members, key=lambda row: self.position[row])
        lead = self.rows[first]
        if lead.derived or lead.restated >= hit.restated or _versions(lead, hit):
            return None
        return first if float(hit.vector @ lead.vector) >= self.similarity else None


def crowd_topics(
    ranked: Sequence[tuple[Candidate, ScoreParts]],
    vectors: Mapping[str, np.ndarray],
    similarity: float,
    cap: int,
    window: int,
    derived_similarity: float | None = None,
    lead_margin: float = 0.0,
) -> Ranked:
    """The top ``window`` with each hit that has ``cap`` kept hits of its topic above it moved below
    the kept ones; a stated hit arriving at a full topic that holds a derived one (an observation, an
    insight) below its first hit keeps its place and the lowest such derived hit gives way instead;
    a stated hit restated more often than its topic's first stated hit (and alike to it) takes that
    hit's place. ``derived_similarity``: how alike a derived hit and another must be to share a
    topic (default ``similarity``); ``lead_margin``: the share of the first hit's total the more
    often stated one must reach to take its place. ``cap`` 0: unchanged."""
    if cap <= 0 or not ranked:
        return list(ranked)
    topics = _Topics(similarity, similarity if derived_similarity is None else derived_similarity)
    kept: list[tuple[Candidate, ScoreParts] | None] = []
    moved: Ranked = []
    for item in ranked[:window]:
        candidate = item[0]
        vector = vectors.get(candidate.memory_id)
        if vector is None or not eligible(candidate):
            kept.append(item)
            continue
        hit = _Row.of(candidate, vector)
        members = topics.members(hit)
        if len(members) >= cap and not any(_versions(hit, topics.rows[row]) for row in members):
            first = min(members, key=lambda row: topics.position[row])  # the topic's best answer stays
            derived = [row for row in members if topics.rows[row].derived and row != first]
            if hit.derived or not derived:
                moved.append(item)
                continue
            yielding = max(derived, key=lambda row: topics.position[row])  # the lowest derived hit
            moved.append(kept[topics.position[yielding]])  # type: ignore[arg-type]
            kept[topics.position[yielding]] = None
            topics.drop(yielding)
            members.remove(yielding)
        lead = topics.lead_to_take(hit, members)
        held = kept[topics.position[lead]] if lead is not None else None
        place = len(kept)
        # exchange places and totals (the order stays by total), unless the topic's first answers the
        # query much better: then it is another fact of the topic, not a wording of the first
        if lead is not None and held is not None and item[1].total >= lead_margin * held[1].total:
            place = topics.position[lead]
            kept[place] = (candidate, msgspec.structs.replace(item[1], total=held[1].total))
            item = (held[0], msgspec.structs.replace(held[1], total=item[1].total))
            topics.position[lead] = len(kept)
        topics.add(hit, members, place)
        kept.append(item)
    if not moved:
        return [k for k in kept if k is not None] + list(ranked[window:])
    moved.sort(key=lambda one: -one[1].total)
    return give_way([k for k in kept if k is not None], moved, ranked[window:])


__all__ = ["crowd_topics", "same_topic"]
