"""BM25 sparse vectors: code-aware terms make prose queries reach identifiers."""

from __future__ import annotations

import pytest
from qdrant_edge import Bm25

from codememory.lexical import SparseEncoder, SparseVec, code_terms, sparse_dot

DOCUMENT = "Fixed the login bug: validateToken(jwt, now) compared expiry in seconds against milliseconds."


def test_prose_query_matches_identifier_only_with_code_terms() -> None:
    encoder = SparseEncoder()
    query = encoder.encode_query(code_terms("validate token"))
    assert sparse_dot(query, encoder.encode_document(code_terms(DOCUMENT))) > 0
    assert sparse_dot(query, encoder.encode_document(DOCUMENT)) == 0


def test_plain_bm25_does_not_split_identifiers() -> None:
    bm25 = Bm25()
    query = bm25.embed_query("validate token")
    document = bm25.embed_document(DOCUMENT)
    assert not set(query.indices) & set(document.indices)


def test_exact_identifier_still_matches() -> None:
    encoder = SparseEncoder()
    query = encoder.encode_query(code_terms("validateToken"))
    assert sparse_dot(query, encoder.encode_document(code_terms(DOCUMENT))) > sparse_dot(
        encoder.encode_query("validate token"), encoder.encode_document(code_terms(DOCUMENT))
    )


def test_vectors_are_plain_sorted_values() -> None:
    encoder = SparseEncoder()
    vec = encoder.encode_document("retry the upload, retry the download")
    assert isinstance(vec, SparseVec)
    assert list(vec.indices) == sorted(vec.indices)
    assert all(isinstance(i, int) for i in vec.indices)
    assert encoder.encode_query("") == SparseVec()
    assert set(encoder.encode_query("retry uploads").values) == {1.0}


def test_k_b_and_avg_len_shape_document_weights() -> None:
    text = "cache cache cache invalidation"
    default = SparseEncoder().encode_document(text)
    assert SparseEncoder(k=2.0).encode_document(text) != default
    assert SparseEncoder(b=0.0).encode_document(text) != default
    assert SparseEncoder(avg_len=4.0).encode_document(text) != default
    assert SparseEncoder(k=2.0).k == 2.0


def test_invalid_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="BM25"):
        SparseEncoder(b=1.5)
    with pytest.raises(ValueError, match="indices"):
        SparseVec((1, 2), (1.0,))


def test_sparse_dot() -> None:
    assert sparse_dot(SparseVec((1, 5), (2.0, 3.0)), SparseVec((5, 7), (0.5, 9.0))) == 1.5
    assert sparse_dot(SparseVec(), SparseVec((1,), (1.0,))) == 0.0
    assert SparseVec.from_dict({9: 1.0, 2: 0.5}) == SparseVec((2, 9), (0.5, 1.0))
