"""Which events become memories, and what a memory says.

One function decides it for every consumer: the embed service embeds exactly the texts this produces,
and the projection indexes exactly these drafts, so the two can never disagree about a memory's text.
Observations of what the agent did (prompts, edits, shell runs, failures, subagent results, compaction
summaries) become memories of their own type; explicit ``MemoryStored`` events carry theirs. A recorded
commit's message is a memory of type ``commit`` (the decision a commit documented, with its sha and
date, linked to the files and symbols it changed); merge commits and empty messages are not.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import msgspec

from codememory.events import (
    CommitRecorded,
    CompactionCheckpointed,
    Envelope,
    InsightDerived,
    MemoryStored,
    PromptSubmitted,
    SessionSummarized,
    SubagentCompleted,
    ToolFailed,
    ToolObserved,
)
from codememory.memorylines import iso_seconds

_MAX_TEXT = 4000
_IMPORTANCE_BY_KIND = {"edit": 0.5, "write": 0.5, "shell": 0.4, "task": 0.5, "read": 0.2, "search": 0.2}


class MemoryDraft(msgspec.Struct, frozen=True, kw_only=True):
    memory_id: str
    tenant: str
    text: str
    memory_type: str
    repo: str = ""
    branch: str = ""
    user: str = ""
    session_id: str = ""
    agent: str = ""
    paths: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    importance: float = 0.5
    metadata: dict[str, str] = msgspec.field(default_factory=dict)
    created_at: float = 0.0


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def epoch_seconds(value: str, fallback: datetime) -> float:
    """A stored memory's ``created_at`` (ISO-8601; no zone: UTC) in seconds since the epoch, or
    ``fallback``'s when it is empty or not a time (as the fold dates a memory)."""
    if value:
        try:
            return iso_seconds(value)
        except ValueError:
            pass
    return fallback.timestamp()


def _join(*parts: str) -> str:
    return "\n".join(p for p in parts if p).strip()[:_MAX_TEXT]


def insight_text(event: InsightDerived) -> str:
    """An insight as one memory text: title, then the situation and what worked."""
    return _join(
        event.title,
        f"Situation: {event.situation}" if event.situation else "",
        f"What worked: {event.what_worked}" if event.what_worked else "",
    )


def _derived_metadata(event: InsightDerived | SessionSummarized) -> dict[str, str]:
    """Who worded it, and for an insight its kind and the memories it was drawn from (recall gives an
    insight and its evidence one place in the results: ``recall.restated``)."""
    out = {"phrased_by": event.phrased_by} if event.phrased_by else {}
    if isinstance(event, InsightDerived):
        out["kind"] = event.kind
        if event.evidence_ids:
            out["evidence"] = ",".join(event.evidence_ids[:50])
    return out


def _derived_at(envelope: Envelope, event: InsightDerived | SessionSummarized) -> float:
    """A summary is as old as the session it summarises (its last step), not the cycle that wrote it:
    otherwise every summary a first cycle writes is "today" and outranks the session's own memories."""
    if isinstance(event, SessionSummarized) and event.ended_at > 0:
        return min(event.ended_at, envelope.occurred_at.timestamp())
    return envelope.occurred_at.timestamp()


def _derived(
    envelope: Envelope,
    event: InsightDerived | SessionSummarized,
    memory_id: str,
    text: str,
    memory_type: str,
    importance: float,
) -> MemoryDraft:
    """A memory the consolidate service derived (an insight, a session summary)."""
    return MemoryDraft(
        memory_id=memory_id,
        tenant=envelope.tenant,
        text=text[:_MAX_TEXT],
        memory_type=memory_type,
        repo=event.repo,
        session_id=event.session_id,
        agent="codememory",
        paths=event.paths,
        importance=importance,
        metadata=_derived_metadata(event),
        created_at=_derived_at(envelope, event),
    )


