"""LoCoMo evidence recall with each embedding model, in one run: what a migration to mpnet buys.

The same as ``quality.py``'s codememory row (every turn stored through the Store RPC on a real
``codememory up``, questions through the Recall RPC), once per model chosen by configuration
(``CODEMEMORY_MODEL``): the bundled all-MiniLM-L6-v2 and all-mpnet-base-v2 (the optional extra).
Also the ingest time, which includes embedding every turn with that model on two cores.

    .venv/bin/python benchmarks/bench_model_quality.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_locomo import evaluate, load, turns
from locomo_systems import stack
from quality import table
from results import write_section

MODELS = ("all-MiniLM-L6-v2", "all-mpnet-base-v2")


def main() -> None:
    convs = load()
    results = {}
    ingest = {}
    for model in MODELS:
        os.environ["CODEMEMORY_MODEL"] = model
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp) / "home"
            home.mkdir()
            with stack(convs, home) as (recall, ingest_s, _):
                results[f"codememory hybrid, {model}"] = evaluate(convs, recall)
                ingest[model] = ingest_s
    n_turns = sum(len(turns(c)) for c in convs)
    body = (
        "\n".join(table(results))
        + "\n\n"
        + (
            f"{n_turns:,} turns stored through the Store RPC, embedding included: "
            + ", ".join(f"{model} {seconds:.0f} s" for model, seconds in ingest.items())
            + ". R@k: share of a question's evidence turns in the top k. p50: the Recall RPC, query "
            "embedding included (MiniLM through ONNX Runtime, mpnet through PyTorch)."
        )
    )
    write_section("bench_model_quality", "bench_model_quality: LoCoMo recall with each embedding model", body)


if __name__ == "__main__":
    main()
