"""Expansion by links: a top hit lends part of its score to its neighbours in the same session, and
to the memories the consolidate service linked it to by meaning (``links``: its nearest neighbours
from any session, recorded by ``memories.linked``).

An answer is often spread over adjacent memories (a question and its reply, an edit and the failure
that followed). Each memory keeps ``created_seq``, the LOG sequence that created it, so a session's
memories are ordered; a hit's neighbours are the memories just before and after it. Neighbours are
found in the index under the caller's filter (tenant always), so expansion never crosses a tenant.

A memory created since issue 3 names the memory before it (``previous_id``, fixed in LOG order by the
projection), so the neighbours of every parent come from two index calls: the predecessors by id and
the successors by ``previous_id``. Older points without it fall back to a window scroll per parent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Executor

import msgspec

from codememory.memory.points import memory_id_of, point_id
from codememory.vectorstore import IndexFilter, StoredPoint, VectorIndex

WINDOW = 64  # LOG sequences searched either side; other events interleave with a session's memories


def _tenant(flt: IndexFilter) -> str:
    """The caller's tenant (always in a recall's filter): memory ids name points only with it."""
    return str(flt.equals.get("tenant", ""))


def _int(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) else None


def session_neighbours(
    index: VectorIndex,
    flt: IndexFilter,
    parents: Iterable[tuple[str, Mapping[str, object], float]],
    executor: Executor | None = None,
    *,
    semantic: float = 0.0,
) -> dict[str, tuple[StoredPoint, float]]:
    """For each (id, payload, score) parent: the memories right before and after it in its session.

    Returns neighbour memory id -> (point, best parent score it neighbours). With an ``executor``, the
    predecessors are read while the successors are searched. ``semantic`` > 0 adds the memories a cycle
    linked each parent to by meaning, with the parent's score times ``semantic``.
    """
    found: dict[str, tuple[StoredPoint, float]] = {}

    def keep(neighbour: StoredPoint, parent_score: float) -> None:
        mid = memory_id_of(neighbour)
        if mid not in found or found[mid][1] < parent_score:
            found[mid] = (neighbour, parent_score)

    parents = list(parents)
    linked = [p for p in parents if isinstance(p[1].get("previous_id"), str)]
    if linked:
        _linked_neighbours(index, flt, linked, keep, executor)
    if semantic > 0:
        _semantic_neighbours(index, flt, parents, keep, semantic)
    for parent_id, payload, parent_score in parents:
        if isinstance(payload.get("previous_id"), str):
            continue
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
            if seq is None or memory_id_of(point) == parent_id:
                continue
            if seq < created and (before is None or seq > (_int(before.payload.get("created_seq")) or 0)):
                before = point
            if seq > created and (after is None or seq < (_int(after.payload.get("created_seq")) or 0)):
                after = point
        for neighbour in (before, after):
            if neighbour is not None:
                keep(neighbour, parent_score)
    return found


def _linked_neighbours(
    index: VectorIndex,
    flt: IndexFilter,
    parents: list[tuple[str, Mapping[str, object], float]],
    keep: Callable[[StoredPoint, float], None],
    executor: Executor | None,
) -> None:
    """Predecessors by id, successors by ``previous_id``: both under the caller's filter."""
    score_of = {pid: s for pid, _, s in parents}
    tenant = _tenant(flt)
    # by point id: any spelling of a memory id names one point
    before_of = {
        point_id(tenant, str(p.get("previous_id"))): mid for mid, p, _ in parents if p.get("previous_id")
    }
    only = msgspec.structs.replace(flt, ids=list(before_of))

    def read_predecessors() -> list[StoredPoint]:
        return list(index.scroll(only)) if before_of else []

    reading = executor.submit(read_predecessors) if executor is not None else None
    after = msgspec.structs.replace(flt, any_of={**flt.any_of, "previous_id": list(score_of)})
    successors = list(index.scroll(after))
    predecessors = reading.result() if reading is not None else read_predecessors()
    for point in predecessors:  # in this order, so a tie for the best parent score resolves as before
        keep(point, score_of[before_of[point.id]])
    for point in successors:
        parent = point.payload.get("previous_id")
        if isinstance(parent, str) and parent in score_of:
            keep(point, score_of[parent])


def _semantic_neighbours(
    index: VectorIndex,
    flt: IndexFilter,
    parents: list[tuple[str, Mapping[str, object], float]],
    keep: Callable[[StoredPoint, float], None],
    share: float,
) -> None:
    """The memories a cycle linked each parent to, read under the caller's filter (tenant, state)."""
    best: dict[str, float] = {}
    own = {pid for pid, _, _ in parents}
    for _, payload, score in parents:
        links = payload.get("links")
        for linked in links if isinstance(links, list | tuple) else ():
            if isinstance(linked, str) and linked not in own:
                best[linked] = max(best.get(linked, 0.0), score * share)
    if best:
        by_point = {point_id(_tenant(flt), mid): share for mid, share in best.items()}
        for point in index.scroll(msgspec.structs.replace(flt, ids=list(by_point))):
            keep(point, by_point[point.id])
