"""The gateway's side of consolidation: supersede, merge and unmerge by hand, a memory's history, a
requested cycle, and what recall returned recorded as events. An in-memory LOG and a real Edge shard;
no NATS."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from wordhash import DIM, WordHashEmbedder  # type: ignore[import-not-found]

from codememory.cycles import CycleReport
from codememory.events import (
    InMemoryEventLog,
    MemoriesMerged,
    MemoriesRecalled,
    MemoryScope,
    decode_envelope,
    new_envelope,
)
from codememory.gateway.accesses import AccessRecorder
from codememory.gateway.core import GatewayCore
from codememory.gateway.errors import InvalidArgument, NotFound, NotReady
from codememory.gateway.writes import NewMemory
from codememory.lexical import SparseEncoder
from codememory.memory import MemoryProjection, Position
from codememory.projection import LiveProjection, poll
from codememory.recall import ContextRequest, RecallQuery
from codememory.vectorstore import EdgeVectorIndex


class ScriptedConsolidation:
    """Stands in for the consolidate service: appends a merge, replies as the service would."""

    def __init__(self, log: InMemoryEventLog, merge: tuple[str, str] | None = None, error: str = "") -> None:
        self.log, self.merge, self.error = log, merge, error

    async def run(self, tenant: str) -> CycleReport:
        if self.error:
            return CycleReport(error=self.error)
        assert self.merge is not None
        event = MemoriesMerged(canonical_id=self.merge[0], merged_ids=(self.merge[1],))
        (appended,) = await self.log.append([new_envelope(event, event_id="m1", tenant=tenant)])
        return CycleReport(cycle_id="c", merged=1, last_seq=appended.seq)


@pytest.fixture
async def parts(tmp_path: Path) -> AsyncIterator[tuple[GatewayCore, InMemoryEventLog]]:
    log = InMemoryEventLog()
    projection = MemoryProjection(
        EdgeVectorIndex(tmp_path / "s", DIM), SparseEncoder(), Position(tmp_path / "p")
    )
    live = LiveProjection(projection)

    task = asyncio.create_task(poll(log, live))
    core = GatewayCore(
        live, log, WordHashEmbedder(), SparseEncoder(), write_wait_s=2.0, accesses=AccessRecorder(log)
    )
    yield core, log
    task.cancel()


async def test_supersede_links_both_ways_and_history_shows_it(
    parts: tuple[GatewayCore, InMemoryEventLog],
) -> None:
    core, _ = parts
    old = (await core.store("t", NewMemory(text="deploys happen on tuesdays"))).memory_id
    new = (await core.store("t", NewMemory(text="ship whenever main is green"))).memory_id
    await core.supersede("t", old, new, "policy changed")
    history = await core.history("t", old)
    assert history.payload["state"] == "superseded" and history.payload["superseded_by"] == new
    assert [e["event"] for e in history.entries] == ["created", "memory.superseded"]
    assert [r["memory_id"] for r in history.related] == [new]
    hits = await core.recall(RecallQuery(tenant="t", text="when do we deploy ship"))
    assert hits[0].memory_id == new  # the current rule first, the old one only as history


async def test_supersede_refuses_itself_and_other_tenants(
    parts: tuple[GatewayCore, InMemoryEventLog],
) -> None:
    core, _ = parts
    mine = (await core.store("t", NewMemory(text="one"))).memory_id
    theirs = (await core.store("u", NewMemory(text="two"))).memory_id
    with pytest.raises(InvalidArgument):
        await core.supersede("t", mine, mine, "")
    with pytest.raises(NotFound):
        await core.supersede("t", mine, theirs, "")
    with pytest.raises(NotFound):
        await core.history("t", theirs)


async def test_a_requested_cycle_returns_once_projected(parts: tuple[GatewayCore, InMemoryEventLog]) -> None:
    core, log = parts
    a = (await core.store("t", NewMemory(text="lint with ruff"))).memory_id
    b = (await core.store("t", NewMemory(text="we lint with ruff"))).memory_id
    core._consolidation = ScriptedConsolidation(log, merge=(a, b))  # type: ignore[attr-defined]
    report = await core.consolidate("t")
    assert report.merged == 1
    hits = await core.recall(RecallQuery(tenant="t", text="ruff"))
    assert [h.memory_id for h in hits] == [a]  # the restatement left recall at once
    core._consolidation = ScriptedConsolidation(log, error="boom")  # type: ignore[attr-defined]
    with pytest.raises(NotReady, match="boom"):
        await core.consolidate("t")


class SeesTheLog(ScriptedConsolidation):
    """Notes what LOG held when the cycle was asked for: what the consolidate service would read."""

    async def run(self, tenant: str) -> CycleReport:
        self.seen = [decode_envelope(r.data).payload for r in self.log.records]
        return await super().run(tenant)


async def test_a_requested_cycle_sees_what_recall_returned_just_before(
    parts: tuple[GatewayCore, InMemoryEventLog],
) -> None:
    """The background flush runs every 2 s; a cycle asked for within them would miss those accesses
    and archive or decay a memory that was just used."""
    core, log = parts
    a = (await core.store("t", NewMemory(text="lint with ruff"))).memory_id
    b = (await core.store("t", NewMemory(text="we lint with ruff"))).memory_id
    await core.recall(RecallQuery(tenant="t", text="ruff"))
    assert core.accesses is not None and core.accesses.pending == 2
    cycle = SeesTheLog(log, merge=(a, b))
    core._consolidation = cycle  # type: ignore[attr-defined]
    await core.consolidate("t")
    (recalled,) = [e for e in cycle.seen if isinstance(e, MemoriesRecalled)]
    assert {access.memory_id for access in recalled.accesses} == {a, b}
    assert core.accesses.pending == 0


async def test_unmerge_takes_a_merge_back_and_refuses_what_was_not_merged(
    parts: tuple[GatewayCore, InMemoryEventLog],
) -> None:
    core, log = parts
    a = (await core.store("t", NewMemory(text="lint with ruff"))).memory_id
    b = (await core.store("t", NewMemory(text="we lint with ruff"))).memory_id
    c = (await core.store("t", NewMemory(text="format with black"))).memory_id
    core._consolidation = ScriptedConsolidation(log, merge=(a, b))  # type: ignore[attr-defined]
    await core.consolidate("t")
    with pytest.raises(NotFound, match="not merged into"):
        await core.unmerge("t", c, [b], "")
    with pytest.raises(NotFound):
        await core.unmerge("t", a, [c], "")  # active, not merged
    with pytest.raises(NotFound):
        await core.unmerge("other", a, [b], "")
    with pytest.raises(InvalidArgument):
        await core.unmerge("t", a, [], "")
    await core.unmerge("t", a, [b], "two different rules")
    hits = await core.recall(RecallQuery(tenant="t", text="ruff"))
    assert {h.memory_id for h in hits} == {a, b}
    history = await core.history("t", b)
    assert history.payload["state"] == "active" and "merged_into" not in history.payload


async def test_a_merge_by_hand_takes_restatements_out_of_recall_and_can_be_taken_back(
    parts: tuple[GatewayCore, InMemoryEventLog],
) -> None:
    core, log = parts
    a = await core.store(
        "t", NewMemory(text="go through the shared api client", scope=MemoryScope(session_id="s1"))
    )
    b = await core.store(
        "t", NewMemory(text="no raw fetch in components", scope=MemoryScope(session_id="s2"))
    )
    a, b = a.memory_id, b.memory_id
    c = (
        await core.store("t", NewMemory(text="use apiClient from src/api/client.ts", importance=0.9))
    ).memory_id
    d = (await core.store("t", NewMemory(text="format with black"))).memory_id
    with pytest.raises(InvalidArgument):
        await core.merge("t", a, [a, b], "")  # the canonical memory among the merged ones
    with pytest.raises(InvalidArgument):
        await core.merge("t", a, [], "")
    with pytest.raises(NotFound):
        await core.merge("other", a, [b], "")  # another tenant's memories are not found
    written = await core.merge("t", a, [c, b, c], "")
    assert written.others == (c, b)  # each once, in the caller's order: what the RPC answers
    history = await core.history("t", a)
    assert history.payload["restated"] == 3 and history.payload["importance"] == 0.9
    sources = history.payload["sources"]
    assert [(s["memory_id"], s["session_id"]) for s in sources] == [(b, "s2"), (c, "")]  # oldest first
    assert history.entries[-1]["reason"] == "a person said so" and history.entries[-1]["seq"] == written.seq
    assert (await core.history("t", b)).payload["merged_into"] == a
    hits = await core.recall(RecallQuery(tenant="t", text="api client fetch components"))
    assert {h.memory_id for h in hits} == {a}
    with pytest.raises(InvalidArgument, match="already merged into"):
        await core.merge("t", d, [b], "")
    with pytest.raises(InvalidArgument, match="make it the canonical"):
        await core.merge("t", d, [a], "")  # a has sources: they would point to a memory out of recall
    with pytest.raises(InvalidArgument, match="already merged"):
        await core.merge("t", b, [d], "")  # a merged memory cannot be canonical
    again = await core.merge("t", a, [b, c], "")  # a retried call appends once
    assert again.seq == written.seq and len(log.records) == 5
    assert (await core.unmerge("t", a, [c, c], "not the same rule")).others == (c,)
    assert (await core.history("t", a)).payload["restated"] == 2
    assert (await core.history("t", c)).payload["state"] == "active"


async def test_what_recall_returned_is_recorded_in_batches(
    parts: tuple[GatewayCore, InMemoryEventLog],
) -> None:
    core, log = parts
    stored = (await core.store("t", NewMemory(text="cache warms at startup"))).memory_id
    await core.recall(RecallQuery(tenant="t", text="cache"))
    await core.context(ContextRequest(tenant="t", session_id="s9", prompt="startup cache"))
    assert core.accesses is not None and await core.accesses.flush() == 2
    recorded = [decode_envelope(r.data).payload for r in log.records]
    (event,) = [e for e in recorded if isinstance(e, MemoriesRecalled)]
    assert [(a.memory_id, a.session_id, a.purpose) for a in event.accesses] == [
        (stored, "", "recall"),
        (stored, "s9", "context"),  # injected into that session's turn
    ]
