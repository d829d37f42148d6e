"""Bulk import over an in-memory log and a real Edge shard: batches, derived ids, one wait, vectors."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from corestack import export_rows  # type: ignore[import-not-found]
from importkit import import_run, imported_memories  # type: ignore[import-not-found]
from wordhash import DIM  # type: ignore[import-not-found]

from codememory.events import (
    Appended,
    Envelope,
    InMemoryEventLog,
    LogRecord,
    MemoryStored,
    decode_envelope,
    log_subject,
)
from codememory.events.codec import install_sealer
from codememory.gateway.codeintake import CodeIntake
from codememory.gateway.core import GatewayCore
from codememory.gateway.errors import InvalidArgument
from codememory.gateway.importing import ImportedMemory, ImportRun, imported_id
from codememory.gateway.writes import NewMemory
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position
from codememory.memorylines import StateOf
from codememory.projection import LiveProjection, poll
from codememory.recall import RecallQuery
from codememory.redaction import clean_text
from codememory.sealing import FileKeyStore, Sealer
from codememory.vectorstore import EdgeVectorIndex


async def test_batches_are_recallable_after_one_wait(core: GatewayCore) -> None:
    run = import_run(core)
    memories = imported_memories(250)
    for start in range(0, 250, 100):
        await run.add(memories[start : start + 100])
    tally = await run.finish(wait_embedded=False, timeout_s=10)
    assert (tally.received, tally.stored, tally.existing) == (250, 250, 0)
    assert core.live.seq == tally.last_seq == 250
    hits = await core.recall(RecallQuery(tenant="t1", text="service17 retries", repo="r"))
    assert hits[0].payload["text"] == "fact 17: service17 retries 2 times"


async def test_importing_twice_stores_once(core: GatewayCore) -> None:
    memories = imported_memories(30)
    first = import_run(core)
    await first.add(memories + memories[:5])  # a repeat inside one stream is skipped too
    assert (await first.finish(wait_embedded=False, timeout_s=10)).existing == 5
    second = import_run(core)
    await second.add(memories)
    tally = await second.finish(wait_embedded=False, timeout_s=10)
    assert (tally.stored, tally.existing) == (0, 30)
    assert len(core.event_log.records) == 30  # type: ignore[attr-defined]
    ids = {decode_envelope(r.data).payload.memory_id for r in core.event_log.records}  # type: ignore[attr-defined,union-attr]
    assert ids == {imported_id("t1", m.memory) for m in memories}


async def test_with_sealing_on_derived_ids_are_keyed_and_importing_twice_still_stores_once(
    core: GatewayCore, tmp_path: Path
) -> None:
    memories = imported_memories(10)
    plain = {imported_id("t1", m.memory) for m in memories}  # unkeyed: what a guess could confirm
    previous = install_sealer(Sealer(FileKeyStore(tmp_path / "keys")))
    try:
        for _ in range(2):
            run = import_run(core)
            await run.add(memories)
            await run.finish(wait_embedded=False, timeout_s=10)
        keyed = {imported_id("t1", m.memory) for m in memories}
        install_sealer(Sealer(FileKeyStore(tmp_path / "keys")))  # another process, the same key store
        assert {imported_id("t1", m.memory) for m in memories} == keyed
        assert imported_id("t2", memories[0].memory) not in keyed  # another tenant's key
        install_sealer(Sealer(FileKeyStore(tmp_path / "other")))  # without the key store: nothing matches
        assert not {imported_id("t1", m.memory) for m in memories} & keyed
    finally:
        install_sealer(previous)
    ids = {decode_envelope(r.data).payload.memory_id for r in core.event_log.records}  # type: ignore[attr-defined,union-attr]
    assert ids == keyed and not ids & plain and len(core.event_log.records) == 10  # type: ignore[attr-defined]


async def test_ids_are_kept_or_derived_and_state_and_agent_survive(core: GatewayCore) -> None:
    kept = str(uuid.uuid4())
    run = import_run(core)
    await run.add(
        [
            ImportedMemory(memory=NewMemory(text="kept id", memory_id=kept.upper(), agent="codex")),
            ImportedMemory(memory=NewMemory(text="old rule"), state=StateOf(state="deprecated")),
        ]
    )
    await run.finish(wait_embedded=False, timeout_s=10)
    rows = {row["text"]: row for row in await export_rows(core, "t1")}
    assert rows["kept id"]["memory_id"] == kept and rows["kept id"]["agent"] == "codex"
    assert rows["old rule"]["state"] == "deprecated"
    stored = decode_envelope(core.event_log.records[0].data).payload  # type: ignore[attr-defined]
    assert isinstance(stored, MemoryStored) and stored.source == "import"


async def test_bad_memories_are_refused_with_their_number(core: GatewayCore) -> None:
    run = import_run(core)
    bad = [*imported_memories(2), ImportedMemory(memory=NewMemory(text="<private>all of it</private>"))]
    with pytest.raises(InvalidArgument, match="memory 3: text is empty"):
        await run.add(bad)
    with pytest.raises(InvalidArgument, match="memory 3: state must be one of"):
        await import_run(core).add(
            [*imported_memories(2), *imported_memories(1, state=StateOf(state="forgotten"))]
        )
    with pytest.raises(InvalidArgument, match="memory 1: memory_id must be a UUID"):
        await import_run(core).add([ImportedMemory(memory=NewMemory(text="x", memory_id="nope"))])
    assert core.event_log.records == []  # type: ignore[attr-defined]  # a refused batch appends nothing


class EncodedLog(InMemoryEventLog):
    """A log that takes envelopes encoded by the caller (as JetStream's does), recording what came how."""

    def __init__(self) -> None:
        super().__init__()
        self.encoded_batches: list[int] = []

    async def append_encoded(self, envelopes: Sequence[Envelope], encoded: Sequence[bytes]) -> list[Appended]:
        self.encoded_batches.append(len(envelopes))
        results = []
        for envelope, data in zip(envelopes, encoded, strict=True):
            seq = len(self.records) + 1
            self.records.append(LogRecord(seq=seq, subject=log_subject(envelope), data=data))
            results.append(Appended(seq=seq, duplicate=False))
        return results


async def test_a_log_that_takes_encoded_envelopes_gets_each_batch_sealed_while_it_was_prepared(
    tmp_path: Path,
) -> None:
    log = EncodedLog()
    projection = MemoryProjection(EdgeVectorIndex(tmp_path / "shard", DIM), SparseEncoder(), Position(None))
    live = LiveProjection(projection)
    task = asyncio.create_task(poll(log, live))
    previous = install_sealer(Sealer(FileKeyStore(tmp_path / "keys")))
    try:
        run = ImportRun("t1", live, log, clean_text)
        memories = imported_memories(150)
        for start in range(0, 150, 100):
            await run.add(memories[start : start + 100])
        tally = await run.finish(wait_embedded=False, timeout_s=10)
        assert log.encoded_batches == [100, 50] and tally.stored == 150
        assert all(b"retries" not in r.data and b"cmseal1:" in r.data for r in log.records)  # sealed
        texts = {decode_envelope(r.data).payload.text for r in log.records}  # type: ignore[union-attr]
        assert texts == {m.memory.text for m in memories}  # and they open: their keys were kept
    finally:
        install_sealer(previous)
        task.cancel()


async def test_an_import_is_a_bulk_writer_from_its_first_batch_until_applied_or_released(
    core: GatewayCore,
) -> None:
    run = import_run(core)
    assert core.live.bulk_writers == 0
    await run.add(imported_memories(20))
    await run.add(imported_memories(5))
    assert core.live.bulk_writers == 1  # counted once, however many batches
    await run.finish(wait_embedded=False, timeout_s=10)
    assert core.live.bulk_writers == 0
    run.release()  # again: nothing more
    assert core.live.bulk_writers == 0
    refused = import_run(core)
    with pytest.raises(InvalidArgument):
        await refused.add([ImportedMemory(memory=NewMemory(text="x", memory_id="nope"))])
    assert core.live.bulk_writers == 1  # until the server releases it (``Import``'s finally)
    refused.release()
    assert core.live.bulk_writers == 0


def redacted_where(text: str) -> str:
    """``clean_text`` that says which process ran it (a worker imports it by name)."""
    return f"{clean_text(text)} [pid {os.getpid()}]"


async def test_a_large_import_is_redacted_in_the_intake_workers_once_they_started(core: GatewayCore) -> None:
    intake = CodeIntake(workers=1)
    try:
        run = ImportRun("t1", core.live, core.event_log, redacted_where, intake=intake, workers_after=2)
        secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
        memory = NewMemory(text=f"token {secret} in ci", metadata={"note": f"key {secret}"})
        await run.add([ImportedMemory(memory=memory), *imported_memories(1)])  # in this process
        await run.add(imported_memories(3)[2:])  # past ``workers_after``: the worker starts, this one is here
        for _ in range(100):  # the worker starts in the background (spawned: about a second)
            if intake.ready():
                break
            await asyncio.sleep(0.1)
        assert intake.ready()
        await run.add(
            [ImportedMemory(memory=replace(memory, text=f"{memory.text}, again")), *imported_memories(3)]
        )
        tally = await run.finish(wait_embedded=False, timeout_s=10)
    finally:
        intake.close()
    assert (tally.stored, tally.existing) == (5, 2)  # fact 0 and fact 2 again in the last batch
    stored = [decode_envelope(r.data).payload for r in core.event_log.records]  # type: ignore[attr-defined]
    assert all(isinstance(e, MemoryStored) and secret not in e.text for e in stored)
    pids = {e.text.rsplit("[pid ", 1)[1].rstrip("]") for e in stored}  # type: ignore[union-attr]
    assert str(os.getpid()) in pids and len(pids) == 2  # the first batch here, the second in the worker
    first, again = stored[0], stored[3]
    assert isinstance(first, MemoryStored) and isinstance(again, MemoryStored)
    assert secret not in first.metadata["note"] and secret not in again.metadata["note"]
    assert again.memory_id == imported_id("t1", replace(memory, text=f"{memory.text}, again"))
