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

import time
from collections.abc import Callable

from codememory.events import MemoriesRecalled
from codememory.gateway.givencontext import GivenContext
from codememory.projection.port import Decoded

MAX_AGE_S = 2 * 24 * 3600.0


class GivenFromLog:
    """A ``projection.port.Projection`` over a ``GivenContext``."""

    def __init__(
        self, given: GivenContext, *, max_age_s: float = MAX_AGE_S, clock: Callable[[], float] = time.time
    ) -> None:
        self.given = given
        self._max_age_s = max_age_s
        self._clock = clock
        self._seq = 0
        self._poisoned = 0

    @property
    def last_seq(self) -> int:
        return self._seq

    @property
    def poisoned(self) -> int:
        return self._poisoned

    def apply_batch(self, decoded: Decoded) -> int:
        applied = 0
        oldest = self._clock() - self._max_age_s
        for seq, envelope in decoded:
            if seq <= self._seq:
                continue
            self._seq = seq
            applied += 1
            if not isinstance(envelope.payload, MemoriesRecalled):
                continue
            for access in envelope.payload.accesses:
                if access.purpose != "context" or not access.session_id or access.at < oldest:
                    continue
                self.given.note(
                    envelope.tenant,
                    access.session_id,
                    (access.memory_id,) if access.memory_id else (),
                    restart=access.starts,
                    at=access.at,
                )
        return applied

    def skip(self, seq: int) -> None:
        self._seq = max(self._seq, seq)
        self._poisoned += 1

    def save_position(self, seq: int) -> None:
        self._seq = max(self._seq, seq)


__all__ = ["MAX_AGE_S", "GivenFromLog"]
