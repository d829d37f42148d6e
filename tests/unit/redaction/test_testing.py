"""secret_corpus: deterministic, even across kinds, and every sample embeds its secret."""

from __future__ import annotations

from collections import Counter

import pytest

from codememory.redaction.testing import SECRET_KINDS, SecretSample, secret_corpus


def test_default_corpus_shape() -> None:
    samples = secret_corpus()
    assert len(samples) == 240
    assert len(SECRET_KINDS) >= 20
    counts = Counter(sample.kind for sample in samples)
    assert set(counts) == set(SECRET_KINDS)
    assert max(counts.values()) - min(counts.values()) <= 1


def test_corpus_is_deterministic_and_seeded() -> None:
    assert secret_corpus(50, seed=1) == secret_corpus(50, seed=1)
    assert secret_corpus(50, seed=1) != secret_corpus(50, seed=2)
    assert secret_corpus(10) == secret_corpus(240)[:10]


def test_samples_embed_their_secret() -> None:
    for sample in secret_corpus(320, seed=9):
        assert sample.secret in sample.context
        assert len(sample.secret) >= 8


def test_secrets_are_distinct() -> None:
    secrets = [sample.secret for sample in secret_corpus(480, seed=4)]
    assert len(set(secrets)) == len(secrets)


def test_sample_is_frozen() -> None:
    sample = secret_corpus(1)[0]
    assert isinstance(sample, SecretSample)
    with pytest.raises(AttributeError):
        sample.secret = "x"  # type: ignore[misc]
