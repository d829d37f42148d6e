"""Code-aware ranking: memories near what the agent is working on rank higher; stale ones lower.

A memory linked (through the code graph) to files and symbols close to the caller's working set, or to
central code, gains score; so does one linked to a symbol of the working set that the query names
("edit keeps going after the context was closed", the working set holding ``Editor.edit``'s file):
among the memories of a file, those about the very function asked about come first. One whose linked
code changed after it was written is *suspect*: it still
comes back, ranked lower, with the reason, so an agent re-checks it instead of trusting it. The graph
is behind the small ``CodeRelevance`` protocol so this stays pure and testable without it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import msgspec

from codememory.recall.recaller import RecallHit
from codememory.recall.scoring import parse_floats


class CodeRelevance(Protocol):
    """What ranking asks of the code graph, for a batch of memories of one tenant."""

    def proximity(self, memory_ids: Sequence[str], working_set: Sequence[str]) -> Mapping[str, float]: ...

    def centrality(self, memory_ids: Sequence[str]) -> Mapping[str, float]: ...

    def suspects(self, memory_ids: Sequence[str]) -> Mapping[str, str]: ...

    def named(
        self, memory_ids: Sequence[str], working_set: Sequence[str], query: str
    ) -> Mapping[str, float]: ...


@dataclass(frozen=True, kw_only=True)
class CodeWeights:
    graph: float = 0.15  # closeness of a memory's code to the working set, in [0, 1]
    centrality: float = 0.05  # normalised PageRank of its code, in [0, 1]
    # the memory is about a working-set symbol the query names, in [0, 1] (0.15 -> 0.2 with the gateway's
    # wider code pool: benchmarks/RESULTS.md, decisions recall)
    named: float = 0.2
    suspect_factor: float = 0.7  # a suspect memory's total is multiplied by this


def parse_code_weights(spec: str) -> CodeWeights:
    """``graph=0.15,named=0.15`` over the defaults (the gateway's ``code_weights`` setting)."""
    return parse_floats(spec, CodeWeights, CodeWeights.__dataclass_fields__)


@dataclass(frozen=True, kw_only=True)
class CodeAwareHit:
    hit: RecallHit
    graph: float = 0.0
    centrality: float = 0.0
    named: float = 0.0
    suspect: str = ""


def rerank(
    hits: Sequence[RecallHit],
    relevance: CodeRelevance,
    working_set: Sequence[str],
    weights: CodeWeights,
    query: str = "",
) -> list[CodeAwareHit]:
    """The hits re-scored with their code parts, best first (ties keep their previous order)."""
    ids = [h.memory_id for h in hits]
    near = relevance.proximity(ids, working_set) if working_set and weights.graph else {}
    about = relevance.named(ids, working_set, query) if working_set and query and weights.named else {}
    central = relevance.centrality(ids) if weights.centrality else {}
    suspects = relevance.suspects(ids)
    ranked: list[tuple[float, int, CodeAwareHit]] = []
    for order, hit in enumerate(hits):
        graph = max(0.0, min(1.0, near.get(hit.memory_id, 0.0)))
        centrality = max(0.0, min(1.0, central.get(hit.memory_id, 0.0)))
        named = max(0.0, min(1.0, about.get(hit.memory_id, 0.0)))
        suspect = suspects.get(hit.memory_id, "")
        code = weights.graph * graph + weights.centrality * centrality + weights.named * named
        total = hit.parts.total + code
        if suspect:
            total *= weights.suspect_factor
        rescored = replace(hit, parts=msgspec.structs.replace(hit.parts, total=total))
        ranked.append(
            (
                -total,
                order,
                CodeAwareHit(hit=rescored, graph=graph, centrality=centrality, named=named, suspect=suspect),
            )
        )
    ranked.sort(key=lambda item: (item[0], item[1]))
    return [item[2] for item in ranked]
