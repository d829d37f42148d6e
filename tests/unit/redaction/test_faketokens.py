"""Vendors' tokens of the test corpus: each is in its line, drawn the same for the same seed, and
``redact_text`` reports each by its vendor's kind."""

from __future__ import annotations

import inspect
import random

import pytest

from codememory.redaction import faketokens, redact_text
from codememory.redaction.testing import SECRET_KINDS

VENDORS = sorted(
    name
    for name, maker in inspect.getmembers(faketokens, inspect.isfunction)
    if maker.__module__ == faketokens.__name__
)


def test_every_vendor_token_is_a_kind_of_the_corpus() -> None:
    assert len(VENDORS) >= 20 and set(VENDORS) <= set(SECRET_KINDS)


@pytest.mark.parametrize("kind", VENDORS)
def test_each_token_is_in_its_line_the_same_per_seed_and_redacted_as_its_kind(kind: str) -> None:
    maker = getattr(faketokens, kind)
    assert maker(random.Random(5)) == maker(random.Random(5))
    rng = random.Random(13)
    for _ in range(10):
        secret, line = maker(rng)
        redacted = redact_text(line)
        assert secret in line and secret not in redacted
        assert f"[REDACTED:{kind}]" in redacted
