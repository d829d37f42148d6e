"""Single queries through ONNX Runtime: the same MiniLM weights, a fraction of the per-call cost.

A recall embeds one short query on the request path. PyTorch spends most of that call in operator
dispatch, and with two intra-op threads on a 2-core machine it waits on whatever else runs (a batch in
the embed service, an index optimisation): a query that takes 10 ms idle took 150 ms under load.
ONNX Runtime runs the same graph as one session with fused kernels, one query at a time, on ``threads``
intra-op threads (the gateway's ``query_threads``: 2 took a LoCoMo question from 6.0 to 3.8 ms p50 on
this 2-core machine while another process kept one core busy).

The graph is exported once from the bundled weights already loaded by sentence-transformers (nothing
is downloaded) into a cache directory, under a name derived from the weights file, and written
atomically so two processes starting together never read half a file. Before it is trusted, a probe
sentence is embedded both ways and the cosines must agree to 1e-4: the stored vectors come from the
PyTorch model, and a query must land in the same space. Batches (stored texts) stay on PyTorch.
"""

from __future__ import annotations

import hashlib
import os
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import structlog

from codememory.embedding.minilm import MiniLmEmbedder, model_path
from codememory.embedding.port import Embedder, EmbeddingError

__all__ = [
    "INPUTS",
    "PROBE",
    "QUERY_RUNTIMES",
    "OnnxQueryEmbedder",
    "check_agreement",
    "cpu_session",
    "export_graph",
    "onnx_model_file",
    "query_embedder",
]

log = structlog.get_logger(__name__)

PROBE = "where is the retry logic for the payment gateway configured?"
AGREEMENT = 1e-4  # 1 - cosine(torch vector, onnx vector) allowed for the probe
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def onnx_model_file(cache_dir: Path) -> Path:
    """Where the exported graph of the bundled weights lives (the name changes with the weights)."""
    weights = model_path() / "model.safetensors"
    stat = weights.stat()
    digest = hashlib.sha256(f"{weights}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:16]
    return cache_dir / f"all-minilm-l6-v2-{digest}.onnx"


def export_graph(transformer: Any, tokenizer: Any, target: Path, samples: Sequence[str] = (PROBE,)) -> None:
    """``samples`` of different lengths trace the attention mask's padding path (batches need it)."""
    import torch

    class _Hidden(torch.nn.Module):  # positional inputs in, the last hidden state out
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    sample = tokenizer(list(samples), return_tensors="pt", padding=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, "hidden")}
    try:
        with warnings.catch_warnings():  # tracing warns at Python branches on shapes (lengths are checked)
            warnings.simplefilter("ignore")
            torch.onnx.export(
                _Hidden(transformer).eval(),
                tuple(sample[name] for name in INPUTS),
                str(partial),
                input_names=list(INPUTS),
                output_names=["hidden"],
                dynamic_axes=axes,
                opset_version=17,
                dynamo=False,
            )
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)


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


def check_agreement(
    expected: Sequence[Sequence[float]], got: Sequence[Sequence[float]], allowed: float, what: str
) -> None:
    """Refuse an exported graph whose unit vectors for the probes are more than ``allowed`` (1 - cosine)
    from the PyTorch model's: stored vectors and queries must land in one space."""
    for want, have in zip(expected, got, strict=True):
        cosine = sum(a * b for a, b in zip(want, have, strict=True))
        if 1.0 - cosine > allowed:
            raise EmbeddingError(f"{what} vectors disagree with the model (cosine {cosine:.6f})")


class OnnxQueryEmbedder:
    """An ``Embedder``: one text goes through ONNX Runtime, several through the wrapped PyTorch model."""

    def __init__(self, base: MiniLmEmbedder, cache_dir: Path, *, threads: int = 1) -> None:
        self._base = base
        self._tokenizer = base.tokenizer
        self._max_length = base.max_seq_length
        target = onnx_model_file(cache_dir)
        try:
            if not target.is_file():
                export_graph(base.transformer, self._tokenizer, target)
            self._session = cpu_session(target, threads)
        except Exception as exc:
            raise EmbeddingError(f"cannot prepare the ONNX query model at {target}: {exc}") from exc
        self._lock = threading.Lock()
        self.model_file = target
        check_agreement(base.embed([PROBE]), [self._embed_one(PROBE)], AGREEMENT, "ONNX query")

    @property
    def model_id(self) -> str:
        return self._base.model_id

    @property
    def dim(self) -> int:
        return self._base.dim

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        if len(texts) == 1:
            return [self._embed_one(texts[0])]
        return self._base.embed(texts)

    def _embed_one(self, text: str) -> tuple[float, ...]:
        import numpy as np

        features = self._tokenizer([text], return_tensors="np", truncation=True, max_length=self._max_length)
        feed = {name: features[name].astype(np.int64) for name in INPUTS}
        try:
            with self._lock:  # one query at a time owns the intra-op threads
                hidden = self._session.run(None, feed)[0]
        except Exception as exc:
            raise EmbeddingError(f"embedding failed: {exc}") from exc
        mask = feed["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1)[0] / max(float(mask.sum()), 1e-9)
        norm = float(np.linalg.norm(pooled)) or 1.0
        return tuple(float(x) for x in (pooled / norm).tolist())


QUERY_RUNTIMES = ("onnx", "torch")


def query_embedder(base: Embedder, runtime: str, cache_dir: Path, *, threads: int = 1) -> Embedder:
    """What a recall path embeds queries with: ONNX Runtime (``onnx``) or ``base`` alone (``torch``).

    ONNX needs the MiniLM model it is exported from; if it cannot be prepared (no space for the cache,
    a damaged file), queries stay on ``base`` and a warning says why: slower, never wrong.
    """
    if runtime not in QUERY_RUNTIMES:
        raise EmbeddingError(f"query runtime must be one of {', '.join(QUERY_RUNTIMES)}, got {runtime!r}")
    if runtime == "torch" or not isinstance(base, MiniLmEmbedder):
        return base
    try:
        return OnnxQueryEmbedder(base, cache_dir, threads=threads)
    except EmbeddingError as exc:
        log.warning("onnx_queries_unavailable", reason=str(exc), fallback="torch")
        return base
