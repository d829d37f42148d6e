"""Payloads read recently, kept beside an index that only this process writes, dropped on every write.

Recall reads the payloads of about a hundred candidates per query; Qdrant Edge takes ~25 us per point
for that (more than scoring them) and holds the GIL while it does. The same memories come back query
after query, so ``PayloadCachedIndex`` keeps the payloads it has read (least recently used first out)
and answers id-restricted reads (``get``, and ``scroll`` with ``ids``) from them, evaluating the
filter in Python with the engine's semantics (``matching``); the points it lacks are read by id and
filtered the same way (for the engine a read by id is cheaper than a scroll under the filter: 1.9
against 2.5 ms for a recall's 96 candidates at a million memories). Everything else goes to the engine.

Correctness rests on one writer: every write goes through this object, which forgets the points it
touches once the engine has applied it, and a read that raced a write does not fill the cache (a
generation counter, bumped by every write, must be unchanged across the engine read). So wrap only an
index no other process writes: the gateway's own Qdrant Edge shard, not a shared server collection.
Payload dicts are handed out as shallow copies, so a caller's change never reaches the cache.

Dense vectors asked for by id (``dense_vectors``: recall compares its top hits by meaning) are kept the
same way beside the payloads, as float32 arrays (1.5 KiB at 384 dimensions, a tuple of floats would
take six times that), and forgotten by the writes that can change them (``upsert``, ``set_dense``,
``delete``). The values are the engine's float32 ones, unchanged.
"""

from __future__ import annotations

import threading
from array import array
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from codememory.lexical import SparseVec
from codememory.vectorstore.matching import matches, supported
from codememory.vectorstore.port import (
    Hit,
    IndexFilter,
    IndexPoint,
    StoredPoint,
    VectorIndex,
    canonical_id,
    search_pair,
)

__all__ = ["PayloadCachedIndex"]


