"""Indexing rate: a repository's files -> SymbolsExtracted events, on 2 worker processes.

Corpora: (a) Django's source from its wheel (a plain directory: the .gitignore matcher walks it),
(b) a real git work tree (``git ls-files`` walks it), by default psf/requests. Baseline in the same
run: walking, reading and hashing the same files in one process, the floor any indexer pays. Also
measured: one process, and a re-index where every content hash is already known (all skipped).
Medians of ``--runs`` runs of wall time, and of CPU time (parent + workers), because on a shared
machine wall time measures the neighbours as much as the indexer. Peak RSS of parent and largest worker.

    .venv/bin/pip download django --no-deps -d /tmp/dl && unzip -q /tmp/dl/Django-*.whl -d /tmp/django_src
    git clone <bare mirror of psf/requests> /tmp/requests
    .venv/bin/python benchmarks/bench_index.py [--django /tmp/django_src] [--git-repo /tmp/requests]

``--end-to-end`` (issue 14 item 3) measures ``codememory index`` of the Django corpus instead: parse,
RecordCode, and every fact applied to the code graph and code search (RecordCode returns then), on a
real stack (``codememory up`` in a temporary home), embeddings excluded (the embed service embeds the
symbols afterwards, in a niced thread; it runs in the same process). Baselines in the same run: parsing
alone, and with ``--baseline DIR`` the same index by the code of a checkout in DIR (on ``PYTHONPATH``,
e.g. ``git archive <commit> | tar -x -C DIR``), alternating with this code. ``--before`` cites a figure.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import median, write_section

from codememory.code.indexer import index_repository
from codememory.code.summary import IndexSummary
from codememory.code.walk import walk_repository
from codememory.events import SymbolsExtracted

Timing = tuple[float, float]  # (wall seconds, CPU seconds)
summary_hashes: dict[str, str] = {}
peak_rss_mb: list[float] = [0.0]


def _baseline(root: Path) -> Timing:
    wall, cpu = time.perf_counter(), time.process_time()
    for found in walk_repository(root):
        hashlib.sha256(found.absolute.read_bytes()).hexdigest()
    return time.perf_counter() - wall, time.process_time() - cpu


def _index(root: Path, workers: int, known: dict[str, str], summary: IndexSummary) -> Timing:
    """One run; the content hashes it saw are left in ``summary_hashes`` for the re-index run."""
    wall, cpu = time.perf_counter(), time.process_time()
    for event in index_repository(root, "bench", known, workers=workers, summary=summary):
        if isinstance(event, SymbolsExtracted):
            summary_hashes[event.path] = event.content_hash
    parent_cpu = time.process_time() - cpu
    pooled = summary.worker_processes > 0  # in process, the extraction CPU is already the parent's
    return time.perf_counter() - wall, parent_cpu + (summary.worker_cpu_seconds if pooled else 0.0)


def _median(runs: int, run: Callable[[], Timing]) -> Timing:
    timings = [run() for _ in range(runs)]
    return median([t[0] for t in timings]), median([t[1] for t in timings])


def _corpus(name: str, root: Path, runs: int) -> tuple[list[str], str]:
    files = sum(1 for _ in walk_repository(root))  # also warms the page cache
    base = _median(runs, lambda: _baseline(root))
    summary = IndexSummary()

    def fresh(workers: int) -> Timing:
        nonlocal summary
        summary = IndexSummary()
        timing = _index(root, workers, {}, summary)
        peak_rss_mb[0] = max(peak_rss_mb[0], summary.peak_rss_mb)
        return timing

    one = _median(runs, lambda: fresh(1))
    two = _median(runs, lambda: fresh(2))
    known = dict(summary_hashes)
    again = _median(runs, lambda: _index(root, 2, known, IndexSummary()))
    symbols = summary.symbols

    def row(run: str, timing: Timing, with_symbols: bool = True) -> str:
        wall, cpu = timing
        per_symbol = f"{symbols / wall:,.0f}" if with_symbols else ""
        return (
            f"| {name} | {run} | {files / wall:,.0f} | {per_symbol} | {wall:.2f} | {wall / base[0]:.1f} "
            f"| {files / cpu:,.0f} |"
        )

    rows = [
        row("baseline: walk + read + sha256, 1 process", base, with_symbols=False),
        row("index, 2 workers", two),
        row("index, 1 process", one),
        row("re-index, all hashes known, 2 workers", again, with_symbols=False),
    ]
    langs = ", ".join(f"{lang} {n}" for lang, n in summary.parsed_by_language.most_common())
    other = ", ".join(f"{lang} {n}" for lang, n in summary.degraded_by_language.most_common())
    line = (
        f"{name}: {files} files; parsed {langs}; file node only {other}; {summary.symbols} symbols, "
        f"{summary.imports} imports, {summary.refs} references"
    )
    print(line)
    for found in rows:
        print(found)
    return rows, line


def _pythonpath(source: Path) -> str:
    """What puts the code of a checkout at ``source`` ahead of this tree's (libs, apps, each service)."""
    services = sorted(str(d) for d in (source / "services").iterdir() if d.is_dir())
    return os.pathsep.join([*services, str(source / "libs"), str(source / "apps")])


