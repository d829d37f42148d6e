"""How long a memory waits for its dense vector while a repository's symbols are being embedded.

``codememory index`` of a repository returns once its facts are in the code graph; the embed service
then embeds every symbol, minutes of work on two cores. A memory stored meanwhile should not wait for
that. Each path is a real ``codememory up`` in a temp home: one memory is stored and timed until
Recall scores it by its dense vector while idle, then the tree is indexed and ``--probes`` memories
are timed the same way, ``--gap`` seconds apart, during the backlog.
The baseline is the same stack from another source tree (``--baseline-tree``, a ``git archive`` of
the commit before), as ``bench_import_rate`` runs it; runs alternate old, new, then new, old
(``results.in_turn``).

    .venv/bin/python benchmarks/bench_embed_backlog.py --baseline-tree /tmp/base [--tree DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_event_path import embedded_stack
from bench_import_rate import stack_code
from results import in_turn, median, write_section


def _default_tree() -> Path:
    import networkx  # installed with torch: pure Python, 580 files

    return Path(networkx.__file__).parent


def _probe(conn: Any, repo: str, i: int, timeout: float) -> float:
    """Seconds from storing one memory until Recall scores it with its dense vector."""
    from codememory.v1 import memory_pb2 as pb

    text = f"probe {i}: the release job runs on a tagged commit only"
    request = pb.StoreRequest(
        memory_id=str(uuid.uuid4()), text=text, type="decision", scope=pb.Scope(repo=repo)
    )
    started = time.perf_counter()
    conn.stub.Store(request, metadata=conn.metadata, timeout=30)
    query = pb.RecallRequest(query=text, repo=repo, limit=5)
    while time.perf_counter() - started < timeout:
        hits = conn.stub.Recall(query, metadata=conn.metadata, timeout=30).hits
        if any(h.memory.id == request.memory_id and h.score.dense > 0 for h in hits):
            return time.perf_counter() - started
        time.sleep(0.05)
    raise SystemExit(f"probe {i} had no dense vector after {timeout:.0f} s")


def _drained(conn: Any, started: float, timeout: float = 1800) -> float:
    """Seconds from the index's start until the embed service has nothing left (every durable)."""
    from codememory.v1 import memory_pb2 as pb

    while time.perf_counter() - started < timeout:
        status = conn.stub.Status(pb.StatusRequest(), metadata=conn.metadata, timeout=30)
        embed = [c for c in status.consumers if c.service == "embed"]
        if embed and all(c.pending == 0 and c.ack_pending == 0 for c in embed):
            return time.perf_counter() - started
        time.sleep(1.0)
    raise SystemExit("the embed service did not drain its backlog")


def one_run(base: Path | None, tree: Path, files: int, probes: int, gap: float) -> dict[str, Any]:
    from codememory.cli.client import connect

    with (
        stack_code(base),
        tempfile.TemporaryDirectory() as tmp,
        embedded_stack() as home,
        connect(home, timeout=60) as conn,
    ):
        copy = Path(tmp) / "repo"
        for source in sorted(tree.rglob("*.py"))[:files]:
            target = copy / source.relative_to(tree)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        idle = _probe(conn, "probe", -1, 120)
        env = {**os.environ, "CODEMEMORY_HOME": str(home)}
        env.pop("PYTHONPATH", None)  # the index client is this tree's; the stack is the path's
        started = time.perf_counter()
        codememory = Path(sys.executable).parent / "codememory"
        subprocess.run([str(codememory), "index", str(copy)], env=env, check=True, capture_output=True)
        indexed = time.perf_counter() - started
        during = []
        for i in range(probes):
            time.sleep(gap)
            during.append(_probe(conn, "probe", i, 900))
        return {"idle": idle, "during": during, "index_s": indexed, "drained_s": _drained(conn, started)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--baseline-tree", type=Path, required=True)
    parser.add_argument("--base-label", default="baseline")
    parser.add_argument("--tree", type=Path, default=None, help="the repository indexed (default: networkx)")
    parser.add_argument("--files", type=int, default=100, help="the first N Python files of the tree")
    parser.add_argument("--probes", type=int, default=5)
    parser.add_argument("--gap", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    tree = args.tree or _default_tree()
    files = min(args.files, sum(1 for _ in tree.rglob("*.py")))
    results: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    for run in range(args.runs):
        for path, base in in_turn((("old", args.baseline_tree), ("new", None)), run):
            out = one_run(base, tree, files, args.probes, args.gap)
            results[path].append(out)
            shown = ", ".join(f"{s:.1f}" for s in out["during"])
            print(f"run {run} {path}: idle {out['idle']:.2f} s, during the backlog {shown} s", flush=True)
    rows = []
    for path, label in (("old", args.base_label), ("new", "this tree")):
        for out in results[path]:
            probes = ", ".join(f"{x:.1f}" for x in out["during"])
            rows.append(
                f"| {label} | {out['idle']:.2f} | {probes} | {out['index_s']:.1f} | {out['drained_s']:.0f} |"
            )
    medians = {
        path: (median([r["during"][0] for r in runs]), median([s for r in runs for s in r["during"]]))
        for path, runs in results.items()
    }
    body = (
        f"`python benchmarks/bench_embed_backlog.py --baseline-tree {args.baseline_tree} --runs {args.runs} "
        f"--files {args.files} --probes {args.probes} --gap {args.gap}`: the first {files} Python files of "
        f"`{tree.name}` indexed, then {args.probes} memories stored one after another, {args.gap} s "
        "apart, each timed from its Store until Recall scores it by its dense vector, in a fresh "
        "`codememory up` per run.\n\n"
        "| stack | one memory, idle s | each memory after `codememory index` returned, in order s | index s "
        "| every symbol embedded after s |\n|---|---|---|---|---|\n" + "\n".join(rows) + "\n\n"
        f"First memory after the index, median: {args.base_label} {medians['old'][0]:.1f} s, this tree "
        f"{medians['new'][0]:.1f} s; all memories after it, median: {medians['old'][1]:.1f} s against "
        f"{medians['new'][1]:.1f} s."
    )
    print(body)
    if not args.no_write:
        write_section(
            "bench_embed_backlog", "A memory's vector while a repository's symbols are embedded", body
        )


if __name__ == "__main__":
    main()
