"""What the live-projection runner needs from a projection, and where it reports poison events.

A projection is a fold plus a position: ``apply_batch`` folds decoded events in LOG order and moves
the position past them; ``skip`` moves it past one event that can never be applied and counts it;
``save_position`` records a position reached without applying anything. The memory projection keeps
its position in a file beside its index; the code projection in memory (it is rebuilt from LOG on
every start). The runner (``projection.live``) owns decoding, isolation of bad events, waiting and
swapping, once for both.

A poison event is handed to a ``PoisonSink`` (the gateway's parks it in the DLQ); this package knows
nothing of NATS.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from codememory.events import Envelope

Decoded = Sequence[tuple[int, Envelope]]


class Projection(Protocol):
    @property
    def last_seq(self) -> int:
        """The LOG sequence everything up to which has been applied or passed."""
        ...

    @property
    def poisoned(self) -> int:
        """How many events this projection passed because they could never be applied."""
        ...

    def apply_batch(self, decoded: Decoded) -> int:
        """Fold the events after ``last_seq`` (in order) and move past them; returns how many."""
        ...

    def skip(self, seq: int) -> None:
        """Pass the poison event at ``seq``: the position moves to it (never back) and it is counted."""
        ...

    def save_position(self, seq: int) -> None:
        """Everything up to ``seq`` is reflected (never moves back)."""
        ...


@dataclass(frozen=True)
class Poisoned:
    """An event of LOG a projection could not apply, and why."""

    projection: str
    seq: int
    subject: str
    data: bytes
    reason: str


class PoisonSink(Protocol):
    async def park(self, poisoned: Poisoned) -> None:
        """Record it where an operator sees it (idempotent per LOG sequence)."""
        ...


__all__ = ["Decoded", "PoisonSink", "Poisoned", "Projection"]
