"""A session's turns as LOG tells them: each user prompt and the edits the agent made after it.

Why: forgetting compares an edit with what earlier turns changed, and "earlier" is a LOG position, so
every prompt and edit keeps its sequence and ``before(seq)`` answers for the state just before an edit
(a replica that has already folded later events still judges an edit as it was made). Bounded: a
session keeps its last ``MAX_TURNS`` turns, a tenant its last ``MAX_SESSIONS`` sessions.
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
    edits: list[tuple[int, Edit]] = field(default_factory=list)


@dataclass
class SessionTurns:
    turns: list[_Turn] = field(default_factory=list)
    _count: int = 0

    def prompt(self, seq: int, text: str) -> None:
        self._count += 1
        self.turns.append(_Turn(self._count, seq, text))
        del self.turns[:-MAX_TURNS]

    def edits(self, seq: int, edits: list[Edit]) -> None:
        if not self.turns:
            self.turns.append(_Turn(0, 0, ""))  # edits before any prompt: no instruction to keep
        self.turns[-1].edits.extend((seq, e) for e in edits)

    def before(self, seq: int) -> tuple[list[Turn], str, list[Edit]]:
        """Earlier turns, the current turn's prompt and its edits so far, as of just before ``seq``."""
        turns = [t for t in self.turns if t.seq < seq or (t.seq == 0 and seq > 0)]
        if not turns:
            return [], "", []
        current = turns[-1]
        history = [Turn(t.index, t.prompt, tuple(e for s, e in t.edits if s < seq)) for t in turns[:-1]]
        return history, current.prompt, [e for s, e in current.edits if s < seq]


class Sessions:
    """Every session of one tenant, least recently active dropped first."""

    def __init__(self) -> None:
        self._by_id: OrderedDict[str, SessionTurns] = OrderedDict()

    def get(self, session_id: str) -> SessionTurns | None:
        return self._by_id.get(session_id)

    def touch(self, session_id: str) -> SessionTurns:
        found = self._by_id.pop(session_id, None) or SessionTurns()
        self._by_id[session_id] = found
        while len(self._by_id) > MAX_SESSIONS:
            self._by_id.popitem(last=False)
        return found
