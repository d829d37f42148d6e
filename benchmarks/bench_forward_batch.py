"""Texts per forward pass of the embedding model, by the kind of text the embed service embeds.

The embed service hands the model up to 64 texts per call (a batch of memories; a batch's symbols
now go one pass per call, shortest first: ``embed.handler.length_turns``). The model sorts a call's
texts by length and runs them in passes of ``forward_batch``, each padded to its longest text, and
attention costs grow with the square of that length: on texts of
mixed lengths, small passes waste less. Measured here in this process on three kinds of text, each
through all-MiniLM-L6-v2 (PyTorch, 2 cores) in calls of 64 at several pass sizes, alternating, medians
of ``--rounds``: the import's synthetic memories (``bench_event_path``, short and alike), LoCoMo
turns (real conversation), and the symbols of this repository's own code (``codememory index``'s
texts for code search). The vectors of each pass size are compared with those of passes of 64.

    .venv/bin/python benchmarks/bench_forward_batch.py [--rounds 3] [--texts 512]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_event_path import _memories
from bench_locomo import dialog_turns
from results import median, write_section

from shared_data import REPO

CALL = 64  # texts per call, as the embed handler makes them
SIZES = (64, 32, 16, 8)


def _texts(limit: int) -> dict[str, list[str]]:
    from codememory.code.extract import extract_file
    from codememory.embed.symbols import symbol_jobs
    from codememory.events import new_envelope

    turns = [text for _, _, text in dialog_turns()]
    files = sorted((REPO / "libs" / "codememory").rglob("*.py"))
    extracted = [
        new_envelope(extract_file("r", str(p.relative_to(REPO)), p.read_bytes()), event_id=str(i), tenant="t")
        for i, p in enumerate(files)
    ]
    symbols = [text for job in symbol_jobs(extracted) for text in job.texts]
    memories = [item.memory.text for item in _memories("r", limit)]
    return {
        "import memories": memories[:limit],
        "LoCoMo turns": turns[:limit],
        "code symbols": symbols[:limit],
    }


def _pass(model: object, texts: list[str]) -> tuple[float, np.ndarray]:
    started = time.perf_counter()
    vectors = [v for i in range(0, len(texts), CALL) for v in model.embed(texts[i : i + CALL])]  # type: ignore[attr-defined]
    return len(texts) / (time.perf_counter() - started), np.asarray(vectors)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--texts", type=int, default=512)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    from codememory.embedding import MiniLmEmbedder

    kinds = _texts(args.texts)
    models = {size: MiniLmEmbedder(batch_size=size) for size in SIZES}
    for model in models.values():
        model.embed(["warm up"])
    rates: dict[tuple[str, int], list[float]] = {}
    agreement: dict[tuple[str, int], float] = {}
    for _ in range(args.rounds):
        for kind, texts in kinds.items():
            reference = None
            for size in SIZES:
                rate, vectors = _pass(models[size], texts)
                rates.setdefault((kind, size), []).append(rate)
                if reference is None:
                    reference = vectors
                cosine = float(np.min(np.sum(vectors * reference, axis=1)))
                agreement[(kind, size)] = min(agreement.get((kind, size), 1.0), cosine)
    header = "| texts | count | mean characters | " + " | ".join(f"passes of {s}" for s in SIZES) + " |"
    rows = [header, "|---|---|---|" + "---|" * len(SIZES)]
    for kind, texts in kinds.items():
        base = median(rates[(kind, SIZES[0])])
        cells = [f"{median(rates[(kind, s)]):.0f} ({median(rates[(kind, s)]) / base:.2f}x)" for s in SIZES]
        mean = sum(map(len, texts)) / len(texts)
        rows.append(f"| {kind} | {len(texts)} | {mean:.0f} | " + " | ".join(cells) + " |")
    lowest = min(agreement.values())
    body = (
        "Texts/s of all-MiniLM-L6-v2 (PyTorch, this process, 2 cores) in calls of 64, medians of "
        f"{args.rounds} alternating rounds; in brackets against passes of 64.\n\n" + "\n".join(rows) + "\n\n"
        f"Every vector of every pass size has a cosine of at least {lowest:.6f} to the one of passes of 64."
    )
    print(body)
    if not args.no_write:
        write_section("bench_forward_batch", "Texts per forward pass of the embedding model", body)


if __name__ == "__main__":
    main()
