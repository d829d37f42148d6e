"""Recall with one tenant of up to a million memories: p50/p99 over gRPC, gateway memory, shard open time.

The memories go through the gateway's real projection: ``memory.stored`` and ``memory.embedded``
envelopes folded by ``MemoryProjection`` (payloads, session context, code-aware BM25 vectors on the
replay's ``TermsPool``) into a Qdrant Edge shard laid out as the gateway's generation 1, then its HNSW
built (what a replay does). Embedding a million texts with the model would take about an hour here,
so the stored vectors are made as follows, and said so in RESULTS.md: ``--base`` real texts (LoCoMo
dialogue turns and observations, CoSQA code, this repository's documentation paragraphs) are
embedded by the real model (all-MiniLM-L6-v2); memory ``i`` is base text ``i % base`` plus a line of
its own (repository, ticket number), and its vector the base vector plus Gaussian noise, renormalised
to a cosine of about 0.85 with it (a near-paraphrase). Memories come in sessions of 20 over a year.

For each size, a separate process plays the restarted gateway: it loads the query model as the
gateway does (``configured_query_model``: ONNX Runtime by default), opens the shard as the gateway
does (``IndexGenerations.projection``, payload cache included; timed), and serves Recall over gRPC.
This process sends real questions (LoCoMo questions, CoSQA queries) with the query embedding done by
the server, and reads the server's peak resident memory (VmHWM) afterwards. Sizes grow in one shard:
the second size adds memories to the first one's.

    .venv/bin/python benchmarks/bench_million.py [--sizes 100000 300000] [--base 12000] [--queries 300]

A million memories take longer to fill than one run under the shared lock should, so the fill can be
kept and resumed: ``--data-dir DIR`` keeps the shard there (the fill continues from the memories it
already holds, in whole sessions), ``--fill-seconds S`` stops folding after about S seconds (the HNSW is
built for what was folded), and ``--measure-only`` serves and measures the shard as it is. The base
texts' vectors are cached beside it (``--vectors``), so a resumed run does not embed them again:

    .venv/bin/python benchmarks/bench_million.py --data-dir /tmp/cm-million --sizes 1000000 --fill-seconds 240
    .venv/bin/python benchmarks/bench_million.py --data-dir /tmp/cm-million --sizes 1000000 --measure-only

``--variant NAME:KEY=VALUE,...`` serves the kept shard again with those settings (e.g.
``ef64:CODEMEMORY_GATEWAY_HNSW_EF=64``; ``NAME@DIR:...`` serves the kept shard DIR instead, e.g. a copy
whose payload indexes differ) and reports how many of the configured top-10 each keeps;
``--profile FILE`` serves it once more under py-spy (``PY_SPY`` names it when not on PATH);
``--stages`` times each step of recall and each engine call in process instead (``million_stages``).

``--baseline-code CHECKOUT`` serves the kept shard (and each ``--against``) with another checkout's
code (its own ``.venv``, e.g. main's HEAD from ``git archive``) in turns with this one, ``--rounds``
times: latency, memory, open time, and how many top-10 lists are exactly the baseline's.

``--layout disk`` fills a new shard in that layout (``vectorstore.layout``; a kept shard keeps the one
it recorded); ``--against DIR`` serves another kept shard of the same memories (e.g. the ``ram``
layout's) in turns with this one and reports how many of its top-10 this one keeps. ``--relayout
FROM --layout int8`` makes ``--data-dir`` a copy of the kept shard FROM with its segments rebuilt in
that layout (the engine rebuilds a segment whose storage differs from the one it is opened with):
the same memories, without filling again. Payload indexes keep the placement they were made with.

    .venv/bin/python benchmarks/bench_million.py --data-dir /tmp/cm-million-int8 --relayout /tmp/cm-million \
        --layout int8 --sizes 1000000 --against /tmp/cm-million
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from million_compare import against_code, compare
from million_data import COSINE, SESSION, base_vectors, fill, filled, questions, real_texts, relayout
from million_serving import REFERENCE, measure, serve
from million_stages import stages, stages_table
from results import write_section

FIRST_S = 0.003  # a guess for the first size (fill, HNSW, queries) before one was measured


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 300_000])
    parser.add_argument("--base", type=int, default=12_000, help="real texts embedded by the model")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument(
        "--stop-by", type=float, default=0.0, help="epoch seconds: skip sizes that would end later"
    )
    parser.add_argument("--data-dir", type=Path, help="keep the shard here and resume its fill")
    parser.add_argument("--fill-seconds", type=float, default=0.0, help="fold for about this long, then stop")
    parser.add_argument("--measure-only", action="store_true", help="serve and measure the kept shard")
    parser.add_argument("--vectors", type=Path, default=Path(tempfile.gettempdir()) / "cm-million-base.npz")
    parser.add_argument("--no-write", action="store_true", help="print, leave RESULTS.md alone")
    parser.add_argument(
        "--variant", action="append", default=[], help="NAME[@DIR]:KEY=VALUE,...: serve with these too"
    )
    parser.add_argument("--rounds", type=int, default=2, help="turns of the configured and each variant")
    parser.add_argument("--profile", type=Path, help="then serve once more under py-spy, stacks here")
    parser.add_argument(
        "--layout", default="", help="a new shard's layout (int8, ram, disk; empty: the gateway's default)"
    )
    parser.add_argument(
        "--against", type=Path, action="append", help="a kept shard of the same memories, served in turns"
    )
    parser.add_argument("--relayout", type=Path, help="a kept shard: copied to --data-dir in --layout")
    parser.add_argument(
        "--baseline-code",
        type=Path,
        help="a checkout (with its .venv) serving the kept shards in turns with this one: the baseline",
    )
    parser.add_argument(
        "--stages", action="store_true", help="time each recall step of the kept shard in process, and stop"
    )
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.serve / "ready.json")
        return
    if args.stages and not args.data_dir:
        parser.error("--stages times a kept shard: give its --data-dir")
    asked = questions(args.queries)
    if args.data_dir and args.stages:
        print(stages_table(stages(args.data_dir, asked)), flush=True)
        return
    if args.data_dir and args.baseline_code:  # serves kept shards only: no base vectors needed
        against_code(args.baseline_code, [args.data_dir, *(args.against or [])], asked, args.rounds)
        return
    texts = real_texts(args.base)
    vectors, model_id, embed_s = base_vectors(texts, args.vectors)
    skipped: list[int] = []
    rows = [
        "| memories | recall p50 ms | p99 ms | in the servicer p50 | first recall after restart ms "
        "| shard open s | gateway peak RSS GiB | of it now: anonymous / mapped files GiB | fold events/s "
        "| HNSW build s | one query's embedding alone ms (the machine's speed) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    done: list[str] = []
    if args.data_dir:
        if args.relayout and not args.data_dir.exists():
            relayout(args.relayout, args.data_dir, args.layout)
        args.data_dir.mkdir(parents=True, exist_ok=True)
        kept(args, args.data_dir, texts, vectors, model_id, asked, rows, embed_s)
        return
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_TMP")) as tmp:
        data_dir, done_count, spent = Path(tmp), 0, 0.0
        for size in sorted(args.sizes):
            # the last size's seconds per memory, a third more for the larger HNSW: skip what cannot finish
            needed = spent / done_count * (size - done_count) * 1.33 if done_count else size * FIRST_S

            if args.stop_by and time.time() + needed > args.stop_by:
                skipped.append(size)
                continue
            t0 = time.time()
            f = fill(data_dir, size, texts, vectors, model_id, layout=args.layout)
            m = measure(data_dir, asked)
            spent, done_count = spent + time.time() - t0, size
            done.append(_row(size, m, f))
            print(done[-1], flush=True)
            _write(args, rows + done, texts, embed_s, skipped)
    if skipped and done:
        _write(args, rows + done, texts, embed_s, skipped)


def _row(size: int, m: dict[str, float], f: dict[str, float]) -> str:
    cells = [f"{size:,}", f"{m['p50']:.1f}", f"{m['p99']:.1f}", f"{m['server_p50']:.1f}",
             f"{m['first_ms']:.0f}", f"{m['open_s']:.2f}", f"{m['peak_gib']:.2f}",
             f"{m['anon_gib']:.2f} / {m['file_gib']:.2f}",
             f"{f['events'] / f['fold_s']:,.0f}", f"{f['hnsw_s']:.0f}", f"{m['embed_ms']:.2f}"]  # fmt: skip
    return "| " + " | ".join(cells) + " |"


def kept(
    args: argparse.Namespace,
    data_dir: Path,
    texts: list[str],
    vectors: np.ndarray,
    model_id: str,
    asked: list[str],
    rows: list[str],
    embed_s: float,
) -> None:
    """The shard kept in ``data_dir``: filled (resumed) towards the largest size, measured once it
    holds it; the fill's figures summed over its runs in ``fill.json``."""
    size = max(args.sizes)
    totals_file = data_dir / "fill.json"
    totals = json.loads(totals_file.read_text()) if totals_file.is_file() else {}
    if not args.measure_only and filled(data_dir) < size:
        f = fill(data_dir, size, texts, vectors, model_id, args.fill_seconds, args.layout)
        totals = {k: totals.get(k, 0.0) + f[k] for k in ("fold_s", "events", "hnsw_s", "fill_s")}
        totals["fill_peak_gib"] = max(
            totals.get("fill_peak_gib", 0.0), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
        )
        totals_file.write_text(json.dumps(totals))
        print(f"filled {filled(data_dir):,} of {size:,}: {json.dumps(f)}", flush=True)
        if filled(data_dir) < size:
            return
    m: dict[str, float] | None = None
    if not (args.variant or args.against) or totals.get("measured") != filled(data_dir):
        m = measure(data_dir, asked)
        print(json.dumps({k: v for k, v in m.items() if k not in ("hits", "bases")}), flush=True)
        row = _row(filled(data_dir), m, totals) if totals else str(m["p50"])
        print(row, flush=True)
        if not args.no_write and totals:
            _write(args, [*rows, row], texts, embed_s, [], totals.get("fill_peak_gib"))
            totals_file.write_text(json.dumps({**totals, "measured": filled(data_dir), "row": row}))
    if args.variant or args.against:
        compare(data_dir, asked, args.variant, args.rounds, m, args.against)
    if args.profile:
        os.environ["BENCH_PYSPY"] = str(args.profile)
        profiled = measure(data_dir, asked)
        print(
            "profiled:",
            json.dumps({k: v for k, v in profiled.items() if k not in ("hits", "bases")}),
            flush=True,
        )


