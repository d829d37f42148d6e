"""What can go wrong on the bus, and what a consumer should do about it.

    BusError
    ├── Retryable      transient: the message is nak'ed and redelivered later
    └── Poison         the message can never be processed: it goes to the DLQ with the reason

Handlers raise these (or domain errors the service maps to them); the consumer runner is the one place
that turns them into ack / nak / term.
"""

from __future__ import annotations


class BusError(Exception):
    """Base of the bus errors."""


class Retryable(BusError):
    """Try again later: a dependency was unavailable."""


class Poison(BusError):
    """Never processable: send to the DLQ with this reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


__all__ = ["BusError", "Poison", "Retryable"]
