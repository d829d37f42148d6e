"""The random draws of the test corpus and the secrets known by their context: a drawn token mixes
digits and letters, each line embeds its secret, and ``redact_text`` reports each by its kind."""

from __future__ import annotations

import inspect
import random
import string

import pytest

from codememory.redaction import fakesecrets as generic
from codememory.redaction import redact_text
from codememory.redaction.fakesecrets import ALNUM, Maker, in_context, pick
from codememory.redaction.testing import MAKERS as CORPUS_MAKERS

# the corpus table's makers of secrets known by their context (the others are vendors' tokens)
MAKERS: dict[str, Maker] = {
    kind: make for kind, make in CORPUS_MAKERS.items() if make.__module__ == generic.__name__
}


def test_every_maker_of_secrets_known_by_their_context_is_in_the_corpus() -> None:
    makers = {
        make
        for _, make in inspect.getmembers(generic, inspect.isfunction)
        if make.__module__ == generic.__name__
        and not make.__name__.startswith("_")
        and make not in (pick, in_context)
    }
    assert len(MAKERS) >= 8 and makers == set(MAKERS.values())


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
