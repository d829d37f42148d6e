"""What the consolidate service knows: every tenant's memories, sessions and files, folded from LOG.

Each replica folds all of LOG itself (its own ordered consumer, like the gateway), so a cycle reads
memory in process and never asks another service. The view is a projection (``codememory.projection``):
its position lives in memory and it is rebuilt from LOG on start. It folds the cycle's own events
too, so a memory merged or superseded by one cycle is not a candidate for the next, and a replayed
cycle result changes nothing twice. An erasure takes its text out at once, not at the next restart:
``MemoryForgotten`` drops the memory and its session step, ``DataErased`` the sessions it names.

``FOLDS``: the kinds it reads from LOG, every kind but those ``apply`` passes over (a new kind is read
until it is listed there); the service's follower reads only those (``bus.follower``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from codememory.consolidate.sessions import SessionLog, step_of
from codememory.events import (
    CommitReviewed,
    ConsolidationCompleted,
    DataErased,
    EmbeddingBackfillCompleted,
    EmbeddingModelRequested,
    Envelope,
    Event,
    FileDeleted,
    ForgettingDetected,
    ImportanceDecayed,
    InsightDerived,
    MemoriesArchived,
    MemoriesLinked,
    MemoriesMerged,
    MemoriesRecalled,
    MemoriesUnmerged,
    MemoryDeprecated,
    MemoryEmbedded,
    MemoryForgotten,
    MemoryRefined,
    MemorySuperseded,
    ObservationRecorded,
    SessionEnded,
    SessionStarted,
    SessionSummarized,
    SymbolsEmbedded,
    SymbolsExtracted,
    ToolObserved,
    kinds_except,
)
from codememory.memory import memory_from_envelope, text_digest
from codememory.memory.consolidated import Standing, merge_takes
from codememory.projection import Decoded
from codememory.projection.position import InMemoryPosition


@dataclass(kw_only=True)
class Remembered:
    """One memory as a cycle sees it."""

    memory_id: str
    seq: int
    text: str
    memory_type: str
    repo: str
    session_id: str
    created_at: float
    paths: tuple[str, ...]
    importance: float
    base_importance: float  # as stated or drafted; decay starts from it
    digest: str
    state: str = "active"
    merged_into: str = ""  # the canonical memory, while merged
    vector: np.ndarray | None = None
    vector_seq: int = 0  # when its vector arrived: a cycle compares what is new since the last one
    restated: int = 1  # 1 + the restatements merged into it
    accesses: int = 0
    last_access: float = 0.0
    last_stated: float = 0.0  # the latest restatement merged into it: stating a fact again is using it
    kind: str = ""  # the tool kind of an observation (read, search, edit ...)


def _last_stated(memories: dict[str, Remembered], canonical_id: str) -> float:
    """The latest time of the restatements still merged into ``canonical_id`` (0 for none): after a
    merge is taken back (rare: a person's), the rest of the restatements say when it was last stated."""
    merged = (m for m in memories.values() if m.merged_into == canonical_id and m.state == "merged")
    return max((m.created_at for m in merged), default=0.0)


def _standing(memories: dict[str, Remembered], memory_id: str) -> Standing | None:
    m = memories.get(memory_id)
    return None if m is None else (m.state, m.merged_into)


@dataclass
class TenantView:
    memories: dict[str, Remembered] = field(default_factory=dict)
    sessions: dict[str, SessionLog] = field(default_factory=dict)
    files: dict[str, set[str]] = field(default_factory=dict)  # repo -> paths that exist
    derived: set[str] = field(default_factory=set)  # insight and summary ids already in LOG
    insights_of: dict[str, list[str]] = field(default_factory=dict)  # evidence id -> insight ids
    done_up_to: int = 0  # the LOG position the last completed cycle saw
    activity_seq: int = 0  # the last event a cycle has work from (memories, vectors, session steps)
    links_done: set[str] = field(default_factory=set)
    apart: set[frozenset[str]] = field(default_factory=set)  # pairs a person unmerged: never merged again


def _unit(vector: tuple[float, ...]) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return array / norm if norm > 0 else array


def _drop_step(view: TenantView, session_id: str | None, memory_id: str) -> None:
    """The step a forgotten memory was (memories take their event's id); every session when the
    memory's own session is not known."""
    sessions = view.sessions.values() if session_id is None else [view.sessions.get(session_id)]
    for session in sessions:
        if session is not None and any(step.event_id == memory_id for step in session.steps):
            session.steps = [step for step in session.steps if step.event_id != memory_id]


class ConsolidationView(InMemoryPosition):
    """LOG folded per tenant; implements ``codememory.projection.Projection``."""

    FOLDS: ClassVar[tuple[type[Event], ...]] = kinds_except(  # neither memories, steps nor changes
        SessionStarted,
        ObservationRecorded,
        SymbolsEmbedded,
        CommitReviewed,
        ForgettingDetected,
        EmbeddingModelRequested,
        EmbeddingBackfillCompleted,
    )

    def __init__(self) -> None:
        super().__init__()
        self.tenants: dict[str, TenantView] = {}

    def apply_batch(self, decoded: Decoded) -> int:
        applied = 0
        for seq, envelope in decoded:
            if seq <= self.last_seq:
                continue
            self.apply(seq, envelope)
            self.last_seq = seq
            applied += 1
        return applied

    def tenant(self, name: str) -> TenantView:
        return self.tenants.setdefault(name, TenantView())

    def apply(self, seq: int, envelope: Envelope) -> None:
        view = self.tenant(envelope.tenant)
        draft = memory_from_envelope(envelope)
        event = envelope.payload
        step = step_of(seq, envelope)
        if step is not None or draft is not None or isinstance(event, MemoryEmbedded | SessionEnded):
            view.activity_seq = seq
        if step is not None:
            session = view.sessions.setdefault(step.session_id, SessionLog(step.session_id, step.repo))
            session.add(step)
        if draft is not None:
            if draft.memory_id not in view.memories:
                view.memories[draft.memory_id] = Remembered(
                    memory_id=draft.memory_id,
                    seq=seq,
                    text=draft.text,
                    memory_type=draft.memory_type,
                    repo=draft.repo,
                    session_id=draft.session_id,
                    created_at=draft.created_at,
                    paths=draft.paths,
                    importance=draft.importance,
                    base_importance=draft.importance,
                    digest=text_digest(draft.text),
                    kind=event.kind if isinstance(event, ToolObserved) else "",
                )
            if isinstance(event, InsightDerived | SessionSummarized):
                view.derived.add(draft.memory_id)
            if isinstance(event, InsightDerived):
                for evidence in event.evidence_ids:
                    view.insights_of.setdefault(evidence, []).append(event.insight_id)
            if isinstance(event, SessionSummarized):  # its steps did their work: keep the view small
                view.sessions.pop(event.session_id, None)
            return
        self._apply_change(view, seq, envelope)

    def _apply_change(self, view: TenantView, seq: int, envelope: Envelope) -> None:
        event = envelope.payload
        memories = view.memories
        match event:
            case MemoryEmbedded() if (m := memories.get(event.memory_id)) and m.digest == event.text_digest:
                m.vector, m.vector_seq = _unit(event.vector), seq
            case MemoryRefined() if m := memories.get(event.memory_id):
                if event.text:
                    m.text, m.digest, m.vector = event.text, text_digest(event.text), None
                if event.importance is not None:
                    m.importance = m.base_importance = float(event.importance)
            case MemoryDeprecated() if m := memories.get(event.memory_id):
                m.state = "deprecated"
            case MemoryForgotten():
                forgotten = memories.pop(event.memory_id, None)
                _drop_step(view, forgotten.session_id if forgotten else None, event.memory_id)
            case DataErased():
                for session_id in event.session_ids:
                    view.sessions.pop(session_id, None)
            case MemoriesMerged():  # what the projection takes (``merge_takes``: the first merge wins)
                taken = merge_takes(event, lambda mid: _standing(memories, mid))
                fresh = [memories[mid] for mid in taken if memories[mid].state != "merged"]
                for m in fresh:
                    m.state, m.merged_into = "merged", event.canonical_id
                if taken and (c := memories.get(event.canonical_id)) is not None:
                    c.restated += len(fresh)
                    c.last_stated = max([c.last_stated, *(m.created_at for m in fresh)])
                    if event.importance is not None:
                        c.importance = max(c.importance, event.importance)
            case MemoriesUnmerged():
                for memory_id in event.memory_ids:
                    view.apart.add(frozenset((memory_id, event.canonical_id)))
                    m = memories.get(memory_id)
                    if m is not None and m.state == "merged" and m.merged_into == event.canonical_id:
                        m.state, m.merged_into = "active", ""
                        if (c := memories.get(event.canonical_id)) is not None:
                            c.restated = max(1, c.restated - 1)
                if (c := memories.get(event.canonical_id)) is not None:
                    c.last_stated = _last_stated(memories, c.memory_id)
            case MemorySuperseded() if m := memories.get(event.memory_id):
                m.state = "superseded"
            case MemoriesArchived():
                for archived in event.memory_ids:
                    if (m := memories.get(archived)) is not None:
                        m.state = "archived"
            case ImportanceDecayed():
                for adjustment in event.adjustments:
                    if (m := memories.get(adjustment.memory_id)) is not None:
                        m.importance = adjustment.importance
            case MemoriesRecalled():
                for access in event.accesses:
                    if (m := memories.get(access.memory_id)) is not None:
                        m.accesses += 1
                        m.last_access = max(m.last_access, access.at)
            case SessionEnded():
                session = view.sessions.get(event.session_id)
                if session is not None:
                    session.ended = True
            case SymbolsExtracted():
                view.files.setdefault(event.repo, set()).add(event.path)
            case FileDeleted():
                view.files.get(event.repo, set()).discard(event.path)
            case MemoriesLinked():
                view.links_done.update(link.memory_id for link in event.links)
            case ConsolidationCompleted():
                view.done_up_to = max(view.done_up_to, event.up_to_seq)
            case _:
                pass
