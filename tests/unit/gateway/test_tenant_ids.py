"""Memory ids are per tenant: two tenants each own a memory with the same id, and every path keeps them
apart (the gateway core over an in-memory log and a real Edge shard; the point of a memory is named by
its tenant and its id, ``codememory.memory.point_id``)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from corestack import export_rows, memory_projection  # type: ignore[import-not-found]
from wordhash import DIM  # type: ignore[import-not-found]

from codememory.events import (
    MemoriesLinked,
    MemoriesMerged,
    MemoryEmbedded,
    MemoryLinks,
    MemoryScope,
    new_envelope,
)
from codememory.gateway.core import GatewayCore
from codememory.gateway.erasure import memory_session
from codememory.gateway.errors import NotFound
from codememory.gateway.importing import ImportedMemory, ImportRun
from codememory.gateway.memoryrebuild import rebuild_memory
from codememory.gateway.writes import NewMemory
from codememory.memory import point_id, text_digest
from codememory.recall import RecallQuery
from codememory.vectorstore import IndexFilter, index_digest

X, Y, C, M = (str(uuid.uuid4()) for _ in range(4))


async def _append(core: GatewayCore, tenant: str, event: object) -> None:
    (written,) = await core.event_log.append([new_envelope(event, event_id=str(uuid.uuid4()), tenant=tenant)])  # type: ignore[arg-type]
    assert await core.live.wait_for(written.seq, 2.0)


async def _text(core: GatewayCore, tenant: str, memory_id: str) -> object:
    return (await core.history(tenant, memory_id)).payload["text"]


def test_a_point_is_named_by_tenant_and_memory_id() -> None:
    assert point_id("alice", X) != point_id("bob", X)
    assert point_id("alice", X) == point_id("alice", X.upper())  # any spelling of the UUID: one point
    assert point_id("alice", X) not in (X, point_id("alice", Y))
    parsed = uuid.UUID(point_id("alice", X))  # a canonical UUID5, what the index takes as a point id
    assert str(parsed) == point_id("alice", X) and parsed.version == 5


async def test_two_tenants_own_the_same_ids_and_every_path_keeps_them_apart(
    core: GatewayCore, tmp_path: Path
) -> None:
    for tenant in ("alice", "bob"):
        for mid, what in ((X, "deploys"), (Y, "reviews"), (C, "canonical"), (M, "restated")):
            scope = MemoryScope(session_id=f"{tenant}-session")
            await core.store(tenant, NewMemory(text=f"{tenant} {what} rule", memory_id=mid, scope=scope))
    assert await _text(core, "alice", X) == "alice deploys rule"
    assert await _text(core, "bob", X) == "bob deploys rule"

    # recall and export: each tenant sees its own text only
    for tenant, other in (("alice", "bob"), ("bob", "alice")):
        hits = await core.recall(RecallQuery(tenant=tenant, text="deploys rule"))
        assert hits and all(h.payload["tenant"] == tenant for h in hits)
        assert all(other not in str(h.payload["text"]) for h in hits)
        rows = await export_rows(core, tenant)
        assert sorted(r["memory_id"] for r in rows) == sorted((X, Y, C, M))
        assert all(str(r["text"]).startswith(tenant) for r in rows)

    # a change by one tenant reaches its own memory only
    await core.refine("alice", X, text="alice deploys on fridays", importance=0.8)
    assert await _text(core, "bob", X) == "bob deploys rule"
    bob_x = (await core.history("bob", X)).payload
    vector = tuple(1.0 if i == 0 else 0.0 for i in range(DIM))
    digest = text_digest("bob deploys rule")
    await _append(core, "bob", MemoryEmbedded(memory_id=X, model="m", text_digest=digest, vector=vector))
    await _append(core, "alice", MemoriesLinked(links=(MemoryLinks(memory_id=X, neighbours=(Y,)),)))
    await _append(core, "alice", MemoriesMerged(canonical_id=C, merged_ids=(M,)))
    index = core.live.projection.index
    (alice_x, bob_x_point) = index.get([point_id("alice", X), point_id("bob", X)], with_vectors=True)
    assert alice_x.dense is None and bob_x_point.dense == pytest.approx(vector)
    assert alice_x.payload.get("links") == [Y] and not bob_x_point.payload.get("links")
    assert bob_x.get("importance") != 0.8 and bob_x_point.payload.get("importance") != 0.8

    # merged for alice only: bob cannot unmerge what is not merged for him; alice can
    assert (await core.history("bob", M)).payload["state"] == "active"
    with pytest.raises(NotFound):
        await core.unmerge("bob", C, [M], "")
    await core.unmerge("alice", C, [M], "not the same")
    assert (await core.history("alice", M)).payload["state"] == "active"
    # merged by hand: bob's memories of those ids stay as they were
    await core.merge("bob", M, [C], "the same")
    assert (await core.history("bob", C)).payload["state"] == "merged"
    assert (await core.history("alice", C)).payload["state"] == "active"

    # supersede and forget by bob leave alice's memories as they were
    await core.supersede("bob", X, Y, "newer")
    assert (await core.history("bob", X)).payload["state"] == "superseded"
    assert (await core.history("alice", X)).payload["state"] == "active"
    await core.forget("bob", Y, "")
    assert await _text(core, "alice", Y) == "alice reviews rule"
    assert memory_session(index, "bob", X)[0] == "bob-session"
    assert memory_session(index, "alice", X)[0] == "alice-session"

    # replay builds the same index from the same log
    before = index_digest(index, IndexFilter())
    await rebuild_memory(core.live, core.event_log, memory_projection(tmp_path / "rebuilt"), readers_s=0)  # type: ignore[arg-type]
    assert index_digest(core.live.projection.index, IndexFilter()) == before


async def test_store_answers_the_same_whether_another_tenant_holds_the_id(core: GatewayCore) -> None:
    await core.store("alice", NewMemory(text="alice private plan", memory_id=X))
    held = await core.store("bob", NewMemory(text="bob one", memory_id=X))  # alice holds X
    fresh = await core.store("bob", NewMemory(text="bob two", memory_id=Y))  # nobody holds Y
    assert (held.memory_id, fresh.memory_id) == (X, Y) and type(held) is type(fresh)
    assert await _text(core, "alice", X) == "alice private plan"
    hits = await core.recall(RecallQuery(tenant="alice", text="bob one"))
    assert all("bob" not in str(h.payload["text"]) for h in hits)


async def test_an_import_may_use_an_id_another_tenant_holds(core: GatewayCore) -> None:
    await core.store("alice", NewMemory(text="alice private plan", memory_id=X))
    run = ImportRun("bob", core.live, core.event_log, core.clean)
    await run.add([ImportedMemory(memory=NewMemory(text="bob imported", memory_id=X))])
    tally = await run.finish(wait_embedded=False, timeout_s=5)
    assert (tally.stored, tally.existing) == (1, 0)
    assert await _text(core, "bob", X) == "bob imported"
    assert await _text(core, "alice", X) == "alice private plan"
    again = ImportRun("bob", core.live, core.event_log, core.clean)  # its own copy is found again
    await again.add([ImportedMemory(memory=NewMemory(text="bob imported", memory_id=X))])
    assert (await again.finish(wait_embedded=False, timeout_s=5)).existing == 1
