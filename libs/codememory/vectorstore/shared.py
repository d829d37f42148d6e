"""Payload values a batch of points shares, split off so the engine converts each once, not per point.

Qdrant Edge's binding converts a payload value by trying one type after another (bool, unsigned,
signed, float, string, array, object), each failed try raising and clearing a Python error: about
5 us a string and 9 us an empty list or dict, with the GIL held, so a memory's payload of 21 keys
costs ~130 us to hand over. Most of those values are the same across a batch (the tenant, the state,
the type, empty fields): ``split_shared`` takes them out of the points, to be set on their ids in one
engine update each (``EdgeVectorIndex.upsert_shared``), which gives the same points.

Two engine updates instead of one: between them a reader sees the points without their shared
values. A shard nobody reads yet (a replay's ``ShardBuilder``) takes ``split_shared`` as it is; a live
shard takes ``split_hidden``, whose shared values always include a key every read filters on (the
tenant), so a point is invisible until it is whole.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import msgspec

from codememory.vectorstore.port import IndexPoint

__all__ = ["MIN_SHARED", "split_hidden", "split_shared"]

_encoder = msgspec.msgpack.Encoder()

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
    for point in points:  # the hot loop (every key of every point): ``_same`` inlined
        own: dict[str, Any] = {}
        held: list[str] = []
        for key, value in point.payload.items():
            common_value = samples.get(key)
            if (
                common_value is not None
                and type(value) is common_value[0]
                and value == common_value[1]
                and (common_value[0] in _EXACT or _marker(value) == common_value[2])
            ):
                held.append(key)
            else:
                own[key] = value
        if not held:
            own_points.append(point)
            continue
        own_points.append(msgspec.structs.replace(point, payload=own))
        groups.setdefault(tuple(held), []).append(point.id)
    values = {key: sample for key, (_, sample, _) in samples.items()}
    shared = [({k: values[k] for k in keys}, ids) for keys, ids in groups.items() if len(ids) >= min_shared]
    if len(shared) < len(groups):  # a small group: its points keep their whole payload
        small = {i for ids in groups.values() if len(ids) < min_shared for i in ids}
        own_points = [p if p.id not in small else q for p, q in zip(own_points, points, strict=True)]
    return own_points, shared


_SCALARS = (str, float, int, bool, type(None))  # -0.0 == 0.0 and [1] == [1.0], stored unlike


def _sample(marker: Hashable) -> tuple[type, Any, Hashable]:
    """(type, the value, its marker) of the common value ``marker`` stands for."""
    if isinstance(marker, str):
        return str, marker, marker
    assert isinstance(marker, tuple)
    kind = marker[0]
    value = marker[1] if kind in _SCALARS else msgspec.msgpack.decode(marker[1])
    return kind, value, marker


# of these types, equal values of the same type are stored alike; of floats, lists and dicts not always
_EXACT = frozenset((str, int, bool, type(None)))


def split_hidden(
    points: Sequence[IndexPoint], key: str, min_shared: int = MIN_SHARED
) -> tuple[list[IndexPoint], list[tuple[dict[str, Any], list[str]]]]:
    """``split_shared``, where every point whose payload is split has ``key`` among its shared values:
    written without them, it stays out of every read that filters on ``key`` until they are set.
    A point whose ``key`` is its own (a group of points that differ in it) keeps its whole payload."""
    own, shared = split_shared(points, min_shared)
    hidden = [(values, ids) for values, ids in shared if key in values]
    if len(hidden) < len(shared):
        whole = {i for values, ids in shared if key not in values for i in ids}
        own = [p if p.id not in whole else q for p, q in zip(own, points, strict=True)]
    return own, hidden
