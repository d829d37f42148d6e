from codememory.memory.terms import (
    CHANGE_CUES,
    analyse,
    contrasted,
    cues_of,
    different_subjects,
    has_cue,
    is_question,
    new_values,
    only_numbers_differ,
    same_statement,
    subject_overlap,
)


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


def test_cues_match_whole_words_only() -> None:
    assert has_cue("From now on we switch to uv", CHANGE_CUES)
    assert not has_cue("the switchboard handles calls", ("switch",))


def test_questions_are_recognised() -> None:
    assert is_question("should we use tabs?") and not is_question("use tabs.")


def test_for_now_is_not_a_change() -> None:
    assert cues_of("for now keep floats", ("now",), ("for now",)) == frozenset()
    assert cues_of("the target is Snowflake now", ("now",), ("for now",)) == {"now"}


def test_a_changed_number_is_a_value_and_a_changed_word_a_subject() -> None:
    assert only_numbers_differ("The API listens on port 8080", "The API listens on port 9090")
    assert not only_numbers_differ("fix errors in a.py", "fix errors in b.py")
    assert different_subjects("the settings page broke", "the CSV export broke")
    assert not different_subjects("We lint with ruff", "Lint with ruff")


def test_a_cue_inside_code_is_not_a_cue() -> None:
    assert cues_of("store datetime.now(UTC) everywhere", ("now",)) == frozenset()


def test_a_doubled_consonant_before_a_suffix_is_one_word() -> None:
    from codememory.memory.terms import analyse

    assert analyse("logging")[0] == analyse("log")[0] == analyse("logged")[0]
    assert analyse("filling")[0] == analyse("fill")[0]  # a word's own pair stays


def test_named_overlap_counts_the_words_of_identifiers() -> None:
    from codememory.memory.terms import subject_overlap

    a, b = "Read train.py mlflow.set_tracking_uri", "runs are tracked in mlflow"
    assert subject_overlap(a, b) == 0.0
    assert subject_overlap(a, b, named=True) > 0.0


def test_two_kinds_of_one_thing_are_contrasted_and_never_one_statement_for_a_merge() -> None:
    assert contrasted("the production node pool runs m6i.xlarge", "the CI runner pool runs c6i.2xlarge")
    assert contrasted(
        "Error toasts stay on screen until closed.", "Success toasts disappear after 4 seconds."
    )
    assert not contrasted("Terraform state lives in S3", "Terraform state moves to Terraform Cloud")
    assert not contrasted("use ruff for linting", "we lint with ruff")  # nothing stands before a shared word
    a, b = "Error toasts stay on screen until closed.", "Success toasts stay on screen until closed."
    assert not same_statement(a, b, 0.6)
