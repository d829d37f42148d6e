"""The event log port: append envelopes, read records back in sequence order.

Services and domain code depend on this Protocol only; ``codememory.bus.JetStreamEventLog`` is the
real one (the LOG stream) and ``InMemoryEventLog`` the one for domain tests. Both pass the same
contract suite (tests/unit/events/test_log_contract.py), including dedupe by event id.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from codememory.events.codec import encode_envelope
from codememory.events.envelope import Envelope, log_subject


@dataclass(frozen=True)
class Appended:
    seq: int
    duplicate: bool


@dataclass(frozen=True)
class LogRecord:
    seq: int
    subject: str
    data: bytes


class EventLog(Protocol):
    async def append(self, envelopes: Sequence[Envelope]) -> list[Appended]: ...

    def read(self, from_seq: int = 1, *, until_seq: int | None = None) -> AsyncIterator[LogRecord]: ...

    async def last_seq(self) -> int: ...


class InMemoryEventLog:
    """An EventLog in a list, deduplicating by event id like JetStream's window does."""

    def __init__(self) -> None:
        self.records: list[LogRecord] = []
        self._seq_by_id: dict[str, int] = {}

    async def append(self, envelopes: Sequence[Envelope]) -> list[Appended]:
        results = []
        for envelope in envelopes:
            known = self._seq_by_id.get(envelope.event_id)
            if known is not None:
                results.append(Appended(seq=known, duplicate=True))
                continue
            seq = len(self.records) + 1
            self.records.append(
                LogRecord(seq=seq, subject=log_subject(envelope), data=encode_envelope(envelope))
            )
            self._seq_by_id[envelope.event_id] = seq
            results.append(Appended(seq=seq, duplicate=False))
        return results

    async def last_seq(self) -> int:
        return len(self.records)

    async def read(self, from_seq: int = 1, *, until_seq: int | None = None) -> AsyncIterator[LogRecord]:
        end = len(self.records) if until_seq is None else min(until_seq, len(self.records))
        for record in self.records[max(from_seq, 1) - 1 : end]:
            yield record
