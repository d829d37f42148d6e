"""The code graph's one query API: functions over a ``CodeGraph`` that answer with frozen values.

Why one module: the gateway, the review library and the services read the graph only through it,
never its lock or its dicts, so the store's layout and its locking rule can change here alone. Each
query takes the graph's lock while it reads (one consistent state between two folded events) and
copies what it answers into frozen values (``answers``), which are safe in another thread. A reader
that asks many small questions of one state (a review) passes a function to ``read``.

Current queries skip files and symbols that are no longer valid; the temporal ones live in
``temporal.py`` and are re-exported here. An empty name is a malformed query, not an unknown node;
``neighbours`` and ``dependents`` walk breadth first, so stopping at ``limit`` keeps the nearest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from codememory.codegraph.answers import CoChanged, Dependent, Neighbour, PathStep, StaleFile, SymbolInfo
from codememory.codegraph.centrality import CentralitySnapshot
from codememory.codegraph.errors import InvalidQueryError, UnknownNodeError
from codememory.codegraph.graph import CodeGraph
from codememory.codegraph.model import FileNode, SymbolNode
from codememory.codegraph.reader import GraphReader
from codememory.codegraph.temporal import (
    ChangeSet,
    HistoryEntry,
    Snapshot,
    changed_between,
    exists_at,
    graph_as_of,
    symbol_history,
)
from codememory.codegraph.views import NodeRef, is_current, locate
from codememory.codegraph.walks import (
    DEPENDENCY_EDGES,
    Direction,
    check_names,
    dependents,
    neighbours,
    path_between,
)

__all__ = [
    "DEPENDENCY_EDGES",
    "ChangeSet",
    "CoChanged",
    "Dependent",
    "Direction",
    "GraphReader",
    "HistoryEntry",
    "Neighbour",
    "PathStep",
    "Snapshot",
    "StaleFile",
    "SymbolInfo",
    "changed_between",
    "co_changed_with",
    "dependents",
    "exists_at",
    "file_churn",
    "graph_as_of",
    "in_repo",
    "indexed_files",
    "last_commit",
    "neighbours",
    "path_between",
    "read",
    "stale_central_files",
    "symbol_history",
    "symbol_info",
    "symbol_of",
]

T = TypeVar("T")


def read(graph: CodeGraph, fn: Callable[[GraphReader], T]) -> T:
    """``fn`` over a reader of one state of the graph, without holding the fold up while it can.

    ``fn`` first runs without the lock, and its answer stands when no fold ran meanwhile (the graph's
    ``writes`` counter is even and unchanged before and after: a seqlock). When one did (``fn`` may
    then even have failed on a half-written state), it runs again under the lock. So a review of a
    quiet graph never blocks the fold, and one during indexing waits for it like any query. ``fn``
    must only read, and must not keep the reader or the nodes it gives.
    """
    before = graph.writes
    if before % 2 == 0:
        try:
            found = fn(GraphReader(graph))
        except Exception:
            if graph.writes == before:
                raise  # a real failure: the state did not move under it
        else:
            if graph.writes == before:
                return found
    with graph.lock:
        return fn(GraphReader(graph))


def symbol_of(graph: CodeGraph, ref: NodeRef) -> SymbolInfo | None:
    """The symbol ``ref`` names, or None when it names another kind of node or nothing."""
    with graph.lock:
        key = (ref.kind, ref.repo, ref.name) if ref.repo else (ref.kind, ref.name)
        idx = graph.find(key)
        node = graph.g[idx] if idx is not None else None
        return _info(node) if isinstance(node, SymbolNode) else None


def indexed_files(graph: CodeGraph, repo: str) -> dict[str, str]:
    """The current files of ``repo`` that an extraction recorded, with their content hashes."""
    with graph.lock:
        return {
            f.path: f.content_hash
            for _, f in graph.nodes_of(FileNode)
            if f.repo == repo and f.indexed and is_current(f)
        }


def last_commit(graph: CodeGraph, repo: str) -> str:
    """The sha of ``repo``'s newest recorded commit by authored time, "" when none is."""
    with graph.lock:
        order = graph.commit_order.get(repo)
        return order[-1][1] if order else ""


