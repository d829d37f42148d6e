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

Kept by the gateway replica that served the request, in memory, for the ``MAX_SESSIONS`` latest
sessions: with several replicas, one that did not serve a session's earlier requests may give a
memory again (what was given is also in LOG, as ``memories.recalled`` events, for the consolidate
service's decay). Thread-safe: contexts are packed in worker threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable

MAX_SESSIONS = 10_000
MAX_GIVEN = 2_000  # memory ids remembered per session (the oldest are forgotten first)


class GivenContext:
    """What each agent session was already given as context, per tenant and session id: what a
    prompt's context leaves out, forgotten when the session starts again (see the module)."""

    def __init__(self, max_sessions: int = MAX_SESSIONS, max_given: int = MAX_GIVEN) -> None:
        self._sessions: OrderedDict[tuple[str, str], dict[str, None]] = OrderedDict()
        self._max_sessions = max_sessions
        self._max_given = max_given
        self._lock = threading.Lock()

    def given(self, tenant: str, session_id: str) -> frozenset[str]:
        """The memories ``session_id`` was given since it (re)started; none without a session id."""
        if not session_id:
            return frozenset()
        with self._lock:
            ids = self._sessions.get((tenant, session_id))
            return frozenset(ids) if ids else frozenset()

    def note(self, tenant: str, session_id: str, memory_ids: Iterable[str], *, restart: bool) -> None:
        """``memory_ids`` were given to the session; ``restart``: forget what it was given before."""
        if not session_id:
            return
        key = (tenant, session_id)
        with self._lock:
            ids = {} if restart else self._sessions.get(key, {})
            ids.update(dict.fromkeys(memory_ids))
            while len(ids) > self._max_given:
                del ids[next(iter(ids))]
            self._sessions[key] = ids
            self._sessions.move_to_end(key)
            while len(self._sessions) > self._max_sessions:
                self._sessions.popitem(last=False)


__all__ = ["MAX_GIVEN", "MAX_SESSIONS", "GivenContext"]
