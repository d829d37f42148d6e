"""What graph queries answer: frozen values copied out of the graph, safe to hand to another thread.

Why a module of its own: ``queries`` is the graph's one query API and these are its return types; the
gateway's converters and the review service import them without importing the queries' code.
"""

from __future__ import annotations

import msgspec

from codememory.codegraph.views import NodeRef

__all__ = ["CoChanged", "Dependent", "Neighbour", "PathStep", "StaleFile", "SymbolInfo"]


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
    docstring: str = ""  # its first paragraph, at most ``model.DOC_CHARS``


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
