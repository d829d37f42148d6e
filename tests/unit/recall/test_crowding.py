"""Topic crowding: a topic's third hit gives way; other topics, observations and conversation never do."""

from __future__ import annotations

import numpy as np

from codememory.recall.crowding import crowd_topics, same_topic
from codememory.recall.restated import unit_vectors
from codememory.recall.scoring import Candidate, ScoreParts


def _hit(mid: str, text: str, total: float, *, kind: str = "prompt") -> tuple[Candidate, ScoreParts]:
    payload: dict[str, object] = {"text": text, "type": kind, "state": "active"}
    parts = ScoreParts(dense=total, lexical=0.0, recency=0.0, importance=0.5, scope=0.0, total=total)
    return Candidate(memory_id=mid, payload=payload, dense=total, lexical=None), parts


def _vectors(**angles: float) -> dict[str, np.ndarray]:
    """Unit vectors in a plane: the cosine of two is the cosine of their angle difference."""
    return unit_vectors([(k, (float(np.cos(a)), float(np.sin(a)))) for k, a in angles.items()])


def _order(ranked: list[tuple[Candidate, ScoreParts]]) -> list[str]:
    return [c.memory_id for c, _ in ranked]


FEAST = [
    _hit("define", "define new features as Feast feature views in feature_repo/", 0.9),
    _hit("apply", "after changing a feature view, run feast apply", 0.8),
    _hit("files", "feature definitions live in feature_repo/, one file per entity", 0.7),
    _hit("seed", "the random seed is 42 everywhere", 0.6),
]


def test_the_third_hit_of_a_topic_follows_every_other_hit() -> None:
    vectors = _vectors(define=0.0, apply=0.3, files=0.5, seed=2.0)  # the feast ones within cos 0.88
    rest = [_hit("later", "the online store is Redis", 0.1)]
    out = crowd_topics([*FEAST, *rest], vectors, 0.4, 2, window=4)
    assert _order(out) == ["define", "apply", "seed", "later", "files"]
    totals = [p.total for _, p in out]
    assert totals == sorted(totals, reverse=True)


def test_a_cap_of_three_keeps_three_and_zero_is_off() -> None:
    vectors = _vectors(define=0.0, apply=0.3, files=0.5, seed=2.0)
    assert _order(crowd_topics(FEAST, vectors, 0.4, 3, window=20)) == _order(FEAST)
    assert _order(crowd_topics(FEAST, vectors, 0.4, 0, window=20)) == _order(FEAST)


def test_hits_alike_by_vector_but_sharing_no_subject_are_different_topics() -> None:
    ranked = [
        _hit("a", "remember to run the migrations before the deploy", 0.9),
        _hit("b", "remember to rotate the api keys every quarter", 0.8),
        _hit("c", "remember to update the changelog with each release", 0.7),
    ]
    vectors = _vectors(a=0.0, b=0.1, c=0.2)  # phrased alike, about three things
    assert _order(crowd_topics(ranked, vectors, 0.4, 2, window=20)) == ["a", "b", "c"]
    assert not same_topic("remember to run the migrations", "remember to rotate the api keys")
    assert same_topic("logs go through slog", "slog.Info with the request's logger")


def test_hits_below_the_similarity_are_different_topics() -> None:
    vectors = _vectors(define=0.0, apply=1.2, files=2.4, seed=3.0)  # neighbours at cos 0.36
    assert _order(crowd_topics(FEAST, vectors, 0.4, 2, window=20)) == _order(FEAST)


def test_observations_never_crowd_out_what_someone_stated() -> None:
    o1 = _hit("o1", "Bash: git checkout -b feat/refunds\nSwitched to a new branch", 0.9, kind="observation")
    o2 = _hit("o2", "Bash: git checkout -b chore/refunds\nSwitched to a new branch", 0.8, kind="observation")
    rule = _hit("rule", "Trunk-based from today: short-lived branches off main", 0.7, kind="decision")
    o3 = _hit("o3", "Bash: git branch -a\n* main\n  feat/refunds", 0.6, kind="observation")
    seed = _hit("seed", "the random seed is 42 everywhere", 0.5)
    vectors = _vectors(o1=0.0, o2=0.05, rule=0.3, o3=0.2, seed=2.5)
    # two observations above the rule: it stays; the third observation gives way
    assert _order(crowd_topics([o1, o2, rule, o3, seed], vectors, 0.4, 2, window=20)) == [
        "o1",
        "o2",
        "rule",
        "seed",
        "o3",
    ]
    # the rule and one observation above: the second and third observations give way
    assert _order(crowd_topics([rule, o1, o2, o3, seed], vectors, 0.4, 2, window=20)) == [
        "rule",
        "o1",
        "seed",
        "o2",
        "o3",
    ]


def test_conversation_turns_and_commits_keep_their_order() -> None:
    ranked = [
        _hit(f"d{n}", f"we talked about the feast feature views, part {n}", 0.9 - n / 10, kind="dialog")
        for n in range(4)
    ]
    vectors = _vectors(d0=0.0, d1=0.01, d2=0.02, d3=0.03)
    assert _order(crowd_topics(ranked, vectors, 0.4, 2, window=20)) == ["d0", "d1", "d2", "d3"]