def file_churn(graph: CodeGraph, repo: str, path: str, *, besides: str = "") -> int:
    """How many recorded changes ``path`` has (those of commit ``besides`` left out); 0 when unknown."""
    with graph.lock:
        idx = graph.find(("file", repo, path))
        node = graph.g[idx] if idx is not None else None
        return len([c for c in node.changes if c[2] != besides]) if isinstance(node, FileNode) else 0


def in_repo(graph: CodeGraph, name: str, repo: str) -> NodeRef | str:
    """The node ``name`` in ``repo``, never another repository's node of the same name.

    A symbol or file by its full name gives its reference; a bare symbol name known in ``repo`` is
    given back for ``locate`` to resolve (or to call ambiguous). ``UnknownNodeError`` otherwise.
    """
    with graph.lock:
        for kind in ("symbol", "file"):
            if graph.find((kind, repo, name)) is not None:
                return NodeRef(kind=kind, name=name, repo=repo)
        known = graph.repos.get(repo)
        if known is not None and name in known.by_name:
            return name
    raise UnknownNodeError(f"{name} in {repo}")


def symbol_info(graph: CodeGraph, name: str, repo: str | None = None) -> tuple[SymbolInfo, ...]:
    """The symbols with qualname ``name``, else those named ``name`` (live ones first)."""
    check_names(name)
    with graph.lock:
        repos = [repo] if repo is not None else sorted(graph.repos)
        found = [
            graph.symbol_at(graph.index[("symbol", r, name)])
            for r in repos
            if ("symbol", r, name) in graph.index
        ]
        if not found:
            found = [
                graph.symbol_at(graph.index[("symbol", r, q)])
                for r in repos
                for q in (graph.repos[r].by_name.get(name, ()) if r in graph.repos else ())
            ]
        if not found:
            raise UnknownNodeError(f"symbol {name}")
        return tuple(sorted((_info(s) for s in found), key=lambda i: (not i.valid, i.repo, i.qualname)))


def _info(s: SymbolNode) -> SymbolInfo:
    return SymbolInfo(
        repo=s.repo,
        qualname=s.qualname,
        name=s.name,
        kind=s.kind,
        path=s.path,
        start_line=s.start_line,
        end_line=s.end_line,
        signature=s.signature,
        docstring=s.doc,
        digest=s.digest,
        changed_at=s.changed_at,
        valid=is_current(s),
    )


def co_changed_with(
    graph: CodeGraph, path: str, limit: int = 10, repo: str | None = None
) -> tuple[CoChanged, ...]:
    """Files most often changed in the same commits as ``path``, by count."""
    check_names(path, limit=limit)
    with graph.lock:
        idx = locate(graph, NodeRef(kind="file", name=path, repo=repo) if repo is not None else path)
        pairs = [*graph.out(idx, frozenset({"co_changed"})), *graph.into(idx, frozenset({"co_changed"}))]
        found = [(graph.file_at(other), edge.weight) for other, edge in pairs]
        ranked = sorted(found, key=lambda p: (-p[1], p[0].path))[:limit]
        return tuple(CoChanged(repo=f.repo, path=f.path, count=w) for f, w in ranked)


def stale_central_files(
    graph: CodeGraph,
    centrality: CentralitySnapshot,
    days: float,
    now: float,
    limit: int = 10,
    repo: str | None = None,
) -> tuple[StaleFile, ...]:
    """Current files (of ``repo``, when given) by PageRank, highest first, unchanged for over ``days``."""
    if days < 0 or limit < 1:
        raise InvalidQueryError("days must be >= 0 and limit >= 1")
    cutoff = now - days * 86400
    with graph.lock:
        found: list[StaleFile] = []
        for _, file in graph.nodes_of(FileNode):
            if not is_current(file) or (repo is not None and file.repo != repo):
                continue
            last = max((c[0] for c in file.changes), default=file.life[0][0] if file.life else now)
            if last <= cutoff:
                rank = centrality.pagerank.get(file.key, 0.0)
                found.append(StaleFile(repo=file.repo, path=file.path, pagerank=rank, last_change=last))
    return tuple(sorted(found, key=lambda s: (-s.pagerank, s.path))[:limit])
