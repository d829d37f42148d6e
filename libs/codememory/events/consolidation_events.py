"""Consolidation events: what the consolidate service concluded, and what recall returned.

Every result of a cycle is an event carrying its inputs, so replay rebuilds it without running the
cycle again, and ``codememory history`` can show how a memory came to be.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from codememory.events.base import _Event


class MemorySource(msgspec.Struct, frozen=True, kw_only=True):
    """One memory folded into another: where and when it was said."""

    memory_id: str
    session_id: str = ""
    created_at: float = 0.0
    memory_type: str = ""


class MemoriesMerged(_Event, frozen=True, kw_only=True, tag="memories.merged"):
    """Memories that state the same thing became one: ``canonical_id`` keeps the best wording and its
    sources; each of ``merged_ids`` points to it and leaves recall (history only)."""

    canonical_id: str
    merged_ids: tuple[str, ...]
    sources: tuple[MemorySource, ...] = ()
    importance: float | None = None  # the group's: the highest of its members
    similarity: float = 0.0
    cycle_id: str = ""
    reason: str = ""  # the evidence the cycle merged on (similarity, same statement, sessions)


class MemoriesUnmerged(_Event, frozen=True, kw_only=True, tag="memories.unmerged"):
    """A merge taken back: each of ``memory_ids`` is its own memory again (active, in recall) and
    leaves ``canonical_id``'s sources; later cycles keep the two apart. Empty ``cycle_id``: a person."""

    canonical_id: str
    memory_ids: tuple[str, ...]
    reason: str = ""
    cycle_id: str = ""


class MemorySuperseded(_Event, frozen=True, kw_only=True, tag="memory.superseded"):
    """A later memory changed what ``memory_id`` stated; an empty ``cycle_id`` means a person said so."""

    memory_id: str
    superseded_by: str
    superseded_at: float = 0.0  # when the later memory was stated (seconds since the epoch)
    reason: str = ""
    similarity: float = 0.0
    cycle_id: str = ""


class MemoryAccess(msgspec.Struct, frozen=True, kw_only=True):
    memory_id: str
    session_id: str = ""
    purpose: Literal["recall", "context"] = "recall"
    at: float = 0.0
    # a session context that started its session's record again (a session start, or the start after a
    # compaction): what the session was given before ``at`` no longer counts as in its view; a start
    # that gave nothing is one such access with an empty ``memory_id``
    starts: bool = False


class MemoriesRecalled(_Event, frozen=True, kw_only=True, tag="memories.recalled"):
    """What recall and session context returned (which memories went into which turn), in batches."""

    accesses: tuple[MemoryAccess, ...]


class MemoriesArchived(_Event, frozen=True, kw_only=True, tag="memories.archived"):
    """Memories that expired or were never used leave recall; LOG keeps them, history shows them."""

    memory_ids: tuple[str, ...]
    reason: str = ""
    cycle_id: str = ""


class ImportanceAdjustment(msgspec.Struct, frozen=True, kw_only=True):
    memory_id: str
    importance: float


class ImportanceDecayed(_Event, frozen=True, kw_only=True, tag="importance.decayed"):
    """Importance after age and use: what nobody used fades, what is used or tied to live code stays."""

    adjustments: tuple[ImportanceAdjustment, ...]
    cycle_id: str = ""


InsightKind = Literal["fix", "correction", "convention"]


class InsightDerived(_Event, frozen=True, kw_only=True, tag="insight.derived"):
    """A reusable lesson from a session: a memory of type ``insight`` (``phrased_by`` names the model
    that worded it; empty when it was extracted)."""

    insight_id: str
    kind: InsightKind
    title: str
    situation: str = ""
    what_worked: str = ""
    evidence_ids: tuple[str, ...] = ()
    session_id: str = ""
    repo: str = ""
    paths: tuple[str, ...] = ()
    phrased_by: str = ""
    cycle_id: str = ""


class SessionSummarized(_Event, frozen=True, kw_only=True, tag="session.summarized"):
    """What a finished session did, for the next session's context: a memory of type ``summary``."""

    summary_id: str
    session_id: str
    summary: str
    repo: str = ""
    paths: tuple[str, ...] = ()
    memory_ids: tuple[str, ...] = ()
    phrased_by: str = ""
    cycle_id: str = ""
    ended_at: float = 0.0  # the session's last step (seconds since the epoch): the summary's own time


class MemoryLinks(msgspec.Struct, frozen=True, kw_only=True):
    memory_id: str
    neighbours: tuple[str, ...] = ()  # nearest memories by meaning, best first
    code: tuple[str, ...] = ()  # repository paths the memory names or touches that exist


class MemoriesLinked(_Event, frozen=True, kw_only=True, tag="memories.linked"):
    links: tuple[MemoryLinks, ...]
    cycle_id: str = ""


class ConsolidationCompleted(_Event, frozen=True, kw_only=True, tag="consolidation.completed"):
    """A cycle ended: what it did, and the LOG position it saw (its inputs are the events before it)."""

    cycle_id: str
    trigger: Literal["schedule", "request"] = "schedule"
    up_to_seq: int = 0
    merged: int = 0
    superseded: int = 0
    archived: int = 0
    decayed: int = 0
    insights: int = 0
    summaries: int = 0
    linked: int = 0
    took_s: float = 0.0
