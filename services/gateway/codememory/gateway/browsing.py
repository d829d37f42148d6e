"""Listing a tenant's memories and sessions from the memory index, for BrowseService.

Reads the same index recall reads (the gateway's projection of LOG), under a filter that always
names the tenant: a caller never sees another tenant's memories. Memories come newest first with a
total; sessions are the memories grouped by ``session_id`` (first and last memory, count per type).
Imports neither NATS nor gRPC.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from codememory.gateway.errors import InvalidArgument
from codememory.memory import LIVE_STATES
from codememory.vectorstore import IndexFilter, VectorIndex

MAX_MEMORIES = 500
MAX_SESSIONS = 1000


@dataclass(frozen=True, kw_only=True)
class MemoryQuery:
    tenant: str
    types: Sequence[str] = ()
    repo: str = ""
    session_id: str = ""
    since: float = 0.0
    until: float = 0.0
    states: Sequence[str] = ()
    limit: int = 50
    offset: int = 0


@dataclass
class Session:
    session_id: str
    repo: str = ""
    agent: str = ""
    started_at: float = float("inf")
    last_at: float = 0.0
    memories: int = 0
    types: Counter[str] = field(default_factory=Counter)


def _created(payload: dict[str, object]) -> float:
    value = payload.get("created_at")
    return float(value) if isinstance(value, int | float) else 0.0


def memory_filter(query: MemoryQuery) -> IndexFilter:
    unknown = sorted(set(query.states) - set(LIVE_STATES))
    if unknown:
        raise InvalidArgument(f"unknown state(s) {', '.join(unknown)}: one of {', '.join(LIVE_STATES)}")
    if query.limit < 0 or query.offset < 0:
        raise InvalidArgument("limit and offset cannot be negative")
    if query.since and query.until and query.since > query.until:
        raise InvalidArgument("since is after until")
    equals: dict[str, str | int | bool] = {"tenant": query.tenant}
    if query.repo:
        equals["repo"] = query.repo
    if query.session_id:
        equals["session_id"] = query.session_id
    any_of: dict[str, Sequence[str]] = {"state": list(query.states or LIVE_STATES)}
    if query.types:
        any_of["type"] = list(query.types)
    ranges: dict[str, tuple[float | None, float | None]] = {}
    if query.since or query.until:
        ranges["created_at"] = (query.since or None, query.until or None)
    return IndexFilter(equals=equals, any_of=any_of, ranges=ranges)


def list_memories(index: VectorIndex, query: MemoryQuery) -> tuple[list[dict[str, object]], int]:
    """The page of matching payloads (newest first) and how many match in all. Blocking."""
    rows = _payloads(index, memory_filter(query), query.tenant)
    rows.sort(key=lambda row: (_created(row), str(row.get("memory_id", ""))), reverse=True)
    limit = min(query.limit or 50, MAX_MEMORIES)
    return rows[query.offset : query.offset + limit], len(rows)


def list_sessions(index: VectorIndex, tenant: str, repo: str = "", limit: int = 100) -> list[Session]:
    """The tenant's sessions, the most recently active first. Blocking."""
    if limit < 0:
        raise InvalidArgument("limit cannot be negative")
    query = MemoryQuery(tenant=tenant, repo=repo)
    sessions: dict[str, Session] = {}
    for row in _payloads(index, memory_filter(query), tenant):
        session_id = str(row.get("session_id") or "")
        if not session_id:
            continue
        session = sessions.setdefault(session_id, Session(session_id))
        created = _created(row)
        if created < session.started_at:
            session.started_at = created
            session.repo = str(row.get("repo") or session.repo)
            session.agent = str(row.get("agent") or session.agent)
        session.last_at = max(session.last_at, created)
        session.memories += 1
        session.types[str(row.get("type") or "")] += 1
    ordered = sorted(sessions.values(), key=lambda s: (s.last_at, s.session_id), reverse=True)
    return ordered[: min(limit or 100, MAX_SESSIONS)]


def _payloads(index: VectorIndex, flt: IndexFilter, tenant: str) -> list[dict[str, object]]:
    keep: Callable[[dict[str, object]], bool] = lambda p: p.get("tenant") == tenant  # noqa: E731
    return [payload for payload in (dict(p.payload) for p in index.scroll(flt)) if keep(payload)]
