"""What the reviews service knows: each tenant's code graph and sessions, and what it already recorded.

Each replica folds all of LOG itself (its own ordered consumer, like the gateway and consolidate), so
a commit is reviewed against the graph as LOG left it and an edit is judged against the turns before
it, with no call to another service. Only code facts and commits go into the graphs (memories are the
gateway's business here). The reviews and detections already in LOG are remembered by id, so a
redelivered or replayed commit or edit is not recorded twice. Rebuilt from LOG on every start; an
erasure (``MemoryForgotten`` for each memory it covers, ``DataErased`` for its sessions) takes the
text out of the sessions at once, so the process does not hold it until it restarts.

Code facts are folded into the graphs when a review reads them (``graph``), not as they arrive: an
index of thousands of files would otherwise resolve every reference here too, in the same process as
the gateway's own fold in the one-process stack, while the index is being recorded (Django: 4 s of
its 20). The fold is the same, in LOG order, so the graph a review sees is the one LOG left. At most
``MAX_DEFERRED`` facts wait; beyond that they are folded as they come.

``FOLDS`` lists the kinds ``apply`` acts on, and the service's follower reads only those from LOG
(``bus.follower``): the memories and vectors of a bulk import never reach this process's fold.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import ClassVar

from codememory.codegraph import CodeGraph, TenantGraphs
from codememory.events import (
    CommitRecorded,
    CommitReviewed,
    DataErased,
    Envelope,
    Event,
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

__all__ = ["MAX_DEFERRED", "ReviewsView", "TenantReviews"]

MAX_DEFERRED = 20_000  # code facts held unfolded (about a large repository's index)


@dataclass
class TenantReviews:
    sessions: Sessions = field(default_factory=Sessions)
    recorded: set[str] = field(default_factory=set)  # review and detection ids already in LOG


class ReviewsView(InMemoryPosition):
    """LOG folded per tenant; implements ``codememory.projection.Projection``."""

    FOLDS: ClassVar[tuple[type[Event], ...]] = (  # every kind ``apply`` matches below
        SymbolsExtracted,
        FileDeleted,
        CommitRecorded,
        PromptSubmitted,
        ToolObserved,
        CommitReviewed,
        ForgettingDetected,
        MemoryForgotten,
        DataErased,
    )

    def __init__(self) -> None:
        super().__init__()
        self.graphs = TenantGraphs()
        self.tenants: dict[str, TenantReviews] = {}
        self._deferred: list[tuple[int, Envelope]] = []  # code facts not folded into ``graphs`` yet
        self._deferred_lock = threading.Lock()

    def tenant(self, name: str) -> TenantReviews:
        return self.tenants.setdefault(name, TenantReviews())

    def graph(self, tenant: str) -> CodeGraph:
        """The tenant's graph with every code fact folded so far (the fold runs in the caller's thread)."""
        self.fold_deferred()
        return self.graphs.graph(tenant)

    def fold_deferred(self) -> int:
        """Fold the code facts that wait, in LOG order; returns how many."""
        with self._deferred_lock:
            deferred, self._deferred = self._deferred, []
            for seq, envelope in deferred:
                self.graphs.apply(envelope, seq)
        return len(deferred)

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
                with self._deferred_lock:
                    self._deferred.append((seq, envelope))
                if len(self._deferred) > MAX_DEFERRED:
                    self.fold_deferred()
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
