"""The code graph projection: files, symbols, memories, sessions and commits, and queries over them.

A pure library (no NATS, no gRPC): ``CodeGraph.apply(envelope, seq)`` is the one entry point that
writes (folds LOG events); ``queries`` is the one read API (each query takes the lock itself; ``read``
runs a many-question reader such as a review over one state), and ``centrality`` and ``relevance``
read it likewise. See ``store.py`` for the locking rule.
The graph *service* (``services/graph``, ``codememory.graph``) extracts facts; this library folds them.
"""

from codememory.codegraph.errors import GraphError, InvalidEventError, InvalidQueryError, UnknownNodeError
from codememory.codegraph.graph import CodeGraph
from codememory.codegraph.tenants import TenantGraphs

__all__ = [
    "CodeGraph",
    "GraphError",
    "InvalidEventError",
    "InvalidQueryError",
    "TenantGraphs",
    "UnknownNodeError",
]
