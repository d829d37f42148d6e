"""The ONNX query path must put a query where the PyTorch model puts it, and never half-load a graph."""

from __future__ import annotations

from pathlib import Path

import pytest

from codememory.embedding import EmbeddingError, MiniLmEmbedder
from codememory.embedding.onnxquery import OnnxQueryEmbedder, onnx_model_file, query_embedder

TEXTS = [
    "When did the team move the retry logic into the payment gateway?",
    "def validate_token(token: str) -> bool",
    "x",
    "a long question " * 200,  # past the 256-token limit: both sides truncate the same way
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def onnx(embedder: MiniLmEmbedder, cache: Path) -> OnnxQueryEmbedder:
    return OnnxQueryEmbedder(embedder, cache)


def _cosine(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("text", TEXTS)
def test_a_query_lands_where_the_model_puts_it(
    onnx: OnnxQueryEmbedder, embedder: MiniLmEmbedder, text: str
) -> None:
    got = onnx.embed([text])[0]
    assert len(got) == onnx.dim == 384
    assert _cosine(got, embedder.embed([text])[0]) > 0.9999
    assert abs(_cosine(got, got) - 1.0) < 1e-5


def test_batches_stay_on_the_model(onnx: OnnxQueryEmbedder, embedder: MiniLmEmbedder) -> None:
    assert onnx.embed(TEXTS[:2]) == embedder.embed(TEXTS[:2])
    assert onnx.embed([]) == []
    assert onnx.model_id == embedder.model_id


def test_the_export_is_made_once_and_reused(
    onnx: OnnxQueryEmbedder, embedder: MiniLmEmbedder, cache: Path
) -> None:
    made = onnx.model_file
    assert made == onnx_model_file(cache) and made.is_file()
    before = made.stat().st_mtime_ns
    again = OnnxQueryEmbedder(embedder, cache)
    assert again.model_file == made and made.stat().st_mtime_ns == before
    assert [p.name for p in cache.iterdir()] == [made.name]  # no partial file left behind


def test_a_damaged_graph_is_a_typed_error(embedder: MiniLmEmbedder, tmp_path: Path) -> None:
    target = onnx_model_file(tmp_path)
    target.write_bytes(b"not an onnx graph")
    with pytest.raises(EmbeddingError, match="ONNX query model"):
        OnnxQueryEmbedder(embedder, tmp_path)


def test_query_embedder_picks_the_runtime(embedder: MiniLmEmbedder, cache: Path, tmp_path: Path) -> None:
    assert query_embedder(embedder, "torch", cache) is embedder
    assert isinstance(query_embedder(embedder, "onnx", cache), OnnxQueryEmbedder)
    with pytest.raises(EmbeddingError, match="query runtime"):
        query_embedder(embedder, "tensorrt", cache)


def test_an_unusable_cache_falls_back_to_the_model(embedder: MiniLmEmbedder, tmp_path: Path) -> None:
    onnx_model_file(tmp_path).write_bytes(b"damaged")
    assert query_embedder(embedder, "onnx", tmp_path) is embedder  # slower, never wrong
