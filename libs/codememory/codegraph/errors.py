"""What the code graph can report, so callers (the gateway's RPCs) handle one small tree.

GraphError               a graph request failed
├── UnknownNodeError     the file, symbol, memory or commit asked about is not in the graph
└── InvalidQueryError    the query itself is malformed (bad depth, edge kind, time or limit)
"""

from __future__ import annotations

__all__ = ["GraphError", "InvalidEventError", "InvalidQueryError", "UnknownNodeError"]


class GraphError(Exception):
    """Base of the code graph errors."""


class UnknownNodeError(GraphError):
    """The node named is not in this tenant's graph."""

    def __init__(self, what: str) -> None:
        super().__init__(f"not in the graph: {what}")
        self.what = what


class InvalidQueryError(GraphError):
    """A query argument is out of range or malformed."""


class InvalidEventError(GraphError):
    """The event lacks what the graph keys it by; the graph is unchanged and its position not advanced."""
