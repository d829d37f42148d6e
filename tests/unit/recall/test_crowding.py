"""Topic crowding: a topic's third hit gives way; other topics, observations and conversation never do."""

from __future__ import annotations

from rankedkit import hit, order, plane_vectors  # type: ignore[import-not-found]

from codememory.recall.crowding import crowd_topics, same_topic

FEAST = [
    hit("define", "define new features as Feast feature views in feature_repo/", 0.9),
    hit("apply", "after changing a feature view, run feast apply", 0.8),
    hit("files", "feature definitions live in feature_repo/, one file per entity", 0.7),
    hit("seed", "the random seed is 42 everywhere", 0.6),
]


def test_the_third_hit_of_a_topic_follows_every_other_hit() -> None:
    vectors = plane_vectors(define=0.0, apply=0.3, files=0.5, seed=2.0)  # the feast ones within cos 0.88
    rest = [hit("later", "the online store is Redis", 0.1)]
    out = crowd_topics([*FEAST, *rest], vectors, 0.4, 2, window=4)
    assert order(out) == ["define", "apply", "seed", "later", "files"]
    totals = [p.total for _, p in out]
    assert totals == sorted(totals, reverse=True)


def test_a_cap_of_three_keeps_three_and_zero_is_off() -> None:
    vectors = plane_vectors(define=0.0, apply=0.3, files=0.5, seed=2.0)
    assert order(crowd_topics(FEAST, vectors, 0.4, 3, window=20)) == order(FEAST)
    assert order(crowd_topics(FEAST, vectors, 0.4, 0, window=20)) == order(FEAST)


def test_hits_alike_by_vector_but_sharing_no_subject_are_different_topics() -> None:
    ranked = [
        hit("a", "remember to run the migrations before the deploy", 0.9),
        hit("b", "remember to rotate the api keys every quarter", 0.8),
        hit("c", "remember to update the changelog with each release", 0.7),
    ]
    vectors = plane_vectors(a=0.0, b=0.1, c=0.2)  # phrased alike, about three things
    assert order(crowd_topics(ranked, vectors, 0.4, 2, window=20)) == ["a", "b", "c"]
    assert not same_topic("remember to run the migrations", "remember to rotate the api keys")
    assert same_topic("logs go through slog", "slog.Info with the request's logger")


def test_hits_below_the_similarity_are_different_topics() -> None:
    vectors = plane_vectors(define=0.0, apply=1.2, files=2.4, seed=3.0)  # neighbours at cos 0.36
    assert order(crowd_topics(FEAST, vectors, 0.4, 2, window=20)) == order(FEAST)


def test_observations_never_crowd_out_what_someone_stated() -> None:
    o1 = hit("o1", "Bash: git checkout -b feat/refunds\nSwitched to a new branch", 0.9, kind="observation")
    o2 = hit("o2", "Bash: git checkout -b chore/refunds\nSwitched to a new branch", 0.8, kind="observation")
    rule = hit("rule", "Trunk-based from today: short-lived branches off main", 0.7, kind="decision")
    o3 = hit("o3", "Bash: git branch -a\n* main\n  feat/refunds", 0.6, kind="observation")
    seed = hit("seed", "the random seed is 42 everywhere", 0.5)
    vectors = plane_vectors(o1=0.0, o2=0.05, rule=0.3, o3=0.2, seed=2.5)
    # two observations above the rule: it stays; the third observation gives way
    assert order(crowd_topics([o1, o2, rule, o3, seed], vectors, 0.4, 2, window=20)) == [
        "o1",
        "o2",
        "rule",
        "seed",
        "o3",
    ]
    # the rule and one observation above: the second and third observations give way
    assert order(crowd_topics([rule, o1, o2, o3, seed], vectors, 0.4, 2, window=20)) == [
        "rule",
        "o1",
        "seed",
        "o2",
        "o3",
    ]


def test_conversation_turns_and_commits_keep_their_order() -> None:
    ranked = [
        hit(f"d{n}", f"we talked about the feast feature views, part {n}", 0.9 - n / 10, kind="dialog")
        for n in range(4)
    ]
    vectors = plane_vectors(d0=0.0, d1=0.01, d2=0.02, d3=0.03)
    assert order(crowd_topics(ranked, vectors, 0.4, 2, window=20)) == ["d0", "d1", "d2", "d3"]
