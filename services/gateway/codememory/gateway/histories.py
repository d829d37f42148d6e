"""How a memory came to be: its creation, each event that changed it, and the memories it names.

What ``codememory history``, the ``History`` RPC and the MCP tool ``memory_history`` show. The
projection keeps each change on the memory's payload (``memory.consolidated``: who or which cycle,
the reason, the LOG sequence); the memories it names (what it was merged into or superseded by,
what it supersedes, the restatements merged into it) are read from the caller's tenant only.
"""

from __future__ import annotations

from dataclasses import dataclass

from codememory.memory import point_ids
from codememory.vectorstore import StoredPoint, VectorIndex


@dataclass(frozen=True)
class MemoryHistory:
    payload: dict[str, object]
    entries: list[dict[str, object]]
    related: list[dict[str, object]]


def history_of(index: VectorIndex, tenant: str, point: StoredPoint) -> MemoryHistory:
    """``point``'s history, oldest first, and the tenant's memories it names."""
    payload = dict(point.payload)
    created = {"seq": payload.get("created_seq", 0), "event": "created", "at": payload.get("created_at", 0.0)}
    entries = [created, *(e for e in payload.get("history", ()) if isinstance(e, dict))]
    names = [payload.get(k) for k in ("merged_into", "superseded_by")]
    names += list(payload.get("supersedes", ()))
    names += [s.get("memory_id") for s in payload.get("sources", ()) if isinstance(s, dict)]
    ids = list(dict.fromkeys(str(n) for n in names if n))
    found = index.get(point_ids(tenant, ids)) if ids else []
    related = [dict(p.payload) for p in found if p.payload.get("tenant") == tenant]
    return MemoryHistory(payload, entries, related)


__all__ = ["MemoryHistory", "history_of"]
