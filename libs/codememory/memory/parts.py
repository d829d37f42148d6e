"""Changed points written back in parts: only the dense vector and the few payload values that changed.

Why: a memory's vector arrives as an event of its own (``memory.embedded``), and the fold wrote the
point back whole for it, so the engine's binding converted the ~21 payload values and the sparse vector
of every memory a second time (it tries each value's type in turn): in a bulk import with vectors that
was as much of the fold's time as writing the new points. A change that leaves the sparse vector and
every payload key in place, and changes at most ``MAX_VALUES`` values (a vector: ``seq``, ``model``,
``embedded_digest``), is written as the vector and those values alone; any other change is written
whole, as before. The point ends the same either way.

Order: the vector first, then the values, ``seq`` among them. A crash between the two leaves the old
``seq``, so the event is folded again from the saved position; the other way round the event would be
taken for applied and the vector lost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from codememory.memory.fold import PointState
from codememory.vectorstore import VectorIndex

MAX_VALUES = 4  # payload values changed, at most, in a change written in parts
_ABSENT = object()

Part = tuple[str, PointState, dict[str, Any]]  # point id, its state after, the values that changed


def changed_values(before: PointState, after: PointState) -> dict[str, Any] | None:
    """The payload values ``after`` changes, when the change can be written in parts (else None)."""
    if after.sparse is not before.sparse or (after.dense is None and before.dense is not None):
        return None
    if not before.payload.keys() <= after.payload.keys():
        return None  # a key removed: only a whole write removes it
    values = {k: v for k, v in after.payload.items() if _differs(before.payload.get(k, _ABSENT), v)}
    return values if len(values) <= MAX_VALUES else None


def _differs(old: Any, new: Any) -> bool:
    return type(old) is not type(new) or bool(old != new)  # 1 and 1.0 are stored differently


def split_parts(
    final: Sequence[tuple[str, PointState]], read: Mapping[str, PointState]
) -> tuple[list[tuple[str, PointState]], list[Part]]:
    """``final`` (point id, state after) into what is written whole and what in parts; ``read``: the
    points as the index held them before the batch (a point not there is written whole)."""
    whole: list[tuple[str, PointState]] = []
    parts: list[Part] = []
    for point_id, after in final:
        before = read.get(point_id)
        values = changed_values(before, after) if before is not None else None
        if values is None:
            whole.append((point_id, after))
        else:
            parts.append((point_id, after, values))
    return whole, parts


def write_parts(index: VectorIndex, parts: Sequence[Part], read: Mapping[str, PointState]) -> None:
    """Each point's new vector (when it has one), then its changed values (see the module's order)."""
    for point_id, after, values in parts:
        if after.dense is not None and after.dense is not read[point_id].dense:
            index.set_dense(point_id, after.dense)
        if values:
            index.set_payload(point_id, values)


__all__ = ["MAX_VALUES", "changed_values", "split_parts", "write_parts"]
