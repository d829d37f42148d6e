"""One fact, one place: restatements give way, different facts, amendments and conversation never do."""

from __future__ import annotations

import msgspec
from rankedkit import hit, order, plane_vectors  # type: ignore[import-not-found]

from codememory.recall.restated import one_per_fact, same_fact, window_ids


def test_a_restatement_gives_its_place_to_the_next_fact_and_totals_stay_in_order() -> None:
    ranked = [
        hit("a", "use pnpm, not npm", 0.9),
        hit("b", "it's pnpm here, don't run npm install", 0.8),
        hit("c", "commit messages follow conventional commits", 0.7),
    ]
    vectors = plane_vectors(a=0.0, b=0.5, c=1.5)  # a~b 0.88, c far from both
    out = one_per_fact(ranked, vectors, 0.5, 20)
    assert order(out) == ["a", "c", "b"]
    totals = [p.total for _, p in out]
    assert totals == sorted(totals, reverse=True)


def test_different_values_an_amendment_and_another_subject_keep_their_places() -> None:
    ranked = [
        hit("rate", "Rate limit the public search endpoint to 100 requests per minute", 0.9),
        hit("admin", "Admin endpoints are rate limited to 20 requests per minute", 0.8),
        hit("old", "The pipeline loads into Redshift, schema analytics.", 0.7),
        hit("new", "The load target is Snowflake now, schema analytics.", 0.6),
        hit("error", "Error toasts stay on screen until the user closes them.", 0.5),
        hit("success", "Success toasts disappear after a while.", 0.4),
    ]
    vectors = plane_vectors(rate=0.0, admin=0.1, old=1.0, new=1.1, error=2.0, success=2.1)
    assert order(one_per_fact(ranked, vectors, 0.5, 20)) == order(ranked)


def test_the_statement_takes_the_place_of_the_insight_drawn_from_it() -> None:
    ranked = [
        hit("lesson", "use pnpm, not npm\nSituation: 6 sessions", 0.9, kind="insight", evidence="r"),
        hit("other", "seed everything with 42", 0.8),
        hit("r", "use pnpm, not npm", 0.7),
    ]
    vectors = plane_vectors(lesson=0.0, other=1.5, r=0.0)
    out = one_per_fact(ranked, vectors, 0.5, 20)
    assert order(out) == ["r", "other", "lesson"]
    assert out[0][1].total == 0.9  # in the insight's place


def test_a_fix_lesson_keeps_its_place_from_the_failure_and_the_edit_it_was_drawn_from() -> None:
    lesson = hit(
        "lesson",
        "`pytest -q` failed, then passed after changing api/client.py\n"
        "Situation: AttributeError: 'Client' object has no attribute '_post'",
        0.7,
        kind="insight",
        evidence="fail,e1,run",
    )
    edit = hit(
        "edit", "Edited api/client.py: replaced `self._post(` with `self.http.post(`", 0.8, kind="observation"
    )
    edit[0].payload["sources"] = [{"memory_id": "e1"}]  # the edit was merged with a restatement of it
    failure = hit("fail", "Bash failed: pytest -q\nAttributeError: no attribute '_post'", 0.6, kind="failure")
    other = hit("other", "seed everything with 42", 0.5)
    vectors = plane_vectors(lesson=0.0, edit=1.0, fail=2.0, other=3.0)  # apart: only the evidence links them
    out = one_per_fact([edit, lesson, failure, other], vectors, 0.9, 20)
    assert order(out) == ["lesson", "other", "edit", "fail"]
    assert out[0][1].total == 0.8  # in the edit's place, the best of them
    # what someone stated keeps its place from the lesson drawn from it, as before; the failure, no
    # restatement of the statement, keeps its own
    said = hit("edit", "always go through self.http, never a private _post", 0.8)
    said[0].payload["sources"] = [{"memory_id": "e1"}]
    out = one_per_fact([said, lesson, failure, other], vectors, 0.9, 20)
    assert order(out) == ["edit", "fail", "other", "lesson"]


