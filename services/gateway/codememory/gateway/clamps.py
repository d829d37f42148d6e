"""What a client may claim about a memory it writes: its time and its importance, within bounds.

A memory's ``created_at`` and ``importance`` come from the client, and both decide what a later
session is shown (recency, and importance in ranking and in the context's threshold). A tenant token
can therefore neither date a memory into the future (it would stay "newest" forever) nor far into the
past (under decisions it wants to contradict), nor give itself more than ``MAX_IMPORTANCE``: values
beyond are clamped, not refused, so an honest client with a skewed clock still gets its memory stored.
An admin token (an operator restoring history) may set both freely.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from codememory.gateway.writes import NewMemory

MAX_FUTURE = timedelta(minutes=5)  # clock skew
MAX_PAST = timedelta(days=7)  # a hook spooled while offline is at most this old (HOOKS max age)
MAX_IMPORTANCE = 0.9  # 1.0 is for an admin's (or consolidation's) judgement, not a client's claim


def clamp_time(created_at: str, now: datetime) -> str:
    """``created_at`` moved into [now - MAX_PAST, now + MAX_FUTURE]; empty or unreadable: unchanged
    (the core takes the write's own time, or refuses a malformed one)."""
    if not created_at:
        return created_at
    try:
        parsed = datetime.fromisoformat(created_at.replace("Z", "+00:00"))
    except ValueError:
        return created_at
    when = parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    bounded = min(max(when, now - MAX_PAST), now + MAX_FUTURE)
    return created_at if bounded == when else bounded.isoformat()


def clamp_importance(importance: float | None) -> float | None:
    return None if importance is None else min(importance, MAX_IMPORTANCE)


def clamp_memory(memory: NewMemory, *, admin: bool, now: datetime | None = None) -> NewMemory:
    if admin:
        return memory
    at = now or datetime.now(UTC)
    return replace(
        memory,
        created_at=clamp_time(memory.created_at, at),
        importance=min(memory.importance, MAX_IMPORTANCE),
    )
