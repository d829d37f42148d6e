"""An import with vectors of real conversation: memories/s until every dense vector is applied.

``bench_import_rate --dense`` imports short synthetic notes, all about as long as each other; real
memories differ in length, and how the model pads them decides much of the embedder's time. Here the
memories are LoCoMo's turns (dev conversations, as written), imported with ``codememory import``'s
client (``wait_embedded``: the Import RPC returns once every vector is applied), one fresh
``codememory up`` per run, this tree against a baseline tree (``--baseline-tree``, a ``git archive``
of an earlier commit), alternating.

    .venv/bin/python benchmarks/bench_dense_import.py --baseline-tree /tmp/base [--memories 2000]
"""

from __future__ import annotations

import argparse
import sys
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_event_path import embedded_stack
from bench_import_rate import stack_code
from bench_locomo import dialog_turns
from results import in_turn, median, write_section


def _turns(n: int) -> list[Any]:
    from codememory.v1 import memory_pb2 as pb

    turns = dialog_turns()[:n]
    return [
        pb.ImportedMemory(
            memory=pb.StoreRequest(
                text=text,
                type="dialog",
                memory_id=str(uuid.uuid4()),
                scope=pb.Scope(repo=f"locomo-{sample}", session_id=session),
            )
        )
        for sample, session, text in turns
    ]


def one_import(base: Path | None, memories: list[Any]) -> dict[str, Any]:
    from codememory.cli.client import connect
    from codememory.cli.transfer import import_memories

    with stack_code(base), embedded_stack() as home, connect(home, timeout=60) as conn:
        return import_memories(conn, memories, wait_embedded=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--baseline-tree", type=Path, required=True)
    parser.add_argument("--base-label", default="baseline")
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    results: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    for run in range(args.runs):
        for path, base in in_turn((("old", args.baseline_tree), ("new", None)), run):
            out = one_import(base, _turns(args.memories))  # new ids each run: a fresh stack anyway
            if not out["embedded"]:
                raise SystemExit(f"run {run} {path}: not every vector applied: {out}")
            results[path].append(out)
            print(f"run {run} {path}: {out}", flush=True)
    n = len(_turns(args.memories))
    rows = []
    old_s = median([r["seconds"] for r in results["old"]])
    for path, label in (("old", args.base_label), ("new", "this tree")):
        seconds = median([r["seconds"] for r in results[path]])
        runs = ", ".join(f"{r['seconds']:.1f}" for r in results[path])
        rows.append(
            f"| {label} | {n:,} | {runs} | {seconds:.1f} | {n / seconds:.0f} | {old_s / seconds:.2f}x |"
        )
    body = (
        f"LoCoMo dev turns as `dialog` memories, imported until every dense vector is applied, medians of "
        f"{args.runs} alternating runs, each in a fresh `codememory up`.\n\n"
        "| stack | memories | runs s | median s | memories/s | against the baseline |\n"
        "|---|---|---|---|---|---|\n" + "\n".join(rows)
    )
    print(body)
    if not args.no_write:
        write_section("bench_dense_import", "Import with vectors of real conversation (LoCoMo turns)", body)


if __name__ == "__main__":
    main()
