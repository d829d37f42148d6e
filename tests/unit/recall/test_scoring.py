from __future__ import annotations

import pytest

from codememory.recall import Candidate, ScopeHint, Weights, scope_match, score
from codememory.recall.scoring import author_named, recency, stated_at, top_lexical_of, words_of

NOW = 1_800_000_000.0
DAY = 86400.0


def _c(mid: str, dense: float | None, lexical: float | None, **payload: object) -> Candidate:
    base: dict[str, object] = {"created_at": NOW, "importance": 0.5, "state": "active"}
    base.update(payload)
    return Candidate(memory_id=mid, payload=base, dense=dense, lexical=lexical)


def test_lexical_is_normalised_over_the_candidates() -> None:
    ranked = score([_c("a", 0.2, 10.0), _c("b", 0.2, 5.0)], Weights(), ScopeHint(), NOW)
    assert [c.memory_id for c, _ in ranked] == ["a", "b"]
    assert ranked[0][1].lexical == 1.0 and ranked[1][1].lexical == 0.5


def test_dense_and_lexical_both_count() -> None:
    ranked = score(
        [_c("dense", 0.9, None), _c("lex", 0.1, 3.0), _c("both", 0.7, 2.5)], Weights(), ScopeHint(), NOW
    )
    assert ranked[0][0].memory_id == "both"


def test_recency_halves_every_half_life() -> None:
    assert recency(NOW, NOW, 14) == 1.0
    assert abs(recency(NOW - 14 * DAY, NOW, 14) - 0.5) < 1e-9
    assert recency(NOW + DAY, NOW, 14) == 1.0  # clock skew never scores above fresh


def test_newer_wins_a_tie() -> None:
    ranked = score(
        [_c("old", 0.5, 1.0, created_at=NOW - 60 * DAY), _c("new", 0.5, 1.0)], Weights(), ScopeHint(), NOW
    )
    assert ranked[0][0].memory_id == "new"


def test_a_fact_restated_lately_is_as_recent_as_its_latest_restatement() -> None:
    """A canonical memory's recency is when its fact was last stated (the latest restatement a cycle
    merged into it, ``last_stated``), not when its best wording was first written."""
    canonical = _c("canonical", 0.5, 1.0, created_at=NOW - 120 * DAY, last_stated=NOW - DAY, restated=3)
    lone = _c("lone", 0.5, 1.0, created_at=NOW - 10 * DAY)
    ranked = score([lone, canonical], Weights(), ScopeHint(), NOW)
    assert [c.memory_id for c, _ in ranked] == ["canonical", "lone"]
    assert ranked[0][1].recency == recency(NOW - DAY, NOW, Weights().recency_half_life_days)
    assert stated_at({"created_at": NOW - DAY, "last_stated": "bad"}, NOW) == NOW - DAY
    assert stated_at({"created_at": NOW - DAY, "last_stated": 0.0}, NOW) == NOW - DAY  # unmerged: none


def test_scope_match_counts_repo_branch_and_paths() -> None:
    payload = {"repo": "api", "branch": "main", "paths": ["src/auth/jwt.py"]}
    assert scope_match(payload, ScopeHint(repo="api", branch="main")) == 1.0
    assert scope_match(payload, ScopeHint(repo="api", branch="dev")) == 0.5
    assert scope_match(payload, ScopeHint(paths=("src/auth/jwt.py",))) == 1.0
    assert scope_match(payload, ScopeHint()) == 0.0


def test_deprecated_memories_rank_below_active_equals() -> None:
    ranked = score(
        [_c("dep", 0.8, 2.0, state="deprecated"), _c("act", 0.8, 2.0)], Weights(), ScopeHint(), NOW
    )
    assert [c.memory_id for c, _ in ranked] == ["act", "dep"]


def test_parts_add_up_to_total() -> None:
    w = Weights()
    ((_, parts),) = score([_c("a", 0.6, 1.0, importance=0.9)], w, ScopeHint(repo="x"), NOW)
    expected = w.dense * parts.dense + w.lexical * parts.lexical + w.recency * parts.recency
    expected += w.importance * parts.importance + w.scope * parts.scope
    assert abs(parts.total - expected) < 1e-9


def test_weights_come_from_configuration() -> None:
    from codememory.recall import parse_weights

    assert parse_weights("") == Weights()
    assert parse_weights("dense=0.2, lexical=0.6").lexical == 0.6
    for bad in ("dense", "speed=1", "dense=high"):
        try:
            parse_weights(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} was accepted")


def test_a_late_addition_is_scored_on_the_scale_of_the_set_it_joins() -> None:
    now = 1_000_000.0
    first = [
        Candidate(memory_id="a", payload={"created_at": now}, dense=0.5, lexical=4.0),
        Candidate(memory_id="b", payload={"created_at": now}, dense=0.2, lexical=2.0),
    ]
    late = Candidate(memory_id="c", payload={"created_at": now}, dense=None, lexical=1.0)
    alone = score([late], Weights(), ScopeHint(), now)[0][1]
    joined = score([late], Weights(), ScopeHint(), now, top_lexical=top_lexical_of(first))[0][1]
    together = {c.memory_id: p for c, p in score([*first, late], Weights(), ScopeHint(), now)}
    assert alone.lexical == 1.0 and joined.lexical == 0.25
    assert joined == together["c"]
    assert top_lexical_of([]) == 0.0


def test_a_memory_from_the_person_the_query_names_ranks_above_a_reply_to_them() -> None:
    own = _c("own", 0.5, 1.0, user="Sam")
    reply = _c("reply", 0.5, 1.0, user="Alex")
    hint = ScopeHint(mentioned=words_of("What has Sam's team decided about retries?"))
    (first, parts), (_, other) = score([reply, own], Weights(), hint, NOW)
    assert first.memory_id == "own" and parts.author == 1.0 and other.author == 0.0
    assert parts.total - other.total == pytest.approx(Weights().author)


@pytest.mark.parametrize(
    ("user", "named"),
    [
        ("sam", 1.0),
        ("Sam Lee", 1.0),  # either word of a full name
        ("sam@example.com", 1.0),  # the address's local part only
        ("bob@example.com", 0.0),
        ("al", 0.0),  # too short to tell from a word
        ("", 0.0),
        ("Alex", 0.0),
    ],
)
def test_author_named_matches_a_word_of_the_users_name(user: str, named: float) -> None:
    mentioned = words_of("did Sam or Lee or al say why example.com is down")
    assert author_named({"user": user}, mentioned) == named
