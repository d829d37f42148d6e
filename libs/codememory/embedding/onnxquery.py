"""Single queries through ONNX Runtime: the same MiniLM weights, a fraction of the cost, no PyTorch.

A recall embeds one short query on the request path. PyTorch spends most of that call in operator
dispatch, and with two intra-op threads on a 2-core machine it waits on whatever else runs (a batch in
the embed service, an index optimisation): a query that takes 10 ms idle took 150 ms under load.
ONNX Runtime runs the same graph as one session with fused kernels, one query at a time, on ``threads``
intra-op threads (the gateway's ``query_threads``: 2 took a LoCoMo question from 6.0 to 3.8 ms p50 on
this 2-core machine while another process kept one core busy).

The process that serves queries loads ONNX Runtime and the model's own ``tokenizer.json`` and nothing
else: the graph is exported from the bundled weights by a child process (``onnxexport``), which also
writes the PyTorch model's vectors of a few probe texts beside it. Before the graph is trusted, those
probes are embedded here and must agree to 1e-4 (1 - cosine): the stored vectors come from the PyTorch
model, and a query must land in the same space. Several texts in one call run one at a time (the graph
is traced without padding; the embed service's batches use ``onnxbatch``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import structlog

from codememory.embedding.minilm import (
    MAX_TOKENS,
    MINILM_DIM,
    MINILM_MODEL_ID,
    load_default_embedder,
    model_path,
)
from codememory.embedding.onnxexport import (
    AGREEMENT,
    INPUTS,
    PROBES,
    check_agreement,
    prepared_query_graph,
    read_reference,
)
from codememory.embedding.port import Embedder, EmbeddingError

__all__ = ["QUERY_RUNTIMES", "OnnxQueryEmbedder", "cpu_session", "onnx_query_embedder", "query_embedder"]

log = structlog.get_logger(__name__)


def cpu_session(model_file: Path, threads: int) -> Any:
    """An ONNX Runtime session on the CPU: ``threads`` intra-op threads, one inter-op, every graph
    optimisation (the one set-up of the query and the batch embedders)."""
    try:
        import onnxruntime as ort
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise EmbeddingError("onnxruntime is not installed") from exc
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])


def _tokenizer() -> Any:
    """The bundled model's fast tokenizer, as sentence-transformers sets it up for one text: truncated
    to ``MAX_TOKENS`` (special tokens included), never padded."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_path() / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    return tokenizer


class OnnxQueryEmbedder:
    """An ``Embedder`` of the bundled MiniLM on ONNX Runtime: one session over ``graph``, one text at a
    time. Unchecked: ``onnx_query_embedder`` is how a serving process gets one it can trust."""

    def __init__(self, graph: Path, *, threads: int = 1) -> None:
        try:
            self._session = cpu_session(graph, threads)
            self._tokenizer = _tokenizer()
        except EmbeddingError:
            raise
        except Exception as exc:
            raise EmbeddingError(f"cannot prepare the ONNX query model at {graph}: {exc}") from exc
        self._lock = threading.Lock()
        self.model_file = graph

    @property
    def model_id(self) -> str:
        return MINILM_MODEL_ID

    @property
    def dim(self) -> int:
        return MINILM_DIM

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        return [self._embed_one(text) for text in texts]

    def _embed_one(self, text: str) -> tuple[float, ...]:
        import numpy as np

        encoding = self._tokenizer.encode(text)
        columns = (encoding.ids, encoding.attention_mask, encoding.type_ids)
        feed = {
            name: np.asarray([column], dtype=np.int64) for name, column in zip(INPUTS, columns, strict=True)
        }
        try:
            with self._lock:  # one query at a time owns the intra-op threads
                hidden = self._session.run(None, feed)[0]
        except Exception as exc:
            raise EmbeddingError(f"embedding failed: {exc}") from exc
        mask = feed["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1)[0] / max(float(mask.sum()), 1e-9)
        norm = float(np.linalg.norm(pooled)) or 1.0
        return tuple(float(x) for x in (pooled / norm).tolist())


def onnx_query_embedder(cache_dir: Path, *, threads: int = 1) -> OnnxQueryEmbedder:
    """The query graph of the bundled weights in ``cache_dir`` (exported by a child process if missing),
    checked against the PyTorch model's reference vectors; ``EmbeddingError`` if it cannot be trusted."""
    graph = prepared_query_graph(cache_dir)
    embedder = OnnxQueryEmbedder(graph, threads=threads)
    check_agreement(read_reference(graph), embedder.embed(list(PROBES)), AGREEMENT, "ONNX query")
    return embedder


QUERY_RUNTIMES = ("onnx", "torch")


def query_embedder(
    runtime: str, cache_dir: Path, *, threads: int = 1, model: Callable[[], Embedder] | None = None
) -> Embedder:
    """What a recall path embeds the bundled MiniLM's queries with: ONNX Runtime (``onnx``) or the
    PyTorch model (``torch``; ``model`` loads it, the shared ``load_default_embedder`` by default).

    If the ONNX graph cannot be prepared (no space for the cache, a damaged file), queries go to the
    PyTorch model and a warning says why: slower, never wrong.
    """
    if runtime not in QUERY_RUNTIMES:
        raise EmbeddingError(f"query runtime must be one of {', '.join(QUERY_RUNTIMES)}, got {runtime!r}")
    model = model or load_default_embedder
    if runtime == "torch":
        return model()
    try:
        return onnx_query_embedder(cache_dir, threads=threads)
    except EmbeddingError as exc:
        log.warning("onnx_queries_unavailable", reason=str(exc), fallback="torch")
        return model()
