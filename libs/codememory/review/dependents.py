"""Who depends on the changed code: callers, importers, subclasses and referrers, direct and transitive.

Why one walk: a diff changes many symbols at once, and a walk per symbol would visit the same callers
again and again; one breadth-first walk from all of them (and from the changed files, whose importers
depend on them) gives each dependent once, at its shortest distance, with the changed node it was
reached from. Code the diff itself changes is not a dependent. The walk stops at ``max_depth`` and keeps
at most ``scan`` nodes (nearest first); tests among them say which changed symbols tests reach.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from codememory.codegraph.model import FileNode, SymbolNode, alive_now
from codememory.codegraph.reader import GraphReader
from codememory.review.model import Dependent
from codememory.review.reading import is_test_path

__all__ = ["DEPENDENCY_EDGES", "Reach", "walk_dependents"]

DEPENDENCY_EDGES = frozenset({"calls", "imports", "inherits", "references"})


@dataclass
class Reach:
    """The walk's result: dependents nearest first, their node indices, and the roots tests reach."""

    dependents: list[Dependent] = field(default_factory=list)
    indices: list[int] = field(default_factory=list)
    tested_roots: set[int] = field(default_factory=set)


def _name_and_path(node: FileNode | SymbolNode) -> tuple[str, str, str]:
    if isinstance(node, FileNode):
        return "file", node.path, node.path
    return "symbol", node.qualname, node.path


def walk_dependents(graph: GraphReader, roots: list[int], *, max_depth: int = 3, scan: int = 5000) -> Reach:
    """Dependents of ``roots`` (node indices of changed symbols and files) within ``max_depth`` edges."""
    reach = Reach()
    origin = {r: r for r in roots}
    queue = deque((r, 0) for r in roots)
    while queue and len(reach.indices) < scan:
        idx, level = queue.popleft()
        if level >= max_depth:
            continue
        for src, edge in graph.into(idx, DEPENDENCY_EDGES):
            node = graph.node(src)
            if src in origin or not isinstance(node, FileNode | SymbolNode) or not alive_now(node.life):
                continue
            origin[src] = origin[idx]
            queue.append((src, level + 1))
            kind, name, path = _name_and_path(node)
            if is_test_path(path):
                reach.tested_roots.add(origin[idx])
            via_node = graph.node(origin[idx])
            assert isinstance(via_node, FileNode | SymbolNode)
            reach.indices.append(src)
            reach.dependents.append(
                Dependent(
                    kind=kind,
                    name=name,
                    path=path,
                    edge=edge.kind,
                    distance=level + 1,
                    via=_name_and_path(via_node)[1],
                )
            )
            if len(reach.indices) >= scan:
                break
    return reach
