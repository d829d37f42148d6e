"""What exporting a tenant costs the gateway: seconds and peak resident memory, streamed against one list.

``python benchmarks/bench_export.py --data-dir DIR [--rounds N] [--no-write]`` on a shard kept by
``bench_million.py --data-dir DIR`` (its memories are tenant ``bench``). The shard is opened as the
gateway opens it (payload cache included, ``million_serving.open_memory``) in a child process per way,
since peak resident memory is a process's:

- ``stream``: ``gateway.exporting.exported``, what ``GatewayCore.export`` serves (two passes: sorted
  keys, then payloads read back in batches);
- ``list``: every payload read into one list and sorted, the way export worked before 2026-12-07,
  measured in the same run as the baseline.

Both count the rows they would send (the gRPC stream itself is left out) and must count the same.
Medians over the rounds, the two ways alternating (``results.in_turn``). Section ``bench_export``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from results import in_turn, median, write_section

TENANT = "bench"  # the tenant bench_million's memories belong to
WAYS = ("stream", "list")


def _peak_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def child(data_dir: Path, way: str) -> dict[str, float]:
    """Open the shard, export its tenant ``way``, and report rows, seconds and peak RSS before/after."""
    from million_serving import open_memory

    from codememory.embedding.minilm import MINILM_MODEL_ID
    from codememory.gateway.exporting import exported
    from codememory.gateway.settings import GatewaySettings
    from codememory.memory import LIVE_STATES
    from codememory.vectorstore import IndexFilter

    memory = open_memory(data_dir, GatewaySettings.from_env(), MINILM_MODEL_ID)
    opened = _peak_gib()
    t0 = time.perf_counter()
    if way == "stream":

        async def count() -> int:
            return sum([1 async for _ in exported(lambda: memory.index, TENANT)])

        rows = asyncio.run(count())
    else:
        flt = IndexFilter(equals={"tenant": TENANT}, any_of={"state": list(LIVE_STATES)})
        listed = [dict(p.payload) for p in memory.index.scroll(flt) if p.payload.get("tenant") == TENANT]
        listed.sort(key=lambda row: (float(str(row.get("created_at", 0.0))), str(row.get("memory_id"))))
        rows = len(listed)
    seconds = time.perf_counter() - t0
    memory.index.close()
    return {"rows": rows, "seconds": seconds, "opened_gib": opened, "peak_gib": _peak_gib()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, required=True, help="a shard kept by bench_million.py")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md alone")
    parser.add_argument("--child", choices=WAYS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.data_dir, args.child)), flush=True)
        return
    runs: dict[str, list[dict[str, float]]] = {way: [] for way in WAYS}
    for turn in range(args.rounds):
        for way in in_turn(WAYS, turn):
            command = [sys.executable, __file__, "--data-dir", str(args.data_dir), "--child", way]
            out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            runs[way].append(json.loads(out.strip().splitlines()[-1]))
            print(way, runs[way][-1], flush=True)
    counts = {int(r["rows"]) for rs in runs.values() for r in rs}
    assert len(counts) == 1, f"the two ways exported different counts: {counts}"
    lines = [
        "| export | memories | seconds | peak RSS once opened GiB | peak RSS after GiB | added GiB |",
        "|---|---|---|---|---|---|",
    ]
    for way in WAYS:
        rs = runs[way]
        opened, peak = median([r["opened_gib"] for r in rs]), median([r["peak_gib"] for r in rs])
        lines.append(
            f"| {way} | {int(rs[0]['rows']):,} | {median([r['seconds'] for r in rs]):.1f}"
            f" | {opened:.2f} | {peak:.2f} | +{peak - opened:.2f} |"
        )
    table = "\n".join(lines)
    print(table)
    if not args.no_write:
        body = (
            f"{table}\n\nMedians of {args.rounds} round(s), each way in its own process on the kept shard "
            f"{args.data_dir} (tenant `{TENANT}`, payload cache as the gateway's). `stream` is what the "
            "gateway serves; `list` reads every payload into one list first, as export did before 2026-12-07."
        )
        write_section("bench_export", "Export of a tenant: the gateway's time and peak memory", body)


if __name__ == "__main__":
    main()
