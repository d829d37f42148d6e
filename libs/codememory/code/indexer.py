"""A whole repository -> a stream of ``SymbolsExtracted`` / ``FileDeleted``, in parallel, incrementally.

Why it exists: a first index of a large repository must use every core, and a re-index must cost
little more than reading the files. The file list is taken first (``git ls-files`` is fast) so the
repository's source roots (``discovery``) name every module before the first file is parsed; a file
whose content hash equals ``known[path]`` is skipped, and a known path that is gone yields
``FileDeleted``. The parent only walks and decodes; workers read, hash and parse chunks of files
(reading in the workers keeps file bytes off the pipe) and send results back as msgpack. Results
come out in walk order whatever the worker timing, so the output is stable.

Workers start from a forkserver, not by forking the caller: the CLI holds gRPC channels (C threads)
when it indexes, and forking those is unsafe. As with any non-fork start method, the calling script
must guard its entry point with ``if __name__ == "__main__":`` (console scripts do).
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import resource
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from itertools import chain, islice
from pathlib import Path
from typing import NamedTuple

import msgspec

from codememory.code.discovery import discover_roots
from codememory.code.extract import MAX_BYTES, extract_file
from codememory.code.languages import language_of
from codememory.code.roots import SourceRoots
from codememory.code.summary import IndexProgress, IndexSummary
from codememory.code.text import content_hash
from codememory.code.walk import walk_repository
from codememory.events import FileDeleted, SymbolsExtracted

CHUNK_FILES = 48
_SKIPPED = b"S"
_UNREADABLE = b"U"
_Item = tuple[str, str, str]  # (path, absolute, known hash)

__all__ = [
    "CHUNK_FILES",
    "ChunkResult",
    "IndexProgress",
    "IndexSummary",
    "extract_chunk",
    "index_repository",
    "start_workers",
]


def _hash_large(absolute: str) -> str:
    with open(absolute, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()[:32]


def _one(repo: str, item: _Item, encoder: msgspec.msgpack.Encoder, roots: SourceRoots) -> bytes:
    path, absolute, known = item
    try:
        with open(absolute, "rb") as handle:
            source = handle.read(MAX_BYTES + 1)
            if len(source) > MAX_BYTES:
                digest = _hash_large(absolute)
                if digest == known:
                    return _SKIPPED
                event = SymbolsExtracted(
                    repo=repo, path=path, content_hash=digest, language=language_of(path), parsed=False
                )
                return encoder.encode(event)
    except OSError:
        return _UNREADABLE
    if known and content_hash(source) == known:
        return _SKIPPED
    return encoder.encode(extract_file(repo, path, source, roots))


class ChunkResult(NamedTuple):
    """What a worker sends back for one chunk: its cost, and each file as an event or a marker."""

    cpu_seconds: float
    peak_rss_kb: int
    pid: int
    results: list[bytes]


def extract_chunk(repo: str, items: list[_Item], roots: SourceRoots | None = None) -> ChunkResult:
    """Worker entry point: each item as an encoded event (or a skipped / unreadable marker)."""
    started = time.process_time()
    encoder = msgspec.msgpack.Encoder()
    out = [_one(repo, item, encoder, roots or SourceRoots()) for item in items]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return ChunkResult(time.process_time() - started, peak, os.getpid(), out)


def index_repository(
    root: Path,
    repo: str,
    known: Mapping[str, str],
    *,
    workers: int = 2,
    progress: Callable[[IndexProgress], None] | None = None,
    summary: IndexSummary | None = None,
    roots: SourceRoots | None = None,
    stale: Callable[[str], bool] | None = None,
) -> Iterator[SymbolsExtracted | FileDeleted]:
    """Stream the repository's facts; ``summary`` (if given) is filled in as results are yielded.

    Module names come from ``roots`` (discovered from the work tree when not given); a file for which
    ``stale(path)`` is true is parsed again even when its content is known (its module name changed).
    """
    totals = summary if summary is not None else IndexSummary()
    started = time.perf_counter()
    decoder = msgspec.msgpack.Decoder(SymbolsExtracted)
    seen: set[str] = set()
    parent, worker_pids = os.getpid(), set[int]()
    files = list(walk_repository(root))
    if roots is None:
        roots = discover_roots(root, [f.path for f in files])

    def items() -> Iterator[_Item]:
        for found in files:
            seen.add(found.path)
            totals.files_seen += 1
            totals.bytes_read += found.size
            again = stale is not None and stale(found.path)
            yield (found.path, str(found.absolute), "" if again else known.get(found.path, ""))

    for chunk in _chunks(repo, items(), workers, roots):
        totals.worker_cpu_seconds += chunk.cpu_seconds
        if chunk.pid != parent:
            worker_pids.add(chunk.pid)
            totals.worker_processes = len(worker_pids)
        totals.peak_rss_mb = max(totals.peak_rss_mb, chunk.peak_rss_kb / 1024)
        for raw in chunk.results:
            if raw == _SKIPPED:
                totals.skipped_unchanged += 1
                continue
            if raw == _UNREADABLE:
                totals.unreadable += 1
                continue
            event = decoder.decode(raw)
            totals.add(event)
            totals.last_path = event.path
            yield event
        totals.seconds = time.perf_counter() - started
        if progress is not None:
            progress(totals.progress())
    for path in sorted(set(known) - seen):
        deleted = FileDeleted(repo=repo, path=path)
        totals.add(deleted)
        yield deleted
    totals.seconds = time.perf_counter() - started
    if progress is not None:
        progress(totals.progress(done=True))


def _forkserver() -> multiprocessing.context.ForkServerContext:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context


def start_workers() -> None:
    """Start the forkserver the workers come from (it imports the parsers) in the background, so it is
    ready when the first chunk is: the CLI calls this before it discovers the repository's roots."""
    from multiprocessing import forkserver

    _forkserver()
    forkserver.ensure_running()


def _batches(items: Iterator[_Item]) -> Iterator[list[_Item]]:
    while batch := list(islice(items, CHUNK_FILES)):
        yield batch


def _chunks(repo: str, items: Iterator[_Item], workers: int, roots: SourceRoots) -> Iterator[ChunkResult]:
    """Encoded results chunk by chunk, in walk order.

    In this process when ``workers`` <= 1 or the repository is smaller than two rounds of chunks
    (starting workers would cost more than it saves); otherwise on a pool of ``workers`` processes
    started by a forkserver (safe when the caller has threads), with a bounded number of chunks in flight.
    """
    batches = _batches(items)
    first = list(islice(batches, 2 * workers))
    if workers <= 1 or len(first) < 2 * workers:
        for batch in chain(first, batches):
            yield extract_chunk(repo, batch, roots)
        return
    context = _forkserver()
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        in_flight: deque[Future[ChunkResult]] = deque()
        for batch in chain(first, batches):
            in_flight.append(pool.submit(extract_chunk, repo, batch, roots))
            if len(in_flight) >= workers * 3:
                yield in_flight.popleft().result()
        while in_flight:
            yield in_flight.popleft().result()
