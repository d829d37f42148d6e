"""Whether two texts state the same thing: questions are not rules, a changed number is a changed
value, another word is another subject, and two kinds of one thing are two statements."""

from __future__ import annotations

from codememory.memory.statements import (
    conflicting_values,
    contrasted,
    different_subjects,
    is_question,
    only_numbers_differ,
    same_statement,
)


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


def test_names_with_digits_of_different_kinds_are_two_names_not_two_values() -> None:
    """``argon2`` and ``sha256`` name two algorithms (restatements of one hashing rule name both); the
    same name at two numbers, or a name's number against a plain one, is a changed value."""
    assert not conflicting_values(
        "hash passwords with argon2id, never bcrypt or sha256",
        "we moved password hashing to argon2id, use passlib's argon2 scheme",
    )
    assert not conflicting_values("tokens are signed with ed25519", "use sha256 for the checksums")
    assert conflicting_values("checksums use sha1", "checksums use sha256")
    assert conflicting_values("we pin python3.11", "use python 3.12 now")
    assert conflicting_values("the image is node18", "the image is node20")


def test_only_numbers_differ_reads_numbers_as_conflicting_values_does() -> None:
    """``intro.mp4`` / ``outro.mp4`` name two files (``terms.is_number``), not one value changed."""
    assert not only_numbers_differ(
        "Autoplay intro.mp4 on the landing page", "Autoplay outro.mp4 on the landing page"
    )
    assert not only_numbers_differ("Autoplay `intro.mp4` first", "Autoplay `outro.mp4` first")
    assert only_numbers_differ("We pin python3.11 in CI", "We pin python3.12 in CI")
    assert only_numbers_differ("The limit is `50` requests", "The limit is `80` requests")
