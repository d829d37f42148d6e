"""Expansion by links: a top hit lends part of its score to its neighbours in the same session.

An answer is often spread over adjacent memories (a question and its reply, an edit and the failure
that followed). Each memory keeps ``created_seq``, the LOG sequence that created it, so a session's
memories are ordered; a hit's neighbours are the memories just before and after it. Neighbours are
found in the index under the caller's filter (tenant always), so expansion never crosses a tenant.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import msgspec

from codememory.vectorstore import IndexFilter, StoredPoint, VectorIndex

WINDOW = 64  # LOG sequences searched either side; other events interleave with a session's memories


def _int(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) else None


def session_neighbours(
    index: VectorIndex, flt: IndexFilter, parents: Iterable[tuple[str, Mapping[str, object], float]]
) -> dict[str, tuple[StoredPoint, float]]:
    """For each (id, payload, score) parent: the memories right before and after it in its session.

    Returns neighbour id -> (point, best parent score it neighbours).
    """
    found: dict[str, tuple[StoredPoint, float]] = {}
    for parent_id, payload, parent_score in parents:
        session = payload.get("session_id")
        created = _int(payload.get("created_seq"))
        if not isinstance(session, str) or not session or created is None:
            continue
        window = msgspec.structs.replace(
            flt,
            equals={**flt.equals, "session_id": session},
            ranges={**flt.ranges, "created_seq": (float(created - WINDOW), float(created + WINDOW))},
        )
        before: StoredPoint | None = None
        after: StoredPoint | None = None
        for point in index.scroll(window):
            seq = _int(point.payload.get("created_seq"))
            if seq is None or point.id == parent_id:
                continue
            if seq < created and (before is None or seq > (_int(before.payload.get("created_seq")) or 0)):
                before = point
            if seq > created and (after is None or seq < (_int(after.payload.get("created_seq")) or 0)):
                after = point
        for neighbour in (before, after):
            if neighbour is not None and (neighbour.id not in found or found[neighbour.id][1] < parent_score):
                found[neighbour.id] = (neighbour, parent_score)
    return found