class PayloadCachedIndex:
    """A ``VectorIndex`` that answers id-restricted payload reads from memory when it can."""

    def __init__(self, inner: VectorIndex, capacity: int) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self.inner = inner
        self.capacity = capacity
        self._payloads: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._dense: OrderedDict[str, array[float]] = OrderedDict()
        self._lock = threading.Lock()
        self._generation = 0
        self.hits = 0
        self.misses = 0

    # --- writes: through to the engine, then the touched points are forgotten ---------------------

    def _forget(self, ids: Sequence[str] | None, *, payloads: bool = True, vectors: bool = True) -> None:
        """The points' cached payloads and vectors forgotten (what the write can change)."""
        with self._lock:
            self._generation += 1
            if ids is None:
                self._payloads.clear()
                self._dense.clear()
                return
            for point_id in ids:
                canonical = canonical_id(point_id)
                if vectors:
                    self._dense.pop(canonical, None)
                if payloads:
                    self._payloads.pop(canonical, None)

    def upsert(self, points: Sequence[IndexPoint]) -> None:
        try:
            self.inner.upsert(points)
        finally:
            self._forget([p.id for p in points])

    def upsert_new(self, points: Sequence[IndexPoint], hidden_by: str = "tenant") -> None:
        """The engine's ``upsert_new`` when it has one (``EdgeVectorIndex``), else ``upsert``."""
        upsert_new = getattr(self.inner, "upsert_new", None)
        try:
            if upsert_new is None:
                self.inner.upsert(points)
            else:
                upsert_new(points, hidden_by)
        finally:
            self._forget([p.id for p in points])

    def set_dense(self, point_id: str, dense: Sequence[float]) -> None:
        try:
            self.inner.set_dense(point_id, dense)
        finally:
            self._forget([point_id], payloads=False)  # the payload is unchanged

    def replace_sparse(self, point_id: str, sparse: SparseVec) -> None:
        self.inner.replace_sparse(point_id, sparse)  # the payload is unchanged

    def set_payload(self, point_id: str, payload: Mapping[str, Any]) -> None:
        try:
            self.inner.set_payload(point_id, payload)
        finally:
            self._forget([point_id], vectors=False)

    def delete(self, point_ids: Sequence[str]) -> None:
        try:
            self.inner.delete(point_ids)
        finally:
            self._forget(point_ids)

    # --- reads -------------------------------------------------------------------------------------

    def _cached(self, point_ids: Sequence[str]) -> tuple[dict[str, dict[str, Any]], int]:
        """The cached payloads among ``point_ids`` (canonical), and the generation they belong to."""
        found: dict[str, dict[str, Any]] = {}
        with self._lock:
            for point_id in point_ids:
                payload = self._payloads.get(point_id)
                if payload is not None:
                    self._payloads.move_to_end(point_id)
                    found[point_id] = payload
            self.hits += len(found)
            self.misses += len(point_ids) - len(found)
            return found, self._generation

    def _keep(self, points: Sequence[StoredPoint], generation: int) -> None:
        with self._lock:
            if generation != self._generation:
                return  # a write ran while the engine read: what was read may be older than it
            for point in points:
                self._payloads[point.id] = point.payload
                self._payloads.move_to_end(point.id)
            while len(self._payloads) > self.capacity:
                self._payloads.popitem(last=False)

    def _read(self, wanted: list[str], flt: IndexFilter | None) -> dict[str, StoredPoint]:
        cached, generation = self._cached(wanted)
        missing = [i for i in wanted if i not in cached]
        read: list[StoredPoint] = []
        if missing:  # by id, then filtered here like the cached ones: cheaper than a filtered scroll
            read = self.inner.get(missing)
            self._keep(read, generation)
        found = {i: StoredPoint(id=i, payload=dict(p)) for i, p in cached.items()}
        found.update({p.id: StoredPoint(id=p.id, payload=dict(p.payload)) for p in read})
        if flt is not None:
            found = {i: p for i, p in found.items() if matches(p.payload, flt)}
        return found

    def get(self, point_ids: Sequence[str], with_vectors: bool = False) -> list[StoredPoint]:
        if with_vectors:
            return self.inner.get(point_ids, with_vectors=True)
        wanted = list(dict.fromkeys(canonical_id(i) for i in point_ids))
        found = self._read(wanted, None)
        return [found[i] for i in wanted if i in found]

    def dense_vectors(self, point_ids: Sequence[str]) -> dict[str, Sequence[float]]:
        wanted = list(dict.fromkeys(canonical_id(i) for i in point_ids))
        found: dict[str, Sequence[float]] = {}
        with self._lock:
            for point_id in wanted:
                vector = self._dense.get(point_id)
                if vector is not None:
                    self._dense.move_to_end(point_id)
                    found[point_id] = vector
            generation = self._generation
        missing = [i for i in wanted if i not in found]
        if not missing:
            return found
        read = {i: array("f", v) for i, v in self.inner.dense_vectors(missing).items()}
        with self._lock:
            if generation == self._generation:  # no write ran while the engine read
                for point_id, vector in read.items():
                    self._dense[point_id] = vector
                    self._dense.move_to_end(point_id)
                while len(self._dense) > self.capacity:
                    self._dense.popitem(last=False)
        found.update(read)
        return found

    def scroll(self, flt: IndexFilter, batch: int = 256, with_vectors: bool = False) -> Iterator[StoredPoint]:
        if with_vectors or not flt.ids or flt.matches_nothing or not supported(flt):
            yield from self.inner.scroll(flt, batch, with_vectors)
            return
        wanted = list(dict.fromkeys(canonical_id(i) for i in flt.ids))
        found = self._read(wanted, flt)
        for point_id in sorted(found):  # ascending id order, as the engines scroll
            yield found[point_id]

    def search_dense(
        self,
        vector: Sequence[float],
        flt: IndexFilter,
        limit: int,
        with_vectors: bool = False,
        with_payload: bool = True,
    ) -> list[Hit]:
        return self.inner.search_dense(vector, flt, limit, with_vectors, with_payload)

    def search_sparse(
        self, sparse: SparseVec, flt: IndexFilter, limit: int, with_payload: bool = True
    ) -> list[Hit]:
        return self.inner.search_sparse(sparse, flt, limit, with_payload)

    def search_both(
        self, vector: Sequence[float], sparse: SparseVec, flt: IndexFilter, limit: int
    ) -> tuple[list[Hit], list[Hit]]:
        return search_pair(self.inner, vector, sparse, flt, limit)

    def count(self, flt: IndexFilter) -> int:
        return self.inner.count(flt)

    def flush(self) -> None:
        self.inner.flush()

    def optimize(self) -> bool:
        return self.inner.optimize()

    def close(self) -> None:
        self._forget(None)
        self.inner.close()
