"""Export streams a tenant's memories oldest first in batches, on a real Edge shard (``corestack``)."""

from __future__ import annotations

from codememory.events import MemoryScope
from codememory.gateway.core import GatewayCore
from codememory.gateway.exporting import exported
from codememory.gateway.writes import NewMemory
from codememory.memory import point_id
from codememory.vectorstore import VectorIndex


async def _store(core: GatewayCore, tenant: str, text: str, day: int, repo: str = "r") -> str:
    memory = NewMemory(
        text=text, scope=MemoryScope(repo=repo), created_at=f"2024-05-{day:02d}T08:00:00+00:00"
    )
    return (await core.store(tenant, memory)).memory_id


async def test_oldest_first_across_batches_of_the_tenant_and_repo_only(core: GatewayCore) -> None:
    days = [5, 1, 4, 2, 3]  # stored out of order
    ids = {day: await _store(core, "t1", f"fact of day {day}", day) for day in days}
    await _store(core, "t1", "another repository's fact", 6, repo="other")
    await _store(core, "t2", "another tenant's fact", 1)
    forgotten = await _store(core, "t1", "a fact forgotten", 7)
    await core.forget("t1", forgotten, "wrong")

    rows = [row async for row in exported(lambda: core.live.projection.index, "t1", "r", batch=2)]
    assert [row["memory_id"] for row in rows] == [ids[day] for day in sorted(days)]
    everything = [row["text"] async for row in exported(lambda: core.live.projection.index, "t1", batch=2)]
    assert everything[-1] == "another repository's fact" and "another tenant's fact" not in everything


async def test_a_memory_gone_or_forgotten_between_the_passes_is_left_out(core: GatewayCore) -> None:
    first, second, third, fourth = [await _store(core, "t1", f"fact {n}", n + 1) for n in range(4)]
    index = core.live.projection.index
    asked: list[int] = []

    def index_of() -> VectorIndex:
        asked.append(1)
        if len(asked) == 2:  # after the first pass has ordered them, before any payload is read back
            index.delete([point_id("t1", second)])
            index.set_payload(point_id("t1", third), {"state": "forgotten"})  # as a tombstone says
        return index

    rows = [row["memory_id"] async for row in exported(index_of, "t1", batch=2)]
    assert rows == [first, fourth] and len(asked) == 3  # the order once, then one read per batch
