"""The one step of ONNX queries that needs PyTorch: exporting the graph, in a child process.

The gateway embeds single queries only, through ONNX Runtime (``onnxquery.py``). Loading PyTorch and
sentence-transformers to export the graph and to check it costs a serving process about 550 MB of
resident memory for as long as it runs (measured in the gateway's serving path before it opens a
shard: 789 MB with them, 254 MB with ONNX Runtime and the tokenizer alone; a bare process holding
just the checked query model, 195-200 MB). So the export runs once per weights file, in a child
(``python -m codememory.embedding.onnxexport CACHE_DIR``): it traces the graph from the bundled
weights, embeds ``PROBES`` both ways, refuses a graph whose vectors disagree, and writes the PyTorch
vectors beside the graph (``reference_file``). A process that finds both files checks its graph
against that reference instead of against a model it would have to load.

Both files are written atomically, so two processes starting together never read half of one.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from codememory.embedding.minilm import model_path
from codememory.embedding.port import EmbeddingError

__all__ = [
    "AGREEMENT",
    "INPUTS",
    "PROBE",
    "PROBES",
    "check_agreement",
    "export_graph",
    "onnx_model_file",
    "prepared_query_graph",
    "read_reference",
    "reference_file",
]

PROBE = "where is the retry logic for the payment gateway configured?"
PROBES = (PROBE, "def validate_token(token: str) -> bool", "the deploy goes through the canary pipeline")
AGREEMENT = 1e-4  # 1 - cosine(torch vector, onnx vector) allowed per probe
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
EXPORT_TIMEOUT_S = 600.0


def onnx_model_file(cache_dir: Path) -> Path:
    """Where the exported graph of the bundled weights lives (the name changes with the weights)."""
    weights = model_path() / "model.safetensors"
    stat = weights.stat()
    digest = hashlib.sha256(f"{weights}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:16]
    return cache_dir / f"all-minilm-l6-v2-{digest}.onnx"


def reference_file(graph: Path) -> Path:
    """The PyTorch model's vectors of ``PROBES``, written beside ``graph`` when it was exported."""
    return graph.with_name(f"{graph.stem}.reference.json")


def _atomic_write(target: Path, write: Callable[[Path], object]) -> None:
    partial = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        write(partial)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)


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
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, "hidden")}

    def write(partial: Path) -> None:
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

    _atomic_write(target, write)


def check_agreement(
    expected: Sequence[Sequence[float]], got: Sequence[Sequence[float]], allowed: float, what: str
) -> None:
    """Refuse an exported graph whose unit vectors for the probes are more than ``allowed`` (1 - cosine)
    from the PyTorch model's: stored vectors and queries must land in one space."""
    for want, have in zip(expected, got, strict=True):
        cosine = sum(a * b for a, b in zip(want, have, strict=True))
        if 1.0 - cosine > allowed:
            raise EmbeddingError(f"{what} vectors disagree with the model (cosine {cosine:.6f})")


def read_reference(graph: Path) -> list[tuple[float, ...]]:
    """The reference vectors of ``PROBES`` for ``graph`` (``EmbeddingError`` if absent or damaged)."""
    try:
        data = json.loads(reference_file(graph).read_text())
        if tuple(data["probes"]) != PROBES:
            raise ValueError("made for other probe texts")
        return [tuple(float(x) for x in row) for row in data["vectors"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise EmbeddingError(f"no usable reference vectors for {graph.name}: {exc}") from exc


def prepared_query_graph(cache_dir: Path) -> Path:
    """The single-query graph of the bundled weights and its reference, exported by a child process
    when either is missing (seconds, once per weights file); ``EmbeddingError`` if that fails."""
    graph = onnx_model_file(cache_dir)
    if graph.is_file() and reference_file(graph).is_file():
        return graph
    command = [sys.executable, "-m", "codememory.embedding.onnxexport", str(cache_dir)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=EXPORT_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EmbeddingError(f"cannot export the ONNX query model: {exc}") from exc
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise EmbeddingError(f"cannot export the ONNX query model to {cache_dir}: {reason}")
    return graph


def _export(cache_dir: Path) -> None:
    """The child's work: graph and reference vectors, the graph checked against the model first."""
    from codememory.embedding.minilm import MiniLmEmbedder
    from codememory.embedding.onnxquery import OnnxQueryEmbedder

    base = MiniLmEmbedder()
    graph = onnx_model_file(cache_dir)
    if not graph.is_file():
        export_graph(base.transformer, base.tokenizer, graph)
    expected = [base.embed([probe])[0] for probe in PROBES]  # its single-query path, as queries ran
    check_agreement(expected, OnnxQueryEmbedder(graph).embed(list(PROBES)), AGREEMENT, "ONNX query")
    body = json.dumps({"probes": list(PROBES), "vectors": [list(v) for v in expected]})
    _atomic_write(reference_file(graph), lambda partial: partial.write_text(body))


if __name__ == "__main__":
    try:
        _export(Path(sys.argv[1]))
    except Exception as exc:  # the parent reads the last line of stderr as the reason
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        sys.exit(1)
