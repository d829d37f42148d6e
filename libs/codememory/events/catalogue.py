"""Domain events: the facts in the immutable log, named in the past tense.

Each is a frozen, keyword-only msgspec struct with a stable tag (``type`` on the wire). Tags never
change once shipped; new fields get defaults so older events still decode. Unknown fields are
tolerated (no ``forbid_unknown_fields``), so a newer producer never crashes an older consumer.

Agent-facing events carry ``session_id`` and ``agent`` so every memory can be traced to the session
that produced it. Derived facts (``MemoryEmbedded``) are events too: replay never re-runs a model.

The events are defined by family (``agent_events``, ``memory_events``, ``code_events``,
``consolidation_events``, over the bases in ``base``); this module is the one catalogue: every event is
imported from here, and ``Event`` lists them all for the envelope's tagged union.
"""

from __future__ import annotations

import typing

from codememory.events.agent_events import (
    CompactionCheckpointed,
    ObservationRecorded,
    PromptSubmitted,
    SessionEnded,
    SessionStarted,
    SubagentCompleted,
    ToolFailed,
    ToolKind,
    ToolObserved,
)
from codememory.events.code_events import (
    CodeRef,
    CommitRecorded,
    CommitReviewed,
    FileChange,
    FileDeleted,
    ForgettingDetected,
    ImportRef,
    RefKind,
    Symbol,
    SymbolChange,
    SymbolKind,
    SymbolsEmbedded,
    SymbolsExtracted,
)
from codememory.events.consolidation_events import (
    ConsolidationCompleted,
    ImportanceAdjustment,
    ImportanceDecayed,
    InsightDerived,
    InsightKind,
    MemoriesArchived,
    MemoriesLinked,
    MemoriesMerged,
    MemoriesRecalled,
    MemoriesUnmerged,
    MemoryAccess,
    MemoryLinks,
    MemorySource,
    MemorySuperseded,
    SessionSummarized,
)
from codememory.events.memory_events import (
    DataErased,
    EmbeddingBackfillCompleted,
    EmbeddingModelRequested,
    MemoryDeprecated,
    MemoryEmbedded,
    MemoryForgotten,
    MemoryRefined,
    MemoryScope,
    MemoryStored,
)

__all__ = [
    "CodeRef",
    "CommitRecorded",
    "CommitReviewed",
    "CompactionCheckpointed",
    "ConsolidationCompleted",
    "DataErased",
    "EmbeddingBackfillCompleted",
    "EmbeddingModelRequested",
    "Event",
    "FileChange",
    "FileDeleted",
    "ForgettingDetected",
    "ImportRef",
    "ImportanceAdjustment",
    "ImportanceDecayed",
    "InsightDerived",
    "InsightKind",
    "MemoriesArchived",
    "MemoriesLinked",
    "MemoriesMerged",
    "MemoriesRecalled",
    "MemoriesUnmerged",
    "MemoryAccess",
    "MemoryDeprecated",
    "MemoryEmbedded",
    "MemoryForgotten",
    "MemoryLinks",
    "MemoryRefined",
    "MemoryScope",
    "MemorySource",
    "MemoryStored",
    "MemorySuperseded",
    "ObservationRecorded",
    "PromptSubmitted",
    "RefKind",
    "SessionEnded",
    "SessionStarted",
    "SessionSummarized",
    "SubagentCompleted",
    "Symbol",
    "SymbolChange",
    "SymbolKind",
    "SymbolsEmbedded",
    "SymbolsExtracted",
    "ToolFailed",
    "ToolKind",
    "ToolObserved",
    "kinds_except",
]

Event = (
    SessionStarted
    | SessionEnded
    | PromptSubmitted
    | ToolObserved
    | ToolFailed
    | SubagentCompleted
    | CompactionCheckpointed
    | ObservationRecorded
    | MemoryStored
    | MemoryRefined
    | MemoryDeprecated
    | MemoryForgotten
    | DataErased
    | MemoryEmbedded
    | SymbolsExtracted
    | FileDeleted
    | CommitRecorded
    | SymbolsEmbedded
    | MemoriesMerged
    | MemoriesUnmerged
    | MemorySuperseded
    | MemoriesRecalled
    | MemoriesArchived
    | ImportanceDecayed
    | InsightDerived
    | SessionSummarized
    | MemoriesLinked
    | ConsolidationCompleted
    | CommitReviewed
    | ForgettingDetected
    | EmbeddingModelRequested
    | EmbeddingBackfillCompleted
)


def kinds_except(*excluded: type[Event]) -> tuple[type[Event], ...]:
    """Every event kind of the catalogue but ``excluded``: what a consumer reads that acts on nearly
    everything (a kind added to the catalogue later is read unless it is excluded here too)."""
    return tuple(kind for kind in typing.get_args(Event) if kind not in excluded)
