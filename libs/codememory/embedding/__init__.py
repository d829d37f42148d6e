"""Dense text embeddings behind a small port, so services and tests never depend on a model library."""

from codememory.embedding.minilm import MINILM_MODEL_ID, MiniLmEmbedder, load_default_embedder
from codememory.embedding.onnxquery import OnnxQueryEmbedder, query_embedder
from codememory.embedding.port import Embedder, EmbeddingError

__all__ = [
    "MINILM_MODEL_ID",
    "Embedder",
    "EmbeddingError",
    "MiniLmEmbedder",
    "OnnxQueryEmbedder",
    "load_default_embedder",
    "query_embedder",
]