def _index_on_stack(root: Path, pythonpath: str) -> tuple[float, int]:
    """``codememory index`` of ``root`` into a fresh stack: (wall seconds, facts recorded)."""
    import json
    import subprocess

    from bench_event_path import embedded_stack

    saved = os.environ.get("PYTHONPATH")
    if pythonpath:
        os.environ["PYTHONPATH"] = pythonpath  # the stack and the client both run that code
    try:
        with embedded_stack():
            codememory = Path(sys.executable).parent / "codememory"
            started = time.perf_counter()
            done = subprocess.run(
                [str(codememory), "index", str(root), "--repo", "bench-index", "--json"],
                capture_output=True,
                text=True,
                env=os.environ.copy(),
            )
            wall = time.perf_counter() - started
            if done.returncode != 0:
                sys.exit(f"codememory index failed: {done.stderr[-2000:]}")
            return wall, int(json.loads(done.stdout)["recorded"])
    finally:
        if pythonpath:
            if saved is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = saved


def end_to_end(root: Path, runs: int, before: str, baseline: Path | None, label: str) -> None:
    """``codememory index`` of ``root`` into a fresh stack per run, against parsing alone and, with
    ``baseline`` (a checkout of the code before a change), the same index by that code, alternating."""
    files = sum(1 for _ in walk_repository(root))
    parse = _median(runs, lambda: _index(root, 2, {}, IndexSummary()))
    timings: list[float] = []
    before_timings: list[float] = []
    recorded = 0
    for _ in range(runs):
        if baseline is not None:
            before_timings.append(_index_on_stack(root, _pythonpath(baseline))[0])
        wall, recorded = _index_on_stack(root, "")
        timings.append(wall)
    wall = median(timings)
    rows = [
        "| path | files | seconds | files/s | vs parsing alone |",
        "|---|---|---|---|---|",
        f"| parsing alone (2 worker processes, nothing sent) | {files:,} | {parse[0]:.2f} "
        f"| {files / parse[0]:,.0f} | 1.00x |",
        f"| `codememory index`: parse, RecordCode, applied to graph and code search | {files:,} | {wall:.2f} "
        f"| {files / wall:,.0f} | {wall / parse[0]:.2f}x the time |",
    ]
    if before_timings:
        old = median(before_timings)
        rows.append(
            f"| the same by the code before ({label or baseline} on `PYTHONPATH`) | {files:,} | {old:.2f} "
            f"| {files / old:,.0f} | {old / parse[0]:.2f}x the time |"
        )
    note = (
        f"Corpus: {root} ({files:,} files, {recorded:,} facts recorded), medians of {runs} runs "
        f"(each: {', '.join(f'{t:.1f}' for t in timings)} s"
        + (f"; before: {', '.join(f'{t:.1f}' for t in before_timings)} s" if before_timings else "")
        + "), a fresh stack per run, the two codes alternating. Target (issue 14): 300 files/s. "
        + (f"Before: {before}." if before else "")
    )
    body = "\n".join([*rows, "", note])
    print(body)
    write_section(
        "bench_index_e2e", "Code indexing end to end (`codememory index`, embeddings excluded)", body
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--django", type=Path, default=Path("/tmp/django_src"))
    parser.add_argument("--git-repo", type=Path, default=Path("/tmp/requests"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--note", default="")
    parser.add_argument("--end-to-end", action="store_true", help="codememory index on a real stack")
    parser.add_argument("--before", default="", help="the figure measured before a change, to cite")
    parser.add_argument("--baseline", type=Path, help="a checkout of the code before a change (end to end)")
    parser.add_argument("--baseline-label", default="", help="what --baseline is, e.g. its commit")
    args = parser.parse_args()
    if args.end_to_end:
        end_to_end(args.django, args.runs, args.before, args.baseline, args.baseline_label)
        return
    rows: list[str] = []
    lines: list[str] = []
    load_before = os.getloadavg()[0]
    corpora = (("django 5.2 (wheel source)", args.django), (f"{args.git_repo.name} (git)", args.git_repo))
    for name, root in corpora:
        if not root.is_dir():
            sys.exit(f"missing corpus {root}: see this script's docstring")
        summary_hashes.clear()
        found, line = _corpus(name, root, args.runs)
        rows.extend(found)
        lines.append(f"- {line}")
    parent = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    worker = peak_rss_mb[0]
    load_after = os.getloadavg()[0]
    print(f"peak RSS: parent {parent:.0f} MB, largest worker {worker:.0f} MB")
    print(f"load average {load_before:.1f} -> {load_after:.1f}")
    body = "\n".join(
        [
            "| corpus | run | files/s | symbols/s | seconds | time / baseline | files per CPU-second |",
            "|---|---|---|---|---|---|---|",
            *rows,
            "",
            *lines,
            "",
            f"Peak RSS: parent {parent:.0f} MB (incl. the 1-process runs), largest worker {worker:.0f} MB.",
            f"Medians of {args.runs} runs. 1-minute load average {load_before:.1f} before, "
            f"{load_after:.1f} after, on 2 cores. {args.note}".strip(),
        ]
    )
    write_section("bench_index", "Code indexing rate (tree-sitter, 2 workers)", body)


if __name__ == "__main__":
    main()
