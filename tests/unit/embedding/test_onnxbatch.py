"""Stored texts through ONNX Runtime: fp32 gives PyTorch's vectors, int8 close ones, in the caller's order."""

from __future__ import annotations

from pathlib import Path

import pytest

from codememory.embed.settings import EmbedSettings
from codememory.embedding import MiniLmEmbedder
from codememory.embedding.onnxbatch import OnnxBatchEmbedder
from codememory.settings import SettingsError

TEXTS = [
    "a long question about retries " * 60,  # past the 256-token limit: both truncate the same way
    "x",
    "def validate_token(token: str) -> bool",
    "the deploy goes through the canary pipeline on every merge to main",
    "",
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnxbatch")


def _cosines(a: list[tuple[float, ...]], b: list[tuple[float, ...]]) -> list[float]:
    return [sum(x * y for x, y in zip(u, v, strict=True)) for u, v in zip(a, b, strict=True)]


def test_fp32_batches_are_pytorchs_vectors_in_order(embedder: MiniLmEmbedder, cache: Path) -> None:
    onnx = OnnxBatchEmbedder(embedder, cache, batch_size=2)  # several padded batches, sorted by length
    assert (onnx.model_id, onnx.dim) == (embedder.model_id, 384) and onnx.embed([]) == []
    assert min(_cosines(embedder.embed(TEXTS), onnx.embed(TEXTS))) > 1 - 1e-4


def test_int8_vectors_stay_close(embedder: MiniLmEmbedder, cache: Path) -> None:
    onnx = OnnxBatchEmbedder(embedder, cache, int8=True)
    assert onnx.model_file.name.endswith("-int8pc.onnx")
    assert min(_cosines(embedder.embed(TEXTS[1:]), onnx.embed(TEXTS[1:]))) > 0.97


def test_the_runtime_is_a_setting() -> None:
    assert EmbedSettings.from_env({"CODEMEMORY_EMBED_RUNTIME": "onnx-int8"}).runtime == "onnx-int8"
    assert EmbedSettings.from_env({}).runtime == "torch"
    with pytest.raises(SettingsError, match="CODEMEMORY_EMBED_RUNTIME"):
        EmbedSettings.from_env({"CODEMEMORY_EMBED_RUNTIME": "tensorrt"})
    with pytest.raises(SettingsError, match="CODEMEMORY_EMBED_MODEL"):
        EmbedSettings.from_env({"CODEMEMORY_EMBED_MODEL": "bert"})
    assert "sk-1" not in repr(EmbedSettings.from_env({"CODEMEMORY_API_KEY": "sk-1"}))
