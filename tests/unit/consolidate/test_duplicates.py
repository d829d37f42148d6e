from consolidatekit import at_angle, memory, unit  # type: ignore[import-not-found]

from codememory.consolidate.duplicates import find_merges, merge_reason
from codememory.consolidate.policy import ConsolidationPolicy

POLICY = ConsolidationPolicy()


def test_restatements_merge_into_the_stated_memory_with_every_source() -> None:
    observed = memory(
        "ran ruff: lint with ruff, not flake8", unit(1), memory_type="observation", created_at=1
    )
    first = memory(
        "We lint with ruff, not flake8.", at_angle(0.97), memory_type="prompt", created_at=2, session_id="a"
    )
    again = memory(
        "Lint with ruff and not flake8", at_angle(0.95), memory_type="note", created_at=3, session_id="b"
    )
    (merge,) = find_merges([again], [observed, first, again], POLICY)
    assert merge.canonical.memory_type in ("prompt", "note")
    assert {m.memory_id for m in (merge.canonical, *merge.merged)} == {
        observed.memory_id,
        first.memory_id,
        again.memory_id,
    }


def test_alike_memories_that_state_different_values_do_not_merge() -> None:
    four = memory("Indent Python with 4 spaces", unit(1), created_at=1)
    two = memory("Indent Python with 2 spaces", at_angle(0.97), created_at=2)
    assert find_merges([two], [four, two], POLICY) == []


def test_a_later_memory_that_says_it_changes_is_not_a_restatement() -> None:
    old = memory("Deploy with helm", unit(1), created_at=1)
    new = memory("Deploy with helm charts instead", at_angle(0.96), created_at=2)
    assert find_merges([new], [old, new], POLICY) == []


def test_an_existing_canonical_memory_keeps_its_place() -> None:
    canonical = memory("Run tests with pytest -q", unit(1), created_at=5, restated=4)
    newcomer = memory("Run the tests with pytest -q", at_angle(0.98), created_at=9, memory_type="prompt")
    (merge,) = find_merges([newcomer], [canonical, newcomer], POLICY)
    assert merge.canonical is canonical and merge.merged == (newcomer,)
    assert merge.why_canonical == "already canonical"


def test_a_merge_records_what_set_its_canonical_memory_apart() -> None:
    observed = memory("ran ruff: lint with ruff", unit(1), memory_type="observation", created_at=1)
    stated = memory("lint with ruff", at_angle(0.97), memory_type="prompt", created_at=2)
    (merge,) = find_merges([stated], [observed, stated], ConsolidationPolicy(cross_kind_similarity=0.9))
    assert (merge.canonical, merge.why_canonical) == (stated, "stated, not observed")
    assert "canonical: stated, not observed" in merge_reason(merge, POLICY)
    first = memory("Run tests with pytest -q", unit(1), created_at=1)
    later = memory("Run the tests with pytest -q", unit(1), created_at=2)
    (merge,) = find_merges([later], [first, later], POLICY)
    assert (merge.canonical, merge.why_canonical) == (first, "the earliest")


def test_dissimilar_memories_never_merge() -> None:
    a = memory("Use ruff", unit(1), created_at=1)
    b = memory("Use ruff", at_angle(0.5), created_at=2)
    assert find_merges([b], [a, b], POLICY) == []


def test_the_same_sentence_about_two_things_does_not_merge() -> None:
    settings = memory("the settings page broke after the merge", unit(1), created_at=1, memory_type="prompt")
    export = memory("the CSV export broke after the merge", at_angle(0.9), created_at=2, memory_type="prompt")
    assert find_merges([export], [settings, export], POLICY) == []


def test_a_request_and_a_tool_output_merge_only_when_nearly_identical() -> None:
    asked = memory("explain what app/api/deps.py does", unit(1), created_at=1, memory_type="prompt")
    read = memory("Read app/api/deps.py (126 lines)", at_angle(0.8), created_at=2, memory_type="observation")
    assert find_merges([read], [asked, read], POLICY) == []
