"""Sending code facts to the gateway: the client side of ``codememory index`` and ``record-commit``.

The facts are found where the code lives (this machine) and streamed to the gateway's RecordCode in one
client stream, so a large repository is never held in memory: files are parsed, encoded and sent as
they come. The gateway validates, redacts and appends them to LOG.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from codememory.cli.client import Connection
from codememory.codefacts import CodeFact, encode_fact
from codememory.events import SymbolsExtracted
from codememory.hookclient.message import find_git
from codememory.v1 import code_pb2 as cpb


class NotAWorkTreeError(ValueError):
    """The path is not inside a directory codememory can index."""


def repository_of(path: Path) -> tuple[str, Path]:
    """(repo name, root): the git work tree holding ``path``, named as the hooks name it; else the dir."""
    resolved = path.resolve()
    if not resolved.is_dir():
        raise NotAWorkTreeError(f"not a directory: {path}")
    name, root, _ = find_git(str(resolved))
    if root:
        return name, Path(root)
    return resolved.name, resolved


def record(
    conn: Connection, facts: Iterable[CodeFact], *, on_sent: Callable[[CodeFact], None] | None = None
) -> int:
    """Stream ``facts`` to the gateway; returns how many it recorded."""

    def messages() -> Iterator[cpb.CodeFact]:
        for fact in facts:
            yield cpb.CodeFact(event_json=encode_fact(fact))
            if on_sent is not None:
                on_sent(fact)

    response = conn.code.RecordCode(messages(), metadata=conn.metadata)
    return int(response.recorded)


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
