"""``fold_records``: poison never stops a batch, transient failures never become poison."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from codememory.events import (
    Envelope,
    LogRecord,
    MemoryDeprecated,
    MemoryStored,
    encode_envelope,
    new_envelope,
)
from codememory.projection import Decoded, decode_records, fold_records
from codememory.sealing import ERASED, Sealer, destroy, plan
from codememory.vectorstore import IndexUnavailableError


class Recorder:
    """A projection that applies everything but the events it was told to refuse."""

    def __init__(self, refuse: set[int] = frozenset(), unavailable: set[int] = frozenset()) -> None:  # type: ignore[assignment]
        self.last_seq = 0
        self.poisoned = 0
        self.applied: list[int] = []
        self.batches: list[list[int]] = []
        self._refuse = refuse
        self._unavailable = unavailable

    def apply_batch(self, decoded: Decoded) -> int:
        todo = [seq for seq, _ in decoded if seq > self.last_seq]
        self.batches.append(todo)
        for seq in todo:
            if seq in self._unavailable:
                raise IndexUnavailableError("the index is away")
            if seq in self._refuse:
                raise ValueError(f"cannot apply {seq}")
        self.applied.extend(todo)
        if todo:
            self.last_seq = max(todo)
        return len(todo)

    def skip(self, seq: int) -> None:
        self.last_seq = max(self.last_seq, seq)
        self.poisoned += 1

    def save_position(self, seq: int) -> None:
        self.last_seq = max(self.last_seq, seq)


def _good(seq: int) -> LogRecord:
    envelope: Envelope = new_envelope(
        MemoryDeprecated(memory_id=f"m{seq}"), event_id=f"e{seq}", tenant="t", occurred_at=datetime.now(UTC)
    )
    return LogRecord(seq=seq, subject="cm.log.t.memory.deprecated", data=encode_envelope(envelope))


def _future(seq: int) -> LogRecord:
    raw = json.loads(_good(seq).data)
    raw["schema_version"] = 99
    raw["payload"]["shiny_new_field"] = 1
    return LogRecord(seq=seq, subject="cm.log.t.memory.deprecated", data=json.dumps(raw).encode())


def test_good_records_go_in_one_batch() -> None:
    projection = Recorder()
    folded = fold_records(projection, [_good(1), _good(2), _good(3)], name="memory")
    assert folded.applied == 3 and not folded.poisoned and projection.batches == [[1, 2, 3]]


def test_undecodable_and_future_records_are_passed_in_order() -> None:
    projection = Recorder()
    records = [_good(1), LogRecord(2, "cm.log.t.x", b"not json"), _good(3), _future(4), _good(5)]
    folded = fold_records(projection, records, name="memory")
    assert projection.applied == [1, 3, 5] and projection.last_seq == 5 and projection.poisoned == 2
    assert [(p.seq, p.projection) for p in folded.poisoned] == [(2, "memory"), (4, "memory")]
    assert folded.poisoned[0].reason.startswith("memory: undecodable: EventDecodeError")
    assert "UnknownSchemaVersionError: schema_version 99" in folded.poisoned[1].reason
    assert folded.poisoned[0].data == b"not json" and folded.poisoned[0].subject == "cm.log.t.x"
    assert projection.batches == [[1], [3], [5]]  # the position never moved back


def test_an_event_the_projection_refuses_is_isolated_and_its_neighbours_applied() -> None:
    projection = Recorder(refuse={3})
    folded = fold_records(projection, [_good(i) for i in range(1, 6)], name="code")
    assert projection.applied == [1, 2, 4, 5] and projection.last_seq == 5 and projection.poisoned == 1
    [poison] = folded.poisoned
    assert poison.seq == 3 and poison.reason == "code: ValueError: cannot apply 3"


def test_a_transient_failure_is_never_poison() -> None:
    projection = Recorder(unavailable={2})
    with pytest.raises(IndexUnavailableError):
        fold_records(projection, [_good(1), _good(2), _good(3)], name="memory")
    assert projection.poisoned == 0 and projection.last_seq == 0  # nothing moved past the event


def test_records_already_applied_are_left_alone() -> None:
    projection = Recorder()
    projection.last_seq = 2
    folded = fold_records(projection, [_good(1), LogRecord(2, "s", b"bad"), _good(3)], name="memory")
    assert folded.applied == 1 and not folded.poisoned and projection.applied == [3]


def test_a_sealed_batch_decodes_as_each_record_does_alone(sealer: Sealer) -> None:
    stored = [
        new_envelope(MemoryStored(memory_id=f"m{i}", text=f"secret {i}"), event_id=f"s{i}", tenant="t")
        for i in range(6)
    ]
    records = [
        LogRecord(seq=i + 1, subject="cm.log.t.memory.stored", data=encode_envelope(e))
        for i, e in enumerate(stored)
    ]
    assert all(b"secret" not in r.data for r in records)
    records.insert(2, LogRecord(seq=0, subject="x", data=b"not json"))
    records.insert(4, _future(0))
    records = [LogRecord(seq=i + 1, subject=r.subject, data=r.data) for i, r in enumerate(records)]
    records.append(decode_records(records[:1])[0])  # decoded already: kept as it is
    destroy(sealer.keys, plan(sealer.keys, "t", "memory", "m3"))
    batch = decode_records(records)
    alone = [decode_records([r])[0] for r in records]
    assert [(r.seq, r.envelope, str(r.error)) for r in batch] == [
        (r.seq, r.envelope, str(r.error)) for r in alone
    ]  # type: ignore[attr-defined]
    texts = [r.envelope.payload.text if r.envelope else None for r in batch]  # type: ignore[attr-defined]
    assert texts == [
        "secret 0",
        "secret 1",
        None,
        "secret 2",
        None,
        ERASED,
        "secret 4",
        "secret 5",
        "secret 0",
    ]
    assert batch[-1] is records[-1]
    folded = Recorder()
    result = fold_records(folded, records[:-1], name="memory")
    assert result.applied == 6 and [p.seq for p in result.poisoned] == [3, 5]
