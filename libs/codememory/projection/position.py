"""The position of a projection rebuilt from LOG on every start: kept in memory, nowhere else.

The code graph, the consolidate service's view and the reviews service's view are folded from the
start of LOG whenever their process starts, so their position needs no file (the memory projection's
does: ``memory.position``). What they share is the ``Projection`` bookkeeping: where the fold is,
and how many poison events it passed.
"""

from __future__ import annotations


class InMemoryPosition:
    """``last_seq``, ``poisoned``, ``skip`` and ``save_position`` of ``projection.Projection``."""

    def __init__(self) -> None:
        self.last_seq = 0
        self.poisoned = 0

    def skip(self, seq: int) -> None:
        """Move past an event that can never be applied, and count it."""
        self.last_seq = max(self.last_seq, seq)
        self.poisoned += 1

    def save_position(self, seq: int) -> None:
        """Move to a position reached without applying anything."""
        self.last_seq = max(self.last_seq, seq)


__all__ = ["InMemoryPosition"]
