"""The last memory of each recently active session, which a new memory of the session takes as context.

A new memory's lexical text carries the previous memory of its session (``memory.enrich``). The
projection keeps the last one of up to ``TAILS`` sessions in memory; for the others, and after a
restart, it finds it in the index (the session's memory with the highest ``created_seq`` below the
new one), which is the same answer, so live following and replay index the same text. A refinement
or a forgetting of a remembered memory is followed here (``track``).
"""

from __future__ import annotations

import re
import uuid
from collections import OrderedDict

from codememory.events import Envelope, MemoryForgotten, MemoryRefined
from codememory.memory.fold import LIVE_STATES, PointState
from codememory.memory.kinds import DERIVED_TYPES
from codememory.vectorstore import IndexFilter, VectorIndex

__all__ = ["TAILS", "Session", "SessionTails", "canonical_uuid"]

TAILS = 4096  # sessions whose last memory is kept in memory
Session = tuple[str, str]  # (tenant, session id)

_CANONICAL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def canonical_uuid(value: str) -> str | None:
    """The canonical form of a UUID string (``None`` if it is not one); most already are."""
    if _CANONICAL.fullmatch(value):
        return value
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


class SessionTails:
    """Per session: (LOG seq, memory id, text) of its latest memory, the least recently used out."""

    def __init__(self, limit: int = TAILS) -> None:
        self.limit = limit
        self._tails: OrderedDict[Session, tuple[int, str, str]] = OrderedDict()

    def previous(
        self, index: VectorIndex, session: Session, seq: int, batch: dict[str, PointState | None]
    ) -> tuple[str, str]:
        """Id and text of the session's latest memory created before ``seq`` (empty when none).

        ``batch``: the points of the batch being folded, newer than their copies in the index.
        """
        tail = self._tails.get(session)
        if tail is not None and tail[0] < seq:
            return tail[1], tail[2]
        flt = IndexFilter(
            equals={"tenant": session[0], "session_id": session[1]},
            ranges={"created_seq": (None, float(seq - 1))},
            any_of={"state": list(LIVE_STATES)},
        )
        best: tuple[int, str, str] | None = None
        in_index = (
            (p.id, p.payload) for p in index.scroll(flt) if p.id not in batch
        )  # a batch point's index copy is stale
        in_batch = ((i, s.payload) for i, s in batch.items() if s is not None)
        for pid, payload in (*in_index, *in_batch):
            created = payload.get("created_seq")
            if (
                payload.get("tenant") == session[0]
                and payload.get("session_id") == session[1]
                and payload.get("state") in LIVE_STATES
                and payload.get("type") not in DERIVED_TYPES
                and isinstance(created, int | float)
                and created < seq
                and (best is None or int(created) > best[0])
            ):
                mid = canonical_uuid(str(payload.get("memory_id") or "")) or pid  # as the tails keep it
                best = (int(created), mid, str(payload.get("text") or ""))
        return (best[1], best[2]) if best is not None else ("", "")

    def remember(self, session: Session, seq: int, memory_id: str, text: str) -> None:
        self._tails[session] = (seq, memory_id, text)
        self._tails.move_to_end(session)
        while len(self._tails) > self.limit:
            self._tails.popitem(last=False)

    def track(self, envelope: Envelope, target: str, before: PointState | None) -> None:
        """Keep the remembered tails equal to what the index says after a refinement or forgetting."""
        session_id = before.payload.get("session_id") if before is not None else None
        if not isinstance(session_id, str) or not session_id:
            return
        session = (envelope.tenant, session_id)
        tail = self._tails.get(session)
        if tail is None or tail[1] != target:
            return
        event = envelope.payload
        if isinstance(event, MemoryForgotten):
            del self._tails[session]  # the next lookup finds the memory before it in the index
        elif isinstance(event, MemoryRefined) and event.text:
            self._tails[session] = (tail[0], target, event.text)
