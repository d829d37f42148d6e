"""Frozen answers and node lookup shared by the query modules.

Why: queries hand results to other threads (gRPC handlers, recall), so they return frozen structs
copied out of the graph, never the graph's own mutable records; and every query names nodes the same
way (a qualname, a repository-relative path, a bare name, a commit sha, a memory id).
"""

from __future__ import annotations

import msgspec

from codememory.codegraph.errors import UnknownNodeError
from codememory.codegraph.graph import CodeGraph
from codememory.codegraph.model import (
    CommitNode,
    FileNode,
    MemoryNode,
    Node,
    SessionNode,
    SymbolNode,
    alive_now,
)

__all__ = ["NodeRef", "is_current", "locate", "ref_of"]


class NodeRef(msgspec.Struct, frozen=True, kw_only=True, order=True):
    """A node by kind and name: ``name`` is a path, qualname, sha, memory or session id."""

    kind: str
    name: str
    repo: str = ""


def ref_of(node: Node) -> NodeRef:
    match node:
        case FileNode():
            return NodeRef(kind="file", name=node.path, repo=node.repo)
        case SymbolNode():
            return NodeRef(kind="symbol", name=node.qualname, repo=node.repo)
        case CommitNode():
            return NodeRef(kind="commit", name=node.sha, repo=node.repo)
        case MemoryNode():
            return NodeRef(kind="memory", name=node.memory_id)
        case SessionNode():
            return NodeRef(kind="session", name=node.session_id)


def is_current(node: Node) -> bool:
    """Files and symbols are current while valid; other nodes always are."""
    if isinstance(node, FileNode | SymbolNode):
        return alive_now(node.life)
    return True


def locate(graph: CodeGraph, node: NodeRef | str, repo: str | None = None) -> int:
    """The index of a node named by a ``NodeRef`` or a string (qualname, path, unique name, sha, memory id).

    Raises ``UnknownNodeError`` when nothing (or more than one symbol of a bare name) matches.
    """
    if isinstance(node, NodeRef):
        key = (
            (node.kind, node.name)
            if node.kind in ("memory", "session")
            else (node.kind, node.repo, node.name)
        )
        if key not in graph.index:
            raise UnknownNodeError(f"{node.kind} {node.name}")
        return graph.index[key]
    repos = [repo] if repo is not None else sorted(graph.repos)
    for kind in ("symbol", "file", "commit"):
        for name in repos:
            if (idx := graph.index.get((kind, name, node))) is not None:
                return idx
    for kind in ("memory", "session"):
        if (idx := graph.index.get((kind, node))) is not None:
            return idx
    named = [(n, q) for n in repos if n in graph.repos for q in sorted(graph.repos[n].by_name.get(node, ()))]
    if len(named) == 1:
        return graph.index[("symbol", *named[0])]
    raise UnknownNodeError(node if not named else f"{node} (ambiguous: {len(named)} symbols)")