def commit_text(event: CommitRecorded) -> str:
    """A commit as one memory text: its message, then its sha, date and what it changed."""
    day = datetime.fromtimestamp(event.authored_at, UTC).strftime("%Y-%m-%d") if event.authored_at else ""
    paths = [f.path for f in event.files if f.status != "deleted"]
    symbols = [q for f in event.files for q in f.symbols]
    changed = ", ".join(paths[:8]) + (f" (+{len(paths) - 8} more)" if len(paths) > 8 else "")
    return _join(
        event.message.strip()[: _MAX_TEXT - 600],
        f"(commit {event.sha[:12]}{' on ' + day if day else ''}"
        + (f"; changed {changed}" if changed else "")
        + (f"; symbols {', '.join(symbols[:12])}" if symbols else "")
        + ")",
    )


def _commit(envelope: Envelope, event: CommitRecorded) -> MemoryDraft | None:
    if len(event.parents) > 1 or not event.message.strip():
        return None
    day = datetime.fromtimestamp(event.authored_at, UTC).strftime("%Y-%m-%d") if event.authored_at else ""
    return MemoryDraft(
        memory_id=envelope.event_id,
        tenant=envelope.tenant,
        text=commit_text(event),
        memory_type="commit",
        repo=event.repo,
        agent="git",
        paths=tuple(f.path for f in event.files if f.status != "deleted")[:50],
        importance=0.5,
        metadata={"sha": event.sha, "date": day},
        created_at=event.authored_at or envelope.occurred_at.timestamp(),
    )


def memory_from_envelope(envelope: Envelope) -> MemoryDraft | None:
    """The memory an event creates, or None when the event is not itself a memory."""
    event = envelope.payload
    match event:
        case MemoryStored():
            scope = event.scope
            return MemoryDraft(
                memory_id=event.memory_id,
                tenant=envelope.tenant,
                text=event.text[:_MAX_TEXT],
                memory_type=event.memory_type,
                repo=scope.repo,
                branch=scope.branch,
                user=scope.user,
                session_id=scope.session_id,
                agent=event.agent,
                paths=scope.paths,
                tags=event.tags,
                importance=event.importance,
                metadata=dict(event.metadata),
                created_at=epoch_seconds(event.created_at, envelope.occurred_at),
            )
        case InsightDerived():
            return _derived(envelope, event, event.insight_id, insight_text(event), "insight", 0.7)
        case SessionSummarized():
            return _derived(envelope, event, event.summary_id, event.summary, "summary", 0.6)
        case CommitRecorded():
            return _commit(envelope, event)
        case PromptSubmitted() if event.prompt.strip():
            paths: tuple[str, ...] = ()
            text, memory_type, importance = event.prompt[:_MAX_TEXT], "prompt", 0.5
        case ToolObserved(phase="post") if event.summary or event.output_excerpt:
            text = _join(event.summary, event.input_excerpt[:600], event.output_excerpt[:600])
            memory_type, paths = "observation", event.paths
            importance = _IMPORTANCE_BY_KIND.get(event.kind, 0.3)
        case ToolFailed():
            text = _join(
                f"{event.tool} failed" + (f": {event.command}" if event.command else ""), event.error
            )
            memory_type, paths, importance = "failure", event.paths, 0.6
        case SubagentCompleted() if event.result.strip():
            text = _join(f"Subagent {event.subagent_type} result:".replace("  ", " "), event.result)
            memory_type, paths, importance = "subagent", tuple[str, ...](), 0.5
        case CompactionCheckpointed() if event.summary.strip():
            text, memory_type, paths, importance = (
                event.summary[:_MAX_TEXT],
                "summary",
                tuple[str, ...](),
                0.7,
            )
        case _:
            return None
    return MemoryDraft(
        memory_id=envelope.event_id,
        tenant=envelope.tenant,
        created_at=envelope.occurred_at.timestamp(),
        text=text,
        memory_type=memory_type,
        repo=event.repo,
        branch=event.branch,
        user=event.user,
        session_id=event.session_id,
        agent=event.agent,
        paths=tuple(paths),
        importance=importance,
    )