def _write(
    args: argparse.Namespace,
    rows: list[str],
    texts: list[str],
    embed_s: float,
    skipped: list[int],
    fill_peak: float | None = None,
) -> None:
    if args.no_write:  # the rows were printed as they were measured
        return
    if fill_peak is None:
        fill_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    left_out = (
        " Not measured in this run (would not have finished in the session's time): "
        + ", ".join(f"{size:,}" for size in skipped)
        + "."
        if skipped
        else ""
    )
    body = "\n".join(rows) + (
        f"\n\nOne tenant; {args.queries} questions (LoCoMo questions and CoSQA queries) over gRPC, 10 hits, "
        "the query embedded by the server (ONNX Runtime, the gateway's default), after 20 warm-up queries. "
        "The serving process is a restarted gateway's serving path in its own process: query model and "
        "shard opened as the gateway opens them (payload cache on), Recall over gRPC; its peak RSS is VmHWM "
        f"after the queries. Vectors: {len(texts):,} real texts embedded by all-MiniLM-L6-v2 "
        f"({embed_s:.0f} s); "
        f"memory i is text i mod {len(texts):,} plus its own line (repository, ticket), its vector that "
        f"text's vector plus Gaussian noise, renormalised to a cosine of about {COSINE} with it. Memories "
        f"were folded by the gateway's projection (sessions of {SESSION}, lexical vectors on the replay's "
        f"worker pool), sizes growing in one shard. Peak RSS of the filling process: {fill_peak:.2f} GiB. "
        "The last column is the machine's speed: one question embedded alone by the serving process's "
        f"query model before the shard opens (median of {REFERENCE}); figures of different days compare by "
        "their ratio to it. Targets at 1,000,000: p50 <= 25 ms, p99 <= 60 ms, gateway RSS <= 4 GiB."
        + left_out
    )
    write_section("bench_million", "Recall at a million memories in one tenant", body)


if __name__ == "__main__":
    main()
