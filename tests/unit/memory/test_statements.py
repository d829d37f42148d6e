"""Whether two texts state the same thing: questions are not rules, a changed number is a changed
value, another word is another subject, and two kinds of one thing are two statements."""

from __future__ import annotations

from codememory.memory.statements import (
    conflicting_values,
    contrasted,
    different_subjects,
    is_question,
    only_numbers_differ,
    replaced_value,
    same_statement,
)
from codememory.memory.terms import rejected_values


def test_questions_are_recognised() -> None:
    assert is_question("should we use tabs?") and not is_question("use tabs.")


def test_a_changed_number_is_a_value_and_a_changed_word_a_subject() -> None:
    assert only_numbers_differ("The API listens on port 8080", "The API listens on port 9090")
    assert not only_numbers_differ("fix errors in a.py", "fix errors in b.py")
    assert different_subjects("the settings page broke", "the CSV export broke")
    assert not different_subjects("We lint with ruff", "Lint with ruff")


def test_two_kinds_of_one_thing_are_contrasted_and_never_one_statement_for_a_merge() -> None:
    assert contrasted("the production node pool runs m6i.xlarge", "the CI runner pool runs c6i.2xlarge")
    assert contrasted(
        "Error toasts stay on screen until closed.", "Success toasts disappear after 4 seconds."
    )
    assert not contrasted("Terraform state lives in S3", "Terraform state moves to Terraform Cloud")
    assert not contrasted("use ruff for linting", "we lint with ruff")  # nothing stands before a shared word
    a, b = "Error toasts stay on screen until closed.", "Success toasts stay on screen until closed."
    assert not same_statement(a, b, 0.6)


def test_a_file_name_or_dotted_identifier_with_a_digit_is_not_a_number() -> None:
    """``intro.mp4`` and ``v2.mp4`` name files: two texts naming different files for different things
    set nothing to two values, as two port numbers would."""
    a, b = "watch intro.mp4 before the demo", "record v2.mp4 after lunch"
    assert not conflicting_values(a, b)
    assert not conflicting_values("e2e.test.ts covers checkout", "api.v2 serves the orders")
    assert conflicting_values("the walkthrough video is intro.mp4", "the walkthrough video is v2.mp4")
    assert conflicting_values("run tests on python3.11", "deploy with node 18.x")  # versions are numbers
    assert conflicting_values("see config.py:42", "the limit is 30")  # a line number is one


def test_a_value_a_text_rejects_is_not_one_it_sets() -> None:
    """Restatements of one hashing rule name the algorithms they reject ("never ... sha256") beside
    the one they set; a path and a name are two things; ``argon2`` / ``argon2id`` is one name."""
    assert rejected_values("hash passwords with argon2id, never bcrypt or sha256") == {"sha256"}
    assert rejected_values("date-fns instead of moment2, it adds 70 kB") == {"moment2"}
    assert not conflicting_values(
        "hash passwords with argon2id, never bcrypt or sha256",
        "we moved password hashing to argon2id, use passlib's argon2 scheme",
    )
    assert not conflicting_values(
        "use the argon2 hasher in auth/passwords.py", "password hashing is argon2id with the settings"
    )
    assert conflicting_values("checksums use sha1", "checksums use sha256")
    assert conflicting_values("keep amounts as float64 dollars", "money is int64 minor units")
    assert conflicting_values("dbt models are named stg_<source>_<table>", "models are named stg__a__b")


def test_a_later_text_naming_the_old_value_and_a_new_number_in_its_place_replaces_it() -> None:
    assert replaced_value(
        "set line-length = 88 in pyproject for black and ruff",
        "bump the line length to 110, at 88 our queries get wrapped",
    ) == ("88", "110")
    # the named value spelt out more precisely, its number changed
    assert replaced_value(
        "keep minSdkVersion at 23 in android/build.gradle", "minSdk goes to 26 so we can use java.time"
    ) == ("minsdkversion", "26")


def test_a_new_number_beside_a_kept_one_or_a_new_name_beside_an_old_replaces_nothing() -> None:
    # the 5 minutes are kept; the 2 is another threshold than the 800ms
    assert (
        replaced_value(
            "alert when API p99 latency is above 800ms for 5 minutes",
            "alert when the API error rate is above 2% for 5 minutes",
        )
        is None
    )
    assert (
        replaced_value(
            "add the string to locales/en.json", "strings go in locales/en.json and locales/de.json"
        )
        is None
    )
    assert (
        replaced_value("The orders DAG runs hourly at minute 15.", "run the orders dag every 30 minutes")
        is None
    )
    # a value the earlier text rejects is not one it set
    assert replaced_value("never retry more than 3 times", "retry 3 times, then wait 10 seconds") is None
