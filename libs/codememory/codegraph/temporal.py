"""Temporal queries: what changed between two moments, what existed at one, a symbol's history.

Why a module of its own: these read validity marks and change histories, not the current edges.
Moments are epoch seconds, ``datetime`` values or commit shas (a sha stands for its authored time).

A symbol first seen when its file was first indexed has no known birth: before that first mark it is
taken to exist whenever its file did (the file's validity comes from commits too). This is an
approximation: history says when a file was added, not when each definition in it appeared.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from codememory.codegraph.errors import InvalidQueryError, UnknownNodeError
from codememory.codegraph.graph import CodeGraph
from codememory.codegraph.model import CommitNode, FileNode, SymbolNode, alive_at

__all__ = [
    "ChangeSet",
    "HistoryEntry",
    "Snapshot",
    "changed_between",
    "exists_at",
    "graph_as_of",
    "symbol_history",
]

Moment = float | datetime | str


class CommitInfo(msgspec.Struct, frozen=True, kw_only=True):
    repo: str
    sha: str
    authored_at: float
    author: str
    summary: str


class ChangeSet(msgspec.Struct, frozen=True, kw_only=True):
    start: float
    end: float
    commits: tuple[CommitInfo, ...]
    files: tuple[tuple[str, str], ...]  # (repo, path)
    symbols: tuple[tuple[str, str], ...]  # (repo, qualname)


class Snapshot(msgspec.Struct, frozen=True, kw_only=True):
    at: float
    files: frozenset[tuple[str, str]]
    symbols: frozenset[tuple[str, str]]

    @property
    def file_count(self) -> int:
        return len(self.files)

    @property
    def symbol_count(self) -> int:
        return len(self.symbols)

    def contains(self, name: str, repo: str | None = None) -> bool:
        """Whether a file path or symbol qualname was valid at this moment."""
        pool = (*self.files, *self.symbols)
        return any(n == name and (repo is None or r == repo) for r, n in pool)


class HistoryEntry(msgspec.Struct, frozen=True, kw_only=True):
    at: float
    digest: str
    commit: str
    summary: str = ""


def moment(graph: CodeGraph, when: Moment) -> float:
    if isinstance(when, datetime):
        return when.timestamp()
    if isinstance(when, int | float):
        return float(when)
    found = [
        n
        for _, n in graph.nodes_of(CommitNode)
        if n.recorded and (n.sha == when or (len(when) >= 7 and n.sha.startswith(when)))
    ]
    if len(found) != 1:
        raise UnknownNodeError(f"commit {when}" if not found else f"commit {when} (ambiguous)")
    return found[0].authored_at


def changed_between(
    graph: CodeGraph, start: Moment, end: Moment, repo: str | None = None, *, after_start: bool = False
) -> ChangeSet:
    """Commits authored in [start, end], and the files and symbols with a change recorded in it.

    ``after_start``: like git's ``start..end``, what happened at ``start`` itself (a start commit's own
    changes) is not "between".
    """
    with graph.lock:
        lo, hi = moment(graph, start) + (1e-3 if after_start else 0.0), moment(graph, end)
        if hi < lo:
            raise InvalidQueryError("end is before start")
        commits = sorted(
            (CommitInfo(repo=c.repo, sha=c.sha, authored_at=c.authored_at, author=c.author, summary=c.summary)
             for _, c in graph.nodes_of(CommitNode)
             if c.recorded and lo <= c.authored_at <= hi and repo in (None, c.repo)),
            key=lambda c: (c.authored_at, c.sha),
        )  # fmt: skip
        files = sorted(
            (f.repo, f.path)
            for _, f in graph.nodes_of(FileNode)
            if repo in (None, f.repo) and any(lo <= c[0] <= hi for c in f.changes)
        )
        symbols = sorted(
            (s.repo, s.qualname)
            for _, s in graph.nodes_of(SymbolNode)
            if repo in (None, s.repo)
            and any(lo <= h[0] <= hi for h in s.history if h[1] or h[2] or not s.first_indexed)
        )
        return ChangeSet(start=lo, end=hi, commits=tuple(commits), files=tuple(files), symbols=tuple(symbols))


def _symbol_alive(graph: CodeGraph, s: SymbolNode, at: float) -> bool:
    known = alive_at(s.life, at)
    if known is not None and not (s.first_indexed and known is False and len(s.life) and at < s.life[0][0]):
        return known
    if not s.first_indexed:
        return False
    file = graph.index.get(("file", s.repo, s.path))
    return bool(file is not None and alive_at(graph.file_at(file).life, at))


def graph_as_of(graph: CodeGraph, when: Moment, repo: str | None = None) -> Snapshot:
    """The files and symbols valid at ``when``."""
    with graph.lock:
        at = moment(graph, when)
        files = frozenset(
            (f.repo, f.path)
            for _, f in graph.nodes_of(FileNode)
            if repo in (None, f.repo) and alive_at(f.life, at)
        )
        symbols = frozenset(
            (s.repo, s.qualname)
            for _, s in graph.nodes_of(SymbolNode)
            if repo in (None, s.repo) and _symbol_alive(graph, s, at)
        )
        return Snapshot(at=at, files=files, symbols=symbols)


def exists_at(graph: CodeGraph, name: str, when: Moment, repo: str | None = None) -> bool:
    """Whether the file path or symbol qualname ``name`` was valid at ``when`` (one node, no snapshot)."""
    with graph.lock:
        at = moment(graph, when)
        for r in [repo] if repo is not None else sorted(graph.repos):
            if (idx := graph.index.get(("symbol", r, name))) is not None and _symbol_alive(
                graph, graph.symbol_at(idx), at
            ):
                return True
            if (idx := graph.index.get(("file", r, name))) is not None and alive_at(
                graph.file_at(idx).life, at
            ):
                return True
        return False


def symbol_history(graph: CodeGraph, qualname: str, repo: str | None = None) -> tuple[HistoryEntry, ...]:
    """Every recorded change of a symbol, oldest first, with the commit's summary when known."""
    with graph.lock:
        repos = [repo] if repo is not None else sorted(graph.repos)
        idx = next(
            (graph.index[("symbol", r, qualname)] for r in repos if ("symbol", r, qualname) in graph.index),
            None,
        )
        if idx is None:
            raise UnknownNodeError(f"symbol {qualname}")
        s = graph.symbol_at(idx)
        entries: list[HistoryEntry] = []
        for at, digest, sha in s.history:
            commit = graph.index.get(("commit", s.repo, sha)) if sha else None
            node = graph.g[commit] if commit is not None else None
            summary = node.summary if isinstance(node, CommitNode) else ""
            entries.append(HistoryEntry(at=at, digest=digest, commit=sha, summary=summary))
        return tuple(entries)
