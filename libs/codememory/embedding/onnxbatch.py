"""Batches of stored texts through ONNX Runtime: fp32 (the same vectors) or int8 weights (faster, close).

The embed service's model call is the import's bound when vectors are waited for (``bench_event_path``).
This runs the MiniLM graph that ``onnxexport.py`` exports, traced on a padded pair so the attention
mask's padding path is in the graph (the single-query graph is traced without padding, and a padded
batch through it drifts to a cosine of 0.97), on whole batches:
texts sorted by length so each padded batch wastes little, one session call per ``batch_size`` texts on
``threads`` intra-op threads, mean pooling and normalisation in numpy.

``int8`` quantises the exported graph's weights once (ONNX Runtime's dynamic quantisation, written
atomically beside the fp32 file). Its vectors are not the PyTorch model's: a probe set must agree to a
cosine of ``INT8_AGREEMENT`` or the embedder refuses to start, and the vectors carry the same model id
(queries still come from the fp32 model; ``bench_embed_rate.py`` measures what it costs recall).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codememory.embedding.local import FORWARD_BATCH
from codememory.embedding.minilm import MiniLmEmbedder
from codememory.embedding.onnxexport import (
    INPUTS,
    PROBE,
    PROBES,
    check_agreement,
    export_graph,
    onnx_model_file,
)
from codememory.embedding.onnxquery import cpu_session
from codememory.embedding.port import EmbeddingError

FP32_AGREEMENT = 1e-4  # 1 - cosine against the PyTorch model, per probe text
INT8_AGREEMENT = 2e-2
BATCH_RUNTIMES = ("torch", "onnx", "onnx-int8")


def _quantised(source: Path) -> Path:
    target = source.with_name(f"{source.stem}-int8pc.onnx")
    if target.is_file():
        return target
    from onnxruntime.quantization import QuantType, quantize_dynamic

    partial = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        # per channel, MatMul weights only: a mean cosine of 0.992 to PyTorch on the import's texts,
        # against 0.963 quantising every op per tensor (measured here, 64 texts)
        quantize_dynamic(
            str(source),
            str(partial),
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
        )
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return target


class OnnxBatchEmbedder:
    def __init__(
        self,
        base: MiniLmEmbedder,
        cache_dir: Path,
        *,
        int8: bool = False,
        threads: int = 2,
        batch_size: int = FORWARD_BATCH,
    ) -> None:
        self._base = base
        self._tokenizer = base.tokenizer
        self._max_length = base.max_seq_length
        self._batch = max(1, batch_size)
        query_graph = onnx_model_file(cache_dir)
        source = query_graph.with_name(f"{query_graph.stem}-batch.onnx")  # traced with padding
        try:
            if not source.is_file():
                export_graph(base.transformer, self._tokenizer, source, samples=(PROBE, "padding"))
            self.model_file = _quantised(source) if int8 else source
            self._session: Any = cpu_session(self.model_file, threads)
        except Exception as exc:
            raise EmbeddingError(f"cannot prepare the ONNX batch model from {source}: {exc}") from exc
        self._lock = threading.Lock()
        allowed = INT8_AGREEMENT if int8 else FP32_AGREEMENT
        check_agreement(base.embed(list(PROBES)), self.embed(list(PROBES)), allowed, "ONNX batch")

    @property
    def model_id(self) -> str:
        return self._base.model_id

    @property
    def dim(self) -> int:
        return self._base.dim

    def embed(self, texts: Sequence[str]) -> list[tuple[float, ...]]:
        if not texts:
            return []
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[tuple[float, ...] | None] = [None] * len(texts)
        for start in range(0, len(order), self._batch):
            chunk = order[start : start + self._batch]
            for index, vector in zip(chunk, self._run([texts[i] for i in chunk]), strict=True):
                out[index] = vector
        return [v for v in out if v is not None]

    def _run(self, texts: list[str]) -> list[tuple[float, ...]]:
        import numpy as np

        features = self._tokenizer(
            texts, return_tensors="np", padding=True, truncation=True, max_length=self._max_length
        )
        feed = {name: features[name].astype(np.int64) for name in INPUTS}
        try:
            with self._lock:
                hidden = self._session.run(None, feed)[0]
        except Exception as exc:
            raise EmbeddingError(f"embedding failed: {exc}") from exc
        mask = feed["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit = pooled / np.where(norms == 0, 1.0, norms)
        return [tuple(float(x) for x in row) for row in unit.tolist()]
