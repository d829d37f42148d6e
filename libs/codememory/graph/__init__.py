"""The code graph projection: files, symbols, memories, sessions and commits, and queries over them.

A pure library (no NATS, no gRPC): ``CodeGraph.apply(envelope, seq)`` folds LOG events; ``queries``,
``centrality`` and ``relevance`` read it. See ``store.py`` for the locking rule.

The ``__path__`` extension lets the graph *service* package (``services/graph/codememory/graph``) share
the ``codememory.graph`` name with this library when both are installed.
"""

from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)

from codememory.graph.errors import GraphError, InvalidEventError, InvalidQueryError, UnknownNodeError
from codememory.graph.store import CodeGraph
from codememory.graph.tenants import TenantGraphs

__all__ = [
    "CodeGraph",
    "GraphError",
    "InvalidEventError",
    "InvalidQueryError",
    "TenantGraphs",
    "UnknownNodeError",
]
