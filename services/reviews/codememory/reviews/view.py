"""What the reviews service knows: each tenant's code graph and sessions, and what it already recorded.

Each replica folds all of LOG itself (its own ordered consumer, like the gateway and consolidate), so
a commit is reviewed against the graph as LOG left it and an edit is judged against the turns before
it, with no call to another service. Only code facts and commits go into the graphs (memories are the
gateway's business here). The reviews and detections already in LOG are remembered by id, so a
redelivered or replayed commit or edit is not recorded twice. Rebuilt from LOG on every start; an
erasure (``MemoryForgotten`` for each memory it covers, ``DataErased`` for its sessions) takes the
text out of the sessions at once, so the process does not hold it until it restarts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from codememory.codegraph import CodeGraph, TenantGraphs
from codememory.events import (
    CommitRecorded,
    CommitReviewed,
    DataErased,
    Envelope,
    FileDeleted,
    ForgettingDetected,
    MemoryForgotten,
    PromptSubmitted,
    SymbolsExtracted,
    ToolObserved,
)
from codememory.projection import Decoded
from codememory.projection.position import InMemoryPosition
from codememory.reviews.edits import edits_from_excerpt
from codememory.reviews.sessions import Sessions

__all__ = ["ReviewsView", "TenantReviews"]


@dataclass
class TenantReviews:
    sessions: Sessions = field(default_factory=Sessions)
    recorded: set[str] = field(default_factory=set)  # review and detection ids already in LOG


class ReviewsView(InMemoryPosition):
    """LOG folded per tenant; implements ``codememory.projection.Projection``."""

    def __init__(self) -> None:
        super().__init__()
        self.graphs = TenantGraphs()
        self.tenants: dict[str, TenantReviews] = {}

    def tenant(self, name: str) -> TenantReviews:
        return self.tenants.setdefault(name, TenantReviews())

    def graph(self, tenant: str) -> CodeGraph:
        return self.graphs.graph(tenant)

    def apply_batch(self, decoded: Decoded) -> int:
        applied = 0
        for seq, envelope in decoded:
            if seq <= self.last_seq:
                continue
            self.apply(seq, envelope)
            self.last_seq = seq
            applied += 1
        return applied

    def apply(self, seq: int, envelope: Envelope) -> None:
        event = envelope.payload
        match event:
            case SymbolsExtracted() | FileDeleted() | CommitRecorded():
                self.graphs.apply(envelope, seq)
            case PromptSubmitted() if event.prompt.strip():
                turns = self.tenant(envelope.tenant).sessions.touch(event.session_id)
                turns.prompt(seq, event.prompt, envelope.event_id)
            case ToolObserved(kind="edit", phase="post", succeeded=True) if event.session_id:
                edits = edits_from_excerpt(event.input_excerpt, event.paths)
                if edits:
                    turns = self.tenant(envelope.tenant).sessions.touch(event.session_id)
                    turns.edits(seq, edits, envelope.event_id)
            case CommitReviewed():
                self.tenant(envelope.tenant).recorded.add(event.review_id)
            case ForgettingDetected():
                self.tenant(envelope.tenant).recorded.add(event.detection_id)
            case MemoryForgotten():
                self.tenant(envelope.tenant).sessions.forget(event.memory_id)
            case DataErased():
                for session_id in event.session_ids:
                    self.tenant(envelope.tenant).sessions.drop(session_id)
            case _:
                pass
