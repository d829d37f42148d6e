"""Sending code facts to the gateway: the client side of ``codememory index`` and ``record-commit``.

The facts are found where the code lives (this machine) and streamed to the gateway's RecordCode in one
client stream, so a large repository is never held in memory: files are parsed, encoded and sent as
they come. The gateway validates, redacts and appends them to LOG.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc

from codememory.cli.client import Connection
from codememory.codefacts import CodeFact, encode_fact
from codememory.events import SymbolsExtracted
from codememory.hookclient.gitrepo import find_git, repository_identity
from codememory.v1 import code_pb2 as cpb


class NotAWorkTreeError(ValueError):
    """The path is not inside a directory codememory can index."""


class FactStreamError(RuntimeError):
    """Finding or encoding the facts failed while they were being streamed; nothing was recorded."""


def repository_of(path: Path) -> tuple[str, Path]:
    """(repo identity, root): the git work tree holding ``path``, identified as the hooks identify it
    (``hookclient.gitrepo``); a folder outside git is its own root, identified by its resolved path."""
    resolved = path.resolve()
    if not resolved.is_dir():
        raise NotAWorkTreeError(f"not a directory: {path}")
    name, root, _ = find_git(str(resolved))
    if root:
        return name, Path(root)
    return repository_identity(str(resolved)), resolved


def record(
    conn: Connection,
    facts: Iterable[CodeFact],
    *,
    on_sent: Callable[[CodeFact], None] | None = None,
    all_sent: threading.Event | None = None,
) -> int:
    """Stream ``facts`` to the gateway; returns how many it recorded.

    When producing the facts fails mid-stream, gRPC cancels the call (RecordCode is all or nothing, so
    nothing is appended) and reports only ``Exception iterating requests!``; the cause is raised here
    instead, as ``FactStreamError``, and gRPC's own log line about it is silenced. ``all_sent`` is set
    once every fact was handed to gRPC (or the stream failed): the caller may then start the next stream.
    """
    failures: list[Exception] = []

    def messages() -> Iterator[cpb.CodeFact]:
        try:
            for fact in facts:
                yield cpb.CodeFact(event_json=encode_fact(fact))
                if on_sent is not None:
                    on_sent(fact)
        except Exception as exc:
            failures.append(exc)
            raise
        finally:
            if all_sent is not None:
                all_sent.set()

    with _quiet_request_errors():
        try:
            response = conn.code.RecordCode(messages(), metadata=conn.metadata)
        except grpc.RpcError:
            if failures:
                cause = failures[0]
                raise FactStreamError(f"{type(cause).__name__}: {cause}") from cause
            raise
    return int(response.recorded)


@contextmanager
def _quiet_request_errors() -> Iterator[None]:
    logger = logging.getLogger("grpc._channel")
    silence = _DropRequestIteratorErrors()
    logger.addFilter(silence)
    try:
        yield
    finally:
        logger.removeFilter(silence)


class _DropRequestIteratorErrors(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "iterating requests" not in record.getMessage()


def known_hashes(conn: Connection, repo: str) -> dict[str, str]:
    response = conn.code.IndexedFiles(
        cpb.IndexedFilesRequest(repo=repo), metadata=conn.metadata, timeout=conn.timeout
    )
    return dict(response.content_hashes)


def last_commit(conn: Connection, repo: str) -> str:
    response = conn.code.LastCommit(
        cpb.LastCommitRequest(repo=repo), metadata=conn.metadata, timeout=conn.timeout
    )
    return str(response.sha)


def symbol_spans(
    extract: Callable[[str, str, bytes], SymbolsExtracted], repo: str
) -> Callable[[str, bytes], list[tuple[str, int, int]]]:
    """The spans of a file's symbols, for the history reader to map changed lines to symbols."""

    def spans(path: str, source: bytes) -> list[tuple[str, int, int]]:
        fact = extract(repo, path, source)
        return [(s.qualname, s.start_line, s.end_line) for s in fact.symbols if s.kind != "module"]

    return spans
