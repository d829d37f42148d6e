"""Every memory of a tenant, oldest first, without holding them all in the gateway.

Export used to read every payload into one list and sort it: at 100,000 memories that took the
gateway's resident memory from 0.48 to 0.87 GiB, so a million would have added about 4 GiB to a
process whose whole budget is 4. Oldest first still matters: an import folds memories in the order it
gets them, and a session's turns are linked to the one before by that order.

So two passes. The first walks the tenant's memories and keeps three values of each (time, memory id,
point id) and sorts them; the second reads the payloads back by id,
``EXPORT_BATCH`` at a time, in that order, and yields them. A memory changed between the passes is
exported as it is then; one forgotten since is left out. Both run in worker threads (the first in one
call, the second one call per batch), so the event loop keeps serving recall meanwhile. At a million
memories (``benchmarks/bench_export.py``) the export added 0.22 GiB to the process, payload cache
included, against 3.71 for the one list, and took 67.7 against 61.8 s (an earlier one-off run: 103
against 54.5 s): the second pass reads each payload again.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from codememory.memory import LIVE_STATES
from codememory.vectorstore import IndexFilter, VectorIndex

EXPORT_BATCH = 1000  # payloads read back per worker-thread call


def _when(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


def _order(index: VectorIndex, flt: IndexFilter, tenant: str) -> list[tuple[float, str, str]]:
    """(time, memory id, point id) of each memory under ``flt``, oldest first."""
    keys = [
        (_when(p.payload.get("created_at")), str(p.payload.get("memory_id", "")), p.id)
        for p in index.scroll(flt)
        if p.payload.get("tenant") == tenant
    ]
    keys.sort()
    return keys


def _read(index: VectorIndex, point_ids: Sequence[str], tenant: str) -> list[dict[str, Any]]:
    """The payloads of ``point_ids``, in that order, of those still the tenant's and exported."""
    by_id = {p.id: p.payload for p in index.get(point_ids)}
    rows = []
    for point_id in point_ids:
        payload = by_id.get(point_id)
        if payload is not None and payload.get("tenant") == tenant and payload.get("state") in LIVE_STATES:
            rows.append(dict(payload))
    return rows


async def exported(
    index_of: Callable[[], VectorIndex], tenant: str, repo: str = "", batch: int = EXPORT_BATCH
) -> AsyncIterator[dict[str, Any]]:
    """The payload of every memory of ``tenant`` (of ``repo`` when given) not forgotten, oldest first.
    ``index_of`` is asked for the index at each read (a replay may have swapped it since)."""
    equals: dict[str, str | int | bool] = {"tenant": tenant}
    if repo:
        equals["repo"] = repo
    flt = IndexFilter(equals=equals, any_of={"state": list(LIVE_STATES)})
    keys = await asyncio.to_thread(_order, index_of(), flt, tenant)
    for start in range(0, len(keys), batch):
        point_ids = [point_id for _, _, point_id in keys[start : start + batch]]
        for row in await asyncio.to_thread(_read, index_of(), point_ids, tenant):
            yield row


__all__ = ["EXPORT_BATCH", "exported"]
