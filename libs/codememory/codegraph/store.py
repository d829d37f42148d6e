"""``GraphStore``: one tenant's code graph in a ``rustworkx.PyDiGraph``, with key lookups and edge primitives.

Why a class of its own: the graph, the key -> index dicts, the (source, target, kind) -> edge dicts and
the resolution indexes must change together, so one object owns them and one lock guards them.

Thread safety: a single ``threading.RLock`` (``graph.lock``). The fold (``apply``) holds it for one
event and makes ``writes`` odd while it writes, even again when done; readers go through
``queries`` (which take the lock, or read without it and check ``writes``, see ``queries.read``).
Centrality is computed outside it on a copy taken under it (see ``centrality.py``), so the only long
work never blocks the fold or readers.

The fold modules (``fold_code``, ``fold_history``, ``fold_memory``) write through these primitives and
``graph.CodeGraph`` (this store plus ``apply``) dispatches each event to them, so imports run one way:
graph -> fold_* -> store, never in a circle.

Idempotence: ``apply`` skips any event whose LOG sequence is not above the last one applied, so a
redelivery changes nothing; a graph is its events folded in order, so a rebuild by replay has the same
``digest()``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TypeVar

import rustworkx as rx

from codememory.codegraph.errors import UnknownNodeError
from codememory.codegraph.model import (
    CommitNode,
    Edge,
    FileNode,
    Key,
    MemoryNode,
    Node,
    SessionNode,
    SymbolNode,
)
from codememory.codegraph.resolve import RepoIndex

__all__ = ["GraphStore"]

N = TypeVar("N", FileNode, SymbolNode, MemoryNode, SessionNode, CommitNode)

_CONTAINS = frozenset({"contains"})


class GraphStore:
    """One tenant's graph state. Written only by the fold (``graph.CodeGraph.apply``); read under ``lock``."""

    def __init__(self, tenant: str = "") -> None:
        self.tenant = tenant
        self.lock = threading.RLock()
        self.g: rx.PyDiGraph[Node, Edge] = rx.PyDiGraph(multigraph=True)
        self.index: dict[Key, int] = {}
        self.edges: dict[tuple[int, int, str], int] = {}
        self.repos: dict[str, RepoIndex] = {}
        self.file_symbols: dict[tuple[str, str], set[str]] = {}
        self.early_history: dict[tuple[str, str], list[tuple[float, str]]] = {}
        self.forgotten: set[str] = set()
        self.last_seq = 0
        self.version = 0  # bumped by every applied event
        # bumped only by the events that change files, symbols and the edges between them (code facts):
        # centrality ranks those alone, so a stream of memories never makes it recompute
        self.code_version = 0
        self.mention_waiters: dict[str, set[str]] = {}  # token -> memory ids waiting for it to appear
        self.basenames: dict[str, set[tuple[str, str]]] = {}  # file name -> (repo, path)
        self.writes = 0  # odd while the fold writes: an optimistic reader checks it before and after
        # repo -> its recorded commits (authored time, sha, index), oldest first
        self.commit_order: dict[str, list[tuple[float, str, int]]] = {}

    # --- nodes ------------------------------------------------------------------------------------

    def node(self, key: Key) -> Node:
        try:
            return self.g[self.index[key]]
        except KeyError:
            raise UnknownNodeError(":".join(key)) from None

    def find(self, key: Key) -> int | None:
        return self.index.get(key)

    def ensure(self, node: N) -> tuple[int, N]:
        """The node with ``node``'s key, adding ``node`` when there is none yet."""
        key = node.key
        idx = self.index.get(key)
        if idx is not None:
            existing = self.g[idx]
            assert isinstance(existing, type(node))
            return idx, existing
        idx = self.g.add_node(node)
        self.index[key] = idx
        if isinstance(node, FileNode):
            self.basenames.setdefault(node.path.rsplit("/", 1)[-1], set()).add((node.repo, node.path))
        return idx, node

    def symbol_at(self, idx: int) -> SymbolNode:
        node = self.g[idx]
        assert isinstance(node, SymbolNode)
        return node

    def file_at(self, idx: int) -> FileNode:
        node = self.g[idx]
        assert isinstance(node, FileNode)
        return node

    def remove(self, key: Key) -> None:
        idx = self.index.pop(key, None)
        if idx is None:
            return
        for eid in list(self.g.incident_edges(idx, all_edges=True)):
            src, dst = self.g.get_edge_endpoints_by_index(eid)
            self.edges.pop((src, dst, self.g.get_edge_data_by_index(eid).kind), None)
        self.g.remove_node(idx)

    def repo(self, name: str) -> RepoIndex:
        found = self.repos.get(name)
        if found is None:
            found = self.repos[name] = RepoIndex(name)
        return found

    def nodes_of(self, cls: type[N]) -> Iterator[tuple[int, N]]:
        for idx in self.g.node_indices():
            node = self.g[idx]
            if isinstance(node, cls):
                yield idx, node

    # --- edges ------------------------------------------------------------------------------------

    def link(self, src: int, dst: int, kind: str, weight: float = 1.0) -> Edge:
        eid = self.edges.get((src, dst, kind))
        if eid is not None:
            return self.g.get_edge_data_by_index(eid)
        edge = Edge(kind, weight)
        self.edges[(src, dst, kind)] = self.g.add_edge(src, dst, edge)
        return edge

    def unlink_out(self, src: int, kinds: frozenset[str]) -> None:
        for eid in list(self.g.incident_edges(src)):
            edge = self.g.get_edge_data_by_index(eid)
            if edge.kind in kinds:
                _, dst = self.g.get_edge_endpoints_by_index(eid)
                del self.edges[(src, dst, edge.kind)]
                self.g.remove_edge_from_index(eid)

    def out(self, src: int, kinds: frozenset[str] | None = None) -> Iterator[tuple[int, Edge]]:
        for _, dst, edge in self.g.out_edges(src):
            if kinds is None or edge.kind in kinds:
                yield dst, edge

    def into(self, dst: int, kinds: frozenset[str] | None = None) -> Iterator[tuple[int, Edge]]:
        for src, _, edge in self.g.in_edges(dst):
            if kinds is None or edge.kind in kinds:
                yield src, edge

    def contained(self, idx: int) -> Iterator[int]:
        """Every node ``idx`` contains, at any depth (a file its classes, a class its methods, a
        method its closures), each once, nearest first."""
        seen, frontier = {idx}, [idx]
        while frontier:
            inner = [dst for i in frontier for dst, _ in self.out(i, _CONTAINS) if dst not in seen]
            inner = list(dict.fromkeys(inner))
            seen.update(inner)
            yield from inner
            frontier = inner
