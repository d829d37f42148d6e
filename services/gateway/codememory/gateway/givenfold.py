"""The given record of every replica, folded from LOG: what each session's contexts were.

Every replica's ``memories.recalled`` events say which memories a session context gave which
session, when, and whether that context started the session's record again (``MemoryAccess``; a
start that gave nothing is one access without a memory). This projection folds them into the
replica's ``GivenContext``, so a prompt served here leaves out what another replica gave the same
session (``givencontext``). It follows LOG beside the memory and code projections, on the same read
(``bus.follower``), and keeps its position in memory: on every start it reads LOG from the
beginning with the code projection, and takes only accesses younger than ``max_age_s`` (a session
idle that long is over, or its agent resumed it a day later), so a store's whole history of
contexts never sits in memory. Recall accesses are not its business (the consolidate service's
decay reads those).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

from codememory.events import MemoriesRecalled
from codememory.gateway.givencontext import GivenContext
from codememory.projection.port import Decoded
from codememory.projection.position import InMemoryPosition

MAX_AGE_S = 2 * 24 * 3600.0


class GivenFromLog(InMemoryPosition):
    """A ``projection.port.Projection`` over a ``GivenContext`` (its position: ``InMemoryPosition``)."""

    def __init__(
        self, given: GivenContext, *, max_age_s: float = MAX_AGE_S, clock: Callable[[], float] = time.time
    ) -> None:
        super().__init__()
        self.given = given
        self._max_age_s = max_age_s
        self._clock = clock

    def apply_batch(self, decoded: Decoded) -> int:
        applied = 0
        oldest = self._clock() - self._max_age_s
        for seq, envelope in decoded:
            if seq <= self.last_seq:
                continue
            self.last_seq = seq
            applied += 1
            if not isinstance(envelope.payload, MemoriesRecalled):
                continue
            contexts = [
                a
                for a in envelope.payload.accesses
                if a.purpose == "context" and a.session_id and a.at >= oldest
            ]
            # one context's accesses share their session, time and start: one note each
            for (session_id, at, starts), same in itertools.groupby(
                contexts, key=lambda a: (a.session_id, a.at, a.starts)
            ):
                ids = [a.memory_id for a in same if a.memory_id]
                self.given.note(envelope.tenant, session_id, ids, restart=starts, at=at)
        return applied


__all__ = ["MAX_AGE_S", "GivenFromLog"]
