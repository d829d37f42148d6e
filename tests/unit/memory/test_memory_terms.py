"""The words and values of one text: values are numbers, identifiers, addresses and quoted names;
subject words are stemmed and without stop words; identifiers name words of their own."""

from __future__ import annotations

from codememory.memory import terms
from codememory.memory.terms import _CAMEL, _is_value, analyse, new_values, subject_overlap, value_places


def test_values_are_numbers_identifiers_and_quoted_names_not_words() -> None:
    subject, values = analyse("Set `max_retries` to 5 in config/http.yaml for the HTTP client")
    assert values == {"max_retries", "5", "config/http.yaml"}
    assert {"http", "client"} <= subject and "the" not in subject


def test_addresses_and_hyphenated_names_are_values() -> None:
    _, values = analyse("reminders are sent from payments@acme-shop.com; render images with expo-image")
    assert {"payments@acme-shop.com", "expo-image"} <= values
    assert new_values("invoices come from billing@acme.io", "they come from ops@acme.io") == {"ops@acme.io"}


def test_stemming_makes_indent_and_indentation_one_subject_word() -> None:
    assert subject_overlap("Use 4 spaces for indentation", "indent with 2 spaces") == 1.0


def test_different_subjects_share_few_words() -> None:
    assert subject_overlap("HTTP client timeout is 30s", "database pool timeout is 10s") < 0.5


def test_new_values_are_those_only_the_later_states() -> None:
    assert new_values("use port 8080", "use port 9090") == {"9090"}
    assert new_values("use port 8080", "port 8080, as always") == frozenset()


def test_a_doubled_consonant_before_a_suffix_is_one_word() -> None:
    assert analyse("logging")[0] == analyse("log")[0] == analyse("logged")[0]
    assert analyse("filling")[0] == analyse("fill")[0]  # a word's own pair stays


def test_named_overlap_counts_the_words_of_identifiers() -> None:
    a, b = "Read train.py mlflow.set_tracking_uri", "runs are tracked in mlflow"
    assert subject_overlap(a, b) == 0.0
    assert subject_overlap(a, b, named=True) > 0.0


def plain_is_value(token: str) -> bool:
    return (
        token[0] in "`\"'"
        or any(ch.isdigit() for ch in token)
        or any(ch in token.strip(".:-/") for ch in "._/:@-")
        or _CAMEL.search(token) is not None
    )


def test_the_cached_value_test_answers_as_the_plain_one() -> None:
    """Recall asks it of every new hit's words, so it was made cheaper: it still answers the same."""
    words = ["indent", "spaces", "tracking", "uri", "port", "user", "card", "orders", "timeout", "retry"]
    values = ["4", "2", "8080", "mlflow.internal", "UserCard.tsx", "user-card.tsx", "stg__shopify__orders",
              "zodResolver", "`onChange`", "v1.2", "ops@acme.io"]  # fmt: skip
    tokens = [*words, *values, "camelCase", "HTTP", "Ünïcode", "naïve", "x²", "a.b", "-flag", "/path", "'q'"]
    terms._is_value.cache_clear()
    for token in tokens * 2:  # the second time from the cache
        assert _is_value(token) == plain_is_value(token), token


def test_a_value_stands_by_the_words_near_it_and_of_the_values_near_it_up_to_another_number() -> None:
    assert value_places("set line-length = 88 in pyproject") == {
        "line-length": frozenset({"set"}),  # the 88 ends its place
        "88": frozenset({"set", "line", "length", "pyproject"}),
    }
    places = value_places("alert when the error rate is above 2% for 5 minutes")
    assert places["2"] == {"rate", "above"} and places["5"] == {"minut"}
