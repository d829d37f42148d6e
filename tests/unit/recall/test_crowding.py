"""Topic crowding: a topic's third hit gives way; other topics, observations and conversation never do."""

from __future__ import annotations

from msgspec.structs import replace
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
    # two observations above the rule: the lower one gives way in its stead (the topic's first hit
    # keeps its place whatever its kind); the third observation gives way too
    assert order(crowd_topics([o1, o2, rule, o3, seed], vectors, 0.4, 2, window=20)) == [
        "o1",
        "rule",
        "seed",
        "o2",
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


def test_a_hit_alike_to_two_kept_hits_joins_their_topics() -> None:
    ranked = [
        hit("wrap", 'every returned error gets wrapped: fmt.Errorf("loading index: %w", err)', 0.9),
        hit("swallow", "we never swallow errors, wrap and return them with %w", 0.8),
        hit(
            "read",
            'Read store.go\nreturn fmt.Errorf("open segment %s: %w", name, err)',
            0.7,
            kind="observation",
        ),
        hit("seed", "the random seed is 42 everywhere", 0.6),
    ]
    # "read" is alike to "wrap" only (cos 0.6 and 0.2): with "swallow" alike to "wrap" (0.5), the
    # three are one topic and the observation gives way
    vectors = plane_vectors(wrap=0.0, swallow=-1.05, read=0.93, seed=2.5)
    assert order(crowd_topics(ranked, vectors, 0.4, 2, window=20)) == ["wrap", "swallow", "seed", "read"]


def test_an_observation_needs_less_likeness_to_share_a_topic() -> None:
    ranked = [
        hit(
            "short", "keep the access token lifetime at 15 min, the refresh token does the long sessions", 0.9
        ),
        hit("single", "refresh tokens are single use, every refresh issues a new one", 0.8),
        hit("test", "Bash: pytest tests/test_refresh.py -q\n4 passed in 0.61s", 0.7, kind="observation"),
        hit("seed", "the random seed is 42 everywhere", 0.6),
    ]
    vectors = plane_vectors(short=0.0, single=0.8, test=2.0, seed=3.0)  # test: cos 0.36 to "single"
    assert order(crowd_topics(ranked, vectors, 0.4, 2, window=20)) == order(ranked)
    out = crowd_topics(ranked, vectors, 0.4, 2, window=20, derived_similarity=0.25)
    assert order(out) == ["short", "single", "seed", "test"]


def test_a_package_at_a_version_names_the_package() -> None:
    assert same_topic('Read package.json\n"packageManager": "pnpm@9.12.0"', "install deps with pnpm install")


def test_the_wording_stated_most_often_leads_its_topic() -> None:
    once = hit("once", "remember the seed is 42 for torch, numpy and random", 0.9)
    often = hit("often", "reminder: use seed 42, we compare runs across people", 0.8)
    other = hit("other", "experiments go to mlflow", 0.7)
    often[0].payload["restated"] = 4
    vectors = plane_vectors(once=0.0, often=0.5, other=2.5)
    out = crowd_topics([once, often, other], vectors, 0.4, 2, window=20)
    assert order(out) == ["often", "once", "other"]
    assert [p.total for _, p in out] == [0.9, 0.8, 0.7]


def test_a_more_often_stated_hit_far_below_the_first_does_not_take_the_lead() -> None:
    """The best answer keeps its place: the more often stated hit shares the topic, not the fact."""
    answer = hit("answer", "the bot's Slack token is rotated every 90 days by the platform team", 0.9)
    other = hit("other", "again, Slack retries an event we don't ack within 3 seconds, so ack first", 0.5)
    third = hit("third", "the bot posts in #support, never in direct messages to Slack users", 0.4)
    other[0].payload["restated"] = 4
    vectors = plane_vectors(answer=0.0, other=0.9, third=0.8)  # cosine 0.62 and 0.70 with the answer
    out = crowd_topics([answer, other, third], vectors, 0.4, 2, window=20, lead_margin=0.8)
    assert order(out) == ["answer", "other", "third"]
    assert [p.total for _, p in out][:2] == [0.9, 0.5]
    close = crowd_topics(
        [answer, (other[0], replace(other[1], total=0.75)), third], vectors, 0.4, 2, 20, None, 0.8
    )
    assert order(close) == ["other", "answer", "third"]  # nearly as good an answer: it leads


def test_two_versions_of_a_rule_are_never_crowded() -> None:
    ranked = [
        hit("old", "dbt staging models are named stg_<source>_<table>, e.g. stg_shopify_orders", 0.9),
        hit("tests", "every dbt staging model gets unique and not_null tests on its key", 0.8),
        hit("new", "staging models get a double underscore between parts: stg__shopify__orders", 0.7),
        hit("seed", "the random seed is 42 everywhere", 0.6),
    ]
    ranked[0][0].payload["restated"] = 3
    vectors = plane_vectors(old=0.0, tests=0.4, new=0.3, seed=2.5)
    assert order(crowd_topics(ranked, vectors, 0.4, 2, window=20)) == ["old", "tests", "new", "seed"]


def test_a_topics_first_hit_keeps_its_place_even_when_a_tool_observed_it() -> None:
    used = hit("used", "Bash: make migrate-staging\nApplied 3 migrations to staging", 0.9, kind="observation")
    refresh = hit("refresh", "The staging database is refreshed from production every Sunday night.", 0.8)
    masked = hit("masked", "The staging refresh job copies production data and masks emails.", 0.7)
    seed = hit("seed", "the random seed is 42 everywhere", 0.6)
    vectors = plane_vectors(used=0.0, refresh=0.9, masked=1.1, seed=2.6)  # used at cos 0.62 and 0.45
    # the topic is full and nothing derived stands below its first hit, so the third one gives way
    assert order(crowd_topics([used, refresh, masked, seed], vectors, 0.4, 2, window=20)) == [
        "used",
        "refresh",
        "seed",
        "masked",
    ]
