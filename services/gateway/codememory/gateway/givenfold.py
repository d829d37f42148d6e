"""The given record of every replica, folded from LOG: what each session's contexts were.

Every replica's ``memories.recalled`` events say which memories a session context gave which
session, when, and whether that context started the session's record again (``MemoryAccess``). This
projection folds them into the replica's ``GivenContext``, so a prompt served here leaves out what
another replica gave the same session (``givencontext``). It follows LOG beside the memory and code
projections, on the same read (``bus.follower``); it keeps its position in memory and starts from
the beginning of LOG on every start, as the code projection does: the record is small, its events
few. Recall accesses are not its business (the consolidate service's decay reads those).
"""

from __future__ import annotations

from codememory.events import MemoriesRecalled
from codememory.gateway.givencontext import GivenContext
from codememory.projection.port import Decoded


class GivenFromLog:
    """A ``projection.port.Projection`` over a ``GivenContext``."""

    def __init__(self, given: GivenContext) -> None:
        self.given = given
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
        for seq, envelope in decoded:
            if seq <= self._seq:
                continue
            self._seq = seq
            applied += 1
            if not isinstance(envelope.payload, MemoriesRecalled):
                continue
            for access in envelope.payload.accesses:
                if access.purpose == "context" and access.session_id:
                    self.given.note(
                        envelope.tenant,
                        access.session_id,
                        (access.memory_id,),
                        restart=access.starts,
                        at=access.at,
                    )
        return applied

    def skip(self, seq: int) -> None:
        self._seq = max(self._seq, seq)
        self._poisoned += 1

    def save_position(self, seq: int) -> None:
        self._seq = max(self._seq, seq)


__all__ = ["GivenFromLog"]
