"""A session's turns as LOG tells them: each user prompt and the edits the agent made after it.

Why: forgetting compares an edit with what earlier turns changed, and "earlier" is a LOG position, so
every prompt and edit keeps its sequence and ``before(seq)`` answers for the state just before an edit
(a replica that has already folded later events still judges an edit as it was made). Bounded: a
session keeps its last ``MAX_TURNS`` turns, a tenant its last ``MAX_SESSIONS`` sessions. Each prompt
and edit also keeps the id of its event (the memory it became), so an erased or forgotten memory's
text leaves the view at once (``forget``, ``drop``), not at the next restart.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from codememory.reviews.forgetting import Edit, Turn

__all__ = ["MAX_SESSIONS", "MAX_TURNS", "SessionTurns", "Sessions"]

MAX_TURNS = 40
MAX_SESSIONS = 500


@dataclass
class _Turn:
    index: int
    seq: int
    prompt: str
    edits: list[tuple[int, Edit, str]] = field(default_factory=list)  # (seq, edit, its event's id)
    prompt_id: str = ""


@dataclass
class SessionTurns:
    turns: list[_Turn] = field(default_factory=list)
    _count: int = 0

    def prompt(self, seq: int, text: str, event_id: str = "") -> None:
        self._count += 1
        self.turns.append(_Turn(self._count, seq, text, prompt_id=event_id))
        del self.turns[:-MAX_TURNS]

    def edits(self, seq: int, edits: list[Edit], event_id: str = "") -> None:
        if not self.turns:
            self.turns.append(_Turn(0, 0, ""))  # edits before any prompt: no instruction to keep
        self.turns[-1].edits.extend((seq, e, event_id) for e in edits)

    def forget(self, event_id: str) -> None:
        """The prompt or the edits of that event are forgotten (the turn stays, without its text)."""
        for turn in self.turns:
            if turn.prompt_id == event_id:
                turn.prompt = ""
            turn.edits = [edit for edit in turn.edits if edit[2] != event_id]

    def before(self, seq: int) -> tuple[list[Turn], str, list[Edit]]:
        """Earlier turns, the current turn's prompt and its edits so far, as of just before ``seq``."""
        turns = [t for t in self.turns if t.seq < seq or (t.seq == 0 and seq > 0)]
        if not turns:
            return [], "", []
        current = turns[-1]
        history = [
            Turn(t.index, t.prompt, tuple(e for s, e, _ in t.edits if s < seq), t.prompt_id)
            for t in turns[:-1]
        ]
        return history, current.prompt, [e for s, e, _ in current.edits if s < seq]


class Sessions:
    """Every session of one tenant, least recently active dropped first."""

    def __init__(self) -> None:
        self._by_id: OrderedDict[str, SessionTurns] = OrderedDict()

    def get(self, session_id: str) -> SessionTurns | None:
        return self._by_id.get(session_id)

    def forget(self, event_id: str) -> None:
        """A memory made from one of their events was forgotten or erased."""
        for turns in self._by_id.values():
            turns.forget(event_id)

    def drop(self, session_id: str) -> None:
        """The session was erased."""
        self._by_id.pop(session_id, None)

    def touch(self, session_id: str) -> SessionTurns:
        found = self._by_id.pop(session_id, None) or SessionTurns()
        self._by_id[session_id] = found
        while len(self._by_id) > MAX_SESSIONS:
            self._by_id.popitem(last=False)
        return found
