"""A ``ShardBuilder`` child: owns one Qdrant Edge shard and applies the requests read from stdin.

Run as ``python -m codememory.vectorstore.builder_worker PATH DENSE_SIZE KEYWORD_FIELDS FLOAT_FIELDS``
(fields comma-separated). Frames (``lexical.pool``) are msgpack: ``(op, args)`` in, ``(True, result)``
or ``(False, (error kind, message))`` out, one reply per request, in order. ``close`` (or the end of
stdin) flushes and closes the shard. Anything the engine prints goes to stderr: stdout is the pipe.

An upsert hands the engine each payload value most points of the batch share (the tenant, the
state, empty fields) once, over their ids, instead of once per point: the engine's binding spends
~6 us converting each string value, and a memory's payload has ~20 (``split_shared``).
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from codememory.lexical import SparseVec
from codememory.lexical.pool import read_frame, write_frame
from codememory.vectorstore.edge import EdgeVectorIndex
from codememory.vectorstore.errors import PointNotFoundError
from codememory.vectorstore.port import IndexFilter, IndexPoint

_encoder = msgspec.msgpack.Encoder()
_request = msgspec.msgpack.Decoder(tuple[str, msgspec.Raw])
_ARGS: dict[str, msgspec.msgpack.Decoder[Any]] = {
    "upsert": msgspec.msgpack.Decoder(tuple[list[IndexPoint]]),
    "get": msgspec.msgpack.Decoder(tuple[list[str], bool]),
    "scroll": msgspec.msgpack.Decoder(tuple[IndexFilter, bool]),
    "search_dense": msgspec.msgpack.Decoder(tuple[list[float], IndexFilter, int, bool, bool]),
    "search_sparse": msgspec.msgpack.Decoder(tuple[SparseVec, IndexFilter, int, bool]),
    "count": msgspec.msgpack.Decoder(tuple[IndexFilter]),
    "set_dense": msgspec.msgpack.Decoder(tuple[str, list[float]]),
    "replace_sparse": msgspec.msgpack.Decoder(tuple[str, SparseVec]),
    "set_payload": msgspec.msgpack.Decoder(tuple[str, dict[str, Any]]),
    "delete": msgspec.msgpack.Decoder(tuple[list[str]]),
    "flush": msgspec.msgpack.Decoder(tuple[()]),
    "optimize": msgspec.msgpack.Decoder(tuple[()]),
    "close": msgspec.msgpack.Decoder(tuple[()]),
}


MIN_SHARED = 16  # a payload value this many points of a batch hold is handed to the engine once


def _marker(value: Any) -> Hashable:
    """Equal markers: equal as the engine stores them (1, 1.0 and True differ; so do 0.0 and -0.0)."""
    kind = type(value)
    if kind is str:
        return str(value)  # a string equals only a string
    if kind is float:
        return (kind, value, math.copysign(1.0, value))
    if kind is int or kind is bool or value is None:
        return (kind, value)
    return (kind, _encoder.encode(value))


def split_shared(
    points: Sequence[IndexPoint], min_shared: int = MIN_SHARED, sample: int = 64
) -> tuple[list[IndexPoint], list[tuple[dict[str, Any], list[str]]]]:
    """``points`` without the payload values at least ``min_shared`` of them hold, and those values
    with the ids of the points that hold them, grouped by which of them a point holds: upserting the
    first and merging the second gives the same points. Candidates are each key's most common value
    among the first ``sample`` points (held by half of them); every point is then checked exactly."""
    if len(points) < min_shared or len({p.id for p in points}) < len(points):
        return list(points), []  # a repeated id: the last one wins an upsert, not a merge
    counts: dict[str, dict[Hashable, int]] = {}
    for point in points[:sample]:
        for key, value in point.payload.items():
            seen = counts.get(key)
            if seen is None:
                seen = counts[key] = {}
            marker = _marker(value)
            seen[marker] = seen.get(marker, 0) + 1
    half = min(len(points), sample) / 2
    common = {}
    for key, seen in counts.items():
        marker, count = max(seen.items(), key=lambda item: item[1])
        if count >= half:
            common[key] = marker
    samples = {key: _sample(marker) for key, marker in common.items()}
    groups: dict[tuple[str, ...], list[str]] = {}
    own_points = []
    for point in points:
        payload = point.payload
        own = {k: v for k, v in payload.items() if (c := samples.get(k)) is None or not _same(v, c)}
        if len(own) == len(payload):
            own_points.append(point)
            continue
        own_points.append(msgspec.structs.replace(point, payload=own))
        groups.setdefault(tuple(k for k in payload if k not in own), []).append(point.id)
    values = {key: sample for key, (_, sample, _) in samples.items()}
    shared = [({k: values[k] for k in keys}, ids) for keys, ids in groups.items() if len(ids) >= min_shared]
    if len(shared) < len(groups):  # a small group: its points keep their whole payload
        small = {i for ids in groups.values() if len(ids) < min_shared for i in ids}
        own_points = [p if p.id not in small else q for p, q in zip(own_points, points, strict=True)]
    return own_points, shared


_SCALARS = (str, float, int, bool, type(None))


def _sample(marker: Hashable) -> tuple[type, Any, Hashable]:
    """(type, the value, its marker) of the common value ``marker`` stands for."""
    if isinstance(marker, str):
        return str, marker, marker
    assert isinstance(marker, tuple)
    kind = marker[0]
    value = marker[1] if kind in _SCALARS else msgspec.msgpack.decode(marker[1])
    return kind, value, marker


def _same(value: Any, common: tuple[type, Any, Hashable]) -> bool:
    kind, sample, marker = common
    if type(value) is not kind or value != sample:
        return False
    return kind is str or kind is int or _marker(value) == marker  # -0.0 == 0.0, [1] == [1.0]


def _operations(index: EdgeVectorIndex) -> dict[str, Callable[..., Any]]:
    return {
        "upsert": lambda points: index.upsert_shared(*split_shared(points)),
        "get": index.get,
        "scroll": lambda flt, with_vectors: list(index.scroll(flt, 1024, with_vectors)),
        "search_dense": index.search_dense,
        "search_sparse": index.search_sparse,
        "count": index.count,
        "set_dense": index.set_dense,
        "replace_sparse": index.replace_sparse,
        "set_payload": index.set_payload,
        "delete": index.delete,
        "flush": index.flush,
        "optimize": index.optimize,
        "close": index.close,
    }


def _fields(text: str) -> tuple[str, ...]:
    return tuple(f for f in text.split(",") if f)


def main(argv: list[str]) -> int:
    path, dense_size, keywords, floats, *rest = argv
    threads = int(rest[0]) if rest else 0
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print must not corrupt the replies
    encoder = _encoder
    source = sys.stdin.buffer
    try:
        index = EdgeVectorIndex(
            Path(path),
            int(dense_size),
            keyword_fields=_fields(keywords),
            float_fields=_fields(floats),
            indexing_threads=threads,
        )
    except Exception as exc:  # reported to every request, so the parent says why
        opened: Exception | None = exc
    else:
        opened = None
        operations = _operations(index)
    while (frame := read_frame(source)) is not None:
        op, raw = _request.decode(frame)
        try:
            if opened is not None:
                raise opened
            result = operations[op](*_ARGS[op].decode(raw))
            reply = encoder.encode((True, result))
        except PointNotFoundError as exc:
            reply = encoder.encode((False, ("PointNotFoundError", exc.point_id)))
        except Exception as exc:
            reply = encoder.encode((False, (type(exc).__name__, str(exc))))
        write_frame(out, reply)
        if op == "close":
            return 0
    if opened is None:
        index.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
