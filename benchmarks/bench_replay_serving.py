"""Replay until the rebuilt projection serves, and until its HNSW is swapped in, against the old tree.

LOG (JetStream, real nats-server) holds N memories as ``memory.stored`` + ``memory.embedded`` pairs
(384-d vectors, as ``bench_replay.fill_log`` writes them); no model runs. In the same run, on the same
LOG, one after the other, each in a process of its own:

- base: the tree at ``--base`` (``git worktree add /tmp/replay10k-base 465e381``) on ``PYTHONPATH``:
  ``rebuild_memory`` as it was (fold, then the HNSW built before the swap), fold and HNSW timed apart;
- head: ``Replayer`` of the tree at ``--base`` (its ``_now`` path run on the old tree's modules: e.g. main's
  HEAD, to compare a change with), labelled ``--base-label``;
- now: this tree's ``Replayer`` as the gateway runs it (``serve_first``): the fold swapped in unindexed
  (recall scans exactly), the HNSW built by a child on a copy and swapped in after (``indexbuild``).
  While it builds, dense searches (a stored vector plus noise, the tenant filter) are timed on the
  serving index, and again on the indexed one: how often their first hits agree is the HNSW's cost.

Both rebuilt projections' digests must be equal (the base's shard is digested here afterwards with
this tree's ``index_digest``; now's by the build child; ``--no-digest`` skips the base's).
``--nats-dir`` keeps LOG between runs; ``--serving-only`` stops the now path once it serves (the HNSW
build abandoned: a shorter locked run at 1M). ``--paths`` picks some of base,head,now. ``--sealed``: LOG
filled sealed, as ``codememory up`` writes it (a key per memory in a ``FileKeyStore`` at ``<nats-dir>/keys``;
the vectors packed float32 inside ``sealed_vector``), and every path opens it with that key store.

    .venv/bin/python benchmarks/bench_replay_serving.py --memories 50000 [--base /tmp/replay10k-base]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay_paths import PACKAGES, QUERIES, fill, worker
from results import in_turn, median, write_section

from codememory.runtime.natsd import NatsServer
from codememory.vectorstore import EdgeVectorIndex, IndexFilter, index_digest


def _spawn(kind: str, url: str, where: Path, base: Path) -> dict[str, object]:
    env = dict(os.environ)
    if kind in ("base", "head"):  # the old tree first on the path: its modules win (namespace packages)
        env["PYTHONPATH"] = ":".join(str(base / p) for p in PACKAGES)
    command = [sys.executable, __file__, "--worker", kind, "--url", url, "--where", str(where)]
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    if out.returncode != 0 or not lines:
        raise SystemExit(f"{kind} failed ({out.returncode}):\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}")
    return json.loads(lines[-1][7:])  # type: ignore[no-any-return]


def _rows(r: dict[str, dict[str, float]], events: int, label: str) -> list[str]:
    rows = [
        "| path | events | fold s | fold events/s | memory recall served by the rebuild after s (events/s) "
        "| both projections (code graphs too) after s (events/s) | HNSW swapped in after s (events/s) |",
        "|---|---|---|---|---|---|---|",
    ]

    def cell(seconds: float) -> str:
        return f"{seconds:.2f} ({events / seconds:,.0f})" if seconds else "not measured"

    if "base" in r:
        b = r["base"]
        total = b["fold_s"] + b["hnsw_s"]
        rows.append(
            f"| base ({label}): HNSW built before the swap (replay's code rebuild not run here) | {events:,} "
            f"| {b['fold_s']:.2f} | {events / b['fold_s']:,.0f} | {cell(total)} | | {cell(total)} |"
        )
    if "head" in r:
        h = r["head"]
        rows.append(
            f"| {label}: its `Replayer`, as that tree runs it | {events:,} "
            f"| {h['fold_s']:.2f} | {events / h['fold_s']:,.0f} | {cell(h['memory_s'])} "
            f"| {cell(h['serving_s'])} | {cell(h.get('index_s', 0.0))} |"
        )
    if "now" in r:
        n = r["now"]
        rows.append(
            f"| now: `Replayer`, one LOG read for both folds, serving once folded, HNSW built apart "
            f"| {events:,} "
            f"| {n['fold_s']:.2f} | {events / n['fold_s']:,.0f} | {cell(n['memory_s'])} "
            f"| {cell(n['serving_s'])} | {cell(n.get('index_s', 0.0))} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=50_000)
    parser.add_argument("--base", type=Path, default=Path("/tmp/replay10k-base"))
    parser.add_argument("--paths", default="base,now")
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        help="each path this many times, alternating, every other turn backwards",
    )
    parser.add_argument("--base-label", default="base", help="how the rows name the tree at --base")
    parser.add_argument("--nats-dir", type=Path, default=None, help="keep LOG here between runs")
    parser.add_argument("--fill-only", action="store_true", help="fill LOG (--nats-dir) and stop")
    parser.add_argument("--no-digest", action="store_true", help="skip the digests (a full scroll each)")
    parser.add_argument("--no-write", action="store_true", help="print only (while iterating)")
    parser.add_argument("--section", default="bench_replay_serving", help="RESULTS.md section name")
    parser.add_argument("--serving-only", action="store_true", help="now: stop once serving (no HNSW)")
    parser.add_argument("--sealed", action="store_true", help="LOG sealed, keys at <nats-dir>/keys")
    parser.add_argument("--worker", choices=("base", "head", "now"), help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--where", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.url, args.where)
        return
    paths = [p for p in args.paths.split(",") if p]
    if args.serving_only:
        os.environ["BENCH_SERVING_ONLY"] = "1"
    with tempfile.TemporaryDirectory() as tmp:
        store = args.nats_dir or Path(tmp) / "nats"
        with contextlib.ExitStack() as stack:
            server = NatsServer(store, sync_always=False).start(timeout=300)  # a kept 1M LOG is checked
            stack.callback(server.stop)
            started = time.perf_counter()
            if args.sealed:  # filled here and opened by each path's process with the same key store
                from bench_replay import seal_log

                os.environ["BENCH_KEYS"] = str(store / "keys")
                seal_log(store / "keys")
            events = asyncio.run(fill(server.url, args.memories, args.sealed))
            print(
                f"LOG: {events:,} events ({time.perf_counter() - started:.1f}s to fill or find)", flush=True
            )
            if args.fill_only:
                return
            digests: dict[str, str] = {}
            runs: dict[str, list[dict[str, float]]] = {}
            for turn in range(args.runs):  # the paths alternate, the order too (``in_turn``)
                for kind in in_turn(paths, turn):
                    where = Path(tmp) / f"{kind}-{turn}"
                    got = _spawn(kind, server.url, where, args.base)
                    print(kind, got, flush=True)
                    assert got["events"] == events, (kind, got["events"], events)
                    if kind in ("now", "head"):
                        if "digest" in got:  # not with --serving-only: no build, no digest
                            digests[f"{kind} {turn} (the child, on the indexed copy)"] = str(
                                got.pop("digest")
                            )
                    elif not args.no_digest:
                        shard = EdgeVectorIndex(where / "rebuilt", 384)
                        digests[f"base {turn} (its rebuilt shard)"] = index_digest(shard, IndexFilter())
                        shard.close()
                    runs.setdefault(kind, []).append({k: float(v) for k, v in got.items()})  # type: ignore[arg-type]
                    shutil.rmtree(where, ignore_errors=True)
            r = {kind: {k: median([g[k] for g in got]) for k in got[0]} for kind, got in runs.items()}
    same = len(set(digests.values())) <= 1
    print("digests", digests, "equal:", same, flush=True)
    rows = _rows(r, events, args.base_label)
    print("\n".join(rows), flush=True)
    if not same:
        raise SystemExit("the rebuilt projections differ")
    notes = []
    if "base" in r and "now" in r:
        b, n = r["base"], r["now"]
        notes.append(
            "Memory recall served by the rebuild: now / base "
            f"{(b['fold_s'] + b['hnsw_s']) / n['memory_s']:.2f}x "
            f"sooner"
            + (
                f"; the HNSW swapped in: {(b['fold_s'] + b['hnsw_s']) / n['index_s']:.2f}x"
                if "index_s" in n
                else ""
            )
        )
    if "head" in r and "now" in r:
        h, n = r["head"], r["now"]
        notes.append(
            f"Both projections served: now / {args.base_label} {h['serving_s'] / n['serving_s']:.2f}x sooner "
            f"({n['serving_s']:.2f} s against {h['serving_s']:.2f} s); memory recall served "
            f"{h['memory_s'] / n['memory_s']:.2f}x sooner"
        )
    if "now" in r and "index_s" in r["now"]:
        n = r["now"]
        notes.append(
            f"While the HNSW was built, a dense search (top 10, tenant filter) on the serving shard took "
            f"{n['exact_ms']:.1f} ms (exact scan), {n['indexed_ms']:.1f} ms on the indexed one; "
            f"the HNSW's first hit is the exact search's for {100 * n['top10_agree']:.0f}% "
            f"of {QUERIES} queries "
            "(a stored vector plus noise, cosine ~0.96 to it; the rest of a top 10 over random vectors is "
            "noise-level ties, so only the first hit is compared)"
        )
    digest_note = (
        f"every rebuilt projection has the same digest ({', '.join(digests)})"
        if digests
        else "digests not computed (--no-digest)"
    )
    body = (
        "\n".join(rows)
        + "\n\n"
        + "; ".join(notes)
        + f"; {digest_note}. {args.runs} run(s) each (medians), alternating, same LOG"
        + (", sealed (texts and vectors opened with a `FileKeyStore`)." if args.sealed else ".")
    )
    title = f"Replay to serving, then the HNSW ({args.memories:,} memories{', sealed' * args.sealed})"
    if not args.no_write:
        write_section(args.section, title, body)


if __name__ == "__main__":
    main()
