"""``codememory index`` and ``record-commit``: find code facts on this machine and record them.

Index streams a repository (unchanged files skipped by content hash, which the gateway reports, unless
the repository's source roots renamed their module: ``rootcache``), then optionally its git history
since the last commit recorded, as RecordCode streams of ``STREAM_FACTS`` facts, ``IN_FLIGHT`` of them
recorded while the next is parsed. The post-commit hook records HEAD and the
files it changed, read from the commit itself, so what is recorded is what was committed.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import msgspec
import typer

from codememory.cli.client import Connection
from codememory.cli.recording import known_hashes, last_commit, record, repository_of
from codememory.cli.render import print_json
from codememory.cli.rootcache import load_roots, save_roots, stale_paths
from codememory.code.roots import SourceRoots
from codememory.code.summary import IndexProgress
from codememory.codefacts import CodeFact
from codememory.events import FileDeleted
from codememory.settings import default_home

STREAM_FACTS = 1000  # facts per RecordCode stream (a file's symbols are one fact)
IN_FLIGHT = 2  # RecordCode streams at once: one applied while the next is checked and appended


def index_repository_into(
    conn: Connection, path: Path, repo: str, *, history: bool, workers: int, json_out: bool
) -> None:
    from codememory.code.discovery import discover_roots
    from codememory.code.indexer import index_repository, start_workers
    from codememory.code.summary import IndexSummary

    if workers > 1:
        start_workers()  # its imports overlap with finding the roots below
    name, root = repository_of(path)
    repo = repo or name
    started = time.perf_counter()
    summary = IndexSummary()
    known = known_hashes(conn, repo)
    roots = discover_roots(root)
    stale = stale_paths(load_roots(default_home(), repo), roots) if known else None
    facts = index_repository(
        root, repo, known, workers=workers, summary=summary, progress=_progress(), roots=roots, stale=stale
    )
    recorded = record_in_streams(conn, facts)
    save_roots(default_home(), repo, roots)
    commits = 0
    if history and (root / ".git").exists():
        commits = record_in_streams(conn, _history(conn, root, repo, roots))
        recorded += commits
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    report = {
        "repo": repo,
        "root": str(root),
        **summary.as_dict(),
        "commits": commits,
        "recorded": recorded,
        "roots": {"python": [d or "." for d, _ in roots.python], "declared_in": list(roots.sources)},
        "seconds": round(time.perf_counter() - started, 3),
    }
    if json_out:
        print_json(report)
        return
    typer.echo(summary.describe())
    if root != path.resolve():  # a directory inside a repository indexes the whole work tree
        typer.echo(f"{path} is inside the git work tree {root}: indexed all of it")
    typer.echo(f"{recorded} facts recorded for {repo} ({commits} commits) in {report['seconds']}s")
    if report.get("symbols"):  # the graph is complete now; search by meaning follows the embed service
        typer.echo("symbols' vectors for code search follow in the background (`codememory status`)")


def record_in_streams(
    conn: Connection, facts: Iterable[CodeFact], *, per_stream: int = STREAM_FACTS, in_flight: int = IN_FLIGHT
) -> int:
    """Record ``facts`` as RecordCode streams of ``per_stream`` facts each, so a repository of any size
    indexes (the gateway holds one stream until all of it is valid). Up to ``in_flight`` streams are
    recorded at once, in threads, while the next is parsed: the gateway checks and appends one while
    it applies the one before. A stream starts once the one before it was all sent, and the gateway
    appends a tenant's streams in the order they arrived, so LOG holds the facts in the order found.
    Each stream is all or nothing; what other streams recorded stays (indexing again skips those files
    by their content hash)."""
    recorded = 0
    pending: deque[Future[int]] = deque()
    with ThreadPoolExecutor(in_flight, thread_name_prefix="record") as sender:
        previous: tuple[threading.Event, Future[int]] | None = None
        for chunk in _chunked(facts, per_stream):
            while len(pending) >= in_flight:
                recorded += pending.popleft().result()
            if previous is not None:
                _until_sent(*previous)
            sent = threading.Event()
            pending.append(sender.submit(record, conn, chunk, all_sent=sent))
            previous = (sent, pending[-1])
        while pending:
            recorded += pending.popleft().result()
    return recorded


def _until_sent(sent: threading.Event, call: Future[int]) -> None:
    """Until every fact of a stream was handed to gRPC, or its call ended (a failure is its result's)."""
    while not sent.wait(0.05) and not call.done():
        pass


def _chunked(facts: Iterable[CodeFact], size: int) -> Iterator[list[CodeFact]]:
    """Lists of ``size`` facts, the first ones smaller (a quarter, then doubling): the gateway starts
    applying facts while the rest are still parsed, instead of waiting for a whole first stream."""
    chunk: list[CodeFact] = []
    limit = max(1, size // 4)
    for fact in facts:
        chunk.append(fact)
        if len(chunk) >= limit:
            yield chunk
            chunk = []
            limit = min(size, limit * 2)
    if chunk:
        yield chunk


def _progress() -> Callable[[IndexProgress], None] | None:
    """A one-line live counter on a terminal; nothing when output is piped."""
    if not sys.stderr.isatty():
        return None

    def show(p: IndexProgress) -> None:
        sys.stderr.write(
            f"\rindexing: {p.files_seen} files, {p.parsed} parsed, {p.skipped_unchanged} unchanged,"
            f" {p.symbols} symbols, {p.seconds:.1f}s"
        )
        sys.stderr.flush()

    return show


def _history(conn: Connection, root: Path, repo: str, roots: SourceRoots) -> Iterator[CodeFact]:
    """Commits since the last one recorded; from the first when that one is not in this history (a
    rewritten history: commits already recorded are recorded once, their ids are their shas)."""
    from codememory.githistory import UnknownRevisionError, extractor_spans, read_history
    from codememory.githistory.gitproc import resolve

    since = last_commit(conn, repo) or None
    if since is not None:
        try:
            resolve(root, since)
        except UnknownRevisionError:
            typer.echo(
                f"{since[:12]}, the last commit recorded for {repo}, is not in this history:"
                " recording it all",
                err=True,
            )
            since = None
    yield from read_history(root, repo, since=since, symbols_of=extractor_spans(repo, roots))


def record_head_commit(conn: Connection, path: Path, repo: str) -> None:
    from codememory.code import extract_file
    from codememory.code.discovery import discover_roots
    from codememory.githistory import extractor_spans, head_commit, read_commit

    name, root = repository_of(path)
    repo = repo or name
    roots = load_roots(default_home(), repo) or discover_roots(root)  # the names the index used
    sha = head_commit(root)
    commit = read_commit(root, repo, sha, symbols_of=extractor_spans(repo, roots))
    facts: list[CodeFact] = []
    for change in commit.files:
        if change.status == "renamed" and change.old_path:
            facts.append(FileDeleted(repo=repo, path=change.old_path, commit=sha))
        if change.status == "deleted":
            facts.append(FileDeleted(repo=repo, path=change.path, commit=sha))
            continue
        source = _blob(root, sha, change.path)
        if source is not None:
            fact = extract_file(repo, change.path, source, roots)
            facts.append(msgspec.structs.replace(fact, commit=sha))
    recorded = record(conn, [*facts, commit])
    typer.echo(f"recorded {sha[:12]} ({len(commit.files)} files, {recorded} facts)")


def _blob(root: Path, sha: str, path: str) -> bytes | None:
    done = subprocess.run(["git", "show", f"{sha}:{path}"], cwd=root, capture_output=True, check=False)
    return done.stdout if done.returncode == 0 else None
