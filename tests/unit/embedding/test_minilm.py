"""The real all-MiniLM-L6-v2, offline from its wheel: shape, normalisation, and one query equals the batch."""

from __future__ import annotations

import math

from codememory.embedding import MINILM_MODEL_ID, MiniLmEmbedder


def test_vectors_are_unit_length_and_384_wide(embedder: MiniLmEmbedder) -> None:
    (vector,) = embedder.embed(["how do we validate tokens"])
    assert embedder.model_id == MINILM_MODEL_ID and embedder.dim == len(vector) == 384
    assert abs(math.sqrt(sum(x * x for x in vector)) - 1.0) < 1e-5


def test_the_single_query_path_matches_the_batch_path(embedder: MiniLmEmbedder) -> None:
    texts = ["def validate_token(jwt): ...", "the deploy goes through the canary pipeline"]
    batch = embedder.embed(texts)
    for text, expected in zip(texts, batch, strict=True):
        (single,) = embedder.embed([text])
        assert max(abs(a - b) for a, b in zip(single, expected, strict=True)) < 1e-5


def test_similar_meaning_scores_higher(embedder: MiniLmEmbedder) -> None:
    query, close, far = embedder.embed(
        ["validate an access token", "check that the JWT is valid", "bake bread"]
    )

    def dot(a: tuple[float, ...], b: tuple[float, ...]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    assert dot(query, close) > dot(query, far) + 0.2
