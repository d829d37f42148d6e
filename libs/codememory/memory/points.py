"""A memory's point in the index is named by its tenant and its memory id together.

Memory ids are chosen by whoever stores (a hook, a client, an import), so two tenants may hold the
same one. Keyed by the memory id alone, the index would let one tenant's memory shadow the other's,
and Store would have to refuse an id "taken" by a tenant the caller cannot see: a probe of what other
tenants hold. ``point_id`` is the one place a memory id becomes a point id: the projection writes
under it and every read by id (the gateway's Store, Refine, History, Import, erasure; recall's links
and chains) looks up under it, always with the caller's tenant. A point's own memory id is in its
payload (``memory_id_of``); the point id never leaves the index.

``POINT_IDS`` names the scheme; an index generation records it, and one built with memory ids as
point ids (before it) is rebuilt from LOG on start (``gateway.indexes``).
"""

from __future__ import annotations

import functools
import hashlib
import re
import uuid
from collections.abc import Iterable

from codememory.vectorstore import StoredPoint

POINT_IDS = "tenant-memory"
_NAMESPACE = uuid.UUID("3f1c9a52-7d0e-5b4a-8c6f-1e2d3a4b5c6d").bytes  # of memory points; never change it
_CANONICAL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _canonical(memory_id: str) -> str:
    if _CANONICAL.fullmatch(memory_id):
        return memory_id
    try:
        return str(uuid.UUID(memory_id))
    except ValueError:
        return memory_id  # not a UUID: no memory has it, its point is simply never found


@functools.lru_cache(maxsize=65536)  # recall names the same few thousand memories again and again
def point_id(tenant: str, memory_id: str) -> str:
    """The point of ``tenant``'s memory ``memory_id`` (any spelling of the same UUID: the same point):
    a UUID5 of both, built without ``uuid.uuid5`` (a fifth of its time: recall asks for a few hundred
    per query)."""
    name = "\x1f".join((tenant, _canonical(memory_id))).encode()
    digest = bytearray(hashlib.sha1(_NAMESPACE + name).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    h = digest.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def point_ids(tenant: str, memory_ids: Iterable[str]) -> list[str]:
    return [point_id(tenant, m) for m in memory_ids]


def memory_id_of(point: StoredPoint) -> str:
    """The memory id a point holds, in canonical form (its payload's; the point id is not one)."""
    value = point.payload.get("memory_id")
    return _canonical(value) if isinstance(value, str) and value else point.id
