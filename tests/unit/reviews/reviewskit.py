"""Helpers for the reviews service's tests: events in an in-memory LOG, folded into a live view."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from codememory.bus import Delivery
from codememory.events import (
    Envelope,
    Event,
    InMemoryEventLog,
    LogRecord,
    PromptSubmitted,
    ToolObserved,
    new_envelope,
)
from codememory.projection import LiveProjection
from codememory.reviews.view import ReviewsView

TENANT = "acme"
SESSION = "s-1"


def envelope(event: Event, ident: str, at: datetime | None = None) -> Envelope:
    return new_envelope(event, event_id=ident, tenant=TENANT, occurred_at=at or datetime.now(UTC))


def prompt(text: str, session: str = SESSION) -> PromptSubmitted:
    return PromptSubmitted(session_id=session, agent="claude", prompt=text)


def edit(path: str, old: str, new: str, session: str = SESSION) -> ToolObserved:
    """An edit as ingest writes it into LOG (the excerpt format of ``summaries.input_text``)."""
    return ToolObserved(
        session_id=session,
        agent="claude",
        tool="Edit",
        kind="edit",
        paths=(path,),
        input_excerpt=f"--- old\n{old}\n+++ new\n{new}",
        tool_use_id=f"t-{abs(hash((path, old, new)))}",
    )


async def records(log: InMemoryEventLog, events: Sequence[Event]) -> list[LogRecord]:
    """Append ``events`` and return their LOG records."""
    start = await log.last_seq()
    await log.append([envelope(e, f"e-{start + i}") for i, e in enumerate(events, 1)])
    return [r async for r in log.read(start + 1)]


def deliveries(rows: Sequence[LogRecord]) -> list[Delivery]:
    return [Delivery(seq=r.seq, subject=r.subject, data=r.data, attempt=1) for r in rows]


def live_view() -> LiveProjection[ReviewsView]:
    return LiveProjection(ReviewsView(), name="reviews")
