"""Waiting for an import's dense vectors: until every memory it stored has one, or the vectors stop.

A bulk import returns once its memories are recallable by their words; asked to (``--wait-embedded``),
it also waits for the embed service to write each one's vector and the projection to fold it. That
wait reads the index, and the reads are the cost: a window of ``EMBED_CHECK`` pending ids at a time
(2,000 payloads every 0.1 s, at about 25 us each in Qdrant Edge, is up to half a core taken from the
embedder it waits for). A window with nothing new moves on, so one memory stuck does not hide the rest.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from codememory.events import EventLog
from codememory.memory import MemoryProjection, memory_id_of, point_ids
from codememory.projection import LiveProjection

EMBED_CHECK = 256  # pending memories read per look at the index while waiting for vectors
EMBED_STALL_S = 60.0  # no new vector for this long: return without them (is the embed service up?)
# the stall counts only while the projection has folded all of LOG: an optimize of a large shard holds
# the projection for tens of seconds (20 s at 50,000 here, more on a busy machine) while the vectors
# wait in LOG, and that is no reason to give up on them (nor is anything after the RPC's time left, or
# ``IMPORT_WAIT_S``, without a vector)


async def wait_embedded_vectors(
    live: LiveProjection[MemoryProjection],
    log: EventLog,
    tenant: str,
    memory_ids: Sequence[str],
    timeout_s: float,
) -> bool:
    """Whether every one of ``memory_ids`` (``tenant``'s) got its vector (or was forgotten since): given
    up after ``EMBED_STALL_S`` without a new vector while the projection is caught up with LOG, and
    after ``timeout_s`` without one in any case."""
    pending = list(memory_ids)
    at = 0
    last_progress = waited_from = time.monotonic()
    while pending:
        at = at if at < len(pending) else 0
        chunk = pending[at : at + EMBED_CHECK]
        index = live.projection.index
        found = await asyncio.to_thread(index.get, point_ids(tenant, chunk))
        # embedded, or forgotten since (a tombstone has neither digest)
        done = {
            memory_id_of(p) for p in found if p.payload.get("embedded_digest") == p.payload.get("text_digest")
        }
        if done:
            pending = [memory_id for memory_id in pending if memory_id not in done]
            last_progress = waited_from = time.monotonic()
        else:
            at += EMBED_CHECK
            now = time.monotonic()
            if now - last_progress > EMBED_STALL_S:
                if now - waited_from > timeout_s or await log.last_seq() <= live.seq:
                    return False
                last_progress = now  # vectors may be waiting in LOG for the projection
        if pending and len(done) < len(chunk):
            await asyncio.sleep(0.1)
    return True
