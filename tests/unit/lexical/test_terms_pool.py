"""Lexical vectors computed in worker processes equal the ones computed in this process."""

from __future__ import annotations

import pytest

from codememory.lexical import SparseEncoder, SparseVec
from codememory.lexical.pool import DeferredTerms, TermsPool, encode_documents

TEXTS = [
    f"memory {i}: validateToken(jwt) in src/auth/jwt_utils.py retries {i % 7} times; HTTPServerError é"
    for i in range(300)
] + ["", "plain prose without identifiers", "ÜberCache.get_or_create → 42"]


@pytest.fixture(scope="module")
def pool() -> TermsPool:
    with TermsPool(SparseEncoder(k=1.5, b=0.5, avg_len=64.0), workers=2, min_batch=16) as terms:
        yield terms  # type: ignore[misc]


def test_workers_encode_exactly_what_this_process_encodes(pool: TermsPool) -> None:
    expected = encode_documents(SparseEncoder(k=1.5, b=0.5, avg_len=64.0), TEXTS)
    assert pool.encode_documents(TEXTS) == expected
    assert pool.encode_documents(TEXTS[:3]) == expected[:3]  # a small batch: in process, same answer


def test_workers_use_the_callers_settings(pool: TermsPool) -> None:
    default = encode_documents(SparseEncoder(), TEXTS[:40])
    assert pool.encode_documents(TEXTS[:40]) != default


def test_deferred_placeholders_resolve_to_their_texts_vectors() -> None:
    encoder = SparseEncoder()
    deferred = DeferredTerms()
    first, dropped, second = deferred("alpha validateToken"), deferred("never needed"), deferred("beta")
    assert DeferredTerms.is_placeholder(first) and first != second
    real = encoder.encode_document("kept as it is")
    asked: list[str] = []

    def encode(texts: list[str]) -> list[SparseVec]:
        asked.extend(texts)
        return encode_documents(encoder, texts)

    resolved = deferred.resolve([second, None, real, first], encode)  # type: ignore[arg-type]
    assert asked == ["alpha validateToken", "beta"]  # a superseded placeholder is not encoded
    beta, alpha = encode_documents(encoder, ["beta", "alpha validateToken"])
    assert resolved == [beta, None, real, alpha]
    assert not DeferredTerms.is_placeholder(real) and dropped is not None


def test_a_pool_needs_a_worker() -> None:
    with pytest.raises(ValueError, match="workers"):
        TermsPool(SparseEncoder(), workers=0)


def test_a_lost_worker_slows_the_pool_but_changes_no_vector() -> None:
    encoder = SparseEncoder()
    with TermsPool(encoder, workers=2, min_batch=4) as pool:
        pool._workers[0].kill()  # a worker dying mid-replay
        pool._workers[0].wait()
        assert pool.encode_documents(TEXTS) == encode_documents(encoder, TEXTS)
        assert pool.workers == 1
        assert pool.encode_documents(TEXTS[:50]) == encode_documents(encoder, TEXTS[:50])