def test_an_insight_drawn_from_a_restatement_merged_into_a_hit_gives_that_hit_its_place() -> None:
    lesson = hit("lesson", "use pnpm, not npm\nSituation: 2 sessions", 0.9, kind="insight", evidence="r1,r2")
    canonical = hit("c", "it's pnpm in this repo", 0.7)
    canonical[0].payload["sources"] = [{"memory_id": "r2", "session_id": "s2"}]
    ranked = [lesson, hit("other", "seed everything with 42", 0.8), canonical]
    vectors = plane_vectors(lesson=0.0, other=1.5, c=1.0)  # too far apart by vector to be a restatement
    out = one_per_fact(ranked, vectors, 0.9, 20)
    assert order(out) == ["c", "other", "lesson"]
    assert out[0][1].total == 0.9
    # the same hit without the merged restatement is another memory: nothing moves
    alone = hit("c", "it's pnpm in this repo", 0.7)
    assert order(one_per_fact([lesson, ranked[1], alone], vectors, 0.9, 20)) == ["lesson", "other", "c"]


def test_conversation_history_and_an_off_switch_are_left_alone() -> None:
    ranked = [
        hit("t1", "we use pnpm here", 0.9, kind="dialog"),
        hit("t2", "yes, pnpm here", 0.8, kind="dialog"),
        hit("s1", "use pnpm, not npm", 0.7),
        hit("s2", "use pnpm, not npm please", 0.6, state="superseded"),
    ]
    vectors = plane_vectors(t1=0.0, t2=0.0, s1=0.0, s2=0.0)
    assert order(one_per_fact(ranked, vectors, 0.5, 20)) == ["t1", "t2", "s1", "s2"]
    assert window_ids(ranked, 20) == ["s1"]
    flooded = [hit("a", "use pnpm", 0.9), hit("b", "use pnpm", 0.8)]
    assert order(one_per_fact(flooded, plane_vectors(a=0.0, b=0.0), 0.0, 20)) == ["a", "b"]


def test_same_fact_needs_a_shared_value_or_subject() -> None:
    assert same_fact("run the tests with pytest -n auto", "as usual run pytest with -n auto")
    assert not same_fact("use 4 spaces", "use 2 spaces")
    assert not same_fact("which linter do we use?", "we lint with ruff")
    assert not same_fact("we use pnpm", "we use pnpm from now on, not yarn")


def test_an_observation_gives_way_to_a_statement_at_a_lower_similarity() -> None:
    ranked = [
        hit("rule", "we lint with ruff, not flake8", 0.9),
        hit("other", "seed everything with 42", 0.8),
        hit("seen", "Read Makefile\nlint:\n\truff check app tests", 0.7, kind="observation"),
        hit("said", "ruff does the linting", 0.6),
    ]
    vectors = plane_vectors(rule=0.0, other=1.5, seen=1.1, said=-1.1)  # cos(rule, .) = 0.45
    assert order(one_per_fact(ranked, vectors, 0.5, 20, 0.4)) == ["rule", "other", "said", "seen"]
    assert order(one_per_fact(ranked, vectors, 0.5, 20)) == ["rule", "other", "seen", "said"]


def test_a_statement_takes_the_place_of_an_observation_of_the_same_fact() -> None:
    ranked = [
        hit(
            "seen",
            "Bash: sbatch -p a100 scripts/train.sbatch\nSubmitted batch job 882134",
            0.9,
            kind="observation",
        ),
        hit("other", "seed everything with 42", 0.8),
        hit("said", "submit gpu jobs with sbatch -p a100, never on the login node", 0.7),
    ]
    vectors = plane_vectors(seen=0.0, other=1.5, said=0.9)  # cos(seen, said) = 0.62
    out = one_per_fact(ranked, vectors, 0.5, 20, 0.45)
    assert order(out) == ["said", "other", "seen"] and out[0][1].total == 0.9


def test_values_named_for_different_things_are_details_values_for_one_thing_conflict() -> None:
    # identifiers each side names for another purpose: still one fact
    assert same_fact(
        "validation goes in a zod schema, hooked up through zodResolver",
        "we validate with zod, don't write validation by hand in onChange",
    )
    # one setting, two values: alike names, a shared neighbour word, or two numbers
    assert not same_fact(
        "staging models get a double underscore between parts: stg__shopify__orders",
        "dbt staging models are named stg_<source>_<table>, e.g. stg_shopify_orders",
    )
    assert not same_fact(
        "component files are PascalCase: UserCard.tsx", "component files in kebab-case: user-card.tsx"
    )
    assert not same_fact("indent with 4 spaces", "indent with 2 spaces")


def test_an_identifier_shares_its_words_with_the_prose_that_names_them() -> None:
    # "slog.Info" names slog; "logging" and "log" are one word
    assert same_fact(
        "structured logging only: slog.Info with key-value pairs",
        "reminder: use slog with the JSON handler, the log pipeline parses JSON",
    )


