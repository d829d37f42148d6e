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
what kind of thing they say, are not. A hit that already has ``Weights.topic_cap`` hits of its topic
kept above it gives up its place: it follows every hit that did not (``give_way``), so a caller
asking for more still gets it. Only what someone stated (or an insight) crowds out a stated memory:
tool observations of a topic never push the user's own words about it down. The same kinds as
``one_per_fact``: what someone stated, what a tool observed, insights; conversation turns, commits
and summaries keep their order. Pure: vectors come in as arguments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from codememory.memory.kinds import OBSERVED_TYPES
from codememory.memory.terms import analyse, subject_words
from codememory.recall.restated import Ranked, eligible, give_way, statement
from codememory.recall.scoring import Candidate, ScoreParts

# words that address the listener, not a subject ("reminder: ...", "just so you know, ..."), as stems
ADDRESS_WORDS = analyse("remember remind reminder fyi heads know note")[0]


def same_topic(a: str, b: str) -> bool:
    """Whether two texts (already alike by vector) share what they are about: a value or a subject
    word other than ``ADDRESS_WORDS``, identifiers' words included."""
    if analyse(a)[1] & analyse(b)[1]:
        return True
    return bool((subject_words(a) & subject_words(b)) - ADDRESS_WORDS)


def crowd_topics(
    ranked: Sequence[tuple[Candidate, ScoreParts]],
    vectors: Mapping[str, np.ndarray],
    similarity: float,
    cap: int,
    window: int,
) -> Ranked:
    """The top ``window`` with each hit that has ``cap`` kept hits of its topic above it moved below
    the kept ones. ``cap`` 0: unchanged."""
    if cap <= 0 or not ranked:
        return list(ranked)
    kept: Ranked = []
    kept_rows: list[tuple[np.ndarray, str, bool]] = []  # kept eligible hits: vector, statement, observed
    moved: Ranked = []
    for item in ranked[:window]:
        candidate = item[0]
        vector = vectors.get(candidate.memory_id)
        if vector is None or not eligible(candidate):
            kept.append(item)
            continue
        text = statement(candidate.payload)
        observed = candidate.payload.get("type") in OBSERVED_TYPES
        crowd = sum(
            1
            for other, other_text, other_observed in kept_rows
            if (observed or not other_observed)
            and float(vector @ other) >= similarity
            and same_topic(text, other_text)
        )
        if crowd >= cap:
            moved.append(item)
            continue
        kept.append(item)
        kept_rows.append((vector, text, observed))
    if not moved:
        return list(ranked)
    return give_way(kept, moved, ranked[window:])


__all__ = ["crowd_topics", "same_topic"]
