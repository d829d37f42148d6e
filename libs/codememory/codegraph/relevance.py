"""What recall asks of the graph: how close a memory's code is to the working set, how central it is,
and whether it is suspect (its code changed after it was written).

Why: ranking (``codememory.recall.codeaware``) re-scores ~50 hits at once through the ``CodeRelevance``
protocol; ``GraphRelevance`` implements it for one tenant's graph with batch methods that walk the graph
once per call (a breadth-first search from the working set), not once per memory.

* proximity: ``1 / (1 + d)``, ``d`` the fewest code edges (either direction, current nodes, ``contains``
  included) from any node the memory mentions to any working-set node, capped at ``max_depth`` (farther:
  0). Working-set entries are qualnames or paths (repository-relative, or absolute: matched by suffix).
* named: when the memory mentions a symbol of the working set (a working-set symbol, or one a
  working-set file contains, at any depth) whose name the query says: its bare name (``edit``, at
  least ``min_name`` characters) or a dotted tail (``Editor.edit``), ``1 / sqrt(k)`` for a memory
  that mentions ``k`` symbols: the commit that changed that one function is more about it than a
  sweep that touched thirty. Prose that happens to say a function's name only counts within the
  files the caller works on.
* centrality: the highest normalised PageRank of the memory's mentioned files and symbols, read from the
  current ``CentralitySnapshot`` (never computed here).
* suspect: the memory mentions a symbol whose latest change (or removal) came more than ``grace``
  seconds after the memory was created. The grace keeps a memory of an edit from being made suspect by
  the extraction of that very edit, which is folded moments later. A commit's message (a memory of
  type ``commit``) is never suspect: it says what was done and why on its date, which later changes
  do not make untrue; a later commit that breaks the rule it documents is exactly when it is wanted.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from codememory.codegraph.centrality import Centrality
from codememory.codegraph.graph import CodeGraph
from codememory.codegraph.model import CODE_EDGES, FileNode, MemoryNode, SymbolNode, alive_now
from codememory.codegraph.views import is_current

__all__ = ["GraphRelevance"]

MENTIONS = frozenset({"mentions"})
_WORD = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*")


def _day(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d")


class GraphRelevance:
    """The ``CodeRelevance`` protocol of ``codememory.recall.codeaware`` over one tenant's graph."""

    def __init__(
        self,
        graph: CodeGraph,
        centrality: Centrality,
        *,
        max_depth: int = 4,
        grace: float = 120.0,
        min_name: int = 4,
    ):
        self._graph, self._centrality = graph, centrality
        self._max_depth, self._grace, self._min_name = max_depth, grace, min_name

    # --- batches (what ranking calls) -------------------------------------------------------------

    def proximity(self, memory_ids: Sequence[str], working_set: Sequence[str]) -> Mapping[str, float]:
        graph = self._graph
        with graph.lock:
            dist = self._distances(working_set)
            found: dict[str, float] = {}
            for memory_id in memory_ids:
                near = [dist[t] for t in self._mentioned(memory_id) if t in dist]
                if near:
                    found[memory_id] = 1.0 / (1.0 + min(near))
            return found

    def centrality(self, memory_ids: Sequence[str]) -> Mapping[str, float]:
        snapshot = self._centrality.snapshot
        graph = self._graph
        with graph.lock:
            found: dict[str, float] = {}
            for memory_id in memory_ids:
                keys = [graph.g[t].key for t in self._mentioned(memory_id)]
                best = max((snapshot.normalised_pagerank(k) for k in keys), default=0.0)
                if best > 0:
                    found[memory_id] = best
            return found

    def suspects(self, memory_ids: Sequence[str]) -> Mapping[str, str]:
        with self._graph.lock:
            return {m: reason for m in memory_ids if (reason := self._suspect(m))}

    def named(self, memory_ids: Sequence[str], working_set: Sequence[str], query: str) -> Mapping[str, float]:
        said = _said(query, self._min_name)
        if not said:
            return {}
        graph = self._graph
        with graph.lock:
            targets = {
                idx
                for idx in self._working_symbols(working_set)
                if isinstance(node := graph.g[idx], SymbolNode) and _names(node.qualname) & said
            }
            if not targets:
                return {}
            found: dict[str, float] = {}
            for memory_id in memory_ids:
                mentioned = self._mentioned(memory_id)
                if targets.intersection(mentioned):
                    symbols = sum(isinstance(graph.g[t], SymbolNode) for t in mentioned)
                    found[memory_id] = 1.0 / math.sqrt(max(1, symbols))
            return found

    # --- one memory -------------------------------------------------------------------------------

    def proximity_of(self, memory_id: str, working_set: Sequence[str]) -> float:
        return self.proximity([memory_id], working_set).get(memory_id, 0.0)

    def centrality_of(self, memory_id: str) -> float:
        return self.centrality([memory_id]).get(memory_id, 0.0)

    def suspect(self, memory_id: str) -> str | None:
        with self._graph.lock:
            return self._suspect(memory_id)

    # --- internals (under the lock) ---------------------------------------------------------------

    def _mentioned(self, memory_id: str) -> list[int]:
        idx = self._graph.find(("memory", memory_id))
        return [] if idx is None else [dst for dst, _ in self._graph.out(idx, MENTIONS)]

    def _suspect(self, memory_id: str) -> str | None:
        graph = self._graph
        idx = graph.find(("memory", memory_id))
        if idx is None:
            return None
        memory = graph.g[idx]
        assert isinstance(memory, MemoryNode)
        if memory.memory_type == "commit":
            return None  # history, dated: see the module docstring
        after = memory.created_at + self._grace
        latest: tuple[float, str, str] | None = None
        for target in self._mentioned(memory_id):
            symbol = graph.g[target]
            if not isinstance(symbol, SymbolNode):
                continue
            if not alive_now(symbol.life) and symbol.life[-1][0] > after:
                event = (symbol.life[-1][0], symbol.qualname, "was removed")
            elif symbol.changed_at is not None and symbol.changed_at > after:
                event = (symbol.changed_at, symbol.qualname, "changed")
            else:
                continue
            latest = max(latest, event) if latest else event
        if latest is None:
            return None
        at, qualname, verb = latest
        return f"`{qualname}` {verb} {_day(at)} after this memory ({_day(memory.created_at)})"

    def _distances(self, working_set: Sequence[str]) -> dict[int, int]:
        graph = self._graph
        frontier = sorted(self._working_nodes(working_set))
        dist = dict.fromkeys(frontier, 0)
        for level in range(1, self._max_depth + 1):
            nxt: list[int] = []
            for idx in frontier:
                steps = [*graph.out(idx, CODE_EDGES), *graph.into(idx, CODE_EDGES)]
                for other, _ in steps:
                    if other not in dist and is_current(graph.g[other]):
                        dist[other] = level
                        nxt.append(other)
            frontier = nxt
        return dist

    def _working_symbols(self, working_set: Sequence[str]) -> set[int]:
        """The working set's nodes and every node they contain, at any depth (file, class, method)."""
        found = self._working_nodes(working_set)
        return found.union(*(self._graph.contained(idx) for idx in list(found)))

    def _working_nodes(self, working_set: Sequence[str]) -> set[int]:
        graph = self._graph
        found: set[int] = set()
        for raw in working_set:
            item = raw.replace("\\", "/")
            for repo in graph.repos:
                if (idx := graph.find(("symbol", repo, item))) is not None:
                    found.add(idx)
            base = item.rsplit("/", 1)[-1]
            for repo, path in graph.basenames.get(base, ()):
                if path == item.lstrip("./") or item.endswith("/" + path) or path.endswith("/" + item):
                    idx = graph.index[("file", repo, path)]
                    if isinstance(graph.g[idx], FileNode):
                        found.add(idx)
        return found


def _said(query: str, min_name: int) -> frozenset[str]:
    """The names a query says: each word and dotted name, and each dotted name's tails
    (``Editor.edit()``: ``Editor.edit``, ``edit``); bare words shorter than ``min_name`` are prose."""
    found: set[str] = set()
    for word in _WORD.findall(query):
        parts = word.split(".")
        found.update(".".join(parts[i:]) for i in range(len(parts) - 1))
        if len(parts[-1]) >= min_name:
            found.add(parts[-1])
    return frozenset(found)


def _names(qualname: str) -> frozenset[str]:
    """A symbol's names as a query may say them: its qualname and each dotted tail of it."""
    parts = qualname.split(".")
    return frozenset(".".join(parts[i:]) for i in range(len(parts)))