def test_an_insight_is_compared_by_its_lesson_not_by_where_it_was_learnt() -> None:
    ranked = [
        hit("s", "use seed 42 everywhere, runs are compared across 3 teams", 0.9),
        hit(
            "i",
            "pin the random seed to 42\nSituation: stated in 5 sessions",
            0.8,
            kind="insight",
        ),
        hit("c", "commit messages follow conventional commits", 0.7),
    ]
    out = one_per_fact(ranked, plane_vectors(s=0.0, i=0.3, c=1.5), 0.5, 20)
    assert order(out) == ["s", "c", "i"]  # "5 sessions" is no value of the fact


def test_a_canonical_statement_nearly_as_good_takes_the_place_of_a_wording_said_before() -> None:
    """Of two statements of one fact, the one a cycle merged restatements into leads when it answers
    the query nearly as well, unless the other was said after its latest restatement (an amendment
    no cycle caught keeps its place)."""
    day = 86400.0
    wording = hit("wording", "remember the seed is 42 for torch, numpy and random", 0.9)
    other = hit("other", "commit messages follow conventional commits", 0.8)
    canonical = hit("canonical", "use seed 42, we compare runs across people", 0.7)
    wording[0].payload["created_at"] = 10 * day
    canonical[0].payload.update(created_at=1 * day, restated=4, last_stated=20 * day)
    vectors = plane_vectors(wording=0.0, other=2.0, canonical=0.8)  # cos 0.70
    out = one_per_fact([wording, other, canonical], vectors, 0.5, 20, lead_margin=0.75)
    assert order(out) == ["canonical", "other", "wording"] and out[0][1].total == 0.9
    # an exception the query names answers far better than the rule it looks like: it keeps its place
    below = one_per_fact([wording, other, canonical], vectors, 0.5, 20, lead_margin=0.8)
    assert order(below) == ["wording", "other", "canonical"]
    canonical[0].payload["last_stated"] = 5 * day  # restated last before the wording
    kept = one_per_fact([wording, other, canonical], vectors, 0.5, 20, lead_margin=0.75)
    assert order(kept) == ["wording", "other", "canonical"]


def test_a_statement_taking_an_observations_place_takes_its_lessons_out_of_theirs() -> None:
    """A canonical memory restates both an observation and the lesson drawn from it that ranked above
    it: it takes the observation's place, and its lesson gives way too (one fact, one place)."""
    ranked = [
        hit(
            "seen",
            "Read internal/money/amount.go\ntype Amount struct {\n\tMinor int64\n}",
            0.9,
            kind="observation",
        ),
        hit(
            "lesson",
            "store money in minor units as an int64, floats lose pennies\nSituation: stated in 8 sessions",
            0.8,
            kind="insight",
            evidence="canon",
        ),
        hit("other", "commit messages follow conventional commits", 0.7),
        hit("canon", "reminder: store money in minor units as an int64, floats lose pennies", 0.6),
    ]
    vectors = plane_vectors(seen=0.0, lesson=1.2, other=2.8, canon=0.9)  # canon~seen 0.62, lesson apart
    out = one_per_fact(ranked, vectors, 0.5, 20, 0.45)
    assert (
        order(out) == ["canon", "other", "seen", "lesson"] and out[0][1].total == 0.9
    )  # gave way in rank order


def test_the_canonical_wording_leads_by_relevance_not_by_recency_and_only_when_stated_more_often() -> None:
    """The lead compares how well each answers the query (``relevance``), not totals a recent
    restatement lifts; equal counts, or no margin given, never lead."""
    exception = hit("exception", "the reporting export writes timestamps in local time", 0.9)
    rule = hit("rule", "timestamps go into the DB as UTC, always timezone-aware", 0.85)
    rule[0].payload.update(restated=5)
    rule = (rule[0], msgspec.structs.replace(rule[1], dense=0.5))  # relevance 0.5 against 0.9
    vectors = plane_vectors(exception=0.0, rule=0.5)
    by_dense = lambda parts: parts.dense  # noqa: E731
    assert order(one_per_fact([exception, rule], vectors, 0.5, 20, None, 0.8, by_dense)) == [
        "exception",
        "rule",
    ]
    assert order(one_per_fact([exception, rule], vectors, 0.5, 20, None, 0.8)) == [
        "rule",
        "exception",
    ]  # totals
    assert order(one_per_fact([exception, rule], vectors, 0.5, 20)) == ["exception", "rule"]  # no margin: off
    rule[0].payload["restated"] = 1
    assert order(one_per_fact([exception, rule], vectors, 0.5, 20, None, 0.8)) == ["exception", "rule"]
