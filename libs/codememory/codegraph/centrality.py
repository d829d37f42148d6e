"""Centrality of code: PageRank and betweenness, computed off the query path and read from a snapshot.

Why: "central" code (much depended on, or on many paths) makes a memory about it worth more, and a
stale central file is worth a review. Computing it costs seconds on a large graph, so it never runs on a
query: ``Centrality.refresh_if_dirty()`` (the service calls it from a background thread) copies the
current code subgraph under the graph's lock (a linear pass), computes outside the lock, and swaps
``snapshot`` (one reference assignment); readers take whatever snapshot is there.

The ranking graph: current files and symbols, ``calls``/``imports``/``inherits``/``references`` edges as
they point (importance flows to what is depended on), and ``contains`` reversed (a symbol lends its
importance to its file and its class). PageRank is rustworkx's (alpha 0.85). Betweenness is exact
(rustworkx, Brandes) up to ``exact_limit`` nodes; above that it is Brandes from ``samples`` sources drawn
with a fixed seed, scaled by n / samples (rustworkx has no sampling parameter), and the snapshot says so.
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Mapping

import msgspec
import rustworkx as rx

from codememory.codegraph.graph import CodeGraph
from codememory.codegraph.model import FileNode, Key, SymbolNode
from codememory.codegraph.views import is_current

__all__ = ["Centrality", "CentralitySnapshot", "sampled_betweenness"]

RANKED = frozenset({"calls", "imports", "inherits", "references", "contains"})


class CentralitySnapshot(msgspec.Struct, frozen=True, kw_only=True):
    version: int = -1
    pagerank: Mapping[Key, float] = msgspec.field(default_factory=dict)
    pagerank_max: float = 0.0
    betweenness: Mapping[Key, float] = msgspec.field(default_factory=dict)
    sampled: bool = False
    seconds: float = 0.0

    def normalised_pagerank(self, key: Key) -> float:
        return self.pagerank.get(key, 0.0) / self.pagerank_max if self.pagerank_max else 0.0


class Centrality:
    def __init__(
        self, graph: CodeGraph, *, exact_limit: int = 2000, samples: int = 64, seed: int = 0
    ) -> None:
        self._graph = graph
        self._exact_limit, self._samples, self._seed = exact_limit, samples, seed
        self.snapshot = CentralitySnapshot()

    def refresh_if_dirty(self) -> bool:
        """Recompute when the graph changed since the last snapshot; True when it did."""
        graph = self._graph
        with graph.lock:
            version = graph.code_version  # memories and commits never move what is ranked here
            if version == self.snapshot.version:
                return False
            keys: list[Key] = []
            local: dict[int, int] = {}
            for idx in graph.g.node_indices():
                node = graph.g[idx]
                if isinstance(node, FileNode | SymbolNode) and is_current(node):
                    local[idx] = len(keys)
                    keys.append(node.key)
            edges = [
                (local[dst], local[src]) if edge.kind == "contains" else (local[src], local[dst])
                for src, dst, edge in graph.g.weighted_edge_list()
                if edge.kind in RANKED and src in local and dst in local
            ]
        started = time.perf_counter()
        ranked: rx.PyDiGraph[int, None] = rx.PyDiGraph()
        ranked.add_nodes_from(range(len(keys)))
        ranked.add_edges_from_no_data(sorted(set(edges)))
        pagerank = dict(rx.pagerank(ranked)) if keys else {}
        sampled = len(keys) > self._exact_limit
        if sampled:
            between = sampled_betweenness(ranked, self._samples, self._seed)
        else:
            between = dict(rx.digraph_betweenness_centrality(ranked, normalized=True)) if keys else {}
        self.snapshot = CentralitySnapshot(
            version=version,
            pagerank={keys[i]: v for i, v in pagerank.items()},
            pagerank_max=max(pagerank.values(), default=0.0),
            betweenness={keys[i]: v for i, v in between.items()},
            sampled=sampled,
            seconds=time.perf_counter() - started,
        )
        return True


def sampled_betweenness(g: rx.PyDiGraph[int, None], samples: int, seed: int) -> dict[int, float]:
    """Brandes' accumulation from ``samples`` random sources, scaled to estimate normalised betweenness."""
    nodes = list(g.node_indices())
    n = len(nodes)
    result = dict.fromkeys(nodes, 0.0)
    if n < 3:
        return result
    sources = random.Random(seed).sample(nodes, min(samples, n))
    succ = {v: list(g.successor_indices(v)) for v in nodes}
    for s in sources:
        order: list[int] = []
        preds: dict[int, list[int]] = {s: []}
        sigma = {s: 1.0}
        dist = {s: 0}
        queue = deque([s])
        while queue:
            v = queue.popleft()
            order.append(v)
            for w in succ[v]:
                if w not in dist:
                    dist[w] = dist[v] + 1
                    queue.append(w)
                    preds[w] = []
                    sigma[w] = 0.0
                if dist[w] == dist[v] + 1:
                    sigma[w] += sigma[v]
                    preds[w].append(v)
        delta = dict.fromkeys(order, 0.0)
        for w in reversed(order):
            for v in preds[w]:
                delta[v] += sigma[v] / sigma[w] * (1.0 + delta[w])
            if w != s:
                result[w] += delta[w]
    scale = n / len(sources) / ((n - 1) * (n - 2))
    return {v: value * scale for v, value in result.items()}
