"""Graph queries: pure functions over a ``CodeGraph`` that answer with frozen values.

Each takes the graph's lock while it reads, so it sees one consistent state between two folded events.
Current queries skip files and symbols that are no longer valid; the temporal ones live in
``temporal.py`` and are re-exported here. An empty name is a malformed query, not an unknown node;
``neighbours`` and ``dependents`` walk breadth first, so stopping at ``limit`` keeps the nearest.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Literal

import msgspec

from codememory.codegraph.centrality import CentralitySnapshot
from codememory.codegraph.errors import InvalidQueryError, UnknownNodeError
from codememory.codegraph.graph import CodeGraph
from codememory.codegraph.model import CODE_EDGES, EDGE_KINDS, FileNode, SymbolNode
from codememory.codegraph.temporal import (
    ChangeSet,
    HistoryEntry,
    Snapshot,
    changed_between,
    exists_at,
    graph_as_of,
    symbol_history,
)
from codememory.codegraph.views import NodeRef, is_current, locate, ref_of

__all__ = [
    "ChangeSet",
    "CoChanged",
    "Dependent",
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
    "graph_as_of",
    "neighbours",
    "path_between",
    "stale_central_files",
    "symbol_history",
    "symbol_info",
]

Direction = Literal["out", "in", "both"]
DEPENDENCY_EDGES = frozenset({"calls", "imports", "inherits", "references"})
_MAX_DEPTH = 10


class SymbolInfo(msgspec.Struct, frozen=True, kw_only=True):
    repo: str
    qualname: str
    name: str
    kind: str
    path: str
    start_line: int
    end_line: int
    signature: str
    digest: str
    changed_at: float | None
    valid: bool


class Neighbour(msgspec.Struct, frozen=True, kw_only=True):
    node: NodeRef
    edge: str
    depth: int
    outgoing: bool  # the edge points away from the node asked about (on the path to it)


class Dependent(msgspec.Struct, frozen=True, kw_only=True):
    node: NodeRef
    edge: str
    depth: int


class PathStep(msgspec.Struct, frozen=True, kw_only=True):
    node: NodeRef
    edge: str  # the edge kind that led here ("" for the start)
    forward: bool  # True when that edge points along the path


class CoChanged(msgspec.Struct, frozen=True, kw_only=True):
    repo: str
    path: str
    count: float


class StaleFile(msgspec.Struct, frozen=True, kw_only=True):
    repo: str
    path: str
    pagerank: float
    last_change: float


def _check(*nodes: NodeRef | str, limit: int | None = None) -> None:
    if any(not (n.name if isinstance(n, NodeRef) else n).strip() for n in nodes):
        raise InvalidQueryError("name a file or symbol (the name is empty)")
    if limit is not None and limit < 1:
        raise InvalidQueryError("limit must be >= 1")


def symbol_info(graph: CodeGraph, name: str, repo: str | None = None) -> tuple[SymbolInfo, ...]:
    """The symbols with qualname ``name``, else those named ``name`` (live ones first)."""
    _check(name)
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
        digest=s.digest,
        changed_at=s.changed_at,
        valid=is_current(s),
    )


def _kinds(edge_kinds: Iterable[str] | None) -> frozenset[str]:
    kinds = frozenset(edge_kinds) if edge_kinds is not None else EDGE_KINDS
    if unknown := kinds - EDGE_KINDS:
        raise InvalidQueryError(f"unknown edge kinds: {sorted(unknown)}")
    return kinds


def _steps(
    graph: CodeGraph, idx: int, kinds: frozenset[str], direction: Direction
) -> list[tuple[int, str, bool]]:
    steps: list[tuple[int, str, bool]] = []
    if direction in ("out", "both"):
        steps += [(dst, e.kind, True) for dst, e in graph.out(idx, kinds)]
    if direction in ("in", "both"):
        steps += [(src, e.kind, False) for src, e in graph.into(idx, kinds)]
    return [s for s in steps if is_current(graph.g[s[0]])]


def neighbours(
    graph: CodeGraph,
    node: NodeRef | str,
    edge_kinds: Iterable[str] | None = None,
    depth: int = 1,
    direction: Direction = "both",
    limit: int | None = None,
) -> tuple[Neighbour, ...]:
    """Current nodes within ``depth`` edges of ``node`` over ``edge_kinds`` (all kinds when None).

    At most ``limit`` (all when None), the nearest first.
    """
    if not 1 <= depth <= _MAX_DEPTH or direction not in ("out", "in", "both"):
        raise InvalidQueryError(f"depth must be 1..{_MAX_DEPTH} and direction out/in/both")
    _check(node, limit=limit)
    kinds = _kinds(edge_kinds)
    with graph.lock:
        start = locate(graph, node)
        seen, found, frontier = {start}, list[Neighbour](), [start]
        for level in range(1, depth + 1):
            nxt: list[int] = []
            for idx in frontier:
                for other, kind, outgoing in _steps(graph, idx, kinds, direction):
                    if other not in seen:
                        if len(found) == limit:
                            return tuple(found)
                        seen.add(other)
                        nxt.append(other)
                        found.append(
                            Neighbour(node=ref_of(graph.g[other]), edge=kind, depth=level, outgoing=outgoing)
                        )
            frontier = nxt
        return tuple(found)


def dependents(
    graph: CodeGraph, node: NodeRef | str, transitive: bool = False, limit: int | None = None
) -> tuple[Dependent, ...]:
    """Who calls, imports, inherits or references ``node`` (for a file: it or any symbol it contains).

    At most ``limit`` (all when None), the nearest first.
    """
    _check(node, limit=limit)
    with graph.lock:
        start = locate(graph, node)
        targets = [start]
        if isinstance(graph.g[start], FileNode):
            for idx in targets:  # grows while it is walked: every symbol the file contains
                targets += [dst for dst, _ in graph.out(idx, frozenset({"contains"}))]
        seen, found = set(targets), list[Dependent]()
        queue = deque((t, 0) for t in targets)
        while queue:
            idx, level = queue.popleft()
            if level >= (_MAX_DEPTH if transitive else 1):
                continue
            for src, kind, _ in _steps(graph, idx, DEPENDENCY_EDGES, "in"):
                if src not in seen:
                    if len(found) == limit:
                        return tuple(found)
                    seen.add(src)
                    found.append(Dependent(node=ref_of(graph.g[src]), edge=kind, depth=level + 1))
                    queue.append((src, level + 1))
        return tuple(found)


def path_between(
    graph: CodeGraph, a: NodeRef | str, b: NodeRef | str, max_depth: int = 8
) -> tuple[PathStep, ...]:
    """A shortest path over code edges in either direction, from ``a`` to ``b``; () when none within reach."""
    _check(a, b)
    with graph.lock:
        start, goal = locate(graph, a), locate(graph, b)
        came: dict[int, tuple[int, str, bool] | None] = {start: None}
        frontier = [start]
        for _ in range(max_depth):
            if goal in came or not frontier:
                break
            nxt: list[int] = []
            for idx in frontier:
                for other, kind, forward in _steps(graph, idx, CODE_EDGES, "both"):
                    if other not in came:
                        came[other] = (idx, kind, forward)
                        nxt.append(other)
            frontier = nxt
        if goal not in came:
            return ()
        steps: list[PathStep] = []
        current: int | None = goal
        while current is not None:
            prev = came[current]
            steps.append(
                PathStep(
                    node=ref_of(graph.g[current]),
                    edge=prev[1] if prev else "",
                    forward=prev[2] if prev else True,
                )
            )
            current = prev[0] if prev else None
        return tuple(reversed(steps))


def co_changed_with(
    graph: CodeGraph, path: str, limit: int = 10, repo: str | None = None
) -> tuple[CoChanged, ...]:
    """Files most often changed in the same commits as ``path``, by count."""
    _check(path, limit=limit)
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
