"""Dense text embeddings behind a small port, so services and tests never depend on a model library."""

from codememory.embedding.minilm import MINILM_MODEL_ID, MiniLmEmbedder, load_default_embedder
from codememory.embedding.models import DEFAULT_MODEL, ModelSpec, load_embedder, parse_model
from codememory.embedding.onnxquery import OnnxQueryEmbedder, query_embedder
from codememory.embedding.port import Embedder, EmbeddingError

__all__ = [
    "DEFAULT_MODEL",
    "MINILM_MODEL_ID",
    "Embedder",
    "EmbeddingError",
    "MiniLmEmbedder",
    "ModelSpec",
    "OnnxQueryEmbedder",
    "load_default_embedder",
    "load_embedder",
    "parse_model",
    "query_embedder",
]
