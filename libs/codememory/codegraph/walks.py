"""Walks over current code edges: neighbours, dependents and the shortest path between two nodes.

Why a module of its own: the breadth-first walks are the largest queries; ``queries`` (the graph's one
query API) re-exports them, so callers never import this module. Each takes the graph's lock while it
walks and answers frozen values; stopping at ``limit`` keeps the nearest.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Literal

from codememory.codegraph.answers import Dependent, Neighbour, PathStep
from codememory.codegraph.errors import InvalidQueryError
from codememory.codegraph.graph import CodeGraph
from codememory.codegraph.model import CODE_EDGES, EDGE_KINDS, FileNode
from codememory.codegraph.views import NodeRef, is_current, locate, ref_of

__all__ = ["DEPENDENCY_EDGES", "Direction", "check_names", "dependents", "neighbours", "path_between"]

Direction = Literal["out", "in", "both"]
DEPENDENCY_EDGES = frozenset({"calls", "imports", "inherits", "references"})
_MAX_DEPTH = 10


def check_names(*nodes: NodeRef | str, limit: int | None = None) -> None:
    """An empty name is a malformed query (``InvalidQueryError``), not an unknown node."""
    if any(not (n.name if isinstance(n, NodeRef) else n).strip() for n in nodes):
        raise InvalidQueryError("name a file or symbol (the name is empty)")
    if limit is not None and limit < 1:
        raise InvalidQueryError("limit must be >= 1")


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
    check_names(node, limit=limit)
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
    check_names(node, limit=limit)
    with graph.lock:
        start = locate(graph, node)
        targets = [start]
        if isinstance(graph.g[start], FileNode):
            targets += graph.contained(start)  # every symbol the file contains
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
    check_names(a, b)
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
