"""The random draws of the test corpus and the secrets known by their context: a drawn token mixes
digits and letters, each line embeds its secret, and ``redact_text`` reports each by its kind."""

from __future__ import annotations

import random
import string

import pytest

from codememory.redaction import fakesecrets as generic
from codememory.redaction import redact_text
from codememory.redaction.fakesecrets import ALNUM, Maker, in_context, pick

MAKERS: dict[str, Maker] = {
    "jwt": generic.jwt,
    "private_key": generic.private_key,
    "password_in_url": generic.password_in_url,
    "bearer_token": generic.bearer_token,
    "basic_auth": generic.basic_auth,
    "dotenv_assignment": generic.dotenv_assignment,
    "secret_assignment": generic.secret_assignment,
    "cli_secret_flag": generic.cli_secret_flag,
}


def test_a_drawn_token_mixes_a_digit_and_a_letter_when_its_alphabet_has_both() -> None:
    rng = random.Random(1)
    for _ in range(200):
        token = pick(rng, ALNUM, 16)
        assert len(token) == 16 and any(c.isdigit() for c in token) and any(c.isalpha() for c in token)
    assert pick(rng, string.digits, 8).isdigit()  # an alphabet without letters stays as it is


def test_a_line_embeds_its_secret_in_one_of_its_templates() -> None:
    secret, line = in_context(random.Random(3), "s3cret", "A={s}", "b: {s}")
    assert secret == "s3cret" and line in ("A=s3cret", "b: s3cret")


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_each_secret_is_in_its_line_and_redacted_as_its_kind(kind: str) -> None:
    rng = random.Random(11)
    for _ in range(10):
        secret, line = MAKERS[kind](rng)
        redacted = redact_text(line)
        assert secret in line and secret not in redacted
        assert f"[REDACTED:{kind}]" in redacted
