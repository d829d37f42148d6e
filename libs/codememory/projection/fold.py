"""Folding LOG records into a projection so that one bad event never stops or fails its batch.

The rules, shared by live following and by replay:

- a record that does not decode (not JSON, an unknown event type, a future ``schema_version``) is poison;
- a batch the projection refuses is split, and its events are applied one at a time: the event that
  still fails alone is poison (a ``memory.embedded`` with a vector of the wrong size, a fact the graph
  rejects), its neighbours are applied;
- a *transient* failure (the index cannot be reached: ``IndexUnavailableError``; the disk: ``OSError``)
  is never poison: it propagates, nothing moves past the event, and the follower tries again;
- poison is passed with ``Projection.skip`` (the position moves past it and it is counted) and
  returned, so the caller can report it; the fold goes on with the next event.

Records may come decoded already (``decode_records``: one decode for several projections that fold
the same read of LOG at once, the gateway's follower and a replay; a sealed batch is opened at once);
a ``DecodedRecord`` is folded without decoding it again.

Synchronous and pure of NATS: the runner calls it in a worker thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from codememory.events import Envelope, EventDecodeError, LogRecord, decode_envelope, decode_envelopes
from codememory.projection.port import Poisoned, Projection
from codememory.vectorstore import IndexUnavailableError

Transient = tuple[type[BaseException], ...]
TRANSIENT: Transient = (IndexUnavailableError, OSError)  # the store, not the event: retry


@dataclass(frozen=True)
class DecodedRecord(LogRecord):
    """A record and its envelope, or why it does not decode (shared: envelopes are frozen)."""

    envelope: Envelope | None = None
    error: EventDecodeError | None = None


def decode_records(records: Sequence[LogRecord]) -> list[LogRecord]:
    """Each record decoded once, for every projection that folds it (``fold_records``); the batch
    opened at once (``decode_envelopes``: a sealed LOG's keys found in one lookup)."""
    fresh = [record for record in records if not isinstance(record, DecodedRecord)]
    results = iter(decode_envelopes([record.data for record in fresh]))
    decoded: list[LogRecord] = []
    for record in records:
        if isinstance(record, DecodedRecord):
            decoded.append(record)
            continue
        result = next(results)
        envelope, error = (None, result) if isinstance(result, EventDecodeError) else (result, None)
        decoded.append(DecodedRecord(record.seq, record.subject, record.data, envelope, error))
    return decoded


def _decoded(record: LogRecord) -> Envelope:
    if not isinstance(record, DecodedRecord):
        return decode_envelope(record.data)
    if record.envelope is None:
        raise record.error or EventDecodeError("not decoded")
    return record.envelope


@dataclass
class Folded:
    applied: int = 0
    poisoned: list[Poisoned] = field(default_factory=list)


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def fold_records(
    projection: Projection, records: Sequence[LogRecord], *, name: str, transient: Transient = TRANSIENT
) -> Folded:
    """Decode and apply ``records`` (those after the projection's position) in LOG order."""
    folded = Folded()
    segment: list[tuple[LogRecord, Envelope]] = []
    after = [record for record in records if record.seq > projection.last_seq]
    for record in decode_records(after) if len(after) > 1 else after:
        try:
            segment.append((record, _decoded(record)))
        except EventDecodeError as exc:
            _apply(projection, segment, folded, name, transient)
            segment = []
            projection.skip(record.seq)
            folded.poisoned.append(_poisoned(name, record, f"undecodable: {_reason(exc)}"))
    _apply(projection, segment, folded, name, transient)
    return folded


def _apply(
    projection: Projection,
    segment: list[tuple[LogRecord, Envelope]],
    folded: Folded,
    name: str,
    transient: Transient,
) -> None:
    if not segment:
        return
    before = projection.last_seq
    try:
        folded.applied += projection.apply_batch([(r.seq, envelope) for r, envelope in segment])
        return
    except transient:
        raise
    except Exception:  # a bad event hides in the batch: find it, apply the rest
        # a projection that is not atomic per batch has already moved past the events before it
        folded.applied += sum(1 for r, _ in segment if before < r.seq <= projection.last_seq)
    for record, envelope in segment:
        try:
            folded.applied += projection.apply_batch([(record.seq, envelope)])
        except transient:
            raise
        except Exception as exc:
            projection.skip(record.seq)
            folded.poisoned.append(_poisoned(name, record, _reason(exc)))


def _poisoned(name: str, record: LogRecord, reason: str) -> Poisoned:
    return Poisoned(
        projection=name, seq=record.seq, subject=record.subject, data=record.data, reason=f"{name}: {reason}"
    )


__all__ = ["TRANSIENT", "DecodedRecord", "Folded", "Transient", "decode_records", "fold_records"]
