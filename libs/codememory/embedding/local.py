"""Any sentence-transformers model directory on disk, loaded offline, behind the ``Embedder`` port.

What the model directory says is what runs: its modules (transformer, pooling, normalisation) come
from ``modules.json``, so a model with CLS pooling or without a normalisation module embeds as its
authors meant; the vectors are normalised here as well, because the port promises unit length
(cosine in the index). The bundled MiniLM keeps its own class (``minilm.py``) for its fast single-query
path; this one serves every other local model, all-mpnet-base-v2 included (``mpnet.py``).
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codememory.embedding.port import EmbeddingError

# Texts per forward pass. The model sorts a call's texts by length and pads each pass to its longest,
# and attention grows with the square of that length, so small passes waste less on texts of mixed
# lengths: all-MiniLM-L6-v2 on two cores, texts/s against passes of 64 (``bench_forward_batch.py``):
# LoCoMo turns 1.89x, code symbols 2.50x, short alike import texts 0.92x; the same vectors.
# The embed service's ``CODEMEMORY_EMBED_FORWARD_BATCH``.
FORWARD_BATCH = 16


def offline() -> None:
    """Nothing is fetched from a model hub at run time."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def unit(vector: Sequence[float]) -> tuple[float, ...]:
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return tuple(float(x) / norm for x in vector)


def encode(model: Any, texts: Sequence[str], batch_size: int) -> list[list[float]]:
    """Texts through a SentenceTransformer's ``encode``, normalised; any failure is an ``EmbeddingError``."""
    try:
        matrix = model.encode(
            list(texts),
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
    except Exception as exc:
        raise EmbeddingError(f"embedding failed: {exc}") from exc
    rows: list[list[float]] = matrix.tolist()
    return rows


class LocalEmbedder:
    """A SentenceTransformer from ``path`` on the CPU; thread-safe; batches of ``batch_size``."""

    def __init__(
        self, path: Path, model_id: str, *, batch_size: int = FORWARD_BATCH, max_seq_length: int = 256
    ) -> None:
        if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
            raise EmbeddingError(f"{path} is not a sentence-transformers model directory")
        offline()
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:  # pragma: no cover - a dependency of the package
            raise EmbeddingError("sentence-transformers is not installed") from exc
        try:
            self._model: Any = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except Exception as exc:
            raise EmbeddingError(f"cannot load the model at {path}: {exc}") from exc
        self._model.max_seq_length = min(int(self._model.max_seq_length or max_seq_length), max_seq_length)
        dimension = getattr(self._model, "get_embedding_dimension", None)
        dim = dimension() if dimension else self._model.get_sentence_embedding_dimension()
        if not dim:
            raise EmbeddingError(f"the model at {path} does not say its embedding dimension")
        self._dim = int(dim)
        self._id = model_id
        self._batch_size = batch_size
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self._id

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        if not texts:
            return []
        with self._lock:
            rows = encode(self._model, texts, self._batch_size)
        return [unit(row) for row in rows]
