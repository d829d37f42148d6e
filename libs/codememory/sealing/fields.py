"""Which fields of which events are sealed in LOG, and under which record's key: the one list.

A field is sealed when it can carry what a person typed, what a tool printed, or what was learnt from
either: prompts, tool input and output, memory text, observations, insights, summaries. Ids, paths,
repositories, times, vectors and counts stay clear: consumers route, deduplicate and fold on them.

Each sealed event names one *record*: ``s:<session_id>`` for what an agent session produced,
``m:<memory_id>`` for a memory (insights and summaries are memories). A record has its own key, so one
memory or one session can be erased; that key is wrapped by the key of the record's user (per tenant),
so one user can be erased at once. ``user`` is who the record belongs to; ``session`` ties a memory to
the session it came from (``erase --session`` erases both); empty means unknown (the record then
inherits the session's user, or the tenant's default user).

Not sealed, deliberately: ``CommitRecorded`` author and message (they are a copy of the repository's
history, which erasure cannot reach), ``MemoryStored.metadata`` and ``tags`` (labels an API caller
chooses), ``cwd`` and paths, and the vectors of ``MemoryEmbedded`` (see docs/security.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from codememory.events import (
    CompactionCheckpointed,
    Event,
    ForgettingDetected,
    InsightDerived,
    MemoryRefined,
    MemoryStored,
    ObservationRecorded,
    PromptSubmitted,
    SessionSummarized,
    SubagentCompleted,
    ToolFailed,
    ToolObserved,
)

__all__ = ["SEALED_FIELDS", "Record", "record_of"]

SEALED_FIELDS: dict[type[Event], tuple[str, ...]] = {
    PromptSubmitted: ("prompt",),
    ToolObserved: ("command", "summary", "input_excerpt", "output_excerpt"),
    ToolFailed: ("command", "error"),
    SubagentCompleted: ("result",),
    CompactionCheckpointed: ("summary",),
    ObservationRecorded: ("summary", "fields"),
    ForgettingDetected: ("instruction",),
    MemoryStored: ("text",),
    MemoryRefined: ("text",),
    InsightDerived: ("title", "situation", "what_worked"),
    SessionSummarized: ("summary",),
}


@dataclass(frozen=True)
class Record:
    record_id: str
    user: str = ""
    session: str = ""
    user_known: bool = True  # False: take the user of ``session``'s record when there is one


def record_of(event: Event) -> Record | None:
    """The record whose key seals ``event``'s fields; None when the event has nothing sealed."""
    match event:
        case MemoryStored():
            return Record(f"m:{event.memory_id}", event.scope.user, event.scope.session_id)
        case MemoryRefined():
            return Record(f"m:{event.memory_id}", user_known=False)
        case InsightDerived():
            return Record(f"m:{event.insight_id}", session=event.session_id, user_known=False)
        case SessionSummarized():
            return Record(f"m:{event.summary_id}", session=event.session_id, user_known=False)
        case (
            PromptSubmitted()
            | ToolObserved()
            | ToolFailed()
            | SubagentCompleted()
            | CompactionCheckpointed()
            | ObservationRecorded()
            | ForgettingDetected()
        ):
            return Record(f"s:{event.session_id}", event.user, event.session_id)
        case _:
            return None
