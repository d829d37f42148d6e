"""The import with vectors is bound by the embedder: how much faster can the embed service embed?

In one run, on the import's own texts (``bench_event_path``'s memories):
- the model alone, this process: all-MiniLM-L6-v2 through PyTorch (today's embed service, batches of
  64) against ONNX Runtime fp32 and int8 (``embedding/onnxbatch.py``) at several batch sizes;
- what int8 costs: cosine of each stored vector to PyTorch's, and how many of each query's top 10
  neighbours stay the same (queries are embedded by the fp32 model, as the gateway does);
- end to end: ``codememory import`` of N memories waiting for every vector, one fresh ``codememory up``
  per runtime (``CODEMEMORY_EMBED_RUNTIME``), memories/s against the PyTorch stack.

    .venv/bin/python benchmarks/bench_embed_rate.py [--memories 2000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_event_path import _memories, embedded_stack
from results import median, write_section


def _rate(embedder: object, texts: list[str], batch: int, runs: int) -> float:
    rates = []
    embedder.embed(texts[:batch])  # type: ignore[attr-defined]
    for _ in range(runs):
        started = time.perf_counter()
        for start in range(0, len(texts), batch):
            embedder.embed(texts[start : start + batch])  # type: ignore[attr-defined]
        rates.append(len(texts) / (time.perf_counter() - started))
    return median(rates)


def _top(queries: object, docs: object, k: int = 10) -> list[set[int]]:
    import numpy as np

    scores = np.asarray(queries) @ np.asarray(docs).T
    return [set(np.argsort(-row)[:k].tolist()) for row in scores]


def model_alone(texts: list[str], runs: int) -> tuple[str, dict[str, float]]:
    import numpy as np

    from codememory.embedding import MiniLmEmbedder
    from codememory.embedding.onnxbatch import OnnxBatchEmbedder

    torch_model = MiniLmEmbedder()
    cache = Path(tempfile.mkdtemp())
    fp32 = {b: OnnxBatchEmbedder(torch_model, cache, batch_size=b) for b in (32, 64, 128)}
    int8 = {b: OnnxBatchEmbedder(torch_model, cache, int8=True, batch_size=b) for b in (64, 128)}
    rows = [("PyTorch (today)", 64, _rate(torch_model, texts, 64, runs))]
    rows += [("ONNX Runtime fp32", b, _rate(e, texts, b, runs)) for b, e in fp32.items()]
    rows += [("ONNX Runtime int8", b, _rate(e, texts, b, runs)) for b, e in int8.items()]
    base = rows[0][2]
    reference = np.asarray(torch_model.embed(texts))
    quantised = np.asarray(int8[64].embed(texts))
    same = np.asarray(fp32[64].embed(texts))
    cos8 = (reference * quantised).sum(axis=1)
    cos32 = (reference * same).sum(axis=1)
    queries = [f"which part {t.split(':', 1)[1].split(' since')[0].strip()}" for t in texts[:200]]
    q = torch_model.embed(queries)
    overlap = [len(a & b) / 10 for a, b in zip(_top(q, reference), _top(q, quantised), strict=True)]
    table = "| runtime | batch | texts/s | vs PyTorch |\n|---|---|---|---|\n" + "".join(
        f"| {name} | {batch} | {rate:,.0f} | {rate / base:.2f}x |\n" for name, batch, rate in rows
    )
    agreement = (
        f"\nVectors against PyTorch's ({len(texts):,} texts): fp32 mean cosine {cos32.mean():.5f}; "
        f"int8 mean {cos8.mean():.4f}, min {cos8.min():.4f}. Top-10 neighbours of 200 queries (fp32 query "
        f"vectors) that stay the same with int8 stored vectors: {np.mean(overlap) * 100:.1f}% "
        f"(min {min(overlap) * 100:.0f}%).\n"
    )
    return table + agreement, {name + str(batch): rate for name, batch, rate in rows}


def import_rate(runtime: str, memories: int) -> float:
    from codememory.cli.client import connect
    from codememory.cli.transfer import import_memories

    os.environ["CODEMEMORY_EMBED_RUNTIME"] = runtime
    with embedded_stack() as home, connect(home, timeout=120) as conn:
        result = import_memories(conn, _memories(runtime, memories), wait_embedded=True)  # type: ignore[arg-type]
    assert result["stored"] == memories and result["embedded"], result
    return float(result["per_second"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    texts = [m.memory.text for m in _memories("rate", args.memories)]  # type: ignore[attr-defined]
    table, rates = model_alone(texts, args.runs)
    stacks = {runtime: import_rate(runtime, args.memories) for runtime in ("torch", "onnx", "onnx-int8")}
    base = stacks["torch"]
    imports = "| embed runtime | memories | memories/s until every vector is applied | vs PyTorch |\n"
    imports += "|---|---|---|---|\n"
    imports += "".join(
        f"| {runtime} | {args.memories:,} | {rate:,.0f} | {rate / base:.2f}x |\n"
        for runtime, rate in stacks.items()
    )
    model_s = args.memories / rates["PyTorch (today)64"]
    where = (
        f"\nWhere the import's time goes: with PyTorch the model alone needs {model_s:.1f} s for these "
        f"{args.memories:,} texts, {100 * model_s * base / args.memories:.0f}% of the import's "
        f"{args.memories / base:.1f} s; the rest is the same two cores folding the stored and the embedded "
        "events (each vector is an event of about 8 KB that the gateway decodes and upserts), appending and "
        "serving, all in one process. A faster embedder shortens only its part.\n"
    )
    body = (
        "### The model alone (this process, 2 cores)\n\n"
        + table
        + "\n### Import with vectors (`codememory up`, `CODEMEMORY_EMBED_RUNTIME`)\n\n"
        + imports
        + where
    )
    write_section(
        "bench_embed_rate",
        "bench_embed_rate: the embedder-bound import (PyTorch, ONNX fp32, ONNX int8)",
        body,
    )


if __name__ == "__main__":
    main()
