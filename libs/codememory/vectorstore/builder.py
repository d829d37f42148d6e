"""A Qdrant Edge shard written by a process of its own while this one folds: what makes replay fast.

Handing a point to Qdrant Edge costs about 140 us of Python-held time (the binding converts each of
the payload's ~20 values by trying number types first, each failure a Python exception), more than
decoding and folding its events together. A rebuild writes a fresh shard nobody reads until it is
swapped in, so ``ShardBuilder`` (a ``VectorIndex``) sends each upsert to a child process that owns the
shard (``python -m codememory.vectorstore.builder_worker``) and returns: the child converts and writes
batch n while this process folds batch n+1, each on its own core. The fold is the same code; only
the index under it differs. When the rebuild is done, ``close`` ends the child (it flushes and closes
the shard) and the caller opens the shard in process again (``EdgeVectorIndex.reopen``).

Reads stay exact without waiting for the child: the points of the last upserts are kept here and
answer ``get`` for their ids; an id never written is absent without asking; a ``scroll`` whose
``equals`` names a value of a tracked field (``session_id`` by default) that no written point had
matches nothing. Anything else goes to the child behind the writes already sent (one pipe, in order),
so it sees them all. A write the child fails is reported by the next call, as ``IndexUnavailableError``:
the rebuild stops, nothing is misattributed to a later event. Frames as in ``lexical.pool``.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from codememory.lexical import SparseVec
from codememory.lexical.pool import read_frame, write_frame
from codememory.vectorstore.errors import IndexUnavailableError, PointNotFoundError, VectorIndexError
from codememory.vectorstore.layout import ShardLayout
from codememory.vectorstore.port import (
    DEFAULT_FLOAT_FIELDS,
    DEFAULT_KEYWORD_FIELDS,
    Hit,
    IndexFilter,
    IndexPoint,
    StoredPoint,
    canonical_id,
    check_dense,
)

__all__ = ["ShardBuilder"]

T = TypeVar("T")
_encoder = msgspec.msgpack.Encoder()
_reply = msgspec.msgpack.Decoder(tuple[bool, msgspec.Raw])
_stored = msgspec.msgpack.Decoder(list[StoredPoint])
_hits = msgspec.msgpack.Decoder(list[Hit])
_error = msgspec.msgpack.Decoder(tuple[str, str])
_ERRORS: dict[str, type[VectorIndexError]] = {
    "IndexUnavailableError": IndexUnavailableError,
    "VectorIndexError": VectorIndexError,
}


class ShardBuilder:
    """``VectorIndex`` over the Edge shard at ``path``, written by a child process (see module)."""

    def __init__(
        self,
        path: Path,
        dense_size: int,
        *,
        keyword_fields: Sequence[str] = DEFAULT_KEYWORD_FIELDS,
        float_fields: Sequence[str] = DEFAULT_FLOAT_FIELDS,
        tracked: Sequence[str] = ("session_id",),
        recent: int = 2,
        indexing_threads: int = 0,
        layout: ShardLayout | None = None,
        flush_points: int | None = None,
    ) -> None:
        """``indexing_threads``: what the child's HNSW build may use (``EdgeVectorIndex``; 0: the
        engine's choice); the shard opened in process afterwards states its own again. ``layout``:
        where the shard's segments keep their parts (``layout``; the child builds them so).
        ``flush_points``: the child flushes what it wrote while idle once this many points are not
        flushed (``builder_worker.FLUSH_POINTS`` by default; 0: only when asked)."""
        self.path = path
        self.dense_size = dense_size
        command = [sys.executable, "-m", "codememory.vectorstore.builder_worker", str(path), str(dense_size)]
        command += [",".join(keyword_fields), ",".join(float_fields), str(indexing_threads)]
        command.append(msgspec.json.encode(layout or ShardLayout()).decode())
        if flush_points is not None:
            command.append(str(flush_points))
        self._child: subprocess.Popen[bytes] | None = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self._lock = threading.Lock()
        self._owed = 0  # replies to upserts not read yet
        self._failed: str | None = None
        self._written: set[str] = set()
        self._recent: deque[dict[str, IndexPoint]] = deque(maxlen=max(1, recent))
        self._seen: dict[str, set[Any]] = {field: set() for field in tracked}

    # --- the pipe ------------------------------------------------------------------------------------

    def _pipe(self) -> subprocess.Popen[bytes]:
        if self._child is None:
            raise IndexUnavailableError(f"the shard builder for {self.path} is closed")
        return self._child

    def _send(self, op: str, *args: Any) -> None:
        child = self._pipe()
        try:
            assert child.stdin is not None
            write_frame(child.stdin, _encoder.encode((op, args)))
        except OSError as exc:
            raise IndexUnavailableError(f"the shard builder for {self.path} is gone: {exc}") from exc

    def _receive(self) -> msgspec.Raw:
        child = self._pipe()
        try:
            assert child.stdout is not None
            frame = read_frame(child.stdout)
        except (OSError, EOFError) as exc:
            raise IndexUnavailableError(f"the shard builder for {self.path} is gone: {exc}") from exc
        if frame is None:
            raise IndexUnavailableError(f"the shard builder for {self.path} ended (code {child.poll()})")
        ok, result = _reply.decode(frame)
        if not ok:
            kind, message = _error.decode(result)
            if kind == "PointNotFoundError":
                raise PointNotFoundError(message)
            raise _ERRORS.get(kind, VectorIndexError)(message)
        return result

    def _settle(self, keep: int = 0) -> None:
        """Read upsert replies until at most ``keep`` are owed; a failed write fails every later call."""
        while self._owed > keep:
            self._owed -= 1
            try:
                self._receive()
            except VectorIndexError as exc:
                self._failed = self._failed or str(exc)
        if self._failed is not None:
            raise IndexUnavailableError(f"the shard builder failed a write: {self._failed}")

    def _call(self, decoder: msgspec.msgpack.Decoder[T], op: str, *args: Any) -> T:
        with self._lock:
            self._settle()
            self._send(op, *args)
            return decoder.decode(self._receive())

    # --- writes --------------------------------------------------------------------------------------

    def upsert(self, points: Sequence[IndexPoint]) -> None:
        if not points:
            return
        checked = [self._checked(p) for p in points]  # a bad point fails here, not in the child
        with self._lock:
            self._settle(keep=1)  # one batch in the child while the next is folded
            self._send("upsert", checked)
            self._owed += 1
            batch = {p.id: p for p in checked}
            self._recent.append(batch)
            self._written.update(batch)
            for field, values in self._seen.items():
                values.update(p.payload.get(field) for p in checked)

    def _checked(self, point: IndexPoint) -> IndexPoint:
        if point.dense is not None and len(point.dense) != self.dense_size:
            check_dense(point.dense, self.dense_size)  # raises
        point_id = canonical_id(point.id)
        return point if point_id == point.id else msgspec.structs.replace(point, id=point_id)

    def _forget(self, point_ids: Sequence[str]) -> None:
        for batch in self._recent:
            for point_id in point_ids:
                batch.pop(canonical_id(point_id), None)

    def set_dense(self, point_id: str, dense: Sequence[float]) -> None:
        self._forget([point_id])
        self._call(_none, "set_dense", canonical_id(point_id), check_dense(dense, self.dense_size))

    def replace_sparse(self, point_id: str, sparse: SparseVec) -> None:
        self._forget([point_id])
        self._call(_none, "replace_sparse", canonical_id(point_id), sparse)

    def set_payload(self, point_id: str, payload: Mapping[str, Any]) -> None:
        self._forget([point_id])
        self._call(_none, "set_payload", canonical_id(point_id), dict(payload))

    def delete(self, point_ids: Sequence[str]) -> None:
        if point_ids:
            self._forget(point_ids)
            self._call(_none, "delete", [canonical_id(i) for i in point_ids])

    # --- reads ---------------------------------------------------------------------------------------

    def _latest(self, point_id: str) -> IndexPoint | None:
        for batch in reversed(self._recent):
            point = batch.get(point_id)
            if point is not None:
                return point
        return None

    def get(self, point_ids: Sequence[str], with_vectors: bool = False) -> list[StoredPoint]:
        self._pipe()  # closed: raises, as every index does
        wanted = list(dict.fromkeys(canonical_id(i) for i in point_ids))
        found: dict[str, StoredPoint] = {}
        remote: list[str] = []
        for point_id in wanted:
            point = self._latest(point_id)
            if point is not None:
                dense, sparse = (point.dense, point.sparse) if with_vectors else (None, None)
                payload = dict(point.payload)
                found[point_id] = StoredPoint(id=point_id, payload=payload, dense=dense, sparse=sparse)
            elif point_id in self._written:
                remote.append(point_id)
        if remote:
            found.update((p.id, p) for p in self._call(_stored, "get", remote, with_vectors))
        return [found[i] for i in wanted if i in found]

    def dense_vectors(self, point_ids: Sequence[str]) -> dict[str, Sequence[float]]:
        return {p.id: p.dense for p in self.get(point_ids, with_vectors=True) if p.dense is not None}

    def _never_written(self, flt: IndexFilter) -> bool:
        return any(
            field in flt.equals and flt.equals[field] not in values for field, values in self._seen.items()
        )

    def scroll(self, flt: IndexFilter, batch: int = 256, with_vectors: bool = False) -> Iterator[StoredPoint]:
        self._pipe()
        if flt.matches_nothing or self._never_written(flt):
            return iter(())
        points: list[StoredPoint] = self._call(_stored, "scroll", flt, with_vectors)
        return iter(points)

    def search_dense(
        self,
        vector: Sequence[float],
        flt: IndexFilter,
        limit: int,
        with_vectors: bool = False,
        with_payload: bool = True,
    ) -> list[Hit]:
        dense = check_dense(vector, self.dense_size)
        return self._call(_hits, "search_dense", dense, flt, limit, with_vectors, with_payload)

    def search_sparse(
        self, sparse: SparseVec, flt: IndexFilter, limit: int, with_payload: bool = True
    ) -> list[Hit]:
        return self._call(_hits, "search_sparse", sparse, flt, limit, with_payload)

    def count(self, flt: IndexFilter) -> int:
        return self._call(_int, "count", flt)

    def flush(self) -> None:
        self._call(_none, "flush")

    def optimize(self) -> bool:
        return self._call(_bool, "optimize")

    def digest(self) -> str:
        """``index_digest`` of every point, computed by the child (off this process's GIL)."""
        return self._call(_str, "digest")

    def abort(self) -> None:
        """Kill the child, from any thread: a call waiting on it fails with ``IndexUnavailableError``
        (a gateway that stops while the child builds an HNSW does not wait for the build)."""
        child = self._child
        if child is not None and child.poll() is None:
            child.kill()

    def close(self) -> None:
        """Wait for the writes sent, then end the child: it flushes the shard and exits (without the
        engine's close: ``builder_worker``). Closing twice is harmless; a write that failed is raised
        here if no call reported it yet."""
        with self._lock:
            child = self._child
            if child is None:
                return
            try:
                self._settle()
                self._send("close")
                self._receive()
            finally:
                self._child = None
                self._recent.clear()
                if child.stdin is not None:
                    with contextlib.suppress(OSError):  # a killed child: its pipe is broken
                        child.stdin.close()
                try:
                    child.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()
                if child.stdout is not None:
                    child.stdout.close()


_none = msgspec.msgpack.Decoder(type(None))
_int = msgspec.msgpack.Decoder(int)
_bool = msgspec.msgpack.Decoder(bool)
_str = msgspec.msgpack.Decoder(str)
