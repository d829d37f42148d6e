"""GatewayCore without NATS or gRPC: an in-memory log, a real Edge shard, a small deterministic embedder."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from corestack import export_rows, memory_projection  # type: ignore[import-not-found]

from codememory.events import MemoryScope
from codememory.gateway.core import GatewayCore
from codememory.gateway.errors import InvalidArgument, NotFound
from codememory.gateway.memoryrebuild import rebuild_memory
from codememory.gateway.writes import NewMemory
from codememory.recall import RecallQuery
from codememory.vectorstore import EdgeVectorIndex, IndexFilter, index_digest


async def test_store_is_recallable_when_store_returns(core: GatewayCore) -> None:
    written = await core.store(
        "t1", NewMemory(text="tokens are validated in middleware", scope=MemoryScope(repo="api"))
    )
    hits = await core.recall(RecallQuery(tenant="t1", text="validated tokens", repo="api"))
    assert [h.memory_id for h in hits] == [written.memory_id]
    assert hits[0].parts.lexical == 1.0 and hits[0].payload["repo"] == "api"


async def test_secrets_and_private_text_are_removed_before_the_log(core: GatewayCore) -> None:
    text = "deploy key ghp_abcdefghijklmnopqrstuvwxyz0123456789 <private>my salary</private> done"
    await core.store("t1", NewMemory(text=text))
    raw = b"".join(r.data for r in core._log.records)  # type: ignore[attr-defined]
    assert b"ghp_abcdef" not in raw and b"salary" not in raw and b"REDACTED" in raw


async def test_tenants_cannot_touch_each_other(core: GatewayCore) -> None:
    mine = await core.store("alice", NewMemory(text="alice plans"))
    assert await core.recall(RecallQuery(tenant="bob", text="alice plans")) == []
    for change in (core.refine("bob", mine.memory_id, text="x"), core.forget("bob", mine.memory_id, "")):
        with pytest.raises(NotFound):
            await change
    # bob may own a memory with alice's id (ids are per tenant); hers is untouched
    bobs = await core.store("bob", NewMemory(text="bob has his own", memory_id=mine.memory_id))
    assert bobs.memory_id == mine.memory_id and bobs.seq > mine.seq
    (alices,) = await export_rows(core, "alice")
    assert alices["text"] == "alice plans" and alices["memory_id"] == mine.memory_id


async def test_storing_the_same_id_twice_stores_once(core: GatewayCore) -> None:
    mid = str(uuid.uuid4())
    first = await core.store("t", NewMemory(text="once", memory_id=mid))
    again = await core.store("t", NewMemory(text="once", memory_id=mid))
    assert again.seq == first.seq and len(core._log.records) == 1  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "memory",
    [
        NewMemory(text="  "),
        NewMemory(text="x", importance=2.0),
        NewMemory(text="x", memory_id="nope"),
        NewMemory(text="x" * 20_000),
    ],
)
async def test_bad_stores_are_invalid_arguments(core: GatewayCore, memory: NewMemory) -> None:
    with pytest.raises(InvalidArgument):
        await core.store("t", memory)


async def test_rebuild_swaps_in_an_equal_projection(core: GatewayCore, tmp_path: Path) -> None:
    for i in range(5):
        await core.store("t", NewMemory(text=f"fact number {i}"))
    victim = await core.store("t", NewMemory(text="to forget"))
    await core.forget("t", victim.memory_id, "")
    before = index_digest(core.live.projection.index, IndexFilter())
    rebuilt = await rebuild_memory(core.live, core._log, memory_projection(tmp_path / "rebuilt"), readers_s=0)  # type: ignore[arg-type]
    assert rebuilt.events == 7
    assert index_digest(core.live.projection.index, IndexFilter()) == before
    assert len(await core.recall(RecallQuery(tenant="t", text="fact number"))) == 5


async def test_link_expansion_brings_in_session_neighbours(core: GatewayCore) -> None:
    from codememory.recall import Weights

    scope = MemoryScope(session_id="chat-1")
    texts = ["I adopted a dog last spring", "what breed is it", "a beagle named Toast"]
    ids = [(await core.store("t", NewMemory(text=t, scope=scope))).memory_id for t in texts]
    await core.store("t", NewMemory(text="unrelated weather chat", scope=MemoryScope(session_id="chat-2")))
    core.weights = Weights(link=0.0)
    plain = await core.recall(RecallQuery(tenant="t", text="beagle", limit=3))
    assert plain[0].memory_id == ids[2] and all(h.parts.link == 0 for h in plain)
    core.weights = Weights(link=0.3)
    linked = await core.recall(RecallQuery(tenant="t", text="beagle", limit=3))
    assert linked[0].memory_id == ids[2]
    assert linked[1].memory_id == ids[1] and linked[1].parts.link > 0  # the turn right before the answer


async def test_a_rebuild_written_apart_equals_one_folded_here(core: GatewayCore, tmp_path: Path) -> None:
    """Sessions (each memory carries the previous one as context), a refinement and a forgetting, in
    chunks of 3 events: the shard written by the builder's child has the digest of the in-process one."""
    for i in range(8):
        scope = MemoryScope(session_id=f"chat-{i % 3}")
        await core.store("t", NewMemory(text=f"step {i} of chat {i % 3}", scope=scope))
    first = await core.store("t", NewMemory(text="to refine", scope=MemoryScope(session_id="chat-0")))
    await core.refine("t", first.memory_id, text="refined later")
    victim = await core.store("t", NewMemory(text="to forget", scope=MemoryScope(session_id="chat-1")))
    await core.forget("t", victim.memory_id, "")
    live = index_digest(core.live.projection.index, IndexFilter())
    digests = []
    for apart in (False, True):
        fresh = memory_projection(tmp_path / f"apart-{apart}")
        rebuilt = await rebuild_memory(core.live, core._log, fresh, chunk=3, readers_s=0, apart=apart)  # type: ignore[arg-type]
        assert rebuilt.events == 12 and core.live.projection is fresh
        assert isinstance(fresh.index, EdgeVectorIndex)  # the shard is back in this process
        digests.append(index_digest(fresh.index, IndexFilter()))
    assert digests == [live, live]
