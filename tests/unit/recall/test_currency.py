"""The current statement first: a superseder inherits its old rule's relevance, and a later statement
that answers the query as well as an earlier one ranks above it."""

from __future__ import annotations

from codememory.recall import Candidate, ScopeHint, Weights, score
from codememory.recall.currency import current_of, latest_first, pull_current, superseders

NOW = 1_800_000_000.0
DAY = 86400.0
W = Weights()


def _c(mid: str, dense: float, lexical: float, **payload: object) -> Candidate:
    base: dict[str, object] = {
        "created_at": NOW - 30 * DAY,
        "importance": 0.5,
        "state": "active",
        "type": "decision",
        "session_id": mid,
    }
    base.update(payload)
    return Candidate(memory_id=mid, payload=base, dense=dense, lexical=lexical)


def _ids(ranked: list[tuple[Candidate, object]]) -> list[str]:
    return [c.memory_id for c, _ in ranked]


def test_a_later_statement_that_answers_as_well_ranks_first() -> None:
    old = _c("old", 0.7, 10.0, created_at=NOW - 60 * DAY)
    other = _c("other", 0.6, 8.0, created_at=NOW - 90 * DAY)  # stated before the old one
    new = _c("new", 0.6, 8.0, created_at=NOW - DAY)
    ranked = score([old, other, new], W, ScopeHint(), NOW)
    assert _ids(ranked)[0] == "old"
    moved = latest_first(ranked, W, window=20)
    assert _ids(moved)[:2] == ["new", "old"]
    totals = [p.total for _, p in moved]
    assert totals == sorted(totals, reverse=True)  # totals stay in rank order


def test_a_later_statement_that_answers_far_worse_stays_below() -> None:
    old = _c("old", 0.9, 10.0, created_at=NOW - 60 * DAY)
    new = _c("new", 0.3, 1.0, created_at=NOW - DAY)
    ranked = score([old, new], W, ScopeHint(), NOW)
    assert _ids(latest_first(ranked, W, window=20)) == ["old", "new"]


def test_observations_the_same_session_and_a_zero_margin_keep_their_order() -> None:
    old = _c("old", 0.7, 10.0, created_at=NOW - 60 * DAY)
    observed = _c("seen", 0.7, 10.0, created_at=NOW - DAY, type="observation")
    same = _c("same", 0.7, 10.0, created_at=NOW - DAY, session_id="old")
    ranked = score([old, observed, same], W, ScopeHint(), NOW)
    order = _ids(ranked)
    assert _ids(latest_first(ranked, W, window=20)) == order
    other = _c("new", 0.7, 10.0, created_at=NOW - DAY)
    ranked = score([old, other], W, ScopeHint(), NOW)
    off = Weights(latest_margin=0)
    assert _ids(latest_first(ranked, off, window=20)) == _ids(ranked)


def test_a_superseded_rule_pulls_its_current_one_above_it() -> None:
    old = _c("old", 0.9, 10.0, state="superseded", superseded_by="mid")
    mid = {"state": "merged", "merged_into": "new"}  # the superseder was merged into a canonical one
    new = _c("new", 0.1, 0.0)
    noise = _c("noise", 0.5, 5.0)
    ranked = score([old, noise], W, ScopeHint(), NOW)
    assert superseders(ranked, W, 20) == ["mid"]
    assert current_of("old", {"old": old.payload, "mid": mid, "new": new.payload}) == "new"

    def one(c: Candidate):  # type: ignore[no-untyped-def]
        return score([c], W, ScopeHint(), NOW)[0][1]

    pulled, _ = pull_current(ranked, {"mid": mid, "new": dict(new.payload)}, {"new": new}, W, 20, one)
    assert _ids(pulled)[0] == "new"
    assert _ids(pulled).index("old") > 0


def test_a_chain_that_loops_or_ends_in_nothing_stops() -> None:
    loop = {"a": {"superseded_by": "b"}, "b": {"superseded_by": "a"}}
    assert current_of("a", loop) == "b"
    assert current_of("x", {}) == "x"


def test_a_superseded_rule_below_the_window_still_lends_when_it_would_rank_inside_it() -> None:
    old = _c("old", 0.95, 10.0, state="superseded", superseded_by="new")
    new = _c("new", 0.2, 0.0)
    noise = [_c(f"n{i:02}", 0.5, 5.0) for i in range(30)]
    ranked = score([old, new, *noise], W, ScopeHint(), NOW)
    assert _ids(ranked).index("old") > 20  # x0.3 puts it below the window ...

    def one(c: Candidate):  # type: ignore[no-untyped-def]
        return score([c], W, ScopeHint(), NOW)[0][1]

    pulled, _ = pull_current(ranked, {}, {}, W, 20, one)
    assert _ids(pulled)[0] == "new"  # ... but unmultiplied it would lead, so its successor does


def test_a_pulled_memory_answers_as_well_as_the_rule_it_replaced() -> None:
    old = _c("old", 0.95, 10.0, state="superseded", superseded_by="new", created_at=NOW - 90 * DAY)
    new = _c("new", 0.1, 0.0, created_at=NOW - 60 * DAY)
    later = _c("later", 0.3, 2.0, created_at=NOW - DAY)  # stated after it, a weak answer

    def one(c: Candidate):  # type: ignore[no-untyped-def]
        return score([c], W, ScopeHint(), NOW)[0][1]

    ranked = score([old, new, later], W, ScopeHint(), NOW)
    pulled, inherited = pull_current(ranked, {}, {}, W, 20, one)
    assert inherited["new"] > 0.5
    assert _ids(latest_first(pulled, W, 20, inherited))[0] == "new"
    assert _ids(latest_first(pulled, W, 20))[0] == "later"  # by its own relevance it would be overtaken
