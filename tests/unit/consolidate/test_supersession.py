import dataclasses

from consolidatekit import at_angle, memory, unit  # type: ignore[import-not-found]

from codememory.consolidate.policy import ConsolidationPolicy
from codememory.consolidate.supersession import find_supersessions

POLICY = ConsolidationPolicy()


def test_a_later_value_for_the_same_subject_supersedes_the_earlier() -> None:
    old = memory("Use 4 spaces for indentation in Python files.", unit(1), created_at=1)
    new = memory("From now on indent Python files with 2 spaces.", at_angle(0.8), created_at=2)
    (found,) = find_supersessions([new], [old, new], POLICY)
    assert (found.old, found.new) == (old, new)
    assert "from now on" in found.reason


def test_the_earlier_one_never_supersedes_the_later_even_when_it_arrives_later() -> None:
    new = memory("The API listens on port 9090", unit(1), created_at=20, seq=1)
    old = memory("The API listens on port 8080", at_angle(0.9), created_at=10, seq=2)  # imported afterwards
    (found,) = find_supersessions([old], [old, new], POLICY)
    assert (found.old, found.new) == (old, new)


def test_a_different_subject_is_not_superseded_however_alike() -> None:
    http = memory("The HTTP client timeout is 30 seconds", unit(1), created_at=1)
    pool = memory("The database pool size is 10", at_angle(0.85), created_at=2)
    assert find_supersessions([pool], [http, pool], POLICY) == []


def test_the_same_sentence_about_another_thing_supersedes_nothing() -> None:
    dev = memory("Dev dbt runs use the X-SMALL warehouse.", unit(1), created_at=1)
    prod = memory("Production dbt runs use the MEDIUM warehouse.", at_angle(0.85), created_at=2)
    assert find_supersessions([prod], [dev, prod], POLICY) == []


def test_only_the_nearest_earlier_memory_is_superseded() -> None:
    rule = memory("Use port 8080 for the API", unit(1), created_at=1)
    other = memory("Use port 5432 for the database", at_angle(0.6), created_at=2)
    change = memory("From now on the API uses port 9090", at_angle(0.9), created_at=3)
    assert [(s.old, s.new) for s in find_supersessions([change], [rule, other, change], POLICY)] == [
        (rule, change)
    ]


def test_a_question_or_an_observation_supersedes_nothing() -> None:
    rule = memory("Use port 8080 for the API", unit(1), created_at=1)
    question = memory("Should the API use port 9090?", at_angle(0.9), created_at=2, memory_type="prompt")
    seen = memory("API started on port 9090", at_angle(0.9), created_at=3, memory_type="observation")
    assert find_supersessions([question, seen], [rule, question, seen], POLICY) == []


def test_a_chain_ends_at_the_latest_rule() -> None:
    first = memory("Release branches are named release-1", unit(1), created_at=1)
    second = memory("Release branches are named rel-2", at_angle(0.9), created_at=2)
    third = memory("Release branches are named v3-release", at_angle(0.88), created_at=3)
    found = {
        (s.old.memory_id, s.new.memory_id)
        for s in find_supersessions([second, third], [first, second, third], POLICY)
    }
    assert found == {
        (first.memory_id, second.memory_id),
        (second.memory_id, third.memory_id),
    }  # each by the next


def test_values_of_two_kinds_of_one_thing_supersede_nothing() -> None:
    audit = memory(
        "Billing audit logs are kept for 7 years, it's a legal requirement.", unit(1), created_at=1
    )
    debug = memory("Billing debug logs are kept for 14 days in Loki.", at_angle(0.9), created_at=2)
    assert find_supersessions([debug], [audit, debug], POLICY) == []
    # the same kind with a new value still does
    later = memory("Billing audit logs are kept for 10 years now.", at_angle(0.9), created_at=3)
    (found,) = find_supersessions([later], [audit, later], POLICY)
    assert (found.old, found.new) == (audit, later)


