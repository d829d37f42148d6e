"""A canonical hash of a graph: nodes with their attributes, edges with their kinds and weights.

Why: the graph is a projection rebuilt from LOG on start; ``digest`` lets replay prove that the graph
it rebuilt equals the live one (as the memory projection's digest does for the vector index). Node and
edge indices are rustworkx internals, so everything is keyed by node keys and sorted first.
"""

from __future__ import annotations

import hashlib

import msgspec

from codememory.codegraph.store import GraphStore

__all__ = ["graph_digest"]

_encoder = msgspec.json.Encoder(order="deterministic")


def graph_digest(graph: GraphStore) -> str:
    h = hashlib.sha256()
    for key, idx in sorted(graph.index.items()):
        node = graph.g[idx]
        h.update(_encoder.encode([type(node).__name__, list(key), node]))
        h.update(b"\n")
    edges = sorted(
        (graph.g[src].key, graph.g[dst].key, edge.kind, edge.weight)
        for src, dst, edge in graph.g.weighted_edge_list()
    )
    for src_key, dst_key, kind, weight in edges:
        h.update(_encoder.encode([list(src_key), list(dst_key), kind, weight]))
        h.update(b"\n")
    h.update(_encoder.encode([graph.last_seq, sorted(graph.forgotten)]))
    return h.hexdigest()
