"""Which fields of which events are sealed in LOG, and under which record's key: the one list.

A field is sealed when it can carry what a person typed, what a tool printed, or what was learnt from
either: prompts, tool input and output, memory text, observations, insights, summaries, and what can
be turned back into such text or confirm a guess of it: a memory's embedding and its text's digest
(``SEALED_VECTORS``: a vector is sealed as bytes into a string field beside it, and is absent, ``()``,
when its key is gone). Ids, paths, repositories, times and counts stay clear: consumers route,
deduplicate and fold on them.

Each sealed event names one *record*: ``s:<session_id>`` for what an agent session produced,
``m:<memory_id>`` for a memory (insights and summaries are memories). A record has its own key, so one
memory or one session can be erased; that key is wrapped by the key of the record's user (per tenant),
so one user can be erased at once. A session's key is a tree with a key per *leaf* (``tree.py``): each
event is sealed with the leaf of its own id, so one event (a memory recorded from the session) can be
erased and the others stay. ``user`` is who the record belongs to; ``session`` ties a memory to the
session it came from (``erase --session`` erases both); empty means unknown (the record then inherits
the session's user, or the tenant's default user). A ``MemoryEmbedded`` names the record of the text
it embeds (set by the embed service), so erasing that text erases its vector too.

What repeats another event's text goes with it when that event is erased:
- an insight or a session summary names its ``sources`` (its evidence, the steps it quotes): its key
  remembers them, erasing any of them destroys it (``erase.derived``), and one written after a source
  was erased is written ``[erased]`` (``KeyRing.sources_erased``);
- a forgetting detection is sealed with the leaf of the prompt it quotes (``instruction_id``), a
  ``pre``-phase tool event with the leaf of its call (``tool_leaf``), which erasing the call's outcome
  punctures too (``companion_leaves``).

Not sealed, deliberately: ``CommitRecorded`` author and message (they are a copy of the repository's
history, which erasure cannot reach), ``MemoryStored.metadata`` and ``tags`` (labels an API caller
chooses), ``cwd`` and paths, and vectors of texts that are not sealed themselves (a commit's).
"""

from __future__ import annotations

from dataclasses import dataclass

from codememory.events import (
    CompactionCheckpointed,
    Event,
    ForgettingDetected,
    InsightDerived,
    MemoryEmbedded,
    MemoryRefined,
    MemoryStored,
    ObservationRecorded,
    PromptSubmitted,
    SessionSummarized,
    SubagentCompleted,
    ToolFailed,
    ToolObserved,
)

__all__ = ["SEALED_FIELDS", "SEALED_VECTORS", "Record", "companion_leaves", "record_of", "tool_leaf"]

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
    MemoryEmbedded: ("text_digest",),
}
# vector fields, sealed as packed floats into the string field named beside them
SEALED_VECTORS: dict[type[Event], tuple[tuple[str, str], ...]] = {
    MemoryEmbedded: (("vector", "sealed_vector"),),
}


@dataclass(frozen=True)
class Record:
    record_id: str
    user: str = ""
    session: str = ""
    user_known: bool = True  # False: take the user of ``session``'s record when there is one
    leaf: str = ""  # a session's record: the leaf whose key seals the event (empty: the event's id)
    sources: tuple[str, ...] = ()  # a derived record: the memories whose text its text repeats

    @property
    def per_event(self) -> bool:
        """A key per event (a session's tree) rather than one for the whole record."""
        return self.record_id.startswith("s:")


def record_of(event: Event) -> Record | None:
    """The record whose key seals ``event``'s fields; None when the event has nothing sealed."""
    match event:
        case MemoryStored():
            return Record(f"m:{event.memory_id}", event.scope.user, event.scope.session_id)
        case MemoryRefined():
            return Record(f"m:{event.memory_id}", user_known=False)
        case InsightDerived():
            record = f"m:{event.insight_id}"
            return Record(record, session=event.session_id, user_known=False, sources=event.evidence_ids)
        case SessionSummarized():
            record = f"m:{event.summary_id}"
            return Record(record, session=event.session_id, user_known=False, sources=event.memory_ids)
        case ForgettingDetected():  # it quotes the prompt: sealed with that prompt's leaf
            return Record(f"s:{event.session_id}", event.user, event.session_id, leaf=event.instruction_id)
        case ToolObserved(phase="pre") if event.tool_use_id:  # repeats the call its post event records
            leaf = tool_leaf(event.tool_use_id)
            return Record(f"s:{event.session_id}", event.user, event.session_id, leaf=leaf)
        case (
            PromptSubmitted()
            | ToolObserved()
            | ToolFailed()
            | SubagentCompleted()
            | CompactionCheckpointed()
            | ObservationRecorded()
        ):
            return Record(f"s:{event.session_id}", event.user, event.session_id)
        case MemoryEmbedded() if event.record.startswith("s:"):
            session = event.record[2:]
            return Record(event.record, session=session, user_known=False, leaf=event.memory_id)
        case MemoryEmbedded() if event.record.startswith("m:"):
            return Record(event.record, user_known=False)
        case _:
            return None


def tool_leaf(tool_use_id: str) -> str:
    """The leaf a ``pre``-phase ``ToolObserved`` is sealed with: named by its call, which the events
    recording the call's outcome name too (its own id is not known to them)."""
    return f"tool:{tool_use_id}"


def companion_leaves(event: Event) -> tuple[str, ...]:
    """Other leaves of the event's session whose text repeats the event's: erasing the event (a memory)
    punctures them too. A tool call's outcome (``post``, or its failure) and the ``pre`` event of the
    same call; a forgetting detection needs none (it is sealed with its prompt's own leaf)."""
    match event:
        case ToolObserved(phase="post") | ToolFailed() if event.tool_use_id:
            return (tool_leaf(event.tool_use_id),)
        case _:
            return ()