def test_past_the_nearest_only_a_memory_whose_value_is_replaced_is_superseded() -> None:
    rule = memory("set line-length = 88 in pyproject for black and ruff", unit(1), created_at=1)
    pool = memory("API pods run SQLAlchemy with pool_size=10", unit(0, 1), created_at=2)
    bump = memory(
        "bump the line length to 110, at 88 our SQLAlchemy queries get wrapped", unit(1, 1.2), created_at=3
    )
    (found,) = find_supersessions([bump], [rule, pool, bump], POLICY)  # pool is the nearer: 0.77 / 0.64
    assert (found.old, found.new) == (rule, bump) and "replaces 88 with 110" in found.reason
    nearest_only = dataclasses.replace(POLICY, supersede_rank=1)
    assert [s.old for s in find_supersessions([bump], [rule, pool, bump], nearest_only)] == [pool]  # "bump"
    unnamed = memory("API pods run with 4 workers", unit(0, 1), created_at=2)
    change = memory("bump the line length to 110", unit(1, 1.2), created_at=3)
    assert [s.old for s in find_supersessions([change], [rule, unnamed, change], POLICY)] == [unnamed]


def test_a_change_cue_needs_the_likeness_of_a_new_value() -> None:
    """A cue says that something changes, not what: a later request with "bump" changes no earlier
    request about another file that merely lies nearest to it (cosine 0.35); at 0.5 the cue decides."""
    review = memory("review my changes in app/api/products.py before I open the PR", unit(1), created_at=1)
    bump = memory("bump pydantic to the latest patch release and run the tests", at_angle(0.35), created_at=2)
    assert find_supersessions([bump], [review, bump], POLICY) == []
    old = memory("Style components with CSS modules", unit(1), created_at=1)
    new = memory("New components are styled with Tailwind classes", at_angle(0.5), created_at=2)
    (found,) = find_supersessions([new], [old, new], POLICY)
    assert found.old is old and found.reason == "a later decision says 'new'"


def test_a_named_value_replaced_needs_less_likeness_than_a_cue() -> None:
    old = memory("set line-length = 88 in pyproject for black and ruff", unit(1), created_at=1)
    new = memory("bump the line length to 110, at 88 our queries get wrapped", at_angle(0.35), created_at=2)
    (found,) = find_supersessions([new], [old, new], POLICY)
    assert found.old is old and found.reason == "a later decision replaces 88 with 110"


def test_a_change_cue_beside_two_of_the_earlier_subject_words_needs_less_likeness() -> None:
    old = memory("put the mailers and the image resizing on Sidekiq, redis is already there", unit(1))
    new = memory("drop Sidekiq, jobs go through Solid Queue and redis can go", at_angle(0.35), created_at=2e6)
    (found,) = find_supersessions([new], [old, new], POLICY)
    assert found.old is old and found.reason == "a later decision says 'drop'"
    # one shared word, or two of which one only addresses the listener, is not enough at that likeness
    first = memory("reminder: analysts join customers on the hashed email", unit(1))
    later = memory(
        "reminder: new source columns with personal data need a review", at_angle(0.36), created_at=2e6
    )
    assert find_supersessions([later], [first, later], POLICY) == []
    stricter = dataclasses.replace(POLICY, cue_shared_words=3)
    assert find_supersessions([new], [old, new], stricter) == []


def test_new_things_a_rule_ranges_over_are_no_change() -> None:
    """ "for new components" names what the rule is about; "New components are styled with Tailwind"
    says that the rule changed."""
    rule = memory("every component in src/components needs a storybook story", unit(1))
    again = memory("remember to write the Storybook story for new components", at_angle(0.6), created_at=2e6)
    assert find_supersessions([again], [rule, again], POLICY) == []
    old = memory("Style components with CSS modules", unit(1))
    new = memory("New components are styled with Tailwind classes", at_angle(0.6), created_at=2e6)
    assert len(find_supersessions([new], [old, new], POLICY)) == 1
