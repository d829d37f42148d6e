"""What each agent session has already been given as context, so a prompt's context brings only news.

Claude Code, Codex, Cursor and Gemini add a hook's context to the conversation at session start and
at every prompt, where it stays. Packing the same memories again for each prompt repeated them in
the transcript: in a walkthrough, every prompt of a session got the same three memories its start
had already given, up to the 1,500-token budget each time. So a prompt's context leaves out what
this session was already given, and is empty when nothing new is relevant. A context without a
prompt starts the session's record again: it is a session start, or the start after the agent
compacted or cleared its conversation, when what was given before may no longer be in view; but not
a start whose source is ``resume`` (Claude Code, Codex, Gemini CLI), where the agent goes on with
the conversation it kept, what it was given included.

One record for every replica: a hook's request lands on any of them. The replica that serves a
context notes it here at once, and its ``memories.recalled`` events (``accesses``, appended at once
after a context, each access with its time and whether it started the record again; a start that
gave nothing leaves one access without a memory) reach every replica through LOG, where
``GivenFromLog`` folds them into the same record. Each memory keeps the time it was given and each
session the time its record last started, so the record comes out the same whatever order the notes
arrive in (a replica's own, then another's older ones; over ``MAX_GIVEN`` the earliest given go
first). A context is stamped after everything its replica knows of the session (``stamp``), so a
replica whose clock is behind another's still orders a prompt after the start it follows. Until
another replica's events arrive (an append and a fold: with a prompt 0.2 s after its start, none of
10 repeated in a walkthrough, benchmarks/RESULTS.md), a replica may give a memory again. Kept in
memory for the ``MAX_SESSIONS`` sessions last noted (``_session``: one tenant's flood of sessions
pushes out its own). Thread-safe: contexts are packed, and LOG folded, in worker threads.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field

MAX_SESSIONS = 10_000
MAX_GIVEN = 2_000  # memory ids remembered per session (the earliest given are forgotten first)
_AFTER = 1e-3  # how far past the latest time a session's record knows a new context is stamped


@dataclass
class _Session:
    started_at: float = 0.0  # what was given before this no longer counts
    given: dict[str, float] = field(default_factory=dict)  # memory id -> when it was last given

    def latest(self) -> float:
        return max(self.started_at, max(self.given.values(), default=0.0))


class GivenContext:
    """What each agent session was already given as context, per tenant and session id: what a
    prompt's context leaves out, forgotten when the session starts again (see the module)."""

    def __init__(self, max_sessions: int = MAX_SESSIONS, max_given: int = MAX_GIVEN) -> None:
        self._tenants: dict[str, OrderedDict[str, _Session]] = {}  # by tenant, least recent first
        self._count = 0
        self._max_sessions = max_sessions
        self._max_given = max_given
        self._lock = threading.Lock()

    def given(self, tenant: str, session_id: str) -> frozenset[str]:
        """The memories ``session_id`` was given since it (re)started; none without a session id."""
        if not session_id:
            return frozenset()
        with self._lock:
            session = self._find(tenant, session_id)
            return frozenset(session.given) if session else frozenset()

    def stamp(self, tenant: str, session_id: str, now: float | None = None) -> float:
        """The time to note a new context of the session at: ``now`` (default: the clock), or just
        after the latest time the record holds, when another replica's clock ran ahead of this one's."""
        now = time.time() if now is None else now
        with self._lock:
            session = self._find(tenant, session_id)
            return now if session is None else max(now, session.latest() + _AFTER)

    def note(
        self,
        tenant: str,
        session_id: str,
        memory_ids: Iterable[str],
        *,
        restart: bool,
        at: float | None = None,
    ) -> None:
        """``memory_ids`` were given to the session at ``at`` (default: ``stamp``); ``restart``: that
        context started its record again, so what it was given before ``at`` is forgotten. A note
        older than the session's last start changes nothing."""
        if not session_id:
            return
        at = self.stamp(tenant, session_id) if at is None else at
        with self._lock:
            session = self._session(tenant, session_id)
            if restart and at > session.started_at:
                session.started_at = at
                session.given = {m: t for m, t in session.given.items() if t >= at}
            if at >= session.started_at:
                for memory_id in memory_ids:
                    session.given[memory_id] = max(at, session.given.get(memory_id, at))
            while len(session.given) > self._max_given:  # the earliest given go first
                del session.given[min(session.given, key=session.given.__getitem__)]

    def _find(self, tenant: str, session_id: str) -> _Session | None:
        sessions = self._tenants.get(tenant)
        return sessions.get(session_id) if sessions is not None else None

    def _session(self, tenant: str, session_id: str) -> _Session:
        """The session's record, now the most recent of its tenant's. Over ``MAX_SESSIONS`` in all, the
        tenant holding the most sessions loses its least recent one: a tenant that opens sessions by
        the thousand pushes out its own records, not another tenant's. Under the lock."""
        sessions = self._tenants.setdefault(tenant, OrderedDict())
        session = sessions.get(session_id)
        if session is None:
            session = sessions[session_id] = _Session()
            self._count += 1
        sessions.move_to_end(session_id)
        while self._count > self._max_sessions:
            # on a tie, another tenant than the one noting
            largest = max(self._tenants, key=lambda t: (len(self._tenants[t]), t != tenant))
            self._tenants[largest].popitem(last=False)
            self._count -= 1
            if not self._tenants[largest]:
                del self._tenants[largest]
        return session


__all__ = ["MAX_GIVEN", "MAX_SESSIONS", "GivenContext"]
